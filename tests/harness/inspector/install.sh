#!/usr/bin/env bash
# Installs the pinned MCP Inspector (@modelcontextprotocol/inspector 2.12.0) from npm into a cache
# (default: .cache/ at the repository root), on the Node 22 that
# tests/harness/conformance/install.sh provides, if it is not there yet. Safe to run twice;
# offline once installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
dir="$cache/inspector-2.12.0"
bash "$root/tests/harness/conformance/install.sh"
export PATH="$cache/node22/node_modules/.bin:$PATH"

if [ ! -f "$dir/node_modules/@modelcontextprotocol/inspector/package.json" ]; then
  echo "installing @modelcontextprotocol/inspector@2.12.0 into $dir"
  mkdir -p "$dir" && (cd "$dir" && npm init -y >/dev/null \
    && npm install --no-audit --no-fund @modelcontextprotocol/inspector@2.12.0 >/dev/null)
fi
