"""What a served tool call looked like, for whoever watches calls (metrics, an audit log).

:class:`RegistryServer` hands one :class:`CallRecord` to each of its
``call_observers`` after every ``tools/call`` it answers. Observers are plain
functions, called on the serving loop: they must be quick and never block (the
audit log queues its lines for a thread; metrics add to counters). With no
observer the server builds no record at all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..._identity import AuthIdentity
    from ..._model import ToolSpec

__all__ = ["CallObserver", "CallRecord", "call_record", "notify_observers"]

T = TypeVar("T")

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One answered ``tools/call``; every text from the client is as sent (escape it)."""

    tool: str | None
    """The registered name of the tool called; ``None`` when no tool had the name asked."""
    requested: str
    """The name the client asked for (any text a client sends, up to the body limit)."""
    outcome: str
    """``ok``, or the error kind (``unknown_tool``, ``invalid_arguments``, ``timeout``,
    ``internal_error`` ...), or ``cancelled`` when the request ended before an answer."""
    duration: float
    """Seconds the call took, from the request handler's start to its answer."""
    request_id: str | int | None
    session_id: str | None
    """The Streamable HTTP session; ``None`` on stdio and stateless HTTP."""
    identity: AuthIdentity | None
    """The verified caller (``--auth``), else ``None``."""
    client: str | None
    """The client's network address (``host:port``), when the transport knows it."""
    arguments: Mapping[str, Any]
    """The arguments as sent, secrets included: an observer that keeps them masks them."""


CallObserver = Callable[[CallRecord], None]
"""Told about each call after it is answered; runs on the serving loop."""


def notify_observers(observers: list[Callable[[T], None]], record: T) -> None:
    """Tell each observer; one that raises is logged and fails neither the call nor the rest."""
    for observer in list(observers):
        try:
            observer(record)
        except Exception:
            logger.exception("an observer of %s failed", type(record).__name__)


def call_record(
    ctx: Any,
    params: Any,
    spec: ToolSpec | None,
    outcome: str,
    duration: float,
    *,
    session_id: str | None,
) -> CallRecord:
    """The record of a call answered for ``ctx`` (a ``ServerRequestContext``)."""
    from .caller import caller_identity

    scope = getattr(ctx.request, "scope", None)
    client = scope.get("client") if isinstance(scope, dict) else None
    return CallRecord(
        tool=spec.name if spec is not None else None,
        requested=params.name,
        outcome=outcome,
        duration=duration,
        request_id=ctx.request_id,
        session_id=session_id,
        identity=caller_identity(ctx),
        client=f"{client[0]}:{client[1]}" if client else None,
        arguments=params.arguments or {},
    )
