#!/usr/bin/env bash
# phantom's authorization server end to end (signin.py beside this script): examples/signin as two
# nodes on one redis-server behind HAProxy, signing users in through oidc-provider; the official
# suite's `authorization` mode, the TypeScript SDK's, the Python `mcp` client's and phantom's own
# OAuth clients, each step of a sign-in on the node the test picks.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$root/tests/harness/debian.sh" redis-server=redis-server haproxy=haproxy
bash "$root/tests/harness/oauth/install.sh" >/dev/null
bash "$root/tests/harness/conformance/install.sh"
pinned='import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")'
if [[ ! -x "$cache/python-venv/bin/python" ]] || ! "$cache/python-venv/bin/python" -c "$pinned" 2>/dev/null; then
  python3 -m venv "$cache/python-venv"
  "$cache/python-venv/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi
export PATH="$cache/node22/node_modules/.bin:$PATH"
cd "$root"
cargo build --quiet -p cargo-phantom -p phantom-examples --bin cargo-phantom --bin signin
target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$root/$target"
python3 tests/harness/authz/signin.py "$target/debug/signin" "$target/debug/cargo-phantom"
