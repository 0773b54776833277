#!/usr/bin/env python3
"""Prints the requests each node behind the cluster's HAProxy answered (from its stats socket)
and fails unless every node answered at least a third of them: the balancer spreads requests,
it does not pin clients to a node.

    python3 tests/harness/cluster_stats.py CLUSTER_DIR            all requests so far
    python3 tests/harness/cluster_stats.py CLUSTER_DIR URL        one legacy session of 20
                                                                  requests on one connection
"""
import http.client
import json
import socket
import sys
import urllib.parse


def stats(sock_path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    s.sendall(b"show stat\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    lines = data.decode().splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
    return {r["svname"]: int(r["stot"] or 0) for r in rows if r.get("pxname") == "nodes" and r["svname"] != "BACKEND"}


def one_session(url):
    """Opens a legacy session and sends 19 more requests in it, all on one keep-alive connection."""
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    def post(body, session=None):
        h = dict(headers, **({"mcp-session-id": session} if session else {}))
        conn.request("POST", u.path, json.dumps(body), h)
        resp = conn.getresponse()
        resp.read()
        assert resp.status in (200, 202), f"{body.get('method')}: HTTP {resp.status}"
        return resp.getheader("mcp-session-id")

    session = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "cluster-probe", "version": "1.0.0"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    for n in range(1, 19):
        post({"jsonrpc": "2.0", "id": n, "method": "tools/list"}, session)


def report(per_node, what):
    total = sum(per_node.values())
    print(f"{what}: " + ", ".join(f"node {n} {c}" for n, c in sorted(per_node.items())) + f" (of {total})")
    if total == 0 or min(per_node.values()) * 3 < total:
        print("the balancer did not spread the requests between the nodes")
        sys.exit(1)


def main():
    sock = f"{sys.argv[1]}/haproxy.sock"
    if len(sys.argv) > 2:
        before = stats(sock)
        one_session(sys.argv[2])
        after = stats(sock)
        report({n: after[n] - before.get(n, 0) for n in after}, "one legacy session's 20 requests on one connection, per node")
    else:
        report(stats(sock), "requests per node")


main()
