"""MCP: the ``Tool`` wire shape a server lists (``inputSchema``, ``annotations``).

The keys are camelCase, as ``mcp.types.Tool`` serialises by alias, which the
tests check against the installed package. This module must not import
``mcp``: exporting definitions is pure data, and the SDK (pydantic models,
anyio) would make ``import tooldeck.providers`` heavy for every caller.
"""

from __future__ import annotations

from typing import Any

from tooldeck._model import ToolSpec

__all__ = ["mcp_tool"]


def mcp_tool(spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool) -> dict[str, Any]:
    """One MCP ``Tool``; the hints come from the spec's ``side_effects`` and ``idempotent``.

    ``strict`` is OpenAI's and ignored here: MCP has no such mode.
    """
    return {
        "name": name,
        "description": spec.description,
        "inputSchema": schema,
        "annotations": {
            "readOnlyHint": not spec.side_effects,
            "destructiveHint": spec.side_effects,
            "idempotentHint": spec.idempotent,
        },
    }
