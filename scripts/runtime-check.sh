#!/usr/bin/env bash
# The checks CI runs on an extra Node major (22, 24): install, build, the libraries' unit tests and the
# gateway's HTTP suite on the embedded default (PGlite). The full suite (PostgreSQL + Redis, reliability,
# CLI) stays on the main runtime, Node 20: on 2 cores it does not fit three times into CI's budget.
#
# Safe in the same checkout as the main run: every native dependency is a prebuilt N-API binary
# (esbuild, rollup, rolldown, lightningcss, biome, turbo), not built against one Node's ABI, so pnpm's
# node_modules are the same whichever Node installs them; dist is rebuilt (--force, no turbo cache) from
# the same sources, so it is byte-for-byte what Node 20 builds.
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: scripts/runtime-check.sh <node major>}
run() { scripts/with-node.sh "$major" -- "$@"; }

step() {
  local name=$1
  shift
  local start=$SECONDS
  echo "-- node $major: $name"
  "$@"
  echo "-- node $major: $name took $((SECONDS - start)) s"
}

# The README's "Supported runtimes" names the exact versions CI tests; keep it true when a pin moves.
version=$(run node -p 'process.versions.node')
grep -q "$version" README.md || { echo "runtime-check: README.md does not name Node $version" >&2; exit 1; }

packageManager=$(node -p "require('./package.json').packageManager")
# pnpm comes through npx, as in scripts/ensure-deps.mjs; under this Node it checks the lockfile and links.
step install run npx -y "$packageManager" install --frozen-lockfile
step build run env TURBO_TELEMETRY_DISABLED=1 npx turbo run build --force --output-logs=errors-only
step "unit tests + gateway HTTP suite (PGlite)" run npx vitest run \
  --project contracts --project guard --project capabilities --project client --project gateway
