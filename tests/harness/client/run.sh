#!/usr/bin/env bash
# phantom::client against a server nobody here wrote: @modelcontextprotocol/server-everything
# (pinned, from npm, into .cache/), over stdio and over its Streamable HTTP mode. Runs the ignored
# tests of tests/client/others.rs with SERVER_EVERYTHING (its dist/index.js) and NODE (Node 22,
# installed by the conformance harness's install.sh) set.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
version=2026.8.31
dir="$cache/server-everything-$version"
bash "$root/tests/harness/conformance/install.sh"
export PATH="$cache/node22/node_modules/.bin:$PATH"
js="$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ ! -f "$js" ]; then
  echo "installing @modelcontextprotocol/server-everything@$version into $dir"
  mkdir -p "$dir" && (cd "$dir" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund "@modelcontextprotocol/server-everything@$version" >/dev/null)
fi
SERVER_EVERYTHING="$js" NODE="$(command -v node)" \
  cargo test --quiet -p phantom-tests --test client -- --ignored
