#!/usr/bin/env python3
"""Failover: a node dies (SIGKILL) while a legacy client's stream is open, and the client goes on
through the other node.

    python3 tests/harness/failover/failover.py CLUSTER_DIR

On node A, a 2025-11-25 session calls `test_elicitation`: A answers with an SSE stream, stores its
priming event and the `elicitation/create` request in Redis, and waits for the answer. A is then
killed. The client resumes the stream on node B with `Last-Event-ID` (the priming event's id) and
must receive what A had written after it exactly once (the elicitation request, and nothing
twice); the session, opened on A, keeps working on B. A 2026-07-28 task A was running
(`slow_compute`, a minute long) is `failed`, with a reason, once its lease lapsed (ten seconds),
never `working` for ever. Exits non-zero on the first failure.
"""
import http.client
import json
import os
import signal
import sys
import time


def fail(message):
    print(f"FAIL {message}")
    sys.exit(1)


class Node:
    def __init__(self, port):
        self.port = port

    def post(self, body, session=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "host": f"localhost:{self.port}",
        }
        if session:
            headers["mcp-session-id"] = session
        conn.request("POST", "/mcp", json.dumps(body), headers)
        return conn, conn.getresponse()

    def get(self, session, last_event_id):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/mcp", headers={
            "accept": "text/event-stream",
            "mcp-session-id": session,
            "last-event-id": last_event_id,
            "host": f"localhost:{self.port}",
        })
        return conn, conn.getresponse()


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
}


def modern(node, method, params, name):
    conn = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": dict(params, _meta=MODERN_META)}
    conn.request("POST", "/mcp", json.dumps(body), {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "host": f"localhost:{node.port}",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        "mcp-name": name,
    })
    resp = conn.getresponse()
    return json.loads(resp.read())


def events(resp, want, within):
    """Reads SSE events until `want` events with data arrived or `within` seconds passed."""
    resp.fp.raw._sock.settimeout(within)
    found, event = [], {}
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline and len(found) < want:
            line = resp.fp.readline()
            if not line:
                break
            line = line.decode().rstrip("\r\n")
            if line == "":
                if event:
                    found.append(event)
                event = {}
            elif line.startswith("id:"):
                event["id"] = line[3:].strip()
            elif line.startswith("data:"):
                event["data"] = event.get("data", "") + line[5:].strip()
    except (TimeoutError, OSError):
        pass
    return found


def main():
    cluster = sys.argv[1]
    read = lambda name: open(os.path.join(cluster, name)).read().strip()
    a, b = Node(int(read("node-A.port"))), Node(int(read("node-B.port")))
    a_pid = int(read("node-A.pid"))

    conn, resp = a.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "failover", "version": "1.0.0"}}})
    session = resp.getheader("mcp-session-id")
    resp.read()
    if resp.status != 200 or not session:
        fail(f"initialize on A: HTTP {resp.status}")
    conn, resp = a.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    resp.read()

    _, stream = a.post({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "test_elicitation", "arguments": {"message": "Still there?"}}},
                       session)
    if stream.status != 200 or "text/event-stream" not in (stream.getheader("content-type") or ""):
        fail(f"the call on A did not answer with an SSE stream: HTTP {stream.status}")
    seen = events(stream, 2, 10)
    primed = [e for e in seen if "id" in e and not e.get("data")]
    asked = [e for e in seen if e.get("data") and json.loads(e["data"]).get("method") == "elicitation/create"]
    if not primed or not asked:
        fail(f"A's stream did not carry a priming event and the elicitation request: {seen}")
    print(f"A wrote: priming {primed[0]['id']}, elicitation/create {asked[0]['id']}")

    task = modern(a, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 60}}, "slow_compute")
    task_id = task.get("result", {}).get("taskId")
    if not task_id:
        fail(f"slow_compute did not start a task on A: {task}")
    print(f"A runs task {task_id}")

    os.kill(a_pid, signal.SIGKILL)
    time.sleep(0.3)
    try:
        a.post({"jsonrpc": "2.0", "id": 2, "method": "ping"}, session)
        fail("node A still answers after SIGKILL")
    except (ConnectionRefusedError, OSError):
        print("node A killed")

    _, resumed = b.get(session, primed[0]["id"])
    if resumed.status != 200:
        fail(f"resuming on B with Last-Event-ID: HTTP {resumed.status} {resumed.read()[:200]!r}")
    again = [e for e in events(resumed, 3, 2) if e.get("data")]
    ids = [e["id"] for e in again]
    if ids != [asked[0]["id"]] or again[0]["data"] != asked[0]["data"]:
        fail(f"B should replay exactly the event A wrote after the priming one, once: got {again}")
    print(f"B replayed {ids} exactly once")

    _, ok = b.post({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": {"name": "test_simple_text", "arguments": {}}}, session)
    body = ok.read().decode()
    if ok.status != 200 or "result" not in body:
        fail(f"the session on B after A died: HTTP {ok.status} {body[:200]}")
    print("the session opened on A keeps working on B")

    status = modern(b, "tasks/get", {"taskId": task_id}, task_id).get("result", {})
    if status.get("status") != "working":
        fail(f"right after A died its task should still be working (its lease holds): {status}")
    deadline = time.monotonic() + 20
    while status.get("status") == "working" and time.monotonic() < deadline:
        time.sleep(0.5)
        status = modern(b, "tasks/get", {"taskId": task_id}, task_id).get("result", {})
    if status.get("status") != "failed" or "stopped" not in (status.get("statusMessage") or ""):
        fail(f"A's task should be failed, with a reason, once its lease lapsed: {status}")
    print(f"A's task is failed: {status['statusMessage']}")


main()
