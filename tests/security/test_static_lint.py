"""``tooldeck lint --static`` judges a pull request without running any of it.

A pull-request-shaped project: its own ``pyproject.toml`` allow-listing its own
handler modules, modules and packages whose top level (or whose package's
``__init__``) writes a marker file, and a ``via: client`` MCP server whose
command would do the same. Static lint must report what the import-based lint
reports about the references, start nothing, import nothing and read nothing
that hangs or has no end, through the real CLI in a subprocess.
"""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

PRTOOLS = '''
"""A pull request's handlers; importing this module writes a marker."""
import os
import subprocess
from os import system
from pathlib import Path

Path(os.environ["MARKER_DIR"], "prtools-imported").write_text("ran")
subprocess.run(["touch", os.path.join(os.environ["MARKER_DIR"], "prtools-subprocess")])


def hello(name: str, times: int = 1) -> str:
    """Say hello.

    Args:
        name: Who to greet, by first name.
        times: How many greetings to send back.
    """
    return name * times


def twice(n: int) -> int:
    """Double a whole number, as a worked example."""
    return 2 * n


async def spins(n: int) -> int:
    """Return the number without ever awaiting anything."""
    return n
'''

PKG_INIT = """
import os
from pathlib import Path

Path(os.environ["MARKER_DIR"], "prpkg-init-imported").write_text("ran")
"""

PKG_TOOLS = '''
"""Package module: finding it must not run the package __init__."""
import os
from pathlib import Path

Path(os.environ["MARKER_DIR"], "prpkg-tools-imported").write_text("ran")


def lookup(order_id: int) -> dict:
    """Look up an order by its numeric id."""
    return {"id": order_id}
'''

MANIFEST = """
version: 1
tools:
  - name: hello
    handler: prtools:hello
    description: Greet someone by name, several times over.
  - name: twice
    handler: prtools:twice
    description: Double a number given as a string by mistake.
    params:
      - {name: n, type: string, description: The number to double.}
  - name: lookup
    handler: prpkg.tools:lookup
    description: Look up one order in the shop by its id.
  - name: escape
    handler: prtools:system
    description: Run a shell command on the CI machine.
  - name: spin
    handler: prtools:spins
    description: Spin a number around and return it unchanged.
    timeout: 2s
"""

