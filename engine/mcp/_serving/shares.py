"""A fair share of the worker threads per client: one client's slow calls never fail another's.

Sync handlers run on the registry's :class:`~tooldeck._calling.WorkerPool`,
which refuses a call at once (``PoolSaturated``) when every thread is busy
rather than queueing it. Served over HTTP, that made one client with 40 slow
calls the reason every other client's call failed. The HTTP limits cap the
requests a client has in flight, but a call goes on after its client hangs
up, so the cap is kept here too, where the call runs: at most ``per_client``
calls of one client (:func:`~.clients.client_key`) run at once. One more
waits briefly for one of that client's own calls to end (a bounded wait: no
more waiters than the client's requests in flight), then is answered with a
tool error. With ``per_client`` below the pool size (8 of 32 by default),
one client leaves most threads to the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio

__all__ = ["DEFAULT_SHARE_WAIT", "CallShares"]

DEFAULT_SHARE_WAIT = 5.0
"""Seconds a call over its client's share waits for one of that client's calls to end."""


class CallShares:
    """Calls in flight per client, capped at ``per_client`` (``None``: no cap)."""

    def __init__(self, per_client: int | None, wait: float = DEFAULT_SHARE_WAIT) -> None:
        self.per_client = per_client
        self.wait = wait
        self._running: dict[str, int] = {}
        self._freed: dict[str, anyio.Event] = {}

    def running(self, key: str) -> int:
        return self._running.get(key, 0)

    def try_take(self, key: str) -> bool:
        """Take one of ``key``'s slots if one is free now (the common case, no await)."""
        cap = self.per_client
        count = self._running.get(key, 0)
        if cap is not None and count >= cap:
            return False
        self._running[key] = count + 1
        return True

    def give_back(self, key: str) -> None:
        """Return a slot :meth:`try_take` (or :meth:`slot`) took."""
        count = self._running[key] - 1
        if count:
            self._running[key] = count
        else:
            del self._running[key]
        freed = self._freed.pop(key, None)
        if freed is not None:
            freed.set()

    @contextlib.asynccontextmanager
    async def slot(self, key: str) -> AsyncIterator[bool]:
        """Hold one of ``key``'s slots; yields False when none came free in time."""
        cap = self.per_client
        if cap is not None and self._running.get(key, 0) >= cap:
            with anyio.move_on_after(self.wait):
                while self._running.get(key, 0) >= cap:
                    freed = self._freed.get(key)
                    if freed is None:
                        freed = self._freed[key] = anyio.Event()
                    await freed.wait()
            if self._running.get(key, 0) >= cap:
                yield False
                return
        self._running[key] = self._running.get(key, 0) + 1
        try:
            yield True
        finally:
            self.give_back(key)
