"""The Python `mcp` client's OAuth (`OAuthClientProvider`) signing in to a phantom server through
its authorization server, then calling a tool.

Usage: python py_client.py MCP_URL TOOL [--login NAME]

The browser is browser.py beside this file, run in a thread by the redirect handler; the callback
handler takes the code from a loopback listener. Prints one JSON line on stdout: {"tool": the
tool's text, "scope": the granted scope}; exits 1 with the error on stderr. Tokens are never
printed.
"""

import argparse
import asyncio
import http.server
import json
import os
import subprocess
import sys
import threading
import urllib.parse

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

HERE = os.path.dirname(os.path.abspath(__file__))


class Memory:
    def __init__(self):
        self.tokens = self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, info):
        self.client = info


async def run(url, tool, login):
    delivered = {}
    arrived = threading.Event()

    class Callback(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            delivered.update(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"signed in")
            arrived.set()

        def log_message(self, *args):
            pass

    listener = http.server.HTTPServer(("127.0.0.1", 0), Callback)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    redirect = f"http://127.0.0.1:{listener.server_address[1]}/callback"

    async def redirect_handler(authorization_url):
        def browse():
            done = subprocess.run([sys.executable, os.path.join(HERE, "browser.py"), authorization_url,
                                   "--login", login], stdout=subprocess.DEVNULL)
            if done.returncode != 0:
                delivered.setdefault("error", "browser failed")
                arrived.set()
        threading.Thread(target=browse, daemon=True).start()

    async def callback_handler():
        await asyncio.to_thread(arrived.wait, 60)
        if "code" not in delivered:
            raise RuntimeError(f"the sign-in ended with error={delivered.get('error', 'none')}")
        return AuthorizationCodeResult(code=delivered["code"], state=delivered.get("state"),
                                       iss=delivered.get("iss"))

    storage = Memory()
    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(client_name="Python mcp client", redirect_uris=[redirect],
                                            grant_types=["authorization_code", "refresh_token"],
                                            response_types=["code"], token_endpoint_auth_method="none"),
        storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler)
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http_client:
        async with Client(streamable_http_client(url, http_client=http_client)) as client:
            result = await client.call_tool(tool, {})
    listener.shutdown()
    text = "".join(getattr(c, "text", "") for c in result.content)
    return {"tool": text, "is_error": result.is_error, "scope": storage.tokens.scope if storage.tokens else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("tool")
    ap.add_argument("--login", default="alice")
    opts = ap.parse_args()
    try:
        print(json.dumps(asyncio.run(run(opts.url, opts.tool, opts.login))))
    except Exception as e:  # noqa: BLE001 - the harness wants the reason, whatever it is
        print(f"py_client: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
