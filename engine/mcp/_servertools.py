"""Which registry tools one listing of an attached server yields: raw tools and ``use:`` entries.

Pure apart from compiling each tool (:func:`~tooldeck._prepare.prepare_tool`):
:mod:`tooldeck.mcp._attach` owns the connections and calls and asks this
module, after every listing and every change of the manifests' ``use:``
entries, what the server's registry group should hold.

Rules:

* a remote tool is registered as it is (``prefix`` + its name) when
  ``allowed_tools`` (if set) names it, ``denied_tools`` does not, and no
  ``use:`` entry reshapes it: a reshaped tool replaces the raw one;
* every ``use:`` entry naming the server becomes a tool once the server
  lists the tool it names, reshaped by :mod:`tooldeck._reshape`; an
  entry that does not fit the live schema is left out with its problems;
* a name already taken outside the server's group (a local tool, another
  server) shadows the remote tool, which is then left out and reported;
* a remote tool whose name has a control character, a line break, a bidi
  control, whitespace or another invisible character
  (:func:`~tooldeck._names.remote_name_problem`) is never registered as it
  is: it is left out, with the reason, among the skipped tools. Such a name
  would be printed, quoted in approvals and sent to models; a ``use:`` entry
  can still give the tool a name of the manifest's choosing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tooldeck._binding import PreparedTool
from tooldeck._errors import RegistrationError
from tooldeck._model import McpServerSpec, McpToolUse, ToolSpec
from tooldeck._names import remote_name_problem
from tooldeck._prepare import prepare_tool
from tooldeck._reshape import Forward, reshape_tool

if TYPE_CHECKING:
    from mcp_types import Tool

__all__ = ["GROUP_PREFIX", "ServerTools", "group_name", "server_tools", "unresolved_problems"]

log = logging.getLogger("tooldeck.mcp")

MCP_TAG = "mcp"
GROUP_PREFIX = "mcp:"


def group_name(server: str) -> str:
    """The registry group (and tag) a client-side server's tools live in."""
    return GROUP_PREFIX + server


@dataclass
class ServerTools:
    """What a listing yields for one server's registry group."""

    prepared: list[PreparedTool] = field(default_factory=list)
    remote_names: dict[str, str] = field(default_factory=dict)
    """Registered name -> the remote tool it calls."""
    shadowed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    """Remote tools left out (their name or their schema cannot be registered) -> why."""
    unresolved: dict[str, str] = field(default_factory=dict)
    """``use:`` entries left out -> why (no such tool, an argument that does not fit)."""
    compiled: dict[str, tuple[Tool, PreparedTool]] = field(default_factory=dict)
    """Raw tools as compiled, by registered name: the next listing reuses the unchanged ones."""


def server_tools(
    spec: McpServerSpec,
    remote: Iterable[Tool],
    uses: Iterable[McpToolUse],
    *,
    raw_handler: Callable[[str], Callable[..., Any]],
    use_handler: Callable[[str, Forward, float | None], Callable[..., Any]],
    taken: Callable[[str], bool],
    timeout: float | None,
    compiled: Mapping[str, tuple[Tool, PreparedTool]] | None = None,
) -> ServerTools:
    """The tools ``spec``'s group should hold after listing ``remote``.

    ``raw_handler(remote_name)`` and ``use_handler(remote_name, forward,
    timeout)`` build the handlers that call the server (``timeout``: the
    ``use:`` entry's own, or None); ``taken(name)`` says whether a
    name is held outside the server's group. ``compiled`` is the previous
    result's :attr:`ServerTools.compiled` for the same declaration: a remote
    tool that did not change is not compiled again (a server with thousands
    of tools is listed again every ``cache_ttl``).
    """
    previous = compiled or {}
    out = ServerTools()
    by_name = {tool.name: tool for tool in remote}
    mine = [u for u in uses if u.server == spec.name]
    reshaped = {u.tool for u in mine}
    for tool in by_name.values():
        if not spec.registers_as_is(tool.name, reshaped):
            continue
        name = spec.prefix + tool.name
        problem = remote_name_problem(tool.name)
        if problem is not None:
            out.skipped[name] = f"its name {problem}"
            log.warning("MCP server %r: tool %r left out: its name %s", spec.name, name, problem)
            continue
        if name in out.remote_names or taken(name):
            out.shadowed.append(name)
            continue
        known = previous.get(name)
        if known is not None and known[0] == tool:
            out.prepared.append(known[1])
            out.compiled[name] = known
            out.remote_names[name] = tool.name
            continue
        try:
            built = _raw_spec(spec, name, tool, raw_handler(tool.name), timeout)
            prepared = prepare_tool(built)
        except RegistrationError as exc:
            out.skipped[name] = str(exc)
            log.warning("MCP server %r: tool %r left out: %s", spec.name, name, exc)
            continue
        out.prepared.append(prepared)
        out.compiled[name] = (tool, prepared)
        out.remote_names[name] = tool.name
    for use in mine:
        _add_use(
            out,
            spec,
            use,
            by_name.get(use.tool),
            use_handler=use_handler,
            taken=taken,
            timeout=timeout,
        )
    if out.shadowed:
        log.info(
            "MCP server %r: %s already registered elsewhere; the existing tools win",
            spec.name,
            ", ".join(out.shadowed),
        )
    return out


def _add_use(
    out: ServerTools,
    spec: McpServerSpec,
    use: McpToolUse,
    tool: Tool | None,
    *,
    use_handler: Callable[[str, Forward, float | None], Callable[..., Any]],
    taken: Callable[[str], bool],
    timeout: float | None,
) -> None:
    name = use.name
    if tool is None:
        why = f"MCP server {spec.name!r} has no tool {use.tool!r}"
        out.unresolved[name] = why
        log.warning("tool %r (use: %s/%s) left out: %s", name, use.server, use.tool, why)
        return
    if name in out.remote_names or taken(name):
        out.shadowed.append(name)
        return
    built, problems = reshape_tool(
        use,
        dict(tool.input_schema),
        tool.description or tool.title,
        lambda forward: use_handler(tool.name, forward, use.template.timeout),
        side_effects=_side_effects(spec, tool),
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
        out.prepared.append(prepare_tool(built))
    except RegistrationError as exc:
        out.unresolved[name] = f"the server's schema cannot be used: {exc}"
        log.warning("tool %r (use: %s/%s) left out: %s", name, use.server, use.tool, exc)
        return
    out.remote_names[name] = tool.name


def _side_effects(spec: McpServerSpec, tool: Tool) -> bool:
    if spec.side_effects is not None:
        return spec.side_effects
    hints = tool.annotations
    return bool(hints is not None and hints.destructive_hint)


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
    )


def _with_tags(spec: ToolSpec, server: McpServerSpec) -> ToolSpec:
    extra = tuple(t for t in (MCP_TAG, group_name(server.name)) if t not in spec.tags)
    return replace(spec, tags=(*spec.tags, *extra))


def unresolved_problems(found: Mapping[str, str]) -> tuple[str, ...]:
    """``name: why`` lines for health reports."""
    return tuple(f"{name}: {why}" for name, why in sorted(found.items()))
