"""A prompt's handler that fails: the caller gets a ToolCallError in words, never the raw
exception (``tooldeck serve`` turns that error into an MCP error for the client)."""

from __future__ import annotations

import pytest

from tooldeck import Param, PromptSpec, ToolCallError, ToolFailed, ToolRegistry


def refusing(topic: str) -> str:
    raise ToolFailed(f"nothing is known about {topic}", kind="not_found")


def broken(topic: str) -> str:
    raise ValueError("the template file is gone")


@pytest.mark.parametrize(
    ("handler", "kind", "words"),
    [
        (refusing, "not_found", "nothing is known about x"),
        (broken, "execution_error", "ValueError: the template file is gone"),
    ],
)
def test_a_failing_prompt_handler_is_a_tool_call_error(handler, kind, words):
    registry = ToolRegistry()
    registry.add(PromptSpec(name="p", description="", handler=handler, params=(Param("topic"),)))
    with pytest.raises(ToolCallError) as caught:
        registry.render_prompt("p", {"topic": "x"})
    assert caught.value.kind == kind
    assert words in caught.value.message
