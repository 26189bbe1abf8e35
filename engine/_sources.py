"""Tool sources: tools the registry holds for someone else, who refreshes them when asked.

An attached MCP server's tools live in the registry like any other (one
group per server), but the list behind them is remote: a server declared
``initialize_on_startup: false`` has published nothing until first use, and
a listing goes stale after its ``cache_ttl``. A :class:`ToolSource` is what
publishes such tools; the registry holds its sources and *pulls*: before it
lists tools (``tools()``, exports, the model loop, the MCP server's
``tools/list``) and before it answers a call of a name it does not hold, it
asks each stale source to refresh. No consumer has to remember to.
pydantic-ai's toolsets (``get_tools`` each step) and FastMCP's providers
(``_list_tools``/``_get_tool`` per request) pull the same way; here the
pull only refreshes, and the registry's snapshot stays the one answer, so a
call of a tool the registry holds never consults a source (the fast path of
``registry.call`` does not change).

Refreshing runs on the source's own event loop and is bounded by its
``refresh_timeout``. Async callers await it (directly on that loop, through
a future from any other). A sync caller waits for it only in a thread that
runs no event loop: a sync listing or call made on a loop's thread answers
from what the registry holds, since waiting there would block that loop
(async code lists with ``await registry.atools()`` and calls with
``acall``). This module imports neither ``asyncio`` nor anything MCP at
import time: the core stays light and knows sources only by this protocol.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ._log import get_logger
from ._portal import running_loop

if TYPE_CHECKING:
    import asyncio

__all__ = ["SourceHolder", "Sources", "ToolSource"]

log = get_logger("tooldeck.registry")


class ToolSource(Protocol):
    """Publishes tools into a registry and refreshes them when the registry asks.

    The registry calls :meth:`stale` and :meth:`provides` from any thread
    (they must be cheap and never block), and runs :meth:`ensure_fresh` on
    :attr:`loop`. ``tooldeck.mcp.McpAttachment`` is the one in tooldeck.
    """

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop :meth:`ensure_fresh` runs on; None: not started (never refreshed)."""
        ...

    @property
    def refresh_timeout(self) -> float:
        """Seconds the registry waits for :meth:`ensure_fresh` before answering without it."""
        ...

    def stale(self) -> bool:
        """Whether :meth:`ensure_fresh` has work to do (a list never fetched, or expired)."""
        ...

    def provides(self, name: str) -> bool:
        """Whether a call of ``name`` (a name the registry does not hold) may be this source's."""
        ...

    async def ensure_fresh(self) -> Mapping[str, Any]:
        """Fetch again what is stale and publish it; never raises for a failing remote."""
        ...


class Sources:
    """The registry's sources, and the two ways of asking the stale ones to refresh.

    The tuple is replaced, never changed in place, so readers in other
    threads iterate a consistent set without a lock.
    """

    __slots__ = ("_all", "_lock")

    def __init__(self) -> None:
        self._all: tuple[ToolSource, ...] = ()
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self._all)

    def __iter__(self) -> Iterator[ToolSource]:
        return iter(self._all)

    def add(self, source: ToolSource) -> Callable[[], None]:
        """Hold ``source`` (once); returns the function that lets it go."""
        with self._lock:
            if not any(s is source for s in self._all):
                self._all = (*self._all, source)

        def let_go() -> None:
            self.remove(source)

        return let_go

    def remove(self, source: ToolSource) -> bool:
        """Let ``source`` go; returns whether it was held."""
        with self._lock:
            kept = tuple(s for s in self._all if s is not source)
            held = len(kept) != len(self._all)
            self._all = kept
        return held

    def _stale(self, name: str | None) -> list[ToolSource]:
        return [s for s in self._all if s.stale() and (name is None or s.provides(name))]

    def refresh(self, name: str | None = None) -> bool:
        """From sync code: refresh the stale sources (that may provide ``name``); wait for them.

        Returns whether any refresh ran (the caller looks again then). Waits
        only in a thread that runs no event loop, and each source for at most
        its ``refresh_timeout``.
        """
        stale = self._stale(name)
        if not stale or running_loop() is not None:
            return False
        import asyncio

        waiting: list[tuple[ToolSource, concurrent.futures.Future[Any]]] = []
        for source in stale:
            loop = source.loop
            if loop is None or loop.is_closed() or not loop.is_running():
                continue
            waiting.append((source, asyncio.run_coroutine_threadsafe(source.ensure_fresh(), loop)))
        for source, future in waiting:
            try:
                future.result(timeout=source.refresh_timeout)
            except concurrent.futures.TimeoutError:
                future.cancel()
                log.warning("%r: no refresh within %ss", source, source.refresh_timeout)
            except Exception as exc:  # a source must not fail a listing or a call
                log.warning("%r: refresh failed: %s: %s", source, type(exc).__name__, exc)
        return bool(waiting)

    async def arefresh(self, name: str | None = None) -> bool:
        """From async code: refresh the stale sources (that may provide ``name``), concurrently.

        On the source's own loop its refresh is awaited directly; from any
        other loop, through a future of it. Returns whether any refresh ran.
        """
        stale = self._stale(name)
        if not stale:
            return False
        import asyncio

        here = asyncio.get_running_loop()
        pending = []
        for source in stale:
            loop = source.loop
            if loop is here:
                pending.append(_bounded(source, source.ensure_fresh()))
            elif loop is not None and not loop.is_closed() and loop.is_running():
                future = asyncio.run_coroutine_threadsafe(source.ensure_fresh(), loop)
                pending.append(_bounded(source, asyncio.wrap_future(future)))
        await asyncio.gather(*pending)
        return bool(pending)


async def _bounded(source: ToolSource, refreshing: Any) -> None:
    """Await one refresh for at most the source's ``refresh_timeout``; never raises but cancel."""
    import asyncio

    try:
        await asyncio.wait_for(refreshing, source.refresh_timeout)
    except TimeoutError:
        log.warning("%r: no refresh within %ss", source, source.refresh_timeout)
    except Exception as exc:  # a source must not fail a listing or a call
        log.warning("%r: refresh failed: %s: %s", source, type(exc).__name__, exc)


class SourceHolder:
    """The registry's methods for the sources it holds (mixed into ToolRegistry)."""

    _sources: Sources

    def add_source(self, source: ToolSource) -> Callable[[], None]:
        """Hold a :class:`~tooldeck._sources.ToolSource`; returns the function that lets it go.

        From then on listing tools, exporting, the model loop and a call of a
        name the registry does not hold ask the source to refresh first when
        it is stale (an MCP attachment adds itself when it starts).
        """
        return self._sources.add(source)

    def remove_source(self, source: ToolSource) -> bool:
        """Let a source go (its tools stay until it removes them); returns whether it was held."""
        return self._sources.remove(source)

    def sources(self) -> tuple[ToolSource, ...]:
        """The sources the registry holds, in the order they were added."""
        return tuple(self._sources)

    def refresh_sources(self, name: str | None = None) -> bool:
        """Refresh the stale sources now, from sync code; returns whether any refresh ran.

        With ``name``, only the sources that may provide a tool of that name.
        Listing and calling do this themselves; call it to pay the round trip
        ahead of time. Waits (each source for at most its ``refresh_timeout``)
        only in a thread that runs no event loop: on a loop's thread it does
        nothing, and async code awaits :meth:`arefresh_sources` instead.
        """
        return bool(self._sources) and self._sources.refresh(name)

    async def arefresh_sources(self, name: str | None = None) -> bool:
        """The async twin of :meth:`refresh_sources`, from any event loop."""
        return bool(self._sources) and await self._sources.arefresh(name)
