"""``from_auth`` parameters: hidden from every schema and export, filled from the caller's token."""

from __future__ import annotations

import asyncio

import pytest

from tooldeck import (
    AuthIdentity,
    Param,
    RegistrationError,
    ToolContext,
    ToolRegistry,
    ToolSpec,
    export_tools,
)
from tooldeck._calling import ApprovalRequest, CallEvent
from tooldeck.providers import PROVIDERS

ALICE = AuthIdentity(
    subject="alice", scopes={"orders:read"}, claims={"email": "alice@example.com", "tenant": 7}
)


def my_orders(email: str, status: str = "open") -> str:
    return f"{email}:{status}"


def registry_with(*params: Param, handler=my_orders, **options) -> ToolRegistry:  # type: ignore[no-untyped-def]
    registry = ToolRegistry(**options.pop("registry", {}))
    registry.add_tool("my_orders", "The signed-in customer's orders.", handler, *params, **options)
    return registry


EMAIL = Param("email", from_auth="email")
STATUS = Param("status", enum=("open", "shipped"), default="open")


# ------------------------------------------------------------------ hidden everywhere
def test_the_parameter_is_in_no_schema_or_export() -> None:
    registry = registry_with(EMAIL, STATUS)
    schema = registry.input_schema("my_orders")
    assert list(schema["properties"]) == ["status"]
    assert "required" not in schema
    for provider in PROVIDERS:
        text = repr(export_tools(registry, provider))
        assert "email" not in text, provider
        assert "status" in text, provider


def test_the_identity_fills_it_on_every_route() -> None:
    registry = registry_with(EMAIL, STATUS)
    assert registry.call("my_orders", {}, auth=ALICE).text == "alice@example.com:open"
    assert registry.call("my_orders", '{"status": "shipped"}', auth=ALICE).text == (
        "alice@example.com:shipped"
    )
    assert asyncio.run(registry.acall("my_orders", {}, auth=ALICE)).text == "alice@example.com:open"
    batch = registry.call_many([("my_orders", {})] * 2, strategy="parallel", auth=ALICE)
    assert [r.text for r in batch] == ["alice@example.com:open"] * 2


def test_the_subject_and_a_typed_claim() -> None:
    def tenant_orders(tenant: int, who: str) -> str:
        return f"{who}@{tenant + 1}"

    registry = registry_with(
        Param("tenant", "integer", from_auth="tenant"),
        Param("who", from_auth="subject"),
        handler=tenant_orders,
    )
    assert registry.input_schema("my_orders")["properties"] == {}
    assert registry.call("my_orders", {}, auth=ALICE).text == "alice@8"


def test_hooks_and_approvers_see_the_filled_value() -> None:
    seen: list[object] = []

    def approve(request: ApprovalRequest) -> bool:
        seen.append(dict(request.arguments))
        return True

    def before(event: CallEvent) -> None:
        seen.append(dict(event.arguments))

    registry = registry_with(EMAIL, STATUS, side_effects=True, registry={"approve": approve})
    registry.on_call(before=before)
    assert registry.call("my_orders", {}, auth=ALICE).ok
    assert seen == [{"email": "alice@example.com", "status": "open"}] * 2


def test_a_tool_with_it_never_takes_the_plain_route() -> None:
    registry = registry_with(EMAIL, STATUS)
    registry.add_tool("plain", "Plain.", lambda: "ok")
    assert registry._resolve("my_orders").plain is False  # type: ignore[union-attr]
    assert registry._resolve("my_orders").from_auth is not None  # type: ignore[union-attr]
    plain = registry._resolve("plain")
    assert plain is not None
    assert plain.plain
    assert plain.from_auth is None


# ------------------------------------------------------------------------ refusals
def refusal(result) -> str:  # type: ignore[no-untyped-def]
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "not_permitted"
    return str(result.error.message)


def test_no_identity_is_refused_and_the_handler_does_not_run() -> None:
    ran: list[str] = []

    def handler(email: str) -> str:
        ran.append(email)
        return email

    registry = registry_with(EMAIL, handler=handler)
    message = refusal(registry.call("my_orders", {}))
    assert "parameter 'email'" in message
    assert "the 'email' claim of the caller's token" in message
    assert "not from the model" in message
    assert "no authenticated caller" in message
    assert ran == []


@pytest.mark.parametrize("claims", [{}, {"email": None}], ids=["missing", "null"])
def test_a_missing_or_null_claim_is_refused(claims: dict[str, object]) -> None:
    registry = registry_with(EMAIL)
    message = refusal(registry.call("my_orders", {}, auth=AuthIdentity(subject="b", claims=claims)))
    assert "carries no 'email' claim" in message
    assert "not from the model" in message


def test_a_missing_subject_is_named_as_such() -> None:
    registry = registry_with(Param("email", from_auth="subject"))
    message = refusal(registry.call("my_orders", {}, auth=AuthIdentity(claims={"email": "x"})))
    assert "carries no subject" in message


@pytest.mark.parametrize(
    ("claim", "words"),
    [(42, "expected string, got integer 42"), (["a"], "expected string, got array")],
)
def test_a_claim_of_the_wrong_type_is_refused_not_passed_on(claim: object, words: str) -> None:
    registry = registry_with(EMAIL)
    message = refusal(registry.call("my_orders", {}, auth=AuthIdentity(claims={"email": claim})))
    assert words in message
    assert "not valid for the parameter" in message


