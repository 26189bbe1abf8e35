"""MCP servers for tests/acceptance/test_import_mcp.py: ``python mcp_import_servers.py MODE``.

Hand-written stdio JSON-RPC (so tool lists can be anything a server might send):

* ``edge``: tool names providers reject, tools without descriptions, a title
  instead of a description, a destructive tool, nested object arguments,
  ``${`` in names and descriptions, a multi-line description.
* ``broken``: a tool without a usable name and a name listed twice, besides a good one.
* ``empty``: no tools at all.
* ``silent``: reads everything, never answers.
* ``crash``: writes a complaint on standard error and exits 3 before the handshake.

On the ``mcp`` package's ``MCPServer``:

* ``http PORT TOKEN``: Streamable HTTP on 127.0.0.1:PORT (``/mcp``), answering 401
  unless ``Authorization: Bearer TOKEN`` (403 without ``X-Team: search``); one tool, ``echo``.
* ``sse PORT TOKEN``: the same on the legacy HTTP+SSE transport (``/sse``).
"""

import json
import sys
from typing import Any

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}}

EDGE: list[dict[str, Any]] = [
    {
        "name": "math.factorial",
        "description": "Factorial of a whole number.",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer", "description": "The number, 0 or more."}},
            "required": ["n"],
        },
    },
    {"name": "get weather", "description": "Weather now, by city name.", "inputSchema": TEXT},
    {"name": "get_weather", "description": "Weather now, by coordinates.", "inputSchema": TEXT},
    {
        "name": "bare",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        },
    },
    {"name": "titled", "title": "A tool known by its title", "inputSchema": {"type": "object"}},
    {
        "name": "delete_everything",
        "description": "Delete every record. There is no undo.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"destructiveHint": True, "idempotentHint": True},
    },
    {
        "name": "search",
        "description": "Search records.\nFilters narrow the results down.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for."},
                "filter": {
                    "type": "object",
                    "description": "Only records matching all of these.",
                    "properties": {
                        "field": {"type": "string", "description": "A record field."},
                        "range": {
                            "type": "object",
                            "properties": {"from": {"type": "integer"}, "to": {"type": "integer"}},
                        },
                    },
                },
                "page": {"type": "integer"},
            },
            "required": ["query"],
        },
        "annotations": {"destructiveHint": True, "readOnlyHint": True},
    },
    {
        "name": "a${b}",
        "description": "Costs ${env:HOME} dollars.",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"type": "string", "description": "Not ${config:secret}."}},
        },
    },
    {"name": "n" * 80, "description": "A tool with a very long name.", "inputSchema": TEXT},
]

BROKEN: list[dict[str, Any]] = [
    {"name": "", "description": "No name.", "inputSchema": TEXT},
    {"name": "good", "description": "A good tool.", "inputSchema": TEXT},
    {"name": "good", "description": "The same name again.", "inputSchema": TEXT},
    {"name": " padded", "description": "Starts with a space.", "inputSchema": TEXT},
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict[str, Any], tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    method, ident = request.get("method"), request.get("id")
    if ident is None:  # a notification
        return None
    params = request.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "import-edge", "version": "0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        text = json.dumps(params.get("arguments") or {})
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        error = {"code": -32601, "message": f"no method {method}"}
        return {"jsonrpc": "2.0", "id": ident, "error": error}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def hand_written(mode: str) -> None:
    if mode == "crash":
        print("boom: the server needs a configuration file", file=sys.stderr, flush=True)
        sys.exit(3)
    tools = {"edge": EDGE, "broken": BROKEN, "empty": []}.get(mode, [])
    for line in sys.stdin:
        if mode == "silent":
            continue
        try:
            request = json.loads(line)
        except ValueError:
            continue
        reply = answer(request, tools)
        if reply is not None:
            send(reply)


def http(transport: str, port: str, token: str) -> None:
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from starlette.responses import PlainTextResponse

    server = MCPServer("remote")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    app = server.sse_app() if transport == "sse" else server.streamable_http_app()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await PlainTextResponse("no entry", status_code=401)(scope, receive, send)
                return
            if headers.get(b"x-team") != b"search":
                await PlainTextResponse("which team?", status_code=403)(scope, receive, send)
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=int(port), log_level="warning")


def main() -> None:
    mode, *args = sys.argv[1:]
    if mode in ("http", "sse"):
        http(mode, *args)
    else:
        hand_written(mode)


if __name__ == "__main__":
    main()
