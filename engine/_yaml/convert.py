"""Composed nodes -> plain JSON-like values, with the caps and checks safe_load skips.

PyYAML never constructs a manifest's values: :class:`_Converter` walks the
node tree itself, which lets it

- spend a node budget on every visit, alias and merge expansion included (a
  "billion laughs" document fails after ``max_nodes`` visits), and refuse
  nesting past :data:`~tooldeck._yaml.depth.MAX_DEPTH` or an alias
  that contains itself (TD206);
- refuse non-string keys (TD207), duplicate keys (TD208), custom tags and
  values their explicit tag does not fit (TD209), and integers outside the
  signed 64-bit range or numbers that overflow to infinity (TD214).

Timestamps stay strings. Separate from reading the file
(:mod:`tooldeck._yaml.source`) because this is the hot path of every
load, written for speed (``mapping`` inlines what ``value`` does for short
strings), and the only code that turns nodes into values.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from .._diagnostics import Diagnostic
from .depth import _DEEP_MESSAGE, MAX_DEPTH
from .document import _at
from .loader import (
    _BOOL,
    _FLOAT,
    _INT,
    _MAP,
    _MERGE,
    _NULL,
    _SEQ,
    _STR,
    _TIMESTAMP,
)

__all__ = ["MAX_INTEGER", "MIN_INTEGER", "_Converter", "_Refused"]

MAX_INTEGER = 2**63 - 1
"""Largest integer a manifest may hold (TD214): what int64 consumers (Go, Java, SQL) read."""
MIN_INTEGER = -(2**63)
"""Smallest integer a manifest may hold (TD214)."""
_SCALARS = yaml.constructor.SafeConstructor()
_ScalarNode = yaml.ScalarNode

_TEXT_PER_VISIT = 7
"""Scalars and keys cost ``len >> 7`` extra visits: one per 128 characters."""
_NUMBER_CHARS = 100
"""An integer literal longer than this (underscores aside) is refused before conversion."""
_INT_FORM = re.compile(
    r"[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|0|[1-9][0-9_]*(?::[0-5]?[0-9])*)"
)
"""YAML 1.1 integers (PyYAML's resolver), to tell a long number from junk under ``!!int``."""


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
