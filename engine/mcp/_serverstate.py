"""The state an attachment keeps per server, and the health it reports from it.

Plain data: :class:`~tooldeck.mcp._attach.McpAttachment` owns the connections,
listings and calls, and changes these records as they happen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tooldeck.mcp._servertools import group_name

if TYPE_CHECKING:
    from mcp_types import Tool

    from tooldeck._model import McpServerSpec
    from tooldeck.mcp._client import McpConnection

__all__ = ["ServerHealth", "ServerState"]


@dataclass(frozen=True)
class ServerHealth:
    """How one attached server is doing, as :meth:`McpAttachment.health` reports it."""

    name: str
    ok: bool
    """The last listing succeeded and the connection is not known to be broken."""
    connected: bool
    tools: tuple[str, ...] = ()
    """Registered tool names (prefix included)."""
    shadowed: tuple[str, ...] = ()
    """Remote tools left out because the name was already taken (a local tool wins)."""
    skipped: tuple[str, ...] = ()
    """Remote tools left out because their name or their schema cannot be registered."""
    unresolved: tuple[str, ...] = ()
    """``use:`` entries left out, as ``name: why`` (no such tool, args that do not fit)."""
    skipped_reasons: tuple[str, ...] = ()
    """Why each of ``skipped`` was left out, in the same order."""
    error: str | None = None
    """Why the server is not ok (the last connection, listing or call failure)."""
    listed_at: float | None = None
    """``time.monotonic()`` of the last successful listing."""
    connects: int = 0
    """Connections opened so far (more than one means it reconnected)."""


@dataclass
class ServerState:
    """One attached server as the attachment knows it: connection, last listing, errors."""

    spec: McpServerSpec
    conn: McpConnection | None = None
    tools: dict[str, str] = field(default_factory=dict)
    """Registered name -> remote tool name."""
    remote: list[Tool] | None = None
    """The last listing, to re-publish when the manifests' use: entries change."""
    compiled: dict[str, Any] = field(default_factory=dict)
    """Raw tools compiled from the last listing (see ``server_tools(compiled=)``)."""
    shadowed: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    skipped_reasons: tuple[str, ...] = ()
    unresolved: tuple[str, ...] = ()
    error: str | None = None
    listed_at: float | None = None
    checked_at: float | None = None
    connects: int = 0
    handlers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    list_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connect_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    relisting: asyncio.Task[None] | None = None
    """The listing that follows ``tools/list_changed``, while it runs."""
    relist_again: bool = False
    """Announced again while ``relisting`` ran: one more listing after it, whatever the count."""

    @property
    def group(self) -> str:
        return group_name(self.spec.name)

    def health(self) -> ServerHealth:
        return ServerHealth(
            name=self.spec.name,
            ok=self.error is None and self.listed_at is not None,
            connected=self.conn is not None and self.conn.alive,
            tools=tuple(self.tools),
            shadowed=self.shadowed,
            skipped=self.skipped,
            skipped_reasons=self.skipped_reasons,
            unresolved=self.unresolved,
            error=self.error,
            listed_at=self.listed_at,
            connects=self.connects,
        )
