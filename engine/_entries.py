"""The registry's entry tables as values: add, remove, replace groups, diff. No I/O, no locks.

A :class:`Snapshot` holds one table per kind (tools, prompts, MCP servers,
web search), each mapping a name to an :class:`Entry` (the prepared value and
the group that declared it). Every change is a pure function from one
snapshot to the next plus a :class:`RegistryChange` saying what moved, so
the registry only has to swap a reference under its lock and tell its
subscribers; every kind follows the same duplicate policy and produces the
same kind of change record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from itertools import count
from types import MappingProxyType
from typing import Any, Literal

from ._binding import PreparedTool
from ._errors import DuplicateToolError, RegistrationError
from ._model import (
    McpPromptUse,
    McpServerSpec,
    McpToolUse,
    PromptSpec,
    ResourceSpec,
    ToolSpec,
    WebSearchSpec,
)
from ._names import provider_names
from ._prompts import PreparedPrompt
from ._resourceread import PreparedResource

__all__ = [
    "KINDS",
    "KIND_LABELS",
    "WEB_SEARCH",
    "DuplicatePolicy",
    "Entry",
    "GroupContent",
    "Kind",
    "RegistryChange",
    "Snapshot",
    "StagedGroup",
    "check_policy",
    "replace_groups",
    "with_entry",
    "without_entry",
]

DuplicatePolicy = Literal["error", "replace", "warn"]
"""What adding a name that is already registered does: raise, replace, or keep the first."""

Kind = Literal["tool", "prompt", "mcp_server", "web_search", "tool_use", "resource", "prompt_use"]
KINDS: tuple[Kind, ...] = (
    "tool",
    "prompt",
    "mcp_server",
    "web_search",
    "tool_use",
    "resource",
    "prompt_use",
)

WEB_SEARCH = "web_search"
"""The one name in the web-search table: a registry has at most one hosted search."""

KIND_LABELS: Mapping[Kind, str] = {
    "tool": "tool",
    "prompt": "prompt",
    "mcp_server": "MCP server",
    "web_search": "web search",
    "tool_use": "MCP tool use",
    "resource": "resource",
    "prompt_use": "MCP prompt use",
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One registered thing and the group that declared it (None: code)."""

    value: (
        PreparedTool
        | PreparedPrompt
        | PreparedResource
        | McpServerSpec
        | WebSearchSpec
        | McpToolUse
        | McpPromptUse
    )
    group: str | None
    yields: bool = False
    """Whether it gives its name up to any other declaration of it (see ``GroupContent.yields``)."""

    @property
    def spec(
        self,
    ) -> (
        ToolSpec
        | PromptSpec
        | ResourceSpec
        | McpServerSpec
        | WebSearchSpec
        | McpToolUse
        | McpPromptUse
    ):
        value = self.value
        if isinstance(value, PreparedTool | PreparedPrompt | PreparedResource):
            return value.spec
        return value


_NONE: Mapping[str, Any] = MappingProxyType({})

_serials = count(1)
"""Numbers every snapshot made, of any registry, in order (``next`` is atomic under the GIL)."""


