"""Per-client request limits, in front of the session managers: no client can use them up.

:class:`LimitsMiddleware` answers before the app runs when a client is over
its budget, so an over-eager or hostile client costs the others nothing:

- **rate**: a token bucket per client (:func:`~tooldeck.mcp._serving.clients.client_key`),
  ``rate_limit`` requests a second with a burst of twice that; over it, 429
  with ``Retry-After`` (the seconds until a token is back).
- **concurrency**: at most ``max_concurrent`` requests in flight per client;
  one more is answered 429 at once, never queued. A GET (a session's event
  stream, held open while the session lives) does not count: sessions are
  capped per client instead (:mod:`.sessions`).
- **slow bodies**: a body that has not fully arrived ``body_timeout`` seconds
  after its headers is answered 408, and the connection closed.
- **draining**: once :meth:`Limits.start_drain` is called (SIGTERM), every new
  request is answered 503 with ``Connection: close`` while the ones in flight
  finish.

A JSON-RPC batch (a JSON array) needs no counting of its own: the ``mcp``
package refuses one with 400 (mcp 2.3 parses one message per POST), so each
call is one request and one token.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from typing import Any

import anyio

from .._serving import client_key
from .options import HttpOptions
from .sessions import SessionTracker, session_of

__all__ = ["Limits", "LimitsMiddleware", "refuse"]

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[Message], Any]

OVERLOADED = -32000
"""The JSON-RPC error code of a refusal body (implementation-defined server error)."""


class _BodyTimedOut(Exception):
    """The request body did not arrive within ``body_timeout``."""


class Limits:
    """The shared state of the per-client limits of one served app.

    Memory is bounded by the clients active lately: a bucket is dropped once it
    has refilled (:meth:`sweep`), a concurrency count once it is back to zero.
    """

    def __init__(self, options: HttpOptions, *, clock: Callable[[], float] = time.monotonic):
        self.rate = options.rate_limit
        self.burst = 2 * options.rate_limit if options.rate_limit else 0.0
        self.max_concurrent = options.max_concurrent
        self.body_timeout = options.body_timeout
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        """key -> (tokens, when counted)."""
        self._in_flight: dict[str, int] = {}
        self.requests = 0
        """Requests in flight, event streams (GET) left out: what a drain waits for."""
        self.draining = False
        self.closing: anyio.Event | None = None
        """Set when the drain is over: open event streams end then (made by :meth:`bind`)."""

    # ------------------------------------------------------------------ rate
    def take(self, key: str) -> float:
        """Spend one of ``key``'s tokens: 0.0, or the seconds until one is back (refused)."""
        if not self.rate:
            return 0.0
        now = self.clock()
        tokens, stamp = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens - 1.0, now)
        return 0.0

    def sweep(self) -> None:
        """Forget the buckets that have refilled: they hold nothing a new one would not."""
        if not self.rate:
            return
        now = self.clock()
        full = self.burst / self.rate
        for key, (tokens, stamp) in list(self._buckets.items()):
            if tokens + (now - stamp) * self.rate >= self.burst or now - stamp >= full:
                del self._buckets[key]

    @property
    def clients(self) -> int:
        """Clients with state kept (a bucket or a request in flight); for tests and metrics."""
        return len(self._buckets.keys() | self._in_flight.keys())

    # ----------------------------------------------------------- concurrency
    def acquire(self, key: str) -> bool:
        count = self._in_flight.get(key, 0)
        if count >= self.max_concurrent:
            return False
        self._in_flight[key] = count + 1
        return True

    def release(self, key: str) -> None:
        count = self._in_flight.get(key, 0) - 1
        if count > 0:
            self._in_flight[key] = count
        else:
            self._in_flight.pop(key, None)

    # ----------------------------------------------------------------- drain
    def start_drain(self) -> None:
        """From now on refuse new requests (503); the ones in flight go on."""
        self.draining = True

    def end_drain(self) -> None:
        """The drain is over: open event streams are told their client went away."""
        self.draining = True
        if self.closing is not None:
            self.closing.set()

    def bind(self) -> None:
        """Create what needs the running event loop (called from the app's lifespan)."""
        if self.closing is None:
            self.closing = anyio.Event()


