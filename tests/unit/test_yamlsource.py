"""read_yaml and YamlDocument.locate: safe YAML parsing that keeps positions."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from tooldeck._yaml.source import MAX_BYTES, MAX_DEPTH, YamlDocument, json_path, read_yaml


@pytest.fixture
def read(tmp_path: Path):
    """Write text (or bytes) to a file and read it back with read_yaml."""

    def run(content: str | bytes, name: str = "manifest.yaml", **kwargs) -> YamlDocument:
        path = tmp_path / name
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
        return read_yaml(path, **kwargs)

    return run


def problems(doc: YamlDocument) -> list[tuple[str, int, int]]:
    out = []
    for d in doc.diagnostics:
        assert d.location is not None
        out.append((d.code, d.location.line, d.location.column))
    return out


BOMB = "\n".join(
    [
        "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
        *(
            f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]"
            for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)


# ------------------------------------------------------------------------------ plain values
def test_a_valid_document_has_data_and_no_diagnostics(read) -> None:
    doc = read("version: 1\ntools:\n  - handler: tooldeck.handlers.files:read_file\n")
    assert doc.diagnostics == []
    assert doc.data == {"version": 1, "tools": [{"handler": "tooldeck.handlers.files:read_file"}]}
    assert doc.root is not None


def test_timestamps_stay_strings(read) -> None:
    doc = read("day: 2026-11-22\nmoment: 2026-11-22T10:00:00Z\nspaced: 2026-11-22 10:00:00\n")
    assert doc.data == {
        "day": "2026-11-22",
        "moment": "2026-11-22T10:00:00Z",
        "spaced": "2026-11-22 10:00:00",
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("yes", True),
        ("no", False),
        ("on", True),
        ("off", False),
        ("Yes", True),
        ("NO", False),
        ("true", True),
        ("False", False),
        ("'no'", "no"),
        ('"yes"', "yes"),
    ],
)
def test_yaml_1_1_booleans_become_booleans(read, text: str, value: object) -> None:
    doc = read(f"flag: {text}\n")
    assert doc.diagnostics == []
    assert doc.data == {"flag": value}
    assert type(doc.data["flag"]) is type(value)


def test_numbers_nulls_and_explicit_str_tags(read) -> None:
    doc = read("a: 1_000\nb: 0x1F\nc: 1.5\nd: ~\ne: null\nf: !!str 12\ng: .inf\n")
    assert doc.data == {"a": 1000, "b": 31, "c": 1.5, "d": None, "e": None, "f": "12", "g": 1e999}


def test_tabs_inside_values_are_fine(read) -> None:
    doc = read('a: "x\ty"\nb: x\ty\n')
    assert doc.data == {"a": "x\ty", "b": "x\ty"}


def test_plain_aliases_are_expanded(read) -> None:
    doc = read("a: &x [1, 2]\nb: *x\n")
    assert doc.data == {"a": [1, 2], "b": [1, 2]}


# ------------------------------------------------------------------------------ merge keys
def test_merge_keys_work_and_explicit_keys_win(read) -> None:
    doc = read("base: &b {timeout: 5s, tags: [x]}\ntool:\n  <<: *b\n  tags: [y]\n")
    assert doc.diagnostics == []
    assert doc.data["tool"] == {"timeout": "5s", "tags": ["y"]}


def test_merging_a_list_of_mappings_keeps_the_first_value(read) -> None:
    doc = read("x: {<<: [{a: 1}, {a: 2, b: 3}], c: 4}\n")
    assert doc.data == {"x": {"a": 1, "b": 3, "c": 4}}


def test_merging_something_else_than_a_mapping_is_refused(read) -> None:
    doc = read("x:\n  <<: 5\n  a: 1\n")
    assert problems(doc) == [("TD209", 2, 7)]
    assert "merges only mappings" in doc.diagnostics[0].message
    assert doc.data is None


def test_locate_finds_keys_through_a_merge(read) -> None:
    doc = read("base: &b\n  timeout: 5s\ntool:\n  <<: *b\n  tags: [y]\n")
    value = doc.locate(("tool", "timeout"))
    key = doc.locate(("tool", "timeout"), key=True)
    assert (value.line, value.column) == (2, 12)
    assert (key.line, key.column) == (2, 3)
    assert value.json_path == "$.tool.timeout"


# ---------------------------------------------------------------------- refused documents
def test_duplicate_keys_report_both_lines(read) -> None:
    doc = read("version: 1\nbundle: a\ndescription: x\nbundle: b\n")
    assert problems(doc) == [("TD208", 4, 1)]
    message = doc.diagnostics[0].message
    assert "'bundle'" in message
    assert "first defined on line 2" in message
    assert doc.data is None


def test_every_duplicate_is_reported_against_the_first(read) -> None:
    doc = read("a: 1\na: 2\nb:\n  c: 1\n  c: 2\na: 3\n")
    assert sorted(problems(doc)) == [("TD208", 2, 1), ("TD208", 5, 3), ("TD208", 6, 1)]
    assert all("first defined on line" in d.message for d in doc.diagnostics)
    lines = {d.location.line: d.message for d in doc.diagnostics if d.location}
    assert "line 1" in lines[2]
    assert "line 1" in lines[6]
    assert "line 4" in lines[5]


def test_duplicate_keys_with_crlf_line_endings(read) -> None:
    doc = read("a: 1\r\nb: 2\r\na: 3\r\n")
    assert problems(doc) == [("TD208", 3, 1)]


@pytest.mark.parametrize(
    ("text", "position", "needle"),
    [
        ("version: 1\n404: not found\n", (2, 1), "'404' is not a string; quote it"),
        ("x: 1\n2026-11-22: day\n", (2, 1), "'2026-11-22' is not a string"),
        ("~: x\n", (1, 1), "'~' is not a string"),
        ("x:\n  1.5: y\n", (2, 3), "'1.5'"),
        ("? [a, b]\n: 1\n", (1, 3), "not a list or mapping"),
        ("? {a: 1}\n: 1\n", (1, 3), "not a list or mapping"),
    ],
)
def test_non_string_keys_are_refused(
    read, text: str, position: tuple[int, int], needle: str
) -> None:
    doc = read(text)
    assert problems(doc) == [("TD207", *position)]
    assert needle in doc.diagnostics[0].message
    assert doc.data is None


@pytest.mark.parametrize("word", ["on", "off", "yes", "no", "true", "On", "NO"])
def test_plain_boolean_words_as_keys_are_names(read, word: str) -> None:
    """`on:` (GitHub Actions, retry.on) is meant as a name, although YAML 1.1 reads a boolean."""
    doc = read(f"retry:\n  {word}: [OSError]\n  attempts: 2\n")
    assert doc.diagnostics == []
    assert doc.data == {"retry": {word: ["OSError"], "attempts": 2}}
    location = doc.locate(("retry", word), key=True)
    assert (location.line, location.column) == (2, 3)


def test_a_boolean_word_key_next_to_its_string_twin_is_a_duplicate(read) -> None:
    doc = read("on: 1\n'on': 2\n")
    assert problems(doc) == [("TD208", 2, 1)]


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("a: !!python/object/apply:os.system [ls]\n", 4),
        ("a: !!python/name:os.system ''\n", 4),
        ("a: !!binary aGVsbG8=\n", 4),
        ("a: !custom x\n", 4),
        ("a: !!set {x: null}\n", 4),
        ("a: !!omap [{x: 1}]\n", 4),
    ],
)
def test_unsupported_tags_are_refused(read, text: str, column: int) -> None:
    doc = read(text)
    assert problems(doc) == [("TD209", 1, column)]
    assert "unsupported tag" in doc.diagnostics[0].message
    assert doc.data is None


def test_several_problems_are_all_reported(read) -> None:
    doc = read("a: 1\na: 2\n3: x\nb: !!binary aGVsbG8=\n")
    assert sorted(problems(doc)) == [("TD207", 3, 1), ("TD208", 2, 1), ("TD209", 4, 4)]


def test_tab_indentation_is_located(read) -> None:
    doc = read("version: 1\ntools:\n\t- handler: tooldeck.handlers.files:read_file\n")
    assert problems(doc) == [("TD203", 3, 1)]
    assert "tab" in doc.diagnostics[0].message


def test_syntax_errors_carry_the_parser_position(read) -> None:
    doc = read("version: 1\ndescription: Read a file: returns lines\n")
    assert problems(doc) == [("TD204", 2, 25)]
    assert "mapping values are not allowed" in doc.diagnostics[0].message


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("a: [1, 2\n", 2, "','"),
        ('a: "open\n', 2, "quoted scalar"),
        ("a: *nowhere\n", 1, "undefined alias"),
        ("a: 1\n---\nb: 2\n", 2, "single document"),
    ],
)
def test_more_syntax_errors(read, text: str, line: int, needle: str) -> None:
    doc = read(text)
    assert [(c, ln) for c, ln, _ in problems(doc)] == [("TD204", line)]
    assert needle in doc.diagnostics[0].message


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "   \n# two\n# comments\n"])
def test_empty_files(read, text: str) -> None:
    doc = read(text)
    assert problems(doc) == [("TD205", 1, 1)]
    assert "version: 1" in doc.diagnostics[0].message


@pytest.mark.parametrize("text", ["---\n", "~\n", "null\n", "--- # nothing here\n...\n"])
def test_explicitly_empty_documents_are_reported(read, text: str) -> None:
    doc = read(text)
    assert [code for code, _, _ in problems(doc)] in (["TD205"], ["TD212"])


def test_unreadable_paths_are_reported_not_raised(tmp_path: Path) -> None:
    missing = read_yaml(tmp_path / "missing.yaml")
    assert problems(missing) == [("TD200", 1, 1)]
    assert "cannot read file" in missing.diagnostics[0].message
    folder = read_yaml(tmp_path)
    assert [code for code, _, _ in problems(folder)] == ["TD200"]


def test_display_name_is_used_in_locations(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\na: 2\n")
    doc = read_yaml(path, display="manifests/x.yaml")
    assert doc.file == "manifests/x.yaml"
    assert doc.diagnostics[0].format().startswith("manifests/x.yaml:2:1: TD208")


# ------------------------------------------------------------------------------- size caps
def test_size_cap(read) -> None:
    text = "version: 1\ndescription: twenty-four bytes\n"
    size = len(text.encode())
    assert read(text, max_bytes=size).diagnostics == []
    doc = read(text, max_bytes=size - 1)
    assert problems(doc) == [("TD201", 1, 1)]
    assert f"file is {size} bytes" in doc.diagnostics[0].message
    assert str(size - 1) in doc.diagnostics[0].message
    assert doc.data is None


def test_default_size_cap_is_two_mebibytes() -> None:
    assert MAX_BYTES == 2 * 1024 * 1024


def test_alias_bomb_fails_fast(read) -> None:
    started = time.perf_counter()
    doc = read(BOMB)
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert [code for code, _, _ in problems(doc)] == ["TD206"]
    assert "too many nodes" in doc.diagnostics[0].message
    assert doc.data is None


def test_alias_bomb_fails_without_large_memory(read) -> None:
    # Timed apart: tracemalloc slows allocation-heavy code down several times.
    tracemalloc.start()
    try:
        doc = read(BOMB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 1024 * 1024
    assert [code for code, _, _ in problems(doc)] == ["TD206"]


def test_node_budget_is_configurable(read) -> None:
    assert read("a: [1, 2, 3]\n", max_nodes=5).data == {"a": [1, 2, 3]}
    doc = read("a: [1, 2, 3]\n", max_nodes=4)
    assert [code for code, _, _ in problems(doc)] == ["TD206"]


def test_aliases_within_the_budget_are_fine(read) -> None:
    doc = read(BOMB.split("\n", 3)[0] + "\n" + BOMB.split("\n", 3)[1] + "\n")
    assert doc.diagnostics == []
    assert len(doc.data["b"]) == 9
    assert doc.data["b"][0] == ["lol"] * 9


@pytest.mark.parametrize("text", ["a: &a [1, *a]\n", "a: &a {b: *a}\n", "&a [*a]\n"])
def test_recursive_aliases_are_refused(read, text: str) -> None:
    started = time.perf_counter()
    doc = read(text)
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert [code for code, _, _ in problems(doc)] == ["TD206"]
    assert doc.data is None


def test_deep_nesting_limit(read) -> None:
    # The root list is at depth 0, so n brackets nest n - 1 levels below it.
    ok = MAX_DEPTH + 1
    assert read("[" * ok + "]" * ok + "\n").diagnostics == []
    doc = read("[" * (ok + 1) + "]" * (ok + 1) + "\n")
    assert problems(doc) == [("TD206", 1, ok + 1)]
    assert f"deeper than {MAX_DEPTH}" in doc.diagnostics[0].message


def test_deep_block_nesting_is_refused_too(read) -> None:
    text = "".join("  " * depth + f"k{depth}:\n" for depth in range(MAX_DEPTH + 5))
    doc = read(text)
    assert [code for code, _, _ in problems(doc)] == ["TD206"]


# ---------------------------------------------------------------------------- encodings
def test_invalid_utf8_reports_the_position_of_the_bad_byte(read) -> None:
    doc = read(b"version: 1\ndescription: ok\nname: caf\xe9 tools\n")
    assert problems(doc) == [("TD202", 3, 10)]
    assert "0xe9" in doc.diagnostics[0].message
    assert doc.data is None


def test_invalid_utf8_on_the_first_line(read) -> None:
    doc = read(b"\xffversion: 1\n")
    assert problems(doc) == [("TD202", 1, 1)]


def test_invalid_utf8_with_crlf_line_endings(read) -> None:
    doc = read(b"a: 1\r\nb: 2\r\nc: \x80\r\n")
    assert problems(doc) == [("TD202", 3, 4)]


def test_a_utf8_bom_is_accepted(read) -> None:
    doc = read("\ufeffversion: 1\nbundle: files\nbundle: again\n")
    assert problems(doc) == [("TD208", 3, 1)]
    doc = read("\ufeffversion: 1\nbundle: files\n")
    assert doc.diagnostics == []
    assert doc.data == {"version": 1, "bundle": "files"}
    location = doc.locate(("version",), key=True)
    assert (location.line, location.column) == (1, 1)


def test_non_ascii_text_is_kept(read) -> None:
    doc = read("description: Čtení souborů — 読む\n")
    assert doc.data == {"description": "Čtení souborů — 読む"}


# -------------------------------------------------------------------------------- locate
LOCATE = """\
version: 1
tools:
  - name: read_file
    handler: tooldeck.handlers.files:read_file
    params:
      - {name: path, type: string}
