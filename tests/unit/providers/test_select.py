"""Selecting tools by bundle, tag or name (toolsets): select_tools and export_tools' selectors."""

import textwrap

import pytest

from tests.unit.providers.sample import ping, read_file, search
from tooldeck import ToolRegistry, load_manifests
from tooldeck._model import WebSearchSpec
from tooldeck.providers import ExportError, Selection, export_tools, select_tools


@pytest.fixture
def registry():
    registry = ToolRegistry()
    registry.add_tool("search", "S.", search, bundle="notes", tags=("read-only",))
    registry.add_tool("files.read", "R.", read_file, bundle="files", tags=("read-only", "files"))
    registry.add_tool("ping", "P.", ping, tags=("ops",))
    registry.add_tool("raw_time", "T.", ping, tags=("mcp", "mcp:time"))  # an attached tool
    registry.add(WebSearchSpec(type="web_search", bundle="research"))
    registry.add_mcp_server("docs", "https://example.org/docs", bundle="research")
    registry.add_mcp_server("tracker", "https://example.org/tracker")
    registry.add_mcp_server("time", command=("mcp-server-time",), bundle="clock")
    return registry


def names(selection: Selection) -> list[str]:
    return [spec.name for spec in selection.tools]


def test_no_selector_selects_everything(registry):
    selection = select_tools(registry)
    assert selection.everything
    assert names(selection) == ["search", "files.read", "ping", "raw_time"]
    assert selection.web_search is registry.web_search()
    assert [s.name for s in selection.mcp_servers] == ["docs", "tracker"]  # hosted only
    assert len(selection) == 4
    assert list(selection) == list(registry.tools())


def test_selectors_add_up(registry):
    assert names(select_tools(registry, bundles=["notes"])) == ["search"]
    assert names(select_tools(registry, tags=["read-only"])) == ["search", "files.read"]
    assert names(select_tools(registry, names=["ping"])) == ["ping"]
    union = select_tools(registry, bundles=["notes"], tags=["files"], names=["ping"])
    assert names(union) == ["search", "files.read", "ping"]  # registration order, no repeats
    assert not union.everything
    assert union.web_search is None
    assert union.mcp_servers == ()


def test_names_match_registered_and_safe_names(registry):
    safe = registry.safe_name("files.read")
    assert safe != "files.read"
    for name in ("files.read", safe):
        selection = select_tools(registry, names=[name])
        assert names(selection) == ["files.read"]
        assert "files.read" in selection
        assert safe in selection
        assert "search" not in selection
    assert 3 not in select_tools(registry)


def test_a_single_string_is_one_name_not_its_letters(registry):
    assert names(select_tools(registry, names="ping")) == ["ping"]
    assert names(select_tools(registry, tags="ops")) == ["ping"]


def test_hosted_entries_come_with_their_bundle_or_by_name(registry):
    research = select_tools(registry, bundles=["research"])
    assert names(research) == []
    assert research.web_search is registry.web_search()
    assert [s.name for s in research.mcp_servers] == ["docs"]
    named = select_tools(registry, names=["web_search", "tracker"])
    assert named.web_search is not None
    assert [s.name for s in named.mcp_servers] == ["tracker"]


def test_attached_tools_belong_to_their_servers_bundle(registry):
    assert names(select_tools(registry, bundles=["clock"])) == ["raw_time"]
    assert names(select_tools(registry, tags=["mcp:time"])) == ["raw_time"]


@pytest.mark.parametrize(
    ("selectors", "message"),
    [
        ({"bundles": ["note"]}, "unknown bundle 'note'; the bundles here are: clock, files,"),
        ({"tags": ["write", "read-only"]}, "unknown tag 'write'; the tags here are: files,"),
        ({"names": ["serch", "pnig"]}, "unknown tools 'pnig', 'serch'; the tools here are:"),
        ({"names": ["time"]}, "unknown tool 'time'"),  # a client server is no hosted entry
        ({"names": [""]}, "names must be non-empty strings"),
    ],
)
def test_a_selector_that_matches_nothing_is_an_error(registry, selectors, message):
    with pytest.raises(ExportError, match=message):
        select_tools(registry, **selectors)
    with pytest.raises(ExportError, match=message):
        export_tools(registry, "openai-responses", **selectors)


def test_error_lists_are_capped():
    registry = ToolRegistry()
    for index in range(30):
        registry.add_tool(f"tool_{index:02d}", "T.", ping)
    with pytest.raises(ExportError, match=r"tool_19 \.\.\. \(10 more\)$"):
        select_tools(registry, names=["nope"])


def test_export_tools_exports_the_selection(registry):
    tools = export_tools(registry, "openai-responses", bundles=["research"], names=["ping"])
    assert [t.get("name") or t["type"] for t in tools] == ["ping", "web_search", "mcp"]
    assert tools[2]["server_label"] == "docs"
    warnings: list = []
    chat = export_tools(registry, "openai-chat", tags=["read-only"], warnings=warnings)
    assert [t["function"]["name"] for t in chat] == ["search", registry.safe_name("files.read")]
    assert warnings == []  # no hosted entry selected, so none left out
    export_tools(registry, "openai-chat", bundles=["research"], warnings=warnings)
    assert [(w.kind, w.name) for w in warnings] == [
        ("left_out", "web_search"),
        ("left_out", "docs"),
    ]


def test_manifest_bundles_reach_hosted_entries(tmp_path):
    (tmp_path / "research.yaml").write_text(
        textwrap.dedent(
            """\
            version: 1
            web_search: {type: web_search}
            mcp_servers:
              - {name: docs, url: "https://example.org/docs"}
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "files.yaml").write_text(
        "version: 1\ntools:\n  - handler: tooldeck.handlers.files:read_file\n", encoding="utf-8"
    )
    registry, result = load_manifests([tmp_path])
    assert result.ok, result.diagnostics
    assert registry.web_search().bundle == "research"
    assert registry.mcp_servers()[0].bundle == "research"
    research = select_tools(registry, bundles=["research"])
    assert (names(research), research.web_search.type) == ([], "web_search")
    assert names(select_tools(registry, bundles=["files"])) == ["read_file"]
