"""Lint rules for attached MCP servers and ``use:`` entries (TD412-TD414).

What can be checked without a connection is checked always: a ``use:``
entry (a tool's or a prompt's) must name a server declared with ``via: client``. The rest needs the
server's live tool list, which the CLI gathers before linting
(:func:`tooldeck._lint.live.list_servers`) and hands over as plain data in
:attr:`LintContext.live`; this module never imports ``mcp``. A server lint
could not reach is reported as such (TD412), so a check that did not happen
never looks like one that passed.
"""

from __future__ import annotations

from collections.abc import Iterator

from .._diagnostics import Diagnostic, Severity
from .._reshape import reshape
from .._shadowing import Shadowed, assign_names, declaration_order
from ..manifest._build import Bundle
from .rules import LintContext, rule

__all__: list[str] = []


def _servers(ctx: LintContext) -> dict[str, tuple[Bundle, str]]:
    """Declared MCP servers by name: (bundle, via)."""
    found: dict[str, tuple[Bundle, str]] = {}
    for bundle in ctx.result.bundles.values():
        for server in bundle.servers:
            found.setdefault(server.name, (bundle, server.via or "hosted"))
    return found


@rule("TD412", "mcp-server-unreachable", Severity.WARNING)
def _server_unreachable(ctx: LintContext) -> Iterator[Diagnostic]:
    """Lint could not connect to a ``via: client`` MCP server to check it against its tools.

    Why: the ``use:`` entries that name it, and the names its tools would
    take, were not checked against what the server offers; the same failure
    at run time leaves its tools out. Run lint where the server can start
    (its command installed, its URL reachable), or pass ``--offline`` to skip
    the live checks on purpose.

    Bad:  ``{name: time, command: [mcp-server-tme], via: client}`` (a typo: nothing starts)
    Good: ``{name: time, command: [mcp-server-time], via: client}``
    """
    if ctx.live is None:
        return
    for bundle in ctx.result.bundles.values():
        for server in bundle.servers:
            live = ctx.live.get(server.name)
            if live is None or live.error is None:
                continue
            yield ctx.at(
                bundle,
                bundle.server_paths[server.name],
                "TD412",
                f"cannot reach MCP server {server.name!r} ({live.error}); its tools and the "
                "use: entries naming it were not checked against what it offers",
                server.name,
            )


@rule("TD413", "mcp-tool-use-unresolved", Severity.ERROR)
def _use_unresolved(ctx: LintContext) -> Iterator[Diagnostic]:
    """A ``use: SERVER/TOOL`` entry that cannot become a tool (or a prompt's
    ``use: SERVER/PROMPT`` entry that cannot become a prompt).

    Checked always: the server must be declared with ``via: client``.
    Checked against the live server when lint can connect: the server must
    offer the tool, each ``args`` key must be one of its arguments, defaults
    and fixed values must fit the argument's schema, and a new name must not
    be one the tool already uses.

    Why: such an entry is left out when the server is attached; the model
    would never see the tool the manifest describes.

    A prompt's entry is checked the same way: a ``via: client`` server,
    and, live, one that offers the prompt.

    Bad:  ``{use: time/get_time}`` when the server offers ``get_current_time``
    Good: ``{use: time/get_current_time, args: {timezone: {default: UTC}}}``
    """
    servers = _servers(ctx)
    yield from _prompt_uses_unresolved(ctx, servers)
    for bundle in ctx.result.bundles.values():
        for use in bundle.uses:
            path = bundle.tool_paths[use.name]
            declared = servers.get(use.server)
            if declared is None or declared[1] != "client":
                why = (
                    "is not declared in mcp_servers"
                    if declared is None
                    else "is hosted (via: hosted); use: needs via: client"
                )
                yield ctx.at(
                    bundle,
                    (*path, "use"),
                    "TD413",
                    f"tool {use.name!r}: MCP server {use.server!r} {why}",
                    use.name,
                )
                continue
            live = None if ctx.live is None else ctx.live.get(use.server)
            if live is None or live.error is not None:
                continue  # TD412 says it was not checked
            schema = live.tools.get(use.tool)
            if schema is None:
                offered = ", ".join(sorted(live.tools)[:20]) or "none"
                yield ctx.at(
                    bundle,
                    (*path, "use"),
                    "TD413",
                    f"tool {use.name!r}: MCP server {use.server!r} has no tool {use.tool!r} "
                    f"(it offers: {offered})",
                    use.name,
                )
                continue
            for problem in reshape(use, schema).problems:
                where = (*path, "args", problem.argument) if problem.argument else (*path, "use")
                if problem.argument and problem.field:
                    where = (*where, problem.field)
                yield ctx.at(
                    bundle, where, "TD413", f"tool {use.name!r}: {problem.message}", use.name
                )


