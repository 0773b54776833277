#!/usr/bin/env bash
# Kills a node of a fresh two-node cluster (examples/cluster) while a legacy client's stream is
# open, and checks that the client resumes on the other node (failover.py beside this script).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
bash "$root/tests/harness/debian.sh" redis-server=redis-server haproxy=haproxy
dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
trap 'kill $(cat "$dir/pids") 2>/dev/null || true; rm -rf "$dir"' EXIT
CLUSTER_DIR="$dir" CLUSTER_PORT="$port" bash "$root/examples/cluster/run.sh" --detach >/dev/null
status=0
python3 "$here/failover.py" "$dir" || status=$?
if [ $status -ne 0 ]; then
  for f in "$dir"/node-*.log; do echo "--- $f ---"; tail -n 30 "$f"; done
fi
exit $status
