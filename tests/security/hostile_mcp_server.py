"""A stdio MCP server whose every text is hostile to a terminal, for test_terminal_output.py.

Run as ``python hostile_mcp_server.py MODE``:

* ``tools`` (the ``mcp`` SDK's ``MCPServer``): ``describe`` (its description,
  its argument's description and its result carry :data:`HOSTILE`, the result
  on two lines), ``fail`` (a tool error with it), ``protocol_fail`` (a
  JSON-RPC error with it), and tools named ``evil\\nname``, ``evil\\x1b[2Jname``,
  ``two words`` and ``bidi\\u202eexe``, which tooldeck must not register.
* ``list-error`` (hand-written JSON-RPC): answers ``initialize``, then answers
  ``tools/list`` with an error whose message carries :data:`HOSTILE`.

The SDK logs a warning for each odd tool name to this process's stderr, which
tooldeck hands its own terminal: that is the server program's own output (a
program the manifest's author chose to run), not text tooldeck prints, so the
server keeps quiet to leave only what tooldeck writes in the transcript.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

HOSTILE = (
    "\x1b[2J"  # CSI: clear the screen
    "\x1b]0;pwned\x07"  # OSC: set the window title
    "\x1b]52;c;cHduZWQ=\x07"  # OSC 52: write the clipboard
    "\x9b31m"  # C1 CSI: red, for terminals that read C1
    "\r"  # back to the start of the line
    "\u202etxt.exe"  # right-to-left override: shows as exe.txt
)
"""What every text of this server carries."""

ODD_NAMES = ("evil\nname", "evil\x1b[2Jname", "two words", "bidi\u202eexe")


def tools() -> None:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.shared.exceptions import MCPError
    from pydantic import Field

    server = MCPServer("hostile")

    @server.tool(description=f"Describe the text.{HOSTILE}")
    def describe(text: str = Field(description=f"The text.{HOSTILE}")) -> str:
        return f"first line{HOSTILE}\nsecond line{HOSTILE}"

    @server.tool(description="Fails, saying why.")
    def fail(text: str) -> str:
        raise ToolError(f"it failed{HOSTILE}")

    @server.tool(description="Fails in the protocol.")
    def protocol_fail(text: str) -> str:
        raise MCPError(-32001, f"protocol failure{HOSTILE}")

    for name in ODD_NAMES:
        server.add_tool(lambda: "called", name=name, description="A tool with an odd name.")
    server.run()


def list_error() -> None:
    for line in sys.stdin.buffer:
        request: dict[str, Any] = json.loads(line)
        ident = request.get("id")
        if ident is None:
            continue
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": ident}
        if request.get("method") == "initialize":
            reply["result"] = {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-list", "version": "0"},
            }
        else:
            reply["error"] = {"code": -32603, "message": f"cannot list{HOSTILE}"}
        sys.stdout.buffer.write(json.dumps(reply).encode() + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    logging.disable(logging.CRITICAL)
    {"tools": tools, "list-error": list_error}[sys.argv[1]]()
