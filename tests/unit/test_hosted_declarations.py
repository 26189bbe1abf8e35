"""Hosted web search and MCP servers as declared in YAML and in ``.properties`` configuration.

Every field reaches the spec (and from there the export), and every value the
provider would refuse is a located diagnostic: the meta-schema's TD213 for a
wrong value, TD118 for a web search that does not hold together, TD114 for an
MCP server's ``require_approval``, TD234 in the ``.properties`` keys.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tooldeck import load_manifests
from tooldeck._config.configuration import load_config
from tooldeck.providers import export_tools


def manifest(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tools.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    _, result = load_manifests([path])
    return [f"{d.location.line}:{d.location.column} {d.code} {d.message}" for d in result.errors]


def test_web_search_fields_from_yaml(tmp_path):
    path = manifest(
        tmp_path,
        """\
        version: 1
        web_search:
          type: web_search_2025_08_26
          search_context_size: low
          filters: {allowed_domains: [docs.python.org]}
          user_location: {city: Prague, country: CZ, region: Prague, timezone: Europe/Prague}
        """,
    )
    registry, result = load_manifests([path])
    assert result.ok, result.diagnostics
    search = registry.web_search()
    assert (search.type, search.search_context_size, search.allowed_domains) == (
        "web_search_2025_08_26",
        "low",
        ("docs.python.org",),
    )
    assert search.user_location == {
        "city": "Prague",
        "country": "CZ",
        "region": "Prague",
        "timezone": "Europe/Prague",
    }
    assert search.bundle == "tools"
    (web,) = export_tools(registry, "openai-responses")
    assert web["user_location"]["timezone"] == "Europe/Prague"
    assert web["filters"] == {"allowed_domains": ["docs.python.org"]}


def test_the_flat_location_keeps_working_and_takes_a_timezone(tmp_path):
    path = manifest(
        tmp_path,
        "version: 1\nweb_search: {type: default, city: Prague, timezone: Europe/Prague}\n",
    )
    registry, result = load_manifests([path])
    assert result.ok
    assert export_tools(registry, "openai-responses") == [
        {
            "type": "web_search_preview",
            "user_location": {"type": "approximate", "city": "Prague", "timezone": "Europe/Prague"},
        }
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "web_search:\n  type: web_search_preview\n  filters: {allowed_domains: [a.org]}\n",
            "4:12 TD118 web search type 'web_search_preview' has no domain filters; "
            "use type web_search to limit the search to allowed_domains",
        ),
        (
            "web_search:\n  city: Prague\n  user_location: {country: CZ}\n",
            "4:18 TD118 give the location either as user_location or as city directly "
            "under web_search, not both",
        ),
        (
            "web_search: {type: web_search_2025}\n",
            "2:20 TD213 \"web_search_2025\" is not allowed; did you mean 'web_search_2025_08_26'? "
            '("web_search_2025" is not one of "default", "web_search", "web_search_2025_08_26", '
            '"web_search_preview", "web_search_preview_2025_03_11")',
        ),
        (
            "web_search: {search_context_size: huge}\n",
            '2:35 TD213 "huge" is not one of "low", "medium", "high"',
        ),
        (
            "web_search: {type: web_search, filters: {allowed_domains: []}}\n",
            "2:59 TD213 [] should be non-empty",
        ),
    ],
)
def test_web_search_mistakes_are_located(tmp_path, body, expected):
    assert problems(manifest(tmp_path, "version: 1\n" + body)) == [expected]


def test_require_approval_and_allowed_tools_from_yaml(tmp_path):
    path = manifest(
        tmp_path,
        """\
        version: 1
        mcp_servers:
          - name: github
            url: https://mcp.example.com/mcp
            allowed_tools: [search_issues, create_issue]
            require_approval:
              always: [create_issue]
              never: {tool_names: [search_issues], read_only: true}
          - name: docs
            url: https://mcp.example.com/docs
            require_approval: always
          - {name: plain, url: "https://mcp.example.com/plain"}
          - {name: risky, url: "https://mcp.example.com/risky", side_effects: true}
        """,
    )
    registry, result = load_manifests([path])
    assert result.ok, result.diagnostics
    github, docs, plain, risky = export_tools(registry, "openai-responses")
    assert github["allowed_tools"] == ["search_issues", "create_issue"]
    assert github["require_approval"] == {
        "always": {"tool_names": ["create_issue"]},
        "never": {"tool_names": ["search_issues"], "read_only": True},
    }
    assert docs["require_approval"] == "always"
    assert "require_approval" not in plain  # the provider's default (it asks), never "never"
    assert risky["require_approval"] == "always"  # its tools have side effects


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        (
            "{name: gh, url: 'https://x.org/mcp', require_approval: sometimes}",
            '3:60 TD213 "sometimes" is not valid here; examples: "always", '
            '{"always": ["create_issue"], "never": ["search_issues"]}, '
            '{"never": {"read_only": true}}',
        ),
        (
            "{name: gh, url: 'https://x.org/mcp', require_approval: {always: [a], never: [a]}}",
            "3:60 TD114 MCP server 'gh': require_approval lists a under both always and never",
        ),
        (
            "{name: t, command: mcp-server-time, require_approval: never}",
            "3:59 TD114 MCP server 't': require_approval applies to via=hosted (the provider "
            "asks); approve a via=client server's calls with side_effects",
        ),
    ],
)
def test_require_approval_mistakes_are_located(tmp_path, server, expected):
    assert problems(manifest(tmp_path, f"version: 1\nmcp_servers:\n  - {server}\n")) == [expected]


@pytest.mark.parametrize(("value", "strict"), [("true", True), ("false", False), ("auto", None)])
def test_strict_auto_true_false_from_yaml(tmp_path, value, strict):
    path = manifest(
        tmp_path,
        f"""\
        version: 1
        defaults: {{strict: {value}}}
        tools:
          - handler: tooldeck.handlers.files:read_file
          - handler: tooldeck.handlers.files:list_dir
            strict: {value}
        """,
    )
    registry, result = load_manifests([path])
    assert result.ok, result.diagnostics
    assert [spec.strict for spec in registry.tools()] == [strict, strict]


def test_properties_keys_declare_every_hosted_field(tmp_path):
    path = tmp_path / "app.properties"
    path.write_text(
        "WebSearchTool.type=web_search\nWebSearchTool.city=Prague\n"
        "WebSearchTool.timezone=Europe/Prague\nWebSearchTool.search_context_size=high\n"
        "WebSearchTool.allowed_domains=docs.python.org, peps.python.org\n"
        "MCP.name=Project\nMCP.url=https://example.org/mcp\nMCP.require_approval=always\n"
        "MCP.allowed_tools=search,fetch\n",
        encoding="utf-8",
    )
    config = load_config(path)
    assert config.diagnostics == ()
    search = config.web_search
    assert (search.timezone, search.search_context_size, search.allowed_domains) == (
        "Europe/Prague",
        "high",
        ("docs.python.org", "peps.python.org"),
    )
    (server,) = config.mcp_servers
    assert (server.require_approval, server.allowed_tools) == ("always", ("search", "fetch"))


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            "WebSearchTool.type=web_search_2025\n",
            "1:1 TD234 WebSearchTool.type: web search type 'web_search_2025' is not one of "
            "default, web_search, web_search_2025_08_26, web_search_preview, "
            "web_search_preview_2025_03_11",
        ),
        (
            "WebSearchTool.type=default\nWebSearchTool.search_context_size=huge\n",
            "2:1 TD234 WebSearchTool.search_context_size: web search search_context_size 'huge' "
            "is not one of low, medium, high",
        ),
        (
            "WebSearchTool.type=default\nWebSearchTool.allowed_domains=a.org\n",
            "2:1 TD234 WebSearchTool.allowed_domains: web search type 'web_search_preview' has "
            "no domain filters; use type web_search to limit the search to allowed_domains",
        ),
        (
            "MCP.name=P\nMCP.url=https://x.org/mcp\nMCP.require_approval=sometimes\n",
            "3:1 TD234 MCP: MCP server 'P': require_approval is 'sometimes'; "
            "use always, never or per-tool lists",
        ),
    ],
)
def test_properties_values_the_provider_would_refuse_are_td234(tmp_path, lines, expected):
    path = tmp_path / "app.properties"
    path.write_text(lines, encoding="utf-8")
    config = load_config(path)
    assert [
        f"{d.location.line}:{d.location.column} {d.code} {d.message}" for d in config.diagnostics
    ] == [expected]
    assert config.web_search is None
    assert config.mcp_servers == ()