@dataclass(frozen=True)
class Snapshot:
    """Everything registered at one moment; never changed, only replaced.

    ``tools`` and ``aliases`` are derived from the tool table for the call
    path: one dict lookup finds a prepared tool by its name or by the
    provider-safe name exports show for names providers reject.
    """

    tables: Mapping[Kind, Mapping[str, Entry]] = field(
        default_factory=lambda: MappingProxyType(dict.fromkeys(KINDS, _NONE))
    )
    tools: Mapping[str, PreparedTool] = field(default_factory=lambda: _NONE)
    aliases: Mapping[str, str] = field(default_factory=lambda: _NONE)
    """Provider-safe name -> registered name, for names providers reject."""
    safe_names: Mapping[str, str] = field(default_factory=lambda: _NONE)
    """Registered name -> provider-safe name, the inverse of ``aliases``
    (:func:`~tooldeck._names.provider_names`: the shortest free safe name)."""
    serial: int = field(default_factory=_serials.__next__, compare=False)
    """Larger for every later snapshot: a registry's next contents have a larger one
    (:attr:`~tooldeck.ToolRegistry.generation`)."""

    def table(self, kind: Kind) -> Mapping[str, Entry]:
        return self.tables[kind]

    def with_tables(self, changed: Mapping[Kind, Mapping[str, Entry]]) -> Snapshot:
        """A snapshot with ``changed`` tables swapped in; the rest are shared."""
        tables = {kind: changed.get(kind, self.tables[kind]) for kind in KINDS}
        frozen = {kind: MappingProxyType(dict(table)) for kind, table in tables.items()}
        if "tool" not in changed:
            return Snapshot(MappingProxyType(frozen), self.tools, self.aliases, self.safe_names)
        tools = {name: entry.value for name, entry in frozen["tool"].items()}
        safe = provider_names(tools)
        return Snapshot(
            MappingProxyType(frozen),
            MappingProxyType(tools),  # type: ignore[arg-type]
            MappingProxyType({alias: name for name, alias in safe.items()}),
            MappingProxyType(safe),
        )


@dataclass(frozen=True)
class RegistryChange:
    """What a change added, removed and changed (names, sorted), per kind."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    prompts_added: tuple[str, ...] = ()
    prompts_removed: tuple[str, ...] = ()
    prompts_changed: tuple[str, ...] = ()
    servers_added: tuple[str, ...] = ()
    servers_removed: tuple[str, ...] = ()
    servers_changed: tuple[str, ...] = ()
    web_search_changed: bool = False
    uses_added: tuple[str, ...] = ()
    uses_removed: tuple[str, ...] = ()
    uses_changed: tuple[str, ...] = ()
    resources_added: tuple[str, ...] = ()
    """Resources by URI (templates by their template)."""
    resources_removed: tuple[str, ...] = ()
    resources_changed: tuple[str, ...] = ()
    resources_updated: tuple[str, ...] = ()
    """URIs whose content changed while their declaration did not (a file edited on disk,
    :meth:`~tooldeck.ToolRegistry.resource_updated`): MCP ``notifications/resources/updated``
    for the clients subscribed to them."""
    prompt_uses_added: tuple[str, ...] = ()
    prompt_uses_removed: tuple[str, ...] = ()
    prompt_uses_changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    @property
    def tools_changed(self) -> bool:
        """Whether the tool list a client sees is different (MCP ``tools/list_changed``)."""
        return bool(self.added or self.removed or self.changed)

    @property
    def prompts_list_changed(self) -> bool:
        """Whether the prompt list is different (MCP ``prompts/list_changed``)."""
        return bool(self.prompts_added or self.prompts_removed or self.prompts_changed)

    @property
    def resources_list_changed(self) -> bool:
        """Whether the resource or template list is different (``resources/list_changed``)."""
        return bool(self.resources_added or self.resources_removed or self.resources_changed)

    @classmethod
    def of(
        cls,
        kind: Kind,
        added: tuple[str, ...] = (),
        removed: tuple[str, ...] = (),
        changed: tuple[str, ...] = (),
    ) -> RegistryChange:
        """The change record for one kind's added, removed and changed names."""
        if kind == "web_search":
            return cls(web_search_changed=bool(added or removed or changed))
        if kind == "prompt":
            return cls(prompts_added=added, prompts_removed=removed, prompts_changed=changed)
        if kind == "mcp_server":
            return cls(servers_added=added, servers_removed=removed, servers_changed=changed)
        if kind == "tool_use":
            return cls(uses_added=added, uses_removed=removed, uses_changed=changed)
        if kind == "resource":
            return cls(resources_added=added, resources_removed=removed, resources_changed=changed)
        if kind == "prompt_use":
            return cls(
                prompt_uses_added=added, prompt_uses_removed=removed, prompt_uses_changed=changed
            )
        return cls(added=added, removed=removed, changed=changed)

    def __or__(self, other: RegistryChange) -> RegistryChange:
        merged: dict[str, Any] = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            merged[f.name] = (
                (mine or theirs)
                if isinstance(mine, bool)
                else tuple(sorted(set(mine) | set(theirs)))
            )
        return RegistryChange(**merged)


