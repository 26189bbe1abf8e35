"""A failed call to an attached server's tool names the tool the model called, once.

The model called ``now`` (a ``use:`` entry) or ``f_soft`` (a raw tool under a
``prefix``); the server knows ``get_current_time`` or ``soft``. Whatever went
wrong (an ``isError`` result, a JSON-RPC error, no answer in time), the message
says the called name and the server's reason, without the SDK's "Error
executing tool get_current_time:" after tooldeck's own ``Error (kind):``.
Servers: ``mcp-server-time`` from PyPI and the ``failing`` mode of
``mcp_fake_servers.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.integration.test_mcp_use import NOW, TIME, load, manifest, project
from tooldeck.mcp import attach_servers
from tooldeck.mcp._attaching.callerrors import server_words

pytestmark = pytest.mark.slow

FAKES = Path(__file__).with_name("mcp_fake_servers.py")

BAD_ZONE = "Invalid timezone: 'No time zone found with key Bad/Zone'"


def failing_manifest(tools: str) -> str:
    command = [sys.executable, str(FAKES), "failing"]
    text = manifest(tools, prefix="f_", timeout="1s")
    return text.replace("name: time", "name: flaky").replace(json.dumps(TIME), json.dumps(command))


async def test_a_server_error_names_the_use_entry_not_the_remote_tool(tmp_path):
    registry = load(tmp_path, manifest(NOW))
    async with attach_servers(registry):
        result = await registry.acall("now", {"tz": "Bad/Zone"})
    assert result.error is not None
    assert result.error.kind == "mcp_error"
    assert result.text == (f"Error (mcp_error): tool 'now' on MCP server 'time' failed: {BAD_ZONE}")


@pytest.mark.parametrize(
    ("tool", "kind", "words"),
    [
        ("soft", "mcp_error", "failed: it failed the soft way"),
        ("hard", "mcp_error", "failed: it failed the hard way"),
        ("slow", "timeout", None),
    ],
)
async def test_every_kind_of_failure_names_the_called_tool_once(tmp_path, tool, kind, words):
    shaped = f"""
    - name: shaped_{tool}
      use: flaky/{tool}
    """
    for tools, called in ((shaped, f"shaped_{tool}"), ("", f"f_{tool}")):
        registry = load(tmp_path, failing_manifest(tools))
        async with attach_servers(registry):
            result = await registry.acall(called, {})
        assert result.error is not None
        assert result.error.kind == kind
        if words is None:  # the registry's timeout or the attachment's, whichever ends first
            assert result.text.startswith(f"Error (timeout): tool {called!r} ")
            assert "within 1 s" in result.text
        else:
            assert result.text == f"Error ({kind}): tool {called!r} on MCP server 'flaky' {words}"
        assert result.text.count("Error") == 1
        assert f"'{tool}'" not in result.text  # the server's own name for it is not shown


def test_tooldeck_call_prints_the_failure_once_naming_the_called_tool(tmp_path, run_line):
    root = project(tmp_path, manifest(NOW))
    done = run_line("call", "now", "--args", '{"tz": "Bad/Zone"}', cwd=root)
    assert done.exit_code == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"Error (mcp_error): tool 'now' on MCP server 'time' failed: {BAD_ZONE}\n"
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Error executing tool get: boom", "boom"),
        ("error calling tool 'get': boom", "boom"),
        ('Error executing tool "get"', "it gave no reason"),
        ("", "it gave no reason"),
        ("Error executing tool getter: boom", "Error executing tool getter: boom"),
        ("No order O-1; Error executing tool get: x", "No order O-1; Error executing tool get: x"),
    ],
)
def test_only_the_sdks_prefix_naming_the_remote_tool_is_cut(text, words):
    assert server_words(text, "get") == words