SERVERS = """
version: 1
mcp_servers:
  - name: evil
    via: client
    command: sh
    args: ["-c", "touch '{markers}/server-started'"]
"""


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A project as a pull request would change it, and the folder its markers land in."""
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "prpkg").mkdir()
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck]\nallow_handlers = ["prtools", "prpkg"]\n'
    )
    (project / "prtools.py").write_text(PRTOOLS)
    (project / "prpkg" / "__init__.py").write_text(PKG_INIT)
    (project / "prpkg" / "tools.py").write_text(PKG_TOOLS)
    (project / "manifests" / "tools.yaml").write_text(MANIFEST)
    servers = SERVERS.replace("{markers}", str(tmp_path / "markers"))
    (project / "manifests" / "servers.yaml").write_text(servers)
    (tmp_path / "markers").mkdir()
    return project


def _lint(run_cli, project: Path, *args: str, timeout: float = 60):
    markers = project.parent / "markers"
    env = {"MARKER_DIR": str(markers), "PYTHONDONTWRITEBYTECODE": "1"}
    return run_cli("lint", *args, cwd=project, env=env, timeout=timeout)


def _codes(output: str) -> list[tuple[str, str, str]]:
    """(line, column, code) of every text diagnostic."""
    found = []
    for line in output.splitlines():
        parts = line.split(": ", 2)
        if len(parts) >= 2 and parts[1][:2] == "TD":
            _file, row, column = parts[0].rsplit(":", 2)
            found.append((row, column, parts[1].split()[0]))
    return found


def test_static_lint_runs_nothing_of_the_pull_request(run_cli, pull_request: Path):
    done = _lint(run_cli, pull_request, "--static")
    assert sorted(os.listdir(pull_request.parent / "markers")) == []
    assert done.returncode == 1, done.stdout + done.stderr  # TD315 is an error
    assert "Traceback" not in done.stderr
    found = _codes(done.stdout)
    assert ("16", "14", "TD315") in found  # prtools:system is os.system
    assert ("11", "25", "TD411") in found  # declared string, annotated int
    assert ("21", "14", "TD410") in found  # an async handler that never awaits, with a timeout
    assert not [code for _, _, code in found if code in ("TD311", "TD312", "TD412")]


def test_import_based_lint_does_run_it_and_reports_the_same(run_cli, pull_request: Path):
    """The difference --static makes, and the same verdict on the references."""
    imported = _lint(run_cli, pull_request, "--offline")
    markers = sorted(os.listdir(pull_request.parent / "markers"))
    assert "prtools-imported" in markers
    assert "prpkg-init-imported" in markers
    for name in markers:
        (pull_request.parent / "markers" / name).unlink()
    static = _lint(run_cli, pull_request, "--static")
    assert os.listdir(pull_request.parent / "markers") == []
    assert _codes(static.stdout) == _codes(imported.stdout)
    assert static.returncode == imported.returncode == 1


def test_without_offline_lint_starts_servers_but_static_starts_none(run_cli, pull_request):
    live = _lint(run_cli, pull_request, "--connect-timeout", "5")
    assert (pull_request.parent / "markers" / "server-started").exists()
    (pull_request.parent / "markers" / "server-started").unlink()
    assert live.returncode == 1
    _lint(run_cli, pull_request, "--static")
    assert not (pull_request.parent / "markers" / "server-started").exists()


def test_a_project_setting_cannot_turn_static_off(run_cli, pull_request: Path):
    pyproject = pull_request / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + "\n[tool.tooldeck.lint]\nstatic = false\noffline = false\n"
    )
    done = _lint(run_cli, pull_request, "--static")
    assert os.listdir(pull_request.parent / "markers") == []
    assert "TD400" in done.stdout  # unknown settings are reported, not obeyed


# ------------------------------------------------------------------ hostile module files
def _project_with_module(tmp_path: Path, make_module) -> Path:
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.tooldeck]\nallow_handlers = ["prmod"]\n')
    (project / "manifests" / "tools.yaml").write_text(
        "version: 1\ntools:\n  - name: go\n    handler: prmod:go\n"
        "    description: A tool whose module is hostile to read.\n"
    )
    make_module(project / "prmod.py")
    return project


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _huge(path: Path) -> None:
    path.write_text("x = 1\n" * 800_000 + "def go(): pass\n")


def _deep(path: Path) -> None:
    path.write_text("x = " + "(" * 100_000 + ")" * 100_000 + "\ndef go(): pass\n")


def _bad_encoding(path: Path) -> None:
    path.write_bytes(b"# -*- coding: no-such-codec -*-\ndef go(): pass\n")


def _null_bytes(path: Path) -> None:
    path.write_bytes(b"def go(): pass\n\x00\x00\n")


def _not_utf8(path: Path) -> None:
    path.write_bytes(b"def go(): return '\xff\xfe'\n")


def _endless_import(path: Path) -> None:
    path.write_text("while True:\n    pass\n\ndef go(): pass\n")


HOSTILE = {
    "fifo": (_fifo, "TD311", "not on the import path"),
    "symlink to /dev/zero": (_dev_zero, "TD311", "not on the import path"),
    "larger than the cap": (_huge, "TD311", "larger than"),
    "nested past the parser": (_deep, "TD311", "does not parse"),
    "unknown source encoding": (_bad_encoding, "TD311", "no-such-codec"),
    "null bytes": (_null_bytes, "TD311", "prmod"),
    "not utf-8": (_not_utf8, "TD311", "prmod"),
    "an import that never ends": (_endless_import, None, None),
}


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_module_file_ends_promptly_in_a_located_error(run_cli, tmp_path, kind):
    make, code, words = HOSTILE[kind]
    project = _project_with_module(tmp_path, make)
    (tmp_path / "markers").mkdir()
    started = time.monotonic()
    done = _lint(run_cli, project, "--static", timeout=60)
    assert time.monotonic() - started < 30
    assert "Traceback" not in done.stderr, done.stderr
    if code is None:  # read as source, it is an ordinary module
        assert done.returncode == 0, done.stdout + done.stderr
        return
    assert done.returncode == 1
    line = next(line for line in done.stdout.splitlines() if f" {code} " in line)
    assert line.startswith("manifests/tools.yaml:4:14: ")
    assert words in line


@pytest.mark.parametrize("kind", ["fifo", "symlink to /dev/zero", "directory"])
def test_a_module_file_swapped_after_it_was_found_is_not_read(tmp_path, kind):
    """Between the finder's check and the read: the opened descriptor is what is judged."""
    from tooldeck.manifest._static.file import StaticProblem, _read_capped

    target = tmp_path / "prmod.py"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    else:
        target.symlink_to("/dev/zero")
    started = time.monotonic()
    with pytest.raises(StaticProblem) as caught:
        _read_capped(str(target), 1024, "prmod")
    assert time.monotonic() - started < 5
    assert caught.value.code == "TD311"


