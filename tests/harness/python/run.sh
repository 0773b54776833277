#!/usr/bin/env bash
# Runs client.py (Python `mcp` 2.3.0) against the `studies` example over HTTP.
# Usage: tests/harness/python/run.sh [MODE ...]   (modes default to: auto legacy)
# Then `legacy` once more against the server's legacy stateless mode (`studies --stateless`),
# interactive.py (elicitation, sampling, progress, logs) and subscriptions.py (resource updates
# and list changes) against `everything`, and scoped.py (JWT bearer tokens, scopes) against
# `notes`. interactive.py and subscriptions.py run through examples/gateway in front of
# `everything`, client.py through it in front of `studies` with `everything` under `--prefix ev`, and gateway_tokens.py through the gateway in front of server-everything (npm,
# stdio) with bearer tokens. interactive.py and subscriptions.py then run once more through HAProxy round-robin in
# front of two `everything --redis` nodes sharing one Redis (examples/cluster/run.sh), so an
# answer, a subscription or a stream may land on either node, and client.py through two
# `studies --redis` nodes (their notes in that Redis too). The scripts sit beside this one.
# The virtualenv lives in .cache/python-venv at the repository root and is created on first use.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
venv="$root/.cache/python-venv"
cd "$root"

pinned='import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")'
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "$pinned" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi

cargo build --quiet -p phantom-examples --bin studies --bin everything --bin notes --bin gateway
bin="${CARGO_TARGET_DIR:-$root/target}/debug"

