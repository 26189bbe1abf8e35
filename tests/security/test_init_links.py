"""``tooldeck init`` never writes through a link, and a refusal writes nothing at all.

A folder someone else prepared may hold a symlinked ``manifests/`` (the starter would land
wherever it points), a ``pyproject.toml`` hard-linked to a file elsewhere (appending to it
changes that file as well) or a FIFO in its place (opening it for writing waits forever).
Each is refused with a message naming the path and exit code 2, and neither the project
nor what the link leads to changes. The descriptor layer is tested on its own too: with the
up-front check skipped (a swap just after it), the writes themselves still refuse, and
what was already created is removed again.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="POSIX links")


def tree(*roots: Path) -> dict[str, object]:
    """Everything under ``roots``: kind, target or content, and link count, by path."""
    found: dict[str, object] = {}
    for root in roots:
        for path in sorted([root, *root.rglob("*")]):
            info = path.lstat()
            if path.is_symlink():
                found[str(path)] = ("link", os.readlink(path))
            elif path.is_dir():
                found[str(path)] = ("dir",)
            elif path.is_file():
                found[str(path)] = ("file", path.read_bytes(), info.st_nlink)
            else:
                found[str(path)] = ("special",)
    return found


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    return project, outside


def refused(run_line, project: Path, outside: Path, *expected: str) -> None:
    before = tree(project, outside)
    done = run_line("init", str(project))
    assert done.exit_code == 2, done.output
    for words in expected:
        assert words in done.stderr
    assert "nothing was written" in done.stderr
    assert "Traceback" not in done.output
    assert tree(project, outside) == before


def test_a_symlinked_manifests_folder_is_refused(places, run_line):
    project, outside = places
    (project / "manifests").symlink_to(outside)
    refused(run_line, project, outside, f"{project / 'manifests'} is a symlink")


def test_a_dangling_symlinked_manifests_folder_is_refused(places, run_line):
    project, outside = places
    (project / "manifests").symlink_to(outside / "not-yet")
    refused(run_line, project, outside, f"{project / 'manifests'} is a symlink")
    assert not (outside / "not-yet").exists()


def test_a_relative_symlinked_manifests_folder_is_refused(places, run_line):
    project, outside = places
    (project / "manifests").symlink_to("../outside")
    refused(run_line, project, outside, f"{project / 'manifests'} is a symlink")


def test_a_hard_linked_pyproject_is_refused(places, run_line):
    project, outside = places
    (outside / "shared.toml").write_text('[project]\nname = "other"\n', encoding="utf-8")
    os.link(outside / "shared.toml", project / "pyproject.toml")
    refused(run_line, project, outside, f"{project / 'pyproject.toml'} has 2 hard links")


def test_a_pyproject_with_three_names_is_refused(places, run_line):
    project, outside = places
    (outside / "a.toml").write_text('[project]\nname = "other"\n', encoding="utf-8")
    os.link(outside / "a.toml", outside / "b.toml")
    os.link(outside / "a.toml", project / "pyproject.toml")
    refused(run_line, project, outside, "has 3 hard links")


def test_every_problem_is_named_at_once(places, run_line):
    project, outside = places
    (project / "manifests").symlink_to(outside)
    (outside / "shared.toml").write_text("", encoding="utf-8")
    os.link(outside / "shared.toml", project / "pyproject.toml")
    refused(run_line, project, outside, "is a symlink", "has 2 hard links")


def test_a_symlinked_pyproject_is_refused(places, run_line):
    """Already refused before; kept with its class."""
    project, outside = places
    (outside / "pyproject.toml").write_text("", encoding="utf-8")
    (project / "pyproject.toml").symlink_to(outside / "pyproject.toml")
    refused(run_line, project, outside, f"{project / 'pyproject.toml'} is a symlink")


def test_a_fifo_pyproject_is_refused_without_blocking(places):
    """Opening a FIFO for writing waits for a reader: a real process, under a deadline."""
    project, outside = places
    os.mkfifo(project / "pyproject.toml")
    before = tree(project, outside)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "tooldeck"), "init", str(project)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert f"{project / 'pyproject.toml'} is not a regular file" in done.stderr
    assert tree(project, outside) == before


# ------------------------------------------------------------------ swaps after the check
@pytest.fixture
def unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if each link appeared just after the up-front check: only the writes stand guard."""
    from tooldeck.cli import _nolinks

    monkeypatch.setattr(_nolinks, "refusals", lambda *_args: [])


def test_a_manifests_symlink_swapped_in_is_refused_by_the_write(places, run_line, unchecked):
    project, outside = places
    (project / "manifests").symlink_to(outside)
    refused(run_line, project, outside, f"{project / 'manifests'} is a symlink")


def test_a_hard_link_swapped_in_is_refused_and_the_new_files_removed(places, run_line, unchecked):
    project, outside = places
    (outside / "shared.toml").write_text('[project]\nname = "other"\n', encoding="utf-8")
    os.link(outside / "shared.toml", project / "pyproject.toml")
    refused(run_line, project, outside, "has 2 hard links")
    assert not (project / "manifests").exists()
    assert not (project / "hello_tools.py").exists()


def test_a_pyproject_symlink_swapped_in_is_refused_by_the_write(places, run_line, unchecked):
    project, outside = places
    (outside / "pyproject.toml").write_text("", encoding="utf-8")
    (project / "pyproject.toml").symlink_to(outside / "pyproject.toml")
    refused(run_line, project, outside, f"{project / 'pyproject.toml'} is a symlink")


def test_a_file_symlink_swapped_in_is_never_written_through(places, run_line, unchecked):
    project, outside = places
    (project / "hello_tools.py").symlink_to(outside / "planted.py")  # dangling
    refused(run_line, project, outside, "not overwriting")
    assert not (outside / "planted.py").exists()


def test_init_still_appends_to_a_plain_pyproject(places, run_line):
    project, _ = places
    (project / "pyproject.toml").write_text('[project]\nname = "mine"', encoding="utf-8")
    done = run_line("init", str(project))
    assert done.exit_code == 0, done.output
    text = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith('[project]\nname = "mine"\n\n[tool.tooldeck]\n')
    assert (project / "manifests" / "hello.yaml").is_file()
