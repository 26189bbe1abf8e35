"""``substitute_result`` fills the call's own arguments, nothing else, once.

A result is text the model may control (a file it asked to read, an argument echoed back):
``${config:...}`` and ``${env:...}`` in it must never pull configuration or secrets out, and
an argument value that itself looks like a placeholder is not expanded again.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tooldeck import ToolRegistry, load_manifests

CONFIG = {"db": {"password": "config-password-123"}, "shop": {"name": "Acme"}}
SECRET_ENV = {"TD_SUBST_TOKEN": "env-token-value-456"}


def echo(text: str, name: str = "world") -> str:
    """Return the text the model sent, as a tool reading a file would."""
    return text


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry(config=CONFIG)
    registry.add_tool("echo", "Echo text.", echo, substitute_result=True)
    return registry


@pytest.mark.parametrize(
    "text",
    [
        "${config:db.password}",
        "${config:shop.name}",
        "${env:TD_SUBST_TOKEN}",
        "${env:HOME}",
        "${env:TD_SUBST_TOKEN:-fallback}",
        "$${config:db.password}",
        "${ config:db.password }",
    ],
)
def test_config_and_env_references_in_results_stay_as_text(
    registry: ToolRegistry, monkeypatch: pytest.MonkeyPatch, text: str
):
    monkeypatch.setenv("TD_SUBST_TOKEN", SECRET_ENV["TD_SUBST_TOKEN"])
    result = registry.call("echo", {"text": text})
    assert result.ok
    assert result.text == text
    assert "config-password-123" not in result.text
    assert "env-token-value-456" not in result.text


def test_own_arguments_are_filled_in_one_pass(registry: ToolRegistry):
    result = registry.call("echo", {"text": "hi ${name}", "name": "${config:db.password}"})
    assert result.text == "hi ${config:db.password}"
    result = registry.call("echo", {"text": "${name}/${name}", "name": "${text}"})
    assert result.text == "${text}/${text}"


def test_defaults_count_as_the_calls_arguments(registry: ToolRegistry):
    assert registry.call("echo", {"text": "hello ${name}"}).text == "hello world"


def test_injected_values_are_not_arguments(tmp_path: Path):
    def where(text: str, project_dir: Path) -> str:
        return text

    registry = ToolRegistry(project_dir=tmp_path)
    registry.add_tool("where", "Where.", where, substitute_result=True)
    assert registry.call("where", {"text": "${project_dir}"}).text == "${project_dir}"


def test_a_manifest_tool_with_substitution_never_reads_config(tmp_path: Path):
    module = tmp_path / "tdsec_subst.py"
    module.write_text("def echo(text: str) -> str:\n    return text\n")
    manifest = tmp_path / "tools.yaml"
    manifest.write_text(
        textwrap.dedent(
            """\
            version: 1
            tools:
              - name: echo
                handler: tdsec_subst:echo
                description: Return the given text unchanged, for the substitution tests.
                substitute_result: true
                params:
                  - name: text
                    type: string
                    description: the text to return
            """
        )
    )
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        registry, result = load_manifests([manifest], config=CONFIG, allow_handlers=["tdsec_subst"])
        assert result.ok, result.diagnostics
        answer = registry.call("echo", {"text": "pw=${config:db.password} t=${text}"})
        assert answer.text == "pw=${config:db.password} t=pw=${config:db.password} t=${text}"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("tdsec_subst", None)
