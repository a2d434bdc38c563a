#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.12, the last release
# that runs on Node 20) against a running gateway's /mcp, e.g. one started with `npm start`:
#   scripts/mcp-conformance.sh                              → http://127.0.0.1:8080/mcp, active suite
#   scripts/mcp-conformance.sh http://127.0.0.1:9000/mcp    → another address
#   scripts/mcp-conformance.sh URL --scenario tools-list    → one scenario
# Failures are judged against the committed baseline apps/gateway/test/mcp-conformance-expected-failures.yml
# (scenarios that need fixture tools, resources or prompts this product does not have). The test suite
# runs the same checks in apps/gateway/test/mcp-conformance.test.ts. The dns-rebinding scenario needs a
# loopback URL (localhost, 127.0.0.1 or [::1]).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
url=${1:-http://127.0.0.1:8080/mcp}
shift || true
selection=("$@")
[ ${#selection[@]} -eq 0 ] && selection=(--suite active)

exec timeout 300 node "$root/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
  --url "$url" "${selection[@]}" \
  --expected-failures "$root/apps/gateway/test/mcp-conformance-expected-failures.yml"
