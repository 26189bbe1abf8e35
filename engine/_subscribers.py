"""Delivering registry changes to listeners, from whichever thread made the change.

Changes come from application code, from the hot-reload worker thread and
from MCP servers refreshing their tool lists, while a listener such as an MCP
server's ``list_changed`` sender belongs to an event loop. So a sync callback
runs in the changing thread (it must be thread-safe), and an ``async def``
callback is scheduled on the loop it subscribed from; it never runs on the
wrong loop, and a stopped loop drops the notification with a log line.
Deliveries are serialised, so every listener sees changes in the order they
were made.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from ._log import get_logger
from ._portal import running_loop

if TYPE_CHECKING:
    import asyncio

    from ._entries import RegistryChange

__all__ = ["Subscriber", "Subscribers"]

log = get_logger("tooldeck.registry")

Subscriber: TypeAlias = Callable[[str | None, "RegistryChange"], "Awaitable[Any] | Any"]
"""``callback(group, change)``; sync, or ``async def``."""


@dataclass(frozen=True)
class _Listener:
    callback: Subscriber
    loop: asyncio.AbstractEventLoop | None
    """For async callbacks: where they run."""


class Subscribers:
    """The registry's listeners; :meth:`notify` never raises."""

    def __init__(self) -> None:
        self._listeners: tuple[_Listener, ...] = ()
        self._lock = threading.Lock()
        self._delivering = threading.RLock()  # a listener may change the registry again

    def add(
        self, callback: Subscriber, default_loop: asyncio.AbstractEventLoop | None
    ) -> Callable[[], None]:
        """Register ``callback``; returns a function that unregisters it."""
        loop = None
        if inspect.iscoroutinefunction(callback) or inspect.iscoroutinefunction(
            getattr(callback, "__call__", None)  # noqa: B004 - callable objects
        ):
            loop = running_loop() or default_loop
            if loop is None:
                raise ValueError(
                    "an async subscriber needs an event loop: subscribe from a running loop "
                    "or create the registry with one (ToolRegistry(loop=...))"
                )
        listener = _Listener(callback, loop)
        with self._lock:
            self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            with self._lock:
                self._listeners = tuple(x for x in self._listeners if x is not listener)

        return unsubscribe

    def notify(self, changes: Iterable[tuple[str | None, RegistryChange]]) -> None:
        """Tell every listener about every non-empty change, in order."""
        pending = [(group, change) for group, change in changes if change]
        if not pending:
            return
        with self._delivering:
            listeners = self._listeners
            for group, change in pending:
                for listener in listeners:
                    _deliver(listener, group, change)


def _deliver(listener: _Listener, group: str | None, change: RegistryChange) -> None:
    import asyncio

    callback = listener.callback
    try:
        if listener.loop is None:
            callback(group, change)
            return
        loop = listener.loop
        if loop.is_closed() or not loop.is_running():
            log.warning("registry subscriber %r dropped a change: its event loop stopped", callback)
            return
        coroutine = cast(Coroutine[Any, Any, Any], callback(group, change))
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        future.add_done_callback(lambda done: _report(callback, done))
    except (Exception, SystemExit) as exc:
        log.warning("registry subscriber %r failed: %s", callback, exc)


def _report(callback: Subscriber, done: Any) -> None:
    if done.cancelled():
        return
    exc = done.exception()
    if exc is not None:
        log.warning("registry subscriber %r failed: %s", callback, exc)
