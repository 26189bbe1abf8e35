"""Read a handler's docstring so tool and parameter descriptions need not be repeated.

A tool backed by a plain Python handler usually already documents itself: the
docstring's prose says what the tool does and its ``Args`` / ``Parameters`` /
``:param:`` entries say what each argument means.  :func:`parse_docstring`
extracts those pieces so the registry can infer a tool's description and its
parameters' descriptions from the handler when the manifest leaves them out.

Google, NumPy and Sphinx/reST styles are understood (and may be mixed).  Parsing
is best effort and never raises: text that is not a recognised section is prose
when it comes before the first section and is ignored after it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["Docstring", "parse_docstring"]

_PARAM_SECTIONS = frozenset(
    {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
    | {"other parameters"}
)
_RETURN_SECTIONS = frozenset({"returns", "return"})
_SECTIONS = (
    _PARAM_SECTIONS
    | _RETURN_SECTIONS
    | {"raises", "raise", "yields", "yield", "receives", "warns", "warning", "warnings"}
    | {"note", "notes", "example", "examples", "see also", "references", "attributes"}
    | {"methods", "todo"}
)
_PARAM_FIELDS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_RETURN_FIELDS = frozenset({"returns", "return"})
_FIELDS = (
    _PARAM_FIELDS
    | _RETURN_FIELDS
    | {"type", "rtype", "raises", "raise", "except", "exception", "yields", "yield", "ytype"}
    | {"var", "ivar", "cvar", "vartype", "meta"}
)

_FIELD = re.compile(r":(\w+)((?:\s[^:]*)?):(.*)")  # ":param int x: text" -> kind, arg, text
_UNDERLINE = re.compile(r"-{3,}")
_NAMES = r"[\\*]*\w+(?:\s*,\s*[\\*]*\w+)*"  # "x", "*args", "\*\*kw", "x, y"
# Google "name (type): text"; the type may hold one level of nested parentheses.
_GOOGLE_ENTRY = re.compile(rf"({_NAMES})\s*(?:\((?:[^()]|\([^()]*\))*\)\s*)?:(.*)")
_NUMPY_ENTRY = re.compile(rf"({_NAMES})\s*(?::.*)?")  # "name : type" or a bare "name"
_TYPE = r"[\w.]+(?:\[[^\]:]*\])?"
_TYPED_RETURN = re.compile(rf"{_TYPE}(?:\s*\|\s*{_TYPE})*\s*:\s+(\S.*)")  # "int: the sum"


@dataclass(frozen=True, kw_only=True)
class Docstring:
    """What :func:`parse_docstring` found in a docstring."""

    summary: str
    """The first paragraph, whitespace-joined into one line (``""`` if none)."""
    description: str
    """The summary then the prose paragraphs before the first section, ``"\\n\\n"``-separated."""
    params: Mapping[str, str]
    """Parameter name (without ``*``/``**``) -> description, in docstring order."""
    returns: str | None
    """The return value's description, or ``None`` when none is documented."""


