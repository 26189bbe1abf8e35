"""The ``run_line`` fixture: ``tooldeck`` in-process, leaving the interpreter as it found it."""

import os
import sys
from pathlib import Path

MODULE = "td_run_line_probe"

MANIFEST = f"""\
version: 1
tools:
  - name: hello
    handler: {MODULE}:hello
    description: "Greet somebody by name; the greeting is ${{env:TD_RUN_LINE:-plain}}."
"""


def project(folder: Path, greeting: str) -> Path:
    folder.mkdir()
    (folder / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    (folder / f"{MODULE}.py").write_text(
        f'def hello(name: str) -> str:\n    """Greet."""\n    return {greeting + " "!r} + name\n',
        encoding="utf-8",
    )
    return folder


def test_exit_statuses_from_a_return_and_from_system_exit(run_line):
    assert run_line("schema").exit_code == 0  # main() returns 0
    usage = run_line("frobnicate")  # argparse raises SystemExit(2)
    assert usage.exit_code == 2
    assert "usage: tooldeck" in usage.stderr
    assert usage.stdout == ""
    assert run_line("--help").exit_code == 0


def test_each_call_is_a_fresh_process_as_far_as_imports_go(run_line, tmp_path):
    before = (list(sys.meta_path), list(sys.path), os.getcwd(), dict(os.environ))
    one = project(tmp_path / "one", "hello")
    two = project(tmp_path / "two", "goodbye")
    call = ("call", "hello", "-m", "tools.yaml", "--allow-handlers", MODULE)
    first = run_line(*call, "--args", '{"name": "Ada"}', cwd=one, env={"TD_RUN_LINE": "x"})
    assert (first.exit_code, first.stdout) == (0, "hello Ada\n"), first.stderr
    second = run_line(*call, "--args", '{"name": "Ada"}', cwd=two)
    assert (second.exit_code, second.stdout) == (0, "goodbye Ada\n"), second.stderr
    assert MODULE not in sys.modules
    assert (list(sys.meta_path), list(sys.path), os.getcwd(), dict(os.environ)) == before


def test_env_is_set_for_the_call_only(run_line, tmp_path):
    folder = project(tmp_path / "p", "hello")
    listed = run_line(
        "list",
        "-m",
        "tools.yaml",
        "--allow-handlers",
        MODULE,
        cwd=folder,
        env={"TD_RUN_LINE": "s3cr3t-v4lue"},
    )
    assert listed.exit_code == 0, listed.stderr
    assert "***" in listed.stdout
    assert "s3cr3t-v4lue" not in listed.output
    assert "TD_RUN_LINE" not in os.environ


def test_output_keeps_carriage_returns_as_written(run_line, tmp_path):
    folder = project(tmp_path / "p", "hello\r\n")
    done = run_line(
        "call",
        "hello",
        "-m",
        "tools.yaml",
        "--allow-handlers",
        MODULE,
        "--args",
        '{"name": "A"}',
        cwd=folder,
    )
    assert done.stdout == "hello\r\n A\n", done.stderr


def test_main_called_from_python_leaves_no_finder_behind(tmp_path, monkeypatch):
    """main(argv) takes out the project finder it added, so repeated calls leave sys alone."""
    import sys

    from tooldeck._importpath import ProjectFinder
    from tooldeck.cli import main

    monkeypatch.chdir(tmp_path)
    before = [f for f in sys.meta_path if isinstance(f, ProjectFinder)]
    assert main(["schema"]) == 0
    assert [f for f in sys.meta_path if isinstance(f, ProjectFinder)] == before
