"""The bundled packs from every entry point: a plain ``tooldeck serve``, the config that enables
the packs that change things (``--config`` and ``[tool.tooldeck] config``), and the Python API.

A plain serve in a project folder must serve the read-only file and git tools and nothing
more; each dangerous pack appears only when its key is set, and then works end to end.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.integration.test_mcp_serve import DEADLINE, TOOLDECK, text_of
from tooldeck import ToolRegistry, bundled_manifests, load_manifests

pytestmark = pytest.mark.slow

READ_ONLY = {
    "read_file",
    "list_dir",
    "search_text",
    "file_info",
    "git_status",
    "git_diff",
    "git_log",
    "git_show",
}
WRITES = {"write_file", "append_file", "edit_file", "move_path", "make_dir", "delete_path"}
EVERY_KEY = {
    "tooldeck": {
        "files": {"write": True},
        "http": {"allow_hosts": ["127.0.0.1"], "allow_private": True},
        "commands": {"allow": [Path(sys.executable).name]},
        "git": {"commit": True},
    }
}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.org", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with one commit and one pending change, and nothing else."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "app.py")
    _git(root, "commit", "-q", "-m", "First version")
    (root / "app.py").write_text("print('hello, world')\n", encoding="utf-8")
    return root


def _env(project: Path) -> dict[str, str]:
    """The server's environment: the venv's programs on PATH, a user git configuration of
    its own (who commits) in a home folder beside the project."""
    (project.parent / ".gitconfig").write_text(
        "[user]\n\tname = Ada\n\temail = ada@example.org\n", encoding="utf-8"
    )
    bindir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
        "HOME": str(project.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
    }


@contextlib.asynccontextmanager
async def serve(cwd: Path, *args: str, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=str(TOOLDECK), args=["serve", *args], cwd=str(cwd), env=env
    )
    with (cwd.parent / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
        ):
            await session.initialize()
            yield session


async def test_plain_serve_serves_the_read_only_file_and_git_tools_and_nothing_more(
    project: Path,
) -> None:
    async with serve(project, env=_env(project)) as session:
        tools = (await session.list_tools()).tools
        assert {t.name for t in tools} == READ_ONLY
        for tool in tools:
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is True
        status = await session.call_tool("git_status", {})
        assert not status.is_error
        assert "app.py" in text_of(status)
        diff = await session.call_tool("git_diff", {})
        assert "+print('hello, world')" in text_of(diff)
        log = await session.call_tool("git_log", {"max_count": 5})
        assert "First version" in text_of(log)
        prompts = {p.name for p in (await session.list_prompts()).prompts}
        assert {"review_code", "summarize_diff", "explain_history", "explore_project"} <= prompts
        history = await session.get_prompt("explain_history", {"path": "app.py"})
        assert "First version" in history.messages[0].content.text  # type: ignore[union-attr]
        templates = (await session.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["project:///{+path}"]
        read = await session.read_resource("project:///app.py")
        assert read.contents[0].text == "print('hello, world')\n"  # type: ignore[union-attr]
        refused = await session.call_tool("write_file", {"path": "x", "content": "y"})
        assert refused.is_error
    assert not (project / "x").exists()


async def test_the_config_turns_each_pack_on_and_its_tools_work(project: Path) -> None:
    config = project.parent / "config.yaml"
    config.write_text(json.dumps(EVERY_KEY), encoding="utf-8")  # JSON is YAML
    args = ["--config", str(config), "--allow-side-effects"]
    async with serve(project, *args, env=_env(project)) as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert names == READ_ONLY | WRITES | {
            "http_get",
            "http_request",
            "run_command",
            "git_commit",
        }
        wrote = await session.call_tool(
            "write_file", {"path": "notes/todo.md", "content": "- ship\n"}
        )
        assert not wrote.is_error, text_of(wrote)
        assert (project / "notes" / "todo.md").read_text(encoding="utf-8") == "- ship\n"
        ran = await session.call_tool(
            "run_command",
            {"command": Path(sys.executable).name, "args": ["-c", "print(6 * 7)"]},
        )
        assert not ran.is_error, text_of(ran)
        assert "42" in text_of(ran)
        committed = await session.call_tool(
            "git_commit", {"message": "Add the to-do list", "paths": ["notes/todo.md"]}
        )
        assert not committed.is_error, text_of(committed)
    assert "Add the to-do list" in _git(project, "log", "--format=%s", "-1")


def test_project_settings_name_the_config_and_serve_from_another_folder_finds_it(
    project: Path, tmp_path: Path
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck]\nconfig = "config.yaml"\n', encoding="utf-8"
    )
    (project / "config.yaml").write_text(
        "tooldeck:\n  commands: {allow: [pytest]}\n", encoding="utf-8"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = subprocess.run(
        [str(TOOLDECK), "list", "--json", "--project-dir", str(project)],
        check=False,
        cwd=elsewhere,
        env=_env(project),
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    assert names == READ_ONLY | {"run_command"}


def test_the_python_api_loads_the_packs_the_config_enables(project: Path) -> None:
    plain, result = load_manifests([bundled_manifests()], project_dir=project)
    assert result.diagnostics == []
    assert {t.name for t in plain.tools()} == READ_ONLY
    everything, result = load_manifests(
        [bundled_manifests()], project_dir=project, config=EVERY_KEY
    )
    assert result.diagnostics == []
    assert {t.name for t in everything.tools()} == READ_ONLY | WRITES | {
        "http_get",
        "http_request",
        "run_command",
        "git_commit",
    }
    status = everything.call("git_status", {})
    assert status.ok
    assert "app.py" in status.text
    # side effects need approval: without an approver the call is refused, nothing written
    refused = everything.call("write_file", {"path": "new.txt", "content": "x"})
    assert not refused.ok
    assert not (project / "new.txt").exists()


def test_a_pack_referenced_without_its_config_refuses_in_the_handler(project: Path) -> None:
    """A team manifest may name a dangerous handler without ``enabled_when``: the handler's
    own check keeps it off until the config says otherwise."""
    manifest = project.parent / "mine.yaml"
    manifest.write_text(
        "version: 1\ntools:\n"
        "  - {handler: 'tooldeck.handlers.files_write:write_file', side_effects: true}\n"
        "  - {handler: 'tooldeck.handlers.commands:run_command', side_effects: true}\n"
        "  - {handler: 'tooldeck.handlers.http:http_get'}\n"
        "  - {handler: 'tooldeck.handlers.git:git_commit', side_effects: true}\n",
        encoding="utf-8",
    )
    registry = ToolRegistry(project_dir=project, allow_side_effects=True)
    _, result = load_manifests([manifest], registry=registry)
    assert result.diagnostics == []
    registry_calls = {
        "write_file": {"path": "x.txt", "content": "x"},
        "run_command": {"command": "ls"},
        "http_get": {"url": "http://127.0.0.1:9/"},
        "git_commit": {"message": "m", "all": True},
    }
    for name, arguments in registry_calls.items():
        outcome = registry.call(name, arguments)
        assert not outcome.ok, name
        assert outcome.error is not None, name
        assert outcome.error.kind == "not_enabled", outcome.text
    assert not (project / "x.txt").exists()
    assert _git(project, "log", "--format=%s") == "First version\n"


async def test_the_time_pack_attaches_the_reference_server_and_reshapes_its_tools(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """time.yaml's worked example of `mcp_servers` and `use:`: a fixed argument, a default, and
    renamed ones reach the real server (installed with the test dependencies)."""
    from tooldeck.mcp import attach_servers

    monkeypatch.setenv("PATH", _env(project)["PATH"])  # where pip put mcp-server-time
    config = {"tooldeck": {"time": {"enabled": True}}}
    registry, result = load_manifests([bundled_manifests()], project_dir=project, config=config)
    assert result.diagnostics == []
    async with attach_servers(registry):
        utc = await registry.acall("utc_now", {})
        assert utc.ok, utc.text
        assert json.loads(utc.text)["timezone"] == "UTC"
        refused = await registry.acall("utc_now", {"timezone": "Asia/Tokyo"})
        assert refused.error is not None
        assert refused.error.kind == "invalid_arguments"
        here = await registry.acall("current_time", {})
        assert json.loads(here.text)["timezone"] == "UTC"  # the manifest's default
        converted = await registry.acall(
            "convert_time", {"from_timezone": "UTC", "to_timezone": "Asia/Tokyo", "time": "12:00"}
        )
        assert converted.ok, converted.text
        assert json.loads(converted.text)["target"]["datetime"].endswith("T21:00:00+09:00")
