"""A stdio transport for attached MCP servers in which every message is bounded in size.

The SDK's ``stdio_client`` keeps what it has read of a line in one string and
splits ``buffer + chunk`` again for every chunk it reads: a server that writes
one endless line costs quadratic time on the event loop (other clients of
``tooldeck serve`` waited seconds for a local tool) and unbounded memory. This
transport reads bytes in chunks, looks for the newline in the new chunk only,
and refuses a line longer than ``max_line_bytes``: the server is stopped and
the connection ends with that reason (:class:`TransportState`), which every
request still waiting on it reports.

Built from public pieces: an anyio process in a session of its own (so its
whole process group can be stopped), memory object streams, and
``mcp_types.jsonrpc_message_adapter``. Also unlike the SDK's transport:

* a line that is not JSON-RPC is logged at debug level (no traceback on
  stderr) and passed on as an exception value, which the session hands to its
  message handler;
* a reply the SDK cannot read (a raw control character inside a string, a
  result of the wrong shape) whose ``id`` can still be read answers that
  request with an error at once, instead of leaving it to its timeout;
* a ``tools/list`` page with more than ``max_tools`` tools is answered with an
  error (:data:`TOO_MANY_TOOLS`) before the SDK validates every tool of it on
  the event loop (60,000 tiny tools cost it seconds there).

Shutting down follows the MCP lifecycle: close the server's stdin, give it a
grace period, then SIGTERM and SIGKILL its process group. POSIX only; on
Windows :mod:`tooldeck.mcp._attaching.transports` uses the SDK's transport.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage
from mcp_types import (
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
    jsonrpc_message_adapter,
)

from ..._words import plural

if TYPE_CHECKING:
    from anyio.abc import Process
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

__all__ = ["TOO_MANY_TOOLS", "TransportState", "bounded_stdio", "parse_line"]

log = logging.getLogger("tooldeck.mcp")

_CHUNK = 64 * 1024
"""Bytes asked of the pipe at a time."""

_GRACE = 2.0
"""Seconds for each shutdown step: exit after stdin closes, then after SIGTERM (then SIGKILL)."""

_POLL = 0.01
"""How often the process's exit is looked for while waiting."""

TOO_MANY_TOOLS = -32010
"""tooldeck's own error code, never on the wire: a ``tools/list`` page over ``max_tools``."""


@dataclass
class TransportState:
    """What a transport tells its connection, shared by the transports of every kind."""

    refused: str | None = None
    """Why the transport refused a message from the server (and ended, for stdio); set
    before the connection closes, so whoever sees it close can say why."""
    received: int = 0
    """Bytes of messages received so far (a listing's budget is counted with it)."""


