"""tooldeck._config: loading the application's configuration (YAML, JSON, properties, mappings)."""

import json
import subprocess
import sys
from pathlib import Path

import jmespath
import pytest

from tooldeck._config.configuration import Config, load_config
from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation
from tooldeck._model import McpServerSpec, WebSearchSpec

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "config"


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]


def only(diagnostics, code: str) -> Diagnostic:
    found = [d for d in diagnostics if d.code == code]
    assert len(found) == 1, diagnostics
    return found[0]


# -- fixtures ----------------------------------------------------------------------------------


def test_hosted_tools_properties_fixture():
    path = FIXTURES / "hosted_tools.properties"
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


# -- hosted-tool sections ---------------------------------------------------------------------


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


def test_unknown_key_in_section_warns(tmp_path):
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


def test_no_sections_means_no_hosted_tools(tmp_path):
    config = load_config(write(tmp_path, "app.properties", "features.orders=true\n"))
    assert config.web_search is None
    assert config.mcp_servers == ()
    assert config.get("features.orders") == "true"


def test_yaml_section_value_not_a_string(tmp_path):
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


def test_json_sections_located(tmp_path):
    data = {"MCP": {"url": "https://e.org"}, "MCP_1": {"name": "x", "url": "https://e.org/x"}}
    path = write(tmp_path, "app.json", json.dumps(data, indent=2))
    config = load_config(path)
    assert [s.name for s in config.mcp_servers] == ["x"]
    diagnostic = only(config.diagnostics, "TD235")
    assert diagnostic.location.line == 3
    assert diagnostic.location.json_path == "$.MCP.url"


def test_mcp_spec_rejection_becomes_a_diagnostic(monkeypatch, tmp_path):
    from tooldeck._config import hosted_keys
    from tooldeck._errors import RegistrationError

    def refuse(**kwargs):
        raise RegistrationError("nope", code="TD114")

    monkeypatch.setattr(hosted_keys, "McpServerSpec", refuse)
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


# -- YAML read by the manifest reader ----------------------------------------------------------


def test_yaml_duplicate_key_is_located_and_leaves_the_config_empty(tmp_path):
    path = write(tmp_path, "app.yaml", "region: eu\nfeatures:\n  orders: true\n  orders: false\n")
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD208")
    assert diagnostic.severity is Severity.ERROR
    assert diagnostic.location == SourceLocation(file=str(path), line=4, column=3)
    assert "'orders'" in diagnostic.message
    assert "line 3" in diagnostic.message
    assert diagnostic.format().startswith(f"{path}:4:3: TD208 ")


def test_yaml_duplicate_top_level_section_registers_nothing(tmp_path):
    text = "MCP:\n  name: a\n  url: https://e.org/a\nMCP:\n  name: b\n  url: https://e.org/b\n"
    config = load_config(write(tmp_path, "app.yaml", text))
    assert config.mcp_servers == ()
    assert [(d.code, d.location.line) for d in config.diagnostics] == [("TD208", 4)]


@pytest.mark.parametrize("levels", [101, 200_000])
def test_yaml_deep_nesting_is_a_located_error(tmp_path, levels):
    path = write(tmp_path, "app.yaml", "ok: 1\ndeep: " + "[" * levels + "]" * levels + "\n")
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD206")
    assert diagnostic.location.file == str(path)
    assert diagnostic.location.line == 2
    assert diagnostic.location.column > 100
    assert "nesting deeper than 100 levels" in diagnostic.message


def test_yaml_nesting_at_the_limit_loads(tmp_path):
    config = load_config(write(tmp_path, "app.yaml", "deep: " + "[" * 100 + "]" * 100 + "\n"))
    assert config.diagnostics == ()
    assert "deep" in config.data


def test_yaml_alias_bomb_is_a_located_error(tmp_path):
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for name, previous in zip("bcdefghi", "abcdefgh", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    path = write(tmp_path, "app.yaml", "\n".join(lines) + "\n")
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD206")
    assert diagnostic.location.file == str(path)
    assert 1 <= diagnostic.location.line <= len(lines)  # where the budget ran out
    assert "too many nodes" in diagnostic.message


def test_yaml_recursive_alias_is_a_located_error(tmp_path):
    path = write(tmp_path, "app.yaml", "a: 1\nloop: &x [*x]\n")
    diagnostic = only(load_config(path).diagnostics, "TD206")
    assert (diagnostic.location.line, diagnostic.location.column) == (2, 7)
    assert "recursive alias" in diagnostic.message


@pytest.mark.parametrize(
    ("text", "code", "where"),
    [
        ("a: 1\nn: 99999999999999999999\n", "TD214", (2, 4)),
        ("a: 1\nx: !!python/object/apply:os.system [ls]\n", "TD209", (2, 4)),
        ("a: 1\nx: !include other.yaml\n", "TD209", (2, 4)),
        ("a: 1\n404: not found\n", "TD207", (2, 1)),
    ],
    ids=["integer-too-large", "python-tag", "custom-tag", "key-not-a-string"],
)
def test_yaml_reader_checks_apply_to_config(tmp_path, text, code, where):
    path = write(tmp_path, "app.yaml", text)
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, code)
    assert diagnostic.severity is Severity.ERROR
    assert (diagnostic.location.file, diagnostic.location.line, diagnostic.location.column) == (
        str(path),
        *where,
    )


