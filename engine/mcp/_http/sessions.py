"""Sessions per client: one client's leaked sessions never cost the others theirs.

The session manager of the ``mcp`` package caps sessions in all
(``max_sessions``, then 503 for everyone) and ends idle ones after its own
timeout; it does not know whose a session is. :class:`~tooldeck.mcp._http.limits.LimitsMiddleware`
watches which client (:func:`~tooldeck.mcp._serving.clients.client_key`) each session was opened
by, from the ``mcp-session-id`` header of the answer to the opening request,
and when it was last used, and ends sessions through the manager's public
door, a DELETE with the session's id (the same Host and credential as the
request that opened it, which the manager checks):

- a client over ``max_sessions_per_client`` loses its least recently used one;
- at ``max_sessions`` in all, a new session of a client with fewer than the
  biggest holder ends that holder's least recently used one first (fair share:
  one client never holds the cap alone);
- a session nobody used for ``session_idle_timeout`` is ended by
  :meth:`SessionTracker.sweep` (the manager's own timeout stays as a backstop).

What is kept per session is a few strings and the verified user: bounded,
since the sessions are.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .options import HttpOptions

__all__ = ["SessionTracker", "session_of"]

logger = logging.getLogger(__name__)

_SESSION = b"mcp-session-id"
_KEPT_HEADERS = frozenset({b"host", b"origin"})
"""What the manager checks on the DELETE (Host and Origin, against DNS rebinding)."""
_KEPT_SCOPE = (
    "type",
    "asgi",
    "http_version",
    "scheme",
    "server",
    "client",
    "root_path",
    "path",
    "raw_path",
    "user",
    "auth",
)


class _Session:
    __slots__ = ("active", "id", "key", "last_used", "scope")

    def __init__(self, session_id: str, key: str, scope: dict[str, Any], now: float) -> None:
        self.id = session_id
        self.key = key
        self.scope = scope
        """What the DELETE that ends it needs of the request that opened it."""
        self.last_used = now
        self.active = 0
        """Requests of this session in flight (an open event stream included)."""


class SessionTracker:
    """Who opened which session and when it was last used; ends the ones over a limit."""

    def __init__(self, options: HttpOptions, *, clock: Callable[[], float] = time.monotonic):
        self.per_client = max(1, min(options.max_sessions_per_client, options.max_sessions - 1))
        self.max_sessions = options.max_sessions
        self.idle_timeout = options.session_idle_timeout
        self.clock = clock
        self.app: Any = None
        """The app below the middleware: where the ending DELETE goes (set by the middleware)."""
        self._clients: dict[str, OrderedDict[str, _Session]] = {}
        self._sessions: dict[str, _Session] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    def count(self, key: str) -> int:
        return len(self._clients.get(key, ()))

    # -------------------------------------------------------------- updates
    def opened(self, session_id: str, key: str, scope: dict[str, Any]) -> None:
        kept = {name: scope[name] for name in _KEPT_SCOPE if name in scope}
        kept["headers"] = [(k, v) for k, v in scope.get("headers", ()) if k in _KEPT_HEADERS]
        session = _Session(session_id, key, kept, self.clock())
        self._sessions[session_id] = session
        self._clients.setdefault(key, OrderedDict())[session_id] = session

    def forget(self, session_id: str) -> _Session | None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            owned = self._clients.get(session.key)
            if owned is not None:
                owned.pop(session_id, None)
                if not owned:
                    del self._clients[session.key]
        return session

    def begin(self, session_id: str) -> _Session | None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.active += 1
            session.last_used = self.clock()
            self._clients[session.key].move_to_end(session_id)
        return session

    def end(self, session: _Session) -> None:
        session.active -= 1
        session.last_used = self.clock()

    def ended(self, session: _Session, scope: dict[str, Any], status: int, key: str) -> None:
        """A request of ``session`` was answered ``status``: forget a session that is gone.

        Ended by its client (a DELETE answered 2xx), or gone from the manager (404,
        its idle backstop); a 404 for another client's credential leaves the owner's
        session alone.
        """
        self.end(session)
        gone = status == 404 and key == session.key
        if gone or (scope["method"] == "DELETE" and 200 <= status < 300):
            self.forget(session.id)

    async def opened_by(self, session_id: str, key: str, scope: dict[str, Any]) -> None:
        """The manager opened ``session_id`` for ``key``'s request: track it, trim ``key``'s."""
        if session_id not in self._sessions:
            self.opened(session_id, key, scope)
            await self.trim(key)

    # --------------------------------------------------------------- ending
    async def close(self, session_id: str) -> None:
        """End a session through the manager (a DELETE as its client would send)."""
        session = self.forget(session_id)
        if session is None or self.app is None:
            return
        scope = dict(session.scope)
        scope["method"] = "DELETE"
        scope["query_string"] = b""
        scope["headers"] = [*session.scope["headers"], (_SESSION, session_id.encode())]
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: dict[str, Any]) -> None:
            pass

        try:
            await self.app(scope, receive, discard)
        except Exception:  # ending a session must never break the request that caused it
            logger.warning("could not end MCP session %s", session_id[:64], exc_info=True)

    async def trim(self, key: str) -> None:
        """End ``key``'s least recently used sessions while it holds more than its share."""
        owned = self._clients.get(key)
        while owned and len(owned) > self.per_client:
            oldest = next(iter(owned))
            logger.info("ending MCP session %s: its client has too many open", oldest[:64])
            await self.close(oldest)

    async def make_room(self, key: str) -> None:
        """At ``max_sessions``: end one of the biggest holder's, if it holds more than ``key``."""
        if len(self._sessions) < self.max_sessions or not self._clients:
            return
        biggest = max(self._clients, key=lambda other: len(self._clients[other]))
        if len(self._clients[biggest]) > self.count(key) + 1:
            oldest = next(iter(self._clients[biggest]))
            logger.info("ending MCP session %s: the session limit is reached", oldest[:64])
            await self.close(oldest)

    async def sweep(self) -> int:
        """End the sessions nobody used for ``session_idle_timeout``; how many were ended."""
        limit = self.clock() - self.idle_timeout
        idle = [s.id for s in self._sessions.values() if not s.active and s.last_used < limit]
        for session_id in idle:
            await self.close(session_id)
        return len(idle)


def session_of(holder: dict[str, Any]) -> str | None:
    """The ``mcp-session-id`` header of a request scope or a response start message."""
    return _header(holder, _SESSION)


def _header(holder: dict[str, Any], name: bytes) -> str | None:
    for key, value in holder.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None
