#!/usr/bin/env python3
"""Self-test of the identity-provider half of the OAuth harness, with no phantom code involved.

Usage: python3 tests/harness/oauth/selftest.py   (PHANTOM_CACHE overrides the .cache directory)

Installs oidc-provider if needed (install.sh), starts provider.mjs for a made-up resource, and
plays the client the way `cargo phantom login` will: dynamic registration of a native public
client, an authorization URL with PKCE S256, `resource`, scopes `mcp:tools offline_access` and
state, a loopback listener catching the redirect, user_agent.py as the browser, the code
exchange, a refresh, a refresh failing while the control hook is on, and a refusal. Prints one
line per check and exits 0 only if all hold. Tokens and codes are never printed.

Standard library only.
"""

import base64
import hashlib
import http.server
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
CACHE = os.environ.get("PHANTOM_CACHE") or os.path.join(ROOT, ".cache")
RESOURCE = "http://127.0.0.1:4000/mcp"
TTL = 120

failures = []


def check(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)
    return ok


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def http_json(url, form=None, body=None):
    """(status, parsed JSON body) of a GET, a form POST or a JSON POST."""
    headers = {"Accept": "application/json"}
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, {"raw": raw.decode("utf-8", "replace")[:200]}


def control(issuer, route):
    req = urllib.request.Request(f"{issuer}/__control/{route}", data=b"", method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status


def jwt_claims(token):
    """The payload of a JWT, not verified; {} if it is not one."""
    parts = token.split(".")
    return json.loads(unb64url(parts[1])) if len(parts) == 3 else {}


def rs256_valid(token, jwks):
    """Verifies an RS256 JWT signature against a JWKS (RSASSA-PKCS1-v1_5 with SHA-256)."""
    head, payload, sig = token.split(".")
    header = json.loads(unb64url(head))
    keys = [k for k in jwks["keys"] if k.get("kid") == header.get("kid") and k.get("kty") == "RSA"]
    if header.get("alg") != "RS256" or not keys:
        return False
    n = int.from_bytes(unb64url(keys[0]["n"]), "big")
    e = int.from_bytes(unb64url(keys[0]["e"]), "big")
    k = (n.bit_length() + 7) // 8
    em = pow(int.from_bytes(unb64url(sig), "big"), e, n).to_bytes(k, "big")
    digest_info = bytes.fromhex("3031300d060960864801650304020105000420")
    digest = hashlib.sha256(f"{head}.{payload}".encode()).digest()
    t = digest_info + digest
    return em == b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t


class Loopback(http.server.BaseHTTPRequestHandler):
    """The client's loopback redirect listener: records each /callback query."""

    received = []

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path != "/callback":
            self.send_error(404)
            return
        Loopback.received.append(dict(urllib.parse.parse_qsl(url.query)))
        body = b"You may close this window.\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def start_provider(package_dir, *extra):
    node = os.path.join(CACHE, "node22", "node_modules", ".bin", "node")
    env = dict(os.environ, OIDC_PROVIDER_DIR=package_dir)
    log = tempfile.TemporaryFile(mode="w+")  # its stderr: notices, warnings, errors
    proc = subprocess.Popen(
        [node, os.path.join(HERE, "provider.mjs"), "--resource", RESOURCE, "--ttl", str(TTL), "--port", "0", *extra],
        env=env, stdout=subprocess.PIPE, stderr=log, text=True,
    )
    line = proc.stdout.readline().strip()
    if not line.startswith("ready "):
        proc.kill()
        proc.wait()
        log.seek(0)
        sys.exit(f"selftest: provider did not start (stdout: {line!r})\n{log.read()}")
    return proc, line.split(" ", 1)[1]


def authorize(meta, client_id, redirect_uri, refuse=False, **extra):
    """Runs the browser part; returns (user_agent exit code, its stdout, the callback query, state, verifier)."""
    verifier = b64url(secrets.token_bytes(32))
    state = b64url(secrets.token_bytes(16))
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": "mcp:tools offline_access",
        "state": state,
        "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()),
        "code_challenge_method": "S256",
        "resource": RESOURCE,
        **extra,
    }
    url = meta["authorization_endpoint"] + "?" + urllib.parse.urlencode(params)
    before = len(Loopback.received)
    cmd = [sys.executable, os.path.join(HERE, "user_agent.py"), url] + (["--refuse"] if refuse else [])
    ua = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if ua.returncode != 0:
        sys.stderr.write(ua.stderr)
    got = Loopback.received[before] if len(Loopback.received) > before else {}
    return ua.returncode, ua.stdout.strip(), got, state, verifier


