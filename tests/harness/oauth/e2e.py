#!/usr/bin/env python3
"""`cargo phantom login` end to end against a real identity provider.

Usage: python3 e2e.py CARGO_PHANTOM NOTES GATEWAY   (the binaries; run.sh builds them)

oidc-provider (provider.mjs, access tokens of 3 s as JWTs for the notes server, refresh tokens
only with prompt=consent, as OpenID Connect Core asks) is the authorization server of
examples/notes.rs, which finds the provider's keys from its issuer URL (`--issuer`; with no
clock-skew leeway, so an expired token is refused at once). The user's
browser is user_agent.py. Checked, in order:

1. `call` without a sign-in fails and says to run `cargo phantom login`.
2. `login --no-browser` prints the URL; the browser signs in; the tokens land in the token file
   (owner-only), with a refresh token; `call whoami` answers as the signed-in user.
3. After the access token expired, `call list_notes` succeeds through a refresh: the file holds
   another access token, and another refresh token (the provider rotates them).
   The gateway (examples/gateway.rs), signed in to the notes server with its own token file
   (`login --token-file`, `--upstream-tokens`), serves `notes_whoami` to a front client holding
   the gateway's own front token: the notes server answers as the gateway's signed-in user, so
   the front token did not reach it; after the access token expired, the gateway refreshed its
   tokens in its file and the call succeeds.
4. The provider's token endpoint answering 503 to refreshes: `call` fails within its timeout,
   naming the refresh's failure and `cargo phantom login`; once it answers again, `call`
   succeeds with the same sign-in.
5. `logout` forgets the server; a sign-in whose consent the user refuses ends with the
   authorization step and `access_denied`, and keeps nothing.
6. The provider stopped in the middle of a sign-in: `login` ends, saying no redirect came.
7. The provider gone when a refresh is due: `call` fails promptly with a clear error.
8. The provider gone before `login`: it fails at discovery, promptly.
9. Two gateway nodes sharing one Redis (`--redis`), each signed in to the notes server with the
   client credentials grant (`--upstream-client-credentials`, a client the provider registered
   for the gateway; tokens of 8 s): the second node mounts the server with the first's token
   (one grant between them); both serve `notes_whoami` as the gateway's client, not as the front
   client; after the token expired, calls through both nodes at once cost one grant. The
   provider stopped: a front call fails promptly with the gateway's own error naming the
   authorization step; the provider back (same port and keys): the next call succeeds. Then two
   nodes whose Redis is seeded from one `login --token-file` (`--upstream-tokens`): after the
   token expired, calls through both at once cost one refresh.
10. No access token, refresh token, client secret or code appears in anything the commands
   printed, nor in the gateways' logs at trace level.

Prints one line per check and exits 0 only if all hold.
"""

import concurrent.futures
import json
import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TTL = 3
MACHINE_TTL = 8
MACHINE_CLIENT = "gateway-machine"
MACHINE_SECRET = "machine-" + os.urandom(12).hex()
SCOPES = "notes:read notes:write notes:admin"

failures = []
printed = []  # everything the commands printed, searched for secrets at the end


def check(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args, timeout=60):
    """(exit code, stdout, stderr, seconds) of one command."""
    started = time.monotonic()
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", e.stdout or "", e.stderr or ""
        out, err = (x.decode() if isinstance(x, bytes) else x for x in (out, err))
    printed.extend([out, err])
    return code, out, err, time.monotonic() - started


def post(url):
    urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=5).read()


def kept(token_file, resource):
    try:
        with open(token_file) as f:
            return json.load(f).get(resource)
    except FileNotFoundError:
        return None


