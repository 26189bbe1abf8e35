"""The CLI never lets files in the current directory shadow installed packages.

The current directory is importable (for the project's own handler modules) but only after
site-packages: a local ``yaml.py``, ``jsonschema.py`` or ``handlers/`` package is not what
runs.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT

BUNDLED = ROOT / "manifests" / "files.yaml"


def plant(directory: Path) -> None:
    for name in ("yaml", "jsonschema", "jmespath"):
        (directory / f"{name}.py").write_text(f"raise SystemExit('shadowed {name} imported')\n")
    package = directory / "handlers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "files.py").write_text(
        "def read_file(path, project_dir, start_line=1, max_lines=400):\n    return 'EVIL'\n"
    )
    (directory / "notes.txt").write_text("the real notes\n")


def test_local_modules_do_not_shadow_installed_ones(tmp_path: Path, run_cli):
    plant(tmp_path)
    done = run_cli(
        "call", "read_file", "-m", str(BUNDLED), "--args", '{"path": "notes.txt"}', cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the real notes"
    assert "shadowed" not in done.stderr


def test_lint_and_list_ignore_local_shadows(tmp_path: Path, run_cli):
    plant(tmp_path)
    linted = run_cli("lint", str(BUNDLED), cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    listed = run_cli("list", "-m", str(BUNDLED), "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "read_file" in {tool["name"] for tool in json.loads(listed.stdout)["tools"]}


def test_project_handler_modules_still_import_from_the_current_directory(tmp_path: Path, run_cli):
    (tmp_path / "tdsec_local.py").write_text(
        'def hello(name: str) -> str:\n    """Greet."""\n    return f"hello {name}"\n'
    )
    (tmp_path / "tools.yaml").write_text(
        "version: 1\ntools:\n  - name: hello\n    handler: tdsec_local:hello\n"
        "    description: Greet somebody by name, for the import path tests.\n"
    )
    done = run_cli(
        "call",
        "hello",
        "-m",
        "tools.yaml",
        "--allow-handlers",
        "tdsec_local",
        "--args",
        '{"name": "Ada"}',
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello Ada"


def test_python_dash_m_does_not_let_local_modules_shadow_installed_ones(tmp_path: Path):
    import subprocess
    import sys

    plant(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tooldeck",
            "call",
            "read_file",
            "-m",
            str(BUNDLED),
            "--args",
            '{"path": "notes.txt"}',
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the real notes"


def test_a_local_tooldeck_folder_runs_under_python_dash_m_but_not_the_command(
    tmp_path: Path, run_cli
):
    """A stated limit (docs/security.md): Python resolves ``-m`` before tooldeck runs."""
    import subprocess
    import sys

    local = tmp_path / "tooldeck"
    local.mkdir()
    (local / "__init__.py").write_text("")
    (local / "__main__.py").write_text("print('the local folder ran')\n")
    done = subprocess.run(
        [sys.executable, "-m", "tooldeck", "schema"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.strip() == "the local folder ran"
    command = run_cli("schema", cwd=tmp_path)
    assert command.returncode == 0
    assert "the local folder ran" not in command.stdout
    assert '"$schema"' in command.stdout
