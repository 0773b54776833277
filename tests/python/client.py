"""A real MCP client (Python `mcp` 2.3.0) against the `studies` example over Streamable HTTP.

Usage: python client.py URL [MODE ...]   (modes default to: auto legacy)

For each mode it connects with `mcp.Client(url, mode=mode)`, lists tools, calls `search`, reads
`studies:///studies/1` and gets the `review` prompt, asserting on every result. Exits non-zero on
the first failure.
"""

import json

from harness import check, main
from mcp import Client

EXPECTED_PROTOCOL = {"auto": "2026-07-28", "legacy": "2025-11-25"}


async def exercise(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:
        print(f"[{mode}] protocol {client.protocol_version}, server {client.server_info}")
        expected = EXPECTED_PROTOCOL.get(mode, mode)  # a version pin expects itself
        check(
            client.protocol_version == expected,
            f"protocol {client.protocol_version!r}, expected {expected!r}",
        )
        if mode in EXPECTED_PROTOCOL:  # a version pin skips discovery, so it has no serverInfo
            check(client.server_info is not None and client.server_info.name == "studies", "serverInfo.name")

        tools = await client.list_tools()
        names = sorted(t.name for t in tools.tools)
        print(f"[{mode}] tools: {names}")
        check({"search", "annotate", "enrollment.total"} <= set(names), f"tools {names}")
        search = next(t for t in tools.tools if t.name == "search")
        check("query" in search.input_schema.get("required", []), "search requires `query`")

        res = await client.call_tool("search", {"query": "memory"})
        check(not res.is_error, f"search failed: {res}")
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

        prompt = await client.get_prompt("review", {"study_id": "1"})
        text = prompt.messages[0].content.text
        print(f"[{mode}] prompt review: {prompt.description!r}: {text}")
        check(prompt.description == "Review of study 1", f"description {prompt.description!r}")
        check(prompt.messages[0].role == "user", "a user message")
        check("Sleep and memory consolidation" in text and "methodology" in text, f"text {text!r}")
    print(f"[{mode}] ok")


if __name__ == "__main__":
    main(__doc__, exercise)
