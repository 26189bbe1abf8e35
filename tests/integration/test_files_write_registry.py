"""The file-changing tools through a real registry and a manifest declaring them, as a model
calls them: arguments as JSON, the project dir and config injected, failures as error results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.manifests import save
from tests.write_tools import SECRET, outside, snapshot
from tooldeck import ToolRegistry, load_manifests

__all__ = ["outside"]  # a fixture, used by name

MANIFEST = """\
version: 1
bundle: files-write-test
defaults:
  side_effects: true
tools:
  - name: write_file
    handler: tooldeck.handlers.files_write:write_file
    description: Create or replace a text file.
    params:
      - {name: path, type: string, description: "File path"}
      - {name: content, type: string, description: "The whole new content"}
      - {name: dry_run, type: boolean, default: false, description: "Change nothing"}
  - name: append_file
    handler: tooldeck.handlers.files_write:append_file
    description: Append text to a file.
    params:
      - {name: path, type: string, description: "File path"}
      - {name: content, type: string, description: "Text to add"}
      - {name: dry_run, type: boolean, default: false, description: "Change nothing"}
  - name: edit_file
    handler: tooldeck.handlers.files_write:edit_file
    description: Replace a unique piece of text.
    params:
      - {name: path, type: string, description: "File path"}
      - {name: old_text, type: string, description: "Exact text to replace"}
      - {name: new_text, type: string, description: "Replacement"}
      - {name: dry_run, type: boolean, default: false, description: "Change nothing"}
  - name: move_path
    handler: tooldeck.handlers.files_write:move_path
    description: Move a file or folder.
    params:
      - {name: source, type: string, description: "What to move"}
      - {name: destination, type: string, description: "Where to"}
      - {name: overwrite, type: boolean, default: false, description: "Replace"}
      - {name: dry_run, type: boolean, default: false, description: "Change nothing"}
  - name: make_dir
    handler: tooldeck.handlers.files_write:make_dir
    description: Create a folder.
    params:
      - {name: path, type: string, description: "Folder path"}
      - {name: dry_run, type: boolean, default: false, description: "Change nothing"}
  - name: delete_path
    handler: tooldeck.handlers.files_write:delete_path
    description: Delete a file or folder.
    params:
      - {name: path, type: string, description: "What to delete"}
      - {name: recursive, type: boolean, default: false, description: "Folders with content"}
      - {name: dry_run, type: boolean, default: false, description: "Change nothing"}
