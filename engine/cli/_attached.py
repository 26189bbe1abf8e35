"""Commands that see attached MCP servers' tools: connect, run the command's body, disconnect.

``list``, ``export`` and ``lint`` show or check the tools of ``via: client``
servers next to local ones, so they connect first (all servers at once,
each bounded by ``--connect-timeout``); ``call`` connects only the server
its tool needs, if any; a server that fails is reported on
standard error and left out, like at run time. ``--offline`` skips
connecting. Imports ``mcp`` only when a manifest declares such a server.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Collection
    from typing import Any, TypeVar

    from .._registry import ToolRegistry
    from .._shadowing import Shadowed
    from ..mcp._attaching import McpAttachment

    T = TypeVar("T")

__all__ = [
    "add_connect_options",
    "client_servers",
    "report_health",
    "shadowed_words",
    "with_attached",
]


def add_connect_options(parser: argparse.ArgumentParser) -> None:
    """``--offline`` and ``--connect-timeout`` for commands that reach MCP servers."""
    parser.add_argument(
        "--offline",
        action="store_true",
        help="do not connect to MCP servers declared with via: client (their tools are left out)",
    )
    parser.add_argument(
        "--connect-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long each MCP server may take to start and list its tools (default: 30)",
    )


def client_servers(registry: ToolRegistry) -> list[str]:
    """Names of the declared servers tooldeck itself connects to."""
    return [s.name for s in registry.mcp_servers() if s.via == "client"]


def with_attached(
    registry: ToolRegistry,
    args: argparse.Namespace,
    body: Callable[[McpAttachment | None], T],
    *,
    only: Collection[str] | None = None,
) -> T:
    """Run ``body`` with the client-side servers attached; returns what it returns.

    ``body`` gets None (and nothing connects, no event loop starts) with
    ``--offline`` or when no server is declared ``via: client``. Otherwise it
    runs in a worker thread while an event loop in this one serves the
    connections, so it may use the sync ``registry.call`` (the registry's
    loop portal brings the call to the servers). Every server is listed
    before ``body`` runs, ``initialize_on_startup: false`` ones included: a
    command shows all the tools it can. The servers are stopped however the
    command ends: normally, with an error, or interrupted (Ctrl-C, SIGTERM).
    ``only`` names the servers the command needs (``call`` of one tool): the
    others are not started at all.
    """
    wanted = [
        spec
        for spec in registry.mcp_servers()
        if spec.via == "client" and (only is None or spec.name in only)
    ]
    if args.offline or not wanted:
        return body(None)
    import asyncio

    async def attached() -> T:
        from ..mcp._attaching import attach_servers

        async with attach_servers(
            registry, wanted, connect_timeout=args.connect_timeout
        ) as attachment:
            # The body's first listing would refresh the lazy servers itself; the
            # report comes first, so they are listed before it, to be in it.
            await registry.arefresh_sources()
            report_health(attachment)
            return await _in_daemon_thread(lambda: body(attachment))

    return asyncio.run(attached())


async def _in_daemon_thread(body: Callable[[], T]) -> T:
    """``await asyncio.to_thread(body)``, in a daemon thread of its own.

    Interrupted, the command closes its servers and ends without waiting for
    ``body`` (a local tool may still run): a thread of the loop's executor
    would hold ``asyncio.run``'s shutdown, and the process, until it returns.
    """
    import asyncio
    import contextlib
    import contextvars
    import threading

    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def complete(value: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def run() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = body()
        except BaseException as exc:  # handed to the waiting task, which raises it
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
            loop.call_soon_threadsafe(complete, value, error)

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name="tooldeck-command", daemon=True).start()
    return await future


def report_health(attachment: McpAttachment) -> None:
    """One line on standard error per server that failed and per tool it left out.

    What the server said is kept to one line each (:func:`one_line`): a line
    break in it must not look like another line of tooldeck's.
    """
    from ._terminal import one_line, quoted

    redact = attachment.registry.secrets.redact

    def say(name: str, text: str) -> None:
        sys.stderr.write(one_line(redact(f"tooldeck: MCP server {quoted(name)}: {text}")) + "\n")

    for name, health in attachment.health().items():
        if health.error is not None:
            say(name, health.error)
        for lost in health.shadowing:
            say(name, shadowed_words(lost))
        reasons = dict(zip(health.skipped, health.skipped_reasons, strict=False))
        for skipped in health.skipped:
            why = reasons.get(skipped, "it cannot be registered")
            say(name, f"tool {quoted(skipped)} is left out: {why}")
        for line in health.unresolved:
            say(name, f"left out {line}")


def shadowed_words(lost: Shadowed) -> str:
    """What was left out and what holds its name, for a line on standard error."""
    from ._terminal import quoted

    holder = lost.holder
    if holder.kind == "use":
        by = f"the use: entry {quoted(holder.name)} ({holder.server}/{holder.tool})"
    elif holder.kind == "server":
        by = (
            f"the tool {quoted(holder.tool or holder.name)} of MCP server "
            f"{quoted(holder.server or '')}, declared before it"
        )
    else:
        by = "a local tool of that name"
    if lost.use:
        entry = f"use: entry {quoted(lost.name)} ({lost.server}/{lost.tool})"
        return f"{entry} is shadowed by {by}; it is left out"
    return f"tool {quoted(lost.name)} is shadowed by {by}; the server's tool is left out"
