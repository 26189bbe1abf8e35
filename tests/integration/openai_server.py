"""A scripted OpenAI-compatible server on loopback, for the real ``openai`` client.

Speaks just enough of ``POST /v1/responses`` and ``POST /v1/chat/completions``:
each request takes the next :class:`Turn` of the script (function calls with
their ids and arguments, hosted MCP approval requests, or a final text, with
usage) and answers it in the shape of the endpoint it came to. Every request
body is recorded, parsed, in :attr:`ScriptedServer.requests`, so tests assert
exactly what the client sent. A request past the end of the script gets a 400
(the client raises at once; it does not retry 4xx), naming the request.

A request with ``"stream": true`` gets the same reply as server-sent events,
spelled as the real API sends them (``Content-Type: text/event-stream``, chunked):
Responses events from ``response.created`` to ``response.completed`` (which holds
the whole response), or Chat Completions chunks (``delta.content``,
``delta.tool_calls`` by index, a usage chunk when ``stream_options.include_usage``,
then ``data: [DONE]``). Text is split at words and arguments into three pieces,
one delta each. With ``hold_after=N``, a streamed reply stops after its N-th
delta until ``server.release`` is set; if the client closes the connection
meanwhile, ``server.gone`` is set.

Runs ``http.server`` in a daemon thread; ``with ScriptedServer() as server``
starts and stops it. ``server.url`` is the ``base_url`` for ``openai.OpenAI``.
"""

from __future__ import annotations

import json
import re
import select
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Approval", "Call", "Recorded", "ScriptedServer", "Turn", "call", "pieces", "say"]


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
    hold_after: int | None = None
    """Stop each streamed reply after this many deltas until :attr:`release` is set."""

    def __post_init__(self) -> None:
        self.release = threading.Event()
        self.held = threading.Event()
        """Set once a streamed reply is holding (its first ``hold_after`` deltas are out)."""
        self.gone = threading.Event()
        """Set when a client closed the connection while its reply was held."""
        self._lock = threading.Lock()
        self._http = _QuietServer(("127.0.0.1", 0), _handler(self))
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


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up (a stream closed early, a pool dropping a connection) is
    normal here: no traceback for it; anything else is still printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the client expects
        disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            status, payload = server.reply(self.path, body)
            if status == 200 and body.get("stream") is True:
                self.stream(_events(payload, body))
                return
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def stream(self, events: Iterator[tuple[str | None, Any]]) -> None:
            """Server-sent events, one HTTP chunk each; held after ``hold_after`` deltas."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            deltas = 0
            try:
                for name, data in events:
                    text = data if isinstance(data, str) else json.dumps(data)
                    event = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
                    self.chunk(event.encode())
                    if _is_delta(name, data):
                        deltas += 1
                        if deltas == server.hold_after and not self.hold():
                            return
                self.chunk(b"")
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                server.gone.set()
                self.close_connection = True

        def chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def hold(self) -> bool:
            """Wait for ``release``; False (and ``gone`` set) if the client hung up first."""
            server.held.set()
            while not server.release.wait(0.01):
                readable, _, _ = select.select([self.connection], [], [], 0)
                if readable and not _peek(self.connection):
                    server.gone.set()
                    self.close_connection = True
                    return False
            return True

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test output is the assertions'."""

    return Handler


# ------------------------------------------------------------------ streaming
_WORDS = re.compile(r"\S+\s*|\s+")


def pieces(text: str, *, words: bool) -> list[str]:
    """``text`` as the deltas that carry it: word by word, or in three pieces."""
    if words:
        return _WORDS.findall(text) or [text]
    step = max(1, -(-len(text) // 3))
    return [text[i : i + step] for i in range(0, len(text), step)] or [""]


def _peek(connection: socket.socket) -> bytes:
    """A byte the client sent, without taking it; b"" once it has closed its side."""
    try:
        return connection.recv(1, socket.MSG_PEEK)
    except OSError:  # reset: gone as well
        return b""


def _is_delta(name: str | None, data: Any) -> bool:
    if name is not None:
        return name.endswith(".delta")
    if not isinstance(data, dict) or not data.get("choices"):
        return False
    delta = data["choices"][0]["delta"]
    calls = delta.get("tool_calls") or ()
    return bool(delta.get("content")) or any(c["function"].get("arguments") for c in calls)


def _events(payload: dict[str, Any], body: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    if payload.get("object") == "response":
        return _response_events(payload)
    usage = bool((body.get("stream_options") or {}).get("include_usage"))
    return _chunks(payload, usage)


def _response_events(response: dict[str, Any]) -> Iterator[tuple[str | None, Any]]:
    """The Responses API's events for ``response`` (``ResponseStreamEvent`` shapes)."""
    number = iter(range(1_000_000))

    def event(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        return kind, {"type": kind, "sequence_number": next(number), **fields}

    started = {**response, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    for index, item in enumerate(response["output"]):
        at = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "message":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            for part_index, part in enumerate(item["content"]):
                empty = {**part, "text": ""}
                yield event(
                    "response.content_part.added", **at, content_index=part_index, part=empty
                )
                for piece in pieces(part["text"], words=True):
                    yield event(
                        "response.output_text.delta",
                        **at,
                        content_index=part_index,
                        delta=piece,
                        logprobs=[],
                    )
                yield event(
                    "response.output_text.done",
                    **at,
                    content_index=part_index,
                    text=part["text"],
                    logprobs=[],
                )
                yield event("response.content_part.done", **at, content_index=part_index, part=part)
        elif item["type"] == "function_call":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            for piece in pieces(item["arguments"], words=False):
                yield event("response.function_call_arguments.delta", **at, delta=piece)
            yield event("response.function_call_arguments.done", **at, arguments=item["arguments"])
        else:
            yield event("response.output_item.added", output_index=index, item=item)
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=response)


def _chunks(completion: dict[str, Any], usage: bool) -> Iterator[tuple[str | None, Any]]:
    """Chat Completions chunks for ``completion`` (``ChatCompletionChunk`` shapes)."""
    head = {
        "id": completion["id"],
        "object": "chat.completion.chunk",
        "created": completion["created"],
        "model": completion["model"],
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        extra = {"usage": None} if usage else {}
        return None, {**head, "choices": [choice], **extra}

    choice = completion["choices"][0]
    message = choice["message"]
    text, calls = message.get("content"), message.get("tool_calls") or []
    yield chunk({"role": "assistant", "content": "" if text is not None else None, "refusal": None})
    for piece in pieces(text, words=True) if text else ():
        yield chunk({"content": piece})
    for index, call in enumerate(calls):
        function = call["function"]
        start = {"name": function["name"], "arguments": ""}
        yield chunk(
            {
                "tool_calls": [
                    {"index": index, "id": call["id"], "type": "function", "function": start}
                ]
            }
        )
        for piece in pieces(function["arguments"], words=False):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, choice["finish_reason"])
    if usage:
        yield None, {**head, "choices": [], "usage": completion["usage"]}
    yield None, "[DONE]"
