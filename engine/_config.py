"""The application's configuration: a mapping from code or a YAML, JSON or ``.properties`` file.

Manifests read the configuration as ``${config:dotted.key}`` and
``enabled_when: "config.features.orders"`` (JMESPath over
:meth:`Config.search_root`, i.e. ``{"config": data}``); handlers receive it
through ``ToolContext.config``. :func:`load_config` accepts ``None`` (empty),
a mapping (used as-is) or a path whose suffix picks the format:
``.yaml``/``.yml`` (``yaml.safe_load``), ``.json`` or ``.properties``.

Seed compatibility
------------------
The seed application (Java) was configured with a ``java.util.Properties``
file. :func:`parse_properties` reads that format the way ``Properties.load``
does: ``key=value``, ``key: value`` and ``key value`` (the key ends at the
first unescaped ``=``, ``:`` or whitespace), ``#``/``!`` comment lines, a
trailing unescaped backslash continues the entry on the next line (whose
leading whitespace is dropped), and the escapes ``\\t \\n \\r \\f \\uXXXX``;
any other escaped character stands for itself (``\\= \\: \\# \\! \\\\`` and
``\\`` + space). As in Java, a ``#`` after a value is part of the value (there
are no end-of-line comments) and trailing whitespace of a value is kept. The
file is read as UTF-8, falling back to ISO-8859-1 (``Properties.load``'s own
encoding) when it is not valid UTF-8. Dotted keys become nested mappings
(``a.b.c=1`` -> ``{"a": {"b": {"c": "1"}}}``); values stay strings.

The seed's properties also declared provider-hosted tools, and so do these
groups here, from a properties file or as nested mappings in a YAML, JSON or
in-code configuration::

    WebSearchTool.type=default       # enables web search; default -> web_search_preview
    WebSearchTool.city=Prague        # optional: city, country, region
    MCP.name=Project MCP             # first server: MCP.*, then MCP_1.*, MCP_2.* ...
    MCP.url=https://example.org/mcp
    MCP.description=...              # optional: description, authorization
    MCP.authorization=Bearer ...

(The comments above are annotations: in a real properties file they would be
part of the values.) Web search is enabled only when ``WebSearchTool.type``
is set (:class:`tooldeck._model.WebSearchSpec`). Every top-level group named
``MCP`` or ``MCP_<n>`` is read, in numeric order (``MCP`` counts as 0, gaps
do not stop the scan), and registers a hosted
:class:`tooldeck._model.McpServerSpec` only when its ``.name`` is set, like the
seed. An empty value counts as not set. The groups also stay in
:attr:`Config.data`.

Errors never raise from :func:`load_config`: they are collected in
:attr:`Config.diagnostics`. Codes emitted here:

=====  ===================================================================
TD230  error: the configuration cannot be loaded: missing or unreadable
       file, unsupported suffix, invalid UTF-8, JSON or YAML (with the
       parser's line and column), or a top level that is not a mapping.
       The configuration is then empty, so a broken file is reported once
       here instead of as a cascade of unknown ``${config:...}`` keys.
TD231  warning: a properties key is both a value and the prefix of other
       keys (``a=1`` and ``a.b=2``). A nested mapping cannot hold both; the
       nested keys are kept and the leaf value is dropped.
TD232  warning: a properties line that is not an entry: it has no key (it
       starts with a separator; Java would store it under the empty key),
       or it has a malformed ``\\uXXXX`` escape (Java refuses the whole file;
       here the escape is kept as written).
TD233  warning: a properties key set more than once. The last value wins,
       as in ``Properties.load``; the first line is named because the
       earlier value is silently lost otherwise.
TD234  error: a seed group that is enabled cannot be registered: an ``MCP``
       group with ``.name`` but no ``.url``, a group value that is not a
       string (YAML reads ``country: NO`` as a boolean), or a combination
       :class:`tooldeck._model.McpServerSpec` rejects.
TD235  warning: part of a seed group is ignored: an ``MCP`` group without
       ``.name`` (the seed registers a server only when ``.name`` is set),
       ``WebSearchTool`` keys without ``.type``, or a key the seed does not
       read (a typo such as ``MCP.autorization``).
=====  ===================================================================
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation
from tooldeck._errors import RegistrationError
from tooldeck._model import MISSING, McpServerSpec, WebSearchSpec

__all__ = ["Config", "load_config", "parse_properties"]

_SUFFIXES = (".yaml", ".yml", ".json", ".properties")
_WHITESPACE = " \t\f"
_SEPARATORS = "=:"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX = frozenset("0123456789abcdefABCDEF")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MCP_GROUP = re.compile(r"MCP(?:_(\d+))?")
_WEB_SEARCH = "WebSearchTool"
_WEB_SEARCH_KEYS = ("type", "city", "country", "region")
_MCP_KEYS = ("name", "url", "authorization", "description")
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_Path = tuple[str, ...]
_Positions = Mapping[_Path, tuple[int, int]]
"""Key path -> 1-based (line, column) of the key, where the format tells it."""


@dataclass(frozen=True, kw_only=True)
class Config:
    """A loaded configuration: nested data, the seed's hosted tools and what went wrong."""

    data: Mapping[str, Any] = field(default_factory=dict)
    """The nested configuration; empty when loading failed (see :attr:`diagnostics`)."""
    web_search: WebSearchSpec | None = None
    """Hosted web search from the ``WebSearchTool`` group, if ``.type`` is set."""
    mcp_servers: tuple[McpServerSpec, ...] = ()
    """Hosted MCP servers from the ``MCP``, ``MCP_1``, ... groups, in numeric order."""
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
    :attr:`Config.diagnostics` (a TD230 error leaves the data empty). Passing
    something that is neither a mapping nor a path is a programming error and
    raises :class:`TypeError`.
    """
    if source is None:
        return Config()
    if isinstance(source, Mapping):
        web, servers, diagnostics = _extract_seed(source, {}, None)
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
    data, positions, diagnostics = _read_file(file)
    web, servers, seed_diagnostics = _extract_seed(data, positions, file)
    diagnostics.extend(seed_diagnostics)
    diagnostics.sort(key=_diagnostic_order)
    return Config(
        data=data,
        web_search=web,
        mcp_servers=servers,
        source=file,
        diagnostics=tuple(diagnostics),
    )


def parse_properties(
    text: str, *, file: str
) -> tuple[dict[str, str], dict[str, int], list[Diagnostic]]:
    """Parse ``java.util.Properties`` text into flat values, key lines and diagnostics.

    Returns ``(values, lines, diagnostics)``: ``values`` maps each key to its
    (last) value in file order, ``lines`` maps each key to the 1-based line
    where its winning entry starts. ``file`` is only used in locations.
    """
    values, positions, diagnostics = _parse_properties(text, file)
    return values, {key: line for key, (line, _) in positions.items()}, diagnostics


# -- reading files -----------------------------------------------------------------------------


def _read_file(file: str) -> tuple[dict[str, Any], dict[_Path, tuple[int, int]], list[Diagnostic]]:
    suffix = Path(file).suffix.lower()
    if suffix not in _SUFFIXES:
        return (
            {},
            {},
            [
                _error(
                    file,
                    f"unsupported configuration file suffix {suffix or '(none)'!r}; "
                    f"use one of {', '.join(_SUFFIXES)}",
                )
            ],
        )
    try:
        raw = Path(file).read_bytes()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return {}, {}, [_error(file, f"cannot read configuration file: {reason}")]
    if suffix == ".properties":
        return _read_properties(raw, file)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _offset_position(raw, exc.start)
        return (
            {},
            {},
            [_error(file, "configuration file is not valid UTF-8", line=line, column=column)],
        )
    if suffix == ".json":
        return _read_json(text, file)
    return _read_yaml(text, file)


def _read_properties(
    raw: bytes, file: str
) -> tuple[dict[str, Any], dict[_Path, tuple[int, int]], list[Diagnostic]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("iso-8859-1")
    values, positions, diagnostics = _parse_properties(text, file)
    data, nest_diagnostics = _nest(values, positions, file)
    diagnostics.extend(nest_diagnostics)
    return data, {tuple(key.split(".")): pos for key, pos in positions.items()}, diagnostics


def _read_json(
    text: str, file: str
) -> tuple[dict[str, Any], dict[_Path, tuple[int, int]], list[Diagnostic]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, {}, [_error(file, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno)]
    if not isinstance(data, dict):
        offset = len(text) - len(text.lstrip())
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return {}, {}, [_not_a_mapping(file, data, line, column)]
    # JSON has no positions; PyYAML reads JSON well enough to locate seed-group keys.
    positions = _yaml_positions(text) if _has_seed_groups(data) else {}
    return data, positions, []


def _read_yaml(
    text: str, file: str
) -> tuple[dict[str, Any], dict[_Path, tuple[int, int]], list[Diagnostic]]:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = (
            getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
        )
        if mark is None:
            return {}, {}, [_error(file, f"invalid YAML: {problem}")]
        return (
            {},
            {},
            [_error(file, f"invalid YAML: {problem}", line=mark.line + 1, column=mark.column + 1)],
        )
    finally:
        loader.dispose()
    if node is None:  # an empty document (only comments): no configuration yet
        return {}, {}, []
    if not isinstance(data, dict):
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        return {}, {}, [_not_a_mapping(file, data, line, column)]
    return data, _node_positions(node), []


def _yaml_positions(text: str) -> dict[_Path, tuple[int, int]]:
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return {}
    return {} if node is None else _node_positions(node)


def _node_positions(node: yaml.Node) -> dict[_Path, tuple[int, int]]:
    """Positions of top-level keys and their children's keys: all the seed groups need."""
    positions: dict[_Path, tuple[int, int]] = {}
    if not isinstance(node, yaml.MappingNode):
        return positions
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        positions[(key.value,)] = (key.start_mark.line + 1, key.start_mark.column + 1)
        if isinstance(value, yaml.MappingNode):
            for child, _ in value.value:
                if isinstance(child, yaml.ScalarNode):
                    mark = child.start_mark
                    positions[(key.value, child.value)] = (mark.line + 1, mark.column + 1)
    return positions


