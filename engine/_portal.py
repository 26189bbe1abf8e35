"""Run coroutine handlers on the event loop they belong to, from sync or async callers.

A coroutine handler that awaits something bound to the application's loop
(an MCP client session, an HTTP client pool, a database driver) fails under
a fresh ``asyncio.run`` ("attached to a different loop"). A
:class:`LoopPortal` remembers the application's loop: sync callers submit
the coroutine to it and wait, async callers on that loop simply await, and
async callers on another loop await a future of it. Without a portal (no
loop known) coroutines run on a fresh loop, in a helper thread when the
calling thread already runs one (:func:`run_coroutine`).

A sync call made *on* the portal's own loop thread cannot wait for that
loop (it would wait for itself), so it falls back to a fresh loop as if
there were no portal; async code should ``await registry.acall(...)``.
"""

from __future__ import annotations

import concurrent.futures
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["LoopPortal", "PortalClosed", "arun_on", "run_coroutine", "run_on", "running_loop"]

_POLL_SECONDS = 0.25
"""How often a waiting sync caller checks that the portal's loop still runs."""


class PortalClosed(RuntimeError):
    """The loop a coroutine was submitted to stopped before the coroutine finished."""


class LoopPortal:
    """Submits coroutines to ``loop`` from any thread; see the module docstring."""

    __slots__ = ("loop",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def __repr__(self) -> str:
        return f"LoopPortal({self.loop!r})"

    def open(self) -> bool:
        """Whether the loop runs and can take work."""
        return self.loop.is_running() and not self.loop.is_closed()

    def run(self, factory: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``factory()``'s awaitable on the loop and wait for it, from sync code."""
        import asyncio

        if not self.open() or running_loop() is self.loop:
            return run_coroutine(factory)
        future = asyncio.run_coroutine_threadsafe(_awaited(factory), self.loop)
        while True:
            done, _ = concurrent.futures.wait([future], timeout=_POLL_SECONDS)
            if done:
                return future.result()
            if not self.open():
                future.cancel()
                raise PortalClosed("the application's event loop stopped during the call")

    async def arun(self, factory: Callable[[], Awaitable[Any]]) -> Any:
        """Await ``factory()``'s awaitable on the loop, from async code on any loop."""
        import asyncio

        if asyncio.get_running_loop() is self.loop or not self.open():
            return await factory()
        future = asyncio.run_coroutine_threadsafe(_awaited(factory), self.loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # the caller gave up (a timeout): stop the work on the other loop
            raise


def run_on(portal: LoopPortal | None, factory: Callable[[], Awaitable[Any]]) -> Any:
    """Run a coroutine from sync code: on the portal's loop if there is one."""
    if portal is None:
        return run_coroutine(factory)
    return portal.run(factory)


async def arun_on(portal: LoopPortal | None, factory: Callable[[], Awaitable[Any]]) -> Any:
    """Await a coroutine from async code: on the portal's loop if there is one."""
    if portal is None:
        return await factory()
    return await portal.arun(factory)


def run_coroutine(factory: Callable[[], Awaitable[Any]]) -> Any:
    """Run an awaitable on a fresh loop, even when this thread already runs one.

    ``factory`` creates the awaitable inside the loop that will run it.
    """
    import asyncio

    async def main() -> Any:
        return await factory()

    if running_loop() is None:
        return asyncio.run(main())
    box: dict[str, Any] = {}

    def worker() -> None:
        try:
            box["value"] = asyncio.run(main())
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=worker, name="tooldeck-async-bridge", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


async def _awaited(factory: Callable[[], Awaitable[Any]]) -> Any:
    return await factory()


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop running in this thread, if any (without importing asyncio to find out)."""
    if "asyncio" not in sys.modules:  # no loop runs before asyncio is imported
        return None
    import asyncio

    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
