"""A real MCP client (Python `mcp` 2.3.0) answering a server's input requests, against `everything`.

Usage: python interactive.py URL [MODE ...]   (modes default to: auto legacy)

In `legacy` mode the server sends `elicitation/create` and `sampling/createMessage` on the call's
stream and waits; in `auto` mode (2026-07-28) it answers `input_required` and the client retries
with the answers. Either way the client's callbacks answer, and the tool completes. Progress and
log messages arrive through their callbacks. Exits non-zero on the first failure.
"""

import asyncio
import warnings

from harness import check, main
from mcp import Client, types

# `logging/setLevel` is deprecated in 2026-07-28 but is how a 2025-11-25 session asks for logs.
warnings.filterwarnings("ignore", message="The logging capability is deprecated")


async def exercise(url: str, mode: str) -> None:
    asked: list[str] = []
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_elicit(context, params):
        asked.append("elicitation")
        return types.ElicitResult(
            action="accept", content={"username": "ada", "email": "ada@example.com"}
        )

    async def on_sample(context, params):
        asked.append("sampling")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Paris, of course"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def on_log(params):
        logs.append(params)

    async with Client(
        url,
        mode=mode,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        logging_callback=on_log,
        log_level="info",
    ) as client:
        print(f"[{mode}] protocol {client.protocol_version}")
        if mode == "legacy":
            await client.set_logging_level("info")

        res = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        text = res.content[0].text
        print(f"[{mode}] test_elicitation: {text}")
        check(not res.is_error, f"test_elicitation failed: {res}")
        check("action=accept" in text and "ada@example.com" in text, f"text {text!r}")

        res = await client.call_tool("test_sampling", {"prompt": "Capital of France?"})
        text = res.content[0].text
        print(f"[{mode}] test_sampling: {text}")
        check("Paris, of course" in text, f"text {text!r}")
        check(asked == ["elicitation", "sampling"], f"callbacks {asked}")

        progress: list[float] = []

        async def on_progress(value, total, message):
            progress.append(value)

        await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        print(f"[{mode}] progress: {progress}")
        check(progress == [0.0, 50.0, 100.0], f"progress {progress}")

        await client.call_tool("test_tool_with_logging", {})
        await asyncio.sleep(0.1)
        data = [entry.data for entry in logs]
        print(f"[{mode}] logs: {data}")
        check(len(logs) >= 3 and all(entry.level == "info" for entry in logs), f"logs {data}")
    print(f"[{mode}] ok")


if __name__ == "__main__":
    main(__doc__, exercise)
