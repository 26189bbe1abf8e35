"""Read one YAML file safely and keep every node's position for diagnostics.

PyYAML's C parser composes the document into nodes that carry ``start_mark``;
we turn those nodes into plain JSON-like values ourselves instead of letting
PyYAML construct them, which lets us:

- refuse what ``yaml.safe_load`` silently accepts: duplicate keys (it keeps
  the last), non-string keys, custom tags, binary values;
- cap the expansion of aliases (a "billion laughs" document fails after
  ``max_nodes`` visits instead of eating memory) and the nesting depth;
- keep the node tree, so a diagnostic's JSON path maps back to a file
  position only when a diagnostic is actually reported (no cost otherwise).

Timestamps stay strings (a manifest value ``2026-11-22`` means the text the
user typed, not a ``datetime``). Codes emitted here:

=====  ==========================================================
TD201  file larger than the size cap
TD202  file is not valid UTF-8 (position of the first bad byte)
TD203  tab character used for indentation
TD200  the file cannot be read
TD204  YAML syntax error (the parser's message and position)
TD205  file is empty
TD206  document too large after alias expansion, or nested too deep
TD207  a mapping key that is not a string
TD208  a duplicate mapping key (both positions)
TD209  an unsupported tag (``!python/...``, ``!!binary``, custom tags)
=====  ==========================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.diagnostics import Diagnostic, Severity, SourceLocation

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "YamlDocument", "json_path", "read_yaml"]

MAX_BYTES = 2 * 1024 * 1024
"""Manifests larger than this are refused (TD201)."""
MAX_NODES = 200_000
"""Node visits after alias expansion before a document is refused (TD206)."""
MAX_DEPTH = 100
"""Nesting depth before a document is refused (TD206)."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TAG = "tag:yaml.org,2002:"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SCALARS = yaml.constructor.SafeConstructor()


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


@dataclass
class YamlDocument:
    """A parsed manifest: plain values plus the node tree to locate paths."""

    file: str
    data: Any
    root: yaml.Node | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    has_references: bool = True
    """Whether the text contains ``${`` at all (interpolation is skipped when not)."""

    def locate(self, path: Sequence[str | int], *, key: bool = False) -> SourceLocation:
        """The position of the node at ``path`` (its key's position with ``key=True``).

        Walks as deep as the path exists, so a path into a missing child
        points at the nearest existing parent.
        """
        node = self.root
        mark_node = node
        for part in path:
            child, key_node = _child(node, part)
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


def _child(node: yaml.Node | None, part: str | int) -> tuple[yaml.Node | None, yaml.Node | None]:
    if isinstance(node, yaml.MappingNode) and isinstance(part, str):
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                found, found_key = (
                    _child(value_node, part)
                    if isinstance(value_node, yaml.MappingNode)
                    else (None, None)
                )
                if found is not None:
                    return found, found_key
            elif isinstance(key_node, yaml.ScalarNode) and key_node.value == part:
                return value_node, key_node
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part], None
    return None, None


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
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or "invalid YAML"
        if _char_at(text, line, column) == "\t" or "'\\t'" in problem:
            doc.diagnostics.append(_diag(doc.file, "TD203", _TAB_MESSAGE, line, column))
        else:
            context = f" ({exc.context})" if exc.context and exc.context not in problem else ""
            doc.diagnostics.append(_diag(doc.file, "TD204", f"{problem}{context}", line, column))
        return doc
    except yaml.reader.ReaderError as exc:  # a control character: not a MarkedYAMLError
        before = text[: exc.position]
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        message = f"unacceptable character U+{ord(char):04X} (control characters are not allowed)"
        doc.diagnostics.append(_diag(doc.file, "TD204", message, line, column))
        return doc
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid YAML"
        doc.diagnostics.append(_diag(doc.file, "TD204", first, 1, 1))
        return doc
    if root is None:
        doc.diagnostics.append(
            _diag(doc.file, "TD205", "file is empty; a manifest needs at least `version: 1`", 1, 1)
        )
        return doc
    converter = _Converter(doc.file, max_nodes)
    try:
        data = converter.value(root, 0)
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


