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
emitted here:

=====  ==========================================================
TD201  file larger than the size cap
TD202  file is not valid UTF-8 (position of the first bad byte)
TD203  tab character used for indentation
TD200  the file cannot be read
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
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation

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

A scalar or key also counts one visit per 128 characters (``_TEXT_PER_VISIT``),
so aliases cannot multiply megabytes of text for the checks that follow either.
"""
MAX_DEPTH = 100
"""Nesting depth before a document is refused (TD206)."""
MAX_INTEGER = 2**63 - 1
"""Largest integer a manifest may hold (TD214): what int64 consumers (Go, Java, SQL) read."""
MIN_INTEGER = -(2**63)
"""Smallest integer a manifest may hold (TD214)."""

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_TAG + t for t in ("str", "int", "float", "bool", "null"))
_SEQ, _MAP, _TIMESTAMP = _TAG + "seq", _TAG + "map", _TAG + "timestamp"
_MERGE = _TAG + "merge"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SCALARS = yaml.constructor.SafeConstructor()
_ScalarNode = yaml.ScalarNode

_RESOLVERS: dict[Any, list[tuple[str, re.Pattern[str]]]] = {
    first: list(entries) for first, entries in _BaseLoader.yaml_implicit_resolvers.items()
}
"""PyYAML's implicit resolvers (YAML 1.1 ``yes``/``1_000``/``~``...), copied at import."""
_PLAIN_TAGS: dict[str, str] = {}
"""Plain scalar text -> its resolved tag, for short texts (keys, types, numbers) seen before."""
_PLAIN_MEMO_CHARS = 64
_PLAIN_MEMO_SIZE = 20_000


def _plain_tag(value: str) -> str:
    """What PyYAML's ``BaseResolver.resolve`` gives a plain (unquoted) scalar."""
    tag = _PLAIN_TAGS.get(value)
    if tag is not None:
        return tag
    tag = _STR
    candidates = _RESOLVERS.get(value[:1], [])
    for resolved, pattern in candidates + _RESOLVERS.get(None, []):
        if pattern.match(value):
            tag = resolved
            break
    if len(value) <= _PLAIN_MEMO_CHARS and len(_PLAIN_TAGS) < _PLAIN_MEMO_SIZE:
        _PLAIN_TAGS[value] = tag
    return tag


class _Loader(_BaseLoader):  # type: ignore[misc]
    """The safe loader with a memoised resolver: every node gets the tag PyYAML's gives.

    libyaml composes in C but asks the Python resolver for the tag of every
    node; PyYAML's resolver tries its regular expressions on each plain
    scalar again (a 1,000-tool catalogue has ~30,000, mostly the same few
    hundred keys and values), about a fifth of the compose time. Here the tag of
    a short plain scalar is remembered, and the resolver tables are this
    class's own copies (no path resolvers, the implicit ones copied at
    import), so a library registering resolvers on PyYAML's shared loader
    classes changes neither manifests nor the memo.
    """

    yaml_implicit_resolvers = _RESOLVERS
    yaml_path_resolvers: dict[Any, Any] = {}  # noqa: RUF012 - PyYAML's class-level table

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            return _plain_tag(value) if implicit[0] else _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP


_COMPOSE_DEPTH = 1000 if _BaseLoader is not yaml.SafeLoader else 0
"""Nesting PyYAML's composer may safely recurse through.

The C composer recurses once per level with no limit of its own; measured at
about 370 bytes of C stack per level, 1,000 levels need ~0.4 MB, well inside
the 8 MB main thread and the default stacks of worker threads, while ~22,000
levels overflow an 8 MB stack (a segfault, not an exception). The pure-Python
fallback composer recurses in Python, so without libyaml every document is
first scanned.
"""
_INDENT_COLUMNS = 100
"""Line-start width (indentation plus ``- ``/``? ``/``: `` indicators) the quick bound accepts."""
_TEXT_PER_VISIT = 7
"""Scalars and keys cost ``len >> 7`` extra visits: one per 128 characters."""
_NUMBER_CHARS = 100
"""An integer literal longer than this (underscores aside) is refused before conversion."""
_INT_FORM = re.compile(
    r"[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|0|[1-9][0-9_]*(?::[0-5]?[0-9])*)"
)
"""YAML 1.1 integers (PyYAML's resolver), to tell a long number from junk under ``!!int``."""


