"""Read one YAML file safely and keep every node's position for diagnostics.

PyYAML's C parser composes the document into nodes that carry ``start_mark``;
we turn those nodes into plain JSON-like values ourselves instead of letting
PyYAML construct them, which lets us:

- refuse what ``yaml.safe_load`` silently accepts: duplicate keys (it keeps
  the last), non-string keys, custom tags, binary values, integers too large
  for other JSON consumers;
- cap the expansion of aliases and merge keys (a "billion laughs" document
  fails after ``max_nodes`` visits instead of eating memory) and the nesting
  depth, before PyYAML's recursive C composer could overflow the C stack;
- keep the node tree, so a diagnostic's JSON path maps back to a file
  position only when a diagnostic is actually reported (no cost otherwise).

A manifest is untrusted input: whatever a file contains ends in located
diagnostics, never in an exception. Timestamps stay strings (a manifest value
``2026-11-22`` means the text the user typed, not a ``datetime``). Codes
the reader emits:

=====  ==========================================================
TD201  file larger than the size cap
TD202  file is not valid UTF-8 (position of the first bad byte)
TD203  tab character used for indentation
TD200  the file cannot be read: missing, unreadable, or not a regular
       file (a FIFO, device, socket or folder; never opened for reading,
       see :mod:`tooldeck._readfile`)
TD204  YAML syntax error (the parser's message and position)
TD205  file is empty
TD206  document too large after alias expansion, nested too deep, or an
       alias/merge that contains itself
TD207  a mapping key that is not a string
TD208  a duplicate mapping key (both positions)
TD209  an unsupported tag (``!python/...``, ``!!binary``, custom tags), or a
       value its explicit tag does not fit (``!!int abc``)
TD214  an integer outside the signed 64-bit range, or a number literal that
       overflows to infinity
=====  ==========================================================

The reader is split by job. This module reads the file, composes it and
reports TD200-TD205; it is the one the rest of the package imports from
(the names below are re-exported here):

- :mod:`~tooldeck._yaml.loader`: the safe loader and its memoised
  tag resolver;
- :mod:`~tooldeck._yaml.depth`: the proof that composing cannot
  recurse too deep (``MAX_DEPTH``, TD206);
- :mod:`~tooldeck._yaml.convert`: nodes -> values, with the node
  budget and depth cap (TD206) and TD207, TD208, TD209, TD214
  (``MAX_INTEGER``, ``MIN_INTEGER``);
- :mod:`~tooldeck._yaml.document`: :class:`YamlDocument`, its
  ``locate`` (JSON path -> line and column) and ``json_path``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .._diagnostics import Diagnostic, SourceLocation
from .._readfile import Unreadable, read_bounded
from .convert import MAX_INTEGER, MIN_INTEGER, _Converter, _Refused
from .depth import (
    _DEEP_MESSAGE,
    MAX_DEPTH,
    _first_too_deep,
    _is_scanner_depth_limit,
    _shallow,
)
from .document import YamlDocument, _at, _diag, json_path
from .hints import explain_syntax_error
from .loader import _Loader

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_INTEGER",
    "MAX_NODES",
    "MIN_INTEGER",
    "YamlDocument",
    "json_path",
    "read_yaml",
]

MAX_BYTES = 2 * 1024 * 1024
"""Manifests larger than this are refused (TD201)."""
MAX_NODES = 200_000
"""Node visits after alias and merge expansion before a document is refused (TD206).

