"""tooldeck._config: loading the application's configuration (YAML, JSON, properties, mappings)."""

import json
from pathlib import Path

import jmespath
import pytest

from tooldeck._config import Config, load_config, parse_properties
from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation
from tooldeck._model import McpServerSpec, WebSearchSpec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "config"


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


# -- fixtures ----------------------------------------------------------------------------------


def test_seed_properties_fixture():
    path = FIXTURES / "seed.properties"
    config = load_config(path)
    assert config.diagnostics == ()
    assert config.source == str(path)
    assert config.web_search == WebSearchSpec(
        type="web_search_preview",
        city="Prague",
        country="CZ",
        region="Prague",
        origin=SourceLocation(file=str(path), line=2, column=1, json_path="$.WebSearchTool.type"),
    )
    assert [(s.name, s.url, s.authorization, s.description, s.via) for s in config.mcp_servers] == [
        (
            "Project MCP",
            "https://example.org/mcp",
            "Bearer your-token",
            "MCP server for project-specific tools",
            "hosted",
        ),
        ("Admin MCP", "https://example.org/mcp-admin", None, None, "hosted"),
    ]
    assert all(isinstance(s, McpServerSpec) for s in config.mcp_servers)
    assert config.mcp_servers[0].origin.line == 8
    assert config.mcp_servers[1].origin.line == 12
    # the groups stay in the data too
    assert config.get("MCP_1.name") == "Admin MCP"
    assert config.data["WebSearchTool"]["type"] == "default"


def test_yaml_fixture_with_features():
    config = load_config(FIXTURES / "features.yaml")
    assert config.diagnostics == ()
    assert config.get("features.orders") is True
    assert config.get("features.refunds") is False
    assert config.get("shop.limits.max_items") == 50
    assert jmespath.search("config.features.orders", config.search_root()) is True
    assert config.web_search is not None
    assert config.web_search.country == "NO"
    assert config.web_search.origin.line == 11
    assert [s.name for s in config.mcp_servers] == ["Docs MCP"]
    assert config.mcp_servers[0].origin == SourceLocation(
        file=str(FIXTURES / "features.yaml"), line=14, column=3, json_path="$.MCP.name"
    )


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


# -- seed extraction --------------------------------------------------------------------------


def test_mcp_groups_in_numeric_order(tmp_path):
    text = (
        "MCP_10.name=ten\nMCP_10.url=https://e.org/10\n"
        "MCP_2.name=two\nMCP_2.url=https://e.org/2\n"
        "MCP.name=zero\nMCP.url=https://e.org/0\n"
        "MCP_1.name=one\nMCP_1.url=https://e.org/1\n"
        "MCPX.name=not a group\nMCPX.url=https://e.org/x\n"
        "MY_MCP.name=not a group\nMY_MCP.url=https://e.org/y\n"
    )
    config = load_config(write(tmp_path, "app.properties", text))
    assert config.diagnostics == ()
    assert [s.name for s in config.mcp_servers] == ["zero", "one", "two", "ten"]
    assert [s.url for s in config.mcp_servers] == [f"https://e.org/{n}" for n in (0, 1, 2, 10)]


def test_gap_in_group_numbers_does_not_stop_the_scan(tmp_path):
    text = "MCP.name=a\nMCP.url=https://e.org/a\nMCP_5.name=b\nMCP_5.url=https://e.org/b\n"
    config = load_config(write(tmp_path, "app.properties", text))
    assert [s.name for s in config.mcp_servers] == ["a", "b"]


def test_mcp_name_without_url_is_an_error_at_the_name_line(tmp_path):
    text = (
        "MCP.name=ok\nMCP.url=https://e.org/ok\n"
        "# admin server\n"
        "MCP_1.description=admin\n"
        "MCP_1.name=Admin MCP\n"
    )
    path = write(tmp_path, "app.properties", text)
    config = load_config(path)
    assert [s.name for s in config.mcp_servers] == ["ok"]
    diagnostic = only(config.diagnostics, "TD234")
    assert diagnostic.severity is Severity.ERROR
    assert diagnostic.location == SourceLocation(
        file=str(path), line=5, column=1, json_path="$.MCP_1.name"
    )
    assert "MCP_1.url" in diagnostic.message


