"""``tooldeck`` over manifests: lint for CI, list, call, export, schema, flags (in-process)."""

import json
import textwrap

import jsonschema
import pytest

from tests.conftest import ROOT

GOOD = """\
version: 1
bundle: orders
tools:
  - name: read_notes
    handler: tooldeck.handlers.files:read_file
    description: Read the notes file of an order from the project folder.
    params:
      - {name: path, type: string, description: "File path relative to the project"}
"""

BROKEN = """\
version: 1
tools:
  - name: first
    handler: tooldeck.handlers.files:read_file
    description: Read a file of the project as plain text lines.
  - name: second
    handler: os:system
    description: Run a shell command on the machine.
"""

WARNS = """\
version: 1
tools:
  - name: peek
    handler: tooldeck.handlers.files:file_info
    description: Peek.
"""


def write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# ----------------------------------------------------------------------- lint
def test_lint_clean_manifests_exit_zero(run_line, tmp_path):
    write(tmp_path, "good.yaml", GOOD)
    done = run_line("lint", str(tmp_path))
    assert done.exit_code == 0, done.stdout + done.stderr
    assert "no problems in 1 file" in done.stdout


def test_lint_errors_exit_one_with_located_lines(run_line, tmp_path):
    path = write(tmp_path, "broken.yaml", BROKEN)
    done = run_line("lint", str(path))
    assert done.exit_code == 1
    assert f"{path}:7:14: TD310 handler module 'os' is not allowed" in done.stdout
    assert "1 error" in done.stdout


def test_lint_warnings_pass_unless_strict(run_line, tmp_path):
    path = write(tmp_path, "warns.yaml", WARNS)
    done = run_line("lint", str(path))
    assert done.exit_code == 0
    assert f"{path}:5:18: TD402 [warning]" in done.stdout
    assert run_line("lint", "--strict", str(path)).exit_code == 1


def test_lint_severity_is_configurable_in_pyproject(run_line, tmp_path):
    write(tmp_path, "warns.yaml", WARNS)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.tooldeck.lint]\nmin_description_length = 3\n"
        '[tool.tooldeck.lint.severity]\nTD402 = "error"\n',
        encoding="utf-8",
    )
    assert run_line("lint", "warns.yaml", cwd=tmp_path).exit_code == 0  # 5 chars >= 3
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tooldeck.lint.severity]\nTD402 = "error"\n', encoding="utf-8"
    )
    done = run_line("lint", "warns.yaml", cwd=tmp_path)
    assert done.exit_code == 1
    assert "TD402 tool 'peek' description" in done.stdout


def test_lint_formats(run_line, tmp_path):
    path = write(tmp_path, "broken.yaml", BROKEN)
    as_json = json.loads(run_line("lint", "--format", "json", str(path)).stdout)
    (diagnostic,) = as_json["diagnostics"]
    assert (diagnostic["code"], diagnostic["line"], diagnostic["column"]) == ("TD310", 7, 14)
    assert diagnostic["json_path"] == "$.tools[1].handler"
    github = run_line("lint", "--format", "github", str(path)).stdout
    assert github.startswith(f"::error file={path},line=7,col=14,title=TD310::")
    sarif = json.loads(run_line("lint", "--format", "sarif", str(path)).stdout)
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "TD310"
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 7,
        "startColumn": 14,
    }


def test_lint_usage_errors_exit_two(run_line, tmp_path):
    assert run_line("lint", "--format", "xml", str(tmp_path)).exit_code == 2
    done = run_line("lint", cwd=tmp_path)  # no ./manifests here
    assert done.exit_code == 2
    assert "no ./manifests folder" in done.stderr


def test_lint_missing_path_is_an_error(run_line, tmp_path):
    done = run_line("lint", str(tmp_path / "nope.yaml"))
    assert done.exit_code == 1
    assert "TD200 no such file or directory" in done.stdout


def test_lint_the_bundled_manifests_cleanly(run_line):
    done = run_line("lint", "--strict")
    assert done.exit_code == 0, done.stdout


