"""A minimal MCP client session over Streamable HTTP: the load generator of ``serve_load.py``.

One client as a real one behaves (the legacy handshake era, with a session):
``initialize`` once, ``notifications/initialized``, a standing GET stream for
the server's notifications, then ``tools/call`` in a loop; when a
``notifications/tools/list_changed`` arrives, the next request is a
``tools/list`` (what a client does to learn the new list). Every request
carries the same ``Authorization: Bearer`` header when a token is given.

It speaks raw HTTP/1.1 on asyncio streams (one keep-alive connection for the
requests, one for the GET stream), sending the bytes ``mcp.Client`` sends and
reading a JSON or SSE answer just far enough to judge it. That costs a few
tens of µs per call, where an ``mcp.Client`` costs ~1 ms of CPU: sixteen of
those in one process, on a 2-core machine, would set the pace instead of the
server. Unlike ``benchmarks/mcp.py``'s ``RawMcpHttp`` it never aborts: a
failed call (an HTTP error, an ``isError`` result, a wrong sum, a timeout, a
dropped connection) is counted with its reason, and the client goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["CallFailed", "McpSession", "SessionStats"]

PROTOCOL_VERSION = "2025-11-25"
"""The handshake-era version the session asks for (``LATEST_HANDSHAKE_VERSION`` of mcp 2.3)."""


class CallFailed(Exception):
    """A request that did not get the answer it should have; the message is the reason."""


@dataclass
class SessionStats:
    """What one client saw besides its timed calls."""

    list_changed: int = 0
    """``notifications/tools/list_changed`` received on the GET stream."""
    lists: int = 0
    """``tools/list`` requests sent after a notification."""
    descriptions: Counter[str] = field(default_factory=Counter)
    """The ``add`` tool's description in each ``tools/list`` answer."""
    reconnects: int = 0
    """Keep-alive connections the server had closed (idle between rounds), reopened."""
    stream_errors: list[str] = field(default_factory=list)
    """Why the GET stream ended, if it did before the end."""


