"""The pieces of the serve limits that need no server: flags, client keys, call shares."""

from __future__ import annotations

import argparse

import anyio
import pytest
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from tooldeck.cli._serve_limits import add_limit_arguments, limit_options, parse_rate, parse_size
from tooldeck.mcp._serving import CallShares, client_key


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="tooldeck serve", exit_on_error=True)
    add_limit_arguments(made)
    return made


@pytest.mark.parametrize(
    ("text", "size"), [("1048576", 1048576), ("1MiB", 1048576), ("512KiB", 524288), ("2MB", 2e6)]
)
def test_sizes(text: str, size: int):
    assert parse_size(text) == size


@pytest.mark.parametrize(("text", "rate"), [("20/s", 20.0), ("600/m", 10.0), ("5", 5.0)])
def test_rates(text: str, rate: float):
    assert parse_rate(text) == rate


def test_rate_none_turns_the_limit_off():
    assert limit_options(parser().parse_args(["--rate-limit", "none"])) == {"rate_limit": None}


def test_only_the_flags_given_are_options():
    args = parser().parse_args(["--max-body", "512KiB", "--drain-timeout", "5"])
    assert limit_options(args) == {"max_body": 524288, "drain_timeout": 5.0}
    assert limit_options(parser().parse_args([])) == {}


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--max-body", "lots"),
        ("--max-body", "0"),
        ("--rate-limit", "fast"),
        ("--rate-limit", "0/s"),
        ("--max-sessions", "-1"),
        ("--header-timeout", "nan"),
        ("--max-concurrent", "1.5"),
    ],
)
def test_a_bad_value_is_a_usage_error_naming_the_flag(flag: str, value: str, capsys):
    with pytest.raises(SystemExit) as exit:
        parser().parse_args([flag, value])
    assert exit.value.code == 2
    assert flag in capsys.readouterr().err


def _user(subject: str | None, client_id: str, issuer: str | None = None) -> AuthenticatedUser:
    claims = {"iss": issuer} if issuer else None
    token = AccessToken(token="t", client_id=client_id, scopes=[], subject=subject, claims=claims)
    return AuthenticatedUser(token)


def test_the_client_key_is_the_verified_subject_else_the_client_id_else_the_address():
    address = {"client": ("127.0.0.2", 5000)}
    assert client_key(dict(address)) == "address:127.0.0.2"
    alice = {**address, "user": _user("alice", "app", "https://idp")}
    assert client_key(alice) == client_key({"client": ("10.0.0.9", 1), "user": alice["user"]})
    assert client_key(alice) != client_key({**address, "user": _user("alice", "app", "https://x")})
    assert client_key({**address, "user": _user(None, "app")}) == "client:app"
    # Worked out once per request: the scope keeps it for the next layer.
    scope = dict(address)
    assert client_key(scope) == scope["tooldeck.client_key"] == "address:127.0.0.2"


def test_ipv6_addresses_count_by_their_64():
    one = client_key({"client": ("2001:db8::1", 1)})
    assert one == client_key({"client": ("2001:db8::ffff:1", 1)})
    assert one != client_key({"client": ("2001:db8:0:1::1", 1)})
    assert client_key({"client": ("::ffff:10.0.0.1", 1)}) == "address:10.0.0.1"


async def test_a_client_over_its_share_waits_briefly_then_is_refused_others_go_on():
    shares = CallShares(1, wait=0.05)
    async with shares.slot("a") as first:
        assert first
        async with shares.slot("a") as second:
            assert not second
        async with shares.slot("b") as other:
            assert other


async def test_a_waiting_call_gets_the_slot_its_client_frees():
    shares = CallShares(1, wait=30)
    granted: list[bool] = []
    freed = anyio.Event()

    async def waiter() -> None:
        async with shares.slot("a") as ok:
            granted.append(ok)

    async with anyio.create_task_group() as group, shares.slot("a"):
        group.start_soon(waiter)
        await anyio.sleep(0)
        freed.set()
    assert granted == [True]
