"""``from_auth:`` parameters over real HTTP: filled from the verified token, never the model.

A JWT-authenticated ``build_app`` under uvicorn on 127.0.0.1 and a real MCP client: the
bound parameter is in no listed schema, is filled from the token's claim, a token without
the claim is refused, and a client that sends the parameter itself gets invalid_arguments.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.security.serve_auth_helpers import (
    AUDIENCE,
    ISSUER,
    free_port,
    live_app,
    mcp_session,
    public_pem,
    rsa_key,
    sign,
    text_of,
)
from tooldeck import Param, ToolRegistry, ToolSpec
from tooldeck.mcp._http import AuthOptions, HttpOptions

KEY = rsa_key()


def my_orders(email: str, status: str = "open") -> dict[str, str]:
    return {"email": email, "status": status}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    key_file = tmp_path_factory.mktemp("keys") / "public.pem"
    key_file.write_bytes(public_pem(KEY))
    registry = ToolRegistry()
    registry.add(
        ToolSpec(
            name="my_orders",
            description="The caller's own orders.",
            handler=my_orders,
            params=(
                Param("email", description="Whose orders", from_auth="email"),
                Param("status", description="Which orders", default="open"),
            ),
        )
    )
    options = HttpOptions(
        port=free_port(),
        auth=AuthOptions(
            mode="jwt", jwt_public_key=key_file, issuer=ISSUER, audience=AUDIENCE, leeway=5
        ),
    )
    with live_app(registry, options) as base:
        yield f"{base}/mcp"


async def test_the_bound_parameter_is_filled_from_the_token_and_hidden(server: str) -> None:
    async with mcp_session(server, sign(KEY, email="bob@example.com")) as session:
        (tool,) = (await session.list_tools()).tools
        assert set(tool.input_schema["properties"]) == {"status"}
        assert "email" not in json.dumps(tool.input_schema)
        result = await session.call_tool("my_orders", {"status": "shipped"})
        assert not result.is_error, text_of(result)
        assert json.loads(text_of(result)) == {"email": "bob@example.com", "status": "shipped"}


async def test_a_token_without_the_claim_is_refused(server: str) -> None:
    async with mcp_session(server, sign(KEY, email=None)) as session:
        refused = await session.call_tool("my_orders", {})
    assert refused.is_error
    assert "not_permitted" in text_of(refused)
    assert "email" in text_of(refused)


@pytest.mark.parametrize("claim", [["a@x", "b@x"], 42, {"address": "a@x"}])
async def test_a_claim_of_the_wrong_type_is_refused_not_passed_on(
    server: str, claim: object
) -> None:
    # The claim is checked against the parameter's schema (a string here), like any argument.
    async with mcp_session(server, sign(KEY, email=claim)) as session:
        refused = await session.call_tool("my_orders", {})
    assert refused.is_error
    assert "not_permitted" in text_of(refused)
    assert "email" in text_of(refused)


async def test_a_client_that_sends_the_bound_parameter_is_refused(server: str) -> None:
    async with mcp_session(server, sign(KEY, email="bob@example.com")) as session:
        forged = await session.call_tool("my_orders", {"email": "ceo@example.com"})
    assert forged.is_error
    assert "invalid_arguments" in text_of(forged)
    assert "ceo@example.com" not in text_of(forged).split("Error")[0]
