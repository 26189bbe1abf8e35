"""Which registry tools one listing of an attached server yields: raw tools and ``use:`` entries.

Pure apart from compiling each tool (:func:`~tooldeck._prepare.prepare_tool`):
:mod:`tooldeck.mcp._attaching.attachment` owns the connections and calls; after every
listing, every failure and every change of the manifests it asks
:func:`tooldeck._shadowing.assign_names` who holds which name (the one
rule, shared with lint), then this module what each server's registry group
should hold:

* a raw tool the rule gives a name to is registered under it, with the
  server's own schema;
* a ``use:`` entry that keeps its name becomes a tool once its server lists
  the tool it names, reshaped by :mod:`tooldeck._reshape`; an entry that does
  not fit the live schema is left out with its problems;
* what the rule shadows is reported, with what holds the name;
* a remote tool whose name has a control character, a line break, a bidi
  control, whitespace or another invisible character
  (:func:`~tooldeck._names.remote_name_problem`) is never registered as it
  is: it is left out, with the reason, among the skipped tools (and the rule
  gives it no name). Such a name would be printed, quoted in approvals and
  sent to models; a ``use:`` entry can still give the tool a name of the
  manifest's choosing.

Compiled tools are kept per server (:attr:`ServerTools.compiled`) and reused
while the remote tool (and the entry) are unchanged, so publishing again
after another server's listing changes nothing in the registry.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..._binding import PreparedTool
from ..._errors import RegistrationError
from ..._model import McpServerSpec, McpToolUse, ToolSpec
from ..._names import remote_name_problem
from ..._prepare import prepare_tool
from ..._reshape import Forward, reshape_tool
from ..._shadowing import Names, Shadowed

if TYPE_CHECKING:
    from mcp_types import Tool

__all__ = [
    "GROUP_PREFIX",
    "Compiled",
    "ServerTools",
    "group_name",
    "precompile",
    "rejected_by_filter",
    "remote_hints",
    "server_tools",
    "unresolved_problems",
]

log = logging.getLogger("tooldeck.mcp")

MCP_TAG = "mcp"
GROUP_PREFIX = "mcp:"

Compiled = dict[str, tuple[Any, PreparedTool]]
"""Registry name -> (what it was compiled from, the tool): the remote tool for a raw
tool, ``(entry, remote tool)`` for a ``use:`` entry. Equal sources reuse the tool."""


def group_name(server: str) -> str:
    """The registry group (and tag) a client-side server's tools live in."""
    return GROUP_PREFIX + server


@dataclass
class ServerTools:
    """What the server's registry group should hold, and what was left out and why."""

    prepared: list[PreparedTool] = field(default_factory=list)
    remote_names: dict[str, str] = field(default_factory=dict)
    """Registered name -> the remote tool it calls."""
    shadowing: list[Shadowed] = field(default_factory=list)
    """Its tools (and use: entries) left out because another holds the name."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Remote tools left out (their name or their schema cannot be registered) -> why."""
    unresolved: dict[str, str] = field(default_factory=dict)
    """``use:`` entries left out -> why (no such tool, an argument that does not fit)."""
    compiled: Compiled = field(default_factory=dict)
    """Tools as compiled, by registered name: the next publication reuses the unchanged ones."""

    @property
    def shadowed(self) -> list[str]:
        return [s.name for s in self.shadowing]


