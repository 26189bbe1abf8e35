"""tooldeck.providers.mcp: the Tool wire shape, checked against the installed mcp types."""

import mcp.types

from tooldeck._hints import tool_hints
from tooldeck.providers import export_tools


def test_mcp_shape_validates_against_installed_tool_model(registry):
    tools = export_tools(registry, "mcp")
    assert len(tools) == len(registry.tools())
    for tool, spec in zip(tools, registry.tools(), strict=True):
        model = mcp.types.Tool.model_validate(tool)
        assert model.model_dump(by_alias=True, exclude_none=True) == tool
        assert model.name == registry.safe_name(spec.name)
        assert model.input_schema == registry.input_schema(spec.name)
        # Only declared hints: a tool that declares none has no annotations at all.
        assert tool.get("annotations") == (tool_hints(spec) or None)
    assert tools[4] == {
        "name": "delete_file",
        "description": "Delete a file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
        "annotations": {"destructiveHint": True, "idempotentHint": True},
    }
    assert "annotations" not in tools[0]  # search: declares nothing, so no readOnlyHint