@contextlib.asynccontextmanager
async def bounded_stdio(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None,
    cwd: str | None,
    errlog: Any,
    max_line_bytes: int,
    max_tools: int,
    state: TransportState,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``command`` and yield the session's (read, write) streams over its stdio.

    ``env`` is added to the SDK's default environment (``PATH``, ``HOME`` ...),
    as the SDK's transport does. Leaving the block stops the server, however
    the block is left (shielded and bounded: at most about three grace periods).
    """
    process = await anyio.open_process(
        list(command),
        env=get_default_environment() | dict(env or {}),
        stderr=errlog,
        cwd=cwd,
        start_new_session=True,  # its own process group: stopping it reaches its children
    )
    # No await between the spawn and entering the task group, so a cancellation
    # cannot land in between and leave the process running.
    sink, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, source = anyio.create_memory_object_stream[SessionMessage](0)
    listings = _Listings(max_tools)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_read, process, sink, max_line_bytes, state, listings)
        tasks.start_soon(_write, process, source, sink, listings)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                await _stop(process)
            tasks.cancel_scope.cancel()


async def _read(
    process: Process,
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    limit: int,
    state: TransportState,
    listings: _Listings,
) -> None:
    """Split stdout into lines, in linear time, refusing one longer than ``limit`` bytes."""
    assert process.stdout is not None
    stdout = process.stdout
    pending = bytearray()  # the start of a line whose newline has not come yet
    refused = False
    async with sink:
        while not refused:
            try:
                chunk = await stdout.receive(_CHUNK)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the server closed its stdout (or shutdown closed ours)
            except OSError as exc:
                log.debug("MCP server (pid %s): reading its stdout failed: %s", process.pid, exc)
                return
            state.received += len(chunk)
            start = 0
            while (newline := chunk.find(b"\n", start)) >= 0:
                if len(pending) + newline - start > limit:
                    refused = True
                    break
                line = bytes(pending + chunk[start:newline]) if pending else chunk[start:newline]
                pending.clear()
                start = newline + 1
                if not await _deliver(line, sink, listings):
                    await _discard(stdout)  # the session is gone: let the server flush and exit
                    return
            else:
                pending += memoryview(chunk)[start:]
                refused = len(pending) > limit
        state.refused = (
            f"it sent a message over {limit:,} bytes (max_reply_bytes); the server was stopped"
        )
        log.warning("MCP server (pid %s): %s", process.pid, state.refused)
    pending.clear()
    await terminate_posix_process_tree(process, _GRACE)
    await _discard(stdout)  # to the end of the pipe: asyncio closes the process's transport then


async def _deliver(
    line: bytes, sink: MemoryObjectSendStream[SessionMessage | Exception], listings: _Listings
) -> bool:
    """Parse one line and hand it to the session; False once the session is gone."""
    if not line.strip():
        return True
    # On the loop: a worker thread would not help, pydantic holds the GIL while it parses
    # (a line of max_line_bytes made of tiny JSON values costs it about a second).
    item = listings.screen(parse_line(line))
    try:
        await sink.send(item)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        return False
    return True


def parse_line(line: bytes) -> SessionMessage | Exception:
    """One line of the server's stdout as a message, or the reason it is not one (a value).

    A stray byte that is not UTF-8 costs only itself (it reads as U+FFFD).
    """
    text = line.decode("utf-8", "replace")
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        why = _first_error(exc)
        log.debug("MCP server sent a line that is not JSON-RPC: %s", why)
        reply = _unreadable_reply(text, why)
        return reply if reply is not None else exc


def _unreadable_reply(text: str, why: str) -> SessionMessage | None:
    """An error answer to the request a reply the SDK cannot read was meant for.

    Only when the line still reads as a JSON object (lenient about control
    characters inside strings) that has a request ``id`` and a ``result`` or
    ``error``: the request it answers then fails at once with the reason.
    """
    try:
        data = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or "method" in data:
        return None
    ident = data.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    if "result" not in data and "error" not in data:
        return None
    error = ErrorData(code=PARSE_ERROR, message=f"the server's reply could not be read ({why})")
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=ident, error=error))


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            first = errors()[0]
            return str(first.get("msg", exc))[:200]
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__


class _Listings:
    """The ``tools/list`` requests in flight, to screen their answers for ``max_tools``."""

    def __init__(self, max_tools: int) -> None:
        self.max_tools = max_tools
        self.waiting: set[RequestId] = set()

    def sent(self, message: SessionMessage) -> None:
        request = message.message
        if isinstance(request, JSONRPCRequest) and request.method == "tools/list":
            self.waiting.add(request.id)

    def screen(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        """``item``, or an error answer when it is a listing page over ``max_tools``."""
        if not isinstance(item, SessionMessage) or not self.waiting:
            return item
        answer = item.message
        if not isinstance(answer, JSONRPCResponse | JSONRPCError):
            return item
        if answer.id not in self.waiting:
            return item
        self.waiting.discard(answer.id)
        tools = answer.result.get("tools") if isinstance(answer, JSONRPCResponse) else None
        if not isinstance(tools, list) or len(tools) <= self.max_tools:
            return item
        words = f"it lists more than {plural(self.max_tools, 'tool', grouped=True)} (max_tools)"
        error = ErrorData(code=TOO_MANY_TOOLS, message=words)
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=answer.id, error=error))


async def _discard(stdout: Any) -> None:
    """Read and drop the rest of stdout, to its end.

    A server blocked writing could not see its stdin close; and asyncio keeps
    the process's transport open (and warns when it is collected) until every
    pipe has reached its end.
    """
    with contextlib.suppress(
        anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
    ):
        while True:
            await stdout.receive(_CHUNK)


async def _write(
    process: Process,
    source: MemoryObjectReceiveStream[SessionMessage],
    sink: MemoryObjectSendStream[SessionMessage | Exception],
    listings: _Listings,
) -> None:
    """Send the session's messages to the server's stdin, one JSON line each."""
    assert process.stdin is not None
    try:
        async with source:
            async for message in source:
                listings.sent(message)
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send(data.encode("utf-8") + b"\n")
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        # The server stopped reading (it may still be running): end the session's
        # read side too, so a request does not wait for an answer that cannot come.
        await sink.aclose()


async def _stop(process: Process) -> None:
    """Close stdin, wait for the exit, then stop the whole process group; bounded."""
    assert process.stdin is not None
    assert process.stdout is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, _GRACE):
        await terminate_posix_process_tree(process, _GRACE)
        if not await _exited(process, _GRACE):
            log.warning("MCP server process %d survived SIGKILL; abandoning it", process.pid)
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()


async def _exited(process: Process, timeout: float) -> bool:
    """Whether the process exits within ``timeout`` seconds (polled: ``wait()`` also waits
    for the pipes, which a child of the server may hold open)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL)
    return process.returncode is not None