"""
ENABLED = {"tooldeck": {"files": {"write": True}}}


def registry(tmp_path: Path, config: dict[str, Any], **options: Any) -> ToolRegistry:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    manifest = save(tmp_path / "manifests" / "write.yaml", MANIFEST)
    tools = ToolRegistry(project_dir=root, config=config, **options)
    load_manifests([manifest], registry=tools)
    return tools


def test_a_session_of_changes(tmp_path: Path, outside: Path) -> None:
    tools = registry(tmp_path, ENABLED, allow_side_effects=True)
    root = tmp_path / "project"
    steps: list[tuple[str, dict[str, Any], str]] = [
        ("make_dir", {"path": "src/pkg"}, "created"),
        ("write_file", {"path": "src/pkg/app.py", "content": "x = 1\n"}, "created"),
        ("append_file", {"path": "src/pkg/app.py", "content": "y = 2\n"}, "appended"),
        ("edit_file", {"path": "src/pkg/app.py", "old_text": "x = 1", "new_text": "x = 3"}, ""),
        ("move_path", {"source": "src/pkg", "destination": "lib/pkg"}, "moved"),
        ("write_file", {"path": "lib/pkg/app.py", "content": "z\n", "dry_run": True}, ""),
        ("delete_path", {"path": "src"}, "deleted"),
    ]
    for name, args, action in steps:
        result = tools.call(name, args)
        assert result.ok, (name, result.text)
        assert result.value["action"] == (action or result.value["action"])
    assert (root / "lib" / "pkg" / "app.py").read_text() == "x = 3\ny = 2\n"
    assert sorted(p.name for p in root.iterdir()) == ["lib"]
    edited = tools.call("edit_file", {"path": "lib/pkg/app.py", "old_text": "y", "new_text": "w"})
    assert '"diff": "--- a/lib/pkg/app.py\\n+++ b/lib/pkg/app.py\\n@@' in edited.text


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("write_file", {"path": "../outside/secret.txt", "content": "x"}),
        ("append_file", {"path": "../outside/secret.txt", "content": "x"}),
        ("edit_file", {"path": "../outside/secret.txt", "old_text": "TOP", "new_text": "x"}),
        ("move_path", {"source": "../outside/secret.txt", "destination": "stolen.txt"}),
        ("make_dir", {"path": "../outside/new"}),
        ("delete_path", {"path": "../outside", "recursive": True}),
    ],
)
def test_escapes_are_error_results(
    tmp_path: Path, outside: Path, name: str, args: dict[str, Any]
) -> None:
    result = registry(tmp_path, ENABLED, allow_side_effects=True).call(name, args)
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "not_permitted"
    assert "is outside the project directory" in result.text
    assert "Traceback" not in result.text
    assert (outside / "secret.txt").read_text() == SECRET


@pytest.mark.parametrize("config", [{}, {"tooldeck": {"files": {"write": False}}}])
def test_without_the_setting_every_tool_refuses(tmp_path: Path, config: dict[str, Any]) -> None:
    tools = registry(tmp_path, config, allow_side_effects=True)
    root = tmp_path / "project"
    (root / "notes.txt").write_text("hello\n")
    before = snapshot(root)
    calls = {
        "write_file": {"path": "a.txt", "content": "x", "dry_run": True},
        "append_file": {"path": "notes.txt", "content": "x"},
        "edit_file": {"path": "notes.txt", "old_text": "hello", "new_text": "x"},
        "move_path": {"source": "notes.txt", "destination": "b.txt"},
        "make_dir": {"path": "d"},
        "delete_path": {"path": "notes.txt"},
    }
    for name, args in calls.items():
        result = tools.call(name, args)
        assert result.error is not None, name
        assert result.error.kind == "not_enabled"
        assert "tooldeck: {files: {write: true}}" in result.text
    assert snapshot(root) == before


def test_side_effects_still_need_the_registry_to_allow_them(tmp_path: Path) -> None:
    result = registry(tmp_path, ENABLED).call("write_file", {"path": "a.txt", "content": "x"})
    assert not result.ok
    assert not (tmp_path / "project" / "a.txt").exists()


@pytest.mark.parametrize(
    "params",
    [
        "",
        "    params:\n      - {name: path, type: string}\n      - {name: content, type: string}\n"
        "      - {name: context, type: object}\n",
    ],
    ids=["inferred", "context-declared-for-the-model"],
)
def test_a_model_sending_its_own_config_is_refused(tmp_path: Path, params: str) -> None:
    """Whether the manifest lets the schema be inferred (the context is left out of it) or
    declares ``context`` for the model, a model's config cannot turn the tools on."""
    manifest = save(
        tmp_path / "manifests" / "careless.yaml",
        "version: 1\nbundle: careless\ntools:\n  - name: write_file\n"
        "    handler: tooldeck.handlers.files_write:write_file\n    side_effects: true\n" + params,
    )
    root = tmp_path / "project"
    root.mkdir()
    tools = ToolRegistry(project_dir=root, config={}, allow_side_effects=True)
    load_manifests([manifest], registry=tools)
    sent = {"config": ENABLED} if not params else {"context": {"config": ENABLED, **ENABLED}}
    result = tools.call("write_file", {"path": "a.txt", "content": "x", **sent})
    assert result.error is not None
    assert result.error.kind == ("invalid_arguments" if not params else "not_enabled")
    assert not (root / "a.txt").exists()
