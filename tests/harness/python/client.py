"""A real MCP client (Python `mcp` 2.3.0) against the `studies` example over Streamable HTTP.

Usage: python client.py URL [MODE ...]   (modes default to: auto legacy)

For each mode it connects with `mcp.Client(url, mode=mode)` (answering elicitations with a yes),
lists tools, calls `search` (with progress), annotates and clears a study's notes (the server asks
to confirm; with `STATELESS=1` it cannot, and refuses), reads `studies:///studies/1` and gets the
`review` prompt, asserting on every result. Exits non-zero on
the first failure.
"""

import json
import os

from harness import check, main
from mcp import Client, types

EXPECTED_PROTOCOL = {"auto": "2026-07-28", "legacy": "2025-11-25"}


async def exercise(url: str, mode: str) -> None:
    stateless = os.environ.get("STATELESS") == "1"
    confirmations: list[str] = []

    async def confirm(context, params):
        confirmations.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    async with Client(url, mode=mode, elicitation_callback=confirm) as client:
        print(f"[{mode}] protocol {client.protocol_version}, server {client.server_info}")
        expected = EXPECTED_PROTOCOL.get(mode, mode)  # a version pin expects itself
        check(
            client.protocol_version == expected,
            f"protocol {client.protocol_version!r}, expected {expected!r}",
        )
        if mode in EXPECTED_PROTOCOL:  # a version pin skips discovery, so it has no serverInfo
            # Through examples/gateway the server is the gateway (SERVER_NAME=phantom-gateway).
            expected = os.environ.get("SERVER_NAME", "studies")
            check(client.server_info is not None and client.server_info.name == expected, "serverInfo.name")

        tools = await client.list_tools()
        names = sorted(t.name for t in tools.tools)
        print(f"[{mode}] tools: {names}")
        check({"search", "annotate", "enrollment.total"} <= set(names), f"tools {names}")
        # A second upstream mounted under a prefix by examples/gateway (PREFIXED_TOOL=ev_…): listed
        # beside studies' tools, and called through the gateway.
        prefixed = os.environ.get("PREFIXED_TOOL")
        if prefixed:
            check(prefixed in names, f"{prefixed} in {names}")
            answer = await client.call_tool(prefixed, {})
            check(not answer.is_error and answer.content, f"{prefixed}: {answer}")
            print(f"[{mode}] {prefixed}: {answer.content[0].text!r}")
        search = next(t for t in tools.tools if t.name == "search")
        check("query" in search.input_schema.get("required", []), "search requires `query`")

        progress: list[tuple[float, float | None]] = []

        async def on_progress(value, total, message):
            progress.append((value, total))

        res = await client.call_tool("search", {"query": "memory"}, progress_callback=on_progress)
        check(not res.is_error, f"search failed: {res}")
        print(f"[{mode}] search progress: {progress}")
        scanned = progress[-1][1] if progress else 0
        check(
            scanned and progress == [(i + 1.0, scanned) for i in range(int(scanned))],
            f"progress {progress}",
        )
        hits = res.structured_content
        if hits is None:
            hits = json.loads(res.content[0].text)
        titles = [s["title"] for s in hits["studies"]]
        print(f"[{mode}] search 'memory': total={hits['total']} {titles}")
        check(hits["total"] == 2, f"expected 2 hits, got {hits['total']}")
        check(
            titles == ["Sleep and memory consolidation", "Memory training for older adults"],
            f"titles {titles}",
        )

        bad = await client.call_tool("annotate", {"id": 99, "note": "x"})
        print(f"[{mode}] annotate unknown study: isError={bad.is_error}")
        check(bad.is_error, "annotate of an unknown study is a tool error")

        read = await client.read_resource("studies:///studies/1")
        check(len(read.contents) == 1, f"contents {read.contents}")
        content = read.contents[0]
        study = json.loads(content.text)
        print(f"[{mode}] read {content.uri}: {content.mime_type} {study['title']!r}")
        check(str(content.uri) == "studies:///studies/1", f"uri {content.uri}")
        check(content.mime_type == "application/json", f"mime {content.mime_type}")
        check(study["id"] == 1 and study["title"] == "Sleep and memory consolidation", f"study {study}")

        # A destructive tool asks the user first (form elicitation), when it can.
        await client.call_tool("annotate", {"id": 2, "note": f"to clear ({mode})"})
        cleared = await client.call_tool("clear_notes", {"id": 2})
        text = cleared.content[0].text
        print(f"[{mode}] clear_notes: isError={cleared.is_error} {text!r} asked={confirmations}")
        if stateless:
            check(cleared.is_error and "cannot ask" in text, f"stateless clear_notes: {text!r}")
            check(confirmations == [], "nothing asked without a session")
        else:
            check(not cleared.is_error and text.startswith("removed "), f"clear_notes: {text!r}")
            check(len(confirmations) == 1 and "study 2" in confirmations[0], f"asked {confirmations}")
            again = await client.call_tool("clear_notes", {"id": 2})
            check(again.content[0].text == "study 2 has no notes", f"again: {again.content[0].text!r}")

        prompt = await client.get_prompt("review", {"study_id": "1"})
        text = prompt.messages[0].content.text
        print(f"[{mode}] prompt review: {prompt.description!r}: {text}")
        check(prompt.description == "Review of study 1", f"description {prompt.description!r}")
        check(prompt.messages[0].role == "user", "a user message")
        check("Sleep and memory consolidation" in text and "methodology" in text, f"text {text!r}")
    print(f"[{mode}] ok")


if __name__ == "__main__":
    main(__doc__, exercise)
