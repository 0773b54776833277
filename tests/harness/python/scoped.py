"""A real MCP client (Python `mcp` 2.3.0) with bearer tokens against the `notes` example.

Usage: python scoped.py URL [MODE ...]   (modes default to: auto legacy)

Tokens are JWTs signed with PyJWT and the example's development Ed25519 key, like an
authorization server would sign them. For each mode it checks, over plain HTTP, the 401 challenge
of a request without a token (and the metadata document it names), the 401 `invalid_token` of an
expired and of a foreign-audience token, and the 403 `insufficient_scope` challenge of a tool the
token lacks a scope for; then, with `mcp.Client` sending the token on every request: `whoami`,
`list_notes`, a refused `add_note` (an MCP error -32001 naming `notes:write`), and with a
writer's token an `add_note` that is listed afterwards. Exits non-zero on the first failure.
"""

import pathlib
import time

import httpx2
import jwt
from harness import check, main, modern_call
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

ROOT = pathlib.Path(__file__).resolve().parents[3]
KEY = (ROOT / "examples/notes/dev-ed25519.pem").read_text()
ISSUER = "https://auth.notes.example"
AUDIENCE = "http://127.0.0.1:4002/mcp"
METADATA = "http://127.0.0.1:4002/.well-known/oauth-protected-resource/mcp"


def mint(subject: str, scope: str, **claims) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "scope": scope, "iat": now, "exp": now + 600}
    body.update(claims)
    return jwt.encode(body, KEY, algorithm="EdDSA", headers={"kid": "dev-ed25519"})


def client(url: str, token: str, mode: str) -> Client:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def structured(result) -> dict:
    check(not result.is_error, f"tool error: {result}")
    return result.structured_content


async def exercise(url: str, mode: str) -> None:
    bare = modern_call(url, None, "whoami", {})
    check(bare.status_code == 401, f"no token: {bare.status_code}")
    challenge = bare.headers.get("www-authenticate", "")
    print(f"[{mode}] no token: 401 {challenge}")
    check(challenge == f'Bearer resource_metadata="{METADATA}"', f"challenge {challenge!r}")
    metadata = httpx2.get(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")).json()
    check(metadata["resource"] == AUDIENCE and metadata["authorization_servers"] == [ISSUER], f"metadata {metadata}")

    for what, token, reason in [
        ("expired", mint("ada", "notes:read", exp=int(time.time()) - 300), "the token has expired"),
        ("another audience", mint("ada", "notes:read", aud="https://other.example/mcp"),
         "the token was issued for another audience"),
    ]:
        refused = modern_call(url, token, "whoami", {})
        challenge = refused.headers.get("www-authenticate", "")
        print(f"[{mode}] {what}: {refused.status_code} {challenge}")
        check(refused.status_code == 401, f"{what}: {refused.status_code}")
        check(f'error="invalid_token", error_description="{reason}"' in challenge, f"{what}: {challenge!r}")
        check(token not in refused.text and token not in challenge, f"{what}: the token is echoed")

    reader = mint("ada", "notes:read")
    lacking = modern_call(url, reader, "add_note", {"text": "x"})
    challenge = lacking.headers.get("www-authenticate", "")
    print(f"[{mode}] reader add_note: {lacking.status_code} {challenge}")
    check(lacking.status_code == 403, f"add_note with notes:read: {lacking.status_code}")
    check(challenge.startswith('Bearer error="insufficient_scope"') and 'scope="notes:write"' in challenge,
          f"challenge {challenge!r}")

    async with client(url, reader, mode) as c:
        print(f"[{mode}] reader: protocol {c.protocol_version}")
        me = structured(await c.call_tool("whoami", {}))
        check(me == {"subject": "ada", "scopes": ["notes:read"]}, f"whoami {me}")
        before = structured(await c.call_tool("list_notes", {}))["result"]
        try:
            await c.call_tool("add_note", {"text": "not allowed"})
            raise AssertionError("add_note with notes:read succeeded")
        except MCPError as e:
            print(f"[{mode}] reader add_note: MCP error {e.code} {e.message!r} {e.data}")
            check(e.code == -32001 and e.data == {"requiredScopes": ["notes:write"]}, f"error {e.error}")

    writer = mint("ada", "notes:read notes:write")
    async with client(url, writer, mode) as c:
        note = structured(await c.call_tool("add_note", {"text": f"from {mode}"}))
        check(note["author"] == "ada" and note["text"] == f"from {mode}", f"note {note}")
        after = structured(await c.call_tool("list_notes", {}))["result"]
        print(f"[{mode}] writer: added note {note['id']}, {len(before)} -> {len(after)} notes")
        check(len(after) == len(before) + 1 and after[-1] == note, f"notes {after}")


if __name__ == "__main__":
    main(__doc__, exercise)
