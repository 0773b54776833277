"""A real MCP client (Python `mcp` 2.3.0) hearing of changes, against `everything`.

Usage: python subscriptions.py URL [MODE ...]   (modes default to: auto legacy)

`everything` updates `test://watched-resource` every three seconds. In `legacy` mode the client
subscribes with `resources/subscribe` and the update arrives on the session's GET stream; in
`auto` mode (2026-07-28) it opens `subscriptions/listen` and the update arrives on that stream,
followed by a tool-list change the client triggers itself. Exits non-zero on the first failure.
"""

import warnings

import anyio
from harness import check, main
from mcp import Client, types
from mcp.client.subscriptions import ResourceUpdated, ToolsListChanged

# `resources/subscribe` is deprecated in 2026-07-28 but is how a 2025-11-25 session subscribes.
warnings.filterwarnings("ignore", message="resources/(un)?subscribe is removed")

WATCHED = "test://watched-resource"


async def legacy(url: str) -> None:
    updated = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification) and str(message.params.uri) == WATCHED:
            updated.set()

    async with Client(url, mode="legacy", message_handler=on_message) as client:
        print(f"[legacy] protocol {client.protocol_version}")
        await client.subscribe_resource(WATCHED)
        with anyio.fail_after(10):
            await updated.wait()
        print("[legacy] notifications/resources/updated arrived on the GET stream")
        await client.unsubscribe_resource(WATCHED)


async def listen(url: str) -> None:
    async with Client(url, mode="auto") as client:
        print(f"[auto] protocol {client.protocol_version}")
        async with client.listen(tools_list_changed=True, resource_subscriptions=[WATCHED]) as sub:
            check(WATCHED in (sub.honored.resource_subscriptions or []), f"honoured: {sub.honored}")
            seen_update = False
            with anyio.fail_after(10):
                async for event in sub:
                    if isinstance(event, ResourceUpdated) and event.uri == WATCHED and not seen_update:
                        seen_update = True
                        print("[auto] resource update arrived on the listen stream")
                        res = await client.call_tool("test_trigger_tool_change", {})
                        check(not res.is_error, f"test_trigger_tool_change failed: {res}")
                    elif isinstance(event, ToolsListChanged) and seen_update:
                        print("[auto] tools/list_changed arrived on the listen stream")
                        break


async def exercise(url: str, mode: str) -> None:
    if mode == "legacy":
        await legacy(url)
    else:
        await listen(url)


if __name__ == "__main__":
    main(__doc__, exercise)
