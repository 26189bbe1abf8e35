"""Lint rules for attached MCP servers and ``use:`` entries (TD412-TD414).

What can be checked without a connection is checked always: a ``use:``
entry must name a server declared with ``via: client``. The rest needs the
server's live tool list, which the CLI gathers before linting
(:func:`tooldeck.mcp._lintlive.list_servers`) and hands over as plain data in
:attr:`LintContext.live`; this module never imports ``mcp``. A server lint
could not reach is reported as such (TD412), so a check that did not happen
never looks like one that passed.
"""

from __future__ import annotations

from collections.abc import Iterator

from tooldeck._diagnostics import Diagnostic, Severity
from tooldeck._reshape import reshape
from tooldeck.manifest._build import Bundle
from tooldeck.manifest._lintrules import LintContext, rule

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
    """A ``use: SERVER/TOOL`` entry that cannot become a tool.

    Checked always: the server must be declared with ``via: client``.
    Checked against the live server when lint can connect: the server must
    offer the tool, each ``args`` key must be one of its arguments, defaults
    and fixed values must fit the argument's schema, and a new name must not
    be one the tool already uses.

    Why: such an entry is left out when the server is attached; the model
    would never see the tool the manifest describes.

    Bad:  ``{use: time/get_time}`` when the server offers ``get_current_time``
    Good: ``{use: time/get_current_time, args: {timezone: {default: UTC}}}``
    """
    servers = _servers(ctx)
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


@rule("TD414", "mcp-tool-shadowed", Severity.WARNING)
def _tool_shadowed(ctx: LintContext) -> Iterator[Diagnostic]:
    """A manifest tool has the name an attached MCP server's tool would take.

    Why: the local tool wins (the seed's rule) and the server's tool is left
    out, which is rarely what the author of either meant. Give the server a
    ``prefix``, rename one of them, or list the server's tool in
    ``denied_tools`` to say it is meant.

    Bad:  a local tool ``get_current_time`` next to ``mcp-server-time`` without a prefix
    Good: ``{name: time, command: [mcp-server-time], via: client, prefix: time_}``
    """
    if ctx.live is None:
        return
    local: dict[str, tuple[Bundle, tuple[str | int, ...]]] = {}
    reshaped_by: dict[str, set[str]] = {}
    for bundle in ctx.result.bundles.values():
        for name, path in bundle.tool_paths.items():
            local.setdefault(name, (bundle, path))
        for use in bundle.uses:
            reshaped_by.setdefault(use.server, set()).add(use.tool)
    for bundle in ctx.result.bundles.values():
        for server in bundle.servers:
            live = ctx.live.get(server.name)
            if live is None or live.error is not None:
                continue
            reshaped = reshaped_by.get(server.name, set())
            for remote in live.tools:
                if not server.registers_as_is(remote, reshaped):
                    continue
                name = server.prefix + remote
                owner = local.get(name)
                if owner is None:
                    continue
                yield ctx.at(
                    owner[0],
                    (*owner[1], "name"),
                    "TD414",
                    f"tool {name!r} shadows the tool {remote!r} of MCP server {server.name!r}, "
                    "which is left out; give the server a prefix or deny that tool",
                    name,
                )
