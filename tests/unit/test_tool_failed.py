"""Handlers fail on purpose with words and a kind of their own, passed through unchanged."""

from __future__ import annotations

import asyncio

import pytest

from tooldeck import RetrySpec, ToolCallError, ToolFailed, ToolRegistry, ToolResult


def find_order(order_id: str) -> dict[str, str]:
    """Find an order by its id."""
    raise ToolFailed(f"no order {order_id}; call list_orders to see the ids", kind="not_found")


async def find_order_async(order_id: str) -> dict[str, str]:
    """Find an order by its id."""
    raise ToolFailed(f"no order {order_id}", kind="not_found")


def quota(order_id: str) -> ToolResult:
    """Answer with a failure result instead of raising."""
    return ToolResult.failure("daily quota used up; try tomorrow", kind="rate_limited")


def fine(order_id: str) -> ToolResult:
    return ToolResult(True, f"found {order_id}", {"id": order_id})


@pytest.mark.parametrize("options", [{}, {"timeout": 5}], ids=["fast path", "guarded path"])
@pytest.mark.parametrize("handler", [find_order, find_order_async])
def test_a_raised_tool_failed_reaches_the_model_unchanged(handler, options):
    registry = ToolRegistry()
    registry.add_tool("find", "Find an order.", handler, **options)
    result = registry.call("find", {"order_id": "O-1"})
    assert not result.ok
    assert result.error.kind == "not_found"
    assert result.error.message.startswith("no order O-1")
    assert result.text.startswith("Error (not_found): no order O-1")
    assert "ToolFailed" not in result.text  # not wrapped as an unexpected exception
    assert result.tool_name == "find"
    async_result = asyncio.run(registry.acall("find", {"order_id": "O-1"}))
    assert async_result.error.kind == "not_found"


def test_a_returned_failure_result_is_passed_through_with_its_ids():
    registry = ToolRegistry()
    registry.add_tool("quota", "Check the quota.", quota)
    result = registry.call("quota", {"order_id": "O-1"}, call_id="c-7")
    assert (result.ok, result.error.kind) == (False, "rate_limited")
    assert result.text == "Error (rate_limited): daily quota used up; try tomorrow"
    assert (result.tool_name, result.call_id) == ("quota", "c-7")


def test_a_returned_ok_result_is_passed_through_too():
    registry = ToolRegistry()
    registry.add_tool("fine", "Find.", fine)
    result = registry.call("fine", {"order_id": "O-2"})
    assert (result.ok, result.text, result.value) == (True, "found O-2", {"id": "O-2"})


def test_raise_errors_carries_the_handlers_kind():
    registry = ToolRegistry(raise_errors=True)
    registry.add_tool("find", "Find an order.", find_order)
    with pytest.raises(ToolCallError) as raised:
        registry.call("find", {"order_id": "O-1"})
    assert raised.value.kind == "not_found"
    assert isinstance(raised.value.__cause__, ToolFailed)


def test_a_kind_must_be_named():
    with pytest.raises(ValueError, match="kind"):
        ToolFailed("x", kind="")
    with pytest.raises(ValueError, match="kind"):
        ToolResult.failure("x", kind="")


def test_a_deliberate_failure_is_never_retried():
    calls: list[int] = []

    def flaky(order_id: str) -> str:
        calls.append(1)
        raise ToolFailed("no such order", kind="not_found")

    registry = ToolRegistry()
    registry.add_tool(
        "flaky", "Find.", flaky, retry=RetrySpec(attempts=3, backoff=0, on=("Exception",))
    )
    result = registry.call("flaky", {"order_id": "O-1"})
    assert (result.error.kind, result.attempts, len(calls)) == ("not_found", 1, 1)
