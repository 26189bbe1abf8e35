"""``java.util.Properties`` text (the Java functional-tools SPI's config), read as ``load`` does.

:func:`parse_properties` reads ``key=value``, ``key: value`` and ``key value``
(the key ends at the first unescaped ``=``, ``:`` or whitespace), ``#``/``!``
comment lines, a trailing unescaped backslash continues the entry on the next
line (whose leading whitespace is dropped), and the escapes
``\\t \\n \\r \\f \\uXXXX``; any other escaped character stands for itself
(``\\= \\: \\# \\! \\\\`` and ``\\`` + space). As in Java, a ``#`` after a value
is part of the value (there are no end-of-line comments) and trailing
whitespace of a value is kept.

:func:`read_properties` reads a whole file for :func:`tooldeck._config.configuration.load_config`:
UTF-8, falling back to ISO-8859-1 (``Properties.load``'s own encoding) when it
is not valid UTF-8, and dotted keys become nested mappings
(``a.b.c=1`` -> ``{"a": {"b": {"c": "1"}}}``); values stay strings.

Nothing here raises for bad text: problems are warnings. Codes emitted here:

=====  ===================================================================
TD231  warning: a key is both a value and the prefix of other keys
       (``a=1`` and ``a.b=2``). A nested mapping cannot hold both; the
       nested keys are kept and the leaf value is dropped.
TD232  warning: a line that is not an entry: it has no key (it starts with
       a separator; Java would store it under the empty key), or it has a
       malformed ``\\uXXXX`` escape (Java refuses the whole file; here the
       escape is kept as written).
TD233  warning: a key set more than once. The last value wins, as in
       ``Properties.load``; the first line is named because the earlier
       value is silently lost otherwise.
=====  ===================================================================
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .._diagnostics import Diagnostic, Severity, SourceLocation

__all__ = ["json_path", "parse_properties", "read_properties"]

_WHITESPACE = " \t\f"
_SEPARATORS = "=:"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX = frozenset("0123456789abcdefABCDEF")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_Position = tuple[int, int]
"""1-based (line, column) where an entry starts."""


def parse_properties(
    text: str, *, file: str
) -> tuple[dict[str, str], dict[str, int], list[Diagnostic]]:
    """Parse ``java.util.Properties`` text into flat values, key lines and diagnostics.

    Returns ``(values, lines, diagnostics)``: ``values`` maps each key to its
    (last) value in file order, ``lines`` maps each key to the 1-based line
    where its winning entry starts. ``file`` is only used in locations.
    """
    values, positions, diagnostics = _parse(text, file)
    return values, {key: line for key, (line, _) in positions.items()}, diagnostics


def read_properties(
    raw: bytes, file: str
) -> tuple[dict[str, Any], dict[tuple[str, ...], _Position], list[Diagnostic]]:
    """A properties file's bytes -> ``(nested data, key path -> position, diagnostics)``.

    Positions are keyed by the dotted key split at its dots (``("MCP", "url")``).
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("iso-8859-1")
    values, positions, diagnostics = _parse(text, file)
    data, nest_diagnostics = _nest(values, positions, file)
    diagnostics.extend(nest_diagnostics)
    return data, {tuple(key.split(".")): pos for key, pos in positions.items()}, diagnostics


def json_path(path: Sequence[str]) -> str:
    """``("MCP_1", "url")`` -> ``$.MCP_1.url``; keys that are not identifiers are quoted."""
    return "$" + "".join(
        f".{part}" if _IDENT.fullmatch(part) else f"[{part!r}]" for part in map(str, path)
    )


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


def _parse(text: str, file: str) -> tuple[dict[str, str], dict[str, _Position], list[Diagnostic]]:
    values: dict[str, str] = {}
    positions: dict[str, _Position] = {}
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
    values: Mapping[str, str], positions: Mapping[str, _Position], file: str
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
                        file=file, line=line, column=column, json_path=json_path((key,))
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
