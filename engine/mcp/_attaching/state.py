"""One attached server's state, and its health as :meth:`McpAttachment.health` reports it.

:class:`ServerState` is what the attachment keeps per server (connection,
last listing, what its group holds and why the rest was left out);
:class:`ServerHealth` is the frozen view of it callers get. Both are plain
data: connecting and calling live in :mod:`tooldeck.mcp._attaching.attachment`,
publishing in :mod:`tooldeck.mcp._attaching.publish`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..._model import McpServerSpec
from ..._shadowing import Shadowed
from .listing import ServerTools, group_name, unresolved_problems
from .prompts import ServerPrompts
from .resources import ServerResources

if TYPE_CHECKING:
    from mcp_types import Prompt, Resource, ResourceTemplate, Tool

    from .connection import McpConnection

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
    """Names of its tools (and ``use:`` entries) left out because another holds the name."""
    shadowing: tuple[Shadowed, ...] = ()
    """The same, each with what holds its name (a local tool, a ``use:`` entry, a server)."""
    skipped: tuple[str, ...] = ()
    """Remote tools left out because their name or their schema cannot be registered."""
    unresolved: tuple[str, ...] = ()
    """``use:`` entries left out, as ``name: why`` (no such tool, args that do not fit)."""
    skipped_reasons: tuple[str, ...] = ()
    """Why each of ``skipped`` was left out, in the same order."""
    error: str | None = None
    """Why the server is not ok (the last connection, listing or call failure)."""
    prompts: tuple[str, ...] = ()
    """Registered prompt names (prefix included, and ``use:`` prompt entries)."""
    prompts_left_out: tuple[str, ...] = ()
    """Its prompts (and ``use:`` prompt entries) left out, as ``name: why``; and why its
    prompts could not be listed, if so (its tools stay)."""
    resources: tuple[str, ...] = ()
    """Registered resources' URIs and templates (as the server gives them: no prefix)."""
    resources_left_out: tuple[str, ...] = ()
    """Its resources left out, as ``uri: why``; and why they could not be listed, if so."""
    listed_at: float | None = None
    """``time.monotonic()`` of the last successful listing."""
    connects: int = 0
    """Connections opened so far (more than one means it reconnected)."""


@dataclass
class ServerState:
    """One attached server as the attachment knows it: connection, listing, what is published."""

    spec: McpServerSpec
    conn: McpConnection | None = None
    remote: list[Tool] | None = None
    """The last good listing; None before the first one and after a listing fails."""
    rejected: frozenset[str] = frozenset()
    """Remote tools of ``remote`` its ``tool_filter`` rejected (registered only by use:)."""
    remote_prompts: list[Prompt] | None = None
    """The last good prompt listing; None when it offers none or the listing failed."""
    prompts_error: str | None = None
    """Why its prompts could not be listed (its tools are not affected)."""
    prompts: ServerPrompts = field(default_factory=ServerPrompts)
    """What its group holds of prompts, and what was left out and why."""
    renderers: dict[tuple[str, str], Callable[..., Any]] = field(default_factory=dict)
    """(registered name, remote prompt) -> renderer, kept across listings."""
    remote_resources: tuple[list[Resource], list[ResourceTemplate]] | None = None
    """The last good listing of its resources and templates; None: none offered, or failed."""
    resources_error: str | None = None
    """Why its resources could not be listed (its tools are not affected)."""
    resources: ServerResources = field(default_factory=ServerResources)
    """What its group holds of resources, and what was left out and why."""
    readers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """Resource URI (or template) -> its handler, kept across listings."""
    built: ServerTools = field(default_factory=ServerTools)
    """What its group holds now, and what was left out and why."""
    inputs: tuple[Any, ...] | None = None
    """What ``built`` was built from (see :func:`_inputs`): equal inputs, same tools."""
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

    @property
    def tools(self) -> dict[str, str]:
        """Registered name -> the remote tool it calls."""
        return self.built.remote_names

    def health(self) -> ServerHealth:
        """How it is doing, for :meth:`McpAttachment.health`."""
        built = self.built
        return ServerHealth(
            name=self.spec.name,
            ok=self.error is None and self.listed_at is not None,
            connected=self.conn is not None and self.conn.alive,
            tools=tuple(self.tools),
            shadowed=tuple(built.shadowed),
            shadowing=tuple(built.shadowing),
            skipped=tuple(built.skipped),
            skipped_reasons=tuple(built.skipped.values()),
            unresolved=unresolved_problems(built.unresolved),
            error=self.error,
            prompts=tuple(self.prompts.remote_names),
            prompts_left_out=tuple(
                [f"{name}: {why}" for name, why in sorted(self.prompts.left_out.items())]
                + ([f"prompts/list: {self.prompts_error}"] if self.prompts_error else [])
            ),
            resources=tuple(self.resources.keys),
            resources_left_out=tuple(
                [f"{key}: {why}" for key, why in sorted(self.resources.left_out.items())]
                + ([f"resources/list: {self.resources_error}"] if self.resources_error else [])
            ),
            listed_at=self.listed_at,
            connects=self.connects,
        )
