"""An MCP server's tools as manifest text: the server, one ``use:`` entry per tool.

The writer for :mod:`._mcp`'s conversion, beside :mod:`._yaml_out` (whose
dumper it shares): a header with the knobs a person edits, the server as an
``mcp_servers`` entry (``via: client``, ``allowed_tools: []`` so only the
entries below reach the model, secrets as ``${env:NAME}``), then the tools,
with comments where the server left something undescribed.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from .._words import plural
from ._mcp import McpImport, ServerSource, UseTool
from ._yaml_out import _comment, _Dumper, _Inline, bidi_escaped, modeline

__all__ = ["render_mcp_manifest", "server_entry"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")

_KNOBS = """\
# Each entry under tools: is one of the server's tools (use: SERVER/TOOL) as the model sees it.
# Edit freely; delete an entry to keep that tool from the model.
#   name          the name the model sees (use: keeps the server's own)
#   description   the server's description, copied for editing
#   args          keyed by the server's argument name; arguments not listed pass through as
#                 the server declares them. Under each one:
#                   description: ...   what the model reads (copied from the server)
#                   name: tz           show the argument under another name
#                   default: UTC       make it optional; sent when the model leaves it out
#                   value: UTC         hide it from the model and always send this value"""

_ALLOWED_COMMENT = (
    "  # only the tools below; delete this line to expose every tool the server offers as is"
)
_DESTRUCTIVE_COMMENT = "  # the server marks it destructive: calls wait for approval"


def render_mcp_manifest(imported: McpImport, *, schema: str | None = None) -> str:
    """The manifest text: a header, the server, one ``use:`` entry per tool.

    ``schema`` is the ``$schema`` an editor line points at (none without it).
    """
    lines: list[str] = [] if schema is None else [modeline(schema)]
    count = len(imported.tools)
    summary = plural(count, "tool")
    skipped = imported.result.skipped
    if skipped:
        summary += f" ({skipped} skipped, see the import's messages)"
    source = _comment(imported.source.label)
    lines.append(f"# Imported by `tooldeck import mcp` from {source}: {summary}.")
    lines.append(_KNOBS)
    lines.append("version: 1")
    lines.append("mcp_servers:")
    server = _dump([server_entry(imported.source)])
    lines.extend(
        f"  {text}{_ALLOWED_COMMENT if text == '  allowed_tools: []' else ''}"
        for text in server.splitlines()
    )
    lines.append("")
    if not imported.tools:
        lines.append("tools: []")
    else:
        lines.append("tools:")
    for number, tool in enumerate(imported.tools):
        if number:
            lines.append("")
        lines.extend(_tool_lines(tool, imported.source.name))
    return "\n".join(lines) + "\n"


def server_entry(source: ServerSource) -> dict[str, Any]:
    """The ``mcp_servers`` entry, values escaped for interpolation, secrets as references."""
    entry: dict[str, Any] = {"name": source.name}
    if source.command is not None:
        entry["command"] = _escaped(source.command[0])
        if len(source.command) > 1:
            entry["args"] = _list([_escaped(arg) for arg in source.command[1:]])
        if source.env:
            entry["env"] = {name: f"${{env:{variable}}}" for name, variable in source.env}
    else:
        entry["url"] = _escaped(str(source.url))
        if source.transport != "http":
            entry["transport"] = source.transport
        headers = {name: _escaped(value) for name, value in source.headers}
        authorization = None
        for header, variable in source.header_env:
            if header.lower() == "authorization":
                authorization = f"${{env:{variable}}}"
            else:
                headers[header] = f"${{env:{variable}}}"
        if headers:
            entry["headers"] = headers
        if authorization is not None:
            entry["authorization"] = authorization
    entry["via"] = "client"
    entry["allowed_tools"] = _Inline()
    return entry


def _tool_lines(tool: UseTool, server: str) -> list[str]:
    entry: dict[str, Any] = {"name": tool.name, "use": _escaped(f"{server}/{tool.remote}")}
    if tool.description is not None:
        entry["description"] = _escaped(tool.description)
    if tool.side_effects:
        entry["side_effects"] = True
    if tool.idempotent:
        entry["idempotent"] = True
    if tool.args:
        entry["args"] = {
            argument: {"description": _escaped(text)} for argument, text in tool.args.items()
        }
    out = []
    for text in _dump([entry]).splitlines():
        comment = _DESTRUCTIVE_COMMENT if text == "  side_effects: true" else ""
        out.append(f"  {text}{comment}")
    if tool.description is None:
        out.append("    # description: (none from the server) what the tool does, when to use it")
    if tool.undescribed:
        names = ", ".join(_comment(name) for name in tool.undescribed)
        out.append(f"    # arguments the server does not describe: {names}")
    return out


def _dump(value: Any) -> str:
    return bidi_escaped(
        yaml.dump(
            value,
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=True,
            width=100,
            default_flow_style=False,
        )
    )


def _escaped(text: str) -> str:
    """A literal string value: ``${`` is the loader's reference syntax, ``$${`` its escape."""
    return text.replace("${", "$${")


def _list(items: list[str]) -> list[str]:
    """Inline (``[a, b]``) when short and plain, as the other importers write lists."""
    plain = all(not _CONTROL.search(item) for item in items)
    if plain and sum(len(item) + 2 for item in items) <= 72:
        return _Inline(items)
    return items
