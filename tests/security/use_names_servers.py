"""Stdio MCP servers for ``test_use_names.py``: every tool answers with who it is.

Run as ``python use_names_servers.py NAME TOOL[,TOOL...] [--delay SECONDS] [--log FILE]``.
It is a real ``MCPServer`` called NAME; each TOOL takes ``time`` and
``target_timezone`` (both optional strings) and answers
``{"server": NAME, "tool": TOOL, "arguments": {...}}``, so a test sees which
server a call reached and with which arguments. Every call is also appended,
as one JSON line, to the ``--log`` file: a server that must never be called
is checked by its log staying empty.

``--delay`` holds back the answer to ``tools/list`` (the handshake is not
delayed), so another server started at the same time lists first.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("name")
    parser.add_argument("tools")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--log")
    args = parser.parse_args()

    class SlowToList(MCPServer):
        async def list_tools(self) -> Any:
            await anyio.sleep(args.delay)
            return await super().list_tools()

    server = SlowToList(args.name)
    for tool in args.tools.split(","):
        server.add_tool(_answer(args.name, tool, args.log), name=tool, description=f"{tool}.")
    server.run()


def _answer(server: str, tool: str, log: str | None) -> Any:
    def answer(time: str = "", target_timezone: str = "") -> str:
        sent = {"time": time, "target_timezone": target_timezone}
        said = json.dumps({"server": server, "tool": tool, "arguments": sent})
        if log:
            with open(log, "a", encoding="utf-8") as file:
                file.write(said + "\n")
        return said

    return answer


if __name__ == "__main__":
    main()
