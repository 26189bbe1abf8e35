"""tooldeck._config.javaprops: the java.util.Properties format, flat and nested."""

from pathlib import Path

import pytest

from tooldeck._config import configuration as _config
from tooldeck._config.configuration import load_config
from tooldeck._config.javaprops import json_path, parse_properties, read_properties
from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def props(text: str) -> tuple[dict[str, str], dict[str, int], list[Diagnostic]]:
    return parse_properties(text, file="app.properties")


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]


def only(diagnostics, code: str) -> Diagnostic:
    found = [d for d in diagnostics if d.code == code]
    assert len(found) == 1, diagnostics
    return found[0]


def test_parse_properties_is_still_importable_from_config():
    assert _config.parse_properties is parse_properties
    assert "parse_properties" in _config.__all__


# -- properties syntax ------------------------------------------------------------------------


def test_separators_and_whitespace_around_them():
    values, lines, diagnostics = props(
        "a=1\nb:2\nc 3\n  d  =  4\ne\t:\t5\nf   6\ng = = 7\nh\ni=\nj :\n"
    )
    assert diagnostics == []
    assert values == {
        "a": "1",
        "b": "2",
        "c": "3",
        "d": "4",
        "e": "5",
        "f": "6",
        "g": "= 7",  # only the first separator is one; the rest is value
        "h": "",
        "i": "",
        "j": "",
    }
    assert lines == {k: n for n, k in enumerate("abcdefghij", start=1)}


def test_value_keeps_trailing_whitespace_and_inline_hash_like_java():
    values, _, _ = props("url=https://example.org/mcp   # not a comment\nx=1  \n")
    assert values == {"url": "https://example.org/mcp   # not a comment", "x": "1  "}


def test_comments_and_blank_lines():
    text = "# comment\n! also a comment\n   # indented comment\n\n   \t\nkey=value\n#key=other\n"
    values, lines, diagnostics = props(text)
    assert values == {"key": "value"}
    assert lines == {"key": 6}
    assert diagnostics == []


def test_every_escape():
    text = "\n".join(
        [
            r"tab=a\tb",
            r"newline=a\nb",
            r"cr=a\rb",
            r"ff=a\fb",
            r"backslash=a\\b",
            r"equals=a\=b",
            r"colon=a\:b",
            r"hash=\#not comment",
            r"bang=\!not comment",
            r"unicode=caf\u00e9 \u20AC",
            r"pair=\uD83D\uDE00",
            r"space=\ lead",
            r"other=\q",
        ]
    )
    values, _, diagnostics = props(text)
    assert diagnostics == []
    assert values == {
        "tab": "a\tb",
        "newline": "a\nb",
        "cr": "a\rb",
        "ff": "a\fb",
        "backslash": "a\\b",
        "equals": "a=b",
        "colon": "a:b",
        "hash": "#not comment",
        "bang": "!not comment",
        "unicode": "café €",
        "pair": "\N{GRINNING FACE}",
        "space": " lead",
        "other": "q",
    }


def test_escaped_separators_and_spaces_in_keys():
    values, _, _ = props(r"a\=b=1" "\n" r"c\:d:2" "\n" r"e\ f g" "\n" r"\#h=3" "\n")
    assert values == {"a=b": "1", "c:d": "2", "e f": "g", "#h": "3"}


def test_malformed_unicode_escape_is_kept_with_a_warning():
    values, _, diagnostics = props("ok=1\n" r"bad=x\u12G4y" "\n")
    assert values == {"ok": "1", "bad": "x\\u12G4y"}
    diagnostic = only(diagnostics, "TD232")
    assert diagnostic.severity is Severity.WARNING
    assert diagnostic.location == SourceLocation(file="app.properties", line=2, column=1)
    assert "\\uXXXX" in diagnostic.message


def test_continuation_lines():
    text = (
        "fruits=apple, \\\n"
        "        banana, \\\n"
        "\t pear\n"
        "after=1\n"
        "backslashes=ends with one \\\\\n"  # an escaped backslash does not continue
        "next=2\n"
        "key\\\n"
        "   name=3\n"
        "last=tail\\"  # continuation at end of file
    )
    values, lines, diagnostics = props(text)
    assert diagnostics == []
    assert values == {
        "fruits": "apple, banana, pear",
        "after": "1",
        "backslashes": "ends with one \\",
        "next": "2",
        "keyname": "3",
        "last": "tail",
    }
    assert lines == {"fruits": 1, "after": 4, "backslashes": 5, "next": 6, "keyname": 7, "last": 9}


def test_continuation_line_looking_like_a_comment_is_value():
    values, _, _ = props("a=1\\\n  # still a\nb=2\n")
    assert values == {"a": "1# still a", "b": "2"}


def test_comment_line_does_not_continue():
    values, _, _ = props("# comment \\\nb=2\n")
    assert values == {"b": "2"}


def test_crlf_and_cr_line_endings():
    values, lines, _ = props("a=1\r\nb=2\rc=3\\\r\n  4\n")
    assert values == {"a": "1", "b": "2", "c": "34"}
    assert lines == {"a": 1, "b": 2, "c": 3}


def test_line_without_key():
    values, _, diagnostics = props("a=1\n  = orphan\n: also\nb=2\n")
    assert values == {"a": "1", "b": "2"}
    assert codes(diagnostics) == ["TD232", "TD232"]
    assert [d.location.line for d in diagnostics] == [2, 3]
    assert diagnostics[0].location.column == 3
    assert all(d.severity is Severity.WARNING for d in diagnostics)


