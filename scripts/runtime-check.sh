#!/usr/bin/env bash
# The checks CI runs on an extra Node major (22, 24): install, build and the libraries' unit tests. With
# `--gateway`, also the gateway's HTTP suite on the embedded default (PGlite), 5 minutes on Node 20 here:
# CI runs that suite on the floor (20) only, as its 60-minute budget allows, and the pack smoke on every
# major starts the installed gateway; run it by hand before raising a pin or the floor.
#
# Safe in the same checkout as the main run: every native dependency is a prebuilt N-API binary
# (esbuild, rollup, rolldown, lightningcss, biome, turbo), not built against one Node's ABI, so pnpm's
# node_modules are the same whichever Node installs them; dist is rebuilt (--force, no turbo cache) from
# the same sources, so it is byte-for-byte what Node 20 builds.
set -euo pipefail
cd "$(dirname "$0")/.."
usage='usage: scripts/runtime-check.sh <node major> [--gateway | --no-build]'
major=${1:?$usage}
projects=(--project contracts --project guard --project capabilities --project client)
suite='unit tests'
case ${2:-} in
  '') ;;
  --gateway) projects+=(--project gateway) suite='unit tests + gateway HTTP suite (PGlite)' ;;
  # The build is byte-for-byte the floor's (above): .ci/run builds on the newest major only, for time.
  --no-build) build=no ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
run() { scripts/with-node.sh "$major" -- "$@"; }

step() {
  local name=$1
  shift
  local start=$SECONDS
  echo "-- node $major: $name"
  "$@"
  echo "-- node $major: $name took $((SECONDS - start)) s"
}

# docs/runtimes.md names the exact versions CI tests; keep it true when a pin moves.
version=$(run node -p 'process.versions.node')
grep -q "$version" docs/runtimes.md || { echo "runtime-check: docs/runtimes.md does not name Node $version" >&2; exit 1; }

packageManager=$(node -p "require('./package.json').packageManager")
# pnpm comes through npx, as in scripts/ensure-deps.mjs; under this Node it checks the lockfile and links.
step install run npx -y "$packageManager" install --frozen-lockfile
[[ ${build:-yes} == no ]] || step build run env TURBO_TELEMETRY_DISABLED=1 npx turbo run build --force --output-logs=errors-only
step "$suite" run npx vitest run "${projects[@]}"
