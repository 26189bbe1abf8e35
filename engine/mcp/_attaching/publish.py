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
from ..._model import McpPromptUse, McpServerSpec, McpToolUse
from ..._reshape import Forward
from ..._shadowing import Names, assign_names
from .listing import ServerTools, server_tools
from .prompts import PromptNames, ServerPrompts, assign_prompt_names, server_prompts
from .resources import ServerResources, assign_resource_keys, server_resources

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
    prompt_uses: Iterable[McpPromptUse] = (),
    renderer: Callable[[ServerState, str, str], Callable[..., Any]] | None = None,
    reader: Callable[[ServerState, str, Any], Callable[..., Any]] | None = None,
    gone: Iterable[str] = (),
) -> dict[str, RegistryChange]:
    """Publish every server's group as the rule says; each server's change, by server name.

    Its prompts go in the same group, named by the same rule in the prompt
    namespace (:mod:`tooldeck.mcp._attaching.prompts`); ``renderer(state, name,
    remote)`` gives each its renderer. Its resources too, by URI
    (:mod:`tooldeck.mcp._attaching.resources`), ``reader(state, key, template)``
    giving each its handler.

    ``gone``: groups of servers no longer attached, emptied in the same swap.
    Never raises: a name registered by someone else between the rule and
    the swap is seen by the next attempt; after the last, each group is
    tried alone and one that still clashes is emptied with the reason.
    """
    uses, prompt_uses = tuple(uses), tuple(prompt_uses)
    groups = {state.group for state in states.values()}
    emptied = {group: GroupContent() for group in gone if group not in groups}
    for attempt in range(1, _ATTEMPTS + 1):
        names = _names(registry, states, uses, groups)
        made = {
            name: _build(state, names, raw_handler, use_handler, timeout_of)
            for name, state in states.items()
        }
        built = {name: tools for name, (tools, _) in made.items()}
        prompts = _prompts(registry, states, prompt_uses, renderer)
        resources = _resources(registry, states, reader)
        updates = {
            states[name].group: GroupContent(
                tools=tuple(b.prepared),
                prompts=tuple(prompts[name].prepared),
                resources=tuple(resources[name].prepared),
                yields=True,
            )
            for name, b in built.items()
            if not _published(registry, states[name].built, b)
            or not _prompts_published(registry, states[name].prompts, prompts[name])
            or not _resources_published(registry, states[name].resources, resources[name])
        }
        try:
            changes = registry.replace_groups({**updates, **emptied}) if updates or emptied else {}
        except DuplicateToolError as exc:
            log.info("MCP tools: %s (attempt %d); publishing again", exc, attempt)
            continue
        for name, (tools, inputs) in made.items():
            states[name].built, states[name].inputs = tools, inputs
            states[name].prompts, states[name].resources = prompts[name], resources[name]
        return {name: changes.get(state.group, RegistryChange()) for name, state in states.items()}
    return _one_by_one(registry, states, built, prompts, resources, emptied)


class _ResourcesHeldOutside:
    """The URIs (and templates) held outside the servers' groups: a resource they did not
    publish."""

    def __init__(self, registry: ToolRegistry, states: Mapping[str, ServerState]) -> None:
        self._registry = registry
        self._ours = {
            id(p.spec): p.spec for state in states.values() for p in state.resources.prepared
        }

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        spec = self._registry.get_resource(key)
        return spec is not None and self._ours.get(id(spec)) is not spec


def _resources(
    registry: ToolRegistry,
    states: Mapping[str, ServerState],
    reader: Callable[[ServerState, str, Any], Callable[..., Any]] | None,
) -> dict[str, ServerResources]:
    """Every server's resources, keyed by the rule (see :mod:`.resources`)."""
    if reader is None:
        return {name: ServerResources() for name in states}
    listed = {
        name: [
            *(r.uri for r in state.remote_resources[0]),
            *(t.uri_template for t in state.remote_resources[1]),
        ]
        for name, state in states.items()
        if state.remote_resources is not None
    }
    specs = [state.spec for state in states.values()]
    keys = assign_resource_keys(specs, listed, _ResourcesHeldOutside(registry, states))
    return {
        name: server_resources(
            state.spec,
            state.remote_resources,
            keys,
            _bound(reader, state),
            state.resources.compiled,
        )
        for name, state in states.items()
    }


