"""An attached server's prompts, through ``tooldeck serve`` as a gateway and in the Python API.

The servers are real ``MCPServer`` processes (``mcp_library_server.py``)
attached over stdio with ``via: client``; the gateway is the real console
script, spoken to with the ``mcp`` package's ``ClientSession``. Every wait has
a generous deadline; nothing sleeps for a fixed time to let something happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tooldeck import ToolCallError, ToolRegistry
from tooldeck.mcp import attach_in_background, attach_servers

pytestmark = pytest.mark.slow

TOOLDECK = Path(sys.executable).parent / "tooldeck"
LIBRARY = Path(__file__).with_name("mcp_library_server.py")
DEADLINE = 30.0


def server(name: str, **options: Any) -> str:
    lines = [
        f"  - name: {name}",
        f"    command: {json.dumps([sys.executable, str(LIBRARY), name])}",
        "    via: client",
    ]
    lines += [f"    {key}: {json.dumps(value)}" for key, value in options.items()]
    return "\n".join(lines) + "\n"


MANIFEST = (
    "version: 1\nmcp_servers:\n"
    + server("lib", prefix="lib_", denied_prompts=["internal"])
    + server("other", prefix="other_", allowed_prompts=["greet", "review"])
    + "  - name: down\n"
    + f"    command: {json.dumps([sys.executable, '-c', 'import sys; sys.exit(3)'])}\n"
    + "    via: client\n"
    + "    prefix: down_\n"
    + """prompts:
  - name: local_note
    template: "Note: {text}"
    params: [{name: text}]
  - name: code_review
    use: lib/review
    description: Review code with the team's checklist.
    tags: [team]
