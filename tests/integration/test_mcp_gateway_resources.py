"""An attached server's resources and templates, through ``tooldeck serve`` and in Python.

The servers are real ``MCPServer`` processes (``mcp_library_server.py``) over
stdio; the gateway is the real console script, spoken to with ``ClientSession``.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.integration.test_mcp_gateway_prompts import LIBRARY, gateway, library, server
from tooldeck import ResourceError, ToolRegistry
from tooldeck.mcp import attach_servers

pytestmark = pytest.mark.slow

MANIFEST = (
    "version: 1\nmcp_servers:\n"
    + server("lib", prefix="lib_")
    + server("other", prefix="other_", denied_resources=["info://about"])
    + server("third", prefix="third_", allowed_resources=["items://{item}"])
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "README.md").write_text("local readme", encoding="utf-8")
    return tmp_path


async def test_the_gateway_lists_and_reads_attached_resources(project):
    async with gateway(project) as session:
        fixed = {r.uri: r for r in (await session.list_resources()).resources}
        # URIs as the server gives them; the first declared server holds one both offer.
        assert set(fixed) == {"info://about", "broken://now"}
        about = fixed["info://about"]
        assert (about.name, about.mime_type) == ("lib_about", "text/plain")
        assert about.description == "What this server is."
        templates = {
            t.uri_template: t for t in (await session.list_resource_templates()).resource_templates
        }
        assert set(templates) == {"items://{item}"}
        assert templates["items://{item}"].name == "lib_item"

        read = await session.read_resource("info://about")
        (contents,) = read.contents
        assert isinstance(contents, types.TextResourceContents)
        assert (contents.uri, contents.text) == ("info://about", "a library of prompts")
        item = await session.read_resource("items://forty-two")
        assert item.contents[0].text == "item forty-two"  # type: ignore[union-attr]
        with pytest.raises(MCPError) as unknown:
            await session.read_resource("items-nowhere://x")
        assert "no resource has this URI" in unknown.value.message
        with pytest.raises(MCPError) as failed:
            await session.read_resource("broken://now")
        assert "resource 'broken://now' on MCP server 'lib' failed" in failed.value.message
        assert "Traceback" not in failed.value.message


async def test_the_gateway_passes_an_attached_tools_image_on_as_an_image(project):
    async with gateway(project) as session:
        result = await session.call_tool("lib_snapshot", {})
    assert not result.is_error
    kinds = [type(block).__name__ for block in result.content]
    assert kinds == ["TextContent", "ImageContent"]
    image = result.content[1]
    assert isinstance(image, types.ImageContent)
    assert image.mime_type == "image/png"
    assert base64.b64decode(image.data).startswith(b"\x89PNG")


async def test_a_failing_server_loses_its_resources_and_the_others_keep_theirs(tmp_path):
    down = tmp_path / "down"
    registry = ToolRegistry()
    library(registry, "other", prefix="b_", env={"LIBRARY_DOWN_FILE": str(down)})
    library(registry, "lib", prefix="a_", denied_resources=["items://{item}"])
    async with attach_servers(registry) as attachment:
        assert {s.key for s in registry.resources()} == {"info://about", "broken://now"}
        assert registry.get_resource("info://about").name == "b_about"  # declared first
        assert attachment.health()["lib"].resources_left_out == (
            "broken://now: MCP server 'other' holds the URI",
            "info://about: MCP server 'other' holds the URI",
        )
        assert registry.get_resource("items://{item}").name == "b_item"
        down.touch()
        await registry.acall("b_quit", {})
        await attachment.refresh("other")
        # other is gone: lib now holds info://about; its denied template stays out.
        assert registry.get_resource("info://about").name == "a_about"
        assert registry.get_resource("items://{item}") is None
        (contents,) = await registry.aread_resource("info://about")
        assert contents.text == "a library of prompts"
    assert registry.resources() == ()


async def test_a_local_resource_keeps_its_uri_and_reads_fail_in_words():
    registry = ToolRegistry()
    registry.add_resource("info://about", lambda: "ours", name="about")
    library(registry, "lib", prefix="a_")
    async with attach_servers(registry) as attachment:
        assert (await registry.aread_resource("info://about"))[0].text == "ours"
        assert any(
            line.startswith("info://about: a local resource holds the URI")
            for line in attachment.health()["lib"].resources_left_out
        )
        with pytest.raises(ResourceError) as failed:
            await registry.aread_resource("broken://now")
        assert failed.value.kind == "mcp_error"
        assert "resource 'broken://now' on MCP server 'lib' failed" in str(failed.value)


def test_the_manifest_keys_load(tmp_path):
    from tooldeck.manifest import load_manifests

    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    registry, result = load_manifests([tmp_path])
    assert result.diagnostics == [], result.diagnostics
    specs = {s.name: s for s in registry.mcp_servers()}
    assert specs["other"].denied_resources == ("info://about",)
    assert specs["third"].allowed_resources == ("items://{item}",)
    assert json.dumps(sys.executable) in MANIFEST
    assert LIBRARY.exists()
