"""A ``use:`` tool takes exactly the arguments its reshaped schema shows, from every entry point.

An old (renamed) name, a hidden argument or a key of the model's own is
``invalid_arguments`` naming it, whatever the server's schema says about other
properties; nothing is dropped on the way to the server. Checked through
``registry.acall``, ``tooldeck call``, ``tooldeck serve`` (a real MCP client over
stdio) and the model loop (the loopback OpenAI server), against the PyPI server
``mcp-server-time`` and the hand-written ``echo`` server of
``mcp_fake_servers.py``, whose schema is open and which answers with the
arguments it received.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.integration.openai_server import ScriptedServer, Turn, call, say
from tests.integration.test_mcp_use import NOW, TIME, load, manifest, project
from tooldeck.mcp import attach_servers
from tooldeck.providers.openai import arun

pytestmark = pytest.mark.slow

FAKES = Path(__file__).with_name("mcp_fake_servers.py")

TO_TOKYO = """
- name: to_tokyo
  use: time/convert_time
  args:
    target_timezone: {value: Asia/Tokyo}
    source_timezone: {name: from_zone}
"""

REFUSED = [
    ({"timezone": "Asia/Tokyo"}, "'timezone' is called 'tz' here"),
    ({"tz": "Asia/Tokyo", "timezone": "UTC"}, "'timezone' is called 'tz' here"),
    ({"zone": "Asia/Tokyo"}, "unexpected argument 'zone'; expected: tz"),
]
"""Arguments ``now`` must refuse, and the line that says why."""


def invalid(text: str, line: str, tool: str = "now") -> bool:
    return text.startswith(f"Error (invalid_arguments): invalid arguments for tool {tool!r}:") and (
        f"\n- {line}" in text
    )


async def test_old_names_hidden_and_unknown_arguments_are_refused_naming_each(tmp_path):
    registry = load(tmp_path, manifest(NOW + TO_TOKYO))
    async with attach_servers(registry):
        for arguments, line in REFUSED:
            result = await registry.acall("now", arguments)
            assert result.error is not None, arguments
            assert result.error.kind == "invalid_arguments"
            assert invalid(result.text, line), result.text
        hidden = await registry.acall(
            "to_tokyo", {"from_zone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"}
        )
        assert invalid(hidden.text, "'target_timezone' is set by the tool itself", "to_tokyo")
        old = await registry.acall("to_tokyo", {"source_timezone": "UTC", "time": "12:00"})
        assert invalid(old.text, "'source_timezone' is called 'from_zone' here", "to_tokyo")
        assert (await registry.acall("now", {"tz": "Asia/Tokyo"})).ok


async def test_the_schema_is_closed_and_carries_no_remote_title(tmp_path):
    registry = load(tmp_path, manifest(NOW))
    async with attach_servers(registry):
        schema = registry.input_schema("now")
    # mcp-server-time says nothing of other properties and titles its arguments
    # get_current_timeArguments, with "title": "Timezone" on the argument.
    assert schema == {
        "type": "object",
        "properties": {
            "tz": {
                "type": "string",
                "description": "IANA timezone name, e.g. Europe/Paris",
                "default": "Europe/Paris",
            }
        },
        "additionalProperties": False,
    }


async def test_an_open_remote_schema_receives_exactly_what_the_reshaped_one_shows(tmp_path):
    command = [sys.executable, str(FAKES), "echo"]
    text = manifest(
        """
        - name: say
          use: time/echo
          args:
            text: {name: message}
        """
    ).replace(json.dumps(TIME), json.dumps(command))
    registry = load(tmp_path, text)
    async with attach_servers(registry):
        sent = await registry.acall("say", {"message": "hi"})
        assert json.loads(sent.text) == {"text": "hi"}  # the server echoes what it received
        extra = await registry.acall("say", {"message": "hi", "loud": True})
        assert invalid(extra.text, "unexpected argument 'loud'; expected: message", "say")
        old = await registry.acall("say", {"text": "hi"})
        assert invalid(old.text, "'text' is called 'message' here", "say")


def test_tooldeck_call_refuses_them_and_list_and_export_show_the_closed_schema(tmp_path, run_line):
    root = project(tmp_path, manifest(NOW))
    for arguments, line in REFUSED:
        done = run_line("call", "now", "--args", json.dumps(arguments), cwd=root)
        assert done.exit_code == 1
        assert done.stdout == ""
        assert f"invalid arguments for tool 'now':\n- {line}" in done.stderr, done.stderr
    exported = run_line("export", "--provider", "mcp", cwd=root)
    [now] = [t for t in json.loads(exported.stdout) if t["name"] == "now"]
    assert now["inputSchema"]["additionalProperties"] is False
    assert set(now["inputSchema"]["properties"]) == {"tz"}
    assert "title" not in now["inputSchema"]
    listed = json.loads(run_line("list", "--json", cwd=root).stdout)
    [row] = [t for t in listed["tools"] if t["name"] == "now"]
    assert [p["name"] for p in row["params"]] == ["tz"]


def test_tooldeck_serve_refuses_them_and_lists_the_schema_export_prints(tmp_path, run_line):
    root = project(tmp_path, manifest(NOW))
    exported = run_line("export", "--provider", "mcp", cwd=root)
    [printed] = [t for t in json.loads(exported.stdout) if t["name"] == "now"]
    served, answers = asyncio.run(serve_and_call(root, [a for a, _ in REFUSED]))
    assert served.input_schema == printed["inputSchema"]
    for result, (_, line) in zip(answers, REFUSED, strict=True):
        assert result.is_error
        assert invalid(result.content[0].text, line)


async def serve_and_call(root: Path, calls: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    """``now`` as ``tooldeck serve`` lists it, and its answers to ``calls``, over stdio."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / "tooldeck"),
        args=["serve", "-m", str(root / "manifests")],
        cwd=str(root),
    )
    # errlog given: stdio_client's default is the sys.stderr of when it was first imported,
    # which may be run_line's captured stream (no file descriptor).
    with (root / "serve.log").open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            [served] = [t for t in (await session.list_tools()).tools if t.name == "now"]
            return served, [await session.call_tool("now", arguments) for arguments in calls]


async def test_the_model_loop_answers_them_as_invalid_arguments(tmp_path):
    registry = load(tmp_path, manifest(NOW))
    calls = [call("now", arguments, f"c{i}") for i, (arguments, _) in enumerate(REFUSED)]
    with ScriptedServer() as model:
        model.script(Turn(calls=tuple(calls)), say("Sorry."))
        async with (
            openai.AsyncOpenAI(base_url=model.url, api_key="test", max_retries=0) as client,
            attach_servers(registry),
        ):
            result = await arun(client, model="m", input="Time?", registry=registry)
        outputs = {
            item["call_id"]: item["output"]
            for item in model.bodies()[1]["input"]
            if item.get("type") == "function_call_output"
        }
    assert [c.result.error.kind for c in result.calls if c.result.error] == [
        "invalid_arguments"
    ] * len(REFUSED)
    for i, (_, line) in enumerate(REFUSED):
        assert invalid(outputs[f"c{i}"], line), outputs[f"c{i}"]
