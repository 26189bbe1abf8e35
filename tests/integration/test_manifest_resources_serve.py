"""Resources a manifest declares, served by the real ``tooldeck serve`` to the SDK's own client.

The manifest is a file on disk, the server is the console script over stdio with
``--reload``: the client lists and reads what the YAML declares, sees a reload that adds a
resource announced, and a broken edit leave the last good resources in place (every wait
there has the serve tests' deadline).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tests.integration.test_mcp_serve import TOOLDECK, Notes, _wait_for_stderr
from tests.manifests import save

pytestmark = pytest.mark.slow

MANIFEST = """version: 1
bundle: docs
resources:
  - {uri: "docs://readme", name: readme, description: The project's README.,
     mime_type: text/markdown, file: README.md}
  - uri_template: "files://{+path}"
    name: info
    description: What is known about one file of the project.
    handler: tooldeck.handlers.files:file_info
"""
EXTRA = '  - {uri: "docs://guide", name: guide, description: The guide., file: GUIDE.md}\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# Orders\n", encoding="utf-8")
    (tmp_path / "GUIDE.md").write_text("Read the README first.\n", encoding="utf-8")
    save(tmp_path / "manifests" / "docs.yaml", MANIFEST)
    return tmp_path


@contextlib.asynccontextmanager
async def session_of(project: Path, notes: Notes) -> AsyncIterator[ClientSession]:
    args = ["serve", "-m", "manifests", "--project-dir", ".", "--reload"]
    params = StdioServerParameters(command=str(TOOLDECK), args=args, cwd=str(project))
    with (project / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=notes) as session,
        ):
            await session.initialize()
            yield session


async def test_serve_lists_reads_and_reloads_manifest_resources(project: Path) -> None:
    notes = Notes()
    manifest = project / "manifests" / "docs.yaml"
    async with session_of(project, notes) as session:
        listed = (await session.list_resources()).resources
        assert [(str(r.uri), r.name, r.mime_type) for r in listed] == [
            ("docs://readme", "readme", "text/markdown")
        ]
        templates = (await session.list_resource_templates()).resource_templates
        assert [(t.uri_template, t.name) for t in templates] == [("files://{+path}", "info")]
        read = await session.read_resource("docs://readme")
        assert [c.text for c in read.contents] == ["# Orders\n"]  # type: ignore[union-attr]
        info = await session.read_resource("files://GUIDE.md")
        assert '"type": "file"' in info.contents[0].text  # type: ignore[union-attr]

        save(manifest, MANIFEST + EXTRA)
        await notes.wait_for("notifications/resources/list_changed")
        listed = (await session.list_resources()).resources
        assert [str(r.uri) for r in listed] == ["docs://readme", "docs://guide"]
        guide = await session.read_resource("docs://guide")
        assert guide.contents[0].text == "Read the README first.\n"  # type: ignore[union-attr]

        notes.methods.clear()
        save(manifest, MANIFEST + EXTRA.replace("GUIDE.md", "../GUIDE.md"))  # TD121
        await _wait_for_stderr(project, "TD121")
        assert "notifications/resources/list_changed" not in notes.methods
        kept = [str(r.uri) for r in (await session.list_resources()).resources]
        assert kept == ["docs://readme", "docs://guide"]
        assert (await session.read_resource("docs://guide")).contents

        save(manifest, MANIFEST)
        await notes.wait_for("notifications/resources/list_changed")
        with pytest.raises(MCPError, match="no resource has this URI"):
            await session.read_resource("docs://guide")
