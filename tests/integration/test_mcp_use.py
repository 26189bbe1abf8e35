"""Manifests that attach a third-party MCP server and reshape its tools (``use:`` + ``args``).

The server is ``mcp-server-time`` from PyPI (a test dependency), launched with
``sys.executable -m mcp_server_time``; manifests are real YAML files in
``tmp_path``, loaded with :func:`tooldeck.manifest.load_manifests` or through
the real CLI.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tooldeck import ToolRegistry
from tooldeck.manifest import LiveManifests, load_manifests
from tooldeck.mcp import attach_servers

pytestmark = pytest.mark.slow

TIME = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def manifest(tools: str = "", **server: Any) -> str:
    """A manifest declaring the time server (options in ``server``) and ``tools``."""
    lines = [
        "version: 1",
        "mcp_servers:",
        "  - name: time",
        f"    command: {json.dumps(TIME)}",
        "    via: client",
    ]
    lines += [f"    {key}: {json.dumps(value)}" for key, value in server.items()]
    text = "\n".join(lines) + "\n"
    if tools:
        text += "tools:\n" + textwrap.indent(textwrap.dedent(tools).strip("\n"), "  ") + "\n"
    return text


def load(tmp_path: Path, text: str) -> ToolRegistry:
    (tmp_path / "time.yaml").write_text(text, encoding="utf-8")
    registry, result = load_manifests([tmp_path])
    assert result.diagnostics == [], result.diagnostics
    return registry


NOW = """
- name: now
  use: time/get_current_time
  description: The current time where the user is.
  tags: [clock]
  args:
    timezone:
      name: tz
      description: IANA timezone name, e.g. Europe/Paris
      default: Europe/Paris