def test_a_claim_is_held_to_the_parameters_constraints() -> None:
    registry = registry_with(Param("email", from_auth="email", pattern="@example\\.com$"))
    message = refusal(registry.call("my_orders", {}, auth=AuthIdentity(claims={"email": "m@evil"})))
    assert "pattern" in message
    assert registry.call("my_orders", {}, auth=ALICE).ok


@pytest.mark.parametrize("open_tool", [False, True], ids=["closed", "open"])
def test_a_model_that_sends_it_gets_invalid_arguments(open_tool: bool) -> None:
    def handler(email: str, **extra: object) -> str:
        return email

    registry = registry_with(EMAIL, handler=handler, additional_properties=open_tool)
    result = registry.call("my_orders", {"email": "mallory@x"}, auth=ALICE)
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "invalid_arguments"
    assert "'email' is filled from the caller's identity" in result.text
    assert "do not send it" in result.text
    assert "mallory" not in registry.call("my_orders", {}, auth=ALICE).text


def test_a_null_sent_for_an_optional_one_is_refused_too() -> None:
    registry = registry_with(Param("email", from_auth="email", required=False))
    result = registry.call("my_orders", {"email": None}, auth=ALICE)
    assert result.error is not None
    assert result.error.kind == "invalid_arguments"


def test_an_optional_one_falls_back_to_its_default() -> None:
    registry = registry_with(Param("email", from_auth="email", default="guest"))
    assert registry.call("my_orders", {}).text == "guest:open"
    assert registry.call("my_orders", {}, auth=AuthIdentity(subject="b")).text == "guest:open"
    assert registry.call("my_orders", {}, auth=ALICE).text == "alice@example.com:open"


def test_required_false_leaves_it_to_the_handlers_default() -> None:
    def handler(email: str = "nobody") -> str:
        return email

    registry = registry_with(Param("email", from_auth="email", required=False), handler=handler)
    assert registry.call("my_orders", {}).text == "nobody"


def test_the_handler_still_reads_the_whole_identity() -> None:
    def handler(email: str, ctx: ToolContext) -> str:
        assert ctx.auth is ALICE
        return email

    assert registry_with(EMAIL, handler=handler).call("my_orders", {}, auth=ALICE).ok


# ------------------------------------------------------------------- registration
@pytest.mark.parametrize("claim", ["", " email", "e mail", "a\x00", 3])
def test_a_bad_claim_name_is_td105(claim: object) -> None:
    with pytest.raises(RegistrationError) as caught:
        Param("email", from_auth=claim)  # type: ignore[arg-type]
    assert caught.value.code == "TD105"
    assert caught.value.path == ("from_auth",)


def test_from_auth_with_inject_is_td105() -> None:
    with pytest.raises(RegistrationError, match="not both") as caught:
        Param("email", inject="tool_name", from_auth="email")
    assert caught.value.code == "TD105"


def test_a_nested_from_auth_is_td105() -> None:
    nested = Param("filter", "object", properties=(Param("owner", from_auth="email"),))
    with pytest.raises(RegistrationError, match="tool's own parameters") as caught:
        registry_with(nested, handler=lambda filter: filter)
    assert caught.value.code == "TD105"
    assert caught.value.path == ("params", 0, "properties", 0, "from_auth")


def test_a_placeholder_cannot_name_it() -> None:
    with pytest.raises(RegistrationError, match="filled from the caller's identity") as caught:
        registry_with(EMAIL, Param("status", default="${email}"))
    assert caught.value.code == "TD106"


def test_the_handler_must_accept_it() -> None:
    with pytest.raises(RegistrationError) as caught:
        registry_with(Param("owner", from_auth="email"), handler=lambda email="": email)
    assert caught.value.code == "TD110"


def test_prompts_refuse_it() -> None:
    registry = ToolRegistry()
    with pytest.raises(RegistrationError, match="prompt") as caught:
        registry.add_prompt("p", "A prompt.", "Hi {who}", Param("who", from_auth="email"))
    assert caught.value.code == "TD105"


# ------------------------------------------------------------------------- scopes
def test_add_tool_takes_scopes_deduplicated_in_order() -> None:
    registry = ToolRegistry()
    spec = registry.add_tool(
        "t", "T.", lambda: "ok", scopes=["orders:write", "orders:read", "orders:write"]
    )
    assert spec.scopes == ("orders:write", "orders:read")
    refused = registry.call("t", {}, auth=ALICE)
    assert refused.error is not None
    assert refused.error.kind == "not_permitted"


@pytest.mark.parametrize(
    ("scopes", "path"),
    [(["orders write"], ("scopes", 0)), (["a", ""], ("scopes", 1)), ("orders", ("scopes",))],
)
def test_a_bad_scope_is_a_registration_error(scopes: object, path: tuple[object, ...]) -> None:
    with pytest.raises(RegistrationError, match="scope") as caught:
        ToolRegistry().add(ToolSpec(name="t", description="T.", handler=lambda: 1, scopes=scopes))  # type: ignore[arg-type]
    assert caught.value.path == path
