"""The attachment as a :class:`~tooldeck._sources.ToolSource`: when its servers need listing.

The registry asks an attachment, from any thread, whether it is stale and
whether a name it does not hold may be one of its servers'; then it runs
:meth:`McpAttachment.ensure_fresh` on the attachment's loop. This mixin
answers the two questions from the servers' state alone (no I/O, no lock),
so asking costs a few comparisons, and says how long a refresh may take:
connecting and listing are each bounded by ``connect_timeout`` already, so
the registry's own bound is only a backstop. :meth:`AttachedSource.close`
makes the source stale on purpose: it ends the connections and the next
use reconnects.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..._registry import ToolRegistry
    from .connection import McpConnection
    from .state import ServerState

__all__ = ["AttachedSource"]

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_REFRESH_MARGIN = 5.0
"""Seconds over connecting plus listing that the registry waits for a refresh."""


class AttachedSource:
    """Freshness of the attached servers' listings; the ToolSource half of McpAttachment."""

    registry: ToolRegistry
    _servers: dict[str, ServerState]
    _connect_timeout: float
    _retry_after: float
    _clock: Callable[[], float]
    _closed: bool
    _loop: asyncio.AbstractEventLoop | None

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop the attachment started on (where refreshes run); None before :meth:`start`."""
        return self._loop

    @property
    def refresh_timeout(self) -> float:
        """Connecting, then listing, each within ``connect_timeout``; and a margin."""
        return 2 * self._connect_timeout + _REFRESH_MARGIN

    def stale(self) -> bool:
        """Whether a server waits for its first listing, or its listing expired.

        A server that failed counts again after ``retry_after``; a closed (or
        not yet started) attachment is never stale.
        """
        if self._closed or self._loop is None:
            return False
        return any(self._expired(state) for state in self._servers.values())

    def provides(self, name: str) -> bool:
        """Whether ``name`` may be a tool of one of the servers, once listed.

        A ``use:`` entry belongs to the server it names; any other name to a
        server whose prefix it starts with (as written, or in its provider-safe
        form, which is what models call), and to every server without a prefix.
        """
        use = self.registry.tool_use(name)
        if use is not None:
            return use.server in self._servers
        for state in self._servers.values():
            prefix = state.spec.prefix
            if not prefix or name.startswith((prefix, _UNSAFE.sub("_", prefix))):
                return True
        return False

    async def close(self) -> None:
        """End every connection (stdio servers stop) and forget the listings; stay attached.

        The tools stay registered and the attachment stays the registry's
        source, now stale: the next listing or call reconnects, as after a
        failure. Each server's listing lock is held while its connection
        ends, so a listing under way finishes first. ``aclose()`` detaches.
        """
        if self._closed:
            return
        relisting = [s.relisting for s in self._servers.values() if s.relisting is not None]
        for task in relisting:
            task.cancel()
        await asyncio.gather(*relisting, return_exceptions=True)
        await asyncio.gather(
            *(self._disconnect(state) for state in self._servers.values()),
            return_exceptions=True,
        )

    async def _disconnect(self, state: ServerState) -> None:
        async with state.list_lock:
            state.listed_at = state.checked_at = None
            await self._evict(state, state.conn)

    if TYPE_CHECKING:  # McpAttachment's

        async def _evict(self, state: ServerState, conn: McpConnection | None) -> None: ...

    def _expired(self, state: ServerState) -> bool:
        if state.checked_at is None:
            return True
        ttl = state.spec.cache_ttl
        if state.error is not None:
            ttl = min(ttl, self._retry_after)
        return self._clock() - state.checked_at >= ttl