def register(meta, redirect_uris):
    """Dynamic registration of a native public client, as `cargo phantom login` does it."""
    return http_json(meta["registration_endpoint"], body={
        "application_type": "native",
        "client_name": "phantom selftest",
        "redirect_uris": redirect_uris,
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    })


def exchange(meta, client_id, redirect_uri, got, verifier):
    return http_json(meta["token_endpoint"], form={
        "grant_type": "authorization_code", "code": got.get("code", ""), "redirect_uri": redirect_uri,
        "client_id": client_id, "code_verifier": verifier, "resource": RESOURCE,
    })


def refresh_grant(meta, client_id, refresh, resource=RESOURCE):
    form = {"grant_type": "refresh_token", "refresh_token": refresh or "", "client_id": client_id}
    if resource:
        form["resource"] = resource
    return http_json(meta["token_endpoint"], form=form)


def main():
    started = time.monotonic()
    package_dir = subprocess.run(
        ["bash", os.path.join(HERE, "install.sh")], check=True, capture_output=True, text=True,
    ).stdout.strip().splitlines()[-1]

    listener = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Loopback)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    redirect_uri = f"http://127.0.0.1:{listener.server_address[1]}/callback"

    proc, issuer = start_provider(package_dir)
    try:
        status, meta = http_json(issuer + "/.well-known/openid-configuration")
        check(status == 200 and meta["issuer"] == issuer, f"discovery at {issuer}/.well-known/openid-configuration")
        status, rfc8414 = http_json(issuer + "/.well-known/oauth-authorization-server")
        check(status == 200 and rfc8414 == meta, "the same metadata at /.well-known/oauth-authorization-server (RFC 8414)")
        check("offline_access" in meta.get("scopes_supported", []), "scopes_supported lists offline_access")
        check("S256" in meta.get("code_challenge_methods_supported", []), "S256 PKCE supported")
        status, jwks = http_json(meta["jwks_uri"])
        check(status == 200 and len(jwks["keys"]) == 1 and "d" not in jwks["keys"][0], "jwks_uri serves one public key")

        status, client = register(meta, ["http://127.0.0.1/callback"])
        check(status == 201 and "client_id" in client and "client_secret" not in client,
              f"dynamic registration of a native public client (HTTP {status})")
        client_id = client["client_id"]

        rc, out, got, state, verifier = authorize(meta, client_id, redirect_uri)
        check(rc == 0 and out.startswith("delivered "), f"user agent: {out or 'exit ' + str(rc)}")
        check("code" in got and got.get("state") == state and got.get("iss") == issuer,
              "redirect to the loopback listener (registered without a port) carries code, state, iss")

        status, tokens = exchange(meta, client_id, redirect_uri, got, verifier)
        check(status == 200, f"code exchange with resource (HTTP {status}{' ' + tokens.get('error', '') if status != 200 else ''})")
        access = tokens.get("access_token", "")
        parts = access.split(".")
        check(len(parts) == 3, "access token is a JWT")
        claims = jwt_claims(access)
        check(claims.get("aud") == RESOURCE, f"aud = {claims.get('aud')}")
        check(claims.get("iss") == issuer, f"iss = {claims.get('iss')}")
        check("mcp:tools" in claims.get("scope", "").split(), f"scope = {claims.get('scope')}")
        check(claims.get("exp", 0) - claims.get("iat", 0) == TTL, f"lifetime = {claims.get('exp', 0) - claims.get('iat', 0)} s")
        check(len(parts) == 3 and rs256_valid(access, jwks), "signature verifies with the key from jwks_uri")
        check(tokens.get("token_type") == "Bearer" and "mcp:tools" in tokens.get("scope", ""),
              f"token response: token_type {tokens.get('token_type')}, scope {tokens.get('scope')}")
        refresh = tokens.get("refresh_token")
        check(bool(refresh), "refresh token issued")

        status, again = refresh_grant(meta, client_id, refresh)
        new_access = again.get("access_token", "")
        new_claims = jwt_claims(new_access)
        check(status == 200 and new_access and new_access != access and new_claims.get("aud") == RESOURCE,
              f"refresh with resource gives a new JWT for the resource (HTTP {status})")
        rotated = again.get("refresh_token")
        check(bool(rotated) and rotated != refresh, "refresh token rotated (public client)")
        refresh = rotated or refresh

        status, plain = refresh_grant(meta, client_id, refresh, resource=None)
        plain_claims = jwt_claims(plain.get("access_token", ""))
        check(status == 200 and plain_claims.get("aud") == RESOURCE,
              f"refresh without resource gives a JWT for the granted resource (HTTP {status})")
        refresh = plain.get("refresh_token") or refresh

        control(issuer, "fail-token")
        status, body = refresh_grant(meta, client_id, refresh)
        check(status == 503 and body.get("error") == "temporarily_unavailable", f"refresh with fail-token on: HTTP {status}")
        control(issuer, "ok")
        status, body = refresh_grant(meta, client_id, refresh)
        check(status == 200 and "access_token" in body, f"refresh after /__control/ok: HTTP {status} (the 503 spent nothing)")
        refresh = body.get("refresh_token") or refresh
        control(issuer, "fail-token?count=1")
        first, _ = refresh_grant(meta, client_id, refresh)
        second, body = refresh_grant(meta, client_id, refresh)
        check((first, second) == (503, 200), f"fail-token?count=1: HTTP {first}, then HTTP {second}")
        refresh = body.get("refresh_token") or refresh

        status, other = refresh_grant(meta, client_id, refresh, resource="http://127.0.0.1:4000/other")
        check(status == 400 and other.get("error") == "invalid_target", f"another resource refused ({other.get('error')})")

        status, body = refresh_grant(meta, client_id, refresh)
        check(status == 400 and body.get("error") == "invalid_grant",
              "the refresh token is spent by that refused refresh (oidc-provider rotates before it checks the resource)")

        status, client2 = register(meta, ["http://127.0.0.1:9/callback"])
        rc, out, got, state, _ = authorize(meta, client2.get("client_id", ""), redirect_uri, refuse=True)
        check(rc == 0 and "error=access_denied" in out, f"user agent --refuse: {out or 'exit ' + str(rc)}")
        check(got.get("error") == "access_denied" and got.get("state") == state and "code" not in got,
              "refusal redirects with error=access_denied to the loopback listener (registered with another port)")
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    # oidc-provider's own rule, kept with --strict-offline-access: offline_access (and so a
    # refresh token) only with prompt=consent.
    proc, issuer = start_provider(package_dir, "--strict-offline-access")
    try:
        _, meta = http_json(issuer + "/.well-known/openid-configuration")
        _, client = register(meta, ["http://127.0.0.1/callback"])
        for extra, want in (({}, False), ({"prompt": "consent"}, True)):
            rc, out, got, _, verifier = authorize(meta, client.get("client_id", ""), redirect_uri, **extra)
            status, tokens = exchange(meta, client.get("client_id", ""), redirect_uri, got, verifier)
            check(rc == 0 and status == 200 and bool(tokens.get("refresh_token")) == want,
                  f"--strict-offline-access, {'prompt=consent' if extra else 'no prompt'}: "
                  f"refresh token {'issued' if tokens.get('refresh_token') else 'not issued'}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        listener.shutdown()

    elapsed = time.monotonic() - started
    print(f"{'all checks passed' if not failures else f'{len(failures)} check(s) failed'} in {elapsed:.1f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
