"""``--jwks-url``: keys from a JWKS on loopback, key rotation, and the refetch floor."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx2
import pytest

from tests.security.serve_auth_helpers import (
    AUDIENCE,
    INIT,
    JwksServer,
    ec_key,
    free_port,
    jwk_of,
    live_app,
    mcp_session,
    registry,
    rsa_key,
    sign,
    text_of,
)
from tooldeck.mcp._http import AuthOptions, HttpOptions, JwksKeys, JwtVerifier

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def jwks() -> Iterator[JwksServer]:
    with JwksServer() as server:
        yield server


def status(base: str, token: str) -> int:
    headers = dict(ACCEPT, Authorization=f"Bearer {token}")
    return httpx2.post(f"{base}/mcp", json=INIT, headers=headers, timeout=30).status_code


async def test_keys_come_from_the_jwks_and_a_rotated_key_is_fetched(jwks: JwksServer):
    first, second = ec_key(), rsa_key()
    jwks.keys = [jwk_of(first, "k1", "ES256")]
    options = HttpOptions(
        port=free_port(),
        auth=AuthOptions(
            mode="jwt",
            jwks_url=jwks.url,
            audience=AUDIENCE,
            jwks_refetch_floor=0,  # every unknown kid refetches: rotation shows at once
        ),
    )
    with live_app(registry([]), options) as base:
        token = sign(first, "ES256", kid="k1")
        async with mcp_session(f"{base}/mcp", token) as session:
            assert "alice" in text_of(await session.call_tool("whoami", {}))
        reads = jwks.reads
        assert status(base, sign(first, "ES256", kid="k1")) == 200
        assert jwks.reads == reads  # cached
        jwks.keys = [jwk_of(first, "k1", "ES256"), jwk_of(second, "k2", "RS256")]
        assert status(base, sign(second, "RS256", kid="k2")) == 200
        assert jwks.reads == reads + 1
        # a key of the set, but the token says another kid's algorithm: refused
        assert status(base, sign(first, "ES256", kid="k2")) == 401
        assert status(base, sign(second, "RS256")) == 401  # no kid


async def test_a_flood_of_unknown_kids_reads_the_jwks_once_per_floor(jwks: JwksServer):
    key = rsa_key()
    jwks.keys = [jwk_of(key, "k1", "RS256")]
    verifier = JwtVerifier(
        audience=AUDIENCE,
        algorithms=("RS256",),
        jwks=JwksKeys(jwks.url, refetch_floor=3600),
    )
    assert await verifier.verify_token(sign(key, kid="k1")) is not None
    assert jwks.reads == 1
    for _ in range(50):
        assert await verifier.verify_token(sign(key, kid=secrets.token_hex(8))) is None
    assert jwks.reads == 2  # one refetch for the first unknown kid, then the floor


async def test_an_unreachable_jwks_refuses_without_raising():
    verifier = JwtVerifier(
        audience=AUDIENCE,
        jwks=JwksKeys(f"http://127.0.0.1:{free_port()}/jwks.json", timeout=2),
    )
    assert await verifier.verify_token(sign(rsa_key(), kid="k1")) is None