def json_path(path: Sequence[str | int]) -> str:
    """``["tools", 3, "params"]`` -> ``$.tools[3].params``."""
    out = ["$"]
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENT.match(part):
            out.append(f".{part}")
        else:
            out.append("[" + repr(part) + "]")
    return "".join(out)


class _Refused(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class _TooDeep(Exception):
    """Raised at the first node past ``MAX_DEPTH``; each enclosing collection adds itself.

    The chain lets the top level tell a recursive alias (a node that contains
    itself) from plain deep nesting, at no cost while nothing is too deep.
    """

    def __init__(self, node: yaml.Node) -> None:
        super().__init__("too deep")
        self.node = node
        self.chain: list[yaml.Node] = []


_Keys = tuple[dict[str, tuple[yaml.Node, yaml.Node]], list[yaml.MappingNode]]


@dataclass
class YamlDocument:
    """A parsed manifest: plain values plus the node tree to locate paths."""

    file: str
    data: Any
    root: yaml.Node | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    has_references: bool = True
    """Whether the text contains ``${`` at all (interpolation is skipped when not)."""
    _keys: dict[int, _Keys] = field(default_factory=dict, repr=False, compare=False)
    """Mapping node id -> its keys and merged mappings, built on first lookup."""

    def locate(self, path: Sequence[str | int], *, key: bool = False) -> SourceLocation:
        """The position of the node at ``path`` (its key's position with ``key=True``).

        Walks as deep as the path exists, so a path into a missing child
        points at the nearest existing parent.
        """
        node = self.root
        mark_node = node
        for part in path:
            child, key_node = self._child(node, part)
            if child is None:
                break
            node = child
            mark_node = key_node if key and key_node is not None else child
        if mark_node is None:
            return SourceLocation(file=self.file, line=1, column=1, json_path=json_path(path))
        mark = mark_node.start_mark
        return SourceLocation(
            file=self.file, line=mark.line + 1, column=mark.column + 1, json_path=json_path(path)
        )

    def _child(
        self, node: yaml.Node | None, part: str | int
    ) -> tuple[yaml.Node | None, yaml.Node | None]:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            return self._lookup(node, part)
        items = node.value if isinstance(node, yaml.SequenceNode) else ()
        if isinstance(part, int) and 0 <= part < len(items):
            return items[part], None
        return None, None

    def _lookup(
        self, node: yaml.MappingNode, key: str
    ) -> tuple[yaml.Node | None, yaml.Node | None]:
        """``key``'s value and key nodes in ``node``, with the converter's precedence.

        Own keys win over merged ones, merged mappings count in order, depth
        first. Each mapping is searched once: a mapping merged many times
        cannot make a search (run once per diagnostic) expand like the merge.
        """
        searched: set[int] = set()
        pending = [node]
        while pending:
            mapping = pending.pop()
            if id(mapping) in searched:
                continue
            searched.add(id(mapping))
            keys, merged = self._mapping_keys(mapping)
            if key in keys:
                key_node, value_node = keys[key]
                return value_node, key_node
            pending.extend(reversed(merged))
        return None, None

    def _mapping_keys(self, node: yaml.MappingNode) -> _Keys:
        """The keys (first occurrence wins) and merged mappings of ``node``, indexed once."""
        found = self._keys.get(id(node))
        if found is None:
            keys: dict[str, tuple[yaml.Node, yaml.Node]] = {}
            merged: list[yaml.MappingNode] = []
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE:
                    sources = (
                        value_node.value
                        if isinstance(value_node, yaml.SequenceNode)
                        else [value_node]
                    )
                    merged.extend(s for s in sources if isinstance(s, yaml.MappingNode))
                elif isinstance(key_node, yaml.ScalarNode):
                    keys.setdefault(key_node.value, (key_node, value_node))
            found = self._keys[id(node)] = (keys, merged)
        return found


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

    try:
        size = Path(path).stat().st_size
        if size > max_bytes:
            return fail("TD201", f"file is {size} bytes; manifests are limited to {max_bytes}")
        raw = Path(path).read_bytes()
    except OSError as exc:
        return fail("TD200", f"cannot read file: {exc.strerror or exc}")
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
    context = f" ({exc.context})" if exc.context and exc.context not in problem else ""
    return _diag(file, "TD204", f"{problem}{context}", line, column)


# ------------------------------------------------------------------ nesting depth
_LINE_START = " \t?:\ufeff-"
"""What may come before a block collection's first token on its line (libyaml skips a
byte order mark at column 0, so it counts as a column)."""
_RARE_BREAKS = "\x85\u2028\u2029"
"""Line breaks to libyaml besides ``\\n`` and ``\\r`` (NEL, line and paragraph separators)."""


@cache
def _wide_line_start(columns: int) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Patterns finding a line that starts with ``columns`` characters of :data:`_LINE_START`.

    In order: the first line; any other line when ``\\n`` is the only line
    break (a literal first character lets ``re`` skip ahead, ~5x faster);
    any other line after any break libyaml knows.
    """
    run = f"[{re.escape(_LINE_START)}]{{{columns}}}"
    breaks = re.escape("\n\r" + _RARE_BREAKS)
    return re.compile(run), re.compile(f"\n{run}"), re.compile(f"[{breaks}]{run}")


def _shallow(text: str, depth: int = _COMPOSE_DEPTH, columns: int = _INDENT_COLUMNS) -> bool:
    """Whether no node of ``text`` can nest deeper than ``depth``; cheap and never wrong.

    ``False`` only means "not proven": the caller then scans the events.
    The bound holds for every event libyaml produces, also before a syntax
    error (the composer recurses before it sees the error):

    - Flow collections open with ``[`` or ``{``; a flow sequence entry may
      also be a ``key: value`` pair, a mapping without a bracket of its own.
      So flow nesting is at most ``2 * count("[") + count("{")``, whatever
      quotes or comments hide brackets.
    - A block collection opens only at a column greater than its parent's
      (libyaml's indentation stack), except a sequence written at its
      mapping key's column, whose items open a deeper column again. So block
      nesting is at most twice the number of distinct opening columns.
    - A block collection's first token is preceded on its line only by
      spaces and ``-``/``?``/``:`` indicators (libyaml allows a block
      collection nowhere else), so if no line starts with ``columns`` such
      characters, every opening column is below ``columns``.

    Block collections cannot sit inside flow ones, so the sum bounds every
    chain: ``2 * columns + 2 * count("[") + count("{") <= depth`` proves it.
    tests/security/test_yaml_fuzz.py checks the bound against libyaml.
    """
    flow = 2 * text.count("[") + text.count("{")
    if flow + 2 * columns > depth:
        return False
    first_line, after_newline, after_any_break = _wide_line_start(columns)
    if first_line.match(text) is not None:
        return False
    newline_only = not any(c in text for c in _RARE_BREAKS) and (
        "\r" not in text or text.count("\r") == text.count("\r\n")
    )
    other_lines = after_newline if newline_only else after_any_break
    return other_lines.search(text) is None


def _first_too_deep(text: str) -> yaml.Event | None:
    """The first node nested deeper than ``MAX_DEPTH``, from libyaml's event stream.

    The parser is a state machine with its own stack, so this is exact at any
    depth without recursing; it stops at the first node too deep. Syntax
    errors raise as they would from ``yaml.compose``.
    """
    loader = _Loader(text)
    try:
        depth = 0
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return None
            if isinstance(event, yaml.NodeEvent) and depth > MAX_DEPTH:
                return event
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        loader.dispose()


_DEEP_MESSAGE = f"nesting deeper than {MAX_DEPTH} levels"
_TAB_MESSAGE = "tab character used for indentation; YAML needs spaces"


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n")
    if 0 < line <= len(lines) and 0 < column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return ""


def _diag(file: str, code: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(
        code=code,
        message=message,
        severity=Severity.ERROR,
        location=SourceLocation(file=file, line=line, column=column),
    )


def _at(file: str, mark: Any, code: str, message: str) -> Diagnostic:
    return _diag(file, code, message, mark.line + 1, mark.column + 1)


def _plain_word_key(node: yaml.Node) -> bool:
    """A plain ``on``/``off``/``yes``/``no`` key: text (YAML 1.2, GitHub Actions' ``on:``)."""
    return isinstance(node, yaml.ScalarNode) and node.tag == _BOOL and not node.style


def _preview(text: str, limit: int = 60) -> str:
    """``text`` cut short for a message: a key or number can be a megabyte long."""
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


class _Converter:
    """Nodes -> plain values, with caps and the checks safe_load skips."""

    def __init__(self, file: str, max_nodes: int) -> None:
        self.file = file
        self.budget = max_nodes
        self.problems: list[Diagnostic] = []
        self._reported: set[Diagnostic] = set()

    def _at(self, node: yaml.Node, code: str, message: str) -> Diagnostic:
        return _at(self.file, node.start_mark, code, message)

    def _problem(self, node: yaml.Node, code: str, message: str) -> None:
        """Record a problem once: an aliased node is visited once per alias."""
        diagnostic = self._at(node, code, message)
        if diagnostic not in self._reported:
            self._reported.add(diagnostic)
            self.problems.append(diagnostic)

    def convert(self, root: yaml.Node) -> Any:
        """The plain value of ``root``; too deep or self-containing documents raise _Refused."""
        try:
            return self.value(root, 0)
        except _TooDeep as deep:
            raise _Refused(self._depth_problem(deep)) from None

    def _depth_problem(self, deep: _TooDeep) -> Diagnostic:
        """A node met again inside itself is an alias cycle; otherwise the nesting is deep."""
        inside: set[int] = set()
        for node in reversed(deep.chain):  # outermost first
            if id(node) in inside:
                return self._at(
                    node,
                    "TD206",
                    "recursive alias: this anchored node contains an alias (or merge) of "
                    "itself, so it never ends; refusing to load it",
                )
            inside.add(id(node))
        return self._at(deep.node, "TD206", _DEEP_MESSAGE)

    def _spend(self, node: yaml.Node, visits: int = 1) -> None:
        """Count visits :meth:`value` does not count itself.

        Everything handled once per alias or merge costs budget, also what
        yields only a problem (a non-string key, a merge of a non-mapping) and
        the length of long text, or a bomb of those would run exponentially
        long, or hand megabytes of repeated text to the checks that follow.
        """
        self.budget -= visits
        if self.budget < 0:
            raise _Refused(self._too_many(node))

    def _too_many(self, node: yaml.Node) -> Diagnostic:
        return self._at(
            node,
            "TD206",
            "document expands to too many nodes (aliases expanding exponentially?); "
            "refusing to load it",
        )

    def value(self, node: yaml.Node, depth: int) -> Any:
        """One node visit: spend budget, check depth, convert by kind (the hot path)."""
        self.budget -= 1
        if self.budget < 0:
            raise _Refused(self._too_many(node))
        if depth > MAX_DEPTH:
            raise _TooDeep(node)
        if isinstance(node, yaml.ScalarNode):
            if len(node.value) >> _TEXT_PER_VISIT:
                self._spend(node, len(node.value) >> _TEXT_PER_VISIT)
            return self.scalar(node)
        try:
            if isinstance(node, yaml.SequenceNode):
                self._check_tag(node, _SEQ)
                return [self.value(child, depth + 1) for child in node.value]
            if isinstance(node, yaml.MappingNode):
                self._check_tag(node, _MAP)
                return self.mapping(node, depth)
        except _TooDeep as deep:
            deep.chain.append(node)
            raise
        raise _Refused(self._at(node, "TD209", "unsupported YAML node"))

    def _check_tag(self, node: yaml.Node, tag: str) -> None:
        if node.tag != tag:
            self._problem(node, "TD209", f"unsupported tag {_preview(node.tag)!r}")

    def mapping(self, node: yaml.MappingNode, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: dict[str, yaml.Node] = {}
        merged: dict[str, Any] = {}
        inline = depth < MAX_DEPTH  # a child string is not too deep: it may skip value()
        for key_node, value_node in node.value:
            if key_node.tag == _STR and type(key_node) is _ScalarNode:
                pass  # the usual key: a string
            elif key_node.tag == _MERGE:
                self._spend(key_node)  # `<<: []` merges nothing, but is visited all the same
                self._merge(merged, value_node, depth)
                continue
            elif _plain_word_key(key_node):
                pass  # `on:` / `yes:` keys: YAML 1.1 booleans, but always meant as names
            elif not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR:
                if isinstance(key_node, yaml.ScalarNode):
                    message = f"mapping key {_preview(key_node.value)!r} is not a string; quote it"
                else:
                    message = "a mapping key must be a plain string, not a list or mapping"
                self._spend(key_node)
                self._problem(key_node, "TD207", message)
                continue
            key = key_node.value
            if len(key) >> _TEXT_PER_VISIT:
                self._spend(key_node, len(key) >> _TEXT_PER_VISIT)
            if key in seen:
                self._spend(key_node)
                first = seen[key].start_mark.line + 1
                self._problem(
                    key_node,
                    "TD208",
                    f"duplicate key {_preview(key)!r} (first defined on line {first}); "
                    "YAML parsers silently keep only the last one",
                )
                continue
            seen[key] = key_node
            if (
                inline
                and value_node.tag == _STR
                and type(value_node) is _ScalarNode
                and not len(value_node.value) >> _TEXT_PER_VISIT
            ):  # what value() does for a short string, without the call (most values are)
                self.budget -= 1
                if self.budget < 0:
                    raise _Refused(self._too_many(value_node))
                out[key] = value_node.value
            else:
                out[key] = self.value(value_node, depth + 1)
        for key, value in merged.items():
            out.setdefault(key, value)
        return out

    def _merge(self, merged: dict[str, Any], node: yaml.Node, depth: int) -> None:
        """``<<: *base`` or ``<<: [*a, *b]``: earlier mappings win, own keys win over all.

        Each merged mapping is a node visit one level deeper, so merge bombs
        spend the node budget and a mapping merging itself hits the depth cap.
        """
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                self._spend(source)
                self._problem(source, "TD209", "`<<` merges only mappings")
                continue
            for key, value in self.value(source, depth + 1).items():
                merged.setdefault(key, value)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if tag == _STR:
            return node.value
        if tag == _INT:
            return self._integer(node)
        if tag == _FLOAT:
            return self._float(node)
        if tag == _BOOL:
            value = _SCALARS.bool_values.get(node.value.lower())
            if value is None:
                self._problem(node, "TD209", _not_a(node.value, "!!bool"))
            return value
        if tag == _NULL:
            return None
        if tag == _TIMESTAMP:
            return node.value
        self._problem(node, "TD209", f"unsupported tag {_preview(tag)!r}; remove it")
        return None

    def _integer(self, node: yaml.ScalarNode) -> int | None:
        """An int in the signed 64-bit range; longer literals are refused unconverted.

        Python refuses decimal strings over 4,300 digits, builds giant ints
        from hex, octal and binary ones, and YAML 1.1's base-60 ``1:30:00``
        form takes quadratic time when long. A 64-bit integer needs at most
        66 characters (``0b`` and 64 binary digits), so anything past 100 is
        refused by its length alone.
        """
        text = node.value
        if 0 < len(text) < 19 and text.isdigit() and text.isascii() and text[0] != "0":
            return int(text)  # plain decimal, inside 64 bits: what construct_yaml_int gives
        digits = text.replace("_", "")
        if len(digits) > _NUMBER_CHARS:
            if _INT_FORM.fullmatch(text) is None:
                self._problem(node, "TD209", _not_a(text, "!!int"))
            else:
                self._problem(node, "TD214", _too_large(text, f"{len(digits)} characters long"))
            return None
        try:
            value: int = _SCALARS.construct_yaml_int(node)
        except (ValueError, IndexError):  # `!!int abc`: only explicit tags reach here
            self._problem(node, "TD209", _not_a(text, "!!int"))
            return None
        if not MIN_INTEGER <= value <= MAX_INTEGER:
            self._problem(node, "TD214", _too_large(text, "outside 64 bits"))
            return None
        return value

    def _float(self, node: yaml.ScalarNode) -> float | None:
        """A float; a literal that overflows (``1.0e999``) is refused, ``.inf``/``.nan`` are not.

        A long base-60 float (``1:59:59:...``) raises OverflowError in PyYAML's
        constructor instead of becoming infinity; both are "too large".
        """
        try:
            value: float = _SCALARS.construct_yaml_float(node)
        except OverflowError:
            value = math.inf
        except (ValueError, IndexError):  # `!!float abc`: only explicit tags reach here
            self._problem(node, "TD209", _not_a(node.value, "!!float"))
            return None
        if not math.isfinite(value) and not node.value.lstrip("+-").startswith("."):
            self._problem(
                node,
                "TD214",
                f"number {_preview(node.value)} is too large for a float "
                "(write .inf if infinity is what you mean)",
            )
            return None
        return value


def _too_large(text: str, what: str) -> str:
    return (
        f"integer {_preview(text)} is too large ({what}); integers must lie between "
        f"{MIN_INTEGER} and {MAX_INTEGER} (quote it if it is an identifier, not a number)"
    )


def _not_a(text: str, tag: str) -> str:
    return f"{_preview(text)!r} is not a valid {tag}; fix the value or remove the tag"
