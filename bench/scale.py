#!/usr/bin/env python3
"""Scale-out on Redis, measured side by side in one run, written into bench/RESULTS.md (between
`<!-- scale:begin -->` and `<!-- scale:end -->`, which `phantom-bench all` keeps):

- legacy `tools/call` on a session kept in memory versus one kept in Redis (`phantom-echo` with
  and without `REDIS=…`): req/s, p99 and server CPU per request, at 1 and 32 connections, the
  two servers alternating over the rounds, each run on a fresh process pinned to CPU 0 with the
  driver (`phantom-bench load call`) on CPU 1;
- Redis round trips per legacy request on an existing session (`MONITOR` while 200 calls are
  sent: the commands clients sent, not those the Lua scripts ran);
- memory per idle session in Redis (`MEMORY USAGE` of the session's hash, and the growth of
  `used_memory` over 2 000 sessions);
- cross-node notification latency: a legacy session's GET stream open on node B, a resource
  update published by a `tools/call` on node A, the time from the call's send to the event's
  arrival on B (p50, p99 over 200 updates).

    cargo build -p phantom-bench --release && python3 bench/scale.py [--rounds 3] [--secs 5]
"""
import argparse
import http.client
import json
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release"
BEGIN, END = "<!-- scale:begin -->", "<!-- scale:end -->"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port, what):
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.025)
    sys.exit(f"{what} did not listen on {port}")


def redis_cli(port, *args):
    out = subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True, check=True)
    return out.stdout


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server(port, redis_url=None):
    env = dict(os.environ, ADDR=f"127.0.0.1:{port}")
    if redis_url:
        env["REDIS"] = redis_url
    proc = subprocess.Popen(["taskset", "-c", "0", str(TARGET / "phantom-echo")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, "phantom-echo")
    return proc


def drive(*args):
    out = subprocess.run(["taskset", "-c", "1", str(TARGET / "phantom-bench"), "load", *args],
                         capture_output=True, text=True)
    line = next((l for l in out.stdout.splitlines() if l.startswith("RESULT")), None)
    if line is None:
        sys.exit(f"the driver failed: {out.stdout}{out.stderr}")
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def call_run(redis_port, backed, conns, secs):
    port = free_port()
    proc = server(port, f"redis://127.0.0.1:{redis_port}/" if backed else None)
    try:
        before_cpu = cpu_seconds(proc.pid)
        r = drive("call", f"http://127.0.0.1:{port}/mcp", str(conns), str(secs), "shared", "2025-11-25")
        cpu = cpu_seconds(proc.pid) - before_cpu
    finally:
        proc.terminate()
        proc.wait()
    ok = int(r["ok"])
    return {
        "rps": float(r["rps"]),
        "p99": float(r["p99_ms"]),
        "cpu_us": cpu / max(ok, 1) * 1e6,
    }


def post(port, body, session=None, extra=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session:
        headers["mcp-session-id"] = session
    headers.update(extra or {})
    conn.request("POST", "/mcp", json.dumps(body), headers)
    resp = conn.getresponse()
    resp.read()
    return resp


def open_session(port):
    resp = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "scale", "version": "1"}}})
    session = resp.getheader("mcp-session-id")
    post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    return session


def round_trips(redis_port, calls=200):
    """Commands clients send to Redis per legacy tools/call on an existing session."""
    port = free_port()
    proc = server(port, f"redis://127.0.0.1:{redis_port}/")
    try:
        session = open_session(port)
        monitor = subprocess.Popen(["stdbuf", "-oL", "redis-cli", "-p", str(redis_port), "monitor"],
                                   stdout=subprocess.PIPE, text=True)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(monitor.stdout), daemon=True)
        reader.start()
        time.sleep(0.3)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
                   "mcp-session-id": session}
        for n in range(calls):
            body = {"jsonrpc": "2.0", "id": n + 1, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "x"}}}
            conn.request("POST", "/mcp", json.dumps(body), headers)
            conn.getresponse().read()
        # Until MONITOR has written everything it saw.
        count = -1
        while count != len(lines):
            count = len(lines)
            time.sleep(0.5)
        monitor.terminate()
    finally:
        proc.terminate()
        proc.wait()
    # `… [0 127.0.0.1:port] "EVALSHA" …` from clients, `… [0 lua] "PEXPIRE" …` from scripts.
    sent = [l for l in lines if "[0 lua]" not in l and '"' in l]
    return len(sent) / calls


def memory_per_session(redis_port):
    port = free_port()
    proc = server(port, f"redis://127.0.0.1:{redis_port}/")
    try:
        redis_cli(redis_port, "flushall")
        before = int(redis_cli(redis_port, "info", "memory").split("used_memory:")[1].split()[0])
        count = 2000
        drive("sessions", f"http://127.0.0.1:{port}/mcp", "8", str(count))
        after = int(redis_cli(redis_port, "info", "memory").split("used_memory:")[1].split()[0])
        session = open_session(port)
        usage = int(redis_cli(redis_port, "memory", "usage", f"phantom:{{s:{session}}}").strip() or 0)
    finally:
        proc.terminate()
        proc.wait()
    return usage, (after - before) / count


