"""``export --provider mcp`` and ``serve`` announce the same hints for a tool, only declared ones.

Local tools that declare side effects, declare none (``side_effects: false``),
carry a ``read-only`` tag or say nothing; tools of an attached server (the
``hinted`` mode of ``mcp_fake_servers.py``) whose annotations say read-only,
additive and open-world, destructive, both at once, or nothing, as raw tools
and through ``use:`` entries. ``tooldeck export`` runs in-process, ``tooldeck
serve`` as a process a real MCP client talks to over stdio.
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

FAKES = Path(__file__).with_name("mcp_fake_servers.py")

MANIFEST = f"""
version: 1
mcp_servers:
  - name: hinted
    command: {json.dumps([sys.executable, str(FAKES), "hinted"])}
    via: client
tools:
  - name: undeclared
    handler: tooldeck.handlers.files:read_file
    description: Says nothing about side effects.
  - name: declared_free
    handler: tooldeck.handlers.files:list_dir
    description: Says it has none.
    side_effects: false
  - name: tagged
    handler: tooldeck.handlers.files:search_text
    description: Tagged read-only.
    tags: [read-only]
  - name: writes
    handler: tooldeck.handlers.files:file_info
    description: Says it has some.
    side_effects: true
    effect: nothing really
    idempotent: true
  - name: look
    use: hinted/lookup
  - name: add_line
    use: hinted/append
  - name: quiet_append
    use: hinted/bare
    side_effects: false
"""

EXPECTED: dict[str, dict[str, bool] | None] = {
    "undeclared": None,
    "declared_free": {"readOnlyHint": True},
    "tagged": {"readOnlyHint": True},
    "writes": {"destructiveHint": True, "idempotentHint": True},
    "look": {"readOnlyHint": True},
    "add_line": {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
    "quiet_append": {"readOnlyHint": True},
    "wipe": {"destructiveHint": True, "idempotentHint": True},
    "contradict": {"readOnlyHint": False, "destructiveHint": True},
}
"""What each tool is announced with (None: no annotations); ``wipe`` and ``contradict``
are raw tools of the server (``contradict`` says read-only *and* destructive: it needs
approval, so it is announced destructive)."""


def test_export_and_serve_announce_the_same_declared_hints(tmp_path, run_line):
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "tools.yaml").write_text(textwrap.dedent(MANIFEST), "utf-8")
    exported = run_line("export", "--provider", "mcp", cwd=tmp_path)
    assert exported.exit_code == 0, exported.stderr
    printed = {t["name"]: t.get("annotations") for t in json.loads(exported.stdout)}
    served = asyncio.run(serve_annotations(tmp_path))
    assert printed == served
    assert printed == EXPECTED  # lookup, append and bare are reshaped: not there as they are


async def serve_annotations(root: Path) -> dict[str, Any]:
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
            tools = (await session.list_tools()).tools
    return {
        tool.name: tool.annotations.model_dump(by_alias=True, exclude_none=True)
        if tool.annotations is not None
        else None
        for tool in tools
    }
