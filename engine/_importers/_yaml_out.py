"""Imported tools -> manifest text a person can read, that the loader reads back exactly.

Written with PyYAML's safe dumper and a few representers: block style, with
short lists of plain values inline (``type: [string, "null"]``), keys in the
order people read them (name, description, handler, params, options), a
multi-line string as a literal block scalar, and quotes only where YAML
would otherwise read something else (``'yes'``, ``'1.0'``, ``'2026-01-01'``).
PyYAML decides the quoting with the same resolver the loader uses, so the
text reads back as the same values.

Manifest strings are interpolated (``${env:NAME}``), so every ``${`` in a
value is written as ``$${``, the loader's escape for a literal ``${``.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ._result import ImportedTool, ImportResult

__all__ = ["bidi_escaped", "modeline", "render_manifest", "tool_entry"]

_INLINE_CHARS = 72
"""Longest list of plain values written on one line."""
_WIDTH = 100
_MODELINE = "# yaml-language-server: $schema="
_RARE_BREAKS = re.compile("[\x85\u2028\u2029\ufeff]")
"""Line breaks YAML knows besides ``\\n`` and ``\\r`` (and the byte order mark)."""
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Bidi embeddings, overrides and isolates: PyYAML counts them printable and writes them raw."""


class _Inline(list[Any]):
    """A list written in flow style: ``[a, b]``."""


class _Dumper(yaml.SafeDumper):
    """Block style, sequences indented under their key, no anchors or aliases."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value.strip("\n") else None  # PyYAML falls back when | cannot say it
    if _RARE_BREAKS.search(value):
        style = '"'  # PyYAML writes these raw in other styles, and reads them back as folds
    if _BIDI.search(value):
        style = '"'  # escaped by render_manifest: only a double-quoted string can say \u202e
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _represent_inline(dumper: yaml.SafeDumper, value: _Inline) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(_Inline, _represent_inline)


def tool_entry(tool: ImportedTool) -> dict[str, Any]:
    """The manifest mapping of one tool, keys in reading order."""
    entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if tool.handler is not None:
        entry["handler"] = tool.handler
    entry["params"] = tool.params
    entry.update(tool.options)
    return entry


def render_manifest(result: ImportResult, *, schema: str | None = None, handlers: str = "") -> str:
    """The manifest text for ``result``'s tools.

    ``schema`` is the ``$schema`` an editor line points at (none without it);
    ``handlers`` is a line for the header saying where the handlers live.
    """
    lines = [] if schema is None else [modeline(schema)]
    skipped = result.skipped
    summary = _count(len(result.tools), "tool") + (
        f" ({_count(skipped, 'definition')} skipped, see the import's messages)" if skipped else ""
    )
    lines.append(
        f"# Imported by `tooldeck import {result.kind}` from {_comment(result.source)}: {summary}."
    )
    if handlers:
        lines.append(f"# {_comment(handlers)}")
    data = {"version": 1, "tools": [_prepared(tool_entry(tool)) for tool in result.tools]}
    body = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=_WIDTH,
        default_flow_style=False,
    )
    if not result.tools:
        body = "version: 1\ntools: []\n"
    body = bidi_escaped(body)
    return "\n".join(lines) + "\n" + _spaced(body)


def bidi_escaped(dumped: str) -> str:
    """YAML from :class:`_Dumper` with each bidi control written as ``\\uXXXX``.

    Written raw, a bidi control reorders what an editor or a terminal shows,
    so text can hide other text (Trojan Source). Every string holding one is
    double-quoted (:func:`_represent_str`), where ``\\u202e`` reads back as the
    same character: the manifest holds the same values.
    """
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


def modeline(schema: str) -> str:
    """The ``yaml-language-server`` line pointing editors at ``schema``.

    ``schema`` is chosen by the caller: the CLI passes a path relative to the
    manifest's folder, to the project's copy of the meta-schema, so the line
    still works after a commit (an installed file exists on one machine only).
    """
    return f"{_MODELINE}{_comment(schema)}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _comment(text: str) -> str:
    """Text safe inside a ``#`` comment line: a file name cannot start a new YAML line."""
    return _UNPRINTABLE.sub("?", text)


def _prepared(value: Any) -> Any:
    """A copy ready to dump: ``${`` escaped in string values, short plain lists inline."""
    if isinstance(value, str):
        return value.replace("${", "$${")
    if isinstance(value, dict):
        return {key: _prepared(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        items = [_prepared(item) for item in value]
        return _Inline(items) if items and _short_plain(items) else items
    return value


def _short_plain(items: list[Any]) -> bool:
    if not all(item is None or isinstance(item, str | int | float) for item in items):
        return False
    if any(isinstance(item, str) and _UNPRINTABLE.search(item) for item in items):
        return False
    return sum(len(str(item)) + 2 for item in items) <= _INLINE_CHARS


def _spaced(body: str) -> str:
    """A blank line between tools, as people write them (the list items at column 2)."""
    lines = body.splitlines()
    out: list[str] = []
    for index, line in enumerate(lines):
        if line.startswith("  - ") and index > 1 and out and out[-1] != "tools:":
            out.append("")
        out.append(line)
    return "\n".join(out) + "\n"
