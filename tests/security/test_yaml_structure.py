"""Hostile YAML structures end in located diagnostics, promptly, never in an exception or crash.

A manifest is untrusted. Each class of attack is tried in several shapes:
nesting deep enough to overflow PyYAML's recursive C composer (run in a
subprocess, so a segfault fails a test instead of killing pytest), merge-key
bombs and self-referencing merges, integers too large to hold, work that
would be quadratic, and exceptions nobody foresaw (the TD299 safety net).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, SCRIPTS
from tooldeck import LoadResult, load_manifests
from tooldeck._config.configuration import Config
from tooldeck._registry import ToolRegistry
from tooldeck._yaml.source import MAX_DEPTH, MAX_INTEGER, MIN_INTEGER, read_yaml
from tooldeck.manifest import _loader as loader
from tooldeck.manifest._loader import load_file

GOOD = textwrap.dedent(
    """\
    version: 1
    tools:
      - name: read_notes
        handler: tooldeck.handlers.files:read_file
        description: Read a notes file of the project as plain lines.
    """
)


def codes(doc) -> list[tuple[str, int, int]]:
    out = []
    for d in doc.diagnostics:
        assert d.location is not None
        out.append((d.code, d.location.line, d.location.column))
    return out


def write(tmp_path: Path, text: str, name: str = "hostile.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def read_in_subprocess(path: Path, timeout: float = 30) -> list[list]:
    """``read_yaml(path)`` in a fresh interpreter: [[code, line, column, message], ...].

    A C stack overflow would be a segfault; in a subprocess it is a failed test.
    """
    script = (
        "import json, sys\n"
        "from tooldeck._yaml.source import read_yaml\n"
        "doc = read_yaml(sys.argv[1])\n"
        "print(json.dumps([[d.code, d.location.line, d.location.column, d.message]"
        " for d in doc.diagnostics]))\n"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, f"exit {done.returncode} (-11/139 is a segfault): {done.stderr}"
    assert time.perf_counter() - started < 10
    return json.loads(done.stdout)


def first_too_deep(text: str) -> tuple[int, int]:
    """Oracle: 1-based position of the first node deeper than MAX_DEPTH in YAML's event
    stream (the parser is iterative), whatever shortcut the code under test takes.

    libyaml's parser, which the code under test uses; where libyaml refuses the text for
    its own flow nesting cap (PyYAML >= 6.0.4 bundles one at 1,000 levels, checked in its
    scanner before the events we count), PyYAML's pure-Python parser, which has no cap.
    """
    try:
        return _first_too_deep_by(text, yaml.CSafeLoader)
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" not in (exc.problem or ""):
            raise
        return _first_too_deep_by(text, yaml.SafeLoader)


def _first_too_deep_by(text: str, loader: type) -> tuple[int, int]:
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.NodeEvent) and depth > MAX_DEPTH:
            return event.start_mark.line + 1, event.start_mark.column + 1
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    raise AssertionError("the text is not too deep")


# ------------------------------------------------------------------------ nesting depth
N = 50_000  # ~2x what overflows an 8 MB C stack in PyYAML's composer


def _block_sequences(n: int) -> str:
    return "".join(" " * i + "-\n" for i in range(n)) + " " * n + "x\n"


def _block_mappings(n: int) -> str:
    return "".join(" " * i + "k:\n" for i in range(n)) + " " * n + "k: v\n"


def _indentless(n: int) -> str:  # a sequence at its key's column, then one level deeper
    return "".join("  " * i + "k:\n" + "  " * i + "-\n" for i in range(n)) + "  " * n + "x\n"


DEEP = {
    "flow sequences": "x: " + "[" * N + "]" * N + "\n",
    "flow mappings": "x: " + "{a: " * N + "1" + "}" * N + "\n",
    "flow pairs in sequences": "x: " + "[a: " * N + "1" + "]" * N + "\n",
    "unclosed flow": "x: " + "[" * N + "\n",
    "brackets in quotes first": 'a: "' + "]" * N + '"\n' + "x: " + "[" * N + "]" * N + "\n",
    "compact block sequences": "x:\n  " + "- " * N + "leaf\n",
    "compact explicit keys": "? " * N + "x\n",
    "block sequences by indentation": _block_sequences(500),
    "block mappings by indentation": _block_mappings(500),
    "indentless sequences": _indentless(250),
    "block then flow": _block_mappings(60) + " " * 60 + "x: " + "[" * N + "]" * N + "\n",
    "crlf line breaks": _block_mappings(500).replace("\n", "\r\n"),
    "lone cr line breaks": _block_mappings(500).replace("\n", "\r"),
    "nel line breaks": _block_mappings(500).replace("\n", "\x85"),
    "line separators": _block_mappings(500).replace("\n", "\u2028"),
    "byte order marks at line starts": "".join("\ufeff" + " " * i + "k:\n" for i in range(500)),
}


@pytest.mark.parametrize("text", DEEP.values(), ids=DEEP.keys())
def test_deep_nesting_of_any_style_is_td206_at_the_first_node_too_deep(
    tmp_path: Path, text: str
) -> None:
    found = read_in_subprocess(write(tmp_path, text))
    assert [(code, line, column) for code, line, column, _ in found] == [
        ("TD206", *first_too_deep(text))
    ]
    assert found[0][3] == f"nesting deeper than {MAX_DEPTH} levels"


def test_the_segfaulting_flow_input_is_located_exactly(tmp_path: Path) -> None:
    found = read_in_subprocess(write(tmp_path, DEEP["flow sequences"]))
    # "x: " is 3 columns; the 101st bracket is the first node below depth 100
    assert [tuple(f[:3]) for f in found] == [("TD206", 1, 3 + MAX_DEPTH + 1)]


@pytest.mark.parametrize("style", ["flow", "block"])
def test_nesting_right_at_the_limit_still_loads(tmp_path: Path, style: str) -> None:
    if style == "flow":
        text = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n"
    else:
        text = _block_mappings(MAX_DEPTH - 1)
    assert read_yaml(write(tmp_path, text)).diagnostics == []


def test_deep_nesting_in_a_worker_thread_does_not_crash(tmp_path: Path) -> None:
    """Hot reload parses in a watcher thread; threads may have smaller stacks."""
    path = write(tmp_path, DEEP["flow mappings"])
    script = (
        "import sys, threading\n"
        "from tooldeck._yaml.source import read_yaml\n"
        "threading.stack_size(512 * 1024)\n"
        "out = []\n"
        "t = threading.Thread(target=lambda: out.append(read_yaml(sys.argv[1])))\n"
        "t.start(); t.join()\n"
        "print(out[0].diagnostics[0].code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "TD206"), done.stderr


# ------------------------------------------------------------------- alias / merge bombs
def _merge_bomb(levels: int, fanout: int, leaf: str, block: bool = False) -> str:
    lines = [f"l0: &l0 {leaf}"]
    for level in range(1, levels):
        sources = ", ".join([f"*l{level - 1}"] * fanout)
        if block:
            lines.append(f"l{level}: &l{level}\n  <<: [{sources}]\n  own{level}: x")
        else:
            lines.append(f"l{level}: &l{level} {{<<: [{sources}]}}")
    return "\n".join(lines) + "\n"


def _single_merge_bomb(levels: int) -> str:
    """Each level merges the previous one twice through two separate `<<` mappings."""
    lines = ["m0: &m0 {}"]
    for level in range(1, levels):
        lines.append(f"w{level}: &w{level} {{<<: *m{level - 1}}}")
        lines.append(f"m{level}: &m{level} {{<<: [*w{level}, *m{level - 1}]}}")
    return "\n".join(lines) + "\n"


BOMBS = {
    "empty mappings": _merge_bomb(9, 10, "{}"),
    "mappings with keys": _merge_bomb(9, 10, "{a: 1, b: 2, c: [x, y]}"),
    "block style": _merge_bomb(9, 10, "{}", block=True),
    "wide and shallow": _merge_bomb(3, 2_000, "{}"),
    "one merge per mapping": _single_merge_bomb(40),
    "merges and sequences": _merge_bomb(5, 10, "{}")
    + "s1: &s1 [*l4, *l4, *l4, *l4, *l4, *l4, *l4, *l4]\n"
    + "s2: [*s1, *s1, *s1, *s1, *s1, *s1, *s1, *s1]\n",
}


@pytest.mark.parametrize("text", BOMBS.values(), ids=BOMBS.keys())
def test_merge_key_bombs_are_refused_quickly(tmp_path: Path, text: str) -> None:
    started = time.perf_counter()
    doc = read_yaml(write(tmp_path, text))
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert [code for code, _, _ in codes(doc)] == ["TD206"]
    assert "too many nodes" in doc.diagnostics[0].message
    assert doc.data is None


def test_a_merge_bomb_inside_a_manifest_is_refused_by_load_manifests(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + _merge_bomb(9, 10, "{}"))
    started = time.perf_counter()
    _, result = load_manifests([path], environ={})
    assert time.perf_counter() - started < 10.0  # a hang bound, not a speed target
    assert [d.code for d in result.errors] == ["TD206"]


RECURSIVE = {
    "merges itself": "a: &a {<<: *a}\n",
    "merges itself among others": "b: &b {x: 1}\na: &a {y: 2, <<: [*b, *a]}\n",
    "merges its parent": "a: &a {b: {<<: *a}}\n",
    "merges through a child": "a: &a {b: &b {c: 1}, <<: [{d: *a}]}\n",
    "sequence of itself": "&x [*x]\n",
    "sequence nested": "a: &a [1, [2, {b: *a}]]\n",
    "mapping value": "a: &a {b: *a}\n",
    "block merge": "a: &a\n  x: 1\n  <<: *a\n",
}


@pytest.mark.parametrize("text", RECURSIVE.values(), ids=RECURSIVE.keys())
def test_recursive_aliases_and_merges_are_a_located_td206(tmp_path: Path, text: str) -> None:
    started = time.perf_counter()
    doc = read_yaml(write(tmp_path, text))
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    [(code, line, column)] = codes(doc)
    assert code == "TD206"
    assert line >= 1
    assert column >= 1
    assert doc.diagnostics[0].message.startswith("recursive alias")


def test_a_recursive_merge_points_at_the_anchored_node(tmp_path: Path) -> None:
    doc = read_yaml(write(tmp_path, "version: 1\nbase: &base\n  x: 1\n  <<: *base\n"))
    assert codes(doc) == [("TD206", 2, 7)]  # the anchor


def test_a_long_merge_chain_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    text = "a0: &a0 {x: 1}\n" + "".join(f"a{i}: &a{i} {{<<: *a{i - 1}}}\n" for i in range(1, 2_000))
    doc = read_yaml(write(tmp_path, text))
    assert [code for code, _, _ in codes(doc)] == ["TD206"]


def test_merges_within_the_limits_still_work(tmp_path: Path) -> None:
    doc = read_yaml(
        write(tmp_path, "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: [*b, *a], z: 3}\n")
    )
    assert doc.diagnostics == []
    assert doc.data["c"] == {"z": 3, "x": 1, "y": 2}


def test_a_problem_in_an_aliased_node_is_reported_once(tmp_path: Path) -> None:
    doc = read_yaml(write(tmp_path, "a: &a {1: x}\nb: [*a, *a, *a, *a]\nc: {<<: [*a, *a]}\n"))
    assert codes(doc) == [("TD207", 1, 8)]


# ------------------------------------------------------------------------- locating keys
def test_own_keys_are_located_before_merged_ones_even_after_the_merge(tmp_path: Path) -> None:
    doc = read_yaml(write(tmp_path, "base: &b {timeout: 5s}\ntool:\n  <<: *b\n  timeout: 9s\n"))
    assert doc.data["tool"]["timeout"] == "9s"
    location = doc.locate(("tool", "timeout"))
    assert (location.line, location.column) == (4, 12)


def test_keys_merged_from_a_list_are_located(tmp_path: Path) -> None:
    doc = read_yaml(write(tmp_path, "a: &a {x: 1}\nb: &b {y: 2}\nc: {<<: [*a, *b]}\n"))
    location = doc.locate(("c", "y"), key=True)
    assert (location.line, location.column) == (2, 8)


def _load_seconds(path: Path) -> tuple[float, LoadResult]:
    started = time.perf_counter()
    _, result = load_manifests([path], environ={})
    return time.perf_counter() - started, result


def _grows_linearly(small: Path, large: Path) -> tuple[float, LoadResult]:
    """The large input (10x the small one) costs less than 30x: linear, not quadratic.

    A ratio measured in one run, not a time: a busy machine slows both alike.
    Quadratic work would cost 100x; the best of two runs each evens out a hiccup.
    """
    small_cost = min(_load_seconds(small)[0] for _ in range(2))
    runs = [_load_seconds(large) for _ in range(2)]
    large_cost = min(cost for cost, _ in runs)
    ratio = large_cost / max(small_cost, 1e-3)
    assert ratio < 30, f"10x the input cost {ratio:.0f}x the time"
    return ratio, runs[-1][1]


def test_many_unknown_keys_are_reported_in_linear_time(tmp_path: Path) -> None:
    def keys(count: int) -> str:
        return "version: 1\n" + "".join(f"key_{i}: 1\n" for i in range(count))

    small = write(tmp_path, keys(2_000), "small.yaml")
    _, result = _grows_linearly(small, write(tmp_path, keys(20_000), "large.yaml"))
    assert {d.code for d in result.errors} == {"TD210"}
    assert sorted(d.location.line for d in result.errors) == list(range(2, 20_002))


def test_a_large_enum_is_checked_for_repeats_in_linear_time(tmp_path: Path) -> None:
    def manifest(count: int) -> str:
        values = ", ".join(f"v{i}" if i % 2 else str(i) for i in range(count))  # mixed types
        text = GOOD + f"    params:\n      - {{name: path, type: string, enum: [{values}, 2]}}\n"
        return text + "unknown: 1\n"  # fails the fast check, so jsonschema runs as well

    small = write(tmp_path, manifest(6_000), "small.yaml")
    _, result = _grows_linearly(small, write(tmp_path, manifest(60_000), "large.yaml"))
    messages = {d.code: d.message for d in result.errors}
    assert messages["TD213"] == "2 is listed more than once; list each value once"
    assert "TD210" in messages
    assert all(len(d.message) < 400 for d in result.errors)


# ------------------------------------------------------------------------------- numbers
BIG = {
    "decimal": ("9" * 5_000, "5000 characters"),
    "negative decimal": ("-" + "9" * 5_000, "5001 characters"),
    "hexadecimal": ("0x" + "f" * 20_000, "20002 characters"),
    "octal": ("0" + "7" * 5_000, "5001 characters"),
    "binary": ("0b" + "1" * 70, "outside 64 bits"),
    "base 60": ("1" + ":30" * 20_000, "60001 characters"),
    "base 60, short": ("1" + ":30" * 12, "outside 64 bits"),
    "underscores": ("1_000_000_000_000_000_000_000", "outside 64 bits"),
    "just past int64": (str(MAX_INTEGER + 1), "outside 64 bits"),
    "just below int64": (str(MIN_INTEGER - 1), "outside 64 bits"),
}


@pytest.mark.parametrize(("literal", "why"), BIG.values(), ids=BIG.keys())
def test_huge_integers_are_td214(tmp_path: Path, literal: str, why: str) -> None:
    started = time.perf_counter()
    doc = read_yaml(write(tmp_path, f"version: 1\nbundle: {literal}\n"))
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert codes(doc) == [("TD214", 2, 9)]
    message = doc.diagnostics[0].message
    assert f"({why}" in message
    assert len(message) < 300


@pytest.mark.parametrize("literal", [str(MAX_INTEGER), str(MIN_INTEGER), "0x7fff_ffff", "017"])
def test_integers_in_range_load(tmp_path: Path, literal: str) -> None:
    doc = read_yaml(write(tmp_path, f"n: {literal}\n"))
    assert doc.diagnostics == []
    assert isinstance(doc.data["n"], int)


@pytest.mark.parametrize(
    "literal", ["1.0e+999", "-1.0e+999", "1" * 400 + ".5", "1" + ":59" * 300 + ".5"]
)
def test_floats_overflowing_to_infinity_are_td214(tmp_path: Path, literal: str) -> None:
    doc = read_yaml(write(tmp_path, f"x: 1\nn: {literal}\n"))
    assert codes(doc) == [("TD214", 2, 4)]


@pytest.mark.parametrize("literal", [".inf", "-.inf", ".NaN", "1.5e300"])
def test_explicit_special_floats_load(tmp_path: Path, literal: str) -> None:
    doc = read_yaml(write(tmp_path, f"n: {literal}\n"))
    assert doc.diagnostics == []


@pytest.mark.parametrize(
    "text",
    [
        'n: !!int "abc"',
        "n: !!int ''",
        'n: !!int "-"',
        "n: !!int 0x_",
        "n: !!int " + "z" * 200,
        'n: !!float "abc"',
        "n: !!float ''",
        "n: !!float '1:'",
        "n: !!bool maybe",
    ],
)
def test_a_value_its_explicit_tag_does_not_fit_is_td209(tmp_path: Path, text: str) -> None:
    doc = read_yaml(write(tmp_path, text + "\n"))
    assert codes(doc) == [("TD209", 1, 4)]
    assert "is not a valid !!" in doc.diagnostics[0].message


# ------------------------------------------------------------- patterns and safety net
def test_a_pattern_of_nested_groups_is_a_located_diagnostic(tmp_path: Path) -> None:
    pattern = "(" * 5_000 + "a" + ")" * 5_000
    text = GOOD + f'    params:\n      - {{name: path, type: string, pattern: "{pattern}"}}\n'
    started = time.perf_counter()
    _, result = load_manifests([write(tmp_path, text)], environ={})
    assert time.perf_counter() - started < 5.0
    assert result.errors
    for d in result.errors:
        assert re.fullmatch(r"TD\d{3}", d.code)
        assert d.location is not None
        assert d.location.line >= 1


MARKER = "zz_hostile_marker"


@pytest.mark.parametrize(
    ("step", "error"),
    [
        ("read_yaml", RecursionError("maximum recursion depth exceeded")),
        ("check_document", MemoryError()),
        ("interpolate", OverflowError("int too large to convert to float")),
        ("build_bundle", ValueError("something unforeseen")),
        ("build_bundle", SystemExit(3)),
    ],
)
def test_an_unforeseen_exception_is_td299_and_the_other_files_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, error: BaseException
) -> None:
    write(tmp_path, GOOD, "a_good.yaml")
    hostile_text = GOOD.replace("read_notes", MARKER).replace("Read a", "Read ${env:HOME}, a")
    hostile = write(tmp_path, hostile_text, f"{MARKER}.yaml")
    real = getattr(loader, step)

    def failing(*args, **kwargs):
        if MARKER in repr(args[0]):  # a path, a document or the data of the hostile file
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(loader, step, failing)
    registry, result = load_manifests([tmp_path], environ={"HOME": "/home/x"})
    assert registry.get_tool("read_notes") is not None
    [problem] = result.errors
    assert problem.code == "TD299"
    assert (problem.location.file, problem.location.line, problem.location.column) == (
        str(hostile),
        1,
        1,
    )
    assert type(error).__name__ in problem.message
    assert problem.message.endswith("it was skipped")


def test_the_td299_message_never_shows_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, GOOD)
    registry = ToolRegistry()
    registry.secrets.add("hunter2-secret-value")

    def leaky(*args, **kwargs):
        raise ValueError("token hunter2-secret-value\nis wrong")

    monkeypatch.setattr(loader, "build_bundle", leaky)
    doc, bundle = load_file(
        path, registry=registry, config=Config(), allowed=("tooldeck.handlers",)
    )
    assert bundle is None
    [problem] = doc.diagnostics
    assert "hunter2" not in problem.message
    assert "\n" not in problem.format()


# ---------------------------------------------------------------------- whole programs
CLI_CASES = {
    "deep flow": DEEP["flow sequences"],
    "deep block": _block_mappings(500),
    "merge bomb": _merge_bomb(9, 10, "{}"),
    "recursive merge": "version: 1\nbase: &b {<<: *b}\n",
    "huge integer": "version: 1\nbundle: " + "9" * 5_000 + "\n",
    "huge hex": "version: 1\nbundle: 0x" + "f" * 20_000 + "\n",
}


@pytest.mark.parametrize("text", CLI_CASES.values(), ids=CLI_CASES.keys())
def test_tooldeck_lint_reports_hostile_files_without_a_traceback(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    started = time.perf_counter()
    done = subprocess.run(
        [str(SCRIPTS / "tooldeck"), "lint", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert time.perf_counter() - started < 10.0
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    assert re.search(rf"^{re.escape(str(path))}:\d+:\d+: TD2\d\d ", done.stdout, re.MULTILINE)


def test_one_hostile_file_does_not_stop_the_good_files_in_its_folder(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "good_one.yaml")
    write(tmp_path, GOOD.replace("read_notes", "read_more"), "good_two.yaml")
    for index, text in enumerate([*CLI_CASES.values(), *RECURSIVE.values()]):
        write(tmp_path, text, f"hostile_{index}.yaml")
    script = (  # in a subprocess: the folder holds inputs that once crashed the interpreter
        "import json, sys\n"
        "from tooldeck import load_manifests\n"
        "registry, result = load_manifests([sys.argv[1]], environ={})\n"
        "print(json.dumps({'tools': sorted(t.name for t in registry.tools()),\n"
        "                  'failed': sorted({d.location.file for d in result.errors})}))\n"
    )
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert time.perf_counter() - started < 15.0
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["tools"] == ["read_more", "read_notes"]
    assert outcome["failed"] == sorted(str(p) for p in tmp_path.glob("hostile_*.yaml"))
