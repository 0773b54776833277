#!/usr/bin/env python3
"""Checks of examples/lambda under `cargo lambda watch` (run.sh beside this file calls them).

    check.py events EVENTS_DIR OUTPUT_DIR
        The answers `cargo lambda invoke --data-file` got for the API Gateway fixtures
        (OUTPUT_DIR/<fixture>.json, the function in buffered mode).
    check.py session-open URL WATCH_PID STATE_FILE
    check.py session-use URL WATCH_PID REDIS_CLI_PORT STATE_FILE
        A legacy session created by one invocation is used by an invocation in a fresh process:
        session-open initializes through the Function URL and notes the session id and the
        function's processes; run.sh then stops `cargo lambda watch` with its function and
        starts it again (a killed function is not respawned by `watch`); session-use calls a
        tool with that session id, and checks that the processes changed and that the session's
        record is in Redis.
    check.py tasks URL TIMEOUT
        A task whose handler runs past its invocation's answer, on a function whose timeout is
        TIMEOUT seconds (AWS_LAMBDA_FUNCTION_TIMEOUT: `watch` gives no deadline of its own): one
        that sleeps 2 s holds its invocation until it ends and is `completed` when a later
        invocation reads it; one that sleeps past the timeout is `failed` at the deadline,
        its status message saying the invocation ended.
"""
import json
import pathlib
import subprocess
import sys
import time
import urllib.request

SIMPLE_TEXT = "This is a simple text response for testing."
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def events(events_dir, out_dir):
    def answer(name):
        return json.loads((pathlib.Path(out_dir) / name).read_text())

    rest = answer("apigw-rest-tools-call.json")
    check(rest.get("statusCode") == 200, f"REST API tools/call: status 200 (got {rest.get('statusCode')})")
    body = json.loads(rest.get("body") or "{}")
    text = (body.get("result") or {}).get("content", [{}])[0].get("text")
    check(body.get("id") == 7 and text == SIMPLE_TEXT, f"REST API tools/call: the tool's text for id 7 (got {body})")

    http = answer("apigw-http-initialize.json")
    check(http.get("statusCode") == 200, f"HTTP API initialize: status 200 (got {http.get('statusCode')})")
    body = json.loads(http.get("body") or "{}")
    info = (body.get("result") or {}).get("serverInfo", {})
    check(info.get("name") == "phantom-everything", f"HTTP API initialize: serverInfo (got {body})")
    headers = {k.lower() for k in (http.get("headers") or {})} | {k.lower() for k in (http.get("multiValueHeaders") or {})}
    check("mcp-session-id" not in headers, "HTTP API initialize: no session without a shared backend (stateless)")

    foreign = answer("apigw-http-foreign-host.json")
    check(foreign.get("statusCode") == 403, f"a Host not in PHANTOM_ALLOWED_HOSTS: 403 (got {foreign.get('statusCode')})")
    # Every fixture is a file of the repository, each answered above.
    fixtures = sorted(p.name for p in pathlib.Path(events_dir).glob("*.json"))
    check(fixtures == sorted(p.name for p in pathlib.Path(out_dir).glob("*.json")), f"every fixture answered: {fixtures}")


def post(url, body, session=None, version="2025-11-25"):
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": version}
    if session:
        headers["mcp-session-id"] = session
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=120) as resp:
        text = resp.read().decode()
        return resp.status, resp.headers.get("mcp-session-id"), text


def modern(url, method, name, params):
    """A 2026-07-28 request declaring the tasks extension: its answer (JSON, or the one SSE
    event's data) and how long the answer took to end."""
    params = dict(params, _meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientCapabilities": {
                                     "extensions": {"io.modelcontextprotocol/tasks": {}}}})
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": name}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    began = time.monotonic()
    with urllib.request.urlopen(req, timeout=120) as resp:
        text = resp.read().decode()
    took = time.monotonic() - began
    data = "".join(line[len("data: "):] for line in text.splitlines() if line.startswith("data: "))
    return json.loads(data or text), took


def tasks(url, timeout):
    created, took = modern(url, "tools/call", "slow_compute", {"name": "slow_compute", "arguments": {"seconds": 2}})
    task_id = (created.get("result") or {}).get("taskId")
    check(bool(task_id) and 2 <= took < timeout, f"a 2 s task: created, its invocation held until it ended ({took:.1f} s, {created})")
    got, _ = modern(url, "tasks/get", task_id or "", {"taskId": task_id})
    result = got.get("result") or {}
    check(result.get("status") == "completed" and "computed" in json.dumps(result),
          f"the 2 s task read by a later invocation: completed ({got})")
    created, took = modern(url, "tools/call", "slow_compute", {"name": "slow_compute", "arguments": {"seconds": 60}})
    task_id = (created.get("result") or {}).get("taskId")
    check(bool(task_id) and timeout - 1.6 <= took < timeout + 1,
          f"a 60 s task: its invocation held until the deadline less the margin ({took:.1f} s, timeout {timeout} s)")
    got, _ = modern(url, "tasks/get", task_id or "", {"taskId": task_id})
    result = got.get("result") or {}
    check(result.get("status") == "failed" and "invocation" in (result.get("statusMessage") or "")
          and "ended" in (result.get("statusMessage") or ""),
          f"the 60 s task: failed, saying the invocation ended ({got})")


def function_pids(watch_pid):
    out = subprocess.run(["pgrep", "-P", str(watch_pid), "-x", "lambda"], capture_output=True, text=True)
    return sorted(int(p) for p in out.stdout.split())


def session_open(url, watch_pid, state_file):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "check", "version": "1"}}}
    status, sid, _ = post(url, init)
    check(status == 200 and bool(sid), f"initialize through the Function URL: a session id (status {status})")
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    pids = function_pids(watch_pid)
    check(len(pids) >= 1, f"the function runs in a process of its own (pids {pids})")
    pathlib.Path(state_file).write_text(json.dumps({"session": sid, "pids": pids}))


def session_use(url, watch_pid, redis_port, state_file):
    state = json.loads(pathlib.Path(state_file).read_text())
    sid, before = state["session"], state["pids"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_simple_text", "arguments": {}}}
    status, _, text = post(url, call, sid)
    check(status == 200 and SIMPLE_TEXT in text, f"tools/call with that session in a fresh process: answered (status {status}, {text[:200]})")
    after = function_pids(watch_pid)
    check(bool(after) and not set(after) & set(before), f"the process changed: {before} -> {after}")
    keys = subprocess.run(["redis-cli", "-p", str(redis_port), "--scan", "--pattern", f"*{{s:{sid}}}"],
                          capture_output=True, text=True).stdout.split()
    check(len(keys) == 1, f"the session's record is in Redis ({keys})")


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "events" and len(sys.argv) == 4:
        events(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "session-open":
        session_open(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 6 and sys.argv[1] == "session-use":
        session_use(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) == 4 and sys.argv[1] == "tasks":
        tasks(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")


if __name__ == "__main__":
    main()
