"""What a reload reports: :class:`ReloadEvent` per reload, :class:`ReloadStatus` after the last.

Values only, so the CLI, ``tooldeck dev``, dashboards and the MCP server can
show reloads without touching the machinery in :mod:`tooldeck.manifest._live`.
They live below the registry because the registry answers
:attr:`ToolRegistry.reload_status <tooldeck.ToolRegistry.reload_status>`:
the status belongs to whoever reloads (a :class:`ReloadStatusSource`, the
manifest layer's ``LiveManifests``), and the registry only asks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ._diagnostics import Diagnostic, Severity
from ._entries import RegistryChange

__all__ = ["ReloadEvent", "ReloadStatus", "ReloadStatusHolder", "ReloadStatusSource"]


@dataclass(frozen=True)
class ReloadEvent:
    """What one reload did: per-file changes, and the problems that kept old versions."""

    changes: Mapping[str, RegistryChange] = field(default_factory=dict)
    """File -> what changed in the registry because of it."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Errors (and warnings) found in the files looked at."""
    kept: tuple[str, ...] = ()
    """Files whose previous good version stays in force because of errors or conflicts."""
    files: tuple[str, ...] = ()
    """Every file this reload looked at."""
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)

    def lines(self) -> list[str]:
        """``+ added``, ``~ changed``, ``- removed`` per entry of each kind, then diagnostics."""
        out: list[str] = []
        for file, change in self.changes.items():
            for prefix, names in (
                ("+", change.added),
                ("~", change.changed),
                ("-", change.removed),
            ):
                out.extend(f"{prefix} {name}  ({file})" for name in names)
            for prefix, names in (
                ("+", change.prompts_added),
                ("~", change.prompts_changed),
                ("-", change.prompts_removed),
            ):
                out.extend(f"{prefix} prompt {name}  ({file})" for name in names)
            for prefix, names in (
                ("+", change.servers_added),
                ("~", change.servers_changed),
                ("-", change.servers_removed),
            ):
                out.extend(f"{prefix} mcp server {name}  ({file})" for name in names)
            for prefix, names in (
                ("+", change.resources_added),
                ("~", change.resources_changed),
                ("-", change.resources_removed),
            ):
                out.extend(f"{prefix} resource {name}  ({file})" for name in names)
        out.extend(d.format() for d in self.diagnostics)
        out.extend(f"kept the last good version of {file}" for file in self.kept)
        return out


@dataclass(frozen=True)
class ReloadStatus:
    """The outcome of the last reload, for dashboards and CLIs (``registry.reload_status``)."""

    ok: bool
    last: ReloadEvent
    reloads: int
    at: float
    """``time.time()`` of the last reload."""
    errors: Mapping[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    """Files currently held at an older version, with the errors that keep them there."""


class ReloadStatusSource(Protocol):
    """Who owns the outcome of the reloads into a registry: ``None`` before the first."""

    @property
    def status(self) -> ReloadStatus | None: ...


class ReloadStatusHolder:
    """A :class:`ReloadStatusSource` the reloader writes and the registry reads.

    Its own small object, so a registry following it keeps neither the
    reloader's documents nor its bundles alive after a one-shot load.
    """

    __slots__ = ("status",)

    def __init__(self) -> None:
        self.status: ReloadStatus | None = None