@dataclass(frozen=True)
class GroupContent:
    """Everything one group (one manifest file) declares, for ``replace_groups``.

    Tools and prompts may come prepared already (a loader that compiled them
    to report each mistake hands its work on instead of compiling twice).
    """

    tools: tuple[ToolSpec | PreparedTool, ...] = ()
    prompts: tuple[PromptSpec | PreparedPrompt, ...] = ()
    servers: tuple[McpServerSpec, ...] = ()
    web_search: WebSearchSpec | None = None
    uses: tuple[McpToolUse, ...] = ()
    """Tools implemented by attached MCP servers' tools, completed when they are listed."""
    resources: tuple[ResourceSpec | PreparedResource, ...] = ()
    prompt_uses: tuple[McpPromptUse, ...] = ()
    """Prompts implemented by attached MCP servers' prompts (``use: SERVER/PROMPT``)."""
    yields: bool = False
    """Its entries give way: a name another group or code declares later takes the entry's
    place in the same swap, instead of being refused. An attached server's tools yield, so a
    local tool keeps its name whether it was declared before the server was listed or after."""


@dataclass(frozen=True)
class StagedGroup:
    """A group's content prepared and checked for names declared twice: ready to swap in."""

    tables: Mapping[Kind, Mapping[str, Entry]]


def check_policy(policy: str) -> None:
    if policy not in ("error", "replace", "warn"):
        raise RegistrationError(
            f"on_duplicate={policy!r} is not one of 'error', 'replace', 'warn'",
        )


def with_entry(
    snap: Snapshot, kind: Kind, name: str, entry: Entry, policy: DuplicatePolicy
) -> tuple[Snapshot, RegistryChange] | None:
    """``snap`` with ``entry`` under ``name``; None when ``warn`` keeps the first.

    Raises DuplicateToolError for a taken name under the ``error`` policy.
    """
    table = snap.table(kind)
    existed = name in table
    if existed and policy != "replace" and not (table[name].yields and not entry.yields):
        if policy == "warn":
            return None
        raise DuplicateToolError(
            f"{KIND_LABELS[kind]} {name!r} is already registered; "
            "use on_duplicate='replace' to replace it",
            kind=kind,
            name=name,
            group=entry.group,
            owner=table[name].group,
        )
    updated = dict(table)
    updated[name] = entry
    change = (
        RegistryChange.of(kind, changed=(name,)) if existed else RegistryChange.of(kind, (name,))
    )
    return snap.with_tables({kind: updated}), change


def without_entry(
    snap: Snapshot, kind: Kind, name: str
) -> tuple[Snapshot, str | None, RegistryChange] | None:
    """``snap`` without ``name`` (and the group it came from); None when absent."""
    table = snap.table(kind)
    if name not in table:
        return None
    updated = dict(table)
    group = updated.pop(name).group
    return snap.with_tables({kind: updated}), group, RegistryChange.of(kind, removed=(name,))