"""


@pytest.mark.parametrize(
    ("path", "key", "position"),
    [
        (("tools", 0, "name"), False, (3, 11)),
        (("tools", 0, "name"), True, (3, 5)),
        (("tools", 0, "handler"), False, (4, 14)),
        (("tools", 0, "params", 0, "type"), False, (6, 28)),
        (("tools", 0, "params", 0, "type"), True, (6, 22)),
        (("tools", 0, "params", 0), False, (6, 9)),
        (("tools", 0), False, (3, 5)),
        (("tools",), True, (2, 1)),
        (("tools",), False, (3, 3)),
        ((), False, (1, 1)),
    ],
)
def test_locate_keys_and_values(
    read, path: tuple[str | int, ...], key: bool, position: tuple[int, int]
) -> None:
    doc = read(LOCATE)
    location = doc.locate(path, key=key)
    assert (location.line, location.column) == position
    assert location.json_path == json_path(path)
    assert location.file == doc.file


@pytest.mark.parametrize(
    ("path", "position"),
    [
        (("tools", 7, "name"), (3, 3)),  # index past the end -> the list
        (("tools", 0, "description"), (3, 5)),  # missing key -> its mapping
        (("tools", 0, "params", 0, "default", "deeper"), (6, 9)),
        (("tools", "name"), (3, 3)),  # a key into a list -> the list
        (("version", "x"), (1, 10)),  # a key into a scalar -> the scalar
        (("nope",), (1, 1)),  # unknown top-level key -> the root
    ],
)
def test_locate_past_the_end_points_at_the_nearest_parent(
    read, path: tuple[str | int, ...], position: tuple[int, int]
) -> None:
    doc = read(LOCATE)
    location = doc.locate(path)
    assert (location.line, location.column) == position
    assert location.json_path == json_path(path)


def test_locate_without_a_tree_points_at_the_start(read) -> None:
    doc = read("a: 1\na: 2\n")
    assert doc.root is None or doc.data is None
    location = YamlDocument(file="x.yaml", data=None, root=None).locate(("tools", 3))
    assert (location.file, location.line, location.column) == ("x.yaml", 1, 1)
    assert location.json_path == "$.tools[3]"


# ------------------------------------------------------------------------------ json_path
@pytest.mark.parametrize(
    ("path", "text"),
    [
        ((), "$"),
        (("tools", 3, "params"), "$.tools[3].params"),
        (("tools", 0, "params", 1, "type"), "$.tools[0].params[1].type"),
        (("_private", "x1"), "$._private.x1"),
        (("my key",), "$['my key']"),
        (("a.b",), "$['a.b']"),
        (("1abc",), "$['1abc']"),
        (("",), "$['']"),
        (("x-y", 0), "$['x-y'][0]"),
        (("é",), "$['é']"),
        (("it's",), '$["it\'s"]'),
        (('say "hi"',), "$['say \"hi\"']"),
        (("back\\slash",), "$['back\\\\slash']"),
        (("mcp_servers", 0, "env", "GITHUB_TOKEN"), "$.mcp_servers[0].env.GITHUB_TOKEN"),
    ],
)
def test_json_path_formatting(path: tuple[str | int, ...], text: str) -> None:
    assert json_path(path) == text


def test_odd_keys_in_diagnostics_get_bracketed_paths(tmp_path: Path) -> None:
    from tooldeck.manifest._meta.check import check_document

    path = tmp_path / "m.yaml"
    path.write_text(
        "version: 1\ntools:\n  - handler: tooldeck.handlers.files:read_file\n    my key: 1\n"
    )
    doc = read_yaml(path)
    (diagnostic,) = check_document(doc)
    assert diagnostic.code == "TD210"
    assert diagnostic.location is not None
    assert diagnostic.location.json_path == "$.tools[0]['my key']"
    assert (diagnostic.location.line, diagnostic.location.column) == (4, 5)


# -- the memoised resolver ---------------------------------------------------------------

RESOLVER_SCALARS = [
    *("", "~", "null", "Null", "NULL", "nULL", "yes", "No", "on", "OFF", "y", "n", "Y", "N"),
    *("true", "False", "TRUE", "tRUE", "0", "-1", "+1", "0x1F", "0o7", "017", "0b101", "-0b1"),
    *("1_000", "1:30", "190:20:30.15", "1.5", ".5", "-.inf", ".NaN", ".nan", "1e3", "1.0e+3"),
    *("6.8523015e+5", "685.230_15e+03", "2001-12-14", "2001-12-14t21:59:43.10-05:00"),
    *("<<", "=", "abc", "Yes please", "12abc", "_", "a b", "nullx", "1.2.3", "+", "."),
]


def _tags(node: object) -> list[tuple[str, object]]:
    """Every node's kind, tag and scalar value, in document order (aliases visited once)."""
    import yaml

    out: list[tuple[str, object]] = []
    pending = [node]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        assert isinstance(current, yaml.Node)
        if id(current) in seen:
            out.append(("alias", None))
            continue
        seen.add(id(current))
        value = current.value if isinstance(current, yaml.ScalarNode) else None
        out.append((f"{type(current).__name__}:{current.tag}", value))
        if isinstance(current, yaml.SequenceNode):
            pending.extend(reversed(current.value))
        elif isinstance(current, yaml.MappingNode):
            for key, item in reversed(current.value):
                pending += [item, key]
    return out