def test_mcp_url_without_name_is_ignored_with_a_warning(tmp_path):
    text = "MCP.url=https://e.org/a\n\nMCP_1.description=only a description\n"
    path = write(tmp_path, "app.properties", text)
    config = load_config(path)
    assert config.mcp_servers == ()
    assert codes(config.diagnostics) == ["TD235", "TD235"]
    first, second = config.diagnostics
    assert first.location.line == 1
    assert first.location.json_path == "$.MCP.url"
    assert "only when MCP.name is set" in first.message
    assert second.location.line == 3
    assert all(d.severity is Severity.WARNING for d in config.diagnostics)


def test_empty_values_count_as_unset(tmp_path):
    text = "MCP.name=\nMCP.url=https://e.org\nMCP_1.name=x\nMCP_1.url=https://e.org/x\n"
    text += "MCP_1.authorization=\nWebSearchTool.type=default\nWebSearchTool.city=\n"
    config = load_config(write(tmp_path, "app.properties", text))
    assert [(s.name, s.authorization) for s in config.mcp_servers] == [("x", None)]
    assert config.web_search.city is None
    assert codes(config.diagnostics) == ["TD235"]


def test_unknown_key_in_seed_group_warns(tmp_path):
    text = "MCP.name=x\nMCP.url=https://e.org\nMCP.autorization=Bearer t\n"
    config = load_config(write(tmp_path, "app.properties", text))
    assert [s.authorization for s in config.mcp_servers] == [None]
    diagnostic = only(config.diagnostics, "TD235")
    assert diagnostic.location.line == 3
    assert "MCP.autorization" in diagnostic.message


def test_web_search_needs_type(tmp_path):
    path = write(tmp_path, "app.properties", "a=1\nWebSearchTool.city=Prague\n")
    config = load_config(path)
    assert config.web_search is None
    diagnostic = only(config.diagnostics, "TD235")
    assert diagnostic.location.line == 2
    assert "WebSearchTool.type" in diagnostic.message


def test_web_search_type_other_than_default_is_kept(tmp_path):
    config = load_config(write(tmp_path, "app.properties", "WebSearchTool.type=web_search\n"))
    assert config.web_search == WebSearchSpec(type="web_search", origin=config.web_search.origin)


def test_no_seed_groups_means_no_hosted_tools(tmp_path):
    config = load_config(write(tmp_path, "app.properties", "features.orders=true\n"))
    assert config.web_search is None
    assert config.mcp_servers == ()
    assert config.get("features.orders") == "true"


def test_yaml_seed_group_value_not_a_string(tmp_path):
    text = "WebSearchTool:\n  type: default\n  country: NO\nMCP:\n  name: [a]\n  url: x\n"
    path = write(tmp_path, "app.yaml", text)
    config = load_config(path)
    assert config.web_search is not None
    assert config.web_search.country is None
    assert config.mcp_servers == ()
    assert codes(config.diagnostics) == ["TD234", "TD234"]
    country, name = config.diagnostics
    assert (country.location.line, country.location.column) == (3, 3)
    assert "quote it" in country.message
    assert name.location.line == 5
    assert "must be a string" in name.message


def test_yaml_mcp_name_without_url_located(tmp_path):
    path = write(tmp_path, "app.yaml", "other: 1\nMCP_3:\n  description: d\n  name: n\n")
    diagnostic = only(load_config(path).diagnostics, "TD234")
    assert (diagnostic.location.line, diagnostic.location.column) == (4, 3)


