"""``resolve_command``: the command word ``import mcp`` writes runs without an activated virtualenv.

Each case builds the folders it names (a virtualenv's ``bin``, a system folder on
``PATH``) with executable files in ``tmp_path`` and passes the environment,
the interpreter's scripts folders and whether it runs in a virtualenv explicitly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tooldeck._importers._command_path import activated_folders, resolve_command

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX executables")


def program(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def path_of(*folders: Path) -> str:
    return os.pathsep.join(str(folder) for folder in folders)


def test_a_script_of_the_activated_virtualenv_is_written_as_its_path(tmp_path: Path) -> None:
    venv_bin, system = tmp_path / ".venv" / "bin", tmp_path / "usr" / "bin"
    script = program(venv_bin, "mcp-server-time")
    program(system, "sh-only")
    environ = {"PATH": path_of(venv_bin, system), "VIRTUAL_ENV": str(tmp_path / ".venv")}
    resolved = resolve_command("mcp-server-time", environ=environ, scripts=(), in_virtualenv=False)
    assert resolved.command == str(script)
    assert resolved.note is not None
    assert "on PATH only while its environment is activated" in resolved.note


def test_the_running_virtualenv_counts_as_activated_without_virtual_env(tmp_path: Path) -> None:
    venv_bin = tmp_path / "venv" / "bin"
    script = program(venv_bin, "srv")
    environ = {"PATH": path_of(venv_bin)}
    inside = resolve_command("srv", environ=environ, scripts=[str(venv_bin)], in_virtualenv=True)
    assert inside.command == str(script)
    # The same folder of an interpreter that is not a virtualenv is an ordinary PATH entry.
    outside = resolve_command("srv", environ=environ, scripts=[str(venv_bin)], in_virtualenv=False)
    assert (outside.command, outside.note) == ("srv", None)


def test_a_word_not_on_path_is_found_in_the_interpreters_scripts_folder(tmp_path: Path) -> None:
    scripts, system = tmp_path / "venv" / "bin", tmp_path / "usr" / "bin"
    script = program(scripts, "mcp-server-time")
    program(system, "other")
    resolved = resolve_command(
        "mcp-server-time",
        environ={"PATH": path_of(system)},
        scripts=[str(scripts)],
        in_virtualenv=True,
    )
    assert resolved.command == str(script)
    assert resolved.note is not None
    assert "not on PATH" in resolved.note


def test_python_of_the_virtualenv_is_written_as_its_path_not_its_target(tmp_path: Path) -> None:
    """``python -m server``: the link's path is what runs with the virtualenv's packages."""
    system = tmp_path / "usr" / "bin"
    base = program(system, "python3")
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python3").symlink_to(base)
    environ = {"PATH": path_of(venv_bin, system), "VIRTUAL_ENV": str(tmp_path / "venv")}
    resolved = resolve_command("python3", environ=environ, scripts=(), in_virtualenv=False)
    assert resolved.command == str(venv_bin / "python3")


def test_a_word_a_plain_path_finds_as_the_same_file_is_kept(tmp_path: Path) -> None:
    """The virtualenv's folder also on PATH under another name (a symlinked folder)."""
    venv_bin = tmp_path / "venv" / "bin"
    program(venv_bin, "srv")
    alias = tmp_path / "alias-bin"
    alias.symlink_to(venv_bin, target_is_directory=True)
    environ = {"PATH": path_of(venv_bin, alias), "VIRTUAL_ENV": str(tmp_path / "venv")}
    resolved = resolve_command("srv", environ=environ, scripts=(), in_virtualenv=False)
    assert (resolved.command, resolved.note) == ("srv", None)


def test_another_program_of_that_name_on_a_plain_path_is_not_the_same(tmp_path: Path) -> None:
    venv_bin, system = tmp_path / "venv" / "bin", tmp_path / "usr" / "bin"
    script = program(venv_bin, "srv")
    program(system, "srv")
    environ = {"PATH": path_of(venv_bin, system), "CONDA_PREFIX": str(tmp_path / "venv")}
    resolved = resolve_command("srv", environ=environ, scripts=(), in_virtualenv=False)
    assert resolved.command == str(script)


@pytest.mark.parametrize("word", ["./server.py", "/opt/bin/srv", "bin/srv", "npx", "missing"])
def test_paths_programs_on_a_plain_path_and_unknown_words_are_kept(
    tmp_path: Path, word: str
) -> None:
    system, scripts = tmp_path / "usr" / "bin", tmp_path / "venv" / "bin"
    program(system, "npx")
    program(scripts, "srv")
    program(tmp_path / "bin", "srv")
    environ = {"PATH": path_of(system), "VIRTUAL_ENV": str(tmp_path / "venv")}
    resolved = resolve_command(word, environ=environ, scripts=[str(scripts)], in_virtualenv=True)
    assert (resolved.command, resolved.note) == (word, None)


def test_activated_folders_name_the_environments_bin_folders(tmp_path: Path) -> None:
    bin_name = "Scripts" if os.name == "nt" else "bin"
    environ = {"VIRTUAL_ENV": str(tmp_path / "a"), "CONDA_PREFIX": "", "PATH": ""}
    folders = activated_folders(environ, [str(tmp_path / "own")], in_virtualenv=True)
    assert folders == (str(tmp_path / "own"), str(tmp_path / "a" / bin_name))
    assert activated_folders({}, [str(tmp_path / "own")], in_virtualenv=False) == ()
