"""Every file a project names is read without blocking and without end, or refused, located.

Manifests, the configuration (YAML, JSON, ``.properties``), ``pyproject.toml`` and
``tooldeck.yaml`` settings (project and lint) and ``tooldeck import`` input can each be
replaced by a FIFO (opening it waits for a writer, forever), a symlink to ``/dev/zero`` (read
until memory runs out) or another special file. Each command here must end promptly with a
located error naming what the file is, and no traceback. The commands run as real processes
under a time limit and an address-space limit, so a regression fails the test rather than
hanging it or exhausting the machine's memory.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.manifests import save, tools_yaml
from tooldeck._lint.runner import LintSettings, load_settings
from tooldeck._yaml.source import read_yaml

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX special files")

DEADLINE = 120.0
"""For one short command: about a second idle, over ten seen on a loaded 2-CPU machine."""
MEMORY = 4 * 1024**3

SPECIALS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (os.mkfifo, "a named pipe (FIFO)"),
    "dev-zero": (lambda p: p.symlink_to("/dev/zero"), "a character device"),
    "dev-urandom": (lambda p: p.symlink_to("/dev/urandom"), "a character device"),
}


def _capped() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def tooldeck(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real console script; a hang is a TimeoutExpired, a runaway read a MemoryError."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "tooldeck"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
        stdin=subprocess.DEVNULL,
        preexec_fn=_capped,  # only setrlimit, before exec
    )


def clean(done: subprocess.CompletedProcess[str]) -> str:
    output = done.stdout + done.stderr
    assert "Traceback" not in output
    assert "MemoryError" not in output
    return output


@pytest.fixture
def project(tmp_path: Path) -> Path:
    save(tmp_path / "manifests" / "tools.yaml", tools_yaml("alpha"))
    return tmp_path


def special(path: Path, kind: str) -> str:
    make, what = SPECIALS[kind]
    make(path)
    return f"it is {what}, not a regular file"


# ------------------------------------------------------------------ manifests
@pytest.mark.parametrize("kind", list(SPECIALS))
def test_lint_of_a_special_manifest_is_a_located_td200(project: Path, kind: str) -> None:
    why = special(project / "bad.yaml", kind)
    done = tooldeck("lint", "bad.yaml", cwd=project)
    assert done.returncode == 1
    assert f"bad.yaml:1:1: TD200 cannot read file: {why}" in clean(done)


@pytest.mark.parametrize("kind", list(SPECIALS))
def test_a_special_file_in_a_manifest_folder_is_reported_not_skipped(
    project: Path, kind: str
) -> None:
    why = special(project / "manifests" / "bad.yaml", kind)
    done = tooldeck("lint", "manifests", cwd=project)
    assert done.returncode == 1
    output = clean(done)
    if kind == "fifo":
        assert f"manifests/bad.yaml:1:1: TD200 cannot read file: {why}" in output
        assert "in 2 files" in output
    else:  # a link out of the folder is not followed at all (the static lint boundary)
        target = os.path.realpath(project / "manifests" / "bad.yaml")
        assert f"manifests/bad.yaml:1:1: TD200 manifests/bad.yaml is a link to {target}" in output


def test_a_symlinked_manifest_pointing_outside_its_folder_is_reported_not_read(
    project: Path,
) -> None:
    save(project / "elsewhere" / "real.yaml", tools_yaml("beta", description="short"))
    (project / "manifests" / "linked.yaml").symlink_to(project / "elsewhere" / "real.yaml")
    done = tooldeck("lint", "manifests", cwd=project)
    output = clean(done)
    assert done.returncode == 1
    assert "manifests/linked.yaml:1:1: TD200 manifests/linked.yaml is a link to" in output
    assert "TD402" not in output  # its short description: the file was not read
    named = tooldeck("lint", "manifests/linked.yaml", cwd=project)  # named on its own: read
    assert "TD402" in clean(named)


# ------------------------------------------------------------------ configuration
@pytest.mark.parametrize("suffix", [".yaml", ".json", ".properties"])
@pytest.mark.parametrize("kind", list(SPECIALS))
def test_a_special_config_is_a_located_td230(project: Path, kind: str, suffix: str) -> None:
    why = special(project / f"app{suffix}", kind)
    done = tooldeck("lint", "--config", f"app{suffix}", "manifests", cwd=project)
    assert done.returncode == 1
    assert f"app{suffix}:1:1: TD230 cannot read configuration file: {why}" in clean(done)


def test_a_config_folder_is_a_located_td230(project: Path) -> None:
    (project / "app.yaml").mkdir()
    done = tooldeck("lint", "--config", "app.yaml", "manifests", cwd=project)
    expected = "app.yaml:1:1: TD230 cannot read configuration file: it is a directory"
    assert expected in clean(done)


# ------------------------------------------------------------------ project and lint settings
@pytest.mark.parametrize("kind", list(SPECIALS))
def test_a_special_pyproject_is_a_located_td240(project: Path, kind: str) -> None:
    why = special(project / "pyproject.toml", kind)
    done = tooldeck("lint", cwd=project)
    assert done.returncode == 2
    if kind == "fifo":
        assert f"pyproject.toml:1:1: TD240 cannot read pyproject.toml: {why}" in clean(done)
    else:  # a settings file linked out of its folder is not followed at all
        assert "pyproject.toml:1:1: TD240 " in clean(done)
        assert f"pyproject.toml is a link to {os.path.realpath(project / 'pyproject.toml')}" in (
            clean(done)
        )


@pytest.mark.parametrize("kind", list(SPECIALS))
def test_a_special_tooldeck_yaml_is_a_located_error(project: Path, kind: str) -> None:
    why = special(project / "tooldeck.yaml", kind)
    done = tooldeck("lint", cwd=project)
    assert done.returncode == 2
    if kind == "fifo":
        assert f"tooldeck.yaml:1:1: TD200 cannot read file: {why}" in clean(done)
    else:  # a settings file linked out of its folder is not followed at all
        assert f"tooldeck.yaml is a link to {os.path.realpath(project / 'tooldeck.yaml')}" in (
            clean(done)
        )


@pytest.mark.parametrize("kind", list(SPECIALS))
def test_special_lint_settings_are_a_located_td400(tmp_path: Path, kind: str) -> None:
    """The lint settings reader on its own (the CLI reads the project settings first)."""
    why = special(tmp_path / "pyproject.toml", kind)
    settings, problems = load_settings(tmp_path)
    assert settings == LintSettings()
    (problem,) = problems
    assert (
        problem.format()
        == f"{tmp_path / 'pyproject.toml'}:1:1: TD400 cannot read lint settings: {why}"
    )


# ------------------------------------------------------------------ import input
@pytest.mark.parametrize("kind", list(SPECIALS))
def test_special_import_input_is_a_td500(project: Path, kind: str) -> None:
    why = special(project / "tools.json", kind)
    done = tooldeck(
        "import", "openai", "tools.json", "--handler-module", "m", "-o", "out.yaml", cwd=project
    )
    assert done.returncode == 2
    assert f"tools.json: TD500 cannot read the input: {why}" in clean(done)
    assert not (project / "out.yaml").exists()


# ------------------------------------------------------------------ the reader itself
def test_a_file_that_says_it_is_empty_is_still_read_only_to_the_cap(tmp_path: Path) -> None:
    """procfs files report size 0 and hold more: the cap holds on what is read, not on stat."""
    status = Path("/proc/self/status")
    if not status.is_file() or status.stat().st_size != 0:
        pytest.skip("needs a file whose size says 0 but which holds text (Linux procfs)")
    doc = read_yaml(status, max_bytes=64)
    (problem,) = doc.diagnostics
    assert problem.code == "TD201"
    assert problem.message == (
        "file grew past 64 bytes while being read; manifests are limited to 64"
    )


@pytest.mark.parametrize("use_proc", [True, False], ids=["O_PATH", "O_NONBLOCK"])
def test_both_ways_of_opening_refuse_special_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_proc: bool
) -> None:
    import tooldeck._readfile as readfile
    from tooldeck._readfile import Unreadable, read_bounded

    if use_proc and not readfile._PROC_FD:
        pytest.skip("no O_PATH and /proc here")
    monkeypatch.setattr(readfile, "_PROC_FD", use_proc)
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "file").write_bytes(b"x" * 10)
    for name, reason in (("fifo", "not_regular"), ("zero", "not_regular"), (".", "not_regular")):
        found = read_bounded(tmp_path / name, 100)
        assert isinstance(found, Unreadable)
        assert found.reason == reason
    assert read_bounded(tmp_path / "file", 10) == b"x" * 10
    too_large = read_bounded(tmp_path / "file", 9)
    assert isinstance(too_large, Unreadable)
    assert (too_large.reason, too_large.size, too_large.limit) == ("too_large", 10, 9)
    missing = read_bounded(tmp_path / "nothing", 9)
    assert isinstance(missing, Unreadable)
    assert missing.reason == "missing"
