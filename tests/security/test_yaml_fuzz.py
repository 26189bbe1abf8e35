"""YAML generated from structure, not only mutated files: every outcome is located and fast.

The strategies build YAML *text* from a tree: block and flow collections of
random depth (sometimes past ``MAX_DEPTH``), anchors, aliases and merge keys
(recursive ones included), tags, odd scalars (huge numbers, special floats,
YAML 1.1 words, control characters), duplicate and non-string keys, placed
alone or inside a real manifest. Whatever comes out, ``read_yaml``,
``load_file`` and ``load_manifests`` must return diagnostics that each carry
a file, a line, a column and a TD code, within a couple of seconds.

Generated nesting stays below a few hundred levels, far from the ~20,000 that
overflow the C composer, so these run in-process; the crash-depth inputs are
in test_yaml_structure.py, in subprocesses. ``TOOLDECK_FUZZ_EXAMPLES=5000``
runs a longer search locally.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import load_manifests
from tooldeck._config.configuration import Config
from tooldeck._registry import ToolRegistry
from tooldeck._yaml.source import MAX_DEPTH, _shallow, read_yaml
from tooldeck.manifest._loader import load_file

settings.register_profile(
    "yaml-fuzz",
    max_examples=int(os.environ.get("TOOLDECK_FUZZ_EXAMPLES", "200")),
    deadline=None,  # timed per example below, with a bound that fits a shared CI machine
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FUZZ = settings.get_profile("yaml-fuzz")
SECONDS_PER_EXAMPLE = 2.0
CODE = re.compile(r"TD\d{3}")


# ---------------------------------------------------------------- the YAML tree
@dataclass
class Node:
    """A YAML node to render: ``kind`` is scalar, alias, seq or map."""

    kind: str
    value: str = ""
    items: list[Node] = field(default_factory=list)
    pairs: list[tuple[Node, Node]] = field(default_factory=list)
    flow: bool = False
    anchor: str | None = None
    tag: str | None = None


ANCHORS = ["a", "b", "c"]
"""Anchors the tree may define (twice, or around their own aliases: both are errors to report)."""
DEFINED = ["p0", "p1"]
"""Anchors every document defines up front, so most aliases resolve."""
TAGS = [
    "!!str",
    "!!int",
    "!!float",
    "!!bool",
    "!!null",
    "!!binary",
    "!!timestamp",
    "!!set",
    "!!omap",
    "!!merge",
    "!custom",
    "!!python/object/apply:os.system",
    "!<tag:yaml.org,2002:int>",
]
ODD_SCALARS = [
    "yes",
    "no",
    "on",
    "off",
    "~",
    "null",
    "''",
    "<<",
    "=",
    ".inf",
    "-.inf",
    ".nan",
    "1.0e+999",
    "-1.0e+999",
    "1_000",
    "0x_",
    "0o17",
    "017",
    "0b101",
    "1:30:00",
    "190:20:30.15",
    "2026-11-22",
    "2026-11-22T10:00:00Z",
    str(2**63),
    str(-(2**63) - 1),
    str(2**63 - 1),
    "9" * 5_000,
    "-" + "9" * 400,
    "0x" + "f" * 2_000,
    "0" + "7" * 300,
    "1" + ":30" * 200,
    "1" * 400 + ".5",
    '"\\x01\\u0000\\t"',
    '"${env:HOME}"',
    "'$${literal}'",
    "${config:a.b}",
    '"' + "x" * 3_000 + '"',
    '"(((((a)))))"',
    '"' + "(" * 2_000 + ")" * 2_000 + '"',
    "\x01",
    "\x7f",
    "\ufeff",
    "caf\u00e9",
    "\u2028",
    "\x85",
    "a\tb",
]
KEYS = ["name", "handler", "description", "params", "version", "tools", "a", "b", "on", "yes"]
KEYS += ["1", "~", "<<", "'quoted'", "type", "default", "enum", "pattern", "schema"]

scalars = st.builds(
    Node,
    kind=st.just("scalar"),
    value=st.sampled_from(ODD_SCALARS)
    | st.integers(-(2**70), 2**70).map(str)
    | st.floats(allow_nan=True, allow_infinity=True).map(repr)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=8).map(repr),
    tag=st.none() | st.none() | st.sampled_from(TAGS),
    anchor=st.none() | st.none() | st.none() | st.none() | st.sampled_from(ANCHORS),
)
aliases = st.builds(Node, kind=st.just("alias"), value=st.sampled_from(DEFINED * 3 + ANCHORS))
keys = st.builds(Node, kind=st.just("scalar"), value=st.sampled_from(KEYS))


def _collections(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    props = {
        "flow": st.booleans(),
        "anchor": st.none() | st.none() | st.none() | st.sampled_from(ANCHORS),
        "tag": st.none() | st.none() | st.none() | st.sampled_from(TAGS),
    }
    merge_key = st.builds(Node, kind=st.just("scalar"), value=st.just("<<"))
    merge_value = aliases | st.builds(
        Node, kind=st.just("seq"), items=st.lists(aliases, max_size=4), flow=st.just(True)
    )
    pair = st.tuples(keys, children) | st.tuples(merge_key, merge_value)
    return st.builds(Node, kind=st.just("seq"), items=st.lists(children, max_size=4), **props) | (
        st.builds(Node, kind=st.just("map"), pairs=st.lists(pair, max_size=4), **props)
    )


trees = st.recursive(scalars | aliases, _collections, max_leaves=25)


@st.composite
def deep(draw: st.DrawFn) -> Node:
    """A chain of collections, sometimes past MAX_DEPTH, in one style or mixed."""
    depth = draw(st.integers(1, MAX_DEPTH + 60))
    style = draw(st.sampled_from(["flow", "block", "mixed"]))
    node = draw(scalars | aliases)
    for level in range(depth):
        flow = style == "flow" or (style == "mixed" and level < depth // 2)
        if draw(st.booleans()):
            node = Node("seq", items=[node], flow=flow)
        else:
            node = Node("map", pairs=[(Node("scalar", "k"), node)], flow=flow)
    return node


# ------------------------------------------------------------------- rendering
def _props(node: Node) -> str:
    parts = [f"&{node.anchor}" if node.anchor else "", node.tag or ""]
    return " ".join(p for p in parts if p)


def flow(node: Node) -> str:
    """``node`` in flow style (everything inside a flow collection must be flow)."""
    props = _props(node)
    prefix = props + " " if props else ""
    if node.kind == "alias":
        return f"*{node.value}"
    if node.kind == "scalar":
        return prefix + node.value
    if node.kind == "seq":
        return prefix + "[" + ", ".join(flow(i) for i in node.items) + "]"
    pairs = ", ".join(f"{flow(k)}: {flow(v)}" for k, v in node.pairs)
    return prefix + "{" + pairs + "}"


def block(node: Node, indent: int) -> str:
    """``node`` as the value after ``key:`` or ``-`` at ``indent``: inline, or on new lines."""
    if node.kind in ("scalar", "alias") or node.flow or not (node.items or node.pairs):
        return " " + flow(node) + "\n"
    props = _props(node)
    head = (" " + props if props else "") + "\n"
    pad = " " * (indent + 2)
    if node.kind == "seq":
        return head + "".join(f"{pad}-{block(i, indent + 2)}" for i in node.items)
    return head + "".join(f"{pad}{flow(k)}:{block(v, indent + 2)}" for k, v in node.pairs)


PREAMBLE = "p0: &p0 {x: 1, y: [1, 2]}\np1: &p1 [a, {b: c}]\n"


def document(node: Node) -> str:
    """A whole file: a block mapping after the anchors it may use, or a flow node alone."""
    if node.kind == "map" and not node.flow and not node.anchor and not node.tag:
        return PREAMBLE + "".join(f"{flow(k)}:{block(v, 0)}" for k, v in node.pairs)
    return flow(node) + "\n"


MANIFEST = """\
version: 1
bundle: &p0 fuzz
defaults: &p1 {{timeout: 5s}}
tools:
  - name: fuzz_tool
    handler: tooldeck.handlers.files:read_file
    description: Read a file.
    params:
      - {{name: path, type: string, description: Path, {slot}: {value}}}
{extra}"""


@st.composite
def manifests(draw: st.DrawFn) -> str:
    """A real manifest with a generated value in one of its slots."""
    value = draw(trees | deep())
    slot = draw(st.sampled_from(["default", "enum", "schema", "pattern", "items", "minimum"]))
    extra = draw(st.sampled_from(["", "", "x: 1\n", "prompts: [{name: p, template: t}]\n"]))
    if draw(st.integers(0, 3)) == 0:
        extra += "anchors:" + block(value, 0)
    return MANIFEST.format(slot=slot, value=flow(value), extra=extra)


@st.composite
def bombs(draw: st.DrawFn) -> str:
    """Aliases or merge keys multiplying level by level, maybe through themselves."""
    levels = draw(st.integers(1, 9))
    fanout = draw(st.integers(1, 12))
    merge = draw(st.booleans())
    leaf = draw(st.sampled_from(["{}", "{x: 1}", "[]", "[lol, lol]", "1"]))
    lines = [f"l0: &l0 {leaf}"]
    for level in range(1, levels + 1):
        refs = ", ".join([f"*l{level - 1}"] * fanout)
        lines.append(f"l{level}: &l{level} " + (f"{{<<: [{refs}]}}" if merge else f"[{refs}]"))
    if draw(st.booleans()):  # a cycle: a mapping that merges, or a sequence that holds, itself
        cycles = [
            "me: &me {<<: *me}",
            "me: &me [*me]",
            f"me: &me {{<<: [*l{levels}, *me]}}",
            f"me: &me {{k: [*l{levels}, {{<<: *me}}]}}",
        ]
        lines.append(draw(st.sampled_from(cycles)))
    return "\n".join(lines) + "\n"


texts = st.one_of(trees.map(document), deep().map(document), manifests())


# ------------------------------------------------------------------ properties
def _check(diagnostics: list, path: Path) -> None:
    for diagnostic in diagnostics:
        location = diagnostic.location
        assert location is not None, diagnostic
        assert location.file == str(path)
        assert location.line >= 1
        assert location.column >= 1
        assert CODE.fullmatch(diagnostic.code), diagnostic
        assert "\n" not in diagnostic.format()
        if diagnostic.code.startswith("TD2"):  # YAML and meta-schema messages quote in part
            assert len(diagnostic.message) < 2_000


def _write(tmp_path_factory, text: str) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / "generated.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@FUZZ
@given(text=texts)
def test_generated_yaml_always_ends_in_located_diagnostics(tmp_path_factory, text: str) -> None:
    path = _write(tmp_path_factory, text)
    started = time.perf_counter()
    doc = read_yaml(path)
    _check(doc.diagnostics, path)
    assert (doc.data is None) == bool(doc.diagnostics)
    registry = ToolRegistry()
    doc, bundle = load_file(
        path, registry=registry, config=Config(), allowed=("tooldeck.handlers",)
    )
    _check(doc.diagnostics + (bundle.diagnostics if bundle else []), path)
    _, result = load_manifests([path], environ={})
    _check(result.diagnostics, path)
    assert time.perf_counter() - started < SECONDS_PER_EXAMPLE * 3  # three full loads


BOMB_BUDGET = 20_000
"""A tenth of MAX_NODES: the same code paths, ten times faster to refuse."""


@FUZZ
@given(text=bombs())
def test_generated_bombs_are_loaded_or_refused_fast(tmp_path_factory, text: str) -> None:
    path = _write(tmp_path_factory, text)
    started = time.perf_counter()
    doc = read_yaml(path, max_nodes=BOMB_BUDGET)
    assert time.perf_counter() - started < SECONDS_PER_EXAMPLE
    _check(doc.diagnostics, path)
    assert {d.code for d in doc.diagnostics} <= {"TD204", "TD206", "TD209"}
    if doc.data is not None:  # within the budget: the whole loader copes as well
        _, result = load_manifests([path], environ={})
        _check(result.diagnostics, path)


def _deepest(text: str) -> int:
    """Exact nesting of libyaml's events, up to a syntax error (what the composer would see)."""
    loader = yaml.CSafeLoader(text)
    depth = deepest = 0
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, yaml.NodeEvent):
                deepest = max(deepest, depth)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return deepest


LINE_PIECES = ["- ", "? ", ": ", "-", "?", ":", " ", "  ", "k: ", "k:", "[", "]", "{", "}"]
LINE_PIECES += [", ", "a", "&x ", "*x", "!!map ", "'q'", '"]"', "#]", "|", "\t", "\ufeff"]
BREAKS = ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029", "\n  ", "\n    ", "\n- ", "\n? "]
raw_texts = st.lists(st.sampled_from(LINE_PIECES + BREAKS), max_size=40).map("".join)


@FUZZ
@given(
    text=st.one_of(raw_texts, trees.map(document), deep().map(document)),
    columns=st.integers(1, 12),
    depth=st.integers(1, 60),
)
def test_the_quick_depth_bound_never_underestimates(text: str, columns: int, depth: int) -> None:
    """When _shallow says "no deeper than depth", libyaml agrees; the C composer
    is only run unscanned on that promise."""
    if _shallow(text, depth=depth, columns=columns):
        assert _deepest(text) <= depth
