#!/usr/bin/env bash
# examples/lambda as an AWS Lambda function under `cargo lambda watch` (cargo-lambda 1.9.2 from
# PyPI, into .cache/; `watch` emulates the Lambda control plane and Function URLs on loopback,
# with neither zig nor a network):
#
# 1. response streaming, two instances at most (--concurrency 2), every seam on one Redis and
#    one PHANTOM_STATE_KEY: the official suites through the Function URL — the
#    `--requirements 2026-07-28` set, 0.1.16's `--suite all`, `--requirements 2025-11-25` and
#    `--suite pending` — against the listener's expected-failures files (empty; their required
#    checks and complete scenarios included); the Python client's interactive and subscription scripts
#    (tests/harness/python/) in both eras, and a tool called by the TypeScript SDK's client
#    (the MCP Inspector CLI); then a legacy session created by one invocation used by
#    an invocation in a fresh process (`watch` and its function stopped and started again
#    between them), its record in Redis (check.py session-open, session-use); a listen through
#    one function hearing a change another function published while the first one's process
#    was stopped (SIGSTOP, as Lambda freezes an instance; freeze.py); a task held within its
#    invocation on a function whose timeout is 4 s, completed or failed at the deadline
#    (check.py tasks);
# 2. buffered, no backend (stateless), `Host` allowed from PHANTOM_ALLOWED_HOSTS: the API
#    Gateway REST and HTTP API events of events/ sent with `cargo lambda invoke --data-file`
#    and their answers checked (check.py events).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="${PHANTOM_CACHE:-$root/.cache}"
bash "$root/tests/harness/conformance/install.sh"
bash "$root/tests/harness/inspector/install.sh"
bash "$root/tests/harness/debian.sh" redis-server=redis-server redis-cli=redis-tools
export PATH="$cache/node22/node_modules/.bin:$PATH"

venv="$cache/cargo-lambda-1.9.2"
if [ ! -x "$venv/bin/cargo-lambda" ]; then
  echo "installing cargo-lambda 1.9.2 (PyPI) into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'cargo-lambda==1.9.2'
fi
cargo_lambda="$venv/bin/cargo-lambda"
# The Python client's virtualenv, as tests/harness/python/run.sh makes it.
python="$cache/python-venv/bin/python"
if ! "$python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")' 2>/dev/null; then
  python3 -m venv "$cache/python-venv"
  "$cache/python-venv/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 300); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 0.2)" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# (Values in the --env-file are quoted: cargo-lambda's parser refuses a bare `/` or `=`.)
# Built once here; `watch` runs the same binary (`cargo run`, nothing left to build).
cargo build --quiet -p phantom-examples --bin lambda

