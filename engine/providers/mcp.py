"""MCP: the ``Tool`` wire shape a server lists (``inputSchema``, ``annotations``).

The keys are camelCase, as ``mcp.types.Tool`` serialises by alias, which the
tests check against the installed package. This module must not import
``mcp``: exporting definitions is pure data, and the SDK (pydantic models,
anyio) would make ``import tooldeck.providers`` heavy for every caller.
"""

from __future__ import annotations

from typing import Any

from .._hints import tool_hints
from .._model import ToolSpec

__all__ = ["mcp_tool"]


def mcp_tool(spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool) -> dict[str, Any]:
    """One MCP ``Tool``; ``annotations`` are what ``tooldeck serve`` announces for it.

    Both come from :func:`tooldeck._hints.tool_hints`: only declared hints, and
    no ``annotations`` at all for a tool that declares none, so a client keeps
    MCP's cautious defaults. ``strict`` is OpenAI's and ignored here: MCP has
    no such mode.
    """
    tool: dict[str, Any] = {"name": name, "description": spec.description, "inputSchema": schema}
    hints = tool_hints(spec)
    if hints:
        tool["annotations"] = hints
    return tool
