"""Only an explicit approval runs a side effect.

An approver that answers anything but ``True`` or an approving ``Decision`` (a truthy
string, ``1``, a list, ``None``, an object, an awaitable of any of those) denies the call
with a clear reason, and the handler never runs, on every call path.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tooldeck import ApprovalRequest, Decision, ToolRegistry

NOT_APPROVALS: list[Any] = [
    "yes",
    "true",
    "False",
    1,
    1.0,
    [True],
    {"approved": True},
    object(),
    None,
    Decision(approved=1),  # type: ignore[arg-type]
    Decision(approved="yes"),  # type: ignore[arg-type]
    0,
    "",
]


def registry_answering(answer: Any, *, asynchronous: bool = False) -> tuple[ToolRegistry, list]:
    ran: list[str] = []

    def remove(path: str) -> str:
        """Remove a file."""
        ran.append(path)
        return f"removed {path}"

    if asynchronous:

        async def approve(request: ApprovalRequest) -> Any:
            await asyncio.sleep(0)
            return answer

    else:

        def approve(request: ApprovalRequest) -> Any:
            return answer

    registry = ToolRegistry(approve=approve)
    registry.add_tool(None, None, remove, side_effects=True)
    return registry, ran


@pytest.mark.parametrize(
    "answer", NOT_APPROVALS, ids=lambda a: "object()" if type(a) is object else repr(a)
)  # the same id in every pytest-xdist worker: no address in it
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_anything_but_an_explicit_approval_denies(answer: Any, asynchronous: bool):
    registry, ran = registry_answering(answer, asynchronous=asynchronous)
    result = registry.call("remove", {"path": "a"})
    assert result.error is not None
    assert result.error.kind == "denied"
    assert "not approved" in result.error.message
    assert ran == []


@pytest.mark.parametrize("answer", NOT_APPROVALS[:4], ids=repr)
async def test_every_call_path_denies(answer: Any):
    registry, ran = registry_answering(answer)
    results = [
        await registry.acall("remove", {"path": "a"}),
        *registry.call_many([("remove", {"path": "b"})]),
        *registry.call_many([("remove", {"path": "c"})], strategy="parallel"),
        *await registry.acall_many([("remove", {"path": "d"})]),
    ]
    assert [r.error.kind for r in results if r.error] == ["denied"] * 4
    assert ran == []


def test_a_non_boolean_answer_says_why_it_was_refused():
    registry, _ = registry_answering("yes")
    message = registry.call("remove", {"path": "a"}).error.message
    assert "str" in message
    assert "only an explicit approval" in message


@pytest.mark.parametrize("answer", [True, Decision.approve(), Decision(True, "fine")])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_explicit_approvals_run_the_call(answer: Any, asynchronous: bool):
    registry, ran = registry_answering(answer, asynchronous=asynchronous)
    assert registry.call("remove", {"path": "a"}).text == "removed a"
    assert ran == ["a"]


def test_a_denying_decision_keeps_its_reason():
    registry, ran = registry_answering(Decision.deny("not on Fridays"))
    assert "not on Fridays" in registry.call("remove", {"path": "a"}).error.message
    assert ran == []