def test_yaml_values_read_as_in_manifests(tmp_path):
    text = "on: push\nreleased: 2026-11-22\nbig: 9223372036854775807\nflag: yes\n"
    config = load_config(write(tmp_path, "app.yaml", text))
    assert config.diagnostics == ()
    # timestamps stay the text written, `on:` stays a name, booleans are YAML 1.1's
    assert config.data == {
        "on": "push",
        "released": "2026-11-22",
        "big": 2**63 - 1,
        "flag": True,
    }


def test_yaml_tab_indentation_is_invalid_yaml(tmp_path):
    path = write(tmp_path, "app.yaml", "a:\n\tb: 1\n")
    diagnostic = only(load_config(path).diagnostics, "TD230")
    assert (diagnostic.location.line, diagnostic.location.column) == (2, 1)
    assert diagnostic.message.startswith("invalid YAML: tab character")


@pytest.mark.parametrize("text", ["~\n", "---\n", "null\n"])
def test_yaml_null_document_is_not_a_mapping(tmp_path, text):
    diagnostic = only(load_config(write(tmp_path, "app.yaml", text)).diagnostics, "TD230")
    assert "not null" in diagnostic.message


def test_yaml_sections_located_through_anchors_and_merges(tmp_path):
    text = (
        "hosts:\n"
        "  docs: &docs {url: 'https://e.org/docs'}\n"
        "MCP:\n"
        "  <<: *docs\n"
        "  name: Docs\n"
        "MCP_1:\n"
        "  <<: *docs\n"
        "  autorization: x\n"
    )
    path = write(tmp_path, "app.yaml", text)
    config = load_config(path)
    assert [(s.name, s.url) for s in config.mcp_servers] == [("Docs", "https://e.org/docs")]
    assert config.mcp_servers[0].origin == SourceLocation(
        file=str(path), line=5, column=3, json_path="$.MCP.name"
    )
    no_name, unknown = config.diagnostics  # in file order
    # MCP_1's url comes from the merged mapping: its key is located there
    assert (no_name.code, no_name.location.line, no_name.location.column) == ("TD235", 2, 16)
    assert no_name.location.json_path == "$.MCP_1.url"
    assert "MCP_1.name" in no_name.message
    assert (unknown.code, unknown.location.line, unknown.location.column) == ("TD235", 8, 3)


def test_import_config_does_not_import_yaml():
    code = "import sys, tooldeck._config.configuration; print('yaml' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# -- JSON --------------------------------------------------------------------------------------


def test_json_duplicate_keys_are_located(tmp_path):
    text = (
        '{\n  "region": "eu",\n'
        '  "features": {"orders": true, "orders": false},\n'
        '  "region": "us"\n}\n'
    )
    path = write(tmp_path, "app.json", text)
    config = load_config(path)
    assert config.data == {}
    assert [
        (d.code, d.severity, d.location.line, d.location.column) for d in config.diagnostics
    ] == [("TD208", Severity.ERROR, 3, 32), ("TD208", Severity.ERROR, 4, 3)]
    orders, region = config.diagnostics
    assert "'orders'" in orders.message
    assert "line 3" in orders.message
    assert "'region'" in region.message
    assert "line 2" in region.message
    assert region.location.file == str(path)


def test_json_duplicate_keys_in_a_list_of_objects(tmp_path):
    path = write(tmp_path, "app.json", '{"servers": [{"url": "a"},\n {"url": "b", "url": "c"}]}')
    diagnostic = only(load_config(path).diagnostics, "TD208")
    assert (diagnostic.location.line, diagnostic.location.column) == (2, 15)


def test_json_duplicate_key_is_reported_where_yaml_cannot_read_the_text(tmp_path):
    # a lone surrogate escape is valid JSON but not YAML: no positions, the key is named
    path = write(tmp_path, "app.json", '{"a": 1, "a": 2, "b": "\\ud800"}')
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD208")
    assert diagnostic.location == SourceLocation(file=str(path), line=1, column=1)
    assert "duplicate key 'a';" in diagnostic.message


@pytest.mark.parametrize("levels", [102, 200_000])
def test_json_deep_nesting_is_a_located_error(tmp_path, levels):
    path = write(tmp_path, "app.json", '{\n  "deep": ' + "[" * levels + "]" * levels + "\n}")
    config = load_config(path)
    assert config.data == {}
    diagnostic = only(config.diagnostics, "TD206")
    assert diagnostic.severity is Severity.ERROR
    # the bracket inside 101 others: `{` plus 100 `[` come before it
    assert diagnostic.location == SourceLocation(file=str(path), line=2, column=11 + 100)
    assert "nesting deeper than 100 levels" in diagnostic.message


def test_json_brackets_in_strings_do_not_count_as_nesting(tmp_path):
    text = json.dumps({"pattern": "[" * 500 + '{"\\' + "]" * 10, "deep": [[[[1]]]]})
    config = load_config(write(tmp_path, "app.json", text))
    assert config.diagnostics == ()
    assert config.get("deep.0.0.0.0") == 1


def test_json_nesting_at_the_limit_loads(tmp_path):
    text = '{"deep": ' + "[" * 100 + "]" * 100 + "}"
    config = load_config(write(tmp_path, "app.json", text))
    assert config.diagnostics == ()


# -- mappings and the Config API --------------------------------------------------------------


def test_none_is_an_empty_config():
    config = load_config(None)
    assert config == Config()
    assert config.data == {}
    assert config.web_search is None
    assert config.mcp_servers == ()
    assert config.source is None
    assert config.diagnostics == ()


def test_mapping_is_used_as_is_and_sections_read():
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


def test_mapping_section_that_is_not_a_mapping_is_application_data():
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
