"""Untrusted JSON text -> the candidate tool definitions it holds, with their lines.

The shapes found in the wild, all accepted:

- a JSON list of definitions, or a single definition;
- an object holding them under ``tools`` / ``functions`` (a Chat Completions
  request body, an MCP ``tools/list`` result, a JSON-RPC response around
  one), ``function_declarations`` / ``functionDeclarations`` (Gemini), or a
  ``function`` list (a Berkeley function-calling leaderboard test line);
- one JSON value per line (JSONL) of any of the above, where a broken line
  is reported at its line and column and the other lines still import.

Limits keep hostile input cheap: :data:`MAX_INPUT_CHARS` of text,
:data:`MAX_DEFINITIONS` entries, no NaN or infinite numbers, integers of at
most 4,300 digits (Python's own bound), and JSON nested too deeply for the
parser is an error message rather than a ``RecursionError``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ._problems import ImportProblem

__all__ = ["MAX_DEFINITIONS", "MAX_INPUT_CHARS", "RawEntry", "read_entries"]

MAX_INPUT_CHARS = 16 * 1024 * 1024
"""Longest input read; a manifest (2 MiB at most) could not hold much more anyway."""
MAX_DEFINITIONS = 10_000
"""Most definitions read from one input; the rest are reported, not read."""

_CONTAINERS = ("tools", "functions", "function_declarations", "functionDeclarations")


@dataclass(frozen=True, slots=True)
class RawEntry:
    """One candidate definition as parsed, before its shape is looked at."""

    index: int
    """1-based position among all entries of the input."""
    value: Any
    line: int | None = None


class _BadJson(ValueError):
    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def read_entries(text: str) -> tuple[list[RawEntry], list[ImportProblem], bool]:
    """``(entries, problems, readable)``; ``readable`` is False when nothing could be read."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_INPUT_CHARS:
        message = f"the input has {len(text):,} characters; at most {MAX_INPUT_CHARS:,} are read"
        return [], [ImportProblem(code="TD500", message=message)], False
    if not text.strip():
        return [], [ImportProblem(code="TD500", message="the input is empty")], False
    try:
        document = _loads(text)
    except _BadJson as exc:
        if exc.message.startswith("Extra data") or _several_objects(text):
            entries, problems, readable = _read_lines(text)
            if entries or exc.message.startswith("Extra data"):
                return entries, problems, readable
        problem = ImportProblem(
            code="TD500", message=f"invalid JSON: {exc.message}", line=exc.line, column=exc.column
        )
        return [], [problem], False
    values, reason = _unwrap(document)
    if reason is not None:
        return [], [ImportProblem(code="TD500", message=reason)], False
    entries, problems = _numbered([(value, None) for value in values])
    return entries, problems, True


def _read_lines(text: str) -> tuple[list[RawEntry], list[ImportProblem], bool]:
    """JSON Lines: each non-blank line a JSON value; a bad line does not stop the others."""
    found: list[tuple[Any, int | None]] = []
    problems: list[ImportProblem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = _loads(line)
        except _BadJson as exc:
            problems.append(
                ImportProblem(
                    code="TD500",
                    message=f"invalid JSON on this line: {exc.message}",
                    line=number,
                    column=exc.column,
                )
            )
            continue
        values, problem = _unwrap(value)
        if problem is not None:
            problems.append(ImportProblem(code="TD501", message=problem, line=number))
        found.extend((item, number) for item in values)
    entries, more = _numbered(found)
    return entries, problems + more, bool(entries) or not problems


def _several_objects(text: str) -> bool:
    """Whether ``text`` looks like JSON Lines (so a broken first line stays one line's problem)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and lines[0].startswith("{") and lines[0].endswith("}")


def _numbered(found: list[tuple[Any, int | None]]) -> tuple[list[RawEntry], list[ImportProblem]]:
    entries = [
        RawEntry(index, value, line)
        for index, (value, line) in enumerate(found[:MAX_DEFINITIONS], start=1)
    ]
    if len(found) <= MAX_DEFINITIONS:
        return entries, []
    message = (
        f"the input holds {len(found):,} definitions; only the first {MAX_DEFINITIONS:,} "
        "are read (split it into several files)"
    )
    return entries, [ImportProblem(code="TD500", message=message)]


def _unwrap(value: Any) -> tuple[list[Any], str | None]:
    """The definitions inside one parsed value, or a reason it holds none."""
    if isinstance(value, list):
        return _flatten(value), None
    if not isinstance(value, dict):
        return [], f"expected a tool definition or a list of them, found a {_kind(value)}"
    result = value.get("result")
    if isinstance(result, dict) and isinstance(result.get("tools"), list):
        return _flatten(result["tools"]), None  # a JSON-RPC tools/list response
    for key in _CONTAINERS:
        if isinstance(value.get(key), list):
            return _flatten(value[key]), None
    if isinstance(value.get("function"), list):
        return _flatten(value["function"]), None  # a Berkeley leaderboard test line
    return [value], None


def _flatten(items: list[Any]) -> list[Any]:
    """Gemini's ``tools: [{"functionDeclarations": [...]}]``: one level of nesting."""
    out: list[Any] = []
    for item in items:
        nested = None
        if isinstance(item, dict) and "name" not in item and "type" not in item:
            nested = next((item[k] for k in _CONTAINERS if isinstance(item.get(k), list)), None)
        if nested is None:
            out.append(item)
        else:
            out.extend(nested)
    return out


def _kind(value: Any) -> str:
    names = {str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _loads(text: str) -> Any:
    """``json.loads`` with JSON's own rules: no NaN/Infinity, finite numbers, bounded depth."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise _BadJson(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        raise _BadJson("the JSON nests too deeply to read") from None
    except _BadJson:
        raise
    except ValueError as exc:  # an integer literal past Python's 4,300-digit limit
        raise _BadJson(f"a number cannot be read: {exc}") from None


def _no_constant(name: str) -> Any:
    raise _BadJson(f"{name} is not valid JSON; write a number or null")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadJson(f"the number {text[:40]} is too large (it would be infinite)")
    return value
