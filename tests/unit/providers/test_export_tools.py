"""tooldeck.providers: export_tools, the exporter table, PROVIDERS and what every shape shares."""

import json
import math
import subprocess
import sys

import mcp.types
import pytest

import tooldeck.providers
from tests.unit.providers.sample import SAFE_READ, build_registry, ping, walk
from tooldeck import ToolDeckError, ToolRegistry
from tooldeck.providers import (
    EXPORTERS,
    PROVIDERS,
    Exporter,
    ExportError,
    definition_tokens,
    export_tools,
)


# ------------------------------------------------------------------ the table
def test_providers_constant():
    assert PROVIDERS == ("openai-responses", "openai-chat", "anthropic", "gemini", "mcp")


def test_exporters_by_name_match_providers():
    assert tuple(EXPORTERS) == PROVIDERS
    assert all(isinstance(exporter, Exporter) for exporter in EXPORTERS.values())
    assert [name for name, e in EXPORTERS.items() if e.hosted is not None] == ["openai-responses"]
    with pytest.raises(TypeError):
        EXPORTERS["cohere"] = EXPORTERS["anthropic"]


def test_package_all_is_sorted_and_complete():
    def isort_key(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    names = tooldeck.providers.__all__
    assert names == sorted(names, key=isort_key)
    for name in names:
        assert hasattr(tooldeck.providers, name), name


def test_unknown_provider_lists_the_known_ones(registry):
    with pytest.raises(ValueError, match="unknown provider 'cohere'") as info:
        export_tools(registry, "cohere")
    for provider in PROVIDERS:
        assert provider in str(info.value)


def test_unknown_provider_is_an_export_error(registry):
    with pytest.raises(ExportError, match="unknown provider 'cohere'") as info:
        export_tools(registry, "cohere")
    assert isinstance(info.value, ToolDeckError)
    assert isinstance(info.value, ValueError)
    assert info.value.provider == "cohere"
    assert info.value.tool_name is None
    with pytest.raises(ToolDeckError):
        export_tools(registry, "OpenAI-Chat")  # names are exact


def test_package_does_not_import_provider_sdks():
    code = (
        "import sys, tooldeck.providers\n"
        "sdks = ('openai', 'anthropic', 'google', 'mcp', 'mcp_types')\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in sdks]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------ every provider
@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_definition_per_tool_in_registry_order_under_safe_names(registry, provider):
    tools = export_tools(registry, provider, include_hosted=False)
    names = [t["function"]["name"] if provider == "openai-chat" else t["name"] for t in tools]
    assert names == [registry.safe_name(spec.name) for spec in registry.tools()]
    assert SAFE_READ in names
    assert "files.read" not in names
    assert SAFE_READ != "files.read"


def test_safe_name_calls_find_the_tool(registry):
    exported = export_tools(registry, "openai-chat")
    name = exported[3]["function"]["name"]
    assert name == SAFE_READ
    result = registry.call(name, {"path": "a.txt"})
    assert result.ok, result.text
    assert result.text == "read a.txt"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_export_is_deterministic(provider):
    first = json.dumps(export_tools(build_registry(), provider, strict=True))
    registry = build_registry()
    again = json.dumps(export_tools(registry, provider, strict=True))
    assert first == again
    assert json.dumps(export_tools(registry, provider, strict=True)) == again


@pytest.mark.parametrize("provider", PROVIDERS)
def test_exports_are_copies(registry, provider):
    before = json.dumps(registry.input_schema("query"))
    for definition in export_tools(registry, provider, strict=True):
        for node in walk(definition):
            node.clear()
    assert json.dumps(registry.input_schema("query")) == before


def test_redact_applies_to_every_string_value():
    registry = ToolRegistry()
    registry.add_tool(None, "Uses key s3cr3t-token internally.", ping)
    registry.add_mcp_server(
        "vault",
        "https://example.org/mcp?key=s3cr3t-token",
        "Bearer s3cr3t-token",
        "Vault",
        headers={"X-Key": "s3cr3t-token"},
    )

    def hide(text: str) -> str:
        return text.replace("s3cr3t-token", "***")

    for provider in PROVIDERS:
        plain = json.dumps(export_tools(registry, provider))
        redacted = json.dumps(export_tools(registry, provider, redact=hide))
        assert "s3cr3t-token" in plain
        assert "s3cr3t-token" not in redacted
        assert "***" in redacted
    hosted = export_tools(registry, "openai-responses", redact=hide)[-1]
    assert hosted["authorization"] == "***"
    assert hosted["headers"] == {"X-Key": "***"}
    assert hosted["server_url"] == "https://example.org/mcp?key=***"


def test_definition_tokens_is_compact_json_chars_over_four():
    assert definition_tokens({"a": "bcd"}) == 3  # {"a":"bcd"} is 11 characters
    assert definition_tokens({}) == 1
    assert definition_tokens({"name": "žluť"}) == math.ceil(len('{"name":"žluť"}') / 4)
    definition = export_tools(build_registry(), "openai-chat")[1]
    text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False)
    assert definition_tokens(definition) == math.ceil(len(text) / 4)


def test_non_openai_providers_ignore_strict(registry):
    for provider in ("anthropic", "gemini", "mcp"):
        assert export_tools(registry, provider, strict=True) == export_tools(
            registry, provider, strict=False
        )


def test_external_schema_without_type_gets_object_root():
    registry = ToolRegistry()
    registry.add_external_tool("loose", "Loose.", {"properties": {"a": {"type": "string"}}}, ping)
    for provider in PROVIDERS:
        (tool,) = export_tools(registry, provider)
        schema = {
            "openai-chat": lambda t: t["function"]["parameters"],
            "openai-responses": lambda t: t["parameters"],
            "anthropic": lambda t: t["input_schema"],
            "gemini": lambda t: t["parameters"],
            "mcp": lambda t: t["inputSchema"],
        }[provider](tool)
        assert schema["type"] == "object"
    mcp.types.Tool.model_validate(export_tools(registry, "mcp")[0])
