"""``serve --transport http --auth``: every refusal, over real HTTP on 127.0.0.1.

Tokens are signed with PyJWT by keys generated here; the server is ``build_app``
under uvicorn; clients are httpx2 and the ``mcp`` package's own client.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from tests.security.serve_auth_helpers import (
    AUDIENCE,
    ISSUER,
    forged,
    free_port,
    live_app,
    mcp_session,
    public_pem,
    registry,
    rsa_key,
    sign,
    text_of,
)
from tooldeck.mcp._http import AuthOptions, HttpOptions, hash_token

KEY = rsa_key()
OTHER_KEY = rsa_key()
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def written() -> list[str]:
    return []


@pytest.fixture(scope="module")
def jwt_server(tmp_path_factory: pytest.TempPathFactory, written: list[str]) -> Iterator[str]:
    key_file = tmp_path_factory.mktemp("keys") / "public.pem"
    key_file.write_bytes(public_pem(KEY))
    options = HttpOptions(
        port=free_port(),
        auth=AuthOptions(
            mode="jwt",
            jwt_public_key=key_file,
            issuer=ISSUER,
            audience=AUDIENCE,
            authorization_server="https://login.example",
            leeway=5,
        ),
    )
    with live_app(registry(written), options) as base:
        yield base


def post(base: str, token: str | None, **headers: str) -> httpx2.Response:
    sent = dict(ACCEPT, **headers)
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return httpx2.post(f"{base}/mcp", json=INIT, headers=sent, timeout=30)


# ------------------------------------------------------------------ refusals
REFUSED = {
    "malformed": "not-a-jwt",
    "wrong signature": sign(OTHER_KEY),
    "expired": sign(KEY, exp=1_000_000, iat=999_000),
    "another audience": sign(KEY, aud="https://other.example/mcp"),
    "another issuer": sign(KEY, iss="https://evil.example"),
    "no exp": sign(KEY, exp=None),
    "alg none": forged({"alg": "none", "typ": "JWT"}, None),
    "HS256 signed with the public key": forged({"alg": "HS256", "typ": "JWT"}, public_pem(KEY)),
}


def test_a_request_without_a_token_gets_401_naming_the_metadata(jwt_server: str):
    answer = post(jwt_server, None)
    assert answer.status_code == 401
    header = answer.headers["www-authenticate"]
    assert header.startswith("Bearer ")
    assert 'error="invalid_token"' in header
    assert 'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"' in header


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_every_bad_token_gets_401(jwt_server: str, name: str):
    answer = post(jwt_server, REFUSED[name])
    assert answer.status_code == 401, name
    assert "www-authenticate" in answer.headers


def test_a_token_within_the_leeway_is_accepted(jwt_server: str):
    import time

    assert post(jwt_server, sign(KEY, exp=int(time.time()) - 2)).status_code == 200


def test_a_bearer_prefix_in_another_case_or_basic_auth_is_not_a_token(jwt_server: str):
    answer = httpx2.post(
        f"{jwt_server}/mcp",
        json=INIT,
        headers=dict(ACCEPT, Authorization="Basic YWxpY2U6c2VjcmV0"),
        timeout=30,
    )
    assert answer.status_code == 401


def test_the_protected_resource_metadata(jwt_server: str):
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        answer = httpx2.get(jwt_server + path, timeout=30)
        assert answer.status_code == 200, path
        document = answer.json()
        assert document["resource"] == AUDIENCE
        assert document["authorization_servers"] == ["https://login.example"]
        assert document["bearer_methods_supported"] == ["header"]
        assert document["scopes_supported"] == [
            "hr:read",
            "tickets:read",
            "tickets:write",
            "tooldeck:side-effects",
        ]


def test_scopes_supported_follows_the_registry(tmp_path: Path):
    from tooldeck import ToolRegistry, ToolSpec

    key_file = tmp_path / "public.pem"
    key_file.write_bytes(public_pem(KEY))
    options = HttpOptions(
        port=free_port(),
        auth=AuthOptions(
            mode="jwt",
            jwt_public_key=key_file,
            issuer=ISSUER,
            audience=AUDIENCE,
            authorization_server="https://login.example",
        ),
    )
    reg = ToolRegistry()
    reg.add(ToolSpec(name="ping", description="Answer pong.", handler=lambda: "pong"))
    with live_app(reg, options) as base:
        url = base + "/.well-known/oauth-protected-resource"
        assert "scopes_supported" not in httpx2.get(url, timeout=30).json()  # none asked for
        reg.add(
            ToolSpec(
                name="refund",
                description="Refund an order.",
                handler=lambda: "refunded",
                scopes=("orders:refund",),
            )
        )
        assert httpx2.get(url, timeout=30).json()["scopes_supported"] == ["orders:refund"]


def test_a_foreign_host_or_origin_is_refused_even_with_a_valid_token(jwt_server: str):
    token = sign(KEY)
    assert post(jwt_server, token).status_code == 200
    assert post(jwt_server, token, Host="evil.example").status_code == 421
    assert post(jwt_server, token, Origin="https://evil.example").status_code == 403


# ------------------------------------------------------------------ a real client
async def test_a_jwt_client_lists_and_calls_with_its_identity(jwt_server: str):
    token = sign(KEY, scope="tickets:read other")
    async with mcp_session(f"{jwt_server}/mcp", token) as session:
        names = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert names == ["read_ticket", "whoami", "write_note"]  # no close_ticket
        who = json.loads(text_of(await session.call_tool("whoami", {})))
        assert who == {
            "subject": "alice",
            "client_id": "ide",
            "scopes": ["other", "tickets:read"],
            "email": "alice@example.com",
        }
        assert text_of(await session.call_tool("read_ticket", {})) == "ticket 1: open"


async def test_a_missing_scope_hides_the_tool_and_refuses_the_call(
    jwt_server: str, written: list[str]
):
    async with mcp_session(f"{jwt_server}/mcp", sign(KEY, scope="")) as session:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert "read_ticket" not in names
        assert "close_ticket" not in names
        refused = await session.call_tool("close_ticket", {})
    assert refused.is_error
    assert "not_permitted" in text_of(refused)
    assert "tickets:write" in text_of(refused)
    assert "closed" not in written


async def test_resources_follow_the_callers_scopes_and_see_its_identity(jwt_server: str):
    async with mcp_session(f"{jwt_server}/mcp", sign(KEY, scope="tickets:read")) as session:
        templates = (await session.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["tickets://{ticket_id}"]
        listed = {str(r.uri) for r in (await session.list_resources()).resources}
        assert listed == {"docs://whoami"}  # not hr://salaries: the token lacks hr:read
        ticket = await session.read_resource("tickets://7")
        assert ticket.contents[0].text == "ticket 7: open"  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="no resource has this URI"):
            await session.read_resource("hr://salaries")  # unknown to this caller
        caller = json.loads(
            (await session.read_resource("docs://whoami")).contents[0].text  # type: ignore[union-attr]
        )
        assert caller["subject"] == "alice"
    async with mcp_session(f"{jwt_server}/mcp", sign(KEY, scope="")) as session:
        assert (await session.list_resource_templates()).resource_templates == []
        with pytest.raises(MCPError, match="no resource has this URI"):
            await session.read_resource("tickets://7")


async def test_side_effects_need_the_side_effects_scope(jwt_server: str, written: list[str]):
    async with mcp_session(f"{jwt_server}/mcp", sign(KEY, scope="tickets:read")) as session:
        refused = await session.call_tool("write_note", {"text": "unscoped"})
    assert refused.is_error
    assert "not_permitted" in text_of(refused)
    assert "tooldeck:side-effects" in text_of(refused)
    assert "unscoped" not in written
    scp = ["tooldeck:side-effects"]  # the list form of the scope claim
    async with mcp_session(f"{jwt_server}/mcp", sign(KEY, scope=None, scp=scp)) as session:
        allowed = await session.call_tool("write_note", {"text": "scoped"})
    assert not allowed.is_error, text_of(allowed)
    assert "scoped" in written


def test_a_session_cannot_continue_with_another_callers_token(jwt_server: str):
    """The SDK binds a session to the principal that opened it."""
    first = post(jwt_server, sign(KEY))
    session_id = first.headers.get("mcp-session-id")
    assert session_id
    other = httpx2.post(
        f"{jwt_server}/mcp",
        json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        headers=dict(
            ACCEPT,
            Authorization=f"Bearer {sign(KEY, sub='mallory')}",
            **{"mcp-session-id": session_id, "mcp-protocol-version": "2025-06-18"},
        ),
        timeout=30,
    )
    assert other.status_code in (403, 404)


# ------------------------------------------------------------------ bearer
@pytest.fixture(scope="module")
def bearer_server(tmp_path_factory: pytest.TempPathFactory, written: list[str]) -> Iterator[str]:
    tokens = tmp_path_factory.mktemp("tokens") / "tokens.yaml"
    tokens.write_text(
        f"- sha256: {hash_token('ci-token-0123456789abcdef')}\n"
        "  subject: ci-bot\n"
        "  scopes: [tickets:read, tickets:write]\n"
        "  claims: {email: ci@example.com}\n"
        f"- sha256: {hash_token('writer-token-0123456789ab')}\n"
        "  subject: writer\n"
        "  scopes: [tooldeck:side-effects]\n",
        encoding="utf-8",
    )
    options = HttpOptions(port=free_port(), auth=AuthOptions(mode="bearer", tokens_file=tokens))
    with live_app(registry(written), options) as base:
        yield base


async def test_a_bearer_client_lists_and_calls(bearer_server: str, written: list[str]):
    async with mcp_session(f"{bearer_server}/mcp", "ci-token-0123456789abcdef") as session:
        names = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert names == ["close_ticket", "read_ticket", "whoami", "write_note"]
        who = json.loads(text_of(await session.call_tool("whoami", {})))
        assert who["subject"] == "ci-bot"
        assert who["email"] == "ci@example.com"
        refused = await session.call_tool("write_note", {"text": "by ci"})
        assert refused.is_error
        assert "tooldeck:side-effects" in text_of(refused)
    async with mcp_session(f"{bearer_server}/mcp", "writer-token-0123456789ab") as session:
        assert not (await session.call_tool("write_note", {"text": "by writer"})).is_error
    assert "by writer" in written
    assert "by ci" not in written


def test_an_unknown_or_missing_bearer_token_gets_401(bearer_server: str):
    assert post(bearer_server, "ci-token-0123456789abcdeX").status_code == 401
    assert post(bearer_server, hash_token("ci-token-0123456789abcdef")).status_code == 401
    answer = post(bearer_server, None)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer ")
    assert post(bearer_server, "ci-token-0123456789abcdef").status_code == 200


# ------------------------------------------------------------------ public binds
def test_a_public_bind_checks_host_against_allowed_host(tmp_path: Path, written: list[str]):
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(
        f"- sha256: {hash_token('public-token-0123456789')}\n  subject: a\n", encoding="utf-8"
    )
    options = HttpOptions(
        host="0.0.0.0",  # the point of the test; reached over loopback only
        port=free_port(),
        auth=AuthOptions(mode="bearer", tokens_file=tokens),
        allowed_hosts=("tools.example",),
        allowed_origins=("https://app.example",),
    )
    with live_app(registry(written), options) as base:
        token = "public-token-0123456789"
        assert post(base, token, Host="tools.example").status_code == 200
        assert post(base, token, Host="tools.example:8443").status_code == 200
        assert post(base, token, Host="evil.example").status_code == 421
        assert post(base, token).status_code == 421  # 127.0.0.1 is not a name it serves
        good = post(base, token, Host="tools.example", Origin="https://app.example")
        assert good.status_code == 200
        bad = post(base, token, Host="tools.example", Origin="https://evil.example")
        assert bad.status_code == 403
        assert post(base, None, Host="tools.example").status_code == 401


def test_the_options_are_refused_as_the_cli_refuses_them():
    from tooldeck.mcp._http import ServeOptionsError, check_auth, check_options

    public = HttpOptions(host="0.0.0.0", allowed_hosts=("x",))
    with pytest.raises(ServeOptionsError, match="--insecure-no-auth"):
        check_options(public)
    check_options(dataclasses.replace(public, insecure_no_auth=True))
    bad: dict[str, Any] = {
        "--tokens": {"mode": "bearer"},
        "--audience": {"mode": "jwt", "jwks_url": "https://x/jwks"},
        "--jwt-public-key FILE or --jwks-url": {"mode": "jwt", "audience": AUDIENCE},
        "HS256": {
            "mode": "jwt",
            "audience": AUDIENCE,
            "jwks_url": "https://x/jwks",
            "algorithms": ("RS256", "HS256"),
        },
        "none is refused": {
            "mode": "jwt",
            "audience": AUDIENCE,
            "jwks_url": "https://x/jwks",
            "algorithms": ("none",),
        },
    }
    for words, fields in bad.items():
        with pytest.raises(ServeOptionsError, match=words):
            check_auth(AuthOptions(**fields))
