#!/usr/bin/env python3
"""Rolling restart: each node of a two-node cluster (examples/cluster, HAProxy checking `/readyz`)
gets SIGTERM and is started again, then each gets SIGINT and is started again, under load.

    python rolling.py CLUSTER_DIR ROLLING_LISTEN_BIN

Run with the Python that has `mcp` 2.3.0 (run.sh beside this script sets it up). The nodes run
`everything --redis … --drain-delay 1000 --grace 5000 --executions FILE`; HAProxy retries only
what failed to connect (`retry-on conn-failure`) and balances round-robin without stickiness.
Meanwhile:

- four 2025-11-25 sessions (raw HTTP) and two 2026-07-28 clients (raw HTTP) call `greet`
  continuously, and a third 2026-07-28 client starts tasks (`slow_compute` of 0 s)
  continuously, each call named by its JSON-RPC id, passed as an argument too (the nodes'
  `--executions` lines carry the arguments);
- a 2025-11-25 session of the Python `mcp` client keeps its GET stream open (the client resumes
  it by itself with `Last-Event-ID`), subscribes to a new resource every few tenths of a second
  and announces its update (`test_trigger_resource_update`): every event has its own URI;
- `rolling-listen` (`phantom::client`, 2026-07-28) keeps a `subscriptions/listen` open, and
  opens it again by itself when a node ends it;
- two 2026-07-28 tasks run (`slow_compute`): one of 6 s, one of 60 s.

Checked: every node exits 0 within its drain delay plus its grace (plus a margin); no request
failed (each got HTTP 200 and its result); no session was lost (no 404); every call ran exactly
once over all node generations (the executions files); the GET stream delivered every event
stored for it exactly once, in order (compared with Redis); after each restart a tool-list change
reaches the listen; the 6 s task is `completed` (its node waits for it within the grace), the
60 s one `failed` with a message saying the node shut down (at the end of its node's grace).
Exits non-zero on any failure, after a summary.
"""
import asyncio
import collections
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import warnings

import anyio
from mcp import Client, types

# `resources/subscribe` is deprecated in 2026-07-28 but is how a 2025-11-25 session subscribes.
warnings.filterwarnings("ignore", message="resources/(un)?subscribe is removed")

DRAIN_DELAY = int(os.environ.get("ROLLING_DRAIN_DELAY_MS", "1000")) / 1000
GRACE = int(os.environ.get("ROLLING_GRACE_MS", "5000")) / 1000
# A node has its drain delay and its grace to stop; this much more for the process to start
# its shutdown and exit.
EXIT_MARGIN = 5.0
# Two tasks: one that ends within its node's grace (it completes: the node waits for it), one
# that cannot (it is stored failed, saying the node shut down, as the grace ends).
TASKS = {"short": 6, "long": 60}

STARTED = time.monotonic()
failures = []
failures_lock = threading.Lock()


def log(message):
    print(f"[{time.monotonic() - STARTED:6.2f}s] {message}", flush=True)


def failure(message):
    with failures_lock:
        failures.append(message)
    if len(failures) <= 20:
        log(f"FAILURE {message}")


