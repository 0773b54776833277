#!/usr/bin/env python3
"""phantom's authorization server end to end, with real components: `examples/signin` as two nodes
on one redis-server behind HAProxy (no stickiness), signing users in through oidc-provider
(provider.mjs, a real OpenID provider, with a test account per login name) as the team's identity
provider. The browser is browser.py.

Usage: signin.py SIGNIN_BINARY CARGO_PHANTOM_BINARY

Checked, in order:
1. The official conformance suite's `authorization` mode (0.2.0-alpha.12) with `--client-id` of
   a client registered at phantom: every check SUCCESS, 0 warnings; the browser plays the user.
2. Three real clients sign in and call a scoped tool: the TypeScript SDK's OAuth client, the
   Python `mcp` client's `OAuthClientProvider`, and `cargo phantom login` + `call`.
3. Two nodes: the authorization request on node a; the callback, the consent and the token on
   node b; the MCP call on each (HAProxy's `X-Served-By` says which node served); a token signed
   by one node verifies on the other.
4. A refused consent gets no token; a remembered consent skips the page; a new scope asks again;
   a token for another resource (the identity provider's own) is refused at /mcp.
5. The identity provider down mid-flow: the callback answers the client with an error, nothing
   issued; back up, a sign-in succeeds.
6. Nothing printed or logged holds a secret, code, verifier or token.
"""

import base64
import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import http.server as httpd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import browser  # noqa: E402

CACHE = os.environ.get("PHANTOM_CACHE", os.path.join(ROOT, ".cache"))
CONFORMANCE = os.path.join(CACHE, "conformance-0.2.0-alpha.12")
PYTHON = os.path.join(CACHE, "python-venv", "bin", "python")
UPSTREAM_CLIENT = "phantom-signin"
UPSTREAM_SECRET = "upstream-" + secrets.token_hex(12)
MACHINE = "another-service"
MACHINE_SECRET = "machine-" + secrets.token_hex(12)
SIGNING_KEY = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
STATE_KEY = base64.b64encode(secrets.token_bytes(32)).decode()

failures = []
secrets_seen = [UPSTREAM_SECRET, MACHINE_SECRET, SIGNING_KEY, STATE_KEY]  # searched for in everything printed and logged
printed = []