def server_tools(
    spec: McpServerSpec,
    remote: Iterable[Tool] | None,
    names: Names,
    *,
    raw_handler: Callable[[str], Callable[..., Any]],
    use_handler: Callable[[str, str, Forward, float | None], Callable[..., Any]],
    timeout: float | None,
    compiled: Mapping[str, tuple[Any, PreparedTool]] | None = None,
    rejected: Collection[str] = (),
) -> ServerTools:
    """The tools ``spec``'s group should hold, given its listing and the rule's ``names``.

    ``remote`` is the server's last listing (None: not listed, or its
    listing failed: nothing is registered, the shadowing is still reported).
    ``raw_handler(remote_name)`` and ``use_handler(name, remote_name, forward,
    timeout)`` build the handlers that call the server (``name``: the entry's,
    which its errors say; ``timeout``: the entry's own, or None). ``compiled``
    is the previous result's :attr:`ServerTools.compiled` for the same
    declaration: a tool that did not change is not compiled again (a server
    with thousands of tools is listed again every ``cache_ttl``, and
    published again whenever another server is).
    """
    previous = compiled or {}
    out = ServerTools(shadowing=list(names.shadowed_of(spec.name)))
    if remote is None:
        return out
    by_name = {tool.name: tool for tool in remote}
    reshaped = {use.tool for use in names.uses.get(spec.name, ())} | set(rejected)
    for tool in by_name.values():
        problem = remote_name_problem(tool.name)
        if problem is not None and spec.registers_as_is(tool.name, reshaped):
            name = spec.prefix + tool.name
            out.skipped[name] = f"its name {problem}"
            log.warning("MCP server %r: tool %r left out: its name %s", spec.name, name, problem)
    for name, remote_name in names.raw.get(spec.name, {}).items():
        tool = by_name[remote_name]
        prepared = _raw(out, previous, spec, name, tool, raw_handler=raw_handler, timeout=timeout)
        if isinstance(prepared, RegistrationError):
            out.skipped[name] = str(prepared)
            continue
        out.prepared.append(prepared)
        out.remote_names[name] = remote_name
    for use in names.uses.get(spec.name, ()):
        _add_use(
            out,
            spec,
            use,
            by_name.get(use.tool),
            previous,
            use_handler=use_handler,
            timeout=timeout,
        )
    if out.shadowing:
        log.info(
            "MCP server %r: %s left out, the names are held elsewhere",
            spec.name,
            ", ".join(out.shadowed),
        )
    return out


def precompile(
    spec: McpServerSpec,
    remote: Iterable[Tool],
    uses: Iterable[McpToolUse],
    *,
    raw_handler: Callable[[str], Callable[..., Any]],
    timeout: float | None,
    compiled: Mapping[str, tuple[Any, PreparedTool]] | None = None,
    rejected: Collection[str] = (),
) -> Compiled:
    """Every raw tool of a long listing compiled ahead (in a worker thread), for reuse.

    Compiles what :func:`server_tools` would compile the same way: the tools
    that register as they are, whether or not the rule gives them their
    name. One that fails is left for :func:`server_tools` to report.
    """
    previous = compiled or {}
    reshaped = {use.tool for use in uses if use.server == spec.name} | set(rejected)
    out = ServerTools()
    for tool in remote:
        if spec.registers_as_is(tool.name, reshaped) and remote_name_problem(tool.name) is None:
            name = spec.prefix + tool.name
            _raw(
                out,
                previous,
                spec,
                name,
                tool,
                raw_handler=raw_handler,
                timeout=timeout,
                quiet=True,
            )
    return out.compiled


async def rejected_by_filter(spec: McpServerSpec, tools: Iterable[Tool]) -> frozenset[str]:
    """The tools ``spec.tool_filter`` rejects, among those its allow and deny lists let in.

    The filter sees a copy of each definition (it cannot change the listing).
    A filter that raises rejects the tool, with a warning: a filter that
    cannot decide must not let in what it was written to keep out.
    """
    check = spec.tool_filter
    if check is None:
        return frozenset()
    rejected: set[str] = set()
    for tool in tools:
        if not spec.registers_as_is(tool.name):
            continue
        try:
            verdict = check(tool.model_copy(deep=True))
            if inspect.isawaitable(verdict):
                verdict = await verdict
        except Exception as exc:
            log.warning(
                "MCP server %r: tool_filter failed on tool %r (%s: %s); the tool is left out",
                spec.name,
                tool.name,
                type(exc).__name__,
                exc,
            )
            verdict = False
        if not verdict:
            rejected.add(tool.name)
    return frozenset(rejected)


def _reused(
    out: ServerTools, previous: Mapping[str, tuple[Any, PreparedTool]], name: str, source: Any
) -> PreparedTool | None:
    """The tool compiled before from an equal ``source``, carried over; None if there is none."""
    known = previous.get(name)
    if known is None or known[0] != source:
        return None
    out.compiled[name] = known
    return known[1]


