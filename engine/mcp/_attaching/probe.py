"""One look at one server's tools, for ``tooldeck import mcp``: connect, list, close.

Attaching keeps a connection open and registers what the server lists;
importing only needs the listing once, as plain JSON values, and a message
a person can act on when the server cannot be started, reached or listed
in time (:class:`ServerUnreachable`, quoting the last lines a stdio server
wrote to its standard error). The connection is the one attaching uses
(:class:`~.connection.McpConnection`), so both see a server alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import tempfile
import time
from collections.abc import Iterator
from typing import IO, Any

from ..._model import McpServerSpec
from .connection import ConnectionLost, McpConnection, describe_error

__all__ = ["DEFAULT_TIMEOUT", "ServerUnreachable", "list_server_tools"]

DEFAULT_TIMEOUT = 30.0
"""Seconds to start (or reach) the server, run the handshake and list its tools."""

_STDERR_LINES = 5
"""Lines of a stdio server's standard error quoted when it cannot be listed."""
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What a quoted line may not hold: controls, line breaks and bidi characters."""


class ServerUnreachable(Exception):
    """The server could not be started, reached, or listed within the timeout."""


async def list_server_tools(
    spec: McpServerSpec, *, timeout: float = DEFAULT_TIMEOUT, errlog: IO[str] | None = None
) -> list[dict[str, Any]]:
    """The server's ``tools/list`` as JSON values (camelCase keys, as the protocol has them).

    Starting, the handshake and the listing share ``timeout`` seconds;
    :class:`ServerUnreachable` says what failed, quoting the last lines a
    stdio server wrote to its standard error. ``errlog`` receives that
    standard error as it was written.
    """
    what = "start" if spec.command is not None else "reach"
    deadline = time.monotonic() + timeout
    with (
        _quiet_mcp_logs(),
        tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr,
    ):
        connection = McpConnection(
            spec, connect_timeout=timeout, errlog=stderr if spec.command is not None else None
        )
        try:
            try:
                await connection.start()
                async with asyncio.timeout(max(deadline - time.monotonic(), 0.001)):
                    tools = await connection.list_tools()
            finally:
                await connection.aclose()
        except ConnectionLost as exc:
            reason = _reason(exc, spec)
            raise ServerUnreachable(
                f"cannot {what} the MCP server: {reason}{_tail(stderr, errlog)}"
            ) from None
        except TimeoutError:
            raise ServerUnreachable(
                f"the MCP server did not list its tools within {timeout:g}s (--timeout)"
                f"{_tail(stderr, errlog)}"
            ) from None
        except Exception as exc:  # a protocol error answering tools/list, a broken stream
            raise ServerUnreachable(
                f"cannot list the MCP server's tools: {describe_error(exc)}{_tail(stderr, errlog)}"
            ) from None
        _tail(stderr, errlog)
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def _reason(exc: BaseException, spec: McpServerSpec) -> str:
    cause = exc.__cause__
    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        cause = cause.exceptions[0]
    if spec.command is not None and isinstance(cause, FileNotFoundError):
        return f"no command {spec.command[0]!r} (not on PATH, or no such file)"
    if spec.command is not None and isinstance(cause, PermissionError):
        return f"{spec.command[0]!r} cannot be run ({cause.strerror or 'permission denied'})"
    text = str(exc)
    if text.startswith("no MCP handshake within"):
        return f"{text} (--timeout); is it an MCP server?"
    if text == "MCPError: Connection closed":
        return "it closed the connection before the handshake (did it exit?)"
    return text


def _tail(stderr: IO[str], errlog: IO[str] | None) -> str:
    """The server's last lines of standard error, as ``; it said: ...`` (copied to errlog)."""
    try:
        stderr.flush()
        stderr.seek(0)
        text = stderr.read()
    except (OSError, ValueError, UnicodeDecodeError):
        return ""
    if errlog is not None and text:
        errlog.write(text if text.endswith("\n") else text + "\n")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    quoted = "\n  ".join(_UNPRINTABLE.sub("?", line)[:300] for line in lines[-_STDERR_LINES:])
    return f"; its standard error ends with:\n  {quoted}"


@contextlib.contextmanager
def _quiet_mcp_logs() -> Iterator[None]:
    """The ``mcp`` package logs tracebacks for a misbehaving server; the message says enough.

    Without a handler of their own, Python's last-resort handler would print
    those records (with tracebacks) on standard error.
    """
    handler = logging.NullHandler()
    loggers = [logging.getLogger(name) for name in ("mcp", "httpx", "tooldeck.mcp")]
    saved = [(logger, logger.propagate) for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, propagate in saved:
            logger.removeHandler(handler)
            logger.propagate = propagate
