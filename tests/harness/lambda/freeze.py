"""A subscription heard across a freeze (Python `mcp` 2.3.0, run by run.sh beside this file).

Usage: python freeze.py URL_A WATCH_A_PID URL_B

Two functions on one Redis: A (one instance) and B. A client opens a 2026-07-28
`subscriptions/listen` for tool-list changes through A's Function URL; A's function process is
then stopped (SIGSTOP, as Lambda freezes an instance) while another client, through B, calls
`test_trigger_tool_change`, which B publishes on Redis; A is resumed (SIGCONT) and the change must
reach the listener within 10 s. Exits non-zero otherwise.
"""

import os
import signal
import subprocess
import sys

import anyio
from mcp import Client
from mcp.client.subscriptions import ToolsListChanged


def function_pids(watch_pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(watch_pid), "-x", "lambda"], capture_output=True, text=True)
    return sorted(int(p) for p in out.stdout.split())


async def main(url_a: str, watch_a: int, url_b: str) -> None:
    async with Client(url_a, mode="auto") as listener:
        async with listener.listen(tools_list_changed=True) as sub:
            pids = function_pids(watch_a)
            if len(pids) != 1:
                sys.exit(f"function A should run one instance, found {pids}")
            os.kill(pids[0], signal.SIGSTOP)
            print(f"function A's instance {pids[0]} stopped")
            try:
                async with Client(url_b, mode="auto") as other:
                    res = await other.call_tool("test_trigger_tool_change", {})
                    if res.is_error:
                        sys.exit(f"test_trigger_tool_change through B failed: {res}")
                print("the change published through function B")
            finally:
                os.kill(pids[0], signal.SIGCONT)
            print(f"function A's instance {pids[0]} resumed")
            with anyio.fail_after(10):
                async for event in sub:
                    if isinstance(event, ToolsListChanged):
                        print("tools/list_changed published during the freeze reached the listener")
                        return


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    anyio.run(main, sys.argv[1], int(sys.argv[2]), sys.argv[3])