def parse_docstring(doc: str | None) -> Docstring:
    """Parse a Google, NumPy or Sphinx style docstring; never raises."""
    lines = inspect.cleandoc((doc or "").replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    prose: list[str] = []
    params: dict[str, str] = {}
    returns: str | None = None
    seen_section = False
    i = 0
    while i < len(lines):
        header = _header(lines, i)
        field = _field(lines[i])
        if header is not None:
            name, style, end = header
            i = end
            while end < len(lines) and not _is_break(lines, end):
                end += 1
            entries = _entries(lines[i:end])
            if name in _PARAM_SECTIONS:
                for names, text in _param_entries(entries, google=style == "google"):
                    _add(params, names, text)
            elif name in _RETURN_SECTIONS and returns is None:
                returns = _returns(entries, google=style == "google")
        elif field is not None:
            kind, arg, text = field
            end = i + 1
            while end < len(lines) and (not lines[end].strip() or lines[end][0].isspace()):
                end += 1
            text = _join([text, *lines[i + 1 : end]])
            if kind in _PARAM_FIELDS and arg:
                _add(params, [arg[-1]], text)
            elif kind in _RETURN_FIELDS and returns is None:
                returns = text or None
        else:
            if not seen_section:
                prose.append(lines[i])
            i += 1
            continue
        seen_section = True
        i = end
    summary, description = _prose(prose)
    return Docstring(
        summary=summary,
        description=description,
        params=MappingProxyType(params),
        returns=returns,
    )


def _header(lines: list[str], i: int) -> tuple[str, str, int] | None:
    """``(section name, "google" | "numpy", first body line)`` if line *i* opens a section."""
    line = lines[i]
    if not line or line[0].isspace():
        return None
    word = " ".join(line.split()).lower()
    below = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if _UNDERLINE.fullmatch(below) and word.removesuffix(":").rstrip() in _SECTIONS:
        return word.removesuffix(":").rstrip(), "numpy", i + 2
    if word.endswith(":") and word[:-1].rstrip() in _SECTIONS:
        return word[:-1].rstrip(), "google", i + 1
    return None


def _field(line: str) -> tuple[str, list[str], str] | None:
    """``(kind, argument words, text)`` if *line* is a recognised reST field like ``:param x:``."""
    match = _FIELD.fullmatch(line)
    if match is None or match[1].lower() not in _FIELDS:
        return None
    return match[1].lower(), match[2].split(), match[3]


def _is_break(lines: list[str], i: int) -> bool:
    return _header(lines, i) is not None or _field(lines[i]) is not None


def _entries(body: list[str]) -> list[tuple[str, list[str]]]:
    """Split a section body into ``(head line, deeper lines)`` at its first line's indent.

    A line indented less than the first one ends the section (stray text after it).
    """
    entries: list[tuple[str, list[str]]] = []
    base = -1
    for line in body:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if base < 0:
            base = indent
        if indent < base:
            break
        if indent == base:
            entries.append((line.strip(), []))
        else:
            entries[-1][1].append(line.strip())
    return entries


def _param_entries(
    entries: list[tuple[str, list[str]]], *, google: bool
) -> list[tuple[list[str], str]]:
    """``(names, description)`` per entry; a head that is no entry continues the previous one."""
    found: list[tuple[list[str], list[str]]] = []
    for head, deeper in entries:
        match = (_GOOGLE_ENTRY if google else _NUMPY_ENTRY).fullmatch(head)
        if match is not None:
            first = [match[2]] if google else []
            found.append((match[1].split(","), [*first, *deeper]))
        elif found:
            found[-1][1].extend([head, *deeper])
    return [(names, _join(parts)) for names, parts in found]


def _returns(entries: list[tuple[str, list[str]]], *, google: bool) -> str | None:
    if google:
        text = _join([part for head, deeper in entries for part in (head, *deeper)])
        typed = _TYPED_RETURN.fullmatch(text)
        return (typed[1] if typed else text) or None
    # NumPy: a head line is a type (or "name : type") when indented text follows it.
    deeper = [part for _, parts in entries for part in parts]
    return _join(deeper or [head for head, _ in entries]) or None


def _add(params: dict[str, str], names: list[str], text: str) -> None:
    for raw in names:
        name = raw.strip().lstrip("\\*")
        if name and name not in params:  # the first entry for a name wins
            params[name] = text


def _join(parts: list[str]) -> str:
    return " ".join(" ".join(parts).split())


def _prose(lines: list[str]) -> tuple[str, str]:
    """``(summary, description)`` from the lines before the first section."""
    paragraphs: list[list[str]] = []
    current: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            current.append(line.rstrip())
        elif current:
            paragraphs.append(current)
            current = []
    if not paragraphs:
        return "", ""
    summary = _join(paragraphs[0])
    return summary, "\n\n".join([summary, *("\n".join(p) for p in paragraphs[1:])])
