"""Add one module to ``allow_handlers`` in a pyproject.toml's text, and change nothing else.

The standard library reads TOML (:mod:`tomllib`) but cannot write it, and
writing the whole file again would drop the user's comments, order and
spacing. So the edit is a small insertion into the text: the module is
appended to the ``allow_handlers`` array of the ``[tool.tooldeck]`` table, or
an ``allow_handlers`` line is put under the table's header, or the table is
appended to the file. The result is then parsed again and must be exactly
the old document with that one change; anything else (``allow_handlers`` as
one string, written as a dotted key, in an inline table, an array holding
something other than strings) is :class:`Uneditable`, and the caller prints
the line to add instead of guessing.

    [tool.tooldeck]
    allow_handlers = ["app.tools"]        # -> ["app.tools", "myapp.tools"]  # ...
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from typing import Any

__all__ = ["Uneditable", "allow_handler", "setting_line"]

_HEADER = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*tooldeck[ \t]*\][ \t]*(?:#.*)?$")
_ANY_HEADER = re.compile(r"^[ \t]*\[")
_KEY = re.compile(r"^([ \t]*)allow_handlers[ \t]*=[ \t]*")


class Uneditable(ValueError):
    """The text cannot be edited safely; the message says why (for the user)."""


def setting_line(handlers: list[str], *, yaml: bool = False) -> str:
    """The ``allow_handlers`` line that holds ``handlers``, as TOML (or YAML) writes it."""
    values = ", ".join(json.dumps(name) for name in handlers)  # JSON strings: TOML and YAML
    return f"allow_handlers: [{values}]" if yaml else f"allow_handlers = [{values}]"


def allow_handler(text: str, module: str) -> str:
    """``text`` with ``module`` appended to ``[tool.tooldeck] allow_handlers``.

    ``text`` may be empty or have no ``[tool.tooldeck]`` table: the table is
    appended. :class:`Uneditable` when that is not possible without touching
    anything else.
    """
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Uneditable(f"it is not valid TOML ({exc})") from None
    tool = before.get("tool", {})
    table = tool.get("tooldeck") if isinstance(tool, dict) else None
    current = table.get("allow_handlers", []) if isinstance(table, dict) else []
    if not isinstance(current, list) or not all(isinstance(h, str) for h in current):
        raise Uneditable("allow_handlers is not written as a list of strings")
    expected = copy.deepcopy(before)
    expected.setdefault("tool", {}).setdefault("tooldeck", {})["allow_handlers"] = [
        *current,
        module,
    ]
    newline = "\r\n" if "\r\n" in text else "\n"
    has_key = isinstance(table, dict) and "allow_handlers" in table
    candidates = [] if table is None else _edits(text, module, newline, has_key=has_key)
    if not has_key:  # no table, or one made only by [tool.tooldeck.lint]: a table at the end
        candidates.append(_appended_table(text, module, newline))
    for candidate in candidates:
        if _parses_to(candidate, expected):
            return candidate
    raise Uneditable("allow_handlers is written in a form this edit does not handle")


def _parses_to(text: str, expected: dict[str, Any]) -> bool:
    try:
        return tomllib.loads(text) == expected
    except tomllib.TOMLDecodeError:
        return False


def _appended_table(text: str, module: str, newline: str) -> str:
    """A new ``[tool.tooldeck]`` table at the end, after a blank line."""
    table = f"[tool.tooldeck]{newline}{setting_line([module])}{newline}"
    if not text.strip():
        return table
    ending = "" if text.endswith(("\n", "\r")) else newline
    return f"{text}{ending}{newline}{table}"


def _edits(text: str, module: str, newline: str, *, has_key: bool) -> list[str]:
    """Candidate texts, one per line that looks like the ``[tool.tooldeck]`` header.

    Usually there is one; a look-alike inside a multi-line string is ruled out by
    the parse check, as is any other wrong guess.
    """
    lines = text.splitlines(keepends=True)
    found = []
    for index, line in enumerate(lines):
        if not _HEADER.match(line.rstrip("\r\n")):
            continue
        try:
            if has_key:
                found.append(_appended_to_array(lines, index, module, newline))
            else:
                found.append(_key_added(lines, index, module, newline))
        except Uneditable:
            continue
    return found


def _key_added(lines: list[str], header: int, module: str, newline: str) -> str:
    """An ``allow_handlers`` line right under the header, indented as the table's keys."""
    indent = ""
    for line in lines[header + 1 :]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not _ANY_HEADER.match(line):
            indent = line[: len(line) - len(line.lstrip(" \t"))]
        break
    head = lines[header]
    if not head.endswith(("\n", "\r")):
        head += newline
    added = f"{indent}{setting_line([module])}{newline}"
    return "".join([*lines[:header], head, added, *lines[header + 1 :]])


