"""Every attached server's registry group, published together under the one naming rule.

Who holds a name depends on more than one server's listing: a ``use:``
entry reserves its name before its server answers, and between two servers
listing the same name the one declared first wins even when it answers
last. So after anything that can move a name (a listing, a failure, a
reload, a local tool added or removed) the attachment calls
:func:`publish`, which asks :func:`tooldeck._shadowing.assign_names` about
all servers at once, builds each group with
:func:`~tooldeck.mcp._attaching.listing.server_tools`, and swaps the groups that
changed in one :meth:`~tooldeck.ToolRegistry.replace_groups`: a name that
moves from one server to another moves in one step, and no call sees it
held by the wrong one in between.

Publishing is synchronous and runs on the attachment's loop, so two
publications never interleave; compiling a long listing happens before,
in a worker thread (:func:`~tooldeck.mcp._attaching.listing.precompile`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..._entries import GroupContent, RegistryChange
from ..._errors import DuplicateToolError
from ..._model import McpServerSpec, McpToolUse
from ..._reshape import Forward
from ..._shadowing import Names, assign_names
from .listing import ServerTools, server_tools

if TYPE_CHECKING:
    from ..._registry import ToolRegistry
    from .state import ServerState

__all__ = ["HeldOutside", "publish"]

log = logging.getLogger("tooldeck.mcp")

_ATTEMPTS = 3
"""Publications tried before giving up on one swap: each retry sees names registered meanwhile."""


class HeldOutside:
    """The names held outside ``groups`` (local tools, other attachments): the rule's ``local``.

    Asked name by name, so nothing is copied per publication.
    """

    def __init__(self, registry: ToolRegistry, groups: Collection[str]) -> None:
        self._registry = registry
        self._groups = groups

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            return self._registry.group_of(name) not in self._groups
        except KeyError:  # no tool of that name
            return False


def publish(
    registry: ToolRegistry,
    states: Mapping[str, ServerState],
    uses: Iterable[McpToolUse],
    *,
    raw_handler: Callable[[ServerState, str], Callable[..., Any]],
    use_handler: Callable[[ServerState, str, str, Forward, float | None], Callable[..., Any]],
    timeout_of: Callable[[McpServerSpec], float | None],
    gone: Iterable[str] = (),
) -> dict[str, RegistryChange]:
    """Publish every server's group as the rule says; each server's change, by server name.

    ``gone``: groups of servers no longer attached, emptied in the same swap.
    Never raises: a name registered by someone else between the rule and
    the swap is seen by the next attempt; after the last, each group is
    tried alone and one that still clashes is emptied with the reason.
    """
    uses = tuple(uses)
    groups = {state.group for state in states.values()}
    emptied = {group: GroupContent() for group in gone if group not in groups}
    for attempt in range(1, _ATTEMPTS + 1):
        names = _names(registry, states, uses, groups)
        made = {
            name: _build(state, names, raw_handler, use_handler, timeout_of)
            for name, state in states.items()
        }
        built = {name: tools for name, (tools, _) in made.items()}
        updates = {
            states[name].group: GroupContent(tools=tuple(b.prepared), yields=True)
            for name, b in built.items()
            if not _published(registry, states[name].built, b)
        }
        try:
            changes = registry.replace_groups({**updates, **emptied}) if updates or emptied else {}
        except DuplicateToolError as exc:
            log.info("MCP tools: %s (attempt %d); publishing again", exc, attempt)
            continue
        for name, (tools, inputs) in made.items():
            states[name].built, states[name].inputs = tools, inputs
        return {name: changes.get(state.group, RegistryChange()) for name, state in states.items()}
    return _one_by_one(registry, states, built, emptied)


def _names(
    registry: ToolRegistry,
    states: Mapping[str, ServerState],
    uses: tuple[McpToolUse, ...],
    groups: Collection[str],
) -> Names:
    listed = {
        name: [tool.name for tool in state.remote]
        for name, state in states.items()
        if state.remote is not None
    }
    specs = [state.spec for state in states.values()]
    return assign_names(specs, listed, uses, HeldOutside(registry, groups))


def _build(
    state: ServerState,
    names: Names,
    raw_handler: Callable[[ServerState, str], Callable[..., Any]],
    use_handler: Callable[[ServerState, str, str, Forward, float | None], Callable[..., Any]],
    timeout_of: Callable[[McpServerSpec], float | None],
) -> tuple[ServerTools, tuple[Any, ...]]:
    """The server's group and what it was built from; the published one if nothing changed."""
    inputs = _inputs(state, names)
    if state.inputs is not None and _equal_inputs(state.inputs, inputs):
        return state.built, inputs
    built = server_tools(
        state.spec,
        state.remote,
        names,
        raw_handler=lambda remote: raw_handler(state, remote),
        use_handler=lambda name, remote, forward, own: use_handler(
            state, name, remote, forward, own
        ),
        timeout=timeout_of(state.spec),
        compiled=state.built.compiled,
    )
    return built, inputs


def _inputs(state: ServerState, names: Names) -> tuple[Any, ...]:
    """Everything the server's group is built from: its listing and its share of the names."""
    server = state.spec.name
    return (
        state.remote,
        dict(names.raw.get(server, {})),
        names.uses.get(server, ()),
        names.shadowed_of(server),
    )


def _equal_inputs(before: tuple[Any, ...], now: tuple[Any, ...]) -> bool:
    # The listing by identity (a new listing is a new list: compare its tools when building).
    return before[0] is now[0] and before[1:] == now[1:]


def _published(registry: ToolRegistry, before: ServerTools, now: ServerTools) -> bool:
    """Whether the registry already holds exactly ``now``'s tools (the same compiled objects).

    Asked of the registry too, not only of what was published last: a local
    tool may have taken one of the names since (the group yields).
    """
    if len(before.prepared) != len(now.prepared):
        return False
    return all(
        a is b and registry.get_tool(b.name) is b.spec
        for a, b in zip(before.prepared, now.prepared, strict=True)
    )


def _one_by_one(
    registry: ToolRegistry,
    states: Mapping[str, ServerState],
    built: Mapping[str, ServerTools],
    emptied: Mapping[str, GroupContent],
) -> dict[str, RegistryChange]:
    """The last resort: each group swapped alone; one that clashes is emptied with the reason."""
    if emptied:
        registry.replace_groups(dict(emptied))
    changes: dict[str, RegistryChange] = {}
    for name, state in states.items():
        content = GroupContent(tools=tuple(built[name].prepared), yields=True)
        try:
            changes[name] = registry.replace_groups({state.group: content})[state.group]
            state.built = built[name]
        except DuplicateToolError as exc:
            state.error = f"cannot register tools: {exc}"
            log.warning("MCP server %r: %s", name, state.error)
            changes[name] = registry.replace_group(state.group)
            state.built = ServerTools(
                shadowing=built[name].shadowing, compiled=built[name].compiled
            )
            state.inputs = None
    return changes