def login(cargo_phantom, resource, *agent_args, wait=30, before_agent=None, token_file=None):
    """Runs `login --no-browser`, drives user_agent.py through the URL it prints; (exit code,
    stderr, the user agent's exit code)."""
    extra = ["--token-file", token_file] if token_file else []
    proc = subprocess.Popen(
        [cargo_phantom, "login", resource, "--no-browser", "--wait", str(wait), *extra],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    lines, url = [], None
    deadline = time.monotonic() + 20
    while url is None and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("  http"):
            url = line.strip()
    agent = None
    if url is not None:
        if before_agent:
            before_agent()
        agent = subprocess.run([sys.executable, os.path.join(HERE, "user_agent.py"), url,
                                *agent_args], capture_output=True, text=True, timeout=60)
        printed.extend([agent.stdout, agent.stderr])
        agent = agent.returncode
    try:
        out, err = proc.communicate(timeout=wait + 30)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        code = "timeout"
    err = "".join(lines) + err
    printed.extend([out, err])
    return code, err, agent


def grants(issuer):
    """The provider's count of tokens issued, by grant type."""
    with urllib.request.urlopen(f"{issuer}/__control/grants", timeout=5) as answer:
        return json.load(answer)


def wait_port(port, proc, what):
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                print(f"FAIL {what} did not start", flush=True)
                return False
            time.sleep(0.1)


def main():
    cargo_phantom, notes, gateway_bin = sys.argv[1], sys.argv[2], sys.argv[3]
    provider_dir = subprocess.run(["bash", os.path.join(HERE, "install.sh")], check=True,
                                  capture_output=True, text=True).stdout.strip()
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    scratch = tempfile.mkdtemp(prefix="phantom-oauth-e2e-")
    token_file = os.path.join(scratch, "tokens.json")
    os.environ["PHANTOM_TOKEN_FILE"] = token_file
    jwks = os.path.join(scratch, "provider-keys.json")

    def start_provider(port=0, ttl=TTL):
        """The provider, and its issuer (None if it did not start); the same keys each time."""
        proc = subprocess.Popen(
            ["node", os.path.join(HERE, "provider.mjs"), "--resource", resource, "--ttl", str(ttl),
             "--scope", SCOPES, "--strict-offline-access", "--port", str(port), "--jwks", jwks,
             "--machine-client", f"{MACHINE_CLIENT}:{MACHINE_SECRET}"],
            env={**os.environ, "OIDC_PROVIDER_DIR": provider_dir},
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = proc.stdout.readline().split()
        return proc, (ready[1] if ready[:1] == ["ready"] else None)

    provider, issuer = start_provider()
    server = gateway = redis = None
    nodes = []
    try:
        if issuer is None:
            print("FAIL the provider did not start", flush=True)
            return 1
        server = subprocess.Popen(
            [notes, "--addr", f"127.0.0.1:{port}", "--issuer", issuer, "--leeway", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    print("FAIL the notes server did not start", flush=True)
                    return 1
                time.sleep(0.1)

        call = lambda tool, *extra, timeout=60: run(  # noqa: E731
            [cargo_phantom, "call", tool, resource, "--json", *extra], timeout)

        # 1.
        code, _, err, _ = call("whoami")
        check(code == 1 and "cargo phantom login" in err,
              "without a sign-in, `call` fails and says to run `cargo phantom login`")

        # 2.
        code, err, agent = login(cargo_phantom, resource)
        check(agent == 0 and code == 0 and "signed in to" in err,
              f"`login --no-browser`: the browser signs in, login exits 0 (exit {code}, browser {agent})")
        first = kept(token_file, resource) or {}
        check(bool(first.get("access_token")) and bool(first.get("refresh_token")),
              "the token file holds an access token and a refresh token")
        check(stat.S_IMODE(os.stat(token_file).st_mode) == 0o600,
              "the token file is its owner's only (0600)")
        code, out, err, _ = call("whoami")
        identity = json.loads(out or "{}").get("structuredContent", {}) if code == 0 else {}
        check(code == 0 and identity.get("subject") == "alice"
              and "notes:read" in identity.get("scopes", []),
              f"`call whoami` answers as the signed-in user with the granted scopes ({identity})")

        # 3.
        time.sleep(TTL + 1)
        code, _, err, _ = call("list_notes")
        second = kept(token_file, resource) or {}
        check(code == 0, f"after the access token expired, `call list_notes` succeeds (exit {code})")
        check(second.get("access_token") not in (None, first.get("access_token"))
              and second.get("refresh_token") not in (None, first.get("refresh_token")),
              "it refreshed: another access token and a rotated refresh token in the file")

        # The gateway, signed in as itself.
        gateway_tokens = os.path.join(scratch, "gateway.json")
        code, err, agent = login(cargo_phantom, resource, "--login", "gateway-bot",
                                 token_file=gateway_tokens)
        check(code == 0 and kept(gateway_tokens, resource),
              f"the gateway signed in with its own token file (exit {code})")
        front_tokens = os.path.join(scratch, "front.json")
        with open(front_tokens, "w") as f:
            json.dump({"tokens": {"front-token": {"principal": "fred", "scopes": []}}}, f)
        gateway_port = free_port()
        gateway_url = f"http://127.0.0.1:{gateway_port}/mcp"
        gateway = subprocess.Popen(
            [gateway_bin, "--addr", f"127.0.0.1:{gateway_port}", "--upstream", resource,
             "--upstream-tokens", gateway_tokens, "--prefix", "notes", "--tokens", front_tokens],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait_port(gateway_port, gateway, "the gateway"):
            before = (kept(gateway_tokens, resource) or {}).get("access_token")
            time.sleep(TTL + 1)
            code, out, err, _ = run([cargo_phantom, "call", "notes_whoami", gateway_url, "--json",
                                     "--bearer", "front-token"])
            identity = json.loads(out or "{}").get("structuredContent", {}) if code == 0 else {}
            check(code == 0 and identity.get("subject") == "gateway-bot",
                  f"through the gateway, the notes server answers as the gateway's user, not the "
                  f"front client's ({identity}, exit {code})")
            after = (kept(gateway_tokens, resource) or {}).get("access_token")
            check(after not in (None, before),
                  "the gateway refreshed its expired token in its own file")

        # 4.
        post(f"{issuer}/__control/fail-token")
        time.sleep(TTL + 1)
        code, _, err, took = call("whoami", "--timeout", "30", timeout=60)
        check(code == 1 and "503" in err and "the refresh failed" in err
              and "cargo phantom login" in err and took < 30,
              f"a 503 on refresh: `call` fails in {took:.1f} s naming the refresh and `cargo phantom login`")
        post(f"{issuer}/__control/ok")
        code, _, err, _ = call("whoami")
        check(code == 0, f"the token endpoint back: `call` succeeds with the same sign-in (exit {code})")

        # 5.
        code, _, err, _ = run([cargo_phantom, "logout", resource])
        check(code == 0 and kept(token_file, resource) is None,
              "`logout` forgets the server's tokens")
        code, err, agent = login(cargo_phantom, resource, "--refuse")
        check(code == 1 and "authorization failed at authorization" in err
              and "access_denied" in err and kept(token_file, resource) is None,
              "a refused consent ends at the authorization step with access_denied, nothing kept")
        code, err, agent = login(cargo_phantom, resource)
        check(code == 0, f"signed in again (exit {code})")

        # 6.
        def stop_provider():
            provider.terminate()
            provider.wait(timeout=10)

        started = time.monotonic()
        # Another token file, so that the sign-in kept above stays for 7.
        code, err, agent = login(cargo_phantom, resource, wait=5, before_agent=stop_provider,
                                 token_file=os.path.join(scratch, "other.json"))
        took = time.monotonic() - started
        check(agent != 0 and code == 1 and "no redirect came" in err and took < 30,
              f"the provider stopped mid-sign-in: `login` ends in {took:.1f} s, saying no redirect came")

        # 7.
        time.sleep(TTL + 1)
        code, _, err, took = call("whoami", "--timeout", "30", timeout=60)
        check(code == 1 and "refresh failed" in err and took < 30,
              f"the provider gone when a refresh is due: `call` fails in {took:.1f} s, naming the refresh")

        # 8.
        code, _, err, took = run([cargo_phantom, "login", resource, "--no-browser", "--wait", "5",
                                  "--token-file", os.path.join(scratch, "other.json")])
        check(code == 1 and "discovery" in err and took < 30,
              f"the provider gone before `login`: it fails at discovery in {took:.1f} s")

        # 9.
        redis_port = free_port()
        redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        issuer_port = int(issuer.rsplit(":", 1)[1])
        provider, back = start_provider(issuer_port, MACHINE_TTL)
        machine_file = os.path.join(scratch, "machine.json")
        with open(machine_file, "w") as f:
            json.dump({"client_id": MACHINE_CLIENT, "client_secret": MACHINE_SECRET}, f)
        os.chmod(machine_file, 0o600)
        logs = []

        def two_nodes(*sign_in):
            """Two gateway nodes on the Redis, in front of the notes server signed in by
            `sign_in`; their ports (none if they did not start)."""
            ports, started = [free_port(), free_port()], []
            for port_ in ports:
                logs.append(os.path.join(scratch, f"gateway-{len(logs)}.log"))
                with open(logs[-1], "w") as out:
                    started.append(subprocess.Popen(
                        [gateway_bin, "--addr", f"127.0.0.1:{port_}", "--upstream", resource,
                         *sign_in, "--prefix", "notes", "--tokens", front_tokens,
                         "--redis", f"redis://127.0.0.1:{redis_port}"],
                        stdout=subprocess.DEVNULL, stderr=out,
                        env={**os.environ, "RUST_LOG": "trace"}))
                nodes.append(started[-1])
                if not wait_port(port_, started[-1], "a gateway node"):
                    return []
            return ports

        def whoami(port_, timeout=60):
            code, out, err, took = run(
                [cargo_phantom, "call", "notes_whoami", f"http://127.0.0.1:{port_}/mcp",
                 "--json", "--bearer", "front-token", "--timeout", "30"], timeout)
            identity = json.loads(out or "{}").get("structuredContent", {}) if code == 0 else {}
            return code, identity, err, took

        def at_once(ports):
            with concurrent.futures.ThreadPoolExecutor(len(ports)) as pool:
                return list(pool.map(whoami, ports))

        def stop_nodes():
            """Stops the nodes; the tokens they kept in Redis, removed from it."""
            for node in nodes:
                if node.poll() is None:
                    node.terminate()
                    node.wait(timeout=10)
            key = f"phantom:{{t:{resource}}}tokens"
            got = subprocess.run(["redis-cli", "-p", str(redis_port), "--raw", "GET", key],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
            subprocess.run(["redis-cli", "-p", str(redis_port), "DEL", key],
                           capture_output=True, timeout=10)
            return json.loads(got) if got else None

        redis_tokens = []
        ports = (back == issuer and wait_port(redis_port, redis, "redis-server")
                 and two_nodes("--upstream-client-credentials", machine_file))
        if ports:
            check(grants(issuer).get("client_credentials") == 1,
                  f"two gateway nodes mounted the server with one client credentials grant between "
                  f"them, shared in Redis ({grants(issuer)})")
            answers = [whoami(p) for p in ports]
            check(all(code == 0 and identity.get("subject") == MACHINE_CLIENT
                      for code, identity, _, _ in answers),
                  f"through each node, the notes server answers as the gateway's client, not the "
                  f"front client's ({[(a[0], a[1].get('subject')) for a in answers]})")
            time.sleep(MACHINE_TTL + 1)
            answers = at_once(ports)
            check(all(code == 0 for code, _, _, _ in answers)
                  and grants(issuer).get("client_credentials") == 2,
                  f"after the token expired, calls through both nodes at once cost one grant "
                  f"({[a[0] for a in answers]}, {grants(issuer)})")

            provider.terminate()
            provider.wait(timeout=10)
            time.sleep(MACHINE_TTL + 1)
            code, _, err, took = whoami(ports[0])
            check(code == 1 and "-32603" in err and "authorization failed at" in err
                  and took < 30,
                  f"the provider down: a front call fails in {took:.1f} s with the gateway's own "
                  f"error naming the authorization step ({err.strip()[:300]!r})")
            provider, back = start_provider(issuer_port, MACHINE_TTL)
            code, identity, err, _ = whoami(ports[0])
            check(back == issuer and code == 0 and identity.get("subject") == MACHINE_CLIENT,
                  f"the provider back: the next front call succeeds (exit {code})")
        else:
            check(False, "two gateway nodes started on one Redis with client credentials")
        kept_in_redis = stop_nodes()
        check(bool(kept_in_redis), "the gateways' tokens were kept in Redis")
        redis_tokens.append(kept_in_redis or {})

        # The same with a user's refresh token: signed in once into a file, which seeds Redis.
        bot_tokens = os.path.join(scratch, "gateway-bot.json")
        code, err, agent = login(cargo_phantom, resource, "--login", "gateway-bot",
                                 token_file=bot_tokens)
        ports = code == 0 and two_nodes("--upstream-tokens", bot_tokens)
        if ports:
            before = grants(issuer).get("refresh_token", 0)
            time.sleep(MACHINE_TTL + 1)
            answers = at_once(ports)
            check(all(code == 0 and identity.get("subject") == "gateway-bot"
                      for code, identity, _, _ in answers)
                  and grants(issuer).get("refresh_token", 0) == before + 1,
                  f"two nodes seeded from one sign-in: after the token expired, calls through "
                  f"both at once refresh once ({[a[0] for a in answers]}, {grants(issuer)})")
        else:
            check(False, f"two gateway nodes started on one Redis with a sign-in (login exit {code})")
        redis_tokens.append(stop_nodes() or {})
        redis_tokens.append(kept(bot_tokens, resource) or {})

        # 10.
        secrets = {v for t in (first, second, kept(gateway_tokens, resource) or {}, *redis_tokens)
                   for k, v in t.items()
                   if k in ("access_token", "refresh_token") and v}
        secrets.add(MACHINE_SECRET)
        logged = ""
        for log in logs:
            if os.path.exists(log):
                with open(log) as f:
                    logged += f.read()
        printed.append(logged)
        check("tokens received" in logged and "TRACE" in logged,
              "the gateways logged their grants at trace level (the logs searched below)")
        text = "\n".join(printed)
        leaked = [s[:6] + "…" for s in secrets if s in text]
        codes = re.findall(r"[?&]code=([^&\s]+)", text)
        check(not leaked and not codes,
              f"no token, secret or code in anything printed or logged ({leaked}, {len(codes)} codes)")
        if failures:
            for line in text.splitlines():
                if line.startswith(("error", "       help")):
                    print(f"  | {line}")
    finally:
        for proc in (gateway, *nodes, server, provider, redis):
            if proc and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    print("all checks passed" if not failures else f"{len(failures)} check(s) failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