class LimitsMiddleware:
    """ASGI middleware applying :class:`Limits` and the session tracker to every HTTP request.

    One layer for both (each layer is a frame and a ``send`` wrapper on the path
    of every message): the per-client limits first, then the sessions of
    :class:`~tooldeck.mcp._http.sessions.SessionTracker`, when one is given.
    """

    def __init__(self, app: Any, limits: Limits, tracker: SessionTracker | None = None) -> None:
        self.app = app
        self.limits = limits
        self.tracker = tracker
        if tracker is not None:
            tracker.app = app  # where the DELETE that ends a session goes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limits = self.limits
        if limits.draining:
            await refuse(send, 503, "the server is shutting down; reconnect", close=True)
            return
        key = client_key(scope)
        wait = limits.take(key)
        if wait:
            await refuse(send, 429, "too many requests from this client", retry_after=wait)
            return
        stream = scope["method"] == "GET"  # an event stream: held open, capped per session
        if stream:
            receive = self._until_closing(receive)
        elif limits.acquire(key):
            receive = self._in_time(receive)
        else:
            await refuse(
                send,
                429,
                f"{limits.max_concurrent} requests of this client are in flight",
                retry_after=1.0,
            )
            return
        tracker = self.tracker
        session_id = session_of(scope) if tracker is not None else None
        session = None
        opening = False
        if tracker is not None:
            if session_id is not None:
                session = tracker.begin(session_id)
            elif scope["method"] == "POST":
                opening = True
                await tracker.make_room(key)
        response = _Response(send, opening)
        if not stream:
            limits.requests += 1
        try:
            await self.app(scope, receive, response)
        except _BodyTimedOut:
            if not response.status:
                await refuse(send, 408, "the request body did not arrive in time", close=True)
        finally:
            if not stream:
                limits.requests -= 1
                limits.release(key)
            if session is not None and tracker is not None and session_id is not None:
                tracker.ended(session, scope, response.status, key)
        if opening and tracker is not None and response.opened is not None:
            await tracker.opened_by(response.opened, key, scope)

    def _in_time(self, receive: Receive) -> Receive:
        """``receive`` that raises :class:`_BodyTimedOut` once the body is late."""
        deadline = self.limits.clock() + self.limits.body_timeout
        done = False

        async def receive_in_time() -> Message:
            nonlocal done
            if done:  # after the body: waiting for a disconnect, which may take long
                return await receive()  # type: ignore[no-any-return]
            # asyncio's own timeout: uvicorn runs the app on asyncio, and this is on the
            # path of every request (an anyio cancel scope costs several times more).
            try:
                async with asyncio.timeout(max(0.0, deadline - self.limits.clock())) as window:
                    message: Message = await receive()
            except TimeoutError:
                if window.expired():
                    raise _BodyTimedOut from None
                raise
            if message["type"] != "http.request" or not message.get("more_body", False):
                done = True
            return message

        return receive_in_time

    def _until_closing(self, receive: Receive) -> Receive:
        """``receive`` that reports a disconnect once the drain is over (ends event streams)."""
        limits = self.limits

        async def receive_until_closing() -> Message:
            closing = limits.closing
            if closing is None:
                return await receive()  # type: ignore[no-any-return]
            message: Message = {"type": "http.disconnect"}
            async with anyio.create_task_group() as group:

                async def read() -> None:
                    nonlocal message
                    message = await receive()
                    group.cancel_scope.cancel()

                async def wait_closing() -> None:
                    await closing.wait()
                    group.cancel_scope.cancel()

                group.start_soon(read)
                group.start_soon(wait_closing)
            return message

        return receive_until_closing


class _Response:
    """``send`` that notes the response's status and, for an opening request, its session."""

    __slots__ = ("opened", "opening", "send", "status")

    def __init__(self, send: Send, opening: bool) -> None:
        self.send = send
        self.opening = opening
        self.status = 0
        self.opened: str | None = None

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = status = message["status"]
            if self.opening and status < 400:
                self.opened = session_of(message)
        await self.send(message)


async def refuse(
    send: Send, status: int, message: str, *, retry_after: float | None = None, close: bool = False
) -> None:
    """Answer with ``status`` and a JSON-RPC error body (no id: no request was read)."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": OVERLOADED, "message": message}}
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if retry_after is not None:
        headers.append((b"retry-after", str(max(1, math.ceil(retry_after))).encode()))
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