"""


async def test_a_use_entry_renames_redescribes_and_defaults_the_remote_tool(tmp_path):
    registry = load(tmp_path, manifest(NOW, prefix="time_"))
    async with attach_servers(registry) as attachment:
        assert attachment.health()["time"].ok
        names = {spec.name for spec in registry.tools()}
        # The reshaped tool replaces the raw get_current_time; convert_time stays as it is.
        assert names == {"now", "time_convert_time"}
        spec = registry.get_tool("now")
        assert spec is not None
        assert spec.description == "The current time where the user is."
        assert "clock" in spec.tags
        assert "mcp:time" in spec.tags
        schema = registry.input_schema("now")
        assert set(schema["properties"]) == {"tz"}
        assert schema["properties"]["tz"]["default"] == "Europe/Paris"
        assert "required" not in schema
        paris = await registry.acall("now", {})
        assert paris.ok, paris.text
        assert json.loads(paris.text)["timezone"] == "Europe/Paris"
        tokyo = await registry.acall("now", {"tz": "Asia/Tokyo"})
        assert json.loads(tokyo.text)["timezone"] == "Asia/Tokyo"
        wrong = await registry.acall("now", {"tz": 5})
        assert not wrong.ok
        assert wrong.error is not None
        assert wrong.error.kind == "invalid_arguments"


async def test_a_hidden_argument_is_always_sent_with_its_fixed_value(tmp_path):
    tools = """
    - name: to_tokyo
      use: time/convert_time
      description: Convert a time of day in some timezone to Tokyo time.
      args:
        target_timezone: {value: Asia/Tokyo}
        source_timezone: {name: from_zone}
    """
    registry = load(tmp_path, manifest(tools))
    async with attach_servers(registry):
        schema = registry.input_schema("to_tokyo")
        assert set(schema["properties"]) == {"from_zone", "time"}
        assert sorted(schema["required"]) == ["from_zone", "time"]
        result = await registry.acall("to_tokyo", {"from_zone": "UTC", "time": "12:00"})
        assert result.ok, result.text
        assert json.loads(result.text)["target"]["timezone"] == "Asia/Tokyo"
        # The model cannot override the hidden value by naming it: the call is refused.
        named = await registry.acall(
            "to_tokyo",
            {"from_zone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"},
        )
        assert named.error is not None
        assert named.error.kind == "invalid_arguments"


async def test_entries_that_do_not_fit_the_live_tool_are_left_out_with_the_reason(tmp_path):
    tools = """
    - name: ghost
      use: time/get_time
    - name: bad_value
      use: time/get_current_time
      args:
        timezone: {value: 5}
    """
    registry = load(tmp_path, manifest(tools))
    async with attach_servers(registry) as attachment:
        health = attachment.health()["time"]
        assert health.ok
        unresolved = " | ".join(health.unresolved)
        assert "ghost: MCP server 'time' has no tool 'get_time'" in unresolved
        assert "bad_value: value for 'timezone': 5 does not fit" in unresolved
        assert registry.get_tool("ghost") is None
        assert registry.get_tool("bad_value") is None
        assert registry.get_tool("convert_time") is not None  # the rest of the server works


async def test_denied_allowed_side_effects_and_timeout_come_from_the_declaration(tmp_path):
    text = manifest(denied_tools=["convert_time"], side_effects=True, timeout="7s")
    registry = load(tmp_path, text)
    async with attach_servers(registry):
        assert [s.name for s in registry.tools()] == ["get_current_time"]
        spec = registry.get_tool("get_current_time")
        assert spec is not None
        assert spec.side_effects is True
        assert spec.timeout == 7.0
        denied = await registry.acall("get_current_time", {"timezone": "UTC"})
        assert not denied.ok  # no approver: side effects are denied
        assert denied.error is not None
        assert denied.error.kind == "denied"


async def test_a_use_entry_may_clear_side_effects_the_server_declares(tmp_path):
    tools = """
    - name: now
      use: time/get_current_time
      side_effects: false
    """
    registry = load(tmp_path, manifest(tools, side_effects=True))
    async with attach_servers(registry):
        assert registry.get_tool("now").side_effects is False  # type: ignore[union-attr]
        assert registry.get_tool("convert_time").side_effects is True  # type: ignore[union-attr]
        assert (await registry.acall("now", {"timezone": "UTC"})).ok


async def test_a_server_that_waits_for_first_use_connects_on_ensure_fresh(tmp_path):
    registry = load(tmp_path, manifest(initialize_on_startup=False))
    async with attach_servers(registry) as attachment:
        assert attachment.health()["time"].connects == 0
        assert registry.get_tool("get_current_time") is None
        await attachment.ensure_fresh()
        assert attachment.health()["time"].connects == 1
        assert registry.get_tool("get_current_time") is not None


async def test_editing_use_entries_republishes_without_reconnecting(tmp_path):
    path = tmp_path / "time.yaml"
    path.write_text(manifest(NOW), encoding="utf-8")
    registry = ToolRegistry()
    live = LiveManifests(registry, [tmp_path])
    live.load()
    async with attach_servers(registry) as attachment:
        assert registry.get_tool("now") is not None
        path.write_text(manifest(NOW.replace("name: now", "name: clock")), encoding="utf-8")
        live.apply([path])
        for _ in range(100):  # the attachment follows on its loop
            if registry.get_tool("clock") is not None:
                break
            await asyncio_sleep()
        assert registry.get_tool("now") is None
        assert registry.get_tool("clock") is not None
        assert attachment.health()["time"].connects == 1
        assert (await registry.acall("clock", {})).ok


async def test_editing_the_server_declaration_reconnects_it(tmp_path):
    path = tmp_path / "time.yaml"
    path.write_text(manifest(), encoding="utf-8")
    registry = ToolRegistry()
    live = LiveManifests(registry, [tmp_path])
    live.load()
    async with attach_servers(registry) as attachment:
        assert registry.get_tool("get_current_time") is not None
        path.write_text(manifest(prefix="t_"), encoding="utf-8")
        live.apply([path])
        for _ in range(500):
            if registry.get_tool("t_get_current_time") is not None:
                break
            await asyncio_sleep()
        assert registry.get_tool("get_current_time") is None
        assert (await registry.acall("t_get_current_time", {"timezone": "UTC"})).ok
        assert attachment.health()["time"].connects == 1  # a new server state, connected once


async def asyncio_sleep() -> None:
    import asyncio

    await asyncio.sleep(0.02)


# ------------------------------------------------------------------------------ the CLI


def project(tmp_path: Path, text: str) -> Path:
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "time.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_cli_list_call_and_export_see_the_attached_tools(tmp_path, run_line):
    root = project(tmp_path, manifest(NOW, prefix="time_"))
    listed = run_line("list", "--json", cwd=root)
    assert listed.exit_code == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert {t["name"] for t in data["tools"]} == {"now", "time_convert_time"}
    status = data["mcp_servers"][0]["status"]
    assert status["ok"] is True
    assert sorted(status["tools"]) == ["now", "time_convert_time"]
    called = run_line("call", "now", "--args", '{"tz": "Asia/Tokyo"}', cwd=root)
    assert called.exit_code == 0, called.stderr
    assert json.loads(called.stdout)["timezone"] == "Asia/Tokyo"
    exported = run_line("export", "--provider", "openai-chat", cwd=root)
    assert exported.exit_code == 0, exported.stderr
    names = {d["function"]["name"] for d in json.loads(exported.stdout)}
    assert names == {"now", "time_convert_time"}
    offline = run_line("list", "--json", "--offline", cwd=root)
    data = json.loads(offline.stdout)
    assert data["tools"] == []
    assert data["unattached_uses"][0]["use"] == "time/get_current_time"
    assert data["mcp_servers"][0]["status"] == {"checked": False}


def test_cli_lint_checks_use_entries_against_the_live_server(tmp_path, run_line):
    tools = """
    - name: ghost
      use: time/get_time
    - name: shaped
      use: time/convert_time
      args:
        target: {default: UTC}
    - name: nowhere
      use: clock/now
    - name: convert_time
      handler: tooldeck.handlers.files:read_file
      description: A local tool that takes the remote tool's name.
    """
    root = project(tmp_path, manifest(tools))
    result = run_line("lint", "--format", "json", cwd=root)
    assert result.exit_code == 1, result.stderr
    found = {(d["code"], d["line"]): d["message"] for d in json.loads(result.stdout)["diagnostics"]}
    codes = sorted(code for code, _ in found)
    assert codes == ["TD413", "TD413", "TD413"], found
    messages = " | ".join(found.values())
    assert "has no tool 'get_time' (it offers: convert_time, get_current_time)" in messages
    assert "has no argument 'target'" in messages
    assert "MCP server 'clock' is not declared" in messages
    offline = run_line("lint", "--format", "json", "--offline", cwd=root)
    offline_codes = [d["code"] for d in json.loads(offline.stdout)["diagnostics"]]
    assert offline_codes == ["TD413"]  # only what needs no connection


def test_cli_lint_reports_shadowing_and_an_unreachable_server(tmp_path, run_line):
    text = manifest(
        """
        - name: convert_time
          handler: tooldeck.handlers.files:read_file
          description: A local tool that takes the remote tool's name.
        """
    )
    text = text.replace(
        "mcp_servers:\n",
        "mcp_servers:\n  - name: broken\n    command: [/nonexistent/mcp-server]\n    via: client\n",
    )
    root = project(tmp_path, text)
    result = run_line("lint", "--format", "json", cwd=root)
    found = json.loads(result.stdout)["diagnostics"]
    by_code = {d["code"]: d for d in found}
    assert set(by_code) == {"TD412", "TD414"}, found
    assert "cannot reach MCP server 'broken'" in by_code["TD412"]["message"]
    assert by_code["TD414"]["message"].startswith(
        "tool 'convert_time' shadows the tool 'convert_time' of MCP server 'time'"
    )
    assert result.exit_code == 0  # warnings only
    listed = run_line("list", cwd=root)
    assert "tooldeck: MCP server 'broken'" in listed.stderr
    assert "tool 'convert_time' is shadowed" in listed.stderr


# ------------------------------------------------------------------- serving as a gateway


async def test_tooldeck_serve_also_serves_the_attached_and_reshaped_tools(tmp_path):
    from mcp import ClientSession, StdioServerParameters, stdio_client

    root = project(tmp_path, manifest(NOW, prefix="time_"))
    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / "tooldeck"),
        args=["serve", "-m", str(root / "manifests")],
        cwd=str(root),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        assert set(tools) == {"now", "time_convert_time"}
        assert set(tools["now"].input_schema["properties"]) == {"tz"}
        result = await session.call_tool("now", {"tz": "Asia/Tokyo"})
        assert not result.is_error
        assert '"timezone": "Asia/Tokyo"' in result.content[0].text  # type: ignore[union-attr]
