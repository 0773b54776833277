#!/usr/bin/env bash
# Installs @modelcontextprotocol/server-everything (pinned, from npm) into .cache/ once, with
# Node 22 (the conformance harness's install.sh), and prints the path of its dist/index.js.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
version=2026.8.31
dir="$cache/server-everything-$version"
bash "$root/tests/harness/conformance/install.sh" >&2
export PATH="$cache/node22/node_modules/.bin:$PATH"
js="$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ ! -f "$js" ]; then
  echo "installing @modelcontextprotocol/server-everything@$version into $dir" >&2
  mkdir -p "$dir" && (cd "$dir" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund "@modelcontextprotocol/server-everything@$version" >/dev/null)
fi
echo "$js"
