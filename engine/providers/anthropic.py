"""Anthropic: the Messages API ``tools`` entry, ``{"name", "description", "input_schema"}``.

Anthropic takes JSON Schema as written (``$ref``, ``$defs``, type lists), so
the schema goes out as the registry holds it; there is no strict mode to
rewrite for. No ``anthropic`` SDK import: the shape is plain data.
"""

from __future__ import annotations

from typing import Any

from .._model import ToolSpec

__all__ = ["anthropic_tool"]


def anthropic_tool(
    spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool
) -> dict[str, Any]:
    """One Anthropic tool definition; ``strict`` is OpenAI's and ignored here."""
    return {"name": name, "description": spec.description, "input_schema": schema}
