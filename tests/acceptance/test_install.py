"""The distribution installs one import namespace, ``tooldeck``, and works from any directory.

A regular (non-editable) install goes into a scratch target folder; the test then runs the
CLI from scratch directories, one of them a user project with its own ``handlers`` package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), "."],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return target


def tooldeck(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-m", "tooldeck", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_only_the_tooldeck_namespace_is_installed(installed: Path):
    top = {p.name for p in installed.iterdir() if not p.name.endswith((".dist-info", ".pth"))}
    assert top - {"bin", "__pycache__"} == {"tooldeck"}
    assert (installed / "tooldeck" / "handlers" / "files.py").is_file()
    assert (installed / "tooldeck" / "bundled" / "files.yaml").is_file()
    assert (installed / "tooldeck" / "schemas" / "manifest.schema.json").is_file()


def test_bundled_tools_work_in_any_directory(installed: Path, tmp_path: Path):
    (tmp_path / "notes.txt").write_text("installed and working\n")
    listed = tooldeck(installed, "list", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    assert {"read_file", "list_dir", "search_text", "file_info"} <= names
    called = tooldeck(
        installed, "call", "read_file", "--args", '{"path": "notes.txt"}', cwd=tmp_path
    )
    assert called.returncode == 0, called.stderr
    assert called.stdout.strip() == "installed and working"
    assert str(installed) in tooldeck(installed, "list", cwd=tmp_path).stdout


def test_a_project_with_its_own_handlers_package_works_beside_the_bundled_tools(
    installed: Path, tmp_path: Path
):
    package = tmp_path / "handlers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "orders.py").write_text(
        'def lookup_order(order_id: str) -> str:\n    """Look up an order."""\n'
        '    return f"order {order_id}: shipped"\n'
    )
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "orders.yaml").write_text(
        textwrap.dedent(
            """\
            version: 1
            tools:
              - name: lookup_order
                handler: handlers.orders:lookup_order
                description: Look up an order by id and say where it is.
            """
        )
    )
    (tmp_path / "notes.txt").write_text("project notes\n")
    args = ("-m", "manifests", "-m", str(installed / "tooldeck" / "bundled"))
    allow = ("--allow-handlers", "handlers")
    mine = tooldeck(
        installed,
        "call",
        "lookup_order",
        *args,
        *allow,
        "--args",
        '{"order_id": "O-1"}',
        cwd=tmp_path,
    )
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout.strip() == "order O-1: shipped"
    bundled = tooldeck(
        installed,
        "call",
        "read_file",
        *args,
        *allow,
        "--args",
        '{"path": "notes.txt"}',
        cwd=tmp_path,
    )
    assert bundled.returncode == 0, bundled.stderr
    assert bundled.stdout.strip() == "project notes"
