"""`tooldeck export`: strict auto|true|false, selection by bundle/tag/tool, warnings on stderr."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"
HOSTED = ["-m", str(GOLDEN / "hosted.yaml"), "--allow-handlers", "tests.unit.providers"]


def strict_flags(definitions: list[dict]) -> dict[str, object]:
    return {d["name"]: d["strict"] for d in definitions if d["type"] == "function"}


def test_strict_defaults_to_auto_with_a_warning_for_what_cannot_be(run_line):
    done = run_line("export", "--provider", "openai-responses", *HOSTED)
    assert done.exit_code == 0, done.stderr
    assert strict_flags(json.loads(done.stdout)) == {
        "summarize_page": True,
        "annotate_page": False,
        "fetch_page": False,  # strict: false in the manifest
    }
    assert done.stderr == (
        "tooldeck: warning: tool 'annotate_page' (openai-responses) goes out non-strict "
        "(strict: auto): #/properties/notes: a free-form object cannot be strict; "
        "declare its properties\n"
    )
    assert (
        json.loads(done.stdout)
        == json.loads((GOLDEN / "hosted.openai-responses.json").read_text(encoding="utf-8"))[
            "definitions"
        ]
    )


@pytest.mark.parametrize(
    ("flags", "expected", "warned"),
    [
        (["--strict"], {"summarize_page": True, "annotate_page": False, "fetch_page": True}, 1),
        (
            ["--strict", "true"],
            {"summarize_page": True, "annotate_page": False, "fetch_page": True},
            1,
        ),
        (
            ["--strict", "false"],
            {"summarize_page": False, "annotate_page": False, "fetch_page": False},
            0,
        ),
        (
            ["--strict", "auto"],
            {"summarize_page": True, "annotate_page": False, "fetch_page": False},
            1,
        ),
    ],
)
def test_strict_modes(run_line, flags, expected, warned):
    done = run_line("export", "--provider", "openai-responses", *HOSTED, *flags)
    assert done.exit_code == 0, done.stderr
    assert strict_flags(json.loads(done.stdout)) == expected
    assert done.stderr.count("tooldeck: warning:") == warned
    if flags[-1] == "true" or flags == ["--strict"]:
        assert "(strict mode was asked for)" in done.stderr


def test_strict_alone_before_another_option_still_means_true(run_line):
    done = run_line("export", "--strict", "--provider", "openai-chat")
    assert done.exit_code == 0, done.stderr
    assert all(d["function"]["strict"] is True for d in json.loads(done.stdout))
    assert run_line("export", "--provider", "openai-chat", "--strict", "maybe").exit_code == 2


def test_hosted_entries_left_out_are_warned_about(run_line):
    done = run_line("export", "--provider", "anthropic", *HOSTED)
    assert done.exit_code == 0, done.stderr
    assert [d["name"] for d in json.loads(done.stdout)] == [
        "summarize_page",
        "annotate_page",
        "fetch_page",
    ]
    assert done.stderr.splitlines() == [
        "tooldeck: warning: hosted web search (web_search) left out: "
        "the anthropic export has no hosted tools",
        "tooldeck: warning: hosted MCP server 'github' left out: "
        "the anthropic export has no hosted tools",
        "tooldeck: warning: hosted MCP server 'docs' left out: "
        "the anthropic export has no hosted tools",
        "tooldeck: warning: hosted MCP server 'wiki' left out: "
        "the anthropic export has no hosted tools",
        "tooldeck: warning: hosted MCP server 'tickets' left out: "
        "the anthropic export has no hosted tools",
    ]


def write_two_bundles(tmp_path: Path) -> Path:
    (tmp_path / "files.yaml").write_text(
        textwrap.dedent(
            """\
            version: 1
            defaults: {tags: [read-only]}
            tools:
              - handler: tooldeck.handlers.files:read_file
              - handler: tooldeck.handlers.files:list_dir
                tags: [read-only, listing]
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "research.yaml").write_text(
        textwrap.dedent(
            """\
            version: 1
            enabled_when: config.research
            tools:
              - {name: deep_search, handler: "tooldeck.handlers.files:search_text"}
            """
        ),
        encoding="utf-8",
    )
    (tmp_path / "web.yaml").write_text(
        textwrap.dedent(
            """\
            version: 1
            tools:
              - handler: tooldeck.handlers.files:file_info
            web_search: {type: web_search, search_context_size: low}
            mcp_servers:
              - {name: docs, url: "https://mcp.example.com/docs"}
            """
        ),
        encoding="utf-8",
    )
    return tmp_path


def names(stdout: str) -> list[str]:
    return [d.get("name") or d.get("server_label") or d["type"] for d in json.loads(stdout)]


@pytest.mark.parametrize(
    ("selectors", "expected"),
    [
        (["--bundle", "files"], ["read_file", "list_dir"]),
        (["--tag", "listing"], ["list_dir"]),
        (["--tool", "read_file", "--tool", "file_info"], ["read_file", "file_info"]),
        (["--tag", "listing", "--bundle", "web"], ["list_dir", "file_info", "web_search", "docs"]),
        (["--tool", "web_search"], ["web_search"]),
        (["--tool", "docs", "--tool", "read_file"], ["read_file", "docs"]),
        ([], ["read_file", "list_dir", "file_info", "web_search", "docs"]),
    ],
)
def test_select_by_bundle_tag_and_tool(run_line, tmp_path, selectors, expected):
    root = write_two_bundles(tmp_path)
    done = run_line("export", "--provider", "openai-responses", "-m", str(root), *selectors)
    assert done.exit_code == 0, done.stderr
    assert names(done.stdout) == expected


@pytest.mark.parametrize(
    ("selectors", "message"),
    [
        (
            ["--bundle", "file"],
            "tooldeck: export: unknown bundle 'file'; the bundles here are: files, web\n",
        ),
        (
            ["--bundle", "research"],
            "tooldeck: export: unknown bundle 'research'; the bundles here are: files, web; "
            "bundle 'research' is not active here: enabled_when 'config.research' is false\n",
        ),
        (["--tag", "write"], "tooldeck: export: unknown tag 'write'; the tags here are: listing,"),
        (["--tool", "read_file", "--tool", "rm"], "tooldeck: export: unknown tool 'rm';"),
    ],
)
def test_a_selector_that_matches_nothing_is_a_usage_error(run_line, tmp_path, selectors, message):
    root = write_two_bundles(tmp_path)
    done = run_line("export", "--provider", "openai-chat", "-m", str(root), *selectors)
    assert done.exit_code == 2
    assert done.stdout == ""
    assert done.stderr.startswith(message)


def test_list_shows_every_web_search_field(run_line, tmp_path):
    root = write_two_bundles(tmp_path)
    listing = json.loads(run_line("list", "--json", "-m", str(root)).stdout)
    assert listing["web_search"] == {
        "type": "web_search",
        "city": None,
        "country": None,
        "region": None,
        "timezone": None,
        "search_context_size": "low",
        "allowed_domains": None,
    }