# ----------------------------------------------------------------------- list
def test_list_json_shows_bundle_params_source_and_tokens(run_line, tmp_path):
    write(tmp_path, "good.yaml", GOOD)
    listing = json.loads(run_line("list", "-m", str(tmp_path), "--json").stdout)
    (tool,) = listing["tools"]
    assert tool["name"] == "read_notes"
    assert tool["bundle"] == "orders"
    assert tool["source"] == f"{tmp_path / 'good.yaml'}:4:5"
    assert tool["params"] == [
        {
            "name": "path",
            "type": "string",
            "required": True,
            "description": "File path relative to the project",
        }
    ]
    assert 20 < tool["tokens"] < 200


SCOPED = """
version: 1
auth: {scopes: [notes:read]}
tools:
  - name: my_notes
    handler: tooldeck.handlers.files:read_file
    description: Read the signed-in user's notes file in the project.
    auth: {scopes: [notes:own]}
    params:
      - name: path
        description: The user's notes file, named in their token.
        from_auth: notes_file
"""


def test_list_shows_what_a_caller_needs(run_line, tmp_path):
    write(tmp_path, "scoped.yaml", SCOPED)
    listing = json.loads(run_line("list", "-m", str(tmp_path), "--json").stdout)
    (tool,) = listing["tools"]
    assert tool["scopes"] == ["notes:read", "notes:own"]
    assert tool["from_auth"] == [{"name": "path", "claim": "notes_file"}]
    assert tool["params"] == []  # filled from the token: never the model's to send
    shown = run_line("list", "-m", str(tmp_path)).stdout
    assert "needs scopes: notes:read, notes:own" in shown
    assert "path: from the caller's token (notes_file)" in shown


def test_list_reports_broken_files_but_shows_the_rest(run_line, tmp_path):
    write(tmp_path, "a_good.yaml", GOOD)
    write(tmp_path, "b_broken.yaml", BROKEN)
    refused = run_line("list", "-m", str(tmp_path))  # errors: not started unless asked
    assert refused.exit_code == 1
    assert "TD310" in refused.stderr
    assert "not started: 1 error in" in refused.stderr
    assert refused.stdout == ""
    done = run_line("list", "--allow-errors", "-m", str(tmp_path))
    assert done.exit_code == 1
    assert "read_notes(path)" in done.stdout
    assert "TD310" in done.stderr
    assert "first" not in done.stdout  # a file with errors is not registered at all


def test_repeatable_manifests_flag(run_line, tmp_path):
    one = write(tmp_path, "one.yaml", GOOD)
    two = write(
        tmp_path, "two.yaml", GOOD.replace("orders", "more").replace("read_notes", "read_more")
    )
    listing = json.loads(run_line("list", "-m", str(one), "-m", str(two), "--json").stdout)
    assert [t["name"] for t in listing["tools"]] == ["read_notes", "read_more"]


def test_env_values_are_secret_in_list_and_export(run_line, tmp_path):
    write(
        tmp_path,
        "mcp.yaml",
        """\
        version: 1
        tools:
          - name: read_notes
            handler: tooldeck.handlers.files:read_file
            description: "Read notes; server token ${env:TD_TOKEN}"
        mcp_servers:
          - name: project
            url: https://example.org/mcp
            authorization: "Bearer ${env:TD_TOKEN}"
            description: Project tools
        """,
    )
    env = {"TD_TOKEN": "s3cr3t-value"}
    listed = run_line("list", "-m", str(tmp_path), "--json", env=env).stdout
    exported = run_line(
        "export", "--provider", "openai-responses", "-m", str(tmp_path), env=env
    ).stdout
    for output in (listed, exported):
        assert "s3cr3t-value" not in output
        assert "***" in output


# ----------------------------------------------------------------------- call
def test_call_a_manifest_tool(run_line, tmp_path):
    write(tmp_path, "good.yaml", GOOD)
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    done = run_line(
        "call",
        "read_notes",
        "--args",
        '{"path": "notes.txt"}',
        "-m",
        str(tmp_path),
        "--project-dir",
        str(tmp_path),
    )
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "hello\n"
    bad = run_line("call", "read_notes", "--args", '{"path": 3}', "-m", str(tmp_path))
    assert bad.exit_code == 1
    assert "$.path: expected string, got integer 3" in bad.stderr


