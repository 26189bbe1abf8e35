"""Shared fixtures: the repository root, the ``tooldeck`` command in-process and in a subprocess.

Also the Hypothesis profiles: ``ci`` (loaded when the ``CI`` environment variable is
set, as CI runs with ``CI=true``) and ``dev`` (otherwise). ``HYPOTHESIS_PROFILE=name``
picks one explicitly, and pytest's ``--hypothesis-profile`` still wins over both.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(sys.executable).parent

# ------------------------------------------------------------------ hypothesis
# Both profiles start from Hypothesis' own defaults: its built-in "ci" profile, loaded by
# itself whenever CI variables are set, must not leak into "dev" (HYPOTHESIS_PROFILE=dev).
# A test's own @settings still wins for what it names: max_examples budgets tuned per test
# stay as they are; a suppress_health_check list replaces the profile's, so tests add to
# settings.default.suppress_health_check instead.
_DEFAULTS = settings.get_profile("default")
settings.register_profile(
    "ci",
    parent=_DEFAULTS,
    derandomize=True,  # the same examples on every run, and no example database
    deadline=None,  # a shared CI machine has slow moments; timing is not what these check
    print_blob=True,  # a failure prints the @reproduce_failure line to replay it locally
    max_examples=100,  # for tests without a budget of their own; the suite stays ~2 minutes
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", parent=_DEFAULTS)  # random examples, the local database


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no", "off")


settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _in_ci() else "dev"))


# ---------------------------------------------------------------- a subprocess
@pytest.fixture
def run_cli():
    """Run the installed ``tooldeck`` console script in a subprocess.

    For what only a real process shows (signals, terminals, exit at interpreter
    shutdown, ``sys.path``); everything else uses :func:`run_line`.
    """

    def run(*args: str, cwd: Path | str = ROOT, env: dict | None = None, timeout: float = 60):
        return subprocess.run(
            [str(SCRIPTS / "tooldeck"), *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            check=False,
        )

    return run


# ------------------------------------------------------------------ in-process
@dataclass(frozen=True)
class CliResult:
    """What one in-process ``tooldeck`` command did."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return f"{self.stdout}\n{self.stderr}"


RunLine = Callable[..., CliResult]


def _exit_code(exc: SystemExit, stderr: io.TextIOBase) -> int:
    """The status a process would end with after ``raise exc``, as the interpreter decides it."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=stderr)  # sys.exit("message"): printed, status 1
    return 1


def _under(path: object, roots: tuple[Path, ...]) -> bool:
    if not isinstance(path, str) or not path:
        return False
    try:
        resolved = Path(path).resolve()
    except (OSError, ValueError):
        return False
    return any(resolved.is_relative_to(root) for root in roots)


def _loaded_from(module: ModuleType, roots: tuple[Path, ...]) -> bool:
    """Whether ``module`` came from a file or a package folder under one of ``roots``."""
    if _under(getattr(module, "__file__", None), roots):
        return True
    try:
        return any(_under(str(entry), roots) for entry in getattr(module, "__path__", ()))
    except TypeError:  # a namespace package whose parent is gone
        return False


def _project_roots(tmp_path: Path, cwd: Path) -> tuple[Path, ...]:
    """Where a command's own modules come from: ``tmp_path``, and ``cwd`` unless it holds code.

    A ``cwd`` at or above the repository, the interpreter or site-packages is not a
    project: modules tooldeck imports lazily from there must stay imported (their
    classes are the ones already in use).
    """
    code = [ROOT, Path(sys.prefix).resolve(), Path(os.__file__).resolve().parent]
    if any(place.is_relative_to(cwd) for place in code) or cwd.is_relative_to(ROOT):
        return (tmp_path,)
    return (tmp_path, cwd)


@contextlib.contextmanager
def _import_state_restored(roots: tuple[Path, ...]) -> Iterator[None]:
    """Undo what a command did to the import system, as the end of its process would.

    ``main()`` appends a :class:`tooldeck._importpath.ProjectFinder` for the current
    directory to ``sys.meta_path`` and never takes it off, and the handler modules it
    imports from the project stay in ``sys.modules``. Both would leak into later tests:
    a module of the same name in another project would never be imported.
    """
    meta_path = list(sys.meta_path)
    path = list(sys.path)
    importer_cache = set(sys.path_importer_cache)
    modules = set(sys.modules)
    try:
        yield
    finally:
        sys.meta_path[:] = meta_path
        sys.path[:] = path
        for key in set(sys.path_importer_cache) - importer_cache:
            del sys.path_importer_cache[key]
        for name in set(sys.modules) - modules:
            module = sys.modules.get(name)
            if module is not None and _loaded_from(module, roots):
                del sys.modules[name]


@pytest.fixture
def run_line(tmp_path: Path) -> RunLine:
    """Run ``tooldeck ARGS`` in this process: ``run_line("lint", path, cwd=..., env=...)``.

    Like check-jsonschema's ``run_line``, minus the process: ``tooldeck.cli.main(args)``
    runs with its standard output and error captured, in ``cwd`` (the repository root by
    default, as :func:`run_cli`) with ``env`` added to the environment (a value of None
    unsets the variable) and ``stdin`` as standard input, which is never a terminal.
    Returns a :class:`CliResult`; ``main`` may return a status or raise ``SystemExit``
    (argparse does), both become ``exit_code``. Any other exception propagates: a crash
    fails the test with its traceback, where a process would only exit 1.

    Afterwards the current directory, the environment, the standard streams,
    ``sys.meta_path``, ``sys.path`` and ``sys.modules`` are as before: modules the command
    imported from ``tmp_path`` (or from a ``cwd`` outside the repository) are forgotten,
    so the next call imports them afresh, as a new process would.
    """
    from tooldeck.cli import main

    def run(
        *args: str | os.PathLike[str],
        cwd: Path | str = ROOT,
        env: Mapping[str, str | None] | None = None,
        stdin: str = "",
    ) -> CliResult:
        here = Path(cwd).resolve()
        roots = _project_roots(tmp_path.resolve(), here)
        stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="", write_through=True)
        stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="", write_through=True)
        with pytest.MonkeyPatch.context() as patch, _import_state_restored(roots):
            patch.chdir(here)
            for name, value in (env or {}).items():
                if value is None:
                    patch.delenv(name, raising=False)
                else:
                    patch.setenv(name, value)
            patch.setattr(sys, "stdin", io.StringIO(stdin))
            patch.setattr(sys, "stdout", stdout)
            patch.setattr(sys, "stderr", stderr)
            try:
                code = main([os.fspath(arg) for arg in args])
            except SystemExit as exc:
                code = _exit_code(exc, stderr)
        return CliResult(
            exit_code=0 if code is None else int(code),
            stdout=_text(stdout),
            stderr=_text(stderr),
        )

    return run


def _text(stream: io.TextIOWrapper) -> str:
    """Everything written to ``stream``, newlines as written (a ``\\r\\n`` stays one)."""
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", errors="backslashreplace")