def _raw(
    out: ServerTools,
    previous: Mapping[str, tuple[Any, PreparedTool]],
    spec: McpServerSpec,
    name: str,
    tool: Tool,
    *,
    raw_handler: Callable[[str], Callable[..., Any]],
    timeout: float | None,
    quiet: bool = False,
) -> PreparedTool | RegistrationError:
    """The raw tool under ``name``, reused or compiled; the error if its schema cannot be used."""
    known = _reused(out, previous, name, tool)
    if known is not None:
        return known
    try:
        prepared = prepare_tool(_raw_spec(spec, name, tool, raw_handler(tool.name), timeout))
    except RegistrationError as exc:
        if not quiet:
            log.warning("MCP server %r: tool %r left out: %s", spec.name, name, exc)
        return exc
    out.compiled[name] = (tool, prepared)
    return prepared


def _add_use(
    out: ServerTools,
    spec: McpServerSpec,
    use: McpToolUse,
    tool: Tool | None,
    previous: Mapping[str, tuple[Any, PreparedTool]],
    *,
    use_handler: Callable[[str, str, Forward, float | None], Callable[..., Any]],
    timeout: float | None,
) -> None:
    name = use.name
    if tool is None:
        why = f"MCP server {spec.name!r} has no tool {use.tool!r}"
        out.unresolved[name] = why
        log.warning("tool %r (use: %s/%s) left out: %s", name, use.server, use.tool, why)
        return
    known = _reused(out, previous, name, (use, tool))
    if known is not None:
        out.prepared.append(known)
        out.remote_names[name] = tool.name
        return
    built, problems = reshape_tool(
        use,
        dict(tool.input_schema),
        tool.description or tool.title,
        lambda forward: use_handler(name, tool.name, forward, use.template.timeout),
        side_effects=_side_effects(spec, tool),
        hints=remote_hints(tool),
    )
    if built is None:
        why = "; ".join(p.message for p in problems)
        out.unresolved[name] = why
        log.warning("tool %r (use: %s/%s) left out: %s", name, use.server, use.tool, why)
        return
    if built.timeout is None and timeout is not None:
        built = replace(built, timeout=timeout)
    built = _with_tags(built, spec)
    try:
        prepared = prepare_tool(built)
    except RegistrationError as exc:
        out.unresolved[name] = f"the server's schema cannot be used: {exc}"
        log.warning("tool %r (use: %s/%s) left out: %s", name, use.server, use.tool, exc)
        return
    out.compiled[name] = ((use, tool), prepared)
    out.prepared.append(prepared)
    out.remote_names[name] = tool.name


def _side_effects(spec: McpServerSpec, tool: Tool) -> bool | None:
    """The declaration's word, else the server's: destructive needs approval (as it always
    did), read-only is declared free of side effects, anything else is undeclared."""
    if spec.side_effects is not None:
        return spec.side_effects
    hints = tool.annotations
    if hints is None:
        return None
    if hints.destructive_hint:
        return True
    return False if hints.read_only_hint is True else None


_HINT_FIELDS = (
    ("readOnlyHint", "read_only_hint"),
    ("destructiveHint", "destructive_hint"),
    ("idempotentHint", "idempotent_hint"),
    ("openWorldHint", "open_world_hint"),
)


def remote_hints(tool: Tool) -> dict[str, bool]:
    """The behaviour hints the server listed ``tool`` with, as it gave them (MCP's keys)."""
    hints = tool.annotations
    if hints is None:
        return {}
    given = ((key, getattr(hints, attr, None)) for key, attr in _HINT_FIELDS)
    return {key: value for key, value in given if isinstance(value, bool)}


def _raw_spec(
    spec: McpServerSpec,
    name: str,
    tool: Tool,
    handler: Callable[..., Any],
    timeout: float | None,
) -> ToolSpec:
    description = tool.description or tool.title or f"{tool.name} (MCP server {spec.name})"
    hints = tool.annotations
    return ToolSpec(
        name=name,
        description=description,
        handler=handler,
        input_schema=dict(tool.input_schema),
        tags=(MCP_TAG, group_name(spec.name)),
        side_effects=_side_effects(spec, tool),
        idempotent=bool(hints is not None and hints.idempotent_hint),
        timeout=timeout,
        hints=remote_hints(tool),
    )


def _with_tags(spec: ToolSpec, server: McpServerSpec) -> ToolSpec:
    extra = tuple(t for t in (MCP_TAG, group_name(server.name)) if t not in spec.tags)
    return replace(spec, tags=(*spec.tags, *extra))


def unresolved_problems(found: Mapping[str, str]) -> tuple[str, ...]:
    """``name: why`` lines for health reports."""
    return tuple(f"{name}: {why}" for name, why in sorted(found.items()))
