"""A scripted OpenAI-compatible server on loopback, for the real ``openai`` client.

Speaks just enough of ``POST /v1/responses`` and ``POST /v1/chat/completions``:
each request takes the next :class:`Turn` of the script (function calls with
their ids and arguments, hosted MCP approval requests, or a final text, with
usage) and answers it in the shape of the endpoint it came to. Every request
body is recorded, parsed, in :attr:`ScriptedServer.requests`, so tests assert
exactly what the client sent. A request past the end of the script gets a 400
(the client raises at once; it does not retry 4xx), naming the request.

Runs ``http.server`` in a daemon thread; ``with ScriptedServer() as server``
starts and stops it. ``server.url`` is the ``base_url`` for ``openai.OpenAI``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Approval", "Call", "Recorded", "ScriptedServer", "Turn", "call", "say"]


@dataclass(frozen=True)
class Call:
    """A function call the model makes: ``arguments`` is sent as this text, as is."""

    name: str
    arguments: str
    call_id: str


@dataclass(frozen=True)
class Approval:
    """A hosted MCP server's approval request (Responses' ``mcp_approval_request``)."""

    id: str
    server_label: str
    name: str
    arguments: str = "{}"


@dataclass(frozen=True)
class Turn:
    """One scripted reply: calls (and approval requests), or text, or both."""

    calls: tuple[Call, ...] = ()
    text: str | None = None
    approvals: tuple[Approval, ...] = ()
    usage: tuple[int, int] = (10, 5)
    """(input tokens, output tokens); the total is their sum."""


def call(name: str, arguments: Any, call_id: str) -> Call:
    """``Call`` with arguments given as a value (dumped) or as raw text (kept, broken or not)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Call(name, text, call_id)


def say(text: str, usage: tuple[int, int] = (10, 5)) -> Turn:
    return Turn(text=text, usage=usage)


@dataclass(frozen=True)
class Recorded:
    path: str
    body: dict[str, Any]


@dataclass
class ScriptedServer:
    """The server; ``script(*turns)`` sets what the next requests get, in order."""

    turns: list[Turn] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *turns: Turn) -> None:
        with self._lock:
            self.turns = list(turns)

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    # ------------------------------------------------------------------ replies
    def reply(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(Recorded(path, body))
            number = len(self.requests)
            if not self.turns:
                return 400, {
                    "error": {
                        "message": f"request {number} to {path}: the script has no more turns",
                        "type": "invalid_request_error",
                    }
                }
            turn = self.turns.pop(0)
        if path.endswith("/responses"):
            return 200, _response(turn, number, body)
        if path.endswith("/chat/completions"):
            return 200, _completion(turn, number, body)
        return 404, {"error": {"message": f"no endpoint {path}", "type": "not_found"}}


def _response(turn: Turn, number: int, body: dict[str, Any]) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if turn.text is not None:
        output.append(
            {
                "type": "message",
                "id": f"msg_{number}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    output.extend(
        {
            "type": "function_call",
            "id": f"fc_{c.call_id}",
            "call_id": c.call_id,
            "name": c.name,
            "arguments": c.arguments,
            "status": "completed",
        }
        for c in turn.calls
    )
    output.extend(
        {
            "type": "mcp_approval_request",
            "id": a.id,
            "server_label": a.server_label,
            "name": a.name,
            "arguments": a.arguments,
        }
        for a in turn.approvals
    )
    taken, given = turn.usage
    return {
        "id": f"resp_{number}",
        "object": "response",
        "created_at": 1_700_000_000,
        "status": "completed",
        "model": body.get("model", "?"),
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": taken,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": given,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": taken + given,
        },
    }


def _completion(turn: Turn, number: int, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for c in turn.calls
        ]
    taken, given = turn.usage
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body.get("model", "?"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if turn.calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": taken,
            "completion_tokens": given,
            "total_tokens": taken + given,
        },
    }


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the client expects
        disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            status, payload = server.reply(self.path, body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test output is the assertions'."""

    return Handler
