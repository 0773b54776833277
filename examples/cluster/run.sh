#!/usr/bin/env bash
# Two `everything` nodes sharing one Redis, behind HAProxy round-robin without stickiness:
#
#   bash examples/cluster/run.sh            # serves http://127.0.0.1:4200/mcp until Ctrl-C
#   CLUSTER_PORT=5000 bash examples/cluster/run.sh
#   CLUSTER_BIN=studies bash examples/cluster/run.sh   # two `studies --redis` nodes instead
#
# Needs redis-server and haproxy (Debian: apt-get install redis-server haproxy). With --detach it
# starts everything, prints `url=…`, `dir=…` and the pids, and returns (stop them with
# `kill $(cat "$dir"/pids)`); the test command uses that to run the conformance suites through
# the balancer (and `node-A.pid`, `node-A.port`, … in "$dir" name each node, for the failover test).
#
# CLUSTER_NODE_ARGS adds arguments to every node's command line (e.g. `--drain-delay 1000
# --executions FILE`, for the rolling restart test). Each node's command line and the environment
# it needs are written to "$dir"/node-A.cmd (JSON: `{"argv": […], "env": {…}}`), so that a test
# can start a node again as it was; when a node started here exits, its exit status is written
# to "$dir"/node-A.exit. "$dir"/redis.port names Redis's port.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
detach=false
[ "${1:-}" = "--detach" ] && detach=true

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { # port what
  for _ in $(seq 1 200); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "$2 did not start listening on port $1" >&2; return 1
}

for tool in redis-server haproxy; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (Debian: apt-get install redis-server haproxy)" >&2; exit 1; }
done

export CLUSTER_PORT="${CLUSTER_PORT:-4200}"
export NODE_A_PORT="${NODE_A_PORT:-$(free_port)}"
export NODE_B_PORT="${NODE_B_PORT:-$(free_port)}"
redis_port="${REDIS_PORT:-$(free_port)}"
export CLUSTER_DIR="${CLUSTER_DIR:-$(mktemp -d)}"
# One key seals 2026-07-28 `requestState` on both nodes, so a state one node sealed opens on the other.
export PHANTOM_STATE_KEY="${PHANTOM_STATE_KEY:-$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')}"

# CLUSTER_BIN=studies serves the studies example instead (its notes in the same Redis).
app="${CLUSTER_BIN:-everything}"
cargo build --quiet -p phantom-examples --bin "$app"
bin="${CARGO_TARGET_DIR:-$root/target}/debug/$app"

redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --dir "$CLUSTER_DIR" \
  >"$CLUSTER_DIR/redis.log" 2>&1 &
echo $! >"$CLUSTER_DIR/pids"
echo "$redis_port" >"$CLUSTER_DIR/redis.port"
wait_port "$redis_port" redis-server
# shellcheck disable=SC2206 # the extra arguments are words
extra=(${CLUSTER_NODE_ARGS:-})
for node in A B; do
  port_var="NODE_${node}_PORT"
  cmd=("$bin" --addr "127.0.0.1:${!port_var}" --redis "redis://127.0.0.1:$redis_port/" ${extra[@]+"${extra[@]}"})
  python3 -c 'import json, os, sys; print(json.dumps({"argv": sys.argv[1:], "env": {"PHANTOM_STATE_KEY": os.environ["PHANTOM_STATE_KEY"]}}))' \
    "${cmd[@]}" >"$CLUSTER_DIR/node-$node.cmd"
  rm -f "$CLUSTER_DIR/node-$node.pid" "$CLUSTER_DIR/node-$node.exit"
  # The node runs under a subshell that waits for it, to write its exit status.
  (
    "${cmd[@]}" >"$CLUSTER_DIR/node-$node.log" 2>&1 &
    echo $! >"$CLUSTER_DIR/node-$node.pid.new"
    mv "$CLUSTER_DIR/node-$node.pid.new" "$CLUSTER_DIR/node-$node.pid"
    status=0
    wait $! || status=$?
    echo "$status" >"$CLUSTER_DIR/node-$node.exit"
  ) </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 100); do [ -e "$CLUSTER_DIR/node-$node.pid" ] && break; sleep 0.02; done
  cat "$CLUSTER_DIR/node-$node.pid" >>"$CLUSTER_DIR/pids"
  echo "${!port_var}" >"$CLUSTER_DIR/node-$node.port"
  wait_port "${!port_var}" "node $node"
done
haproxy -f "$here/haproxy.cfg" -db >"$CLUSTER_DIR/haproxy.log" 2>&1 &
echo $! >>"$CLUSTER_DIR/pids"
wait_port "$CLUSTER_PORT" haproxy

echo "url=http://localhost:$CLUSTER_PORT/mcp"
echo "dir=$CLUSTER_DIR"
if $detach; then exit 0; fi
trap 'kill $(cat "$CLUSTER_DIR/pids") 2>/dev/null || true' EXIT INT TERM
echo "two nodes (127.0.0.1:$NODE_A_PORT, 127.0.0.1:$NODE_B_PORT) on redis://127.0.0.1:$redis_port/; Ctrl-C stops them"
wait
