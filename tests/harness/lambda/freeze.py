"""A subscription heard across a freeze (Python `mcp` 2.3.0, run by run.sh beside this file).

Usage: python freeze.py URL_A WATCH_A_PID URL_B REDIS_PORT

Two functions on one Redis: A (one instance) and B. A client opens a 2026-07-28
`subscriptions/listen` for tool-list changes through A's Function URL; A's function process is
then stopped (SIGSTOP, as Lambda freezes an instance) while another client, through B, calls
`test_trigger_tool_change`, which B publishes on Redis; A is resumed (SIGCONT) and the change must
reach the listener within 10 s. Then a freeze long enough for Redis to drop A's pub/sub
connection (`CLIENT KILL TYPE pubsub` while A is stopped): the change published meanwhile is
lost, and A, resumed, reconnects, reports the gap and tells every listener that every list may
have changed: the listener must hear `tools/list_changed` within 10 s. Exits non-zero otherwise.
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


async def main(url_a: str, watch_a: int, url_b: str, redis_port: int) -> None:
    await across(url_a, watch_a, url_b, None)
    await across(url_a, watch_a, url_b, redis_port)


async def across(url_a: str, watch_a: int, url_b: str, drop_on: int | None) -> None:
    """One freeze of A with a change published through B; with `drop_on`, Redis (on that port)
    drops the pub/sub connections meanwhile."""
    async with Client(url_a, mode="auto") as listener:
        async with listener.listen(tools_list_changed=True) as sub:
            pids = function_pids(watch_a)
            if len(pids) != 1:
                sys.exit(f"function A should run one instance, found {pids}")
            os.kill(pids[0], signal.SIGSTOP)
            print(f"function A's instance {pids[0]} stopped")
            try:
                if drop_on is not None:
                    killed = subprocess.run(["redis-cli", "-p", str(drop_on), "CLIENT", "KILL", "TYPE", "pubsub"],
                                            capture_output=True, text=True, check=True).stdout.strip()
                    print(f"redis dropped {killed} pub/sub connection(s), A's among them")
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
                        if drop_on is None:
                            print("tools/list_changed published during the freeze reached the listener")
                        else:
                            print("after its pub/sub connection was dropped, A reported the gap: tools/list_changed reached the listener")
                        return


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    anyio.run(main, sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