class Cluster:
    def __init__(self, directory):
        self.dir = directory
        read = lambda name: open(os.path.join(directory, name)).read().strip()
        self.port = int(os.environ["CLUSTER_PORT"])
        self.host = f"localhost:{self.port}"
        self.url = f"http://{self.host}/mcp"
        self.redis_port = int(read("redis.port"))
        self.nodes = {}
        for name in ("A", "B"):
            self.nodes[name] = {
                "port": int(read(f"node-{name}.port")),
                "cmd": json.loads(read(f"node-{name}.cmd")),
                "pid": int(read(f"node-{name}.pid")),
                "process": None,  # a generation started here
                "generation": 0,
            }

    def haproxy_status(self):
        """{server name: status} from HAProxy's stats socket."""
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(os.path.join(self.dir, "haproxy.sock"))
        sock.sendall(b"show stat\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        sock.close()
        rows = [line.split(",") for line in data.decode().splitlines() if line and not line.startswith("#")]
        return {row[1]: row[17] for row in rows if row[0] == "nodes"}

    def ready(self, name):
        conn = http.client.HTTPConnection("127.0.0.1", self.nodes[name]["port"], timeout=1)
        try:
            conn.request("GET", "/readyz", headers={"host": "localhost"})
            return conn.getresponse().status == 200
        except OSError:
            return False
        finally:
            conn.close()

    def stop(self, name, sig):
        """Sends `sig` to the node, waits for its exit; returns (status, seconds)."""
        node = self.nodes[name]
        sent = time.monotonic()
        os.kill(node["pid"], sig)
        limit = DRAIN_DELAY + GRACE + EXIT_MARGIN
        if node["process"] is not None:
            try:
                status = node["process"].wait(timeout=limit)
            except subprocess.TimeoutExpired:
                return None, limit
        else:
            # Started by examples/cluster/run.sh, which writes the exit status.
            exit_file = os.path.join(self.dir, f"node-{name}.exit")
            while not os.path.exists(exit_file) and time.monotonic() - sent < limit:
                time.sleep(0.02)
            if not os.path.exists(exit_file):
                return None, limit
            time.sleep(0.05)
            status = int(open(exit_file).read().strip() or -1)
        return status, time.monotonic() - sent

    def start(self, name):
        """Starts the node again with the same command line; waits until HAProxy sees it up."""
        node = self.nodes[name]
        logfile = open(os.path.join(self.dir, f"node-{name}.log"), "ab")
        node["process"] = subprocess.Popen(node["cmd"]["argv"], env=dict(os.environ, **node["cmd"]["env"]),
                                           stdout=logfile, stderr=logfile, stdin=subprocess.DEVNULL)
        node["pid"] = node["process"].pid
        node["generation"] += 1
        with open(os.path.join(self.dir, "pids"), "a") as pids:
            pids.write(f"{node['pid']}\n")
        with open(os.path.join(self.dir, f"node-{name}.pid"), "w") as pid:
            pid.write(f"{node['pid']}\n")
        started = time.monotonic()
        while not self.ready(name):
            if node["process"].poll() is not None:
                raise RuntimeError(f"node {name} exited at start: {node['process'].returncode}")
            if time.monotonic() - started > 20:
                raise RuntimeError(f"node {name} not ready 20 s after its start")
            time.sleep(0.05)
        while self.haproxy_status().get(name.lower()) != "UP":
            if time.monotonic() - started > 20:
                raise RuntimeError(f"HAProxy does not see node {name} up: {self.haproxy_status()}")
            time.sleep(0.05)
        return time.monotonic() - started


def sse_or_json(resp):
    body = resp.read().decode()
    if "text/event-stream" in (resp.getheader("content-type") or ""):
        datas = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
        datas = [d for d in datas if d]
        return json.loads(datas[-1]) if datas else None
    return json.loads(body) if body else None


class Caller(threading.Thread):
    """One client calling continuously through the balancer, by raw HTTP: `greet` on a 2025-11-25
    session (kind `legacy`) or in 2026-07-28 (`modern`), or starting `slow_compute` tasks of 0 s
    in 2026-07-28 (`task`). Each call is named by its JSON-RPC id, which is also its `name` (or
    `label`) argument, so that the executions lines name it."""

    def __init__(self, cluster, label, kind, stop):
        super().__init__(daemon=True)
        self.cluster, self.label, self.kind, self.stop_flag = cluster, label, kind, stop
        self.legacy = kind == "legacy"
        self.session = None
        self.conn = None
        self.sent, self.answered = [], []
        self.lost_session = 0

    def connection(self):
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.cluster.port, timeout=30)
        return self.conn

    def post(self, body, headers):
        headers = dict(headers, **{
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "host": self.cluster.host,
        })
        try:
            conn = self.connection()
            conn.request("POST", "/mcp", json.dumps(body), headers)
            resp = conn.getresponse()
            return resp.status, resp.getheader("mcp-session-id"), sse_or_json(resp)
        except (OSError, http.client.HTTPException, ValueError) as e:
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return None, None, repr(e)

    def initialize(self):
        status, session, reply = self.post({"jsonrpc": "2.0", "id": f"{self.label}-init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": f"rolling-{self.label}", "version": "1.0.0"}}}, {})
        if status != 200 or not session:
            raise RuntimeError(f"{self.label}: initialize: HTTP {status} {reply}")
        self.session = session
        status, _, _ = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                                 {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"})
        if status != 202:
            raise RuntimeError(f"{self.label}: notifications/initialized: HTTP {status}")

    def run(self):
        n = 0
        while not self.stop_flag.is_set():
            n += 1
            call = f"{self.label}-{n}"
            if self.kind == "task":
                params = {"name": "slow_compute", "arguments": {"seconds": 0, "label": call}}
            else:
                params = {"name": "greet", "arguments": {"name": call}}
            if self.legacy:
                headers = {"mcp-session-id": self.session, "mcp-protocol-version": "2025-11-25"}
            else:
                tasks = {"extensions": {"io.modelcontextprotocol/tasks": {}}} if self.kind == "task" else {}
                params["_meta"] = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                   "io.modelcontextprotocol/clientCapabilities": tasks}
                headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": params["name"]}
            self.sent.append(call)
            status, _, reply = self.post({"jsonrpc": "2.0", "id": call, "method": "tools/call", "params": params}, headers)
            result = reply.get("result") if isinstance(reply, dict) and reply.get("id") == call else None
            if status != 200 or not isinstance(result, dict) or result.get("isError"):
                ok = False
            elif self.kind == "task":
                ok = result.get("resultType") == "task" and isinstance(result.get("taskId"), str)
            else:
                ok = [c.get("text") for c in result.get("content", [])] == [f"Hello, {call}!"]
            if ok:
                self.answered.append(call)
            else:
                if status == 404:
                    self.lost_session += 1
                failure(f"{call}: HTTP {status} {str(reply)[:300]}")
            time.sleep(0.002)


