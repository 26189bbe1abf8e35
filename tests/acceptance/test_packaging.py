"""The sdist and the wheel: what they hold, that they build without a warning, and that a wheel
built from a clone without symlink support installs and works.

The builds call setuptools' PEP 517 hooks (what ``python -m build`` and ``pip wheel`` call) in
this environment, as ``python -m build --no-isolation`` would: no isolated build environment to
download (the ``test`` extra brings ``setuptools>=77``, the bound ``build-system`` declares).
They run on a copy of the files git tracks, so a working tree's leftovers (``__pycache__``,
``*.egg-info``, ``build/``) change nothing, and the copy is built as a clean checkout would be.

* The wheel holds exactly ``tooldeck/**`` (every file of ``engine/``, ``handlers/``,
  ``manifests/`` and ``schemas/`` under its installed name) and its ``dist-info``, with the
  LICENSE.
* The sdist is the repository: every tracked file (``MANIFEST.in`` says which folders), so the
  whole suite runs from an unpacked sdist, and nothing else but what setuptools generates. The
  wheel is built from the unpacked sdist, as ``python -m build`` does.

These need a git checkout; from an unpacked sdist they are skipped (the sdist is what they test).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from tests.conftest import ROOT

NAME = "tooldeck"
MAPPED = {"engine": "tooldeck", "handlers": "tooldeck/handlers"}
MAPPED |= {"manifests": "tooldeck/bundled", "schemas": "tooldeck/schemas"}
"""Each repository folder and its installed place (pyproject's ``package-dir``)."""
DIST_INFO = {"METADATA", "WHEEL", "RECORD", "entry_points.txt", "top_level.txt", "licenses/LICENSE"}
GENERATED = {"PKG-INFO", "setup.cfg"}
"""Files setuptools adds to an sdist (besides ``tooldeck.egg-info/``)."""
HOOK = (
    "import sys\nfrom setuptools import build_meta\nprint(getattr(build_meta, sys.argv[1])('..'))"
)
ALLOWED_NOTES = re.compile(
    r"warning: (build_py|install_lib): byte-compiling is disabled, skipping\."
)
"""What distutils prints when PYTHONDONTWRITEBYTECODE is set (a note on the environment, not on
the project); any other line mentioning a warning fails the build test."""
WARNING = re.compile(r"Warning\b|(^|\s)warning:")
"""A warning as Python (``SetuptoolsDeprecationWarning: ...``, setuptools' ``_Warning`` banners)
or distutils' log (``warning: ...``) prints one; a file named ``_warnings.py`` is not one."""


def _git(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _tracked() -> list[str]:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs a git checkout (an unpacked sdist is what this tests)")
    return [name for name in _git("ls-files", "-z").split("\0") if name]


def _build(hook: str, source: Path) -> tuple[Path, str]:
    """Run setuptools' ``build_sdist`` or ``build_wheel`` in ``source``; the file and the log.

    The output folder is ``source``'s parent, so nothing built lands in the tree it reads.
    """
    done = subprocess.run(
        [sys.executable, "-c", HOOK, hook],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    return source.parent / done.stdout.strip().splitlines()[-1], log


def _warnings(log: str) -> list[str]:
    lines = (line.strip() for line in log.splitlines())
    return [line for line in lines if WARNING.search(line) and not ALLOWED_NOTES.fullmatch(line)]


# ------------------------------------------------------------------ the layout


def test_every_engine_folder_with_python_is_a_listed_package():
    """pyproject lists packages by hand (``package-dir`` maps folders): a new folder must be
    listed, or the wheel leaves it out and ``import tooldeck`` fails only once installed."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]
    found: dict[str, Path] = {}
    for package, folder in setuptools["package-dir"].items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                parts = path.parent.relative_to(ROOT / folder).parts
                found[".".join((package, *parts))] = path.parent
    assert set(setuptools["packages"]) == set(found)
    for package, folder in found.items():
        assert (folder / "__init__.py").is_file(), f"{package}: no __init__.py in {folder}"


def test_the_repository_holds_no_symlink():
    """A checkout without symlink support (Windows, core.symlinks=false) gets the same tree."""
    _tracked()
    links = [line for line in _git("ls-files", "-s").splitlines() if line.startswith("120000")]
    assert links == []


# ------------------------------------------------------------ the distributions


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The sdist built from a copy of the tracked files, and the wheel built from that sdist."""
    tracked = _tracked()
    source = tmp_path_factory.mktemp("sdist") / "source"
    for name in tracked:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    sdist, sdist_log = _build("build_sdist", source)
    unpacked = tmp_path_factory.mktemp("wheel") / "unpacked"
    with tarfile.open(sdist) as archive:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # 3.11.4+
        archive.extractall(unpacked, **safe)
    (top,) = unpacked.iterdir()
    wheel, wheel_log = _build("build_wheel", top)
    return {
        "tracked": tracked,
        "sdist": sdist,
        "wheel": wheel,
        "logs": {"sdist": sdist_log, "wheel": wheel_log},
    }


@pytest.mark.slow
def test_the_wheel_holds_exactly_the_package_and_its_license(built: dict):
    tracked: list[str] = built["tracked"]
    expected = set()
    for name in tracked:
        folder, _, rest = name.partition("/")
        if folder in MAPPED and rest:
            expected.add(f"{MAPPED[folder]}/{rest}")
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
        meta = {n for n in names if n.startswith(f"{NAME}-") and ".dist-info/" in n}
        dist_info = {n.partition(".dist-info/")[2] for n in meta}
        metadata = wheel.read(next(n for n in meta if n.endswith(".dist-info/METADATA")))
        entry_points = wheel.read(next(n for n in meta if n.endswith("entry_points.txt")))
    assert names - meta == expected
    assert dist_info == DIST_INFO
    for shipped in (
        "tooldeck/py.typed",
        "tooldeck/cli/__init__.py",
        "tooldeck/handlers/files.py",
        "tooldeck/bundled/files.yaml",
        "tooldeck/schemas/manifest.schema.json",
    ):
        assert shipped in names
    assert b"License-Expression: MIT" in metadata
    assert b"License-File: LICENSE" in metadata
    assert b"tooldeck = tooldeck.cli:main" in entry_points


@pytest.mark.slow
def test_the_sdist_is_the_repository(built: dict):
    """Every tracked file, so the suite runs from an unpacked sdist; no stray file either."""
    with tarfile.open(built["sdist"]) as archive:
        members = [m.name for m in archive.getmembers() if not m.isdir()]
    names = {PurePosixPath(name).relative_to(PurePosixPath(name).parts[0]) for name in members}
    generated = {n for n in names if n.parts[0] == f"{NAME}.egg-info" or str(n) in GENERATED}
    assert {str(n) for n in names - generated} == set(built["tracked"])
    assert {"PKG-INFO", "setup.cfg"} <= {str(n) for n in generated}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sdist", "wheel"])
def test_the_build_prints_no_warning(built: dict, kind: str):
    assert _warnings(built["logs"][kind]) == []


def test_the_warning_filter_lets_only_the_byte_compile_notes_through():
    log = (
        "running build_py\n"
        "copying engine/_warnings.py -> build/lib/tooldeck\n"
        "warning: build_py: byte-compiling is disabled, skipping.\n"
        "SetuptoolsDeprecationWarning: License classifiers are deprecated.\n"
        "warning: no files found matching 'mkdocs.yml'\n"
        "!!\n  ********  _Warning: something\n"
    )
    assert _warnings(log) == [
        "SetuptoolsDeprecationWarning: License classifiers are deprecated.",
        "warning: no files found matching 'mkdocs.yml'",
        "********  _Warning: something",
    ]


# ------------------------------------------------------- a clone, installed


def _run(*argv: str | Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.mark.slow
def test_a_wheel_built_from_a_clone_without_symlinks_installs_and_works(tmp_path: Path):
    """Committed state only: ``git clone`` takes HEAD, not the working tree's changes.

    The new venv finds the dependencies through a ``.pth`` naming this environment's
    site-packages (``--system-site-packages`` would reach the base interpreter's, not this
    venv's); an editable tooldeck there stays invisible (a ``.pth`` line adds a folder, it does
    not run the ``.pth`` files in it), so ``tooldeck`` can only come from the wheel.
    """
    _tracked()
    clone = tmp_path / "clone"
    _git("clone", "-q", "-c", "core.symlinks=false", str(ROOT), str(clone))
    assert _git("config", "core.symlinks", cwd=clone).strip() == "false"
    wheel, log = _build("build_wheel", clone)
    assert _warnings(log) == []

    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path, env=env)
    scripts = venv / ("Scripts" if os.name == "nt" else "bin")
    python = scripts / "python"
    purelib = _run(
        python,
        "-c",
        "import sysconfig; print(sysconfig.get_path('purelib'))",
        cwd=tmp_path,
        env=env,
    ).stdout.strip()
    ours = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (Path(purelib) / "test-environment.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    pip = (sys.executable, "-m", "pip", "--python", python)
    _run(*pip, "install", "-q", "--no-deps", "--no-index", wheel, cwd=tmp_path, env=env)

    installed = Path(purelib).resolve() / "tooldeck"
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("from the wheel\n", encoding="utf-8")
    tooldeck = scripts / "tooldeck"
    where = _run(python, "-c", "import tooldeck; print(tooldeck.__file__)", cwd=work, env=env)
    assert Path(where.stdout.strip()).resolve() == installed / "__init__.py"
    listed = _run(tooldeck, "list", cwd=work, env=env).stdout
    assert str(installed / "bundled" / "files.yaml") in listed
    assert str(ROOT) not in listed
    schema = Path(_run(tooldeck, "schema", "--path", cwd=work, env=env).stdout.strip())
    assert schema.resolve() == installed / "schemas" / "manifest.schema.json"
    called = _run(
        tooldeck, "call", "read_file", "--args", '{"path": "notes.txt"}', cwd=work, env=env
    )
    assert called.stdout.strip() == "from the wheel"
