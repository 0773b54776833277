"""What the client scripts share: assertions, and running one exercise per mode.

A script calls `main(__doc__, exercise)` where `exercise(url, mode)` is a coroutine that raises on
the first failure; `main` runs it for each mode given on the command line (default: auto legacy)
and exits non-zero when any mode failed.
"""

import asyncio
import sys
import traceback

import httpx2


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


async def run_modes(exercise, url: str, modes: list[str]) -> int:
    failed = []
    for mode in modes:
        try:
            await exercise(url, mode)
        except BaseException:  # noqa: BLE001 - report every failure, then exit non-zero
            print(f"[{mode}] FAILED", file=sys.stderr)
            traceback.print_exc()
            failed.append(mode)
    if failed:
        print(f"failed modes: {failed}", file=sys.stderr)
        return 1
    print("all modes passed")
    return 0


def main(doc: str, exercise) -> None:
    if len(sys.argv) < 2:
        sys.exit(doc)
    sys.exit(asyncio.run(run_modes(exercise, sys.argv[1], sys.argv[2:] or ["auto", "legacy"])))


def modern_call(url: str, token: str | None, tool: str, arguments: dict) -> httpx2.Response:
    """One 2026-07-28 `tools/call`, by hand, to read the status and the challenge."""
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": tool,
    }
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": meta}}
    return httpx2.post(url, json=body, headers=headers)