_TAB_MESSAGE = "tab character used for indentation; YAML needs spaces"


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.split("\n")
    if 0 < line <= len(lines) and 0 < column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return ""


def _diag(file: str, code: str, message: str, line: int, column: int) -> Diagnostic:
    return Diagnostic(
        code=code,
        message=message,
        severity=Severity.ERROR,
        location=SourceLocation(file=file, line=line, column=column),
    )


def _plain_word_key(node: yaml.Node) -> bool:
    """A plain ``on``/``off``/``yes``/``no`` key: text (YAML 1.2, GitHub Actions' ``on:``)."""
    return isinstance(node, yaml.ScalarNode) and node.tag == _TAG + "bool" and not node.style


class _Converter:
    """Nodes -> plain values, with caps and the checks safe_load skips."""

    def __init__(self, file: str, max_nodes: int) -> None:
        self.file = file
        self.budget = max_nodes
        self.problems: list[Diagnostic] = []

    def _at(self, node: yaml.Node, code: str, message: str) -> Diagnostic:
        mark = node.start_mark
        return _diag(self.file, code, message, mark.line + 1, mark.column + 1)

    def value(self, node: yaml.Node, depth: int) -> Any:
        self.budget -= 1
        if self.budget < 0:
            raise _Refused(
                self._at(
                    node,
                    "TD206",
                    "document expands to too many nodes (aliases expanding exponentially?); "
                    "refusing to load it",
                )
            )
        if depth > MAX_DEPTH:
            raise _Refused(self._at(node, "TD206", f"nesting deeper than {MAX_DEPTH} levels"))
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        if isinstance(node, yaml.SequenceNode):
            self._check_tag(node, "seq")
            return [self.value(child, depth + 1) for child in node.value]
        if isinstance(node, yaml.MappingNode):
            self._check_tag(node, "map")
            return self.mapping(node, depth)
        raise _Refused(self._at(node, "TD209", "unsupported YAML node"))

    def _check_tag(self, node: yaml.Node, kind: str) -> None:
        if node.tag != _TAG + kind:
            self.problems.append(self._at(node, "TD209", f"unsupported tag {node.tag!r}"))

    def mapping(self, node: yaml.MappingNode, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: dict[str, yaml.Node] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                self._merge(merged, value_node, depth)
                continue
            if _plain_word_key(key_node):
                pass  # `on:` / `yes:` keys: YAML 1.1 booleans, but always meant as names
            elif not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _TAG + "str":
                if isinstance(key_node, yaml.ScalarNode):
                    message = f"mapping key {key_node.value!r} is not a string; quote it"
                else:
                    message = "a mapping key must be a plain string, not a list or mapping"
                self.problems.append(self._at(key_node, "TD207", message))
                continue
            key = key_node.value
            if key in seen:
                first = seen[key].start_mark.line + 1
                self.problems.append(
                    self._at(
                        key_node,
                        "TD208",
                        f"duplicate key {key!r} (first defined on line {first}); "
                        "YAML parsers silently keep only the last one",
                    )
                )
                continue
            seen[key] = key_node
            out[key] = self.value(value_node, depth + 1)
        for key, value in merged.items():
            out.setdefault(key, value)
        return out

    def _merge(self, merged: dict[str, Any], node: yaml.Node, depth: int) -> None:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                self.problems.append(self._at(source, "TD209", "`<<` merges only mappings"))
                continue
            for key, value in self.mapping(source, depth + 1).items():
                merged.setdefault(key, value)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if tag == _TAG + "str":
            return node.value
        if tag == _TAG + "int":
            return _SCALARS.construct_yaml_int(node)
        if tag == _TAG + "float":
            return _SCALARS.construct_yaml_float(node)
        if tag == _TAG + "bool":
            return _SCALARS.construct_yaml_bool(node)
        if tag == _TAG + "null":
            return None
        if tag == _TAG + "timestamp":
            return node.value
        self.problems.append(self._at(node, "TD209", f"unsupported tag {tag!r}; remove it"))
        return None
