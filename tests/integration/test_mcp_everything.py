"""The reference ``everything`` MCP server behind a ``tooldeck serve`` gateway (opt-in).

It needs Node and the npm registry, so it runs only when asked::

    npm install --prefix /tmp/everything @modelcontextprotocol/server-everything
    TOOLDECK_EVERYTHING=/tmp/everything/node_modules/.bin/mcp-server-everything \\
        .venv/bin/python -m pytest tests/integration/test_mcp_everything.py

``TOOLDECK_EVERYTHING`` is the server's executable (run with ``stdio``), or a
``.js`` entry file (run with ``node``). Checked with server-everything 2.0.0.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

ENTRY = os.environ.get("TOOLDECK_EVERYTHING", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ENTRY, reason="set TOOLDECK_EVERYTHING to server-everything's CLI"),
]

TOOLDECK = Path(sys.executable).parent / "tooldeck"
DEADLINE = 60.0


def command() -> list[str]:
    if ENTRY.endswith(".js"):
        return [shutil.which("node") or "node", ENTRY, "stdio"]
    return [ENTRY, "stdio"]


MANIFEST = f"""version: 1
mcp_servers:
  - name: everything
    command: {json.dumps(command())}
    via: client
    prefix: ev_
    denied_prompts: [completable-prompt]
prompts:
  - name: weather_prompt
    use: everything/args-prompt
    description: Ask about the weather in a city.
"""


async def test_its_prompts_are_reachable_through_the_gateway(tmp_path):
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    params = StdioServerParameters(
        command=str(TOOLDECK), args=["serve", "-m", "tools.yaml"], cwd=str(tmp_path)
    )
    with (tmp_path / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
        ):
            async with asyncio.timeout(DEADLINE):
                await session.initialize()
                listed = {p.name: p for p in (await session.list_prompts()).prompts}
                assert {"ev_simple-prompt", "ev_resource-prompt", "weather_prompt"} <= set(listed)
                assert "ev_completable-prompt" not in listed
                assert "ev_args-prompt" not in listed  # presented by the use: entry
                required = {a.name: a.required for a in listed["weather_prompt"].arguments or ()}
                assert required == {"city": True, "state": False}

                weather = await session.get_prompt("weather_prompt", {"city": "Paris"})
                text = weather.messages[0].content
                assert isinstance(text, types.TextContent)
                assert "Paris" in text.text

                embedded = await session.get_prompt(
                    "ev_resource-prompt", {"resourceType": "Text", "resourceId": "1"}
                )
                blocks = [m.content for m in embedded.messages]
                assert any(isinstance(b, types.EmbeddedResource) for b in blocks), blocks

                listed_resources = (await session.list_resources()).resources
                names = {r.uri: r.name for r in listed_resources}
                doc = "demo://resource/static/document/architecture.md"
                assert names[doc] == "ev_architecture.md"  # URIs unchanged, names prefixed
                text = (await session.read_resource(doc)).contents[0]
                assert isinstance(text, types.TextResourceContents)
                assert text.text
                templates = (await session.list_resource_templates()).resource_templates
                assert "demo://resource/dynamic/blob/{resourceId}" in {
                    t.uri_template for t in templates
                }
                blob = (await session.read_resource("demo://resource/dynamic/blob/3")).contents[0]
                assert isinstance(blob, types.BlobResourceContents)

                # Its tool's image comes through the gateway as an image, not as words.
                tiny = await session.call_tool("ev_get-tiny-image", {})
                assert not tiny.is_error
                images = [b for b in tiny.content if isinstance(b, types.ImageContent)]
                assert len(images) == 1
                assert images[0].mime_type == "image/png"
