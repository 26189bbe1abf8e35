"""Golden files: what each provider gets for the bundled manifests and a hosted-entries manifest.

``tests/fixtures/golden/<set>.<provider>.json`` holds the exact definitions
``export_tools`` gives (default options: strict auto, hosted entries
included) and the warnings it reports, for

* ``bundled``: the manifests shipped in ``manifests/``, as a plain run loads them;
* ``packs``: the same with every pack the config can turn on (writes, HTTP, commands,
  commits, web search; not the time server, which would be started);
* ``hosted``: ``tests/fixtures/golden/hosted.yaml`` (strict, auto falling
  back, ``strict: false``, web search with every field, hosted MCP servers
  with ``allowed_tools`` and ``require_approval``, with none (the provider's
  default) and with ``side_effects: true`` instead (``always``)).

Every definition is also checked against the provider SDK's own request type
where one is installed (openai ``ToolParam``/``ChatCompletionToolParam``, mcp
``Tool``). After an intended change, regenerate and review the diff::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/unit/providers/test_golden.py
    git diff tests/fixtures/golden/
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import mcp.types
import pytest
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import ToolParam
from pydantic import TypeAdapter

from tooldeck import load_manifests
from tooldeck.providers import PROVIDERS, ExportWarning, export_tools

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "fixtures" / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN", "").strip() not in ("", "0")
PACKS_ON = {
    "tooldeck": {
        "files": {"write": True},
        "http": {"allow_hosts": ["api.example.org"]},
        "commands": {"allow": ["pytest"]},
        "git": {"commit": True},
        "web_search": {"enabled": True},
    }
}
SETS: dict[str, tuple[list[Path], list[str], dict[str, Any]]] = {
    "bundled": ([ROOT / "manifests"], [], {}),
    "packs": ([ROOT / "manifests"], [], PACKS_ON),
    "hosted": ([GOLDEN / "hosted.yaml"], ["tests.unit.providers.test_golden"], {}),
}


def echo(**kwargs: Any) -> dict[str, Any]:
    """The handler of the hosted-entries manifest's tools."""
    return kwargs


def sdk_check(provider: str, definition: dict[str, Any]) -> None:
    """The definition passes the SDK's type with nothing dropped or changed."""
    if provider == "openai-responses":
        assert TypeAdapter(ToolParam).validate_python(definition) == definition
    elif provider == "openai-chat":
        assert TypeAdapter(ChatCompletionToolParam).validate_python(definition) == definition
    elif provider == "mcp":
        tool = mcp.types.Tool.model_validate(definition)
        assert tool.model_dump(by_alias=True, exclude_none=True) == definition


def exported(name: str, provider: str) -> dict[str, Any]:
    paths, allowed, config = SETS[name]
    registry, result = load_manifests(paths, allow_handlers=allowed, config=config)
    assert result.ok, [d.format() for d in result.diagnostics]
    warnings: list[ExportWarning] = []
    definitions = export_tools(registry, provider, warnings=warnings)
    return {"definitions": definitions, "warnings": [str(w) for w in warnings]}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("name", sorted(SETS))
def test_export_matches_the_golden_file(name, provider):
    got = exported(name, provider)
    for definition in got["definitions"]:
        sdk_check(provider, definition)
    path = GOLDEN / f"{name}.{provider}.json"
    text = json.dumps(got, indent=2, ensure_ascii=False) + "\n"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no {path.name}; create it with UPDATE_GOLDEN=1"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert got == expected, f"{path.name} differs; if intended, regenerate with UPDATE_GOLDEN=1"


def test_every_golden_file_is_checked():
    expected = {f"{name}.{provider}.json" for name in SETS for provider in PROVIDERS}
    assert {p.name for p in GOLDEN.glob("*.json")} == expected


def test_the_hosted_golden_shows_every_kind_of_warning():
    responses = exported("hosted", "openai-responses")
    assert responses["warnings"] == [
        "tool 'annotate_page' (openai-responses) goes out non-strict (strict: auto): "
        "#/properties/notes: a free-form object cannot be strict; declare its properties"
    ]
    strict = [d.get("strict") for d in responses["definitions"]]
    assert strict == [True, False, False, None, None, None, None, None]
    chat = exported("hosted", "openai-chat")
    assert chat["warnings"][1:] == [
        "hosted web search (web_search) left out: "
        "Chat Completions takes no hosted tools (use openai-responses)",
        "hosted MCP server 'github' left out: "
        "Chat Completions takes no hosted tools (use openai-responses)",
        "hosted MCP server 'docs' left out: "
        "Chat Completions takes no hosted tools (use openai-responses)",
        "hosted MCP server 'wiki' left out: "
        "Chat Completions takes no hosted tools (use openai-responses)",
        "hosted MCP server 'tickets' left out: "
        "Chat Completions takes no hosted tools (use openai-responses)",
    ]