work="$(mktemp -d)"
# `watch` and the function instances it started (each a child process of it).
stop_watch() {
  pkill -KILL -P "$1" 2>/dev/null || true
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
pids=()
cleanup() {
  for pid in "${pids[@]}"; do stop_watch "$pid"; done
  rm -rf "$work"
}
trap cleanup EXIT
status=0

redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no >"$work/redis.log" 2>&1 &
pids+=($!)
wait_port "$redis_port"

echo "==> lambda: response streaming, --concurrency 2, Redis"
stream_port="$(free_port)"
{
  echo "PHANTOM_REDIS=\"redis://127.0.0.1:$redis_port/\""
  echo "PHANTOM_STATE_KEY=\"$(python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')\""
  # `watch` gives no deadline of its own: the timeout a task's invocation is held for at most.
  echo 'AWS_LAMBDA_FUNCTION_TIMEOUT="60"'
} >"$work/streaming.env"
# The functions of the freeze check: a short timeout, for a task that outlives it.
sed 's/^AWS_LAMBDA_FUNCTION_TIMEOUT=.*/AWS_LAMBDA_FUNCTION_TIMEOUT="4"/' "$work/streaming.env" >"$work/short.env"
started=$(date +%s)
watch_streaming() {
  "$cargo_lambda" lambda watch --quiet --ignore-changes -p phantom-examples --bin lambda --disable-cors \
    --concurrency 2 -A 127.0.0.1 -P "$stream_port" --env-file "$work/streaming.env" >>"$work/streaming.log" 2>&1 &
  stream=$!
  pids+=("$stream")
  wait_port "$stream_port" || { cat "$work/streaming.log"; exit 1; }
}
watch_streaming
url="http://localhost:$stream_port/lambda-url/lambda/mcp"
# Every suite and requirement set of tests/harness/conformance/run.sh, against the same strict
# expected-failures files (all empty).
suite() { # label suite-dir expected-file args...
  local label="$1" dir="$2" expected="$3"; shift 3
  local out="$work/conformance-$label"
  (cd "$dir" && npx conformance server --url "$url" -o "$out" "$@" >"$out.log" 2>&1) || true
  python3 "$root/tests/harness/conformance/check.py" "lambda $label" "$out" \
    "$root/tests/harness/conformance/expected-failures/$expected" || { status=1; tail -n 40 "$out.log"; }
}
suite alpha.12-2026-07-28 "$cache/conformance-0.2.0-alpha.12" 2026-07-28.yml --requirements 2026-07-28
suite 0.1.16-all "$cache/conformance-0.1.16" 0.1.16-all.yml --suite all
suite alpha.12-2025-11-25 "$cache/conformance-0.2.0-alpha.12" 2025-11-25.yml --requirements 2025-11-25
suite alpha.12-pending "$cache/conformance-0.2.0-alpha.12" pending.yml --suite pending
echo "==> lambda: the Python client (mcp 2.3.0) through the Function URL, both eras: interactive.py, subscriptions.py"
for script in interactive.py subscriptions.py; do
  "$python" "$root/tests/harness/python/$script" "$url" || { status=1; echo "$script failed through the Function URL"; }
done
echo "==> lambda: the TypeScript SDK's client (MCP Inspector CLI 2.12.0) calls a tool through the Function URL"
inspector_home="$work/inspector"
mkdir -p "$inspector_home"
(cd "$inspector_home" && HOME="$inspector_home" "$cache/inspector-2.12.0/node_modules/.bin/inspector" --cli "$url" \
  --method tools/call --tool-name test_simple_text --format json </dev/null >"$work/inspector.out" 2>&1) || true
if grep -q '"This is a simple text response for testing."' "$work/inspector.out"; then
  echo "ok   the Inspector's tools/call answered"
else
  status=1; echo "FAIL the Inspector's tools/call:"; cat "$work/inspector.out"
fi
echo "==> lambda: a legacy session used by a fresh process"
python3 "$here/check.py" session-open "$url" "$stream" "$work/session.json" || status=1
stop_watch "$stream"
watch_streaming
python3 "$here/check.py" session-use "$url" "$stream" "$redis_port" "$work/session.json" || status=1
stop_watch "$stream"

echo "==> lambda: tasks held within their invocation (timeout 4 s), then a subscription heard across a freeze (function A stopped while B publishes)"
freeze_a="$(free_port)" freeze_b="$(free_port)"
"$cargo_lambda" lambda watch --quiet --ignore-changes -p phantom-examples --bin lambda --disable-cors \
  -A 127.0.0.1 -P "$freeze_a" --env-file "$work/short.env" >"$work/freeze-a.log" 2>&1 &
watch_a=$!
pids+=("$watch_a")
"$cargo_lambda" lambda watch --quiet --ignore-changes -p phantom-examples --bin lambda --disable-cors \
  -A 127.0.0.1 -P "$freeze_b" --env-file "$work/short.env" >"$work/freeze-b.log" 2>&1 &
watch_b=$!
pids+=("$watch_b")
wait_port "$freeze_a" && wait_port "$freeze_b" || { cat "$work/freeze-a.log" "$work/freeze-b.log"; exit 1; }
python3 "$here/check.py" tasks "http://localhost:$freeze_b/lambda-url/lambda/mcp" 4 || status=1
"$python" "$here/freeze.py" "http://localhost:$freeze_a/lambda-url/lambda/mcp" "$watch_a" \
  "http://localhost:$freeze_b/lambda-url/lambda/mcp" "$redis_port" || status=1
stop_watch "$watch_a"
stop_watch "$watch_b"
echo "response streaming: $(( $(date +%s) - started )) s"

echo "==> lambda: buffered, API Gateway REST and HTTP API events from events/"
buffered_port="$(free_port)"
{
  echo 'PHANTOM_RESPONSE="buffered"'
  echo 'AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH="true"'
  echo 'PHANTOM_ALLOWED_HOSTS="r3st4p1.execute-api.eu-west-1.amazonaws.com,h77p4p1.execute-api.eu-west-1.amazonaws.com"'
} >"$work/buffered.env"
"$cargo_lambda" lambda watch --quiet --ignore-changes -p phantom-examples --bin lambda --disable-cors \
  -A 127.0.0.1 -P "$buffered_port" --env-file "$work/buffered.env" >"$work/buffered.log" 2>&1 &
pids+=($!)
wait_port "$buffered_port" || { cat "$work/buffered.log"; exit 1; }
mkdir -p "$work/answers"
for event in "$here"/events/*.json; do
  name="$(basename "$event")"
  "$cargo_lambda" lambda invoke -A 127.0.0.1 -P "$buffered_port" lambda --data-file "$event" -o json \
    >"$work/answers/$name" || { status=1; echo "no answer to $name"; }
done
python3 "$here/check.py" events "$here/events" "$work/answers" || status=1

if [ "$status" != 0 ]; then
  echo "--- cargo lambda watch (streaming) ---"; tail -n 40 "$work/streaming.log"
  echo "--- cargo lambda watch (buffered) ---"; tail -n 40 "$work/buffered.log"
fi
exit $status