def test_json_seed_groups_located(tmp_path):
    data = {"MCP": {"url": "https://e.org"}, "MCP_1": {"name": "x", "url": "https://e.org/x"}}
    path = write(tmp_path, "app.json", json.dumps(data, indent=2))
    config = load_config(path)
    assert [s.name for s in config.mcp_servers] == ["x"]
    diagnostic = only(config.diagnostics, "TD235")
    assert diagnostic.location.line == 3
    assert diagnostic.location.json_path == "$.MCP.url"


def test_mcp_spec_rejection_becomes_a_diagnostic(monkeypatch, tmp_path):
    from tooldeck import _config as config_module
    from tooldeck._errors import RegistrationError

    def refuse(**kwargs):
        raise RegistrationError("nope", code="TD114")

    monkeypatch.setattr(config_module, "McpServerSpec", refuse)
    path = write(tmp_path, "app.properties", "MCP.url=https://e.org\nMCP.name=x\n")
    config = load_config(path)
    assert config.mcp_servers == ()
    diagnostic = only(config.diagnostics, "TD234")
    assert diagnostic.location.line == 2
    assert "nope" in diagnostic.message


# -- file formats and errors ------------------------------------------------------------------


def test_json_config(tmp_path):
    path = write(tmp_path, "app.json", '{"features": {"orders": true}, "n": [1, 2]}')
    config = load_config(path)
    assert config.diagnostics == ()
    assert config.data == {"features": {"orders": True}, "n": [1, 2]}
    assert config.get("n.1") == 2


def test_yml_suffix_and_case(tmp_path):
    assert load_config(write(tmp_path, "a.yml", "x: 1\n")).data == {"x": 1}
    assert load_config(write(tmp_path, "b.YAML", "x: 2\n")).data == {"x": 2}


def test_invalid_json_has_line_and_column(tmp_path):
    path = write(tmp_path, "app.json", '{\n  "a": 1,\n  "b": ,\n}\n')
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD230")
    assert diagnostic.severity is Severity.ERROR
    assert diagnostic.location == SourceLocation(file=str(path), line=3, column=8)
    assert "invalid JSON" in diagnostic.message


def test_invalid_yaml_has_line_and_column(tmp_path):
    path = write(tmp_path, "app.yaml", "a: 1\nb: [1, 2\nc: 3\n")
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD230")
    assert diagnostic.location.file == str(path)
    assert (diagnostic.location.line, diagnostic.location.column) == (3, 2)
    assert diagnostic.message.startswith("invalid YAML")


def test_yaml_syntax_error_position(tmp_path):
    path = write(tmp_path, "app.yaml", "a: 1\n  b: 2\n")
    diagnostic = only(load_config(path).diagnostics, "TD230")
    assert (diagnostic.location.line, diagnostic.location.column) == (2, 4)
    assert "mapping values are not allowed" in diagnostic.message


def test_yaml_multiple_documents_is_an_error(tmp_path):
    path = write(tmp_path, "app.yaml", "a: 1\n---\nb: 2\n")
    diagnostic = only(load_config(path).diagnostics, "TD230")
    assert diagnostic.location.line == 2


@pytest.mark.parametrize(
    ("name", "text", "where", "kind"),
    [
        ("list.yaml", "# header\n- a\n- b\n", (2, 1), "list"),
        ("scalar.yaml", "just text\n", (1, 1), "str"),
        ("list.json", "\n\n  [1, 2]", (3, 3), "list"),
        ("null.json", "null", (1, 1), "null"),
    ],
)
def test_top_level_must_be_a_mapping(tmp_path, name, text, where, kind):
    path = write(tmp_path, name, text)
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD230")
    line, column = where
    assert diagnostic.location == SourceLocation(file=str(path), line=line, column=column)
    assert f"not {kind}" in diagnostic.message


def test_empty_yaml_is_an_empty_config(tmp_path):
    config = load_config(write(tmp_path, "app.yaml", "# nothing configured yet\n"))
    assert config.data == {}
    assert config.diagnostics == ()


