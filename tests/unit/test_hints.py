"""tool_hints: the MCP annotations serve and export announce, only where declared."""

from __future__ import annotations

from typing import Any

import pytest

from tooldeck import ToolRegistry, ToolSpec
from tooldeck._hints import tool_hints


def spec(**options: Any) -> ToolSpec:
    return ToolSpec(name="t", description="d", handler=lambda: None, **options)


@pytest.mark.parametrize(
    ("options", "hints"),
    [
        ({}, {}),
        ({"side_effects": False}, {"readOnlyHint": True}),
        ({"tags": ("read-only",)}, {"readOnlyHint": True}),
        (
            {"tags": ("readonly",), "idempotent": True},
            {"readOnlyHint": True, "idempotentHint": True},
        ),
        ({"side_effects": True}, {"destructiveHint": True}),
        ({"side_effects": True, "tags": ("read-only",)}, {"destructiveHint": True}),
        ({"idempotent": True}, {"idempotentHint": True}),
        # An attached server's hints pass through where tooldeck declares nothing ...
        (
            {"hints": {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True}},
            {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
        ),
        (
            {"hints": {"openWorldHint": False, "title": "x", "madeUp": True}},
            {"openWorldHint": False},
        ),
        # ... and give way to what it declares.
        (
            {"side_effects": True, "hints": {"readOnlyHint": True, "openWorldHint": False}},
            {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
        ),
        (
            {"side_effects": False, "hints": {"destructiveHint": True, "idempotentHint": False}},
            {"readOnlyHint": True, "idempotentHint": False},
        ),
    ],
)
def test_hints_are_only_what_is_declared(options, hints):
    assert tool_hints(spec(**options)) == hints


def test_an_undeclared_tool_still_runs_without_approval():
    """No hint is announced for it, and the registry's own rule is unchanged."""
    registry = ToolRegistry()  # no approver: a side effect would be denied
    registry.add(spec())
    assert registry.get_tool("t").side_effects is None  # type: ignore[union-attr]
    assert registry.call("t", {}).ok
    registry.add(spec(side_effects=True), on_duplicate="replace")
    denied = registry.call("t", {})
    assert denied.error is not None
    assert denied.error.kind == "denied"
