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


async def test_a_verified_token_is_remembered_briefly_and_only_when_valid(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A client's next request skips the signature check; a bad token is never remembered,
    and a remembered one ends with its exp or the minute, whichever is first."""
    import time

    from tests.security.serve_auth_helpers import public_pem
    from tooldeck.mcp._http import jwt_tokens

    key = rsa_key()
    pem = tmp_path_factory.mktemp("keys") / "k.pem"
    pem.write_bytes(public_pem(key))
    verifier = JwtVerifier.from_options(
        AuthOptions(mode="jwt", jwt_public_key=pem, audience=AUDIENCE, leeway=0)
    )
    checks: list[str] = []
    original = verifier._verify

    async def counted(token: str):  # type: ignore[no-untyped-def]
        checks.append(token)
        return await original(token)

    monkeypatch.setattr(verifier, "_verify", counted)
    good = sign(key)
    now = time.time()
    short = sign(key, exp=int(now) + 2)  # signed before the clock below is moved
    first = await verifier.verify_token(good)
    assert first is not None
    assert await verifier.verify_token(good) is first
    assert len(checks) == 1  # the second request cost no signature check
    bad = sign(rsa_key())
    assert await verifier.verify_token(bad) is None
    assert await verifier.verify_token(bad) is None
    assert checks.count(bad) == 2  # refusals are checked every time, never remembered
    # Past the minute (or the token's exp) it is checked again.
    monkeypatch.setattr(jwt_tokens.time, "time", lambda: now + jwt_tokens.VERIFIED_SECONDS + 1)
    assert await verifier.verify_token(good) is not None
    assert checks.count(good) == 2
    monkeypatch.setattr(jwt_tokens.time, "time", lambda: now)
    assert await verifier.verify_token(short) is not None
    assert await verifier.verify_token(short) is not None
    assert checks.count(short) == 1
    monkeypatch.setattr(jwt_tokens.time, "time", lambda: now + 5)  # past its exp
    await verifier.verify_token(short)
    assert checks.count(short) == 2  # no longer taken as verified: checked again
    # Bounded: the oldest go first.
    for n in range(jwt_tokens.VERIFIED_TOKENS + 10):
        verifier._verified.put(n.to_bytes(8, "big"), first)
    assert len(verifier._verified._entries) == jwt_tokens.VERIFIED_TOKENS