def _has_seed_groups(data: Mapping[str, Any]) -> bool:
    return any(
        isinstance(key, str) and (key == _WEB_SEARCH or _MCP_GROUP.fullmatch(key)) for key in data
    )


def _offset_position(raw: bytes, offset: int) -> tuple[int, int]:
    line = raw.count(b"\n", 0, offset) + 1
    return line, offset - (raw.rfind(b"\n", 0, offset) + 1) + 1


def _not_a_mapping(file: str, data: Any, line: int, column: int) -> Diagnostic:
    kind = "null" if data is None else type(data).__name__
    return _error(
        file,
        f"the configuration must be a mapping of keys to values at the top level, not {kind}",
        line=line,
        column=column,
    )


def _error(file: str, message: str, *, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(
        code="TD230",
        message=message,
        severity=Severity.ERROR,
        location=SourceLocation(file=file, line=line, column=column),
    )


# -- java.util.Properties --------------------------------------------------------------------


def _logical_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """``(line, column, text)`` of each entry, continuations joined, comments skipped."""
    lines = re.split(r"\r\n|\r|\n", text)
    index = 0
    while index < len(lines):
        raw = lines[index]
        start = index + 1
        index += 1
        content = raw.lstrip(_WHITESPACE)
        if not content or content[0] in "#!":
            continue
        column = len(raw) - len(content) + 1
        while _continues(content):
            content = content[:-1]
            if index >= len(lines):
                break
            content += lines[index].lstrip(_WHITESPACE)
            index += 1
        yield start, column, content


def _continues(content: str) -> bool:
    """Ends with an odd number of backslashes (an even number is escaped backslashes)."""
    return (len(content) - len(content.rstrip("\\"))) % 2 == 1


def _split_entry(content: str) -> tuple[str, str]:
    """Raw key and raw value of a logical line, separators and surrounding whitespace removed."""
    end = 0
    while end < len(content):
        char = content[end]
        if char == "\\":
            end += 2
            continue
        if char in _SEPARATORS or char in _WHITESPACE:
            break
        end += 1
    key = content[:end]
    start = end
    while start < len(content) and content[start] in _WHITESPACE:
        start += 1
    if start < len(content) and content[start] in _SEPARATORS:
        start += 1
        while start < len(content) and content[start] in _WHITESPACE:
            start += 1
    return key, content[start:]


def _unescape(raw: str) -> tuple[str, bool]:
    """Decoded text and whether a malformed ``\\uXXXX`` was kept as written."""
    if "\\" not in raw:
        return raw, True
    out: list[str] = []
    ok = True
    index = 0
    while index < len(raw):
        char = raw[index]
        index += 1
        if char != "\\":
            out.append(char)
            continue
        if index >= len(raw):
            break
        char = raw[index]
        index += 1
        if char == "u":
            digits = raw[index : index + 4]
            if len(digits) == 4 and set(digits) <= _HEX:
                out.append(chr(int(digits, 16)))
                index += 4
            else:
                ok = False
                out.append("\\u")
        else:
            out.append(_ESCAPES.get(char, char))
    text = "".join(out)
    if any("\ud800" <= char <= "\udfff" for char in text):
        # Java strings are UTF-16: "\uD83D\uDE00" is one character, join the pair.
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return text, ok


def _parse_properties(
    text: str, file: str
) -> tuple[dict[str, str], dict[str, tuple[int, int]], list[Diagnostic]]:
    values: dict[str, str] = {}
    positions: dict[str, tuple[int, int]] = {}
    first_lines: dict[str, int] = {}
    diagnostics: list[Diagnostic] = []
    for line, column, content in _logical_lines(text):
        raw_key, raw_value = _split_entry(content)
        where = SourceLocation(file=file, line=line, column=column)
        if not raw_key:
            diagnostics.append(
                Diagnostic(
                    code="TD232",
                    message="line has no key (it starts with a separator); ignored",
                    severity=Severity.WARNING,
                    location=where,
                )
            )
            continue
        key, key_ok = _unescape(raw_key)
        value, value_ok = _unescape(raw_value)
        if not (key_ok and value_ok):
            diagnostics.append(
                Diagnostic(
                    code="TD232",
                    message=f"malformed \\uXXXX escape in the {'key' if not key_ok else 'value'} "
                    f"of {key!r}; kept as written (write four hex digits, e.g. \\u00e9)",
                    severity=Severity.WARNING,
                    location=where,
                )
            )
        if key in values:
            diagnostics.append(
                Diagnostic(
                    code="TD233",
                    message=f"key {key!r} is set again (first set on line {first_lines[key]}); "
                    "the last value wins",
                    severity=Severity.WARNING,
                    location=where,
                )
            )
            del values[key]  # keep file order: the key now sits where its winning entry is
        else:
            first_lines[key] = line
        values[key] = value
        positions[key] = (line, column)
    return values, positions, diagnostics


def _nest(
    values: Mapping[str, str], positions: Mapping[str, tuple[int, int]], file: str
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Dotted keys -> nested dicts; a key that is also a prefix of others is dropped (TD231)."""
    ordered = sorted(values)
    shadowed: dict[str, str] = {}
    for key in ordered:
        prefix = key + "."
        found = bisect.bisect_left(ordered, prefix)
        if found < len(ordered) and ordered[found].startswith(prefix):
            shadowed[key] = ordered[found]
    data: dict[str, Any] = {}
    diagnostics: list[Diagnostic] = []
    for key, value in values.items():
        if key in shadowed:
            nested = shadowed[key]
            line, column = positions[key]
            diagnostics.append(
                Diagnostic(
                    code="TD231",
                    message=f"key {key!r} is both a value and the prefix of {nested!r} "
                    f"(line {positions[nested][0]}); the nested keys are kept and this "
                    "value is dropped",
                    severity=Severity.WARNING,
                    location=SourceLocation(
                        file=file, line=line, column=column, json_path=_json_path((key,))
                    ),
                )
            )
            continue
        *parents, leaf = key.split(".")
        target = data
        for part in parents:
            target = target.setdefault(part, {})
        target[leaf] = value
    return data, diagnostics


# -- seed groups -------------------------------------------------------------------------------


class _Group:
    """Reads one seed group (``WebSearchTool``, ``MCP_1``) and reports on it."""

    def __init__(
        self,
        name: str,
        values: Mapping[Any, Any],
        known: Sequence[str],
        *,
        positions: _Positions,
        file: str | None,
        diagnostics: list[Diagnostic],
    ) -> None:
        self.name = name
        self.values = values
        self.positions = positions
        self.file = file
        self.diagnostics = diagnostics
        self.invalid: set[str] = set()
        for key in values:
            if key not in known:
                self.report(
                    "TD235",
                    f"{name}.{key} is ignored: the seed reads only "
                    + ", ".join(f"{name}.{k}" for k in known),
                    Severity.WARNING,
                    str(key),
                )

    def read(self, key: str) -> str | None:
        """The value of ``key`` as a string; ``None`` if absent, empty or invalid (TD234)."""
        value = self.values.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            hint = " (quote it: YAML reads yes/no/on/off as booleans)"
            self.report(
                "TD234",
                f"{self.name}.{key} must be a string, not {type(value).__name__}"
                + (hint if isinstance(value, bool) else ""),
                Severity.ERROR,
                key,
            )
            self.invalid.add(key)
            return None
        text = str(value)
        return text or None

    def location(self, key: str | None = None) -> SourceLocation | None:
        if self.file is None:
            return None
        path: _Path = (self.name,) if key is None else (self.name, key)
        position = self.positions.get(path)
        if position is None:  # properties: the group itself has no line, its first key has
            found = [pos for p, pos in self.positions.items() if p[: len(path)] == path]
            position = min(found) if found else (1, 1)
        line, column = position
        return SourceLocation(file=self.file, line=line, column=column, json_path=_json_path(path))

    def report(self, code: str, message: str, severity: Severity, key: str | None = None) -> None:
        self.diagnostics.append(
            Diagnostic(code=code, message=message, severity=severity, location=self.location(key))
        )


def _extract_seed(
    data: Mapping[str, Any], positions: _Positions, file: str | None
) -> tuple[WebSearchSpec | None, tuple[McpServerSpec, ...], list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    web_search: WebSearchSpec | None = None
    web = data.get(_WEB_SEARCH)
    if isinstance(web, Mapping):
        group = _Group(
            _WEB_SEARCH,
            web,
            _WEB_SEARCH_KEYS,
            positions=positions,
            file=file,
            diagnostics=diagnostics,
        )
        type_ = group.read("type")
        city, country, region = group.read("city"), group.read("country"), group.read("region")
        if type_ is not None:
            web_search = WebSearchSpec(
                type=type_,
                city=city,
                country=country,
                region=region,
                origin=group.location("type"),
            )
        elif "type" not in group.invalid:
            group.report(
                "TD235",
                f"{_WEB_SEARCH} is ignored: the seed enables web search only when "
                f"{_WEB_SEARCH}.type is set (e.g. {_WEB_SEARCH}.type=default)",
                Severity.WARNING,
            )

    found: list[tuple[int, str, Mapping[Any, Any]]] = []
    for key, value in data.items():
        match = _MCP_GROUP.fullmatch(key) if isinstance(key, str) else None
        if match and isinstance(value, Mapping):
            found.append((int(match.group(1) or 0), key, value))
    servers: list[McpServerSpec] = []
    for _, name, values in sorted(found, key=lambda item: (item[0], item[1])):
        group = _Group(
            name, values, _MCP_KEYS, positions=positions, file=file, diagnostics=diagnostics
        )
        server_name, url = group.read("name"), group.read("url")
        authorization, description = group.read("authorization"), group.read("description")
        if server_name is None:
            if "name" not in group.invalid:
                group.report(
                    "TD235",
                    f"{name} is ignored: the seed registers a server only when {name}.name is set",
                    Severity.WARNING,
                    "url" if "url" in values else None,
                )
            continue
        if url is None:
            if "url" not in group.invalid:
                group.report(
                    "TD234",
                    f"MCP server {server_name!r} ({name}) has no {name}.url; "
                    "a hosted server needs a url the provider can reach",
                    Severity.ERROR,
                    "name",
                )
            continue
        try:
            servers.append(
                McpServerSpec(
                    name=server_name,
                    url=url,
                    authorization=authorization,
                    description=description,
                    via="hosted",
                    origin=group.location("name"),
                )
            )
        except RegistrationError as exc:
            group.report("TD234", f"{name}: {exc.message}", Severity.ERROR, "name")
    return web_search, tuple(servers), diagnostics


def _json_path(path: _Path) -> str:
    return "$" + "".join(
        f".{part}" if _IDENT.fullmatch(part) else f"[{part!r}]" for part in map(str, path)
    )


def _diagnostic_order(diagnostic: Diagnostic) -> tuple[int, int]:
    location = diagnostic.location
    return (location.line, location.column) if location else (0, 0)
