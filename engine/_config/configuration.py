"""The application's configuration: a mapping from code or a YAML, JSON or ``.properties`` file.

Manifests read the configuration as ``${config:dotted.key}`` and
``enabled_when: "config.features.orders"`` (JMESPath over
:meth:`Config.search_root`, i.e. ``{"config": data}``); handlers receive it
through ``ToolContext.config``. :func:`load_config` accepts ``None`` (empty),
a mapping (used as-is) or a path whose suffix picks the format:

- ``.yaml``/``.yml``: read by the manifests' own hardened reader
  (:mod:`tooldeck._yaml.source`), so a configuration gets the same
  checks with the same codes: a duplicate key (TD208), nesting deeper than
  100 levels or an alias/merge bomb (TD206), a key that is not a string
  (TD207), a tag (TD209), an integer outside 64 bits (TD214). Timestamps stay
  strings and ``on:``/``yes:`` keys stay names, as in manifests.
- ``.json``: the standard library's parser; a duplicate key (TD208) and
  nesting deeper than 100 levels (TD206) are refused too.
- ``.properties``: the Java ``.properties`` format, :mod:`tooldeck._config.javaprops`
  (codes TD231-TD233).

The hosted-tool sections (``WebSearchTool.*``, ``MCP.*``, ``MCP_<n>.*``)
are read from any of them by :mod:`tooldeck._config.hosted_keys` (codes TD234, TD235).

Errors never raise from :func:`load_config`: they are collected in
:attr:`Config.diagnostics`, and any error about the file itself (TD230 and
the reader's TD206-TD209, TD214) leaves the configuration empty, so a broken
file is reported once here instead of as a cascade of unknown
``${config:...}`` keys. Code emitted here:

=====  ===================================================================
TD230  error: the configuration cannot be loaded: missing or unreadable
       file, not a regular file (a FIFO, device, socket or folder: never
       opened for reading), larger than 2 MiB, unsupported suffix, invalid
       UTF-8, JSON or YAML (with the parser's line and column), or a top
       level that is not a mapping.
=====  ===================================================================
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._diagnostics import Diagnostic, Severity, SourceLocation
from .._model import McpServerSpec, WebSearchSpec
from .._params import MISSING
from .._readfile import DEFAULT_LIMIT, Unreadable, read_bounded
from .hosted_keys import Locate, has_hosted_keys, read_hosted_keys
from .javaprops import parse_properties, read_properties

if TYPE_CHECKING:
    import yaml

    from .._yaml import YamlDocument

__all__ = ["Config", "load_config", "parse_properties"]

_SUFFIXES = (".yaml", ".yml", ".json", ".properties")
MAX_BYTES = DEFAULT_LIMIT
"""Configuration files larger than this are refused (TD230), as manifests are (2 MiB)."""
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
"""A JSON string (to skip the brackets in it) or a bracket."""

_Read = tuple[dict[str, Any], Locate | None, list[Diagnostic]]
"""What a reader returns: the data, where its keys are, and what went wrong."""


@dataclass(frozen=True, kw_only=True)
class Config:
    """A loaded configuration: nested data, the hosted tools its ``WebSearchTool.*`` and
    ``MCP.*``/``MCP_<n>.*`` keys declare, and what went wrong."""

    data: Mapping[str, Any] = field(default_factory=dict)
    """The nested configuration; empty when loading failed (see :attr:`diagnostics`)."""
    web_search: WebSearchSpec | None = None
    """Hosted web search from the ``WebSearchTool`` section, if ``.type`` is set."""
    mcp_servers: tuple[McpServerSpec, ...] = ()
    """Hosted MCP servers from the ``MCP``, ``MCP_1``, ... sections, in numeric order."""
    source: str | None = None
    """The file it was read from, as given; ``None`` for a mapping or no configuration."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Problems found while loading (codes TD230-TD235), in file order."""

    def get(self, dotted: str, default: Any = MISSING) -> Any:
        """The value at ``dotted`` (``"features.orders"``), walking nested mappings.

        A segment of digits indexes a list (``"servers.0.url"``). A missing key
        returns ``default`` when one is given and raises :class:`KeyError` otherwise.
        """
        current: Any = self.data
        for part in dotted.split("."):
            if isinstance(current, Mapping) and part in current:
                current = current[part]
            elif (
                isinstance(current, Sequence)
                and not isinstance(current, str | bytes)
                and part.isdigit()
                and int(part) < len(current)
            ):
                current = current[int(part)]
            elif default is MISSING:
                raise KeyError(dotted)
            else:
                return default
        return current

    def search_root(self) -> dict[str, Any]:
        """``{"config": data}``: what ``enabled_when`` JMESPath expressions search."""
        return {"config": self.data}