"""
)


@contextlib.asynccontextmanager
async def gateway(project: Path) -> AsyncIterator[ClientSession]:
    """``tooldeck serve`` over stdio on ``project/tools.yaml``, and a session with it."""
    params = StdioServerParameters(
        command=str(TOOLDECK), args=["serve", "-m", "tools.yaml"], cwd=str(project)
    )
    with (project / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
        ):
            async with asyncio.timeout(DEADLINE):
                await session.initialize()
            yield session


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    return tmp_path


async def prompt_names(session: ClientSession) -> set[str]:
    return {prompt.name for prompt in (await session.list_prompts()).prompts}


async def test_the_gateway_lists_and_renders_attached_prompts(project):
    async with gateway(project) as session:
        listed = {prompt.name: prompt for prompt in (await session.list_prompts()).prompts}
        # lib: all but the denied one, prefixed; review is presented by the use: entry.
        # other: only the allowed ones. down: nothing, and the others are unaffected.
        assert set(listed) == {
            "local_note",
            "code_review",
            "lib_greet",
            "lib_picture",
            "lib_broken",
            "other_greet",
            "other_review",
        }
        greet = listed["lib_greet"]
        assert greet.description == "Greet someone by name."
        arguments = {a.name: a.required for a in greet.arguments or ()}
        assert arguments == {"name": True, "greeting": False}
        assert listed["code_review"].description == "Review code with the team's checklist."

        hello = await session.get_prompt("lib_greet", {"name": "Ada", "greeting": "Hi"})
        assert [(m.role, m.content) for m in hello.messages] == [
            ("user", types.TextContent(text="Hi, Ada!"))
        ]
        default = await session.get_prompt("other_greet", {"name": "Bo"})
        assert default.messages[0].content == types.TextContent(text="Hello, Bo!")

        # Several messages in their roles; an image block passed on as it is.
        review = await session.get_prompt("code_review", {"code": "x = 1"})
        assert [m.role for m in review.messages] == ["user", "assistant"]
        first = review.messages[0].content
        assert isinstance(first, types.TextContent)
        assert first.text == "Please review:\nx = 1"
        picture = await session.get_prompt("lib_picture", {})
        image = picture.messages[1].content
        assert isinstance(image, types.ImageContent)
        assert image.mime_type == "image/png"

        local = await session.get_prompt("local_note", {"text": "hi"})
        assert local.messages[0].content == types.TextContent(text="Note: hi")


async def test_errors_come_back_as_mcp_errors_that_name_the_prompt(project):
    async with gateway(project) as session:
        with pytest.raises(MCPError) as failed:
            await session.get_prompt("lib_broken", {})
        assert "lib_broken" in failed.value.message
        assert "MCP server 'lib'" in failed.value.message
        assert "Traceback" not in failed.value.message
        with pytest.raises(MCPError) as missing:
            await session.get_prompt("lib_greet", {})
        assert missing.value.code == types.INVALID_PARAMS
        assert "name" in missing.value.message
        for hidden in ("lib_internal", "other_picture", "lib_review"):
            with pytest.raises(MCPError) as unknown:
                await session.get_prompt(hidden, {})
            assert "unknown prompt" in unknown.value.message
        # The server still answers afterwards.
        assert (await session.get_prompt("lib_greet", {"name": "Cy"})).messages


async def test_a_server_that_adds_a_prompt_is_listed_again(project):
    async with gateway(project) as session:
        assert "lib_fresh" not in await prompt_names(session)
        added = await session.call_tool("lib_add_prompt", {"name": "fresh"})
        assert not added.is_error, added.content
        async with asyncio.timeout(DEADLINE):
            while "lib_fresh" not in await prompt_names(session):
                await asyncio.sleep(0.05)
        fresh = await session.get_prompt("lib_fresh", {})
        assert fresh.messages[0].content == types.TextContent(text="I am the prompt fresh")


# ------------------------------------------------------------------ Python API
def library(registry: ToolRegistry, name: str = "lib", **options: Any) -> None:
    registry.add_mcp_server(
        name, command=[sys.executable, str(LIBRARY), name], via="client", **options
    )


async def test_a_callable_tool_filter_sits_beside_allow_and_deny(caplog):
    seen: list[str] = []

    def no_prompt_tools(tool: Any) -> bool:
        seen.append(tool.name)
        return not tool.name.startswith("add_")

    async def refuse(tool: Any) -> bool:
        raise RuntimeError("the policy service is down")

    registry = ToolRegistry()
    library(registry, "lib", prefix="a_", tool_filter=no_prompt_tools)
    library(registry, "other", prefix="b_", tool_filter=refuse)
    library(registry, "third", prefix="c_", denied_tools=["echo"], tool_filter=no_prompt_tools)
    with caplog.at_level(logging.WARNING, logger="tooldeck.mcp"):
        async with attach_servers(registry) as attachment:
            names = {spec.name for spec in registry.tools()}
            # lib: add_prompt filtered out; other: the filter raises, so none;
            # third: echo denied (and not asked about), add_prompt filtered out.
            assert names == {"a_echo", "a_quit", "a_snapshot", "c_quit", "c_snapshot"}
            assert seen.count("echo") == 1
            health = attachment.health()
            assert health["other"].ok
            assert set(health["other"].prompts) >= {"b_greet"}  # prompts are not tools
    assert "tool_filter failed on tool 'echo'" in caplog.text
    assert "the policy service is down" in caplog.text


def test_filters_compare_by_identity():
    def keep(tool: Any) -> bool:
        return True

    registry = ToolRegistry()
    library(registry, "lib", tool_filter=keep)
    spec = registry.mcp_servers()[0]
    assert spec == spec.__class__(**spec.__dict__)
    assert spec != spec.__class__(**{**spec.__dict__, "tool_filter": lambda tool: True})


def test_sync_rendering_through_a_background_attachment():
    registry = ToolRegistry()
    library(registry, "lib")
    with attach_in_background(registry):
        message = registry.render_prompt("greet", {"name": "Ada"})
        assert (message.role, message.text) == ("user", "Hello, Ada!")
        with pytest.raises(ToolCallError) as several:
            registry.render_prompt("review", {"code": "x"})
        assert "arender_prompt" in several.value.message
    assert registry.get_prompt("greet") is None  # detached: gone


async def test_a_failing_server_loses_its_prompts_and_the_others_keep_theirs(tmp_path):
    down = tmp_path / "down"
    registry = ToolRegistry()
    library(registry, "lib", prefix="a_")
    library(registry, "other", prefix="b_", env={"LIBRARY_DOWN_FILE": str(down)})
    async with attach_servers(registry) as attachment:
        assert {"a_greet", "b_greet"} <= {p.name for p in registry.prompts()}
        down.touch()  # from now on it cannot start again
        await registry.acall("b_quit", {})  # and now it is gone
        await attachment.refresh("other")
        names = {p.name for p in registry.prompts()}
        assert "a_greet" in names
        assert not any(name.startswith("b_") for name in names)
        assert attachment.health()["other"].error
        messages = await registry.arender_prompt("a_greet", {"name": "Ada"})
        assert messages[0].text == "Hello, Ada!"


# ------------------------------------------------------------------ manifests and the CLI
def test_a_prompt_use_entry_loads_as_a_declaration(tmp_path):
    from tooldeck.manifest import load_manifests

    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    registry, result = load_manifests([tmp_path])
    assert result.diagnostics == [], result.diagnostics
    (use,) = registry.prompt_uses()
    assert (use.name, use.server, use.prompt, use.tags) == (
        "code_review",
        "lib",
        "review",
        ("team",),
    )
    assert use.origin is not None
    assert registry.get_prompt("code_review") is None  # a prompt once its server is listed
    spec = registry.mcp_servers()[0]
    assert spec.denied_prompts == ("internal",)


@pytest.mark.parametrize(
    ("entry", "code", "words"),
    [
        ("{name: p, use: lib/greet, params: [{name: x}]}", "TD117", "declares the arguments"),
        ("{name: p, use: lib/greet, role: user}", "TD117", "gives each message its role"),
        ("{name: p, use: lib/greet, template: hi}", "TD213", "has both 'template' and 'use'"),
        ("{name: p, use: nothing}", "TD213", "does not have the expected form"),
    ],
)
def test_a_prompt_use_entry_that_cannot_be_right_is_refused_at_load(tmp_path, entry, code, words):
    from tooldeck.manifest import load_manifests

    text = "version: 1\nmcp_servers:\n" + server("lib") + f"prompts:\n  - {entry}\n"
    (tmp_path / "tools.yaml").write_text(text, encoding="utf-8")
    _, result = load_manifests([tmp_path])
    found = [(d.code, d.message) for d in result.diagnostics]
    assert found, text
    assert found[0][0] == code, found
    assert words in found[0][1]


def cli_project(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "tools.yaml").write_text(MANIFEST + extra, encoding="utf-8")
    return tmp_path


def test_cli_list_shows_attached_prompts_and_use_entries(tmp_path, run_line):
    root = cli_project(tmp_path)
    listed = run_line("list", "--json", cwd=root)
    data = json.loads(listed.stdout)
    prompts = {p["name"]: p for p in data["prompts"]}
    assert prompts["code_review"]["use"] == "lib/review"
    assert prompts["code_review"]["server"] == "lib"
    assert prompts["code_review"]["role"] is None
    assert prompts["lib_greet"]["params"] == ["name", "greeting"]
    assert prompts["local_note"]["role"] == "assistant"
    lib = next(s for s in data["mcp_servers"] if s["name"] == "lib")
    assert "lib_greet" in lib["status"]["prompts"]
    assert set(lib["status"]["resources"]) == {"info://about", "broken://now", "items://{item}"}
    text = run_line("list", cwd=root).stdout
    assert "prompt code_review (use: lib/review)" in text
    assert "prompt lib_greet (MCP server lib)" in text
    offline = json.loads(run_line("list", "--json", "--offline", cwd=root).stdout)
    assert {k: v for k, v in offline["unattached_uses"][0].items() if k != "source"} == {
        "name": "code_review",
        "use": "lib/review",
        "prompt": True,
    }


def test_cli_lint_checks_prompt_use_entries(tmp_path, run_line):
    extra = """  - name: ghost
    use: lib/nothing_here
  - name: astray
    use: nowhere/greet
"""
    root = cli_project(tmp_path, extra)
    result = run_line("lint", "--format", "json", cwd=root)
    found = json.loads(result.stdout)["diagnostics"]
    unresolved = sorted(d["message"] for d in found if d["code"] == "TD413")
    assert len(unresolved) == 2, found
    assert "prompt 'astray': MCP server 'nowhere' is not declared in mcp_servers" in unresolved
    assert any(
        m.startswith("prompt 'ghost': MCP server 'lib' has no prompt 'nothing_here' (it offers:")
        for m in unresolved
    )
    assert result.exit_code == 1
    offline = run_line("lint", "--format", "json", "--offline", cwd=root)
    codes = [d["code"] for d in json.loads(offline.stdout)["diagnostics"]]
    assert codes == ["TD413"]