def test_yaml_not_utf8(tmp_path):
    path = tmp_path / "app.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    diagnostic = only(load_config(path).diagnostics, "TD230")
    assert (diagnostic.location.line, diagnostic.location.column) == (2, 7)


@pytest.mark.parametrize("name", ["app.toml", "app.ini", "app"])
def test_unknown_suffix(tmp_path, name):
    path = write(tmp_path, name, "a = 1\n")
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD230")
    assert diagnostic.severity is Severity.ERROR
    assert diagnostic.location.file == str(path)
    assert ".properties" in diagnostic.message


def test_missing_file(tmp_path):
    path = tmp_path / "absent.yaml"
    config = load_config(str(path))
    assert config.data == {}
    assert config.source == str(path)
    diagnostic = only(config.diagnostics, "TD230")
    assert diagnostic.location == SourceLocation(file=str(path), line=1, column=1)
    assert "cannot read" in diagnostic.message


def test_directory_is_unreadable(tmp_path):
    folder = tmp_path / "conf.json"
    folder.mkdir()
    assert codes(load_config(folder).diagnostics) == ["TD230"]


def test_diagnostics_are_in_file_order(tmp_path):
    text = "MCP_1.name=late\nx=1\nx=2\n= bad\n"
    config = load_config(write(tmp_path, "app.properties", text))
    assert [d.location.line for d in config.diagnostics] == [1, 3, 4]
    assert codes(config.diagnostics) == ["TD234", "TD233", "TD232"]


# -- mappings and the Config API --------------------------------------------------------------


def test_none_is_an_empty_config():
    config = load_config(None)
    assert config == Config()
    assert config.data == {}
    assert config.web_search is None
    assert config.mcp_servers == ()
    assert config.source is None
    assert config.diagnostics == ()


def test_mapping_is_used_as_is_and_seed_groups_extracted():
    data = {
        "features": {"orders": True},
        "WebSearchTool": {"type": "default", "city": "Prague"},
        "MCP_1": {"name": "second", "url": "https://e.org/2"},
        "MCP": {"name": "first", "url": "https://e.org/1", "authorization": "Bearer t"},
        "MCP_2": {"url": "https://e.org/3"},
    }
    config = load_config(data)
    assert config.data is data
    assert config.source is None
    assert config.web_search == WebSearchSpec(type="web_search_preview", city="Prague")
    assert [(s.name, s.authorization) for s in config.mcp_servers] == [
        ("first", "Bearer t"),
        ("second", None),
    ]
    diagnostic = only(config.diagnostics, "TD235")
    assert diagnostic.location is None  # declared in code


def test_mapping_seed_group_that_is_not_a_mapping_is_application_data():
    config = load_config({"MCP": "just a value", "WebSearchTool": True})
    assert config.mcp_servers == ()
    assert config.web_search is None
    assert config.diagnostics == ()


def test_load_config_rejects_other_types():
    with pytest.raises(TypeError, match="mapping, a path or None"):
        load_config(42)  # type: ignore[arg-type]


def test_get_walks_dotted_keys():
    config = Config(data={"a": {"b": {"c": 1}, "n": None}, "list": [{"x": "y"}], "s": "text"})
    assert config.get("a.b.c") == 1
    assert config.get("a.b") == {"c": 1}
    assert config.get("a.n") is None
    assert config.get("list.0.x") == "y"
    assert config.get("a.missing", None) is None
    assert config.get("a.b.c.d", "fallback") == "fallback"
    assert config.get("list.5", 0) == 0
    assert config.get("s.0", "no") == "no"  # strings are not indexed
    with pytest.raises(KeyError, match=r"a\.zzz"):
        config.get("a.zzz")
    with pytest.raises(KeyError):
        config.get("nope")


def test_search_root():
    config = load_config({"features": {"orders": True}})
    assert config.search_root() == {"config": {"features": {"orders": True}}}
    assert jmespath.search("config.features.orders", config.search_root()) is True
    assert jmespath.search("config.features.refunds", config.search_root()) is None
    assert Config().search_root() == {"config": {}}