def load_config(source: str | Path | Mapping[str, Any] | None) -> Config:
    """Load a configuration from nothing, a mapping, or a YAML/JSON/properties file.

    Never raises for a bad file: problems are returned in
    :attr:`Config.diagnostics` (an error about the file leaves the data
    empty). Passing something that is neither a mapping nor a path is a
    programming error and raises :class:`TypeError`.
    """
    if source is None:
        return Config()
    if isinstance(source, Mapping):
        web, servers, diagnostics = read_hosted_keys(source, locate=None, file=None)
        return Config(
            data=source,
            web_search=web,
            mcp_servers=servers,
            diagnostics=tuple(diagnostics),
        )
    if not isinstance(source, str | os.PathLike):
        raise TypeError(
            f"load_config() takes a mapping, a path or None, not {type(source).__name__}"
        )
    file = os.fspath(source)
    data, locate, diagnostics = _read_file(file)
    web, servers, hosted_diagnostics = read_hosted_keys(data, locate=locate, file=file)
    diagnostics.extend(hosted_diagnostics)
    diagnostics.sort(key=_diagnostic_order)
    return Config(
        data=data,
        web_search=web,
        mcp_servers=servers,
        source=file,
        diagnostics=tuple(diagnostics),
    )


# -- reading files -----------------------------------------------------------------------------


def _read_file(file: str) -> _Read:
    suffix = Path(file).suffix.lower()
    if suffix not in _SUFFIXES:
        return (
            {},
            None,
            [
                _error(
                    file,
                    f"unsupported configuration file suffix {suffix or '(none)'!r}; "
                    f"use one of {', '.join(_SUFFIXES)}",
                )
            ],
        )
    raw = read_bounded(file, MAX_BYTES)  # never blocks, never reads past the cap
    if isinstance(raw, Unreadable):
        return {}, None, [_error(file, f"cannot read configuration file: {raw}")]
    if suffix == ".properties":
        data, positions, diagnostics = read_properties(raw, file)
        return data, _properties_locator(positions), diagnostics
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        message = "configuration file is not valid UTF-8"
        return {}, None, [_error(file, message, line=line, column=column)]
    if suffix == ".json":
        return _read_json(text, file)
    return _read_yaml(text, file)


def _read_yaml(text: str, file: str) -> _Read:
    """YAML through the manifest reader; its syntax errors become TD230, its checks stay."""
    from .._yaml import YamlDocument, parse_yaml_text

    doc = parse_yaml_text(text, YamlDocument(file=file, data=None, root=None))
    problems: list[Diagnostic] = []
    for diagnostic in doc.diagnostics:
        where = diagnostic.location or SourceLocation(file=file)
        if diagnostic.code in ("TD203", "TD204"):  # a tab indent is a syntax error too
            message = f"invalid YAML: {diagnostic.message}"
            problems.append(dataclasses.replace(diagnostic, code="TD230", message=message))
        elif diagnostic.code == "TD205":  # nothing in it: fine, unless it says `null`
            if doc.root is not None:
                problems.append(_not_a_mapping(file, None, where.line, where.column))
        else:
            problems.append(diagnostic)
    if problems or doc.root is None:  # an empty document (only comments): no configuration yet
        return {}, None, problems
    if not isinstance(doc.data, dict):
        mark = doc.root.start_mark
        return {}, None, [_not_a_mapping(file, doc.data, mark.line + 1, mark.column + 1)]
    return doc.data, _document_locator(doc), []


