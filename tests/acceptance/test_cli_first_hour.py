"""The first hour: init, project settings found by walking up, --version, schema --path, pipes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import SCRIPTS


def test_init_then_lint_then_call_works_at_once(tmp_path, run_line):
    done = run_line("init", cwd=tmp_path)
    assert done.exit_code == 0, done.output
    assert (tmp_path / "manifests" / "hello.yaml").is_file()
    assert "[tool.tooldeck]" in (tmp_path / "pyproject.toml").read_text()
    lint = run_line("lint", cwd=tmp_path)
    assert lint.exit_code == 0, lint.output
    assert "0 errors" in lint.stdout or "no problems" in lint.stdout
    call = run_line("call", "greet", "--args", '{"name": "Ada"}', cwd=tmp_path)
    assert (call.exit_code, call.stdout.strip()) == (0, "Hello, Ada!")


def test_init_points_editors_at_the_projects_copy_of_the_schema(tmp_path, run_line):
    """A relative path into the project: it still works after a commit and a clone."""
    done = run_line("init", cwd=tmp_path)
    assert "schemas/tooldeck.schema.json" in done.stdout
    first = (tmp_path / "manifests" / "hello.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/tooldeck.schema.json"
    copy = (tmp_path / "schemas" / "tooldeck.schema.json").read_text(encoding="utf-8")
    assert copy == run_line("schema").stdout
    path = Path(run_line("schema", "--path").stdout.strip())
    assert json.loads(path.read_text())["$schema"].startswith("https://json-schema.org/")


def test_init_never_overwrites_and_appends_to_an_existing_pyproject(tmp_path, run_line):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mine"', encoding="utf-8")
    assert run_line("init", cwd=tmp_path).exit_code == 0
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith('[project]\nname = "mine"\n')
    assert 'allow_handlers = ["hello_tools"]' in text
    again = run_line("init", cwd=tmp_path)
    assert again.exit_code == 2
    assert "not overwriting" in again.stderr


def test_settings_are_found_from_a_subfolder_and_flags_win(tmp_path, run_line):
    run_line("init", cwd=tmp_path)
    deep = tmp_path / "src" / "deeper"
    deep.mkdir(parents=True)
    listing = run_line("list", "--json", cwd=deep)
    assert [t["name"] for t in json.loads(listing.stdout)["tools"]] == ["greet"]
    other = tmp_path / "other.yaml"
    other.write_text(
        textwrap.dedent(
            """\
            version: 1
            tools:
              - name: info
                description: Describe one file of the project, size and kind.
                handler: tooldeck.handlers.files:file_info
                params:
                  - {name: path, type: string, required: true, description: Which file}
            """
        ),
        encoding="utf-8",
    )
    flagged = run_line("list", "--json", "-m", str(other), cwd=deep)
    assert [t["name"] for t in json.loads(flagged.stdout)["tools"]] == ["info"]


def test_a_standalone_tooldeck_yaml_works_too(tmp_path, run_line):
    run_line("init", cwd=tmp_path)
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "tooldeck.yaml").write_text(
        "manifests: [manifests]\nallow_handlers: [hello_tools]\n", encoding="utf-8"
    )
    assert run_line("lint", cwd=tmp_path).exit_code == 0


def test_bad_settings_are_located_and_stop_the_command(tmp_path, run_line):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tooldeck]\nmanifests = "m"\nallow_handlers = 3\nmanifets = []\n', encoding="utf-8"
    )
    done = run_line("lint", cwd=tmp_path)
    assert done.exit_code == 2
    assert f"{tmp_path / 'pyproject.toml'}:3:1: TD240 allow_handlers must be" in done.stderr
    assert "unknown setting(s) manifets" in done.stderr


def test_version(run_line):
    done = run_line("--version")
    assert done.exit_code == 0
    assert done.stdout.startswith("tooldeck ")


def test_list_says_why_a_bundle_is_not_active(tmp_path, run_line):
    path = tmp_path / "off.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            version: 1
            bundle: orders
            enabled_when: features.orders
            tools:
              - name: info
                description: Describe one file of the project, size and kind.
                handler: tooldeck.handlers.files:file_info
                params:
                  - {name: path, type: string, required: true, description: Which file}
            """
        ),
        encoding="utf-8",
    )
    refused = run_line("list", "-m", str(path))  # nothing would load: it says why
    assert refused.exit_code == 1
    assert "bundle orders is not active: enabled_when 'features.orders' is false" in (
        refused.stderr
    )
    done = run_line("list", "--allow-errors", "-m", str(path))
    assert "bundle orders" in done.stdout
    assert "is not active: enabled_when 'features.orders' is false" in done.stdout
    data = json.loads(run_line("list", "--allow-errors", "--json", "-m", str(path)).stdout)
    assert data["inactive_bundles"][0]["bundle"] == "orders"


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    """`tooldeck list --json | head -1`: no traceback, no "Exception ignored" at exit.

    The listing is made larger than a pipe's buffer, so the writer really meets the
    closed pipe.
    """
    tools = "".join(
        f"  - name: info_{i}\n"
        "    description: Describe one file of the project, its size and its kind.\n"
        "    handler: tooldeck.handlers.files:file_info\n"
        "    params:\n"
        "      - {name: path, type: string, required: true, description: Which file to describe}\n"
        for i in range(600)
    )
    manifest = tmp_path / "many.yaml"
    manifest.write_text(f"version: 1\ntools:\n{tools}", encoding="utf-8")
    producer = subprocess.Popen(
        [str(SCRIPTS / "tooldeck"), "list", "--json", "-m", str(manifest)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert producer.stdout is not None
    producer.stdout.readline()
    producer.stdout.close()  # the reader goes away after one line
    _, err = producer.communicate(timeout=120)
    assert b"Traceback" not in err, err.decode()
    assert b"Exception ignored" not in err, err.decode()
    assert producer.returncode == 0


def test_python_m_version():
    done = subprocess.run(
        [sys.executable, "-m", "tooldeck", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert done.stdout.startswith("tooldeck ")


def test_lint_settings_in_a_standalone_tooldeck_yaml(tmp_path, run_line):
    run_line("init", cwd=tmp_path)
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "tooldeck.yaml").write_text(
        "manifests: [manifests]\nallow_handlers: [hello_tools]\n"
        "lint: {min_description_length: 500}\n",
        encoding="utf-8",
    )
    done = run_line("lint", "--strict", cwd=tmp_path)
    assert done.exit_code == 1
    assert "TD402" in done.stdout  # the threshold came from tooldeck.yaml


@pytest.mark.parametrize(
    "text",
    [
        "[tool.tooldeck]\nmanifests = " + "[" * 20_000 + "]" * 20_000 + "\n",
        'tool = "x"\n',
        "[tool.tooldeck]\nlint = 3\n",
        "[tool.tooldeck.lint]\nseverity = [1]\n",
        "[tool.tooldeck.lint]\nseverity = {TD402 = 3}\n",
        "[tool.tooldeck]\nmanifests = [\n",
    ],
    ids=[
        "nested too deep",
        "tool not a table",
        "lint not a table",
        "severity a list",
        "level a number",
        "broken toml",
    ],
)
def test_hostile_project_settings_are_reported_never_a_traceback(tmp_path, run_line, text):
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    manifests = Path(__file__).resolve().parents[2] / "manifests"
    done = run_line("lint", "-m", str(manifests), cwd=tmp_path)
    assert done.exit_code in (0, 1, 2)
    assert "Traceback" not in done.output


def test_init_never_writes_through_a_symlink_and_reports_os_errors(tmp_path, run_line):
    outside = tmp_path / "outside.py"
    project = tmp_path / "p"
    project.mkdir()
    (project / "hello_tools.py").symlink_to(outside)  # dangling: exists() would say no
    done = run_line("init", str(project))
    assert done.exit_code == 2
    assert "not overwriting" in done.stderr
    assert not outside.exists()
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    done = run_line("init", str(blocked / "sub"))
    assert done.exit_code == 2
    assert "cannot create the starter" in done.stderr