# ------------------------------------------------------- settings stay inside the repository
SETTINGS_OUTSIDE = {
    "project_dir at the root": 'project_dir = "/"\n',
    "project_dir above": 'project_dir = ".."\n',
    "manifests elsewhere": 'manifests = ["/etc"]\n',
    "manifests above": 'manifests = ["../elsewhere"]\n',
    "config outside": 'config = "../secret.yaml"\n',
    "config through a link": 'config = "linked.yaml"\n',
    "manifests through a link": 'manifests = ["linked-dir"]\n',
}


@pytest.mark.parametrize("setting", SETTINGS_OUTSIDE)
@pytest.mark.parametrize("place", ["pyproject.toml", "tooldeck.yaml"])
def test_settings_that_leave_the_repository_are_td240(run_line, tmp_path, setting, place):
    outside = tmp_path / "secret.yaml"
    outside.write_text("api_token: hunter2-very-secret\n")
    (tmp_path / "elsewhere").mkdir()
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "manifests" / "tools.yaml").write_text("version: 1\n")
    (project / "linked.yaml").symlink_to(outside)
    (project / "linked-dir").symlink_to(tmp_path / "elsewhere")
    line = SETTINGS_OUTSIDE[setting]
    if place == "pyproject.toml":
        (project / "pyproject.toml").write_text("[tool.tooldeck]\n" + line)
    else:
        (project / "tooldeck.yaml").write_text(line.replace(" = ", ": "))
    for command in (["lint", "--static"], ["list"], ["export", "--provider", "openai-chat"]):
        done = run_line(*command, cwd=project)
        assert done.exit_code == 2, (command, done.output)
        assert "TD240" in done.stderr
        assert "outside" in done.stderr
        assert "hunter2" not in done.output


def test_command_line_flags_may_point_anywhere(run_line, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "manifests").mkdir(parents=True)
    (elsewhere / "manifests" / "tools.yaml").write_text(
        "version: 1\ntools:\n  - name: read\n    handler: tooldeck.handlers.files:read_file\n"
    )
    project = tmp_path / "repo"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.tooldeck]\nproject_dir = "."\n')
    done = run_line(
        "list", "-m", elsewhere / "manifests", "--project-dir", "/", "--json", cwd=project
    )
    assert done.exit_code == 0, done.output


def test_project_dir_setting_cannot_open_the_disk_to_file_tools(run_line, tmp_path):
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.tooldeck]\nproject_dir = "/"\n')
    done = run_line(
        "call", "read_file", '{"path": "etc/passwd"}', "-m", ROOT / "manifests", cwd=project
    )
    assert done.exit_code == 2
    assert "root:" not in done.output


def test_a_manifest_linked_out_of_its_folder_is_not_read(run_line, tmp_path):
    secret = tmp_path / "credentials"
    secret.write_text("[default]\naws_secret_access_key = hunter2-very-secret\n")
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "manifests" / "ok.yaml").write_text("version: 1\n")
    (project / "manifests" / "creds.yaml").symlink_to(secret)
    done = run_line("lint", "--static", cwd=project)
    assert done.exit_code == 1
    assert "hunter2" not in done.output
    assert "creds.yaml is a link to" in done.stdout
    assert "TD200" in done.stdout
    inside = project / "shared.yaml"
    inside.write_text("version: 1\n")
    (project / "manifests" / "creds.yaml").unlink()
    (project / "manifests" / "inner").mkdir()
    (project / "manifests" / "inner" / "real.yaml").write_text("version: 1\n")
    (project / "manifests" / "alias.yaml").symlink_to(project / "manifests" / "inner" / "real.yaml")
    assert run_line("lint", "--static", cwd=project).exit_code == 0


