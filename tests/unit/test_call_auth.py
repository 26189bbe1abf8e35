"""``auth=`` on a call: the verified caller reaches handlers, approvers and hooks; scopes refuse."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from tooldeck import AuthIdentity, ToolContext, ToolRegistry, ToolSpec
from tooldeck._calling import ApprovalRequest, CallEvent

ALICE = AuthIdentity(
    subject="alice", client_id="app", scopes={"orders:read"}, claims={"email": "a@x"}
)


def whoami(ctx: ToolContext) -> str:
    auth = ctx.auth
    return "nobody" if auth is None else f"{auth.subject}/{auth.claims.get('email')}"


def registry_with(*specs: ToolSpec, **kwargs: object) -> ToolRegistry:
    registry = ToolRegistry(**kwargs)  # type: ignore[arg-type]
    for spec in specs:
        registry.add(spec)
    return registry


def test_the_identity_reaches_the_handler_on_every_route() -> None:
    plain = ToolSpec(name="whoami", description="Who is calling.", handler=whoami)
    guarded = dataclasses.replace(plain, name="whoami_timed", timeout=5.0)
    registry = registry_with(plain, guarded)
    for name in ("whoami", "whoami_timed"):
        assert registry.call(name, {}, auth=ALICE).text == "alice/a@x"
        assert registry.call(name, {}).text == "nobody"
        assert asyncio.run(registry.acall(name, {}, auth=ALICE)).text == "alice/a@x"
    batch = registry.call_many([("whoami", {}), ("whoami_timed", {})], auth=ALICE)
    assert [r.text for r in batch] == ["alice/a@x", "alice/a@x"]
    parallel = registry.call_many([("whoami", {})] * 3, strategy="parallel", auth=ALICE)
    assert {r.text for r in parallel} == {"alice/a@x"}


def test_a_missing_scope_refuses_the_call_and_hides_the_name() -> None:
    ran: list[str] = []

    def cancel() -> str:
        ran.append("cancel")
        return "cancelled"

    secret = ToolSpec(
        name="cancel_order", description="Cancel.", handler=cancel, scopes=("orders:write",)
    )
    readable = ToolSpec(
        name="read_order", description="Read.", handler=lambda: "ok", scopes=("orders:read",)
    )
    registry = registry_with(secret, readable)
    refused = registry.call("cancel_order", {}, auth=ALICE)
    assert not refused.ok
    assert refused.error is not None
    assert refused.error.kind == "not_permitted"
    assert "orders:write" in refused.text
    assert ran == []
    assert registry.call("read_order", {}, auth=ALICE).ok
    # An unknown name offers only what this caller may use.
    unknown = registry.call("cancel_ordr", {}, auth=ALICE)
    assert unknown.error is not None
    assert unknown.error.kind == "unknown_tool"
    assert "cancel_order" not in unknown.text
    assert "read_order" in unknown.text
    # No identity: nobody was authenticated (the operator's choice), scopes are not checked.
    assert registry.call("cancel_order", {}).text == "cancelled"


def test_approvers_and_hooks_see_who_asked() -> None:
    seen: list[object] = []

    def approve(request: ApprovalRequest) -> bool:
        seen.append(request.auth)
        return True

    def before(event: CallEvent) -> None:
        seen.append(event.auth)

    spec = ToolSpec(name="send", description="Send.", handler=lambda: "sent", side_effects=True)
    registry = registry_with(spec, approve=approve)
    registry.on_call(before=before)
    assert registry.call("send", {}, auth=ALICE).ok
    assert seen == [ALICE, ALICE]


def test_an_identity_cannot_be_edited_by_a_handler() -> None:
    identity = AuthIdentity(subject="s", scopes=["a"], claims={"k": "v"})  # type: ignore[arg-type]
    assert identity.scopes == frozenset({"a"})
    with pytest.raises(TypeError):
        identity.claims["k"] = "w"  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        identity.subject = "t"  # type: ignore[misc]
    assert identity.value("subject") == "s"
    assert identity.value("k") == "v"
    assert identity.value("missing") is None
