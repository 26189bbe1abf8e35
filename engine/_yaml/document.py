"""A parsed manifest and its positions: :class:`YamlDocument`, ``locate`` and JSON paths.

The reader keeps the composed node tree next to the plain values, so a
diagnostic found later (by the meta-schema check, the builder, lint) maps its
JSON path back to a line and column only when it is reported. This module is
that mapping, plus the two helpers every stage of the reader uses to make a
located :class:`~tooldeck._diagnostics.Diagnostic` from a position.

Separate from reading (:mod:`tooldeck._yaml.source`) because every
later stage holds a ``YamlDocument`` while none of them reads YAML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from .._diagnostics import Diagnostic, Severity, SourceLocation
from .loader import _MERGE

__all__ = ["YamlDocument", "_at", "_diag", "json_path"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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

    def existing(self, path: Sequence[str | int]) -> tuple[str | int, ...]:
        """The longest start of ``path`` that is in the document (what :meth:`locate` finds)."""
        node = self.root
        for depth, part in enumerate(path):
            node, _ = self._child(node, part)
            if node is None:
                return tuple(path[:depth])
        return tuple(path)

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


def _diag(file: str, code: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    return Diagnostic(
        code=code,
        message=message,
        severity=Severity.ERROR,
        location=SourceLocation(file=file, line=line, column=column),
    )


def _at(file: str, mark: Any, code: str, message: str) -> Diagnostic:
    return _diag(file, code, message, mark.line + 1, mark.column + 1)
