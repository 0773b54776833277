#!/usr/bin/env bash
# Runs the official MCP conformance suites, each against a strict expected-failures file
# (check.py beside this script): first against one examples/everything node, then through
# examples/gateway in front of it (same.py: check for check the same statuses as directly), then
# through HAProxy round-robin in front of two `everything --redis` nodes sharing one Redis
# (examples/cluster/run.sh), with the same expected-failures files. Installs Node 22 and the
# pinned suites first; redis-server and haproxy come from Debian's packages when missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$here/install.sh"
bash "$root/tests/harness/debian.sh" redis-server=redis-server haproxy=haproxy
export PATH="$cache/node22/node_modules/.bin:$PATH"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

cargo build --quiet -p phantom-examples --bin everything --bin gateway
bin="${CARGO_TARGET_DIR:-$root/target}/debug/everything"
gateway_bin="${CARGO_TARGET_DIR:-$root/target}/debug/gateway"
port="$(free_port)"
log="$(mktemp)"
"$bin" --addr "127.0.0.1:$port" >"$log" 2>&1 &
server=$!
cluster_dir="$(mktemp -d)"
gateway=""
gateway_log="$(mktemp)"
cleanup() {
  kill $server 2>/dev/null || true
  [ -n "$gateway" ] && kill $gateway 2>/dev/null || true
  rm -f "$gateway_log"
  [ -f "$cluster_dir/pids" ] && kill $(cat "$cluster_dir/pids") 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then break; fi
  sleep 0.1
done
results="$(mktemp -d)"
status=0

run() { # url label suite-dir expected-file args...
  local url="$1" label="$2" dir="$3" expected="$4"; shift 4
  local out="$results/${label// /-}"
  mkdir -p "$out"
  echo "==> conformance $label"
  (cd "$dir" && npx conformance server --url "$url" -o "$out" "$@" >"$out.log" 2>&1) || true
  python3 "$here/check.py" "$label" "$out" "$here/expected-failures/$expected" || { status=1; tail -n 40 "$out.log"; }
}

suites() { # url label-prefix
  run "$1" "${2}0.1.16-all" "$cache/conformance-0.1.16" 0.1.16-all.yml --suite all
  run "$1" "${2}alpha.12-2025-11-25" "$cache/conformance-0.2.0-alpha.12" 2025-11-25.yml --requirements 2025-11-25
  run "$1" "${2}alpha.12-2026-07-28" "$cache/conformance-0.2.0-alpha.12" 2026-07-28.yml --requirements 2026-07-28
  run "$1" "${2}alpha.12-pending" "$cache/conformance-0.2.0-alpha.12" pending.yml --suite pending
}

suites "http://localhost:$port/mcp" ""
if ! kill -0 "$server" 2>/dev/null; then
  echo "the everything server died during the run:"; cat "$log"; status=1
fi

echo "==> examples/gateway in front of the everything node (no prefix): the same results"
gateway_port="$(free_port)"
"$gateway_bin" --addr "127.0.0.1:$gateway_port" --upstream "http://localhost:$port/mcp" >"$gateway_log" 2>&1 &
gateway=$!
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $gateway_port), 0.2)" 2>/dev/null; then break; fi
  sleep 0.1
done
suites "http://localhost:$gateway_port/mcp" "gateway "
for suite in 0.1.16-all alpha.12-2025-11-25 alpha.12-2026-07-28 alpha.12-pending; do
  python3 "$here/same.py" "gateway $suite" "$results/$suite" "$results/gateway-$suite" || status=1
done
if ! kill -0 "$gateway" 2>/dev/null; then
  echo "the gateway died during the run:"; cat "$gateway_log"; status=1
fi
kill "$gateway" 2>/dev/null || true

echo "==> two everything nodes on one Redis behind HAProxy round-robin (examples/cluster)"
cluster_port="$(free_port)"
CLUSTER_DIR="$cluster_dir" CLUSTER_PORT="$cluster_port" bash "$root/examples/cluster/run.sh" --detach
cluster_url="http://localhost:$cluster_port/mcp"
python3 "$root/tests/harness/cluster_stats.py" "$cluster_dir" "$cluster_url" || status=1
suites "$cluster_url" "cluster "
python3 "$root/tests/harness/cluster_stats.py" "$cluster_dir" || status=1
# Both nodes lived through the runs (a handler's panic, as `protocol_error_job`'s, is a failed
# task, not a dead node).
for node in A B; do
  if ! kill -0 "$(cat "$cluster_dir/node-$node.pid")" 2>/dev/null; then
    echo "node $node died during the runs:"; tail -n 50 "$cluster_dir/node-$node.log"; status=1
  fi
done
rm -rf "$results"
exit $status
