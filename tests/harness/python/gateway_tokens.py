"""A real MCP client (Python `mcp` 2.3.0) through `examples/gateway` with bearer tokens, the
gateway fronting `@modelcontextprotocol/server-everything` (npm) over stdio.

Usage: python gateway_tokens.py URL [MODE ...]   (modes default to: auto legacy)

The gateway's tokens file (written by run.sh) gives `reader-token` the scope `tools:read` and
`admin-token` both `tools:read` and `tools:write`; `echo` needs `tools:read`, every other tool
`tools:write`. For each mode it checks, over plain HTTP, the 401 of a request without a token and
the 403 `insufficient_scope` challenge of the reader calling `get-sum`; then with `mcp.Client`:
the reader lists server-everything's tools, calls `echo`, and is refused `get-sum` (an MCP error
-32001 naming `tools:write`); the admin calls `get-sum`. Exits non-zero on the first failure.
"""

import httpx2
from harness import check, main, modern_call
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

READER = "reader-token"
ADMIN = "admin-token"


def client(url: str, token: str, mode: str) -> Client:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def text(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def exercise(url: str, mode: str) -> None:
    bare = modern_call(url, None, "echo", {"message": "hi"})
    print(f"[{mode}] no token: {bare.status_code} {bare.headers.get('www-authenticate', '')}")
    check(bare.status_code == 401, f"no token: {bare.status_code}")
    lacking = modern_call(url, READER, "get-sum", {"a": 1, "b": 2})
    challenge = lacking.headers.get("www-authenticate", "")
    print(f"[{mode}] reader get-sum: {lacking.status_code} {challenge}")
    check(lacking.status_code == 403, f"get-sum with tools:read: {lacking.status_code}")
    check(challenge.startswith('Bearer error="insufficient_scope"') and 'scope="tools:write"' in challenge,
          f"challenge {challenge!r}")

    async with client(url, READER, mode) as c:
        print(f"[{mode}] reader: protocol {c.protocol_version}")
        tools = [t.name for t in (await c.list_tools()).tools]
        check("echo" in tools and "get-sum" in tools, f"tools {tools}")
        echoed = text(await c.call_tool("echo", {"message": "through the gateway"}))
        print(f"[{mode}] reader echo: {echoed!r}")
        check("through the gateway" in echoed, f"echo {echoed!r}")
        try:
            await c.call_tool("get-sum", {"a": 1, "b": 2})
            raise AssertionError("get-sum with tools:read succeeded")
        except MCPError as e:
            print(f"[{mode}] reader get-sum: MCP error {e.code} {e.message!r} {e.data}")
            check(e.code == -32001 and e.data == {"requiredScopes": ["tools:write"]}, f"error {e.error}")

    async with client(url, ADMIN, mode) as c:
        summed = text(await c.call_tool("get-sum", {"a": 2, "b": 3}))
        print(f"[{mode}] admin get-sum: {summed!r}")
        check("5" in summed, f"get-sum {summed!r}")


if __name__ == "__main__":
    main(__doc__, exercise)
