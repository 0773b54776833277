#!/usr/bin/env bash
# phantom::client against servers nobody here wrote: @modelcontextprotocol/server-everything
# (pinned, from npm) over stdio and over its Streamable HTTP mode, and a FastMCP server
# (fastmcp_server.py beside this script; fastmcp pinned, from PyPI, in its own virtualenv) over
# HTTP in both eras and over stdio. Both install into .cache/. Runs the ignored tests of
# tests/client/others.rs with SERVER_EVERYTHING (its dist/index.js), NODE (Node 22, installed by
# the conformance harness's install.sh) and FASTMCP_PYTHON set.
# Then the ignored cargo-phantom test against server-everything over stdio.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
js="$(bash "$root/tests/harness/server-everything.sh")"
export PATH="$cache/node22/node_modules/.bin:$PATH"
venv="$cache/fastmcp-venv"
pinned='import importlib.metadata as m, sys; sys.exit(m.version("fastmcp") != "4.2.3")'
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "$pinned" 2>/dev/null; then
  echo "installing fastmcp 4.2.3 into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'fastmcp==4.2.3'
fi
SERVER_EVERYTHING="$js" NODE="$(command -v node)" FASTMCP_PYTHON="$venv/bin/python" \
  cargo test --quiet -p phantom-tests --test client -- --ignored
# cargo phantom (list, call, read, prompt, inspect) against server-everything over stdio.
SERVER_EVERYTHING="$js" NODE="$(command -v node)" \
  cargo test --quiet -p cargo-phantom --test calls -- --ignored
