"""An MCP server's ``tools/list`` -> ``use: SERVER/TOOL`` entries, ready to edit.

``tooldeck import mcp`` connects to one server (a command over stdio, or a url),
lists its tools and writes the server as an ``mcp_servers`` entry plus one
``tools`` entry per remote tool: ``name`` (provider-safe), ``use``, the
server's description and each argument's description under ``args``, keyed
by the remote argument name, for the user to edit.

This module is the pure part, testable without a server: :func:`convert_tools`
turns the listing (plain JSON values) into :class:`UseTool` entries with
located problems. The command line's options become a :class:`ServerSource`
in the CLI (:mod:`tooldeck.cli._importing.mcp_source`), the listing comes from
:func:`tooldeck.mcp._attaching.list_server_tools`, and :mod:`._yaml_mcp`
writes the manifest.

=====  ==========================================================
TD501  a remote tool name no ``use:`` entry can hold; skipped
TD502  the server lists a tool name twice; the later one is skipped
TD504  a value a manifest cannot hold (a lone surrogate); skipped
TD513  the server cannot be started, reached or listed in time
TD514  a tool name providers reject got a provider-safe model name
TD515  the server gives a tool no description
=====  ==========================================================
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._names import is_provider_safe
from ._problems import ImportProblem, Severity
from ._result import ImportResult
from ._values import unwritable
from ._yaml_out import _comment

__all__ = ["McpImport", "ServerSource", "UseTool", "convert_tools", "unreachable"]

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


@dataclass(frozen=True)
class ServerSource:
    """One MCP server as the command line names it.

    ``headers`` are written literally; ``header_env`` and ``env`` map a header
    (or a server variable) to the environment variable holding its value,
    which is read to connect now and written as ``${env:NAME}``. Built from
    the options by :func:`tooldeck.cli._importing.server_source`.
    """

    name: str
    command: tuple[str, ...] | None = None
    url: str | None = None
    transport: str = "http"
    headers: tuple[tuple[str, str], ...] = ()
    header_env: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        """The command line or the url, for messages and the manifest's header."""
        return shlex.join(self.command) if self.command is not None else str(self.url)


@dataclass
class UseTool:
    """One remote tool as a ``use:`` entry."""

    index: int
    """1-based position in the server's ``tools/list``."""
    name: str
    """The name the model sees (provider-safe)."""
    remote: str
    """The tool's name on the server."""
    description: str | None
    """The server's description (or title); None when it gives neither."""
    args: dict[str, str] = field(default_factory=dict)
    """Remote argument name -> the server's description of it."""
    undescribed: list[str] = field(default_factory=list)
    """Remote arguments the server does not describe."""
    side_effects: bool = False
    """The server marks it destructive (``destructiveHint``, not read-only)."""
    idempotent: bool = False


@dataclass
class McpImport:
    """What one ``tooldeck import mcp`` found: the server, its tools, the problems."""

    source: ServerSource
    result: ImportResult
    """Problems, the count of listed tools (``definitions``), ``readable``."""
    tools: list[UseTool] = field(default_factory=list)


def convert_tools(tools: Sequence[Mapping[str, Any]], source: ServerSource) -> McpImport:
    """``tools/list`` entries (JSON values) -> ``use:`` entries, with located problems."""
    result = ImportResult(source=source.label, kind="mcp", definitions=len(tools))
    converted: list[UseTool] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(tools, start=1):
        tool = _convert(index, raw, result.problems)
        if tool is None:
            continue
        if tool.remote in seen:
            result.problems.append(
                ImportProblem(
                    code="TD502",
                    message=f"the server lists this name already as tool {seen[tool.remote]}; "
                    "this one is skipped",
                    index=index,
                    name=tool.remote,
                )
            )
            continue
        seen[tool.remote] = index
        converted.append(tool)
    _name_for_providers(converted, result.problems)
    result.problems.sort(key=lambda problem: problem.index or 0)  # in the server's order
    return McpImport(source=source, result=result, tools=converted)


def unreachable(source: ServerSource, message: str) -> McpImport:
    """The import of a server that could not be started, reached or listed: TD513, no tools."""
    result = ImportResult(source=source.label, kind="mcp", readable=False)
    result.problems.append(ImportProblem(code="TD513", message=message))
    return McpImport(source=source, result=result)


def _convert(index: int, raw: Mapping[str, Any], problems: list[ImportProblem]) -> UseTool | None:
    remote = raw.get("name")
    if not isinstance(remote, str) or not remote or remote[0].isspace() or _CONTROL.search(remote):
        shown = remote if isinstance(remote, str) else None
        problems.append(
            ImportProblem(
                code="TD501",
                message="the tool's name cannot be written as use: SERVER/TOOL (it is empty, "
                "starts with a space or holds a control character); skipped",
                index=index,
                name=_comment(shown)[:80] if shown else None,
            )
        )
        return None
    description = _text(raw.get("description")) or _text(raw.get("title"))
    hints = raw.get("annotations")
    hints = hints if isinstance(hints, Mapping) else {}
    description = description or _text(hints.get("title"))
    schema = raw.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    args: dict[str, str] = {}
    undescribed: list[str] = []
    for argument, subschema in (properties if isinstance(properties, Mapping) else {}).items():
        text = _text(subschema.get("description")) if isinstance(subschema, Mapping) else None
        if text:
            args[argument] = text
        else:
            undescribed.append(argument)
    why = unwritable([remote, description, args, undescribed])
    if why is not None:
        problems.append(
            ImportProblem(code="TD504", message=f"{why}; skipped", index=index, name=None)
        )
        return None
    if description is None:
        problems.append(
            ImportProblem(
                code="TD515",
                message="the server gives the tool no description, so the model sees only its "
                "name; write one in the manifest",
                severity=Severity.WARNING,
                index=index,
                name=remote,
            )
        )
    return UseTool(
        index=index,
        name=remote,
        remote=remote,
        description=description,
        args=args,
        undescribed=undescribed,
        side_effects=hints.get("destructiveHint") is True and hints.get("readOnlyHint") is not True,
        idempotent=hints.get("idempotentHint") is True,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _name_for_providers(tools: list[UseTool], problems: list[ImportProblem]) -> None:
    """Give each tool a name providers accept; the safe names are kept, the others made."""
    taken = {tool.remote for tool in tools if is_provider_safe(tool.remote)}
    for tool in tools:
        if is_provider_safe(tool.remote):
            continue
        stem = _UNSAFE.sub("_", tool.remote).strip("_")[:64] or "tool"
        name, number = stem, 2
        while name in taken:
            suffix = f"_{number}"
            name, number = stem[: 64 - len(suffix)] + suffix, number + 1
        taken.add(name)
        tool.name = name
        problems.append(
            ImportProblem(
                code="TD514",
                message="the name is not one providers accept (^[a-zA-Z0-9_-]{1,64}$); the "
                f"model sees it as {name!r}, and use: keeps the server's name",
                severity=Severity.INFO,
                index=tool.index,
                name=_comment(tool.remote)[:80],
            )
        )
