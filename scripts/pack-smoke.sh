#!/usr/bin/env bash
# Packs every publishable package as `pnpm publish` would, installs the tarballs with npm into an empty
# folder outside the workspace, and uses them there as a user would: ESM import and CommonJS require of
# every library, strict type-checking of consumer files (nodenext and bundler, skipLibCheck false), the
# contracts' and the client's README quick starts, the guard's embedding example, and the installed `agw`
# (--help, serve, search). Runs on whatever `node` is first on PATH: `scripts/with-node.sh 22 --
# scripts/pack-smoke.sh` for another runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
here=$root/scripts/pack-smoke
tsc=$root/node_modules/.bin/tsc # the workspace's TypeScript and tsx, by absolute path: the consumer has none
tsx=$root/node_modules/.bin/tsx
packages=(packages/contracts packages/guard packages/capabilities packages/client apps/gateway apps/cli)

work=$(mktemp -d /tmp/agw-pack-smoke.XXXXXX)
gateway_pid=
cleanup() {
  if [[ -n $gateway_pid ]]; then kill "$gateway_pid" 2>/dev/null || true; wait "$gateway_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
echo "pack smoke on node $(node --version) in $work"

# Declarations included (AGW_SKIP_DTS is for `npm start` only); a cache hit when the build is current.
env -u AGW_SKIP_DTS TURBO_TELEMETRY_DISABLED=1 npx turbo run build --output-logs=errors-only >/dev/null

mkdir -p "$work/tarballs" "$work/consumer"
for dir in "${packages[@]}"; do
  (cd "$dir" && npx pnpm pack --pack-destination "$work/tarballs" >/dev/null)
done
ls "$work/tarballs"
# pnpm pack must have replaced every workspace: range with the real version, and every package promises
# the runtimes the root does (.ci/run checks that its floor is the runtime the full suite runs on).
engines=$(node -p "require('./package.json').engines.node")
for tarball in "$work"/tarballs/*.tgz; do
  manifest=$(tar -xOzf "$tarball" package/package.json)
  if grep -q '"workspace:' <<<"$manifest"; then
    echo "pack smoke: $(basename "$tarball") still has a workspace: range" >&2
    exit 1
  fi
  packed=$(node -p "JSON.parse(require('fs').readFileSync(0, 'utf8')).engines?.node" <<<"$manifest")
  [[ $packed == "$engines" ]] || { echo "pack smoke: $(basename "$tarball") engines $packed, root $engines" >&2; exit 1; }
done

cd "$work/consumer"
echo '{ "name": "agw-consumer", "private": true, "type": "module" }' >package.json
# All tarballs in one install, so npm resolves @agw/* to them. The @agw scope points at a closed loopback
# port: if npm tried the registry for any @agw package, the install fails instead of fetching it.
types_node=$(node -p "require('$root/package.json').devDependencies['@types/node']")
# npm still asks for their packuments (refused at once, then it uses the tarballs): short retry pauses keep
# that from costing minutes.
npm install --no-audit --no-fund --loglevel=error --@agw:registry=http://127.0.0.1:9/ \
  --fetch-retry-mintimeout=200 --fetch-retry-maxtimeout=1000 \
  "$work"/tarballs/*.tgz "@types/node@$types_node"
for name in contracts guard capabilities client gateway cli; do
  resolved=$(node -p "require('./package-lock.json').packages['node_modules/@agw/$name'].resolved")
  [[ $resolved == file:* ]] || { echo "pack smoke: @agw/$name resolved to $resolved" >&2; exit 1; }
done

# The helpers run from the consumer folder: Node resolves their imports from where the file is.
cp "$here"/*.mjs "$here"/types-consumer.ts "$here"/types-consumer.cts "$here"/tsconfig.*.json .

echo "-- ESM import and CommonJS require"
node load.mjs

echo "-- consumer files from the installed READMEs and the guard example"
node readme-block.mjs node_modules/@agw/contracts/README.md '## Quick start' >contracts-quick-start.ts
node readme-block.mjs node_modules/@agw/client/README.md '## Quick start' >client-quick-start.ts
cp "$root/packages/guard/examples/embed.ts" .

echo "-- declarations: strict, skipLibCheck false, nodenext and bundler"
"$tsc" -p tsconfig.nodenext.json
"$tsc" -p tsconfig.bundler.json

echo "-- contracts' README quick start (validator)"
out=$("$tsx" contracts-quick-start.ts)
echo "$out"
grep -q "schema_pointer: '/surprise'" <<<"$out"

echo "-- guard's embedding example"
out=$("$tsx" embed.ts)
echo "$out"
grep -q '^200 .*"status":"succeeded"' <<<"$out"
grep -q '^balance 0.75' <<<"$out"

echo "-- the installed agw"
# Through a file, as in release-check.sh: a pipe into head can end the script with SIGPIPE (141).
npx agw --help >"$work/help.txt"
head -3 "$work/help.txt"
# The bin itself, not through npx: $! must be the gateway, so the cleanup stops it.
node_modules/.bin/agw serve --port 0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
gateway_pid=$!
url=
for _ in $(seq 1 120); do
  url=$(grep -o 'Agent Gateway listening on http://[0-9.:]*' "$work/serve.log" | awk '{print $NF}' || true)
  [[ -n $url ]] && break
  kill -0 "$gateway_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.5
done
[[ -n $url ]] || { echo "pack smoke: agw serve did not listen within 60 s" >&2; cat "$work/serve.log" >&2; exit 1; }
echo "agw serve: $url"
# XDG_CONFIG_HOME keeps agw's profiles out of the user's home.
XDG_CONFIG_HOME=$work/config npx agw search upload --url "$url" | tee "$work/search.txt"
grep -q 'documents.document.upload' "$work/search.txt"

echo "-- client's README quick start against that gateway"
sed -i "s#http://127.0.0.1:8080#$url#" client-quick-start.ts
node drive-quick-start.mjs "$tsx" client-quick-start.ts "$url" "$work/data"
echo "pack smoke on node $(node --version): ok"