def _appended_to_array(lines: list[str], header: int, module: str, newline: str) -> str:
    """``module`` appended inside the ``allow_handlers = [...]`` array of this table."""
    for number in range(header + 1, len(lines)):
        line = lines[number]
        if _ANY_HEADER.match(line):
            break
        key = _KEY.match(line)
        if key is None:
            continue
        text = "".join(lines)
        start = sum(len(item) for item in lines[:number]) + key.end()
        if text[start : start + 1] != "[":
            raise Uneditable("allow_handlers is not an array")
        return _inserted(text, start, module, newline, key.group(1))
    raise Uneditable("allow_handlers is not a key under the [tool.tooldeck] header")


def _inserted(text: str, start: int, module: str, newline: str, indent: str) -> str:
    """``text`` with ``module`` added to the array opening at ``start``."""
    close, last, quote = _scan_array(text, start)
    item = f"{quote}{module}{quote}"
    if last is None:  # an empty array
        return f"{text[: start + 1]}{item}{text[start + 1 :]}"
    comma = text[last - 1] == ","
    if "\n" not in text[last:close]:  # the closing bracket is on the last item's line
        addition = f" {item}" if comma else f", {item}"
        return f"{text[:last]}{addition}{text[last:]}"
    line_start = text.rfind("\n", 0, last) + 1
    line = text[line_start:]
    own = line[: len(line) - len(line.lstrip(" \t"))]
    if line_start <= start:  # the last item is on the key's line: indent one step more
        own = indent + "    "
    line_end = text.find("\n", last)
    head = text[:last] if comma else f"{text[:last]},"
    rest = text[last : line_end + 1]
    added = f"{own}{item}{',' if comma else ''}{newline}"
    return f"{head}{rest}{added}{text[line_end + 1 :]}"


def _scan_array(text: str, start: int) -> tuple[int, int | None, str]:
    """(index of the closing ``]``, index just after the last item or comma, quote to use).

    Reads strings (basic with escapes, literal) and comments; a nested array,
    a multi-line string or anything but a string item is :class:`Uneditable`.
    """
    index, last, quote = start + 1, None, '"'
    while index < len(text):
        char = text[index]
        if char == "#":
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
            continue
        if char in "\"'":
            if text.startswith(char * 3, index):
                raise Uneditable("allow_handlers holds a multi-line string")
            end = _string_end(text, index)
            last, quote, index = end, char, end
            continue
        if char == "]":
            return index, last, quote
        if char == ",":
            last = index + 1
        elif char not in " \t\r\n":
            raise Uneditable("allow_handlers holds something other than strings")
        index += 1
    raise Uneditable("allow_handlers has no closing bracket")


def _string_end(text: str, start: int) -> int:
    """The index just after the string opening at ``start`` (one line only)."""
    quote, index = text[start], start + 1
    while index < len(text) and text[index] not in "\r\n":
        if quote == '"' and text[index] == "\\":
            index += 2
            continue
        if text[index] == quote:
            return index + 1
        index += 1
    raise Uneditable("allow_handlers holds an unterminated string")