class McpSession:
    """One client: a session, a request connection and a notification stream."""

    def __init__(
        self, port: int, *, token: str | None, arguments: dict[str, int], expected: str
    ) -> None:
        self.port = port
        self.auth = f"authorization: Bearer {token}\r\n" if token else ""
        self.params = json.dumps({"name": "add", "arguments": arguments})
        self.expected = expected.encode()
        self.headers = ""
        self.next_id = 1
        self.stats = SessionStats()
        self.list_due = False
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.stream_task: asyncio.Task[None] | None = None

    # ----------------------------------------------------------- life cycle
    async def open(self) -> None:
        """Initialize the session and open the GET stream; raises CallFailed."""
        hello = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "serve-load", "version": "0"},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        status, headers, payload = await self._post(body.encode())
        session = headers.get("mcp-session-id")
        if status != 200 or session is None:
            raise CallFailed(f"initialize -> {status} {payload[:200]!r}")
        self.headers = f"mcp-session-id: {session}\r\nmcp-protocol-version: {PROTOCOL_VERSION}\r\n"
        note = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
        status, _, payload = await self._post(note)
        if status != 202:
            raise CallFailed(f"notifications/initialized -> {status} {payload[:200]!r}")
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.stream_task = asyncio.create_task(self._listen(ready))
        await ready

    async def close(self) -> None:
        if self.stream_task is not None:
            self.stream_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.stream_task
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()

    # ------------------------------------------------------------- requests
    async def call(self) -> None:
        """One ``tools/call`` of ``add``; raises CallFailed unless it returned the sum."""
        status, payload = await self._request("tools/call", self.params)
        if status != 200:
            raise CallFailed(f"HTTP {status}")
        if b'"isError":false' not in payload or self.expected not in payload:
            raise CallFailed(f"result {_reason(payload)}")

    async def list_if_due(self) -> None:
        """After a ``list_changed``: one ``tools/list``, as a client refreshes its list."""
        if not self.list_due:
            return
        self.list_due = False
        status, payload = await self._request("tools/list", "{}")
        self.stats.lists += 1
        if status != 200:
            raise CallFailed(f"tools/list HTTP {status}")
        try:
            tools = json.loads(payload)["result"]["tools"]
            description = next(t["description"] for t in tools if t["name"] == "add")
        except (ValueError, KeyError, TypeError, StopIteration):
            raise CallFailed(f"tools/list {_reason(payload)}") from None
        self.stats.descriptions[description] += 1

    async def _request(self, method: str, params: str) -> tuple[int, bytes]:
        request_id = self.next_id
        self.next_id += 1
        body = f'{{"jsonrpc":"2.0","id":{request_id},"method":"{method}","params":{params}}}'
        status, headers, payload = await self._post(body.encode())
        if headers.get("content-type", "").startswith("text/event-stream"):
            events = [line for line in payload.split(b"\n") if line.startswith(b"data: ")]
            payload = events[-1][6:].strip() if events else b""
        return status, payload

    async def _post(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        """Send on the keep-alive connection, reopening it once if the server had closed it.

        uvicorn closes a keep-alive connection idle for 5 s (while the other
        server's round runs; every round starts with an untimed call). A request
        cut short any other way (a timeout, a cancellation) drops the connection,
        whose next answer would be that request's, and the next one opens anew.
        """
        for attempt in (0, 1):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            try:
                return await self._exchange(body)
            except (asyncio.IncompleteReadError, ConnectionError):
                self._drop()
                if attempt:
                    raise
                self.stats.reconnects += 1
            except BaseException:
                self._drop()
                raise
        raise AssertionError("unreachable")

    def _drop(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def _exchange(self, body: bytes) -> tuple[int, dict[str, str], bytes]:
        reader, writer = self.reader, self.writer
        assert reader is not None
        assert writer is not None
        writer.write(
            f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{self.port}\r\n"
            "accept: application/json, text/event-stream\r\ncontent-type: application/json\r\n"
            f"{self.auth}{self.headers}content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        status, headers = await _read_head(reader)
        if "content-length" in headers:
            return status, headers, await reader.readexactly(int(headers["content-length"]))
        if headers.get("transfer-encoding") != "chunked":
            return status, headers, b""
        chunks = []
        while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
        await reader.readuntil(b"\r\n")  # the end of the (empty) trailer
        return status, headers, b"".join(chunks)

    # --------------------------------------------------------- notifications
    async def _listen(self, ready: asyncio.Future[None]) -> None:
        """The standing GET stream: count ``list_changed`` and mark a ``tools/list`` due."""
        writer: asyncio.StreamWriter | None = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            writer.write(
                f"GET /mcp HTTP/1.1\r\nhost: 127.0.0.1:{self.port}\r\n"
                f"accept: text/event-stream\r\n{self.auth}{self.headers}\r\n".encode()
            )
            status, headers = await _read_head(reader)
            if status != 200 or headers.get("transfer-encoding") != "chunked":
                raise CallFailed(f"GET stream -> {status} {headers}")
            ready.set_result(None)
            buffer = b""
            while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                buffer = (buffer + await reader.readexactly(size)).replace(b"\r\n", b"\n")
                await reader.readexactly(2)
                *events, buffer = buffer.split(b"\n\n")  # SSE: events end at a blank line
                for event in events:
                    if b"notifications/tools/list_changed" in event:
                        self.stats.list_changed += 1
                        self.list_due = True
            self.stats.stream_errors.append("GET stream ended")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                self.stats.stream_errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            if writer is not None:
                writer.close()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split(" ", 2)[1])
    headers = {}
    for line in head[1:]:
        if line:
            key, _, value = line.partition(":")
            headers[key.lower()] = value.strip()
    return status, headers


def _reason(payload: bytes) -> str:
    """A short, stable reason for a failed answer (the error text, cut)."""
    try:
        reply = json.loads(payload)
    except ValueError:
        return repr(payload[:120])
    if "error" in reply:
        return f"JSON-RPC error {str(reply['error'].get('message'))[:100]!r}"
    content = reply.get("result", {}).get("content") or [{}]
    return f"isError {str(content[0].get('text'))[:100]!r}"