def _read_json(text: str, file: str) -> _Read:
    """JSON through the standard library, refusing deep nesting and duplicate keys."""
    from .._yaml import MAX_DEPTH

    deep = _too_deep_json(text, MAX_DEPTH)
    if deep is not None:
        line, column = _text_position(text, deep)
        message = f"nesting deeper than {MAX_DEPTH} levels"
        return {}, None, [_error(file, message, code="TD206", line=line, column=column)]
    repeated: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                repeated.append(key)
            out[key] = value
        return out

    try:
        data = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg}"
        return {}, None, [_error(file, message, line=exc.lineno, column=exc.colno)]
    if not isinstance(data, dict):
        line, column = _text_position(text, len(text) - len(text.lstrip()))
        return {}, None, [_not_a_mapping(file, data, line, column)]
    if not repeated and not has_hosted_keys(data):
        return data, None, []
    # JSON has no positions; the YAML reader reads JSON well enough to locate keys.
    doc = _yaml_view(text, file)
    if repeated:
        found = _duplicate_keys(doc.root, file) if doc is not None else []
        return {}, None, found or [_duplicate(file, key) for key in dict.fromkeys(repeated)]
    return data, None if doc is None else _document_locator(doc), []


def _too_deep_json(text: str, limit: int) -> int | None:
    """The offset of the first bracket inside more than ``limit`` others, if any.

    Python's parser recurses per level and raises RecursionError (not a
    JSONDecodeError) near 1,000 levels; this holds JSON to the YAML reader's
    limit first. Few brackets cannot nest deep: the scan is skipped.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for match in _JSON_NESTING.finditer(text):
        char = text[match.start()]
        if char in "[{":
            if depth > limit:
                return match.start()
            depth += 1
        elif char in "]}":
            depth -= 1
    return None


def _yaml_view(text: str, file: str) -> YamlDocument | None:
    """``text`` read by the YAML reader, for positions; ``None`` if it cannot read it."""
    from .._yaml import YamlDocument, parse_yaml_text

    doc = parse_yaml_text(text, YamlDocument(file=file, data=None, root=None))
    return doc if doc.root is not None else None


def _duplicate_keys(root: yaml.Node | None, file: str) -> list[Diagnostic]:
    """TD208 at each repeated key of the JSON text's node tree (JSON has no aliases)."""
    import yaml

    found: list[Diagnostic] = []
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                pending.append(value)
                if not isinstance(key, yaml.ScalarNode):
                    continue
                if key.value in seen:
                    mark = key.start_mark
                    line, column = mark.line + 1, mark.column + 1
                    found.append(_duplicate(file, key.value, seen[key.value], line, column))
                else:
                    seen[key.value] = key.start_mark.line + 1
    return found


def _duplicate(
    file: str, key: str, first: int | None = None, line: int = 1, column: int = 1
) -> Diagnostic:
    shown = key if len(key) <= 60 else f"{key[:57]}..."
    before = f" (first defined on line {first})" if first is not None else ""
    message = f"duplicate key {shown!r}{before}; JSON parsers silently keep only one of them"
    return _error(file, message, code="TD208", line=line, column=column)


def _document_locator(doc: YamlDocument) -> Locate:
    def locate(path: tuple[str, ...]) -> tuple[int, int]:
        where = doc.locate(path, key=True)
        return where.line, where.column

    return locate


def _properties_locator(positions: Mapping[tuple[str, ...], tuple[int, int]]) -> Locate:
    def locate(path: tuple[str, ...]) -> tuple[int, int] | None:
        found = positions.get(path)
        if found is None:  # the section itself has no line, its first key has
            found = min(
                (pos for p, pos in positions.items() if p[: len(path)] == path), default=None
            )
        return found

    return locate


def _text_position(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _not_a_mapping(file: str, data: Any, line: int, column: int) -> Diagnostic:
    kind = "null" if data is None else type(data).__name__
    return _error(
        file,
        f"the configuration must be a mapping of keys to values at the top level, not {kind}",
        line=line,
        column=column,
    )


def _error(
    file: str, message: str, *, code: str = "TD230", line: int = 1, column: int = 1
) -> Diagnostic:
    return Diagnostic(
        code=code,
        message=message,
        severity=Severity.ERROR,
        location=SourceLocation(file=file, line=line, column=column),
    )


def _diagnostic_order(diagnostic: Diagnostic) -> tuple[int, int]:
    location = diagnostic.location
    return (location.line, location.column) if location else (0, 0)
