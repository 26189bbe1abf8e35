"""SIGTERM drains: new requests get 503, calls in flight finish, then the process exits 0.

uvicorn's own shutdown closes the listening socket at once (new clients get
"connection refused", which a load balancer may count against the pool) and
re-raises the signal when it is done (so ``tooldeck serve`` would end as
killed). :class:`DrainingServer` replaces that with a drain, through
uvicorn's public ``Server`` hooks (``handle_exit``, ``on_tick``):

1. the first SIGTERM or SIGINT starts it: :class:`~.limits.Limits` answers
   every new request 503 with ``Connection: close``; the listener stays open;
2. once no request is in flight (event streams aside), or ``drain_timeout``
   seconds have passed, open event streams are ended and uvicorn's shutdown
   runs (it cancels what is still running after a short grace);
3. :meth:`serve` returns normally: the CLI exits 0.

A second signal stops at once, as a second Ctrl-C does.
"""

from __future__ import annotations

import time
from types import FrameType

import uvicorn

from .limits import Limits

__all__ = ["DrainingServer"]

GRACE_AFTER_DRAIN = 2
"""Seconds uvicorn's shutdown waits for connections after the drain before cancelling."""


class DrainingServer(uvicorn.Server):
    """A uvicorn server that drains on SIGTERM (see the module)."""

    def __init__(self, config: uvicorn.Config, limits: Limits, drain_timeout: float) -> None:
        super().__init__(config)
        self.limits = limits
        self.drain_timeout = drain_timeout
        self.drain_deadline: float | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # Not recorded as a captured signal: uvicorn would raise it again once served.
        if self.drain_deadline is not None:  # a second signal: stop now
            self.should_exit = True
            self.force_exit = True
            return
        self.start_drain()

    def start_drain(self) -> None:
        """Refuse new requests from now on; exit once the ones in flight are done."""
        if self.drain_deadline is None:
            self.drain_deadline = time.monotonic() + self.drain_timeout
            self.limits.start_drain()

    async def on_tick(self, counter: int) -> bool:
        deadline = self.drain_deadline
        done = deadline is not None and (self.limits.requests <= 0 or time.monotonic() >= deadline)
        if done and not self.should_exit:
            self.limits.end_drain()
            self.should_exit = True
        return await super().on_tick(counter)
