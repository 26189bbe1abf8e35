"""The real console script, driven in subprocesses."""

import json
import subprocess
import sys

from tests.conftest import ROOT


def test_list_shows_bundled_tools(run_cli):
    done = run_cli("list")
    assert done.returncode == 0, done.stderr
    assert "read_file(path, [start_line], [max_lines])" in done.stdout
    listed = json.loads(run_cli("list", "--json").stdout)
    assert {t["name"] for t in listed["tools"]} >= {
        "read_file",
        "list_dir",
        "search_text",
        "file_info",
    }


def test_call_prints_result_and_exits_zero(run_cli, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    done = run_cli(
        "call", "read_file", "--args", '{"path": "notes.txt"}', "--project-dir", str(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "alpha\nbeta\n"


def test_call_error_exits_non_zero_with_message(run_cli, tmp_path):
    done = run_cli(
        "call", "read_file", "--args", '{"path": "../outside"}', "--project-dir", str(tmp_path)
    )
    assert done.returncode == 1
    assert "outside the project directory" in done.stderr
    bad_json = run_cli("call", "read_file", "--args", "{nope")
    assert bad_json.returncode == 1
    assert "not valid JSON" in bad_json.stderr
    unknown = run_cli("call", "read_fil")
    assert unknown.returncode == 1
    assert "Did you mean 'read_file'?" in unknown.stderr


def test_usage_errors_exit_two(run_cli):
    assert run_cli().returncode == 2
    assert run_cli("frobnicate").returncode == 2


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
