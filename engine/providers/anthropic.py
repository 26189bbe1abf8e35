"""Anthropic: the Messages API ``tools`` entry, ``{"name", "description", "input_schema"}``.

Anthropic takes JSON Schema as written (``$ref``, ``$defs``, type lists), so
the schema goes out as the registry holds it; there is no strict mode to
rewrite for. No ``anthropic`` SDK import: the shape is plain data.

:func:`anthropic_tool_result` answers a ``tool_use`` block with a
:class:`~tooldeck.ToolResult`, images and PDFs included, for an application
that runs its own Messages API loop.
"""

from __future__ import annotations

from typing import Any

from .._model import ToolSpec
from ._media import anthropic_tool_result

__all__ = ["anthropic_tool", "anthropic_tool_result"]


def anthropic_tool(
    spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool
) -> dict[str, Any]:
    """One Anthropic tool definition; ``strict`` is OpenAI's and ignored here."""
    return {"name": name, "description": spec.description, "input_schema": schema}
