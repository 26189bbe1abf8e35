"""Where the POSIX descriptor API is missing (Windows), tooldeck still imports and works.

Only the file tools need ``fcntl``, ``O_NOFOLLOW`` and ``dir_fd`` (``tooldeck.handlers._confined``
keeps their reads and writes inside the project with them); without them the tools, the
file-changing ones included, answer when called that they need a POSIX system, and every other
command works as usual.

Windows cannot be run here, so a subprocess takes its pieces away before importing tooldeck:
``fcntl`` alone (an import of it fails), or also the ``os`` flags and ``dir_fd``/``fd`` support
Windows lacks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck.handlers import _posix

FILE_TOOLS = ("read_file", "list_dir", "search_text", "file_info")
WRITE_TOOLS = ("write_file", "append_file", "edit_file", "move_path", "make_dir", "delete_path")

# Runs in the subprocess: argv[1] says what to take away; prints one JSON object.
SCRIPT = """
import io, json, os, sys
from pathlib import Path
sys.modules["fcntl"] = None  # `import fcntl` raises ImportError, as on Windows
if sys.argv[1] == "windows":
    for name in ("O_NOFOLLOW", "O_DIRECTORY", "O_NOCTTY", "O_NONBLOCK", "O_PATH"):
        delattr(os, name)
    os.supports_dir_fd.clear()
    os.supports_fd.clear()
import tooldeck
from tooldeck import ToolFailed
from tooldeck._resources import bundled_manifests
from tooldeck.cli import main
from tooldeck.handlers import files

report, real = {}, (sys.stdout, sys.stderr)
bundled = str(bundled_manifests())
commands = {
    "list": ["list", "--json"],
    "export": ["export", "--provider", "openai-chat"],
    "lint": ["lint", "-m", bundled],
    "schema": ["schema", "--path"],
    "call": ["call", "read_file", "--args", '{"path": "notes.txt"}'],
}
for name, argv in commands.items():
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.stdout, sys.stderr = real
    report[name] = {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
report["handlers"] = {}
for tool in ("read_file", "list_dir", "search_text", "file_info"):
    args = {"list_dir": {}, "search_text": {"pattern": "x"}}.get(tool, {"path": "notes.txt"})
    try:
        getattr(files, tool)(project_dir=Path.cwd(), **args)
    except ToolFailed as exc:
        report["handlers"][tool] = [exc.kind, exc.message]
    else:
        report["handlers"][tool] = None
from tooldeck import ToolContext
from tooldeck.handlers import files_write
on = ToolContext(
    tool_name="t", call_id="c", project_dir=Path.cwd(),
    config={"tooldeck": {"files": {"write": True}}},
)  # as the registry injects it
for tool, args in {
    "write_file": {"path": "new.txt", "content": "x"},
    "append_file": {"path": "notes.txt", "content": "x"},
    "edit_file": {"path": "notes.txt", "old_text": "notes", "new_text": "x"},
    "move_path": {"source": "notes.txt", "destination": "moved.txt"},
    "make_dir": {"path": "folder"},
    "delete_path": {"path": "notes.txt"},
}.items():
    try:
        getattr(files_write, tool)(project_dir=Path.cwd(), context=on, **args)
    except ToolFailed as exc:
        report["handlers"][tool] = [exc.kind, exc.message]
    else:
        report["handlers"][tool] = None
report["untouched"] = sorted(os.listdir(".")) == ["notes.txt"]
print(json.dumps(report))
"""


@pytest.fixture(scope="module", params=["fcntl", "windows"])
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    work = tmp_path_factory.mktemp("project")
    (work / "notes.txt").write_text("notes\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, request.param],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_tools_can_run_here():
    """The check must not switch the file tools off on a POSIX system by mistake."""
    assert _posix.UNSUPPORTED is None
    assert (_posix.FCNTL is None) == (sys.platform == "win32")


@pytest.mark.parametrize("command", ["list", "export", "lint", "schema"])
def test_every_command_but_the_file_tools_works(report: dict, command: str):
    done = report[command]
    assert done["code"] in (0, None), done["stderr"]


def test_the_file_tools_are_still_listed(report: dict):
    listed = {tool["name"] for tool in json.loads(report["list"]["stdout"])["tools"]}
    assert set(FILE_TOOLS) <= listed
    assert Path(report["schema"]["stdout"].strip()).is_file()


def test_a_file_tool_says_it_needs_a_posix_system(report: dict):
    call = report["call"]
    assert call["code"] == 1
    said = call["stdout"] + call["stderr"]
    assert "Error (unsupported_platform): the file tools" in said
    assert "need a POSIX system" in said
    assert "Traceback" not in said
    for tool in FILE_TOOLS + WRITE_TOOLS:
        kind, message = report["handlers"][tool]
        assert kind == "unsupported_platform"
        assert "need a POSIX system" in message
        assert "fcntl" in message
    assert report["untouched"]
