#!/usr/bin/env python3
"""A real Prometheus scrapes phantom's metrics.

    python3 tests/harness/prometheus/scrape.py EVERYTHING_BIN WORK_DIR

Starts two `everything` nodes (each serving `/metrics` beside `/mcp`) and a private Prometheus
(generated config, storage in WORK_DIR, a free port, scraping both nodes every second). Then
sends each node a known, steady load of 2026-07-28 `tools/call` requests — node A twice the rate
of node B, one call in ten to `test_tool_with_progress` (about 100 ms), the rest to
`test_simple_text` — and asks Prometheus:

- each node's request rate, `rate(mcp_server_operation_duration_count[15s])`: within ±10 % of
  the rate this script sent it over the same 15 s (counted from its own clock);
- the p99 latency of `tools/call`, `histogram_quantile(0.99, …_bucket …)`: a number inside the
  bucket (of the exported `le` bounds) in which the p99 this script measured falls, or the next
  one up (the client's time includes the network's).

Also checks the exposition: the histogram's buckets, a `gen_ai_tool_name` label for the tools
called, no session id. Exits non-zero on the first failure.
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

LOAD_SECONDS = 24
WINDOW = 15
RATES = {"A": 40.0, "B": 20.0}
METRIC = "mcp_server_operation_duration"


def fail(message):
    print(f"FAIL {message}")
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_http(url, what, within=20):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    fail(f"{what} did not answer {url} within {within} s")


def call(conn, port, tool, rid):
    body = json.dumps({
        "jsonrpc": "2.0", "id": rid, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    })
    conn.request("POST", "/mcp", body, {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "host": f"localhost:{port}",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": tool,
    })
    resp = conn.getresponse()
    text = resp.read()
    if resp.status != 200 or b'"result"' not in text:
        fail(f"tools/call {tool} on port {port}: HTTP {resp.status} {text[:300]!r}")


class Load(threading.Thread):
    """Calls one node at a steady rate, from two connections (so a 100 ms call does not hold up
    the pace), and keeps each call's end time and latency."""

    def __init__(self, port, rate, until):
        super().__init__(daemon=True)
        self.port, self.rate, self.until = port, rate, until
        self.done = []  # (end time, latency seconds)
        self.lock = threading.Lock()
        self.error = None

    def run(self):
        workers = [threading.Thread(target=self.worker, args=(i,), daemon=True) for i in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    def worker(self, which):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            interval = 2.0 / self.rate
            start = time.time() + which * interval / 2
            n = 0
            while True:
                at = start + n * interval
                if at >= self.until:
                    return
                delay = at - time.time()
                if delay > 0:
                    time.sleep(delay)
                tool = "test_tool_with_progress" if (n * 2 + which) % 10 == 3 else "test_simple_text"
                began = time.time()
                call(conn, self.port, tool, f"{which}-{n}")
                ended = time.time()
                with self.lock:
                    self.done.append((ended, ended - began))
                n += 1
        except SystemExit as e:
            self.error = str(e)
        except Exception as e:  # noqa: BLE001 - reported as the test's failure
            self.error = f"{type(e).__name__}: {e}"


def query(prom, promql, at):
    url = f"http://127.0.0.1:{prom}/api/v1/query?" + urllib.parse.urlencode({"query": promql, "time": f"{at:.3f}"})
    with urllib.request.urlopen(url, timeout=10) as r:
        answer = json.loads(r.read())
    if answer.get("status") != "success":
        fail(f"{promql}: {answer}")
    return answer["data"]["result"]


def main():
    binary, work = sys.argv[1], sys.argv[2]
    nodes = {name: free_port() for name in RATES}
    prom = free_port()
    children = []

    def stop_all():
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()

    try:
        for name, port in nodes.items():
            log = open(os.path.join(work, f"node-{name}.log"), "w")
            children.append(subprocess.Popen(
                [binary, "--addr", f"127.0.0.1:{port}"], stdout=log, stderr=log))
        for name, port in nodes.items():
            wait_http(f"http://127.0.0.1:{port}/readyz", f"node {name}")
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: phantom\n    metrics_path: /metrics\n"
                    "    static_configs:\n")
            for name, port in nodes.items():
                f.write(f"      - targets: ['127.0.0.1:{port}']\n        labels: {{node: '{name}'}}\n")
        plog = open(os.path.join(work, "prometheus.log"), "w")
        children.append(subprocess.Popen([
            "prometheus", f"--config.file={config}", f"--storage.tsdb.path={work}/tsdb",
            f"--web.listen-address=127.0.0.1:{prom}", "--log.level=warn",
        ], stdout=plog, stderr=plog))
        wait_http(f"http://127.0.0.1:{prom}/-/ready", "prometheus", within=30)

        # The exposition itself, before any load: a scrape is not an MCP request.
        with urllib.request.urlopen(f"http://127.0.0.1:{nodes['A']}/metrics", timeout=5) as r:
            before = r.read().decode()
        if re.search(rf'^{METRIC}_count\{{', before, re.M):
            fail(f"requests counted before any was sent:\n{before[:2000]}")

        until = time.time() + LOAD_SECONDS
        loads = {name: Load(nodes[name], rate, until) for name, rate in RATES.items()}
        for load in loads.values():
            load.start()
        for load in loads.values():
            load.join()
        for name, load in loads.items():
            if load.error:
                fail(f"load on node {name}: {load.error}")
        # Two more scrapes, so the window's end is in Prometheus.
        time.sleep(2.5)

        with urllib.request.urlopen(f"http://127.0.0.1:{nodes['A']}/metrics", timeout=5) as r:
            text = r.read().decode()
        buckets = sorted({float(m) for m in re.findall(
            rf'^{METRIC}_bucket\{{[^}}]*le="([0-9.e+-]+)"', text, re.M)})
        if len(buckets) < 5:
            fail(f"fewer than 5 buckets of {METRIC}:\n{text[:3000]}")
        for tool in ("test_simple_text", "test_tool_with_progress"):
            if f'gen_ai_tool_name="{tool}"' not in text:
                fail(f"no gen_ai_tool_name label for {tool}:\n{text[:3000]}")
        if re.search(r"session", text, re.I) and re.search(r'session[_a-z]*="', text):
            fail("a session label in the exposition")

        # Rates over the last full window of the load.
        at = until - 1.0
        got = {}
        for series in query(prom, f'sum by (node) (rate({METRIC}_count[{WINDOW}s]))', at):
            got[series["metric"].get("node")] = float(series["value"][1])
        for name, load in loads.items():
            sent = sum(1 for ended, _ in load.done if at - WINDOW < ended <= at) / WINDOW
            seen = got.get(name)
            print(f"node {name}: sent {sent:.2f}/s over [{WINDOW} s], Prometheus says {seen}")
            if seen is None or abs(seen - sent) > 0.10 * sent:
                fail(f"node {name}: Prometheus's rate {seen} is not within ±10 % of {sent:.2f}/s")

        # The p99 of tools/call, from the buckets of both nodes.
        p99 = query(prom, f'histogram_quantile(0.99, sum by (le) (rate({METRIC}_bucket{{mcp_method_name="tools/call"}}[{WINDOW}s])))', at)
        if not p99:
            fail("histogram_quantile returned nothing")
        estimate = float(p99[0]["value"][1])
        latencies = sorted(lat for load in loads.values() for ended, lat in load.done if at - WINDOW < ended <= at)
        measured = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
        bounds = [0.0] + buckets
        index = next((i for i in range(1, len(bounds)) if measured <= bounds[i]), len(bounds) - 1)
        low, high = bounds[index - 1], bounds[min(index + 1, len(bounds) - 1)]
        print(f"tools/call p99: measured by the client {measured * 1000:.1f} ms; histogram_quantile {estimate * 1000:.1f} ms (bucket bounds {low}..{high} s)")
        if not (low <= estimate <= high):
            fail(f"the p99 from histogram_quantile ({estimate}) is outside {low}..{high} s")
        print("prometheus: ok")
    finally:
        stop_all()


if __name__ == "__main__":
    main()
