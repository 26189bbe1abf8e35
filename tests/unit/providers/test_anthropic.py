"""tooldeck.providers.anthropic: the schema goes out as the registry holds it."""

from tests.unit.providers.sample import RANGE_FRAGMENT
from tooldeck.providers import export_tools


def test_anthropic_shape(registry):
    tools = export_tools(registry, "anthropic", strict=True)
    assert len(tools) == len(registry.tools())
    for tool, spec in zip(tools, registry.tools(), strict=True):
        assert tool == {
            "name": registry.safe_name(spec.name),
            "description": spec.description,
            "input_schema": registry.input_schema(spec.name),
        }
    assert tools[2]["input_schema"]["$defs"] == RANGE_FRAGMENT["$defs"]


def test_anthropic_has_no_hosted_entries(registry):
    assert len(export_tools(registry, "anthropic")) == len(registry.tools())
