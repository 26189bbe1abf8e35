"""tooldeck.providers.mcp: the Tool wire shape, checked against the installed mcp types."""

import mcp.types

from tooldeck.providers import export_tools


def test_mcp_shape_validates_against_installed_tool_model(registry):
    tools = export_tools(registry, "mcp")
    assert len(tools) == len(registry.tools())
    for tool, spec in zip(tools, registry.tools(), strict=True):
        model = mcp.types.Tool.model_validate(tool)
        assert model.model_dump(by_alias=True, exclude_none=True) == tool
        assert model.name == registry.safe_name(spec.name)
        assert model.input_schema == registry.input_schema(spec.name)
        assert model.annotations is not None
        assert model.annotations.read_only_hint is (not spec.side_effects)
        assert model.annotations.destructive_hint is spec.side_effects
        assert model.annotations.idempotent_hint is spec.idempotent
    assert tools[4] == {
        "name": "delete_file",
        "description": "Delete a file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    }
