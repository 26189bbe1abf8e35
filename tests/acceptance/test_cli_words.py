"""Words a user understands: counts that agree with their nouns, and no "seed" or "brief".

Through the real ``tooldeck`` command: the lint summary and rule messages, a call's
result, every command's help, the published schema and the configuration warnings.
"""

from __future__ import annotations

import pytest


# ------------------------------------------------------------------ counts that agree
def test_counts_printed_by_the_cli_agree_with_their_nouns(run_line, tmp_path):
    manifest = (
        "version: 1\ntools:\n"
        "  - name: peek\n"
        "    handler: tooldeck.handlers.files:read_file\n"
        "    description: Read.\n"
        "    params:\n"
        "      - {name: path, type: string, description: P}\n"
        "      - {name: max_lines, type: integer, default: 1, description: How many lines}\n"
    )
    (tmp_path / "tools.yaml").write_text(manifest, encoding="utf-8")
    done = run_line("lint", "tools.yaml", cwd=tmp_path)
    assert "TD402 [warning] tool 'peek' description is 5 characters" in done.stdout
    assert "TD404 [warning] parameter 'path' description is 1 character; write at least 8" in (
        done.stdout
    )
    assert done.stdout.endswith("0 errors, 2 warnings in 1 file\n")
    (tmp_path / "two.txt").write_text("one\ntwo\n", encoding="utf-8")
    read = run_line("call", "peek", "-m", "tools.yaml", "--project-dir", str(tmp_path),
                    "--args", '{"path": "two.txt"}', cwd=tmp_path)  # fmt: skip
    assert read.stdout == "one\n[... 1 more line; call again with start_line=2]\n", read.output


def test_the_plural_helper():
    from tooldeck._words import plural

    assert [plural(n, "note") for n in (0, 1, 2)] == ["0 notes", "1 note", "2 notes"]
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"
    assert plural(1000, "tool", grouped=True) == "1,000 tools"


# ------------------------------------------------------------ words a user understands
@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        *(
            [command, "--help"]
            for command in ("lint", "list", "call", "chat", "export", "dev", "serve", "schema")
        ),
        ["import", "openai", "--help"],
        ["import", "python", "--help"],
        ["import", "mcp", "--help"],
        ["schema"],
    ],
    ids=" ".join,
)
def test_cli_help_and_the_schema_never_say_seed_or_brief(run_line, argv):
    done = run_line(*argv)
    assert done.exit_code == 0, done.output
    words = done.output.lower()
    assert "seed" not in words
    assert "brief" not in words


def test_config_group_warnings_name_the_keys_not_the_seed(run_line, tmp_path):
    (tmp_path / "app.properties").write_text(
        "MCP_1.url=https://example.org/mcp\nWebSearchTool.city=Prague\n", encoding="utf-8"
    )
    (tmp_path / "tools.yaml").write_text("version: 1\n", encoding="utf-8")
    done = run_line("lint", "tools.yaml", "--config", "app.properties", cwd=tmp_path)
    assert (
        "app.properties:1:1: TD235 [warning] MCP_1 is ignored: the MCP_1.* keys register a "
        "server only when MCP_1.name is set"
    ) in done.output
    assert (
        "TD235 [warning] WebSearchTool is ignored: web search is enabled only when "
        "WebSearchTool.type is set"
    ) in done.output
    assert "seed" not in done.output.lower()
