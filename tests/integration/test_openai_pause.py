"""The loop inside an application: context passed through, approvals that pause and resume.

Against the scripted OpenAI-compatible server on loopback, with the real
``openai`` client (see :mod:`tests.integration.openai_server`): the
application's ``context=`` reaches handlers, approvers and hooks; a side effect
with no approver (or one that defers) pauses the conversation with plain JSON
state, which resumes in a fresh registry, and the request sent after the
resume is exactly the one a conversation that never paused sends.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tests.integration.openai_server import Approval, ScriptedServer, Turn, call, say
from tooldeck import ApprovalRequest, CallEvent, Decision, ToolContext, ToolRegistry
from tooldeck.providers.openai import ResumeError, arun, run

APIS = ["responses", "chat"]


SENT: list[str] = []


def lookup(order: str) -> str:
    """Look an order up.

    Args:
        order: The order number.
    """
    return f"order {order}: shipped"


def refund(order: str, ctx: ToolContext) -> str:
    """Refund an order.

    Args:
        order: The order number.
    """
    SENT.append(f"refund {order} for {ctx.extra.get('user', '?')}")
    return f"refunded {order}"


def make_registry(**options: Any) -> ToolRegistry:
    registry = ToolRegistry(**options)
    registry.add_tool(None, None, lookup)
    registry.add_tool(None, None, refund, side_effects=True, effect="Moves money back")
    return registry


TWO_CALLS = (
    call("lookup", {"order": "A1"}, "c1"),
    call("refund", {"order": "A1"}, "c2"),
)


@pytest.fixture(autouse=True)
def _clean() -> None:
    SENT.clear()


# --------------------------------------------------------------------- context
@pytest.mark.parametrize("api", APIS)
def test_context_reaches_handlers_approvers_and_hooks(model, client, api):
    seen: dict[str, Any] = {}

    def approve(request: ApprovalRequest) -> bool:
        seen["approver"] = (dict(request.context), request.call_id, dict(request.arguments))
        return True

    def before(event: CallEvent) -> None:
        seen.setdefault("hooks", []).append(dict(event.context))

    context = {"user": "ada@example.com", "request_id": "r-17"}
    with make_registry(approve=approve) as registry:
        registry.on_call(before=before)
        model.script(Turn(calls=TWO_CALLS), say("Refunded."))
        result = run(
            client, model="m", input="refund A1", registry=registry, api=api, context=context
        )
    assert result.text == "Refunded."
    assert not result.paused
    assert SENT == ["refund A1 for ada@example.com"]
    assert seen["approver"] == (context, "c2", {"order": "A1"})
    assert seen["hooks"] == [context, context]
    assert "ada@example.com" not in json.dumps(model.bodies())  # never sent to the model


def test_context_must_be_a_mapping(client):
    with make_registry() as registry, pytest.raises(TypeError, match="context= must be a mapping"):
        run(client, model="m", input="hi", registry=registry, context="ada")  # type: ignore[arg-type]


def test_a_hosted_approver_sees_the_context(model, client):
    asked: list[Any] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append((request.tool.name, dict(request.context), request.call_id))
        return False

    with make_registry(approve=approve) as registry:
        registry.add_mcp_server("deepwiki", url="https://mcp.example/mcp", via="hosted")
        model.script(Turn(approvals=(Approval("apr_1", "deepwiki", "ask_question"),)), say("ok"))
        run(client, model="m", input="?", registry=registry, context={"user": "ada"})
    assert asked == [("deepwiki.ask_question", {"user": "ada"}, "apr_1")]


# ------------------------------------------------------------- pause and resume
def uninterrupted(model: ScriptedServer, client: openai.OpenAI, api: str) -> list[dict[str, Any]]:
    """The request bodies of the same conversation with an approver that says yes."""
    with make_registry(approve=lambda request: True) as registry:
        model.script(Turn(calls=TWO_CALLS), say("Refunded."))
        run(client, model="m", input="refund A1", registry=registry, api=api)
    bodies = model.bodies()
    model.requests.clear()
    SENT.clear()
    return bodies


@pytest.mark.parametrize("api", APIS)
def test_no_approver_pauses_and_a_fresh_registry_resumes_exactly(model, client, api):
    expected = uninterrupted(model, client, api)

    with make_registry() as registry:  # no approver
        model.script(Turn(calls=TWO_CALLS))
        paused = run(client, model="m", input="refund A1", registry=registry, api=api)
    assert paused.paused
    assert paused.text == ""
    assert [(i.call_id, i.tool, dict(i.arguments), i.kind) for i in paused.interruptions] == [
        ("c2", "refund", {"order": "A1"}, "tool")
    ]
    assert [c.call_id for c in paused.calls] == ["c1"]  # the lookup ran, once
    assert SENT == []
    stored = json.dumps(paused.state)  # plain JSON: store it anywhere

    with make_registry() as fresh:  # another process, as far as the loop can tell
        model.script(say("Refunded."))
        done = run(
            client,
            model="m",
            registry=fresh,
            api=api,
            resume=json.loads(stored),
            decisions={"c2": True},
            context={"user": "ada"},
        )
    assert done.text == "Refunded."
    assert SENT == ["refund A1 for ada"]
    assert [c.call_id for c in done.calls] == ["c1", "c2"]
    assert done.calls[1].result.text == "refunded A1"
    assert done.usage.requests == 2
    assert done.turns == 2
    # Both requests are the ones the uninterrupted conversation sent, the one after the
    # resume included (the lookup's output and the refund's, in the model's order).
    assert model.bodies() == expected


@pytest.mark.parametrize("api", APIS)
def test_a_denied_call_tells_the_model_why_and_runs_nothing(model, client, api):
    with make_registry() as registry:
        model.script(Turn(calls=TWO_CALLS))
        paused = run(client, model="m", input="refund A1", registry=registry, api=api)
        model.script(say("I could not refund it."))
        done = run(
            client,
            model="m",
            registry=registry,
            api=api,
            resume=paused.state,
            decisions={"c2": Decision.deny("refunds need a manager")},
        )
    assert SENT == []
    assert done.text == "I could not refund it."
    denied = done.calls[1].result
    assert denied.error is not None
    assert denied.error.kind == "denied"
    assert "not approved: refunds need a manager" in denied.text
    assert "refunds need a manager" in json.dumps(model.bodies()[-1])  # the model read it


def test_an_approver_that_defers_pauses_with_its_reason(model, client):
    with make_registry(approve=lambda request: Decision.defer("a manager decides")) as registry:
        model.script(Turn(calls=TWO_CALLS))
        paused = run(client, model="m", input="refund A1", registry=registry)
        assert [i.reason for i in paused.interruptions] == ["a manager decides"]
        assert paused.paused
        # Asked again on a resume without a decision: it defers again, the state stays valid.
        again = run(
            client, model="m", registry=registry, resume=json.loads(json.dumps(paused.state))
        )
        assert again.paused
        assert [i.reason for i in again.interruptions] == ["a manager decides"]
        assert len(model.requests) == 1  # no request while the turn waits
        model.script(say("Done."))
        done = run(client, model="m", registry=registry, resume=again.state, decisions={"c2": True})
    assert done.text == "Done."
    assert SENT == ["refund A1 for ?"]


def test_several_waiting_calls_can_be_decided_in_parts(model, client):
    with make_registry() as registry:
        model.script(
            Turn(
                calls=(
                    call("refund", {"order": "A1"}, "c1"),
                    call("lookup", {"order": "A2"}, "c2"),
                    call("refund", {"order": "A3"}, "c3"),
                )
            )
        )
        paused = run(client, model="m", input="refund both", registry=registry, api="chat")
        assert [i.call_id for i in paused.interruptions] == ["c1", "c3"]
        half = run(
            client, model="m", registry=registry, resume=paused.state, decisions={"c3": True}
        )
        assert [i.call_id for i in half.interruptions] == ["c1"]
        assert SENT == ["refund A3 for ?"]
        model.script(say("One refunded."))
        done = run(client, model="m", registry=registry, resume=half.state, decisions={"c1": False})
    assert SENT == ["refund A3 for ?"]
    outputs = [m for m in model.bodies()[-1]["messages"] if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in outputs] == ["c1", "c2", "c3"]  # the model's order
    assert "not approved" in outputs[0]["content"]
    assert done.text == "One refunded."


def test_an_approval_is_for_that_call_only(model, client):
    """A model that reuses an approved call id in a later turn is asked about again."""
    with make_registry() as registry:
        model.script(Turn(calls=(call("refund", {"order": "A1"}, "c1"),)))
        paused = run(client, model="m", input="refund", registry=registry)
        model.script(Turn(calls=(call("refund", {"order": "B2"}, "c1"),)))
        again = run(
            client, model="m", registry=registry, resume=paused.state, decisions={"c1": True}
        )
    assert SENT == ["refund A1 for ?"]
    assert again.paused
    assert [(i.call_id, dict(i.arguments)) for i in again.interruptions] == [
        ("c1", {"order": "B2"})
    ]


def test_a_hosted_approval_request_pauses_the_same_way(model, client):
    with make_registry() as registry:
        registry.add_mcp_server("deepwiki", url="https://mcp.example/mcp", via="hosted")
        model.script(
            Turn(approvals=(Approval("apr_1", "deepwiki", "ask_question", '{"q": "why"}'),))
        )
        paused = run(client, model="m", input="?", registry=registry)
        assert [(i.call_id, i.tool, i.kind, dict(i.arguments)) for i in paused.interruptions] == [
            ("apr_1", "deepwiki.ask_question", "hosted_mcp", {"q": "why"})
        ]
        model.script(say("Answered."))
        done = run(
            client,
            model="m",
            registry=registry,
            resume=json.loads(json.dumps(paused.state)),
            decisions={"apr_1": True},
        )
    assert done.text == "Answered."
    sent = model.bodies()[-1]["input"]
    assert {"type": "mcp_approval_response", "approval_request_id": "apr_1", "approve": True} in [
        {k: item.get(k) for k in ("type", "approval_request_id", "approve")} for item in sent
    ]


async def test_arun_pauses_and_resumes(model, aclient):
    with make_registry() as registry:
        model.script(Turn(calls=TWO_CALLS))
        paused = await arun(aclient, model="m", input="refund A1", registry=registry)
        assert [i.call_id for i in paused.interruptions] == ["c2"]
        model.script(say("Refunded."))
        done = await arun(
            aclient,
            model="m",
            registry=registry,
            resume=paused.state,
            decisions={"c2": True},
            context={"user": "grace"},
        )
    assert done.text == "Refunded."
    assert SENT == ["refund A1 for grace"]


# -------------------------------------------------------------- bad resumes
def test_bad_resumes_say_what_is_wrong(model, client):
    with make_registry() as registry:
        model.script(Turn(calls=TWO_CALLS))
        paused = run(client, model="m", input="refund A1", registry=registry)
        state = paused.state
        assert state is not None
        cases: list[tuple[Any, Any, str]] = [
            ({"x": 1}, None, "not a tooldeck loop state"),
            ({**state, "turn": -1}, None, "turn is not a non-negative integer"),
            ({**state, "transcript": "no"}, None, "transcript is not a list"),
            ({**state, "api": "chat"}, None, "used api='chat'"),
            (state, {"c9": True}, "'c9', which no paused call has; the calls waiting are: c2"),
            (state, ["c2"], "decisions= must map call ids"),
            ({**state, "turn_calls": []}, None, "no call waiting"),
        ]
        for bad, decisions, words in cases:
            with pytest.raises(ResumeError, match=words):
                run(
                    client,
                    model="m",
                    registry=registry,
                    resume=bad,
                    decisions=decisions,
                    api="responses",
                )
        with pytest.raises(ValueError, match=r"either input= .* or resume="):
            run(client, model="m", input="hi", registry=registry, resume=state)
        with pytest.raises(ValueError, match="decisions= goes with resume="):
            run(client, model="m", input="hi", registry=registry, decisions={"c2": True})
    assert len(model.requests) == 1  # none of them reached the model


def test_a_truthy_answer_is_not_an_approval(model, client):
    with make_registry() as registry:
        model.script(Turn(calls=TWO_CALLS))
        paused = run(client, model="m", input="refund A1", registry=registry)
        model.script(say("ok"))
        done = run(
            client, model="m", registry=registry, resume=paused.state, decisions={"c2": "yes"}
        )
    assert SENT == []
    assert done.calls[1].result.error is not None
    assert done.calls[1].result.error.kind == "denied"


def test_a_resumed_call_must_be_offered_by_this_run(model, client):
    """The waiting call resolves against this run's tools: outside them, it is unknown."""
    with make_registry() as registry:
        model.script(Turn(calls=TWO_CALLS))
        paused = run(client, model="m", input="refund A1", registry=registry)
        model.script(say("ok"))
        done = run(
            client,
            model="m",
            registry=registry,
            resume=paused.state,
            decisions={"c2": True},
            tools=["lookup"],  # refund is not offered to this run
        )
    assert SENT == []
    refused = done.calls[1].result
    assert refused.error is not None
    assert refused.error.kind == "unknown_tool"


@pytest.mark.parametrize("api", APIS)
def test_a_stream_pauses_and_a_stream_resumes(model, client, api):
    from tooldeck.providers.openai import Finished, ToolCallFinished, ToolCallStarted, stream

    with make_registry() as registry:
        model.script(Turn(calls=TWO_CALLS))
        events = list(stream(client, model="m", input="refund A1", registry=registry, api=api))
        last = events[-1]
        assert isinstance(last, Finished)
        assert last.result.paused
        assert [i.call_id for i in last.result.interruptions] == ["c2"]
        model.script(say("Refunded."))
        resumed = list(
            stream(
                client,
                model="m",
                registry=registry,
                api=api,
                resume=json.loads(json.dumps(last.result.state)),
                decisions={"c2": True},
                context={"user": "ada"},
            )
        )
    started = [e.call_id for e in resumed if isinstance(e, ToolCallStarted)]
    finished = [e.call.call_id for e in resumed if isinstance(e, ToolCallFinished)]
    assert started == ["c2"]  # only the decided call runs now
    assert finished == ["c1", "c2"]  # the whole turn, in the model's order
    done = resumed[-1]
    assert isinstance(done, Finished)
    assert done.result.text == "Refunded."
    assert SENT == ["refund A1 for ada"]