def test_allow_handlers_flag_extends_the_allow_list(run_line, tmp_path):
    manifest = write(
        tmp_path,
        "extra.yaml",
        """\
        version: 1
        tools:
          - name: now_ok
            handler: tests.manifests:payload
            description: Returns both versions' answers from the test helpers.
            params: []
        """,
    )
    refused = run_line("call", "now_ok", "-m", str(manifest))
    assert refused.exit_code == 1
    assert "TD310" in refused.stderr
    allowed = run_line("call", "now_ok", "-m", str(manifest), "--allow-handlers", "tests")
    assert allowed.exit_code == 0, allowed.stderr
    assert json.loads(allowed.stdout) == {"old": "v1", "new": "v2"}


def test_config_file_feeds_interpolation_and_enabled_when(run_line, tmp_path):
    write(
        tmp_path,
        "orders.yaml",
        """\
        version: 1
        enabled_when: config.features.orders
        tools:
          - name: read_notes
            handler: tooldeck.handlers.files:read_file
            description: "Read the notes of region ${config:shop.region}."
        """,
    )
    on = tmp_path / "on.yaml"
    on.write_text("features: {orders: true}\nshop: {region: eu-west}\n", encoding="utf-8")
    off = tmp_path / "off.properties"
    off.write_text("features.orders=\nshop.region=us\n", encoding="utf-8")
    manifests = tmp_path / "orders.yaml"
    listing = json.loads(
        run_line("list", "-m", str(manifests), "--config", str(on), "--json").stdout
    )
    assert listing["tools"][0]["description"] == "Read the notes of region eu-west."
    listing = json.loads(
        run_line(
            "list", "--allow-errors", "-m", str(manifests), "--config", str(off), "--json"
        ).stdout
    )
    assert listing["tools"] == []


def test_properties_config_declares_web_search_and_mcp(run_line, tmp_path):
    write(tmp_path, "good.yaml", GOOD)
    props = tmp_path / "app.properties"
    props.write_text(
        "WebSearchTool.type=default\nWebSearchTool.city=Prague\n"
        "MCP.url=https://example.org/mcp\nMCP.name=Project MCP\n"
        "MCP.authorization=Bearer your-token\n",
        encoding="utf-8",
    )
    exported = json.loads(
        run_line(
            "export", "--provider", "openai-responses", "-m", str(tmp_path), "--config", str(props)
        ).stdout
    )
    kinds = [d["type"] for d in exported]
    assert kinds == ["function", "web_search_preview", "mcp"]
    assert exported[2]["server_label"] == "Project MCP"


# --------------------------------------------------------------------- export
@pytest.mark.parametrize(
    ("provider", "name_of"),
    [
        ("openai-chat", lambda d: d["function"]["name"]),
        ("openai-responses", lambda d: d["name"]),
        ("anthropic", lambda d: d["name"]),
        ("gemini", lambda d: d["name"]),
        ("mcp", lambda d: d["name"]),
    ],
)
def test_export_each_provider(run_line, provider, name_of):
    done = run_line("export", "--provider", provider)
    assert done.exit_code == 0, done.stderr
    definitions = json.loads(done.stdout)
    assert [name_of(d) for d in definitions] == [  # the bundled read-only tools
        "read_file",
        "list_dir",
        "search_text",
        "file_info",
        "git_status",
        "git_diff",
        "git_log",
        "git_show",
    ]


def test_export_strict_marks_openai_definitions(run_line):
    definitions = json.loads(run_line("export", "--provider", "openai-chat", "--strict").stdout)
    function = definitions[0]["function"]
    assert function["strict"] is True
    assert set(function["parameters"]["required"]) == set(function["parameters"]["properties"])


# --------------------------------------------------------------------- schema
def test_schema_prints_the_published_meta_schema(run_line):
    done = run_line("schema")
    assert done.exit_code == 0
    printed = json.loads(done.stdout)
    on_disk = json.loads((ROOT / "schemas" / "manifest.schema.json").read_text(encoding="utf-8"))
    assert printed == on_disk
    jsonschema.Draft202012Validator.check_schema(printed)
