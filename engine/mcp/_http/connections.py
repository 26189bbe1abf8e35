"""Connection-level limits, in uvicorn's h11 protocol: before any request reaches the app.

uvicorn keeps a connection that sends part of a request's headers open for
as long as the client likes (its keep-alive timer runs only between
requests), and accepts every connection it is offered. :func:`limited_protocol`
returns a subclass of uvicorn's public ``H11Protocol`` (passed as
``uvicorn.Config(http=...)``) that adds two things and changes nothing else:

- **header timeout**: a connection whose request headers are not all in
  ``header_timeout`` seconds after it opened (or after the first byte of the
  next request on a kept-alive one) is closed;
- **connections per client address**: beyond ``max_connections_per_client``
  open connections from one address (an IPv6 one counted by its /64), a new
  one is closed at once, before anything is read from it.

Running out of file descriptors is the last line: :func:`raise_open_files_limit`
lifts the soft limit to the hard one, and :func:`quiet_accept_errors` turns
asyncio's traceback per failed ``accept()`` into one log line a minute.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

from .._serving import address_key
from .options import HttpOptions

__all__ = ["limited_protocol", "quiet_accept_errors", "raise_open_files_limit"]

logger = logging.getLogger(__name__)


class _LimitedH11Protocol(H11Protocol):
    """``H11Protocol`` with a header deadline and a cap on connections per address."""

    header_timeout: float = 10.0
    per_client: int = 128
    open_per_client: ClassVar[dict[str, int]] = {}
    """Open connections per address; one dict per :func:`limited_protocol` class."""

    _counted: str | None = None
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        key = address_key(str(peer[0])) if isinstance(peer, tuple) and peer else "unknown"
        count = self.open_per_client.get(key, 0)
        if count >= self.per_client:
            transport.abort()  # nothing read, nothing answered: the client is over its share
            return
        self.open_per_client[key] = count + 1
        self._counted = key
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        key = self._counted
        if key is None:  # refused in connection_made: uvicorn never saw it
            return
        self._counted = None
        count = self.open_per_client.get(key, 1) - 1
        if count > 0:
            self.open_per_client[key] = count
        else:
            self.open_per_client.pop(key, None)
        self._disarm_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self._awaiting_headers():
            self._disarm_header_timer()
        elif self._header_timer is None and not self.transport.is_closing():
            self._arm_header_timer()  # the first bytes of a request: its headers are due

    def _awaiting_headers(self) -> bool:
        """No request is being served: the next one's headers are what may come.

        Also true while the rest of a body the app never read trickles in after
        its answer (a refused request): that is closed in time as well.
        """
        return self.cycle is None or self.cycle.response_complete

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_late)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if self._awaiting_headers() and not self.transport.is_closing():
            self.transport.abort()


class WorkerProtocol(_LimitedH11Protocol):
    """The limited protocol of a ``--workers`` process, which uvicorn imports by name
    (a class made by :func:`limited_protocol` cannot be sent to another process);
    :func:`configure_worker_protocol` gives it the options."""

    open_per_client: ClassVar[dict[str, int]] = {}


def configure_worker_protocol(options: HttpOptions) -> type[H11Protocol]:
    """Set :class:`WorkerProtocol`'s limits, and return it for uvicorn's ``http=``.

    Sent to a worker process by reference (module and name), so each worker
    sets it up again from the plan (:func:`~tooldeck.mcp._http.worker.create_app`).
    """
    WorkerProtocol.header_timeout = options.header_timeout
    WorkerProtocol.per_client = options.max_connections_per_client
    return WorkerProtocol


def limited_protocol(options: HttpOptions) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with ``options``' header timeout and connection cap."""
    return type(
        "LimitedH11Protocol",
        (_LimitedH11Protocol,),
        {
            "header_timeout": options.header_timeout,
            "per_client": options.max_connections_per_client,
            "open_per_client": {},
        },
    )


def raise_open_files_limit() -> tuple[int, int] | None:
    """Lift the soft limit on open files to the hard one; the (soft, hard) pair now in force."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft, hard


ACCEPT_ERROR_EVERY = 60.0
"""Seconds between two log lines about failing ``accept()`` calls."""


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Log failing ``accept()`` (out of file descriptors) as one line a minute, no traceback."""
    previous = loop.get_exception_handler()
    last = [-ACCEPT_ERROR_EVERY]
    missed = [0]

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            now = time.monotonic()
            missed[0] += 1
            if now - last[0] >= ACCEPT_ERROR_EVERY:
                last[0] = now
                logger.error(
                    "cannot accept connections (%s); %d refusal(s) since the last report: new "
                    "clients wait until connections close (raise the open-files limit, "
                    "or lower --max-connections-per-client)",
                    context.get("exception"),
                    missed[0],
                )
                missed[0] = 0
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
