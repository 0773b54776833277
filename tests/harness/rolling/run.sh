#!/usr/bin/env bash
# Rolling restart of a fresh two-node cluster (examples/cluster: two `everything --redis` nodes,
# HAProxy checking `/readyz` every 300 ms, `retry-on conn-failure`, no stickiness) under load:
# each node gets SIGTERM and is started again, then SIGINT; rolling.py beside this script drives
# the clients (raw HTTP in both eras, the Python `mcp` 2.3.0 client's GET stream, a
# `subscriptions/listen` through phantom::client: the `rolling-listen` binary of phantom-tests)
# and checks that no request failed and every call ran exactly once. The Python virtualenv is
# .cache/python-venv, as for tests/harness/python.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"
bash "$root/tests/harness/debian.sh" redis-server=redis-server redis-cli=redis-tools haproxy=haproxy
venv="$root/.cache/python-venv"
pinned='import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")'
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "$pinned" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi
cargo build --quiet -p phantom-examples --bin everything
cargo build --quiet -p phantom-tests --bin rolling-listen
listen="${CARGO_TARGET_DIR:-$root/target}/debug/rolling-listen"
[[ "$listen" = /* ]] || listen="$root/$listen"

dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
trap 'kill $(cat "$dir/pids") 2>/dev/null || true; rm -rf "$dir"' EXIT
# A drain delay above HAProxy's check interval (300 ms), so a node leaves the balancer before
# its port closes (ROLLING_DRAIN_DELAY_MS=0 shows what happens without); every `tools/call`
# recorded, to count executions.
# A grace of 5 s, so that the task that outlasts it is stopped soon.
export ROLLING_DRAIN_DELAY_MS="${ROLLING_DRAIN_DELAY_MS:-1000}" ROLLING_GRACE_MS="${ROLLING_GRACE_MS:-5000}"
CLUSTER_DIR="$dir" CLUSTER_PORT="$port" \
  CLUSTER_NODE_ARGS="--drain-delay $ROLLING_DRAIN_DELAY_MS --grace $ROLLING_GRACE_MS --executions $dir/executions" \
  bash "$root/examples/cluster/run.sh" --detach >/dev/null
status=0
CLUSTER_PORT="$port" "$venv/bin/python" "$here/rolling.py" "$dir" "$listen" || status=$?
if [ $status -ne 0 ]; then
  for f in "$dir"/node-*.log "$dir"/haproxy.log; do echo "--- $f ---"; tail -n 30 "$f"; done
fi
exit $status
