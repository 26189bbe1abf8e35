"""Side effects over MCP ask the calling client by elicitation; in process, on memory streams."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
import pytest
from mcp.client.session import ClientRequestContext
from mcp.server.elicitation import _PRIMITIVE_SCHEMA_ADAPTER
from mcp.shared.message import ServerMessageMetadata

from tests.unit.test_mcp_server import Sent, connected, text_of
from tooldeck import ApprovalRequest, Decision, ToolRegistry
from tooldeck.mcp import build_server
from tooldeck.mcp._serving.approval import (
    APPROVE_FIELD,
    NO_BACK_CHANNEL,
    NO_ELICITATION,
    NOT_OVER_MCP,
    STATELESS,
    approval_message,
    approval_schema,
    decision_of,
    elicit_approval,
)

SECRET = "hunter2-very-secret"


def registry(**kwargs: Any) -> tuple[ToolRegistry, list[str]]:
    """A registry whose ``write_note`` records what it wrote (side effects: asks first)."""
    written: list[str] = []
    reg = ToolRegistry(**{"approve": elicit_approval, **kwargs})

    def write_note(text: str, copies: int = 1) -> str:
        written.append(text)
        return f"wrote {copies}"

    reg.add_tool(
        "write_note",
        "Write a note.",
        write_note,
        side_effects=True,
        effect="writes note.txt in the project directory",
    )
    reg.add_tool("peek", "Read only.", lambda: "nothing changed")
    return reg, written


class Answers:
    """An elicitation callback that records what it was asked and answers as told."""

    def __init__(self, result: types.ElicitResult | types.ErrorData | None, delay: float = 0):
        self.result = result
        self.delay = delay
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.asked.append(params)
        if self.delay:
            await asyncio.sleep(self.delay)
        assert self.result is not None
        return self.result


def accept(approve: Any = True) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={APPROVE_FIELD: approve})


async def test_an_approving_answer_runs_the_tool_and_the_question_names_everything():
    reg, written = registry()
    answers = Answers(accept())
    sent: list[Sent] = []
    async with connected(build_server(reg), elicitation=answers, sent=sent) as session:
        result = await session.call_tool("write_note", {"text": "hi", "copies": 2})
    assert not result.is_error, text_of(result)
    assert text_of(result) == "wrote 2"
    assert written == ["hi"]
    [asked] = answers.asked
    assert isinstance(asked, types.ElicitRequestFormParams)
    assert "'write_note'" in asked.message
    assert "writes note.txt in the project directory" in asked.message
    assert '"text": "hi"' in asked.message
    assert '"copies": 2' in asked.message
    assert asked.requested_schema == approval_schema_of("write_note")
    # Sent within the tools/call: related to its request id (on HTTP, its own stream).
    [call] = [
        m for m in sent[0].messages if "content" in (getattr(m.message, "result", None) or {})
    ]
    [elicit] = sent[0].requests("elicitation/create")
    assert isinstance(elicit.metadata, ServerMessageMetadata)
    assert elicit.metadata.related_request_id == call.message.id  # type: ignore[union-attr]


def approval_schema_of(name: str) -> dict[str, Any]:
    reg, _ = registry()
    spec = reg.get_tool(name)
    assert spec is not None
    return approval_schema(ApprovalRequest(spec, {}, "c1"))


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (types.ElicitResult(action="decline"), "the user declined it"),
        (types.ElicitResult(action="cancel"), "dismissed the approval request"),
        (accept(False), "the user did not approve it"),
        (types.ElicitResult(action="accept", content={}), "no boolean 'approve' field"),
        (accept("yes"), "no boolean 'approve' field"),
        (
            types.ErrorData(code=types.INVALID_REQUEST, message="no dialogs here"),
            "the client could not ask for approval: no dialogs here",
        ),
    ],
)
async def test_anything_but_an_approving_answer_is_a_tool_error_and_nothing_runs(answer, words):
    reg, written = registry()
    async with connected(build_server(reg), elicitation=Answers(answer)) as session:
        result = await session.call_tool("write_note", {"text": "hi"})
        still = await session.call_tool("peek", {})  # the session goes on
    assert result.is_error
    assert written == []
    text = text_of(result)
    assert text.startswith("Error (denied): the call to 'write_note' was not approved: ")
    assert words in text
    assert text_of(still) == "nothing changed"


async def test_no_answer_within_the_approval_timeout_denies():
    reg, written = registry()
    answers = Answers(accept(), delay=DEADLINE_SLOW)
    async with connected(build_server(reg, approval_timeout=0.2), elicitation=answers) as session:
        result = await session.call_tool("write_note", {"text": "late"})
    assert result.is_error
    assert "nobody answered the approval request within 0.2 s" in text_of(result)
    assert written == []


DEADLINE_SLOW = 5.0


async def test_a_client_without_elicitation_is_denied_with_how_to_allow():
    reg, written = registry()
    sent: list[Sent] = []
    async with connected(build_server(reg), sent=sent) as session:
        result = await session.call_tool("write_note", {"text": "hi"})
    assert result.is_error
    assert NO_ELICITATION in text_of(result)
    assert "--allow-side-effects" in text_of(result)
    assert sent[0].requests("elicitation/create") == []  # never asked
    assert written == []


async def test_a_stateless_server_never_asks_even_a_client_with_elicitation():
    reg, written = registry()
    served = build_server(reg)
    served.stateless = True  # what http_app(stateless=True) sets
    answers = Answers(accept())
    async with connected(served, elicitation=answers) as session:
        result = await session.call_tool("write_note", {"text": "hi"})
    assert result.is_error
    assert STATELESS in text_of(result)
    assert answers.asked == []
    assert written == []


async def test_a_client_on_the_per_request_protocol_cannot_be_asked():
    """2026-07-28 forbids server-to-client requests: denied, saying so, even with elicitation."""
    reg, written = registry()
    answers = Answers(accept())
    async with connected(build_server(reg), elicitation=answers, modern=True) as session:
        assert session.protocol_version == "2026-07-28"
        result = await session.call_tool("write_note", {"text": "hi"})
    assert result.is_error
    assert NO_BACK_CHANNEL in text_of(result)
    assert answers.asked == []
    assert written == []


async def test_a_registry_that_allows_side_effects_never_asks():
    reg, written = registry(approve=None, allow_side_effects=True)
    answers = Answers(types.ElicitResult(action="decline"))
    async with connected(build_server(reg), elicitation=answers) as session:
        result = await session.call_tool("write_note", {"text": "hi"})
    assert not result.is_error
    assert answers.asked == []
    assert written == ["hi"]


async def test_the_registry_own_approver_is_kept():
    """A registry served with another approver: that approver decides, the client is not asked."""
    seen: list[ApprovalRequest] = []

    def console(request: ApprovalRequest) -> Decision:
        seen.append(request)
        return Decision.deny("the operator said no")

    reg, written = registry(approve=console)
    answers = Answers(accept())
    async with connected(build_server(reg), elicitation=answers) as session:
        result = await session.call_tool("write_note", {"text": "hi"})
    assert result.is_error
    assert "the operator said no" in text_of(result)
    assert [r.arguments for r in seen] == [{"text": "hi", "copies": 1}]
    assert answers.asked == []
    assert written == []


async def test_invalid_arguments_are_refused_before_anyone_is_asked():
    reg, _ = registry()
    answers = Answers(accept())
    async with connected(build_server(reg), elicitation=answers) as session:
        result = await session.call_tool("write_note", {"copies": "two"})
    assert result.is_error
    assert "text" in text_of(result)
    assert answers.asked == []


async def test_secrets_are_masked_in_the_question():
    reg, _ = registry()
    reg.secrets.add(SECRET)
    answers = Answers(types.ElicitResult(action="decline"))
    async with connected(build_server(reg), elicitation=answers) as session:
        await session.call_tool("write_note", {"text": f"the password is {SECRET}"})
    [asked] = answers.asked
    assert SECRET not in asked.message
    assert "the password is" in asked.message


async def test_every_call_asks_again():
    reg, written = registry()
    answers = Answers(accept())
    async with connected(build_server(reg), elicitation=answers) as session:
        await session.call_tool("write_note", {"text": "one"})
        await session.call_tool("write_note", {"text": "two"})
    assert len(answers.asked) == 2
    assert written == ["one", "two"]


def test_the_approver_outside_an_mcp_call_denies():
    reg, written = registry()
    result = reg.call("write_note", {"text": "hi"})
    assert not result.ok
    assert NOT_OVER_MCP in result.text
    assert written == []


def test_the_form_is_one_spec_valid_boolean():
    schema = approval_schema_of("write_note")
    assert schema["type"] == "object"
    assert schema["required"] == [APPROVE_FIELD]
    assert list(schema["properties"]) == [APPROVE_FIELD]
    for prop in schema["properties"].values():  # what the mcp package checks elicitations with
        _PRIMITIVE_SCHEMA_ADAPTER.validate_python(prop)
    assert schema["properties"][APPROVE_FIELD]["type"] == "boolean"


def test_long_arguments_are_cut_in_the_message_and_say_so():
    reg, _ = registry()
    spec = reg.get_tool("write_note")
    assert spec is not None
    message = approval_message(ApprovalRequest(spec, {"text": "x" * 10_000}, "c1"))
    assert len(message) < 5000
    assert "more characters not shown" in message


def test_only_accept_with_approve_true_approves():
    assert decision_of("accept", {APPROVE_FIELD: True}).approved
    for action, content in [
        ("accept", {APPROVE_FIELD: 1}),
        ("accept", {APPROVE_FIELD: "true"}),
        ("accept", None),
        ("decline", {APPROVE_FIELD: True}),
        ("cancel", {APPROVE_FIELD: True}),
    ]:
        assert not decision_of(action, content).approved