def test_duplicate_keys_last_wins_and_warning_names_first_line():
    values, lines, diagnostics = props("a=1\nb=x\na=2\n\na=3\n")
    assert values["a"] == "3"
    assert lines["a"] == 5
    assert codes(diagnostics) == ["TD233", "TD233"]
    assert [d.location.line for d in diagnostics] == [3, 5]
    assert all("line 1" in d.message for d in diagnostics)
    assert all(d.severity is Severity.WARNING for d in diagnostics)


# -- nesting ----------------------------------------------------------------------------------


def test_dotted_keys_become_nested_mappings(tmp_path):
    path = write(tmp_path, "app.properties", "a.b.c=1\na.b.d=2\na.e=3\ntop=4\n")
    config = load_config(path)
    assert config.diagnostics == ()
    assert config.data == {"a": {"b": {"c": "1", "d": "2"}, "e": "3"}, "top": "4"}
    assert config.get("a.b.c") == "1"


@pytest.mark.parametrize(
    "text",
    ["a=1\na.b=2\n", "a.b=2\na=1\n"],
    ids=["leaf-first", "leaf-last"],
)
def test_leaf_and_prefix_conflict_keeps_nested(tmp_path, text):
    path = write(tmp_path, "app.properties", text)
    config = load_config(path)
    assert config.data == {"a": {"b": "2"}}
    diagnostic = only(config.diagnostics, "TD231")
    assert diagnostic.severity is Severity.WARNING
    leaf_line = text.splitlines().index("a=1") + 1
    assert diagnostic.location.line == leaf_line
    assert diagnostic.location.file == str(path)
    assert "'a.b'" in diagnostic.message


def test_deep_leaf_prefix_conflict(tmp_path):
    path = write(tmp_path, "app.properties", "x.y=1\nx.y.z=2\nx.w=3\n")
    config = load_config(path)
    assert config.data == {"x": {"y": {"z": "2"}, "w": "3"}}
    assert only(config.diagnostics, "TD231").location.line == 1


def test_properties_file_in_latin1_and_with_bom(tmp_path):
    latin = write(tmp_path, "latin.properties", "name=café\n", encoding="iso-8859-1")
    assert load_config(latin).data == {"name": "café"}
    bom = write(tmp_path, "bom.properties", "\ufeffname=café\n")
    assert load_config(bom).data == {"name": "café"}


# -- edge cases -------------------------------------------------------------------------------


def test_empty_and_comment_only_text():
    assert props("") == ({}, {}, [])
    assert props("# only\n! comments\n\n") == ({}, {}, [])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"a=\u00e", "\\u00e"),  # too short at the end of the line
        (r"a=\u", "\\u"),
        (r"a=x\uZZZZy", "x\\uZZZZy"),
    ],
)
def test_short_or_bad_unicode_escapes_are_kept(text, value):
    values, _, diagnostics = props(text)
    assert values == {"a": value}
    assert "value of 'a'" in only(diagnostics, "TD232").message


def test_malformed_unicode_escape_in_a_key_names_the_key():
    values, _, diagnostics = props("k\\u12=1\n")
    assert values == {"k\\u12": "1"}
    assert "in the key of" in only(diagnostics, "TD232").message


def test_lone_trailing_backslash_in_a_value_is_dropped():
    # an odd trailing backslash continues the line; at the end of the file there is none
    values, _, diagnostics = props("a=x\\")
    assert values == {"a": "x"}
    assert diagnostics == []


def test_escaped_line_break_in_a_key_joins_the_next_line():
    values, lines, _ = props("long\\\n  key=v\n")
    assert values == {"longkey": "v"}
    assert lines == {"longkey": 1}


def test_duplicate_key_moves_to_its_winning_position():
    values, lines, _ = props("a=1\nb=2\na=3\n")
    assert list(values) == ["b", "a"]
    assert lines == {"a": 3, "b": 2}


def test_read_properties_nests_and_keys_positions_by_path():
    data, positions, diagnostics = read_properties(
        b"MCP.name=x\n  MCP.url = https://e.org\ntop=1\n", "app.properties"
    )
    assert diagnostics == []
    assert data == {"MCP": {"name": "x", "url": "https://e.org"}, "top": "1"}
    assert positions == {("MCP", "name"): (1, 1), ("MCP", "url"): (2, 3), ("top",): (3, 1)}


def test_read_properties_shadowed_key_has_its_json_path():
    data, _, diagnostics = read_properties(b"a.b=1\na.b.c=2\n", "app.properties")
    assert data == {"a": {"b": {"c": "2"}}}
    diagnostic = only(diagnostics, "TD231")
    assert diagnostic.location == SourceLocation(
        file="app.properties", line=1, column=1, json_path="$['a.b']"
    )


def test_read_properties_decodes_latin1_when_not_utf8():
    data, _, _ = read_properties("name=caf\u00e9 \u00a7\n".encode("iso-8859-1"), "x.properties")
    assert data == {"name": "caf\u00e9 \u00a7"}


def test_json_path_quotes_what_is_not_an_identifier():
    assert json_path(("MCP_1", "url")) == "$.MCP_1.url"
    assert json_path(("a.b",)) == "$['a.b']"
    assert json_path(("1x", "ok")) == "$['1x'].ok"
    assert json_path(()) == "$"


def test_properties_file_problems_are_located_in_the_file(tmp_path):
    path = write(tmp_path, "app.properties", "a=1\n   a=2\n\\u12=3\n= x\n")
    config = load_config(path)
    assert config.data == {"a": "2", "\\u12": "3"}
    assert [(d.code, d.location.line, d.location.column) for d in config.diagnostics] == [
        ("TD233", 2, 4),
        ("TD232", 3, 1),
        ("TD232", 4, 1),
    ]
    assert all(d.location.file == str(path) for d in config.diagnostics)
    assert all(d.severity is Severity.WARNING for d in config.diagnostics)