# ---------------------------------------------------------------- the recipes use --static
def test_the_ci_recipe_and_the_pre_commit_hook_lint_statically():
    hook = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "entry: tooldeck lint --static" in hook
    ci = (ROOT / "docs" / "guides" / "lint-ci.md").read_text()
    assert "tooldeck lint --static --format github --strict" in ci


def test_static_lint_of_the_bundled_manifests_imports_no_handler_module(tmp_path):
    """In a fresh interpreter: the bundled handlers are read as source, not imported."""
    script = textwrap.dedent(
        f"""
        import sys
        from tooldeck.cli import main
        code = main(["lint", "--static", "-m", {str(ROOT / "manifests")!r}])
        print(code, "tooldeck.handlers.files" in sys.modules)
        """
    )
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert done.stdout.split()[-2:] == ["0", "False"], done.stdout + done.stderr


FIXTURES = sorted((ROOT / "tests" / "fixtures" / "manifests").rglob("*.yaml")) + sorted(
    (ROOT / "manifests").glob("*.yaml")
)


def _verdicts(done) -> tuple[int, list[tuple[str, int, int]]]:
    import json

    report = json.loads(done.stdout)
    found = [
        (d["code"], d["line"], d["column"])
        for d in report["diagnostics"]
        if d["code"] not in ("TD316", "TD317")
    ]
    return done.exit_code, sorted(found)


@pytest.mark.parametrize("manifest", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_static_and_import_based_lint_agree_on_every_fixture(run_line, manifest: Path):
    common = ("--format", "json", "--allow-handlers", "tests", "-m", manifest)
    imported = run_line("lint", "--offline", *common)
    static = run_line("lint", "--static", *common)
    assert _verdicts(static) == _verdicts(imported)


@pytest.mark.parametrize(
    "prefix", ["subprocess", "os", "os.path", "builtins", "shutil", "tooldeck", "tooldeck.manifest"]
)
def test_repository_settings_cannot_allow_the_standard_library_or_tooldeck(
    run_line, tmp_path, prefix
):
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "manifests" / "tools.yaml").write_text(
        "version: 1\ntools:\n  - name: run\n    handler: subprocess:run\n"
        "    description: Run any program on the machine that serves the tools.\n"
    )
    (project / "pyproject.toml").write_text(f'[tool.tooldeck]\nallow_handlers = ["{prefix}"]\n')
    done = run_line("lint", "--static", cwd=project)
    assert done.exit_code == 2
    assert "TD240" in done.stderr
    assert prefix in done.stderr


def test_tooldeck_handlers_stay_allowed_in_settings(run_line, tmp_path):
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "manifests" / "tools.yaml").write_text("version: 1\n")
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck]\nallow_handlers = ["tooldeck.handlers", "tooldeck.handlers.files"]\n'
    )
    assert run_line("lint", "--static", cwd=project).exit_code == 0


def test_what_static_lint_could_not_check_cannot_be_switched_off(run_line, tmp_path):
    project = tmp_path / "repo"
    (project / "manifests").mkdir(parents=True)
    (project / "manifests" / "tools.yaml").write_text(
        "version: 1\ntools:\n  - name: go\n    handler: prmod:go\n"
        "    description: A handler made at run time by a factory.\n"
    )
    (project / "prmod.py").write_text("def make():\n    return print\n\ngo = make()\n")
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck]\nallow_handlers = ["prmod"]\n'
        '[tool.tooldeck.lint.severity]\nTD316 = "off"\n'
    )
    done = run_line("lint", "--static", "--strict", cwd=project)
    assert "TD400" in done.stdout
    assert "TD316" in done.stdout
    assert done.exit_code == 1