def modern(cluster, method, params, name):
    """One 2026-07-28 request through the balancer; (HTTP status, decoded reply)."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
    conn = http.client.HTTPConnection("127.0.0.1", cluster.port, timeout=30)
    try:
        conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": f"{method}-{time.monotonic_ns()}",
                                                 "method": method, "params": dict(params, _meta=meta)}), {
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "host": cluster.host, "mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": name})
        resp = conn.getresponse()
        return resp.status, sse_or_json(resp)
    except (OSError, http.client.HTTPException, ValueError) as e:
        return None, repr(e)
    finally:
        conn.close()


class Listen:
    """`rolling-listen` (phantom::client): its notification lines, as they come."""

    def __init__(self, binary, url):
        self.process = subprocess.Popen([binary, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lines = []
        self.lock = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            with self.lock:
                self.lines.append(line.strip())
                self.lock.notify_all()

    def count(self, prefix):
        with self.lock:
            return sum(1 for line in self.lines if line.startswith(prefix))

    def wait_for(self, prefix, more_than, within):
        deadline = time.monotonic() + within
        with self.lock:
            while sum(1 for line in self.lines if line.startswith(prefix)) <= more_than:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.lock.wait(left)
        return True

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def redis_events(cluster, marker):
    """The key and the data of the events stored for the stream that carried `marker`, in order."""
    def redis(*args):
        return subprocess.run(["redis-cli", "-p", str(cluster.redis_port), *args],
                              check=True, capture_output=True, text=True).stdout
    for key in redis("--scan", "--pattern", "*:events").split():
        # [[entry id, [field, value, ...]], ...]
        entries = [(entry_id, dict(zip(fields[::2], fields[1::2])))
                   for entry_id, fields in json.loads(redis("--json", "XRANGE", key, "-", "+"))]
        streams = {f.get("stream") for _, f in entries if marker in f.get("data", "")}
        if len(streams) > 1:
            raise RuntimeError(f"events carrying {marker} on several streams: {streams}")
        if streams:
            stream = streams.pop()
            return key, [f["data"] for _, f in entries if f.get("stream") == stream and f.get("data")]
    return None, []


def describe(message):
    """A stored event's or a received notification's identity: (method, uri or None)."""
    return (message.get("method"), (message.get("params") or {}).get("uri"))


async def main():
    cluster = Cluster(sys.argv[1])
    listen_bin = sys.argv[2]
    stop = threading.Event()
    received = []  # what the Python client's GET stream brought: (method, uri)

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            received.append(("notifications/resources/updated", str(message.params.uri)))
        elif isinstance(message, types.ToolListChangedNotification):
            received.append(("notifications/tools/list_changed", None))
        elif isinstance(message, Exception):
            failure(f"the Python client's stream: {message!r}")
        elif hasattr(message, "method"):
            received.append((message.method, None))

    ports = ", ".join(f"{n} on {v['port']}" for n, v in cluster.nodes.items())
    log(f"cluster at {cluster.url}; nodes {ports}")
    tasks = {}
    for label, seconds in TASKS.items():
        status, task = modern(cluster, "tools/call", {"name": "slow_compute", "arguments": {"seconds": seconds, "label": label}},
                              "slow_compute")
        task_id = (task or {}).get("result", {}).get("taskId") if isinstance(task, dict) else None
        if not task_id:
            print(f"FAIL slow_compute did not start a task: HTTP {status} {task}")
            return 1
        tasks[label] = task_id
        log(f"task {label} ({seconds} s): {task_id}")

    callers = [Caller(cluster, f"L{i}", "legacy", stop) for i in range(4)] + \
              [Caller(cluster, f"M{i}", "modern", stop) for i in range(2)] + [Caller(cluster, "T0", "task", stop)]
    for c in callers:
        if c.legacy:
            c.initialize()
    listen = Listen(listen_bin, cluster.url)
    if not listen.wait_for("notifications/subscriptions/acknowledged", 0, 10):
        print(f"FAIL the listen did not open: {listen.lines}")
        return 1

    triggers = []
    async with Client(cluster.url, mode="legacy", message_handler=on_message) as client:
        log(f"Python mcp client: protocol {client.protocol_version}")

        async def produce():
            k = 0
            while not stop.is_set():
                k += 1
                uri = f"test://template/rolling-{k}/data"
                try:
                    await client.subscribe_resource(uri)
                    res = await client.call_tool("test_trigger_resource_update", {"uri": uri})
                    if res.is_error:
                        failure(f"test_trigger_resource_update {uri}: {res}")
                    else:
                        triggers.append(uri)
                except Exception as e:  # noqa: BLE001 - every failure is counted
                    failure(f"the Python client, event {uri}: {e!r}")
                await anyio.sleep(0.25)

        producer = asyncio.create_task(produce())
        for c in callers:
            c.start()
        await asyncio.sleep(2)

        def roll():
            results = []
            for sig in (signal.SIGTERM, signal.SIGINT):
                for name in ("A", "B"):
                    acks = listen.count("notifications/subscriptions/acknowledged")
                    status, took = cluster.stop(name, sig)
                    log(f"node {name}: {signal.Signals(sig).name} -> exit {status} in {took:.2f}s")
                    if status != 0:
                        failure(f"node {name} after {signal.Signals(sig).name}: exit status {status} after {took:.1f}s "
                                f"(limit {DRAIN_DELAY + GRACE + EXIT_MARGIN}s)")
                    up = cluster.start(name)
                    log(f"node {name}: started again, ready and up in HAProxy after {up:.2f}s")
                    # A change announced while the client waits to listen again (a listen is not
                    # resumed: it starts afresh) reaches no one; announce one until it is heard.
                    heard, deadline = False, time.monotonic() + 10
                    while not heard and time.monotonic() < deadline:
                        changed = listen.count("notifications/tools/list_changed")
                        status, reply = modern(cluster, "tools/call", {"name": "test_trigger_tool_change", "arguments": {}},
                                               "test_trigger_tool_change")
                        if status != 200 or "result" not in (reply or {}):
                            failure(f"test_trigger_tool_change: HTTP {status} {reply}")
                        heard = listen.wait_for("notifications/tools/list_changed", changed, 1.5)
                    if heard:
                        log(f"the listen heard a tool-list change (opened {listen.count('notifications/subscriptions/acknowledged') - acks} more time(s) since the signal)")
                    else:
                        failure(f"after node {name}'s {signal.Signals(sig).name}: no tools/list_changed on the listen within 10 s")
                    results.append((name, sig, status, took))
                    time.sleep(0.5)
            return results

        await asyncio.to_thread(roll)
        await asyncio.sleep(1)
        stop.set()
        await producer
        for c in callers:
            await asyncio.to_thread(c.join, 30)
        # Every stored event reaches the client: wait for the last trigger's.
        deadline = time.monotonic() + 10
        last = ("notifications/resources/updated", triggers[-1]) if triggers else None
        while last and last not in received and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        key, stored = redis_events(cluster, "test://template/rolling-1/data")
        stored = [describe(json.loads(d)) for d in stored]
        got = list(received)

    listen.close()
    acks = listen.count("notifications/subscriptions/acknowledged")

    # The tasks.
    for label, task_id in tasks.items():
        deadline = time.monotonic() + GRACE + 15
        state = {}
        while time.monotonic() < deadline:
            status, reply = modern(cluster, "tasks/get", {"taskId": task_id}, task_id)
            state = (reply or {}).get("result", {}) if isinstance(reply, dict) else {}
            if state.get("status") in ("completed", "failed", "cancelled"):
                break
            await asyncio.sleep(0.5)
        message = state.get("statusMessage") or ""
        if label == "short" and state.get("status") == "completed":
            log(f"task {label}: completed (its node waited for it)")
        elif label == "long" and state.get("status") == "failed" and "shut down" in message:
            log(f"task {label}: failed: {message}")
        else:
            expected = "completed" if label == "short" else "failed, with a message saying its node shut down"
            failure(f"task {label} ({TASKS[label]} s, grace {GRACE} s) should be {expected}: {state}")

    # Executions, over every node generation.
    executions = [json.loads(line) for line in open(os.path.join(cluster.dir, "executions"))]
    per_call = collections.Counter()
    per_node = collections.Counter()
    for e in executions:
        per_node[e["node"]] += 1
        if e["tool"] == "greet":
            per_call[e["arguments"]["name"]] += 1
        elif e["tool"] == "slow_compute" and e["arguments"]["label"] not in TASKS:
            per_call[e["arguments"]["label"]] += 1
    sent = [call for c in callers for call in c.sent]
    answered = {call for c in callers for call in c.answered}
    twice = {call: n for call, n in per_call.items() if n > 1}
    never = [call for call in answered if per_call[call] == 0]
    unsent = set(per_call) - set(sent)
    if twice:
        failure(f"{len(twice)} calls ran more than once: {sorted(twice.items())[:10]}")
    if never:
        failure(f"{len(never)} answered calls have no execution line: {never[:10]}")
    if unsent:
        failure(f"executions of calls nobody sent: {sorted(unsent)[:10]}")
    not_once = [call for call in sent if per_call[call] != 1]
    if not_once:
        failure(f"{len(not_once)} sent calls did not run exactly once: {[(c, per_call[c]) for c in not_once[:10]]}")
    task_runs = collections.Counter(e["arguments"]["label"] for e in executions
                                    if e["tool"] == "slow_compute" and e["arguments"]["label"] in TASKS)
    if task_runs != collections.Counter(list(TASKS)):
        failure(f"each slow_compute task should have run once: {dict(task_runs)}")
    trigger_runs = collections.Counter(e["arguments"]["uri"] for e in executions if e["tool"] == "test_trigger_resource_update")
    if any(n != 1 for n in trigger_runs.values()) or set(trigger_runs) != set(triggers):
        failure(f"test_trigger_resource_update: each call should run once: {[(u, n) for u, n in trigger_runs.items() if n != 1][:10]}")

    # The GET stream's events.
    if not stored:
        failure("no event stored for the Python client's GET stream in Redis")
    elif got != stored:
        first = next((i for i, (a, b) in enumerate(zip(got, stored)) if a != b), min(len(got), len(stored)))
        failure(f"the GET stream should deliver the {len(stored)} stored events once, in order: got {len(got)}, "
                f"first difference at {first}: got {got[first:first + 3]}, stored {stored[first:first + 3]}")
    dup = [d for d, n in collections.Counter(got).items() if n > 1 and d[1]]
    if dup:
        failure(f"events delivered more than once: {dup[:10]}")
    # An update announced while the client waits to reconnect (`retry:`) finds no GET stream
    # open, and no node stores it: the stored ones are the others, in the order announced.
    updates = [u for m, u in stored if m == "notifications/resources/updated"]
    position = {uri: i for i, uri in enumerate(triggers)}
    if any(u not in position for u in updates) or [position[u] for u in updates] != sorted(position[u] for u in updates):
        failure("stored updates should be triggered ones, in the order triggered")
    unstored = len(triggers) - len(updates)
    if acks < 3:
        failure(f"the listen should have been opened again at least twice (its node drained once per round): opened {acks} times")

    lost = sum(c.lost_session for c in callers)
    elapsed = time.monotonic() - STARTED
    print()
    starts = sum(len(c.sent) for c in callers if c.kind == "task")
    print(f"summary: {elapsed:.1f} s; {len(sent)} calls ({len(sent) - starts} of `greet`, {starts} task starts; "
          f"{len(answered)} answered), "
          f"{len(triggers)} events triggered through the Python client, {len(failures)} failures, {lost} lost sessions")
    by_address = collections.Counter()
    for node, n in per_node.items():
        by_address[node.split()[0]] += n
    for address, n in sorted(by_address.items()):
        generations = ", ".join(f"{per_node[g]}" for g in sorted(per_node, key=lambda g: int(g.split()[1]))
                                if g.split()[0] == address)
        print(f"  node {address}: {n} tools/call executed (by generation: {generations})")
    print(f"  GET stream: {len(stored)} events stored ({key}), {len(got)} delivered exactly once, in order "
          f"({unstored} of the {len(triggers)} updates announced while no GET stream was open); listen opened {acks} times")
    if failures:
        print(f"FAIL {len(failures)} failures; the first: {failures[:5]}")
        return 1
    print("rolling restart: 0 failed requests, 0 lost sessions, every call ran exactly once")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