def _prompt_uses_unresolved(
    ctx: LintContext, servers: dict[str, tuple[Bundle, str]]
) -> Iterator[Diagnostic]:
    for bundle in ctx.result.bundles.values():
        for use in bundle.prompt_uses:
            where = (*bundle.prompt_paths[use.name], "use")
            declared = servers.get(use.server)
            what = f"prompt {use.name!r}: MCP server {use.server!r}"
            if declared is None or declared[1] != "client":
                why = (
                    "is not declared in mcp_servers"
                    if declared is None
                    else "is hosted (via: hosted); use: needs via: client"
                )
                yield ctx.at(bundle, where, "TD413", f"{what} {why}", use.name)
                continue
            live = None if ctx.live is None else ctx.live.get(use.server)
            if live is None or live.error is not None or live.prompts is None:
                continue  # not checked (TD412 says so for a server it could not reach)
            if use.prompt not in live.prompts:
                offered = ", ".join(sorted(live.prompts)[:20]) or "none"
                yield ctx.at(
                    bundle,
                    where,
                    "TD413",
                    f"{what} has no prompt {use.prompt!r} (it offers: {offered})",
                    use.name,
                )


@rule("TD414", "mcp-tool-shadowed", Severity.WARNING)
def _tool_shadowed(ctx: LintContext) -> Iterator[Diagnostic]:
    """An attached MCP server's tool is left out because another holds its name.

    The rule is the one attaching applies (:mod:`tooldeck._shadowing`), so
    lint, ``tooldeck list`` and run time agree: a local tool keeps its name;
    a ``use:`` entry's name is reserved from the moment the manifest loads,
    even while its own server is slow, lazy or down; between two servers
    offering the same name, the one declared first keeps it, whichever
    answers first. Reported at what holds the name (the local tool, the
    ``use:`` entry), or at the declaration of the server that loses to a
    server declared before it.

    Why: the server's tool is never offered, which is rarely what the author
    of either meant. Give the server a ``prefix``, rename one of them, or
    list the tool in ``denied_tools`` to say it is meant.

    Bad:  a ``use:`` entry ``to_tokyo`` next to a server that offers ``to_tokyo`` itself
    Good: ``{name: rival, command: [rival-server], via: client, prefix: rival_}``
    """
    if ctx.live is None:
        return
    servers = [s for s in ctx.registry.mcp_servers() if s.via == "client"]
    listed = {name: list(live.tools) for name, live in ctx.live.items() if live.error is None}
    local = {spec.name for spec in ctx.registry.tools()}
    names = assign_names(servers, listed, ctx.registry.tool_uses(), local)
    places = _places(ctx)
    for server in declaration_order(servers):
        for lost in names.shadowed_of(server.name):
            found = _shadowed(ctx, places, lost)
            if found is not None:
                yield found


_Place = tuple[Bundle, tuple[str | int, ...]]


def _places(ctx: LintContext) -> dict[tuple[str, str], _Place]:
    """Where each tool, use: entry and server is declared: (kind, name) -> (bundle, path)."""
    found: dict[tuple[str, str], _Place] = {}
    for bundle in ctx.result.bundles.values():
        uses = {use.name for use in bundle.uses}
        for name, path in bundle.tool_paths.items():
            found.setdefault(("use" if name in uses else "tool", name), (bundle, path))
        for name, path in bundle.server_paths.items():
            found.setdefault(("server", name), (bundle, path))
    return found


def _shadowed(
    ctx: LintContext, places: dict[tuple[str, str], _Place], lost: Shadowed
) -> Diagnostic | None:
    holder = lost.holder
    if lost.use:  # an entry that a tool registered in code holds: nothing lint can see
        return None
    what = f"the tool {lost.tool!r} of MCP server {lost.server!r}"
    if holder.kind == "server":
        place = places.get(("server", lost.server))
        message = (
            f"{what} is left out: MCP server {holder.server!r}, declared before it, has a tool "
            f"named {lost.name!r}; give one of them a prefix or deny that tool"
        )
    else:
        place = places.get((holder.kind, holder.name))
        entry = f" (use: {holder.server}/{holder.tool})" if holder.kind == "use" else ""
        message = (
            f"tool {holder.name!r}{entry} shadows {what}, which is left out; "
            "give the server a prefix or deny that tool"
        )
    if place is None:  # declared in code, not in a manifest
        return None
    bundle, path = place
    return ctx.at(bundle, (*path, "name"), "TD414", message, lost.name)