def test_memoised_resolver_tags_every_scalar_as_pyyaml_does() -> None:
    import yaml

    from tooldeck._yaml import source as _yamlsource

    lines = []
    for index, text in enumerate(RESOLVER_SCALARS):
        lines += [f"p{index}: {text}", f"q{index}: '{text}'", f'r{index}: "{text}"']
        lines.append(f"s{index}: [{text or '~'}, {{k: {text or '~'}}}]")
    lines += ["t: !!str 1", "u: !!int '7'", "v: &a {x: 1}", "w: *a", "x: {<<: *a, y: 2}"]
    document = "\n".join(lines) + "\n"
    for _ in range(2):  # the second pass answers from the memo
        expected = _tags(yaml.compose(document, Loader=yaml.SafeLoader))
        assert _tags(yaml.compose(document, Loader=_yamlsource._Loader)) == expected


def test_memoised_resolver_tags_the_repository_manifests_as_pyyaml_does() -> None:
    import yaml

    from tooldeck._yaml import source as _yamlsource

    root = Path(__file__).resolve().parents[2]
    files = [*root.glob("manifests/*.yaml"), *root.glob("tests/fixtures/**/*.yaml")]
    compared = 0
    for path in files:
        text = path.read_text("utf-8", errors="replace")
        if len(text) > 20_000 or not _yamlsource._shallow(text):  # libyaml recurses in C
            continue
        try:
            expected = _tags(yaml.compose(text, Loader=yaml.SafeLoader))
        except (yaml.YAMLError, AssertionError, RecursionError):
            continue
        assert _tags(yaml.compose(text, Loader=_yamlsource._Loader)) == expected, path
        compared += 1
    assert compared > 20


def test_resolvers_added_to_pyyaml_loaders_do_not_change_manifests(
    monkeypatch: pytest.MonkeyPatch, read
) -> None:
    """Manifests resolve YAML 1.1 as shipped, whatever else in the process registers."""
    import re

    import yaml

    for loader in (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        table = {k: list(v) for k, v in loader.yaml_implicit_resolvers.items()}
        table.setdefault("d", []).insert(0, ("tag:example.com,2026:day", re.compile("^day$")))
        monkeypatch.setattr(loader, "yaml_implicit_resolvers", table)
    doc = read("version: 1\ndescription: day\n")
    assert doc.diagnostics == []
    assert doc.data == {"version": 1, "description": "day"}