def _resources_published(
    registry: ToolRegistry, before: ServerResources, now: ServerResources
) -> bool:
    """Whether the registry holds exactly ``now``'s resources (the same compiled objects)."""
    if len(before.prepared) != len(now.prepared):
        return False
    return all(
        a is b and registry.get_resource(b.key) is b.spec
        for a, b in zip(before.prepared, now.prepared, strict=True)
    )


class _PromptsHeldOutside:
    """The prompt names held outside the servers' groups: a prompt the servers did not publish."""

    def __init__(self, registry: ToolRegistry, states: Mapping[str, ServerState]) -> None:
        self._registry = registry
        self._ours = {
            id(p.spec): p.spec for state in states.values() for p in state.prompts.prepared
        }

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        spec = self._registry.get_prompt(name)
        return spec is not None and self._ours.get(id(spec)) is not spec


def _prompts(
    registry: ToolRegistry,
    states: Mapping[str, ServerState],
    uses: tuple[McpPromptUse, ...],
    renderer: Callable[[ServerState, str, str], Callable[..., Any]] | None,
) -> dict[str, ServerPrompts]:
    """Every server's prompts, named by the rule (see :mod:`.prompts`)."""
    if renderer is None:
        return {name: ServerPrompts() for name in states}
    listed = {
        name: [prompt.name for prompt in state.remote_prompts]
        for name, state in states.items()
        if state.remote_prompts is not None
    }
    specs = [state.spec for state in states.values()]
    names: PromptNames = assign_prompt_names(
        specs, listed, uses, _PromptsHeldOutside(registry, states)
    )
    return {
        name: server_prompts(
            state.spec,
            state.remote_prompts,
            names,
            _bound(renderer, state),
            state.prompts.compiled,
        )
        for name, state in states.items()
    }


def _bound(
    factory: Callable[[ServerState, str, Any], Callable[..., Any]], state: ServerState
) -> Callable[[str, Any], Callable[..., Any]]:
    return lambda key, other: factory(state, key, other)


def _prompts_published(registry: ToolRegistry, before: ServerPrompts, now: ServerPrompts) -> bool:
    """Whether the registry holds exactly ``now``'s prompts (the same compiled objects)."""
    if len(before.prepared) != len(now.prepared):
        return False
    return all(
        a is b and registry.get_prompt(b.name) is b.spec
        for a, b in zip(before.prepared, now.prepared, strict=True)
    )


def _names(
    registry: ToolRegistry,
    states: Mapping[str, ServerState],
    uses: tuple[McpToolUse, ...],
    groups: Collection[str],
) -> Names:
    listed = {  # (tools its tool_filter rejected register only through use: entries)
        name: [tool.name for tool in state.remote if tool.name not in state.rejected]
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
        rejected=state.rejected,
    )
    return built, inputs


def _inputs(state: ServerState, names: Names) -> tuple[Any, ...]:
    """Everything the server's group is built from: its listing and its share of the names."""
    server = state.spec.name
    return (
        state.remote,
        state.rejected,
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


def _one_by_one(  # noqa: PLR0917 (one call site)
    registry: ToolRegistry,
    states: Mapping[str, ServerState],
    built: Mapping[str, ServerTools],
    prompts: Mapping[str, ServerPrompts],
    resources: Mapping[str, ServerResources],
    emptied: Mapping[str, GroupContent],
) -> dict[str, RegistryChange]:
    """The last resort: each group swapped alone; one that clashes is emptied with the reason."""
    if emptied:
        registry.replace_groups(dict(emptied))
    changes: dict[str, RegistryChange] = {}
    for name, state in states.items():
        content = GroupContent(
            tools=tuple(built[name].prepared),
            prompts=tuple(prompts[name].prepared),
            resources=tuple(resources[name].prepared),
            yields=True,
        )
        try:
            changes[name] = registry.replace_groups({state.group: content})[state.group]
            state.built, state.prompts = built[name], prompts[name]
            state.resources = resources[name]
        except DuplicateToolError as exc:
            state.error = f"cannot register tools: {exc}"
            log.warning("MCP server %r: %s", name, state.error)
            changes[name] = registry.replace_group(state.group)
            state.built = ServerTools(
                shadowing=built[name].shadowing, compiled=built[name].compiled
            )
            state.prompts = ServerPrompts(compiled=prompts[name].compiled)
            state.resources = ServerResources(compiled=resources[name].compiled)
            state.inputs = None
    return changes
