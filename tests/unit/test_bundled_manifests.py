"""The bundled manifests and the meta-schema agree with the data model."""

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from tooldeck import ParamDescriptor, PromptSpec, ToolSpec, load_manifests
from tooldeck._lint.runner import LintSettings, lint
from tooldeck._model import ArgumentReshape, McpServerSpec, WebSearchSpec
from tooldeck._resources import schema_bytes

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "manifest.schema.json").read_text(encoding="utf-8"))
BUNDLED = sorted((ROOT / "manifests").glob("*.yaml"))


def test_packaged_schema_is_the_published_one():
    """What the installed package reads (``tooldeck.schemas``) is the repository's schema."""
    assert json.loads(schema_bytes()) == SCHEMA


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_manifest_is_valid_and_lint_clean(path, tmp_path):
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    assert first_line == "# yaml-language-server: $schema=../schemas/manifest.schema.json"
    jsonschema.Draft202012Validator(SCHEMA).validate(yaml.safe_load(path.read_text("utf-8")))
    registry, result = load_manifests([path])
    assert result.diagnostics == []
    assert lint(result, registry, LintSettings()) == []


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_every_declaration_field_is_reachable_from_yaml():
    defs = SCHEMA["$defs"]
    param_keys = set(defs["Param"]["properties"])
    assert _fields(ParamDescriptor) == param_keys
    # Set by the loader or an attached server's listing, or code-only.
    internal = {"handler", "input_schema", "refused_arguments", "hints", "bundle", "origin"}
    tool_keys = set(defs["Tool"]["properties"])
    # scopes are written auth: {scopes: [...]} (on the tool and on its file)
    assert _fields(ToolSpec) - internal - {"scopes"} <= tool_keys
    assert defs["Tool"]["properties"]["auth"]["$ref"] == "#/$defs/Auth"
    assert set(defs["Auth"]["properties"]) == {"scopes"}
    assert tool_keys - _fields(ToolSpec) == {"use", "args", "auth"}  # McpToolUse: server/tool
    assert set(defs["ArgReshape"]["properties"]) == _fields(ArgumentReshape)
    prompt_keys = set(defs["Prompt"]["properties"])
    # renderer: an attached server's prompt (set by its attachment); use: McpPromptUse
    assert _fields(PromptSpec) - {"bundle", "origin", "renderer"} == prompt_keys - {"use"}


def test_every_hosted_declaration_field_is_reachable_from_yaml():
    defs = SCHEMA["$defs"]
    internal = {"bundle", "origin"}  # set by the loader
    web = set(defs["WebSearch"]["properties"])
    assert _fields(WebSearchSpec) - internal - {"allowed_domains"} <= web
    assert "allowed_domains" in defs["WebSearch"]["properties"]["filters"]["properties"]
    assert set(defs["WebSearch"]["properties"]["user_location"]["properties"]) <= _fields(
        WebSearchSpec
    )
    server = set(defs["McpServer"]["properties"])
    # args joins command; tool_filter is a callable (Python only)
    assert _fields(McpServerSpec) - internal - {"tool_filter"} == server - {"args"}


# What the bundled manifests do not show, and why: each is shown in docs/guides/manifests.md.
NOT_SHOWN = {
    "supported_for": "names the application's own classes, which a shipped file cannot know",
    "auth": "scopes need the deployment's identity provider (lint warns TD415 without one)",
    "from_auth": "a token claim: the deployment's identity provider again",
    "additional_properties": "for imported definitions whose source left parameters open",
    "inline": "every pack's handler does I/O, which must not run on the event loop",
    "return_direct": "no pack's result is a final answer for the user",
    "substitute_result": "no pack returns text with ${param} placeholders",
    "file": "a fixed file resource needs a file every project has (TD416 otherwise)",
    "prompt use": "no attached server the packs use has prompts",
    "properties": "no pack takes an object with named fields (http headers are free-form)",
}


def _used(manifests: list[Path]) -> dict[str, set[str]]:
    """Every key the bundled manifests write, by where it is written."""
    used: dict[str, set[str]] = {
        k: set() for k in ("top", "Tool", "Param", "Prompt", "Resource", "ArgReshape")
    }
    for path in manifests:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        used["top"] |= set(data)
        used["Tool"] |= set(data.get("defaults", {}))
        for tool in data.get("tools", []):
            used["Tool"] |= set(tool)
            for param in tool.get("params", []):
                used["Param"] |= set(param)
            for reshape in tool.get("args", {}).values():
                used["ArgReshape"] |= set(reshape)
        for prompt in data.get("prompts", []):
            used["Prompt"] |= set(prompt)
        for resource in data.get("resources", []):
            used["Resource"] |= set(resource)
            for param in resource.get("params", []):
                used["Param"] |= set(param)
    return used


def test_every_manifest_feature_has_a_worked_example_in_the_bundled_manifests():
    defs = SCHEMA["$defs"]
    used = _used(BUNDLED)
    declared = {"top": set(SCHEMA["properties"])} | {
        where: set(defs[where]["properties"]) for where in used if where != "top"
    }
    declared["Prompt"] -= {"use"}
    missing = {
        f"{where}.{key}"
        for where, keys in declared.items()
        for key in keys - used[where]
        if key not in NOT_SHOWN
    }
    assert missing == set()
    # a prompt of each kind: a template and a handler; a resource of each kind
    prompts = [p for m in BUNDLED for p in yaml.safe_load(m.read_text("utf-8")).get("prompts", [])]
    assert {"template", "handler"} <= {k for p in prompts for k in p}
    assert {"assistant", "user"} <= {p.get("role", "assistant") for p in prompts}