def cross_node_latency(redis_port, updates=200):
    a_port, b_port = free_port(), free_port()
    url = f"redis://127.0.0.1:{redis_port}/"
    a, b = server(a_port, url), server(b_port, url)
    try:
        session = open_session(a_port)
        post(a_port, {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                      "params": {"uri": "users://ada/profile"}}, session)
        conn = http.client.HTTPConnection("127.0.0.1", b_port, timeout=10)
        conn.request("GET", "/mcp", headers={"accept": "text/event-stream", "mcp-session-id": session})
        stream = conn.getresponse()
        arrivals = []
        done = threading.Event()

        def read():
            while not done.is_set():
                line = stream.fp.readline()
                if not line:
                    return
                if line.startswith(b"data:") and b"resources/updated" in line:
                    arrivals.append(time.perf_counter())

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        other = open_session(a_port)
        time.sleep(0.3)
        latencies = []
        for n in range(updates):
            seen = len(arrivals)
            sent = time.perf_counter()
            post(a_port, {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
                          "params": {"name": "touch", "arguments": {"uri": "users://ada/profile"}}}, other)
            deadline = time.perf_counter() + 5
            while len(arrivals) == seen and time.perf_counter() < deadline:
                time.sleep(0.0002)
            if len(arrivals) == seen:
                sys.exit("an update published on A never reached B's stream")
            latencies.append((arrivals[seen] - sent) * 1000)
        done.set()
    finally:
        a.terminate()
        b.terminate()
        a.wait()
        b.wait()
    latencies.sort()
    return statistics.median(latencies), latencies[int(len(latencies) * 0.99) - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=float, default=5)
    o = ap.parse_args()
    redis_port = free_port()
    redis = subprocess.Popen(["taskset", "-c", "1", "redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                              "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    wait_port(redis_port, "redis-server")
    try:
        rows = {}
        for conns in (1, 32):
            runs = {"memory": [], "redis": []}
            for _ in range(o.rounds):
                for backed in (False, True):
                    runs["redis" if backed else "memory"].append(call_run(redis_port, backed, conns, o.secs))
            rows[conns] = {k: {m: statistics.median(r[m] for r in v) for m in v[0]} for k, v in runs.items()}
        trips = round_trips(redis_port)
        usage, growth = memory_per_session(redis_port)
        p50, p99 = cross_node_latency(redis_port)
    finally:
        redis.terminate()
    version = redis_cli_version()
    lines = [BEGIN, "## Scale-out on Redis", "",
             f"Generated by `python3 bench/scale.py --rounds {o.rounds} --secs {o.secs:g}` against {version} on this "
             "machine (Redis on the driver's core). Medians over the rounds; the in-memory and the Redis-backed "
             "`phantom-echo` alternated, each run on a fresh process. Legacy (2025-11-25) `tools/call` on one "
             "session per run (`load call … shared 2025-11-25`).", "",
             "| scenario | req/s memory | req/s Redis | Redis ÷ memory req/s | p99 ms memory | p99 ms Redis | "
             "CPU µs/req memory | CPU µs/req Redis | Redis ÷ memory CPU |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for conns, r in rows.items():
        m, d = r["memory"], r["redis"]
        lines.append(f"| legacy tools/call c{conns} | {m['rps']:.0f} | {d['rps']:.0f} | {d['rps'] / m['rps']:.2f} | "
                     f"{m['p99']:.2f} | {d['p99']:.2f} | {m['cpu_us']:.1f} | {d['cpu_us']:.1f} | "
                     f"{d['cpu_us'] / m['cpu_us']:.2f} |")
    lines += ["",
              f"- Redis round trips per legacy `tools/call` on an existing session: {trips:.2f} "
              "(`MONITOR` over 200 calls: the `touch` script, one `EVALSHA`; target at most one). "
              "The in-memory server makes none.",
              f"- Memory per idle session in Redis: {usage} bytes (`MEMORY USAGE` of its hash), "
              f"{growth:.0f} bytes of `used_memory` per session over 2 000 sessions.",
              f"- Cross-node notification latency (publish on node A → event on node B's GET stream, "
              f"200 updates): p50 {p50:.2f} ms, p99 {p99:.2f} ms.",
              END]
    section = "\n".join(lines)
    path = ROOT / "bench" / "RESULTS.md"
    doc = path.read_text()
    if BEGIN in doc:
        start, end = doc.index(BEGIN), doc.index(END) + len(END)
        doc = doc[:start] + section + doc[end:]
    elif "\n## Notes" in doc:
        at = doc.index("\n## Notes")
        doc = doc[:at + 1] + section + "\n\n" + doc[at + 1:]
    else:
        doc = doc.rstrip() + "\n\n" + section + "\n"
    path.write_text(doc)
    print(section)


def redis_cli_version():
    out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
    return "Redis " + out.split("v=")[1].split()[0] if "v=" in out else "Redis"


if __name__ == "__main__":
    main()