A scalar or key also counts one visit per 128 characters (``convert._TEXT_PER_VISIT``),
so aliases cannot multiply megabytes of text for the checks that follow either.
"""


def read_yaml(
    path: str | Path,
    *,
    display: str | None = None,
    max_bytes: int = MAX_BYTES,
    max_nodes: int = MAX_NODES,
) -> YamlDocument:
    """Read ``path``; problems are in ``document.diagnostics`` (data is None on errors)."""
    file = display or str(path)
    doc = YamlDocument(file=file, data=None, root=None)

    def fail(code: str, message: str, line: int = 1, column: int = 1) -> YamlDocument:
        doc.diagnostics.append(
            Diagnostic(
                code=code,
                message=message,
                location=SourceLocation(file=file, line=line, column=column),
            )
        )
        return doc

    raw = read_bounded(path, max_bytes)  # never blocks, never reads past the cap
    if isinstance(raw, Unreadable):
        if raw.reason != "too_large":
            return fail("TD200", f"cannot read file: {raw}")
        if raw.size is None:
            return fail(
                "TD201",
                f"file grew past {max_bytes} bytes while being read; "
                f"manifests are limited to {max_bytes}",
            )
        return fail("TD201", f"file is {raw.size} bytes; manifests are limited to {max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        prefix = raw[line_start : exc.start].decode("utf-8", errors="replace")
        column = len(prefix.removeprefix("\ufeff")) + 1  # characters, as editors count
        return fail("TD202", f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})", line, column)
    return parse_yaml_text(text.removeprefix("\ufeff"), doc, max_nodes=max_nodes)


def parse_yaml_text(text: str, doc: YamlDocument, *, max_nodes: int = MAX_NODES) -> YamlDocument:
    """Compose and convert ``text`` into ``doc`` (shared by files and tests)."""
    doc.has_references = "${" in text
    reported = len(doc.diagnostics)
    root = _compose(text, doc)
    if root is None:
        if len(doc.diagnostics) == reported:
            doc.diagnostics.append(
                _diag(doc.file, "TD205", "file is empty; a manifest needs at least `version: 1`")
            )
        return doc
    converter = _Converter(doc.file, max_nodes)
    try:
        data = converter.convert(root)
    except _Refused as refused:
        doc.diagnostics.append(refused.diagnostic)
        return doc
    doc.root = root
    if converter.problems:
        doc.diagnostics.extend(converter.problems)
        return doc
    if data is None:  # `---`, `~` or `null`: a document with nothing in it
        mark = root.start_mark
        doc.diagnostics.append(
            _diag(
                doc.file,
                "TD205",
                "file has no content; a manifest needs at least `version: 1`",
                mark.line + 1,
                mark.column + 1,
            )
        )
        return doc
    doc.data = data
    return doc


def _compose(text: str, doc: YamlDocument) -> yaml.Node | None:
    """The node tree of ``text``, or None with the problem in ``doc.diagnostics``.

    PyYAML's composer recurses once per nesting level and a few kilobytes of
    brackets overflow the C stack, so it only runs on text proven shallow:
    by the cheap bound of :func:`_shallow` for ordinary files, otherwise by an
    exact scan of libyaml's (iterative) event stream that stops at the first
    node deeper than ``MAX_DEPTH``.
    """
    try:
        if not _shallow(text):
            deep = _first_too_deep(text)
            if deep is not None:
                doc.diagnostics.append(_at(doc.file, deep.start_mark, "TD206", _DEEP_MESSAGE))
                return None
        return yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        if _is_scanner_depth_limit(exc) and exc.problem_mark is not None:
            doc.diagnostics.append(_at(doc.file, exc.problem_mark, "TD206", _DEEP_MESSAGE))
        else:
            doc.diagnostics.append(_syntax_error(doc.file, text, exc))
    except yaml.reader.ReaderError as exc:  # a control character: not a MarkedYAMLError
        before = text[: exc.position]
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        message = f"unacceptable character U+{ord(char):04X} (control characters are not allowed)"
        doc.diagnostics.append(_diag(doc.file, "TD204", message, line, column))
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid YAML"
        doc.diagnostics.append(_diag(doc.file, "TD204", first))
    return None


def _syntax_error(file: str, text: str, exc: yaml.MarkedYAMLError) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    problem = exc.problem or "invalid YAML"
    if _char_at(text, line, column) == "\t" or "'\\t'" in problem:
        return _diag(file, "TD203", _TAB_MESSAGE, line, column)
    context_line = exc.context_mark.line + 1 if exc.context_mark else None
    message = explain_syntax_error(problem, exc.context, text, line, column, context_line)
    return _diag(file, "TD204", message, line, column)


_TAB_MESSAGE = "tab character used for indentation; YAML needs spaces"


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n")
    if 0 < line <= len(lines) and 0 < column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return ""
