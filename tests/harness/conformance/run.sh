#!/usr/bin/env bash
# Runs the official MCP conformance suites against examples/everything, each against a strict
# expected-failures file (check.py beside this script). Installs Node 22 and the pinned suites
# first.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$here/install.sh"
export PATH="$cache/node22/node_modules/.bin:$PATH"

cargo build --quiet -p phantom-examples --bin everything
bin="${CARGO_TARGET_DIR:-$root/target}/debug/everything"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
log="$(mktemp)"
"$bin" --addr "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then break; fi
  sleep 0.1
done
url="http://localhost:$port/mcp"
results="$(mktemp -d)"
status=0

run() { # label suite-dir expected-file args...
  local label="$1" dir="$2" expected="$3"; shift 3
  local out="$results/$label"
  mkdir -p "$out"
  echo "==> conformance $label"
  (cd "$dir" && npx conformance server --url "$url" -o "$out" "$@" >"$out.log" 2>&1) || true
  python3 "$here/check.py" "$label" "$out" "$here/expected-failures/$expected" || { status=1; tail -n 40 "$out.log"; }
}

run "0.1.16-all" "$cache/conformance-0.1.16" 0.1.16-all.yml --suite all
run "alpha.12-2025-11-25" "$cache/conformance-0.2.0-alpha.12" 2025-11-25.yml --requirements 2025-11-25
run "alpha.12-2026-07-28" "$cache/conformance-0.2.0-alpha.12" 2026-07-28.yml --requirements 2026-07-28
run "alpha.12-pending" "$cache/conformance-0.2.0-alpha.12" pending.yml --suite pending

if ! kill -0 "$server" 2>/dev/null; then
  echo "the everything server died during the run:"; cat "$log"; status=1
fi
rm -rf "$results"
exit $status
