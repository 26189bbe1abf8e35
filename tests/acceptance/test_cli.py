"""The console script: smoke tests in real subprocesses, the rest in-process (``run_line``).

The subprocess tests are the ones only a real process can answer: the installed
entry point starts, ``python -m tooldeck`` is the same command, the exit status a
shell sees, the bundled manifests found from any directory.
"""

import json
import subprocess
import sys

from tests.conftest import ROOT

BUNDLED_TOOLS = {"read_file", "list_dir", "search_text", "file_info"}

GOOD = """\
version: 1
tools:
  - name: read_notes
    handler: tooldeck.handlers.files:read_file
    description: Read the notes file of an order from the project folder.
    params:
      - {name: path, type: string, description: "File path relative to the project"}
"""


# ------------------------------------------------------------ real processes
def test_help_starts_the_installed_script(run_cli):
    done = run_cli("--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: tooldeck")
    for command in ("lint", "list", "call", "export", "dev", "schema"):
        assert command in done.stdout


def test_list_finds_the_bundled_manifests_from_any_directory(run_cli, tmp_path):
    done = run_cli("list", "--json", cwd=tmp_path)  # no ./manifests here
    assert done.returncode == 0, done.stderr
    assert {t["name"] for t in json.loads(done.stdout)["tools"]} >= BUNDLED_TOOLS


def test_lint_exit_statuses_seen_by_a_shell(run_cli, tmp_path):
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(
        GOOD.replace("tooldeck.handlers.files", "os"), encoding="utf-8"
    )
    assert run_cli("lint", "good.yaml", cwd=tmp_path).returncode == 0
    bad = run_cli("lint", "bad.yaml", cwd=tmp_path)
    assert bad.returncode == 1
    assert "TD310" in bad.stdout
    usage = run_cli("lint", cwd=tmp_path)  # no ./manifests, no path
    assert usage.returncode == 2
    assert "no ./manifests folder" in usage.stderr


def test_call_prints_result_and_exits_zero(run_cli, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    done = run_cli(
        "call", "read_file", "--args", '{"path": "notes.txt"}', "--project-dir", str(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "alpha\nbeta\n"


def test_python_dash_m_engine_is_the_same_command():
    done = subprocess.run(
        [sys.executable, "-m", "tooldeck", "list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "search_text" in done.stdout


# -------------------------------------------------------------------- in-process
def test_list_shows_bundled_tools(run_line):
    done = run_line("list")
    assert done.exit_code == 0, done.stderr
    assert "read_file(path, [start_line], [max_lines])" in done.stdout
    listed = json.loads(run_line("list", "--json").stdout)
    assert {t["name"] for t in listed["tools"]} >= BUNDLED_TOOLS


def test_call_error_exits_non_zero_with_message(run_line, tmp_path):
    done = run_line(
        "call", "read_file", "--args", '{"path": "../outside"}', "--project-dir", str(tmp_path)
    )
    assert done.exit_code == 1
    assert "outside the project directory" in done.stderr
    bad_json = run_line("call", "read_file", "--args", "{nope")
    assert bad_json.exit_code == 1
    assert "not valid JSON" in bad_json.stderr
    unknown = run_line("call", "read_fil")
    assert unknown.exit_code == 1
    assert "Did you mean 'read_file'?" in unknown.stderr


def test_usage_errors_exit_two(run_line):
    assert run_line().exit_code == 2
    assert run_line("frobnicate").exit_code == 2
