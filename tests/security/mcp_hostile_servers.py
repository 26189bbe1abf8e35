"""Stdio MCP servers that would keep an exchange from ending (test_attached_servers_end.py).

Run as ``python mcp_hostile_servers.py MODE [ARG...]``.

``sdk``: a real server on the ``mcp`` package's ``MCPServer``, with tools
``echo(text)``, ``hang()`` (never returns), ``big(size)`` (a reply of ``size``
characters), ``flood(count)`` (announces ``tools/list_changed`` ``count`` times,
then answers), ``lists()`` (how many ``tools/list`` it has answered) and
``pid()``. Environment: ``HOSTILE_PID_FILE`` (its process id is written there),
``HOSTILE_STUBBORN=1`` (a non-daemon thread keeps the process alive after its
stdin closes), ``HOSTILE_IGNORE_TERM=1`` (SIGTERM is ignored: only SIGKILL ends it).

Hand-written JSON-RPC, for what the SDK cannot be made to write (``echo``
answers correctly in every mode; ``HOSTILE_PID_FILE`` works here too):

* ``silent``: reads everything, answers nothing (not even ``initialize``).
* ``control-byte``: ``get`` answers with a raw control character inside a string.
* ``wrong-shape``: ``get`` answers with a ``result`` that is a string.
* ``deaf``: after listing its tools it never reads its stdin again.
* ``endless [DELAY]``: ``stream`` answers with one line that never ends (64 KiB
  every DELAY seconds, default 0: as fast as the pipe takes it).
* ``tools N [PAGE]``: ``tools/list`` offers N tiny tools, PAGE per page (default: one page).
* ``endless-pages``: every ``tools/list`` page holds one tool and a cursor to the next.
* ``fat-pages SIZE``: every page holds one tool with a SIZE-byte description, and a cursor.
* ``raw-flood N``: once initialized, writes N ``tools/list_changed``, ten per write;
  ``HOSTILE_COUNT_FILE`` receives the number of ``tools/list`` it answered.
"""

import json
import os
import signal
import sys
import threading
import time
from typing import Any

OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
LISTS = 0
WRITING = threading.Lock()


def setup() -> None:
    if path := os.environ.get("HOSTILE_PID_FILE"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
    if os.environ.get("HOSTILE_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if os.environ.get("HOSTILE_STUBBORN"):
        threading.Thread(target=lambda: time.sleep(3600), daemon=False).start()


# ------------------------------------------------------------------------------ sdk
def sdk() -> None:
    import anyio
    from mcp.server.mcpserver import Context, MCPServer

    class Counting(MCPServer):
        async def list_tools(self) -> Any:
            global LISTS
            LISTS += 1
            return await super().list_tools()

    server = Counting("hostile")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    async def hang() -> str:
        """Never answers."""
        await anyio.sleep_forever()
        return "unreachable"

    @server.tool()
    def big(size: int) -> str:
        """A reply of ``size`` characters."""
        return "x" * size

    @server.tool()
    async def flood(count: int, ctx: Context) -> str:
        """Announce a changed tool list ``count`` times."""
        for _ in range(count):
            await ctx.session.send_tool_list_changed()
        return "flooded"

    @server.tool()
    def lists() -> int:
        """How many tools/list requests were answered."""
        return LISTS

    @server.tool()
    def pid() -> int:
        """The process id."""
        return os.getpid()

    server.run()


# ------------------------------------------------------------------------- hand-written
def send(message: dict[str, Any]) -> None:
    with WRITING:
        sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
        sys.stdout.buffer.flush()


def raw(mode: str, args: list[str]) -> None:
    global LISTS
    for line in sys.stdin.buffer:
        if mode == "silent":
            continue
        request = json.loads(line)
        method, ident = request.get("method"), request.get("id")
        params = request.get("params") or {}
        if method == "notifications/initialized" and mode == "raw-flood":
            threading.Thread(target=flood, args=(int(args[0]),), daemon=True).start()
        if ident is None:
            continue
        if method == "initialize":
            result: Any = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": f"hostile-{mode}", "version": "0"},
            }
        elif method == "tools/list":
            LISTS += 1
            if path := os.environ.get("HOSTILE_COUNT_FILE"):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(str(LISTS))
            result = listing(mode, args, params.get("cursor"))
            if mode == "deaf":
                send({"jsonrpc": "2.0", "id": ident, "result": result})
                time.sleep(3600)
        elif method == "tools/call":
            name = params.get("name")
            if name == "echo":
                text = json.dumps(params.get("arguments") or {})
                result = {"content": [{"type": "text", "text": text}]}
            elif mode == "control-byte":
                reply = '{"jsonrpc": "2.0", "id": %s, "result": {"content": [{"type": "text", '
                reply += '"text": "bell \x07 here"}]}}\n'
                sys.stdout.buffer.write((reply % json.dumps(ident)).encode())
                sys.stdout.buffer.flush()
                continue
            elif mode == "wrong-shape":
                result = "just some text"
            elif mode == "endless":
                endless(float(args[0]) if args else 0.0, ident)
            else:
                send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}})
                continue
        else:
            result = {}
        send({"jsonrpc": "2.0", "id": ident, "result": result})


def flood(count: int) -> None:
    """``count`` announcements, ten at a time, 5 ms apart (each burst is one write)."""
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    burst = (note.encode() + b"\n") * 10
    for _ in range(count // 10):
        with WRITING:
            sys.stdout.buffer.write(burst)
            sys.stdout.buffer.flush()
        time.sleep(0.005)


def listing(mode: str, args: list[str], cursor: Any) -> dict[str, Any]:
    echo = {"name": "echo", "description": "Echo.", "inputSchema": OBJECT}
    if mode == "tools":
        total = int(args[0])
        page = int(args[1]) if len(args) > 1 else total
        start = int(cursor or 0)
        stop = min(start + page, total)
        tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(start, stop)]
        if start + page < total:
            return {"tools": tools, "nextCursor": str(start + page)}
        return {"tools": tools}
    if mode == "endless-pages":
        number = int(cursor or 0)
        tool = {"name": f"p{number}", "inputSchema": {"type": "object"}}
        return {"tools": [tool], "nextCursor": str(number + 1)}
    if mode == "fat-pages":
        number = int(cursor or 0)
        fat = "d" * int(args[0])
        tool = {"name": f"f{number}", "description": fat, "inputSchema": {"type": "object"}}
        return {"tools": [tool], "nextCursor": str(number + 1)}
    others = [
        {"name": n, "description": n, "inputSchema": {"type": "object"}} for n in ("get", "stream")
    ]
    return {"tools": [echo, *others]}


def endless(delay: float, ident: Any) -> None:
    out = sys.stdout.buffer
    start = '{"jsonrpc": "2.0", "id": %s, "result": {"content": [{"type": "text", "text": "'
    out.write((start % json.dumps(ident)).encode())
    chunk = b"a" * 65536
    try:
        while True:
            out.write(chunk)
            out.flush()
            if delay:
                time.sleep(delay)
    except (BrokenPipeError, OSError):
        os._exit(0)


if __name__ == "__main__":
    setup()
    mode, *rest = sys.argv[1:]
    if mode == "sdk":
        sdk()
    else:
        raw(mode, rest)