# Starts a server with the given flags, runs a client script in the given modes, stops the server.
run_against() { # SERVER SCRIPT "<server flags>" MODE...
    local studies="$bin/$1" script="$root/tests/harness/python/$2" flags="$3"; shift 3
    local port log server status=0
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    log="$(mktemp)"
    # shellcheck disable=SC2086 # the flags are words
    "$studies" --addr "127.0.0.1:$port" $flags 2>"$log" &
    server=$!
    for _ in $(seq 1 100); do
        if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null; then
            break
        fi
        if ! kill -0 "$server" 2>/dev/null; then
            echo "the server exited:" >&2
            cat "$log" >&2
            rm -f "$log"
            return 1
        fi
        sleep 0.1
    done
    "$venv/bin/python" "$script" "http://127.0.0.1:$port/mcp" "$@" || status=$?
    if [[ $status -ne 0 ]]; then
        echo "--- server log ---" >&2
        cat "$log" >&2
    fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -f "$log"
    return "$status"
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits until 127.0.0.1:PORT accepts connections (10 s), or the process PID exits.
wait_port() { # PORT PID LOG
    for _ in $(seq 1 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1).close()" 2>/dev/null && return 0
        if ! kill -0 "$2" 2>/dev/null; then echo "it exited:" >&2; cat "$3" >&2; return 1; fi
        sleep 0.1
    done
    echo "127.0.0.1:$1 does not answer" >&2; cat "$3" >&2; return 1
}

# Runs a client script through examples/gateway started with the given flags, then stops it.
run_through_gateway() { # SCRIPT "<gateway flags>" MODE...
    local script="$root/tests/harness/python/$1" flags="$2"; shift 2
    local port log gateway status=0
    port="$(free_port)"
    log="$(mktemp)"
    # shellcheck disable=SC2086 # the flags are words
    eval "exec \"$bin/gateway\" --addr 127.0.0.1:$port $flags" 2>"$log" &
    gateway=$!
    wait_port "$port" "$gateway" "$log" || { rm -f "$log"; return 1; }
    "$venv/bin/python" "$script" "http://127.0.0.1:$port/mcp" "$@" || status=$?
    if [[ $status -ne 0 ]]; then echo "--- gateway log ---" >&2; cat "$log" >&2; fi
    kill "$gateway" 2>/dev/null || true
    wait "$gateway" 2>/dev/null || true
    rm -f "$log"
    return "$status"
}

# Runs a client script through the balancer of a fresh two-node cluster, then stops it.
run_against_cluster() { # SCRIPT MODE...
    local script="$root/tests/harness/python/$1"; shift
    local dir port status=0
    dir="$(mktemp -d)"
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    CLUSTER_DIR="$dir" CLUSTER_PORT="$port" CLUSTER_BIN="${CLUSTER_BIN:-everything}" \
        bash "$root/examples/cluster/run.sh" --detach >/dev/null
    "$venv/bin/python" "$script" "http://localhost:$port/mcp" "$@" || status=$?
    python3 "$root/tests/harness/cluster_stats.py" "$dir" || status=$?
    if [[ $status -ne 0 ]]; then
        for f in "$dir"/node-*.log; do echo "--- $f ---" >&2; cat "$f" >&2; done
    fi
    kill $(cat "$dir/pids") 2>/dev/null || true
    rm -rf "$dir"
    return "$status"
}

bash "$root/tests/harness/debian.sh" redis-server=redis-server haproxy=haproxy

status=0
run_against studies client.py "" "$@" || status=$?
echo "== legacy client against the legacy stateless mode"
STATELESS=1 run_against studies client.py "--stateless" legacy || status=$?
echo "== interactive tools of everything (elicitation, sampling, progress, logs)"
run_against everything interactive.py "" auto legacy || status=$?
echo "== change notifications of everything (resources/subscribe, subscriptions/listen)"
run_against everything subscriptions.py "" auto legacy || status=$?
echo "== bearer tokens against notes (JWTs signed by PyJWT: 401 challenges, 403 insufficient_scope, scoped calls)"
run_against notes scoped.py "" auto legacy || status=$?
echo "== through examples/gateway in front of everything (HTTP): interactive tools and change notifications"
upstream_port="$(free_port)"
upstream_log="$(mktemp)"
"$bin/everything" --addr "127.0.0.1:$upstream_port" 2>"$upstream_log" &
upstream=$!
if wait_port "$upstream_port" "$upstream" "$upstream_log"; then
    run_through_gateway interactive.py "--upstream http://127.0.0.1:$upstream_port/mcp" auto legacy || status=$?
    run_through_gateway subscriptions.py "--upstream http://127.0.0.1:$upstream_port/mcp" auto legacy || status=$?
else
    status=1
fi
echo "== the core checks through examples/gateway in front of studies, with everything mounted beside it under --prefix ev"
studies_port="$(free_port)"
studies_log="$(mktemp)"
"$bin/studies" --addr "127.0.0.1:$studies_port" 2>"$studies_log" &
studies=$!
if wait_port "$studies_port" "$studies" "$studies_log" && wait_port "$upstream_port" "$upstream" "$upstream_log"; then
    SERVER_NAME=phantom-gateway PREFIXED_TOOL=ev_test_simple_text run_through_gateway client.py \
        "--upstream http://127.0.0.1:$studies_port/mcp --upstream http://127.0.0.1:$upstream_port/mcp --prefix ev" \
        auto legacy || status=$?
else
    status=1
fi
kill "$studies" "$upstream" 2>/dev/null || true
rm -f "$studies_log" "$upstream_log"
echo "== through examples/gateway in front of server-everything (npm, stdio), with bearer tokens and scopes"
everything_js="$(bash "$root/tests/harness/server-everything.sh")"
tokens="$(mktemp)"
cat >"$tokens" <<'JSON'
{"tokens": {"reader-token": {"principal": "reader", "scopes": ["tools:read"]},
            "admin-token": {"principal": "admin", "scopes": ["tools:read", "tools:write"]}},
 "tools": {"echo": ["tools:read"], "*": ["tools:write"]}}
JSON
node="${PHANTOM_CACHE:-$root/.cache}/node22/node_modules/.bin/node"
run_through_gateway gateway_tokens.py "--upstream-cmd '$node $everything_js stdio' --tokens $tokens" auto legacy || status=$?
rm -f "$tokens"
echo "== through the balancer: interactive tools and change notifications on two everything nodes sharing one Redis"
run_against_cluster interactive.py auto legacy || status=$?
run_against_cluster subscriptions.py auto legacy || status=$?
echo "== through the balancer: the core checks on two studies nodes sharing one Redis"
CLUSTER_BIN=studies run_against_cluster client.py auto legacy || status=$?
exit "$status"
