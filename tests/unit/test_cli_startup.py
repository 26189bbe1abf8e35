"""The CLI's start-up shortcuts change what runs, never what it prints or decides.

``tooldeck --help`` prints text rendered from the command table without
argparse; each run builds only the chosen command's options; one-shot
commands pause the garbage collector. Timing is measured by
benchmarks/startup.py, not here: these tests pin the behaviour.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck.cli import _main
from tooldeck.cli._main import COMMAND_HELP, build_parser, main, top_level_help

ROOT = Path(__file__).resolve().parents[2]

COMMAND_LINES = [
    ["lint"],
    ["lint", "a.yaml", "b", "--format", "json", "--strict", "-m", "x", "--allow-handlers", "p"],
    ["list", "--json", "--config", "c.yaml", "--project-dir", "/tmp"],
    ["call", "read_file", "--args", '{"path": "x"}', "--yes"],
    ["chat", "--model", "m", "--api", "chat", "--tool", "t", "--max-turns", "3", "hi"],
    ["export", "--provider", "anthropic", "--strict"],
    ["dev", "--reload-handlers", "-m", "m"],
    ["schema"],
]


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal wide enough that argparse wraps nothing."""
    monkeypatch.setenv("COLUMNS", "200")


@pytest.mark.usefixtures("wide")
def test_top_level_help_is_what_argparse_renders_on_a_wide_terminal() -> None:
    parser = build_parser()
    assert argparse.ArgumentParser.format_help(parser) == top_level_help()
    assert parser.format_help() == top_level_help()


def test_top_level_help_lists_every_command_once() -> None:
    text = top_level_help()
    assert text.startswith("usage: tooldeck [-h] [--version] COMMAND ...\n")
    for name, help_text in COMMAND_HELP.items():
        assert f"    {name.ljust(6)}    {help_text}\n" in text
    assert set(COMMAND_HELP) == set(_main._COMMAND_MODULES)
    for name in COMMAND_HELP:  # every command module has the two entry points
        module = _main._command(name)
        assert callable(module.add_arguments)
        assert callable(module.run)


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["-h", "lint"], ["--hel"]])
def test_help_prints_the_table_and_exits_zero(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 0
    assert capsys.readouterr().out == top_level_help()


@pytest.mark.usefixtures("wide")
@pytest.mark.parametrize("command", sorted(COMMAND_HELP))
def test_a_command_built_alone_has_the_same_help(command: str) -> None:
    def command_help(parser: argparse.ArgumentParser) -> str:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        chosen: argparse.ArgumentParser = action.choices[command]
        return chosen.format_help()

    assert command_help(build_parser(only=command)) == command_help(build_parser())


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=" ".join)
def test_a_command_built_alone_parses_the_same(argv: list[str]) -> None:
    full = build_parser().parse_args(argv)
    alone = build_parser(only=_main._command_word(argv)).parse_args(argv)
    assert vars(alone) == vars(full)


@pytest.mark.parametrize(
    "argv",
    [[], ["frobnicate"], ["lint", "--format", "x"], ["call"], ["export"], ["lint", "--nope"]],
    ids=lambda argv: " ".join(argv) or "(nothing)",
)
def test_usage_errors_are_argparse_s(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as expected:
        build_parser().parse_args(argv)
    full = capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == expected.value.code == 2
    assert capsys.readouterr().err == full


def test_help_imports_no_command() -> None:
    """``tooldeck --help`` loads neither argparse nor anything a command needs."""
    code = (
        "import sys\n"
        "from tooldeck.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    unwanted = {"argparse", "yaml", "jsonschema", "json", "dataclasses", "tooldeck._diagnostics"}
    assert not loaded & unwanted
    assert not {m for m in loaded if m.startswith(("tooldeck._", "tooldeck.manifest"))} - {
        "tooldeck._version",
        "tooldeck._lazy",  # the package's own lazy name table: importlib only
    }


@pytest.mark.parametrize("enabled", [True, False])
def test_one_shot_commands_called_from_python_leave_the_collector_as_it_was(
    enabled: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert main(["schema"]) == 0
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
    assert '"$schema"' in capsys.readouterr().out


def test_console_script_lint_still_finds_problems(tmp_path: Path) -> None:
    """With the collector paused for the whole process, lint reports as before."""
    manifest = tmp_path / "tools.yaml"
    manifest.write_text(
        "version: 1\ntools:\n  - name: read\n    handler: tooldeck.handlers.files:read_file\n"
        "    description: Reads.\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [str(Path(sys.executable).parent / "tooldeck"), "lint", str(manifest), "--strict"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "TD402" in done.stdout
