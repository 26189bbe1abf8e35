"""Ending an HTTP exchange at the call's deadline, whatever phase it is in.

httpx2's timeouts bound each socket operation, not the whole: a server that sends its response
head one line at a time, each line within the read timeout, keeps ``send`` reading for ever (the
body is checked against the deadline piece by piece, the head is not). :class:`Cutoff` closes
that gap: the connection's socket is caught as httpcore makes it (the public ``trace`` request
extension reports ``connection.connect_tcp.complete`` with the stream), and a timer shuts it down
(``shutdown(SHUT_RDWR)`` on a duplicate of its descriptor, which wakes a reader blocked in
``recv`` in another thread, TLS or not) when the deadline passes. The read then fails, and the
caller reports a timeout because the deadline has passed.
"""

from __future__ import annotations

import socket
import threading
from contextlib import suppress
from types import TracebackType
from typing import Any

__all__ = ["Cutoff"]


class Cutoff:
    """Shuts down the connections of one exchange ``seconds`` from now (a context manager)."""

    def __init__(self, seconds: float) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._expired = False
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Cutoff:
        self._timer.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._timer.cancel()
        with self._lock:
            self._expired = True  # a socket made after this is not kept
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()

    def trace(self, name: str, info: dict[str, Any]) -> None:
        """The ``trace`` extension's callback: keep each new connection's socket."""
        if not name.endswith("connect_tcp.complete"):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        copy = sock.dup()
        with self._lock:
            if not self._expired:
                self._sockets.append(copy)
                return
        _shut(copy)
        copy.close()

    def _expire(self) -> None:
        with self._lock:
            self._expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
