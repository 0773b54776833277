"""A small FastMCP server for phantom's client tests (tests/client/others.rs).

Usage: python fastmcp_server.py stdio | python fastmcp_server.py http PORT
"""

import sys

from fastmcp import Context, FastMCP

mcp = FastMCP("pantry")


@mcp.tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool
async def count(ctx: Context, steps: int = 3) -> str:
    """Reports progress `steps` times."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps)
    return f"counted {steps}"


@mcp.tool
async def ask_name(ctx: Context) -> str:
    """Asks the user for a name (elicitation)."""
    answer = await ctx.elicit("Your name?", response_type=str)
    if answer.action == "accept":
        return f"Hello, {answer.data}!"
    return f"no name ({answer.action})"


@mcp.resource("pantry://shelves/{shelf}")
def shelf(shelf: str) -> str:
    """What one shelf holds."""
    return f"shelf {shelf}: flour, rice"


@mcp.prompt
def recipe(dish: str) -> str:
    """Asks for a recipe."""
    return f"Write a recipe for {dish}."


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        mcp.run(transport="stdio", show_banner=False)