def check(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc=None, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            if proc is not None and proc.poll() is not None:
                return False
            time.sleep(0.1)
    return False


def fetch(method, url, form=None, headers=None, body=None):
    """(status, headers, text) of one request, never following a redirect."""
    data = urllib.parse.urlencode(form).encode() if form is not None else body
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    opener = urllib.request.build_opener(browser.NoRedirect())
    try:
        with opener.open(req, timeout=15) as r:
            return r.status, r.headers, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode("utf-8", "replace")


class Listener:
    """A loopback redirect URI that keeps what the authorization server sent it."""

    def __init__(self):
        got = self.got = {}
        self.arrived = threading.Event()
        arrived = self.arrived

        class Handler(httpd.BaseHTTPRequestHandler):
            def do_GET(self):
                got.clear()
                got.update(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
                self.send_response(200)
                self.end_headers()
                arrived.set()

            def log_message(self, *args):
                pass

        self.server = httpd.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.uri = f"http://127.0.0.1:{self.server.server_address[1]}/callback"


def modern_call(url, token, tool, node=None):
    """(status, headers, text) of a 2026-07-28 `tools/call` of `tool` with `token`."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
               "Mcp-Method": "tools/call", "Mcp-Name": tool}
    if node:
        headers["X-Route-To"] = node
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": {},
        "_meta": {"io.modelcontextprotocol/clientInfo": {"name": "signin.py", "version": "1"},
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}}
    return fetch("POST", url, headers=headers, body=json.dumps(body).encode())


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def main():
    signin_bin, cargo_phantom = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="phantom-authz-")
    procs = []
    front, port_a, port_b, port_p, port_r = (free_port() for _ in range(5))
    origin = f"http://127.0.0.1:{front}"
    resource = f"{origin}/mcp"
    started = time.monotonic()

    def spawn(name, args, env=None, stdout=None):
        log = open(os.path.join(work, f"{name}.log"), "w")
        proc = subprocess.Popen(args, stdout=stdout or log, stderr=log, env=env, text=True)
        procs.append(proc)
        return proc

    try:
        spawn("redis", ["redis-server", "--port", str(port_r), "--save", "", "--appendonly", "no"])
        provider_env = dict(os.environ)
        provider_env["OIDC_PROVIDER_DIR"] = subprocess.run(
            ["bash", os.path.join(ROOT, "tests/harness/oauth/install.sh")],
            capture_output=True, text=True, check=True).stdout.strip()
        jwks = os.path.join(work, "provider-jwks.json")

        def start_provider():
            return spawn("provider", ["node", os.path.join(ROOT, "tests/harness/oauth/provider.mjs"),
                                      "--port", str(port_p), "--resource", f"http://127.0.0.1:{port_p}/api",
                                      "--scope", "api", "--jwks", jwks, "--machine-client", f"{MACHINE}:{MACHINE_SECRET}", "--login-client",
                                      f"{UPSTREAM_CLIENT}:{UPSTREAM_SECRET}={origin}/callback"],
                         env=provider_env, stdout=subprocess.PIPE)
        provider = start_provider()
        issuer_up = provider.stdout.readline().split()[-1]
        check(issuer_up.startswith("http://"), f"the identity provider is up ({issuer_up})")

        def node(name, port):
            env = dict(os.environ, RUST_LOG="trace", PHANTOM_ADDR=f"127.0.0.1:{port}", PHANTOM_URL=origin,
                       PHANTOM_UPSTREAM=issuer_up, PHANTOM_UPSTREAM_CLIENT_ID=UPSTREAM_CLIENT,
                       PHANTOM_UPSTREAM_CLIENT_SECRET=UPSTREAM_SECRET,
                       PHANTOM_SIGNING_KEY=f"k1:{SIGNING_KEY}", PHANTOM_STATE_KEY=STATE_KEY, PHANTOM_REDIS=f"redis://127.0.0.1:{port_r}")
            return spawn(f"node-{name}", [signin_bin], env=env)
        nodes = {"a": node("a", port_a), "b": node("b", port_b)}
        cfg = os.path.join(work, "haproxy.cfg")
        with open(cfg, "w") as f:
            f.write(f"""global
    maxconn 256
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
frontend front
    bind 127.0.0.1:{front}
    default_backend nodes
backend nodes
    balance roundrobin
    option http-server-close
    use-server a if {{ req.hdr(x-route-to) -m str a }}
    use-server b if {{ req.hdr(x-route-to) -m str b }}
    http-response set-header X-Served-By %[srv_name]
    server a 127.0.0.1:{port_a}
    server b 127.0.0.1:{port_b}
""")
        spawn("haproxy", ["haproxy", "-db", "-f", cfg])
        up = all(wait_port(p, proc) for p, proc in ((port_a, nodes["a"]), (port_b, nodes["b"]))) and wait_port(front)
        if not check(up, "two signin nodes on one Redis behind HAProxy"):
            return

        metadata = json.loads(fetch("GET", f"{origin}/.well-known/oauth-authorization-server")[2])
        check(metadata.get("issuer") == origin and metadata.get("client_id_metadata_document_supported") is True,
              f"the authorization server's metadata names this issuer and CIMD ({metadata.get('issuer')})")

        def register(redirect_uris, name="harness client"):
            status, _, body = fetch("POST", f"{origin}/register", headers={"content-type": "application/json"},
                                   body=json.dumps({"redirect_uris": redirect_uris, "client_name": name,
                                                    "token_endpoint_auth_method": "none"}).encode())
            return json.loads(body)["client_id"] if status == 201 else None

        # 1. The official suite's authorization mode.
        callback_port = free_port()
        client_id = register([f"http://127.0.0.1:{callback_port}/callback"], "conformance")
        check(client_id is not None, "a public client registered for the conformance suite")
        suite = subprocess.Popen(
            ["node", os.path.join(CONFORMANCE, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
             "authorization", "--url", origin, "--client-id", client_id, "--port", str(callback_port),
             "-o", os.path.join(work, "conformance")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=work)
        out, report = [], None
        for line in suite.stdout:
            out.append(line)
            if line.startswith(f"{metadata.get('authorization_endpoint')}?") and report is None:
                try:
                    report = browser.sign_in(line.strip(), login="conformance", nodes=["a", "b", "b"],
                                             log=lambda m: None)
                except browser.Refused as e:
                    report = {"error": str(e)}
        suite.wait(timeout=60)
        text = "".join(out)
        printed.append(text)
        checks = []
        for folder, _, files in os.walk(os.path.join(work, "conformance")):
            if "checks.json" in files:
                with open(os.path.join(folder, "checks.json")) as f:
                    checks.extend(json.load(f))
        statuses = {}
        for c in checks:
            statuses[c["status"]] = statuses.get(c["status"], 0) + 1
        if not check(suite.returncode == 0 and checks and set(statuses) == {"SUCCESS"},
                     f"conformance authorization mode (0.2.0-alpha.12, --client-id): {len(checks)} checks, {statuses} "
                     f"({', '.join(c['id'] + ' ' + c['status'] for c in checks)})"):
            print(text[-3000:], f"browser: {report}")

        # 2. Real clients.
        sdk_env = dict(os.environ, SDK_DIR=CONFORMANCE)
        ts = subprocess.run(["node", os.path.join(HERE, "client.mjs"), resource, "whoami", "--login", "ts-user"],
                            capture_output=True, text=True, env=sdk_env, timeout=120)
        printed.extend([ts.stdout, ts.stderr])
        check(ts.returncode == 0 and "ts-user" in ts.stdout,
              f"the TypeScript SDK's OAuth client signs in and calls the scoped tool whoami, notes:read ({ts.stdout.strip()[:200] or ts.stderr[-300:]})")
        py = subprocess.run([PYTHON, os.path.join(HERE, "py_client.py"), resource, "whoami", "--login", "py-user"],
                            capture_output=True, text=True, timeout=120)
        printed.extend([py.stdout, py.stderr])
        check(py.returncode == 0 and "py-user" in py.stdout,
              f"the Python mcp client's OAuth signs in and calls the scoped tool whoami, notes:read ({py.stdout.strip()[:200] or py.stderr[-300:]})")
        tokens = os.path.join(work, "tokens.json")
        login = subprocess.Popen([cargo_phantom, "login", resource, "--no-browser", "--wait", "60",
                                  "--token-file", tokens], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        url = None
        for line in login.stderr:
            printed.append(line)
            if line.startswith("  http"):
                url = line.strip()
                break
        agent = "no URL"
        if url:
            try:
                agent = browser.sign_in(url, login="rust-user", log=lambda m: None)
            except browser.Refused as e:
                agent = str(e)
        out, err = login.communicate(timeout=90)
        printed.extend([out, err])
        call = subprocess.run([cargo_phantom, "call", "whoami", resource, "--token-file", tokens],
                              capture_output=True, text=True, timeout=60)
        printed.extend([call.stdout, call.stderr])
        check(login.returncode == 0 and call.returncode == 0 and "rust-user" in call.stdout,
              f"`cargo phantom login` + `call` sign in and call the scoped tool whoami, notes:read (login {login.returncode}, call {call.returncode}: {call.stdout.strip()[:120] or call.stderr[-200:]})")

        # 3. Two nodes, each step on the node the test picks.
        listener = Listener()
        client_id = register([listener.uri], "two nodes")
        verifier, challenge = pkce()
        state = secrets.token_urlsafe(16)
        query = urllib.parse.urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": listener.uri,
                                        "state": state, "code_challenge": challenge, "code_challenge_method": "S256",
                                        "scope": "notes:read", "resource": resource})
        report = browser.sign_in(f"{metadata['authorization_endpoint']}?{query}", login="node-user",
                                 nodes=["a", "b", "b"], log=lambda m: None)
        served = [node_ for _, node_ in report["served"]]
        check(served[:3] == ["a", "b", "b"] and report["consent_page"],
              f"the authorization request on node a, the callback and the consent on node b ({report['served']})")
        status, headers, body = fetch("POST", metadata["token_endpoint"], headers={"X-Route-To": "b"}, form={
            "grant_type": "authorization_code", "code": listener.got.get("code", ""), "redirect_uri": listener.uri,
            "client_id": client_id, "code_verifier": verifier})
        answer = json.loads(body) if body.startswith("{") else {}
        secrets_seen.extend(v for k, v in answer.items() if k in ("access_token", "refresh_token"))
        check(status == 200 and headers.get("X-Served-By") == "b" and "access_token" in answer
              and headers.get("Cache-Control") == "no-store",
              f"the token from node b (HTTP {status}, {headers.get('X-Served-By')}, {sorted(answer)})")
        for name in ("a", "b"):
            status, headers, body = modern_call(resource, answer.get("access_token"), "whoami", node=name)
            check(status == 200 and headers.get("X-Served-By") == name and "node-user" in body,
                  f"the MCP call on node {name} with the token node b signed (HTTP {status}, {body[:160]})")

        # 4. Consent: refused, remembered, asked again.
        def sign_in(scope, refuse=False, login_name="consent-user"):
            v, c = pkce()
            q = urllib.parse.urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": listener.uri,
                                        "state": secrets.token_urlsafe(16), "code_challenge": c,
                                        "code_challenge_method": "S256", "scope": scope})
            return browser.sign_in(f"{metadata['authorization_endpoint']}?{q}", login=login_name, refuse=refuse,
                                   log=lambda m: None), v
        refused, _ = sign_in("notes:read", refuse=True)
        check(refused["error"] == "access_denied" and "code" not in refused["params"],
              f"a refused consent: error=access_denied, no code ({refused['params']})")
        first, _ = sign_in("notes:read")
        again, _ = sign_in("notes:read")
        wider, _ = sign_in("notes:read notes:write")
        check(first["consent_page"] and not again["consent_page"] and wider["consent_page"],
              f"consent asked, then remembered, then asked again for a new scope "
              f"({first['consent_page']}, {again['consent_page']}, {wider['consent_page']})")
        status, _, body = fetch("POST", f"{issuer_up}/token", headers={
            "Authorization": "Basic " + base64.b64encode(f"{MACHINE}:{MACHINE_SECRET}".encode()).decode()},
            form={"grant_type": "client_credentials", "scope": "api"})
        foreign = json.loads(body).get("access_token", "") if status == 200 else ""
        secrets_seen.append(foreign)
        status, headers, _ = modern_call(resource, foreign, "whoami")
        check(foreign.count(".") == 2 and status == 401 and "invalid_token" in (headers.get("WWW-Authenticate") or ""),
              f"the identity provider's own token (a JWT for its resource) is refused at /mcp (HTTP {status})")

        # 5. The identity provider down mid-flow: it signs the user in, then is stopped before
        # its redirect back reaches phantom, whose code exchange then finds nobody.
        def stop_provider():
            provider.send_signal(signal.SIGTERM)
            provider.wait(timeout=10)
        v, c = pkce()
        q = urllib.parse.urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": listener.uri,
                                    "state": "mid", "code_challenge": c, "code_challenge_method": "S256",
                                    "scope": "notes:read"})
        try:
            down = browser.sign_in(f"{metadata['authorization_endpoint']}?{q}", login="mid-flow",
                                   before_callback=stop_provider, log=lambda m: None)
        except browser.Refused as e:
            down = {"error": str(e), "params": []}
        check(down.get("error") in ("temporarily_unavailable", "server_error") and "code" not in down.get("params", []),
              f"the identity provider gone before the callback: the client gets {down.get('error')}, no code")
        status, headers, body = fetch("GET", f"{origin}/callback?code=forged&state=unknown")
        check(status >= 400 and "Location" not in headers,
              f"a callback with an unknown state: an error page, no redirect (HTTP {status})")
        provider = start_provider()
        provider.stdout.readline()
        back, _ = sign_in("notes:read", login_name="after-outage")
        check("code" in back["params"], f"the identity provider back: a sign-in succeeds ({back['params']})")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        logs = ""
        for name in sorted(os.listdir(work)):
            if name.endswith(".log"):
                with open(os.path.join(work, name), errors="replace") as f:
                    logs += f.read()
        everything = logs + "".join(printed)
        found = [s[:6] + "…" for s in secrets_seen if s and s in everything]
        check(not found and "code=" not in logs and "code_verifier" not in logs,
              f"no secret, code, verifier or token in anything printed or logged ({found}; {len(logs)} bytes of logs)")
        if failures:
            for name in ("node-a.log", "node-b.log", "provider.log", "haproxy.log"):
                path = os.path.join(work, name)
                if os.path.exists(path):
                    print(f"--- {name} (last 30 lines) ---")
                    with open(path, errors="replace") as f:
                        print("".join(f.readlines()[-30:]))
    print(f"{'all checks passed' if not failures else f'{len(failures)} failed'} in {time.monotonic() - started:.0f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