def stage(
    group: str,
    tools: Iterable[PreparedTool],
    prompts: Iterable[PreparedPrompt],
    servers: Iterable[McpServerSpec],
    web_search: WebSearchSpec | None,
    *,
    uses: Iterable[McpToolUse] = (),
    resources: Iterable[PreparedResource] = (),
    prompt_uses: Iterable[McpPromptUse] = (),
    yields: bool = False,
) -> StagedGroup:
    """One group's prepared content as entry tables; a name declared twice raises.

    A tool use and a tool of the same name are declared twice too: the use
    becomes a tool once its server is listed.
    """
    tables: dict[Kind, dict[str, Entry]] = {kind: {} for kind in KINDS}
    for kind, values in (
        ("tool", tools),
        ("prompt", prompts),
        ("mcp_server", servers),
        ("tool_use", uses),
        ("resource", resources),
        ("prompt_use", prompt_uses),
    ):
        table = tables[kind]  # type: ignore[index]
        for value in values:
            name = value.key if isinstance(value, PreparedResource) else value.name
            if name in table:
                raise DuplicateToolError(
                    f"{KIND_LABELS[kind]} {name!r} is declared twice",  # type: ignore[index]
                    kind=kind,
                    name=name,
                    group=group,
                    owner=group,
                )
            if kind == "tool_use" and name in tables["tool"]:
                raise DuplicateToolError(
                    f"tool {name!r} is declared twice (once with use:)",
                    kind="tool",
                    name=name,
                    group=group,
                    owner=group,
                )
            if kind == "prompt_use" and name in tables["prompt"]:
                raise DuplicateToolError(
                    f"prompt {name!r} is declared twice (once with use:)",
                    kind="prompt",
                    name=name,
                    group=group,
                    owner=group,
                )
            table[name] = Entry(value, group, yields)
    if web_search is not None:
        tables["web_search"][WEB_SEARCH] = Entry(web_search, group, yields)
    return StagedGroup(MappingProxyType(tables))


def replace_groups(
    snap: Snapshot, staged: Mapping[str, StagedGroup]
) -> tuple[Snapshot, dict[str, RegistryChange]]:
    """``snap`` with each staged group's entries in place of what that group had.

    All or nothing: a name another group (or code) holds, or that two staged
    groups both declare, raises DuplicateToolError naming both owners,
    unless the holder yields and the newcomer does not: then the holder's
    entry leaves in the same swap, and its group's change says so.
    """
    claimed: dict[tuple[Kind, str], str] = {}
    evicted: dict[tuple[Kind, str], str | None] = {}
    for group, content in staged.items():
        for kind in KINDS:
            current = snap.table(kind)
            for name, entry in content.tables[kind].items():
                other = current.get(name)
                if other is not None and other.group != group and other.group not in staged:
                    if not other.yields or entry.yields:
                        raise _taken(kind, name, group, other.group)
                    evicted[kind, name] = other.group
                if (kind, name) in claimed:
                    raise _taken(kind, name, group, claimed[kind, name])
                claimed[kind, name] = group
    tables: dict[Kind, dict[str, Entry]] = {}
    for kind in KINDS:
        table = {
            n: e
            for n, e in snap.table(kind).items()
            if e.group not in staged and (kind, n) not in evicted
        }
        for content in staged.values():
            table.update(content.tables[kind])
        tables[kind] = table
    yielded = [g for g in dict.fromkeys(evicted.values()) if g is not None and g not in staged]
    touched = [*staged, *yielded]
    changes = {group: _diff(snap, tables, group) for group in touched}
    return snap.with_tables(tables), changes


def _taken(kind: Kind, name: str, group: str, owner: str | None) -> DuplicateToolError:
    by = "code" if owner is None else owner
    return DuplicateToolError(
        f"{KIND_LABELS[kind]} {name!r} from {group} is already registered by {by}",
        kind=kind,
        name=name,
        group=group,
        owner=owner,
    )


def _diff(old: Snapshot, new: Mapping[Kind, Mapping[str, Entry]], group: str) -> RegistryChange:
    change = RegistryChange()
    for kind in KINDS:
        before = {n: e for n, e in old.table(kind).items() if e.group == group}
        after = {n: e for n, e in new[kind].items() if e.group == group}
        added = tuple(sorted(set(after) - set(before)))
        removed = tuple(sorted(set(before) - set(after)))
        changed = tuple(
            sorted(n for n in set(before) & set(after) if before[n].spec != after[n].spec)
        )
        change |= RegistryChange.of(kind, added, removed, changed)
    return change
