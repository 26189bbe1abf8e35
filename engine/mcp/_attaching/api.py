"""The two ways to attach client-side MCP servers: ``async with`` on a loop, or a background loop.

:func:`attach_servers` is for asyncio code; :func:`attach_in_background`
runs an :class:`~tooldeck.mcp._attaching.attachment.McpAttachment` on an event loop in a
daemon thread so sync scripts (and ``tooldeck`` commands) can call attached
tools with ``registry.call`` from any other thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from .attachment import McpAttachment

if TYPE_CHECKING:
    from ..._model import McpServerSpec
    from ..._registry import ToolRegistry

__all__ = ["BackgroundAttachment", "attach_in_background", "attach_servers"]


@contextlib.asynccontextmanager
async def attach_servers(
    registry: ToolRegistry,
    servers: Iterable[McpServerSpec] | None = None,
    **options: Any,
) -> AsyncIterator[McpAttachment]:
    """``async with attach_servers(registry) as attached:`` on the running loop.

    Connects every client-side server, registers its tools, and on exit
    unregisters them and closes every connection. If the registry has no loop
    yet, it uses the running one for the duration. ``options`` go to
    :class:`McpAttachment`.

    Closing finishes even when the block is left by a cancellation that
    lands while it closes (Ctrl-C or SIGTERM through ``asyncio.run`` cancels
    the main task, which may be late: uvicorn re-raises the signal after its
    own graceful shutdown), so no stdio server is left running; a second
    cancellation still interrupts it.
    """
    attachment = McpAttachment(registry, servers, **options)
    try:
        await attachment.start()
        yield attachment
    finally:
        closing = asyncio.ensure_future(attachment.aclose())
        try:
            await asyncio.shield(closing)
        except asyncio.CancelledError:
            await closing
            raise


class BackgroundAttachment:
    """An :class:`McpAttachment` on an event loop in a daemon thread, for sync scripts.

    ``registry.call`` from any other thread reaches the servers; :meth:`close`
    (or leaving the ``with`` block) detaches and stops the loop.
    """

    def __init__(self, attachment: McpAttachment, loop: asyncio.AbstractEventLoop) -> None:
        self.attachment = attachment
        self.loop = loop

    def __enter__(self) -> McpAttachment:
        return self.attachment

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def run(self, coroutine: Any) -> Any:
        """Run one of the attachment's coroutines (``refresh()``...) on its loop and wait."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def close(self) -> None:
        if self.loop.is_closed():
            return
        if self.loop.is_running():
            with contextlib.suppress(RuntimeError):
                self.run(self.attachment.aclose())
            registry = self.attachment.registry
            if registry.loop is self.loop:
                registry.use_loop(None)
            self.loop.call_soon_threadsafe(self.loop.stop)


def attach_in_background(
    registry: ToolRegistry,
    servers: Iterable[McpServerSpec] | None = None,
    **options: Any,
) -> BackgroundAttachment:
    """Attach the servers from sync code: ``with attach_in_background(registry) as attached:``.

    Starts a loop in a daemon thread, makes it the registry's loop and attaches
    there. Not for code already inside an event loop (use :func:`attach_servers`).
    """
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        try:
            loop.run_forever()
        finally:
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    threading.Thread(target=run, name="tooldeck-mcp-loop", daemon=True).start()
    ready.wait()
    registry.use_loop(loop)

    async def create() -> McpAttachment:
        attachment = McpAttachment(registry, servers, **options)
        await attachment.start()
        return attachment

    try:
        attachment = asyncio.run_coroutine_threadsafe(create(), loop).result()
    except BaseException:
        loop.call_soon_threadsafe(loop.stop)
        raise
    return BackgroundAttachment(attachment, loop)
