"""MCP servers, well and badly behaved, for tests/integration/test_mcp_transports.py.

Run as ``python mcp_fake_servers.py MODE [ARG...]``; each mode is one server:

Real servers, built on the ``mcp`` package's ``MCPServer``:

* ``basic``: stdio; ``echo``, ``cwd`` (the process's working directory).
* ``changing``: stdio; ``grow(name)`` adds a tool named ``name`` and announces
  ``notifications/tools/list_changed``.
* ``sse PORT TOKEN``: the legacy HTTP+SSE transport on 127.0.0.1:PORT
  (``/sse``), answering 401 unless ``Authorization: Bearer TOKEN``.

Hand-written stdio JSON-RPC, to misbehave at will:

* ``echo``: a correct server with one tool, ``echo`` (it answers with the arguments as JSON).
* ``silent``: reads everything, never answers (not even ``initialize``).
* ``garbage``: prints non-JSON lines, random bytes and JSON of the wrong shape,
  then answers every request with a result of the wrong shape.
* ``garbage-then-serve``: the same junk first, then a correct server.
* ``hang-list``: answers ``initialize``, never ``tools/list``.
* ``huge N``: ``tools/list`` returns N tools.
* ``bad-schema``: one tool's inputSchema is not a JSON Schema; the others are fine.
* ``failing``: ``soft`` fails with an ``isError`` result, ``hard`` with a JSON-RPC
  error, both worded as the SDK's servers word them (``Error executing tool NAME:
  ...``); ``slow`` never answers.
* ``hinted``: tools with MCP annotations (``lookup`` read-only, ``append``
  additive and open-world, ``wipe`` destructive, ``contradict`` read-only *and*
  destructive, ``bare`` none).

The hand-written ones write their process id to ``$FAKE_MCP_PID_FILE`` if it is set.
"""

import json
import os
import sys
import time
from typing import Any

OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
NO_ARGUMENTS = {"type": "object", "properties": {}}
FAILING: dict[str, dict[str, Any]] = {"soft": {}, "hard": {}, "slow": {}}
HINTED: dict[str, dict[str, Any]] = {
    "lookup": {"annotations": {"readOnlyHint": True}},
    "append": {
        "annotations": {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True}
    },
    "wipe": {"annotations": {"destructiveHint": True, "idempotentHint": True}},
    "contradict": {"annotations": {"readOnlyHint": True, "destructiveHint": True}},
    "bare": {},
}


# ------------------------------------------------------------------------ MCPServer-based
def basic() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("basic")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    def cwd() -> str:
        """The server's working directory."""
        return os.getcwd()

    server.run()


def changing() -> None:
    from mcp.server.mcpserver import Context, MCPServer

    server = MCPServer("changing")

    @server.tool()
    async def grow(name: str, ctx: Context) -> str:
        """Add a tool called ``name`` and tell the client."""

        def added() -> str:
            return f"I am {name}"

        server.add_tool(added, name=name, description=f"The tool {name}.")
        await ctx.session.send_tool_list_changed()
        return "grown"

    server.run()


def sse(port: str, token: str) -> None:
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from starlette.responses import PlainTextResponse

    server = MCPServer("legacy")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    def shout(text: str) -> str:
        """The text in capitals."""
        return text.upper()

    app = server.sse_app()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await PlainTextResponse("no entry", status_code=401)(scope, receive, send)
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=int(port), log_level="warning")


# ------------------------------------------------------------------------- hand-written
def send(message: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def junk() -> None:
    out = sys.stdout.buffer
    out.write(b"Starting the server...\nthis is not JSON {\n")
    out.write(bytes(range(128, 256)) + b"\x00\xff\xfe\n")  # not even UTF-8
    out.write(b'{"hello": "world"}\n[1, 2, 3]\n42\n"text"\n')
    out.write(b'{"jsonrpc": "2.0", "id": "nobody-asked", "result": 42}\n')
    out.flush()


def tools_for(mode: str, arg: str | None) -> list[dict[str, Any]]:
    if mode == "huge":
        return [
            {"name": f"tool_{i}", "description": f"Tool number {i}.", "inputSchema": OBJECT}
            for i in range(int(arg or "5000"))
        ]
    if mode in ("failing", "hinted"):
        return [
            {"name": name, "description": f"The {name} tool.", "inputSchema": NO_ARGUMENTS, **more}
            for name, more in (FAILING if mode == "failing" else HINTED).items()
        ]
    tools = [{"name": "echo", "description": "Echo the text back.", "inputSchema": OBJECT}]
    if mode == "bad-schema":
        bad = {"type": "object", "properties": {"x": {"type": "nonsense"}}}
        tools.insert(0, {"name": "broken", "description": "A broken schema.", "inputSchema": bad})
    return tools


def answer(request: dict[str, Any], mode: str, arg: str | None) -> dict[str, Any] | None:
    method, ident = request.get("method"), request.get("id")
    if ident is None:  # a notification
        return None
    if mode == "garbage":
        return {"jsonrpc": "2.0", "id": ident, "result": {"unexpected": [1, 2]}}
    params = request.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": f"fake-{mode}", "version": "0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        if mode == "hang-list":
            return None
        result = {"tools": tools_for(mode, arg)}
    elif method == "tools/call" and mode == "failing":
        tool = params.get("name")
        if tool == "slow":
            return None
        words = f"Error executing tool {tool}: it failed the {tool} way"
        if tool == "hard":
            return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": words}}
        result = {"content": [{"type": "text", "text": words}], "isError": True}
    elif method == "tools/call":
        text = json.dumps(params.get("arguments") or {})
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        error = {"code": -32601, "message": f"no method {method}"}
        return {"jsonrpc": "2.0", "id": ident, "error": error}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def hand_written(mode: str, arg: str | None) -> None:
    pid_file = os.environ.get("FAKE_MCP_PID_FILE")
    if pid_file:  # lets a test check the process is gone after detaching
        with open(pid_file, "w", encoding="utf-8") as file:
            file.write(str(os.getpid()))
    if mode.startswith("garbage"):
        junk()
    for line in sys.stdin.buffer:
        if mode == "silent":
            continue
        try:
            request = json.loads(line)
        except ValueError:
            continue
        reply = answer(request, "serve" if mode == "garbage-then-serve" else mode, arg)
        if reply is not None:
            send(reply)
    time.sleep(0.1)


def main() -> None:
    mode, *args = sys.argv[1:]
    if mode == "basic":
        basic()
    elif mode == "changing":
        changing()
    elif mode == "sse":
        sse(*args)
    else:
        hand_written(mode, args[0] if args else None)


if __name__ == "__main__":
    main()
