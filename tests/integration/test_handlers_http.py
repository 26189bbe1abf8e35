"""The HTTP pack (tooldeck.handlers.http) against a real server on 127.0.0.1.

Loopback is a private address, so the local server is reachable only when a test's config sets
``allow_private: true`` and allows the host. Names other than ``localhost`` are made up
(``api.example.test``): the DNS boundary, ``socket.getaddrinfo``, is patched to answer them, and
numeric hosts still go to the real resolver, as they do in the C library (the connection code
calls getaddrinfo again with the checked IP).
"""

from __future__ import annotations

import ipaddress
import socket
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from tests.packs import ctx
from tooldeck.handlers.http import http_get, http_request

from .http_pack_server import BIG_BYTES, FakeDns, LocalServer, cfg, refused


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        yield srv


# --- reaching the server, and the answers -----------------------------------------------------


def test_json_answers_are_parsed(server: LocalServer):
    got = http_get(f"http://127.0.0.1:{server.port}/json?q=1", context=ctx(cfg("127.0.0.1")))
    assert got["status"] == 200
    assert got["url"] == f"http://127.0.0.1:{server.port}/json?q=1"
    assert got["content_type"] == "application/json"
    assert got["body"]["path"] == "/json?q=1"
    assert got["truncated"] is False
    assert got["headers"]["content-type"] == "application/json"
    assert "x-echo" not in got["headers"]


def test_text_is_decoded_with_the_declared_charset(server: LocalServer):
    got = http_get(f"http://localhost:{server.port}/text", context=ctx(cfg("localhost")))
    assert got["body"] == "caf\u00e9 au lait"


def test_error_statuses_are_results(server: LocalServer):
    got = http_get(f"http://127.0.0.1:{server.port}/status/503", context=ctx(cfg("127.0.0.1")))
    assert (got["status"], got["body"]) == (503, "nope")
    got = http_get(f"http://127.0.0.1:{server.port}/missing", context=ctx(cfg("127.0.0.1")))
    assert got["status"] == 404


def test_json_too_deep_to_parse_is_text(server: LocalServer):
    got = http_get(f"http://127.0.0.1:{server.port}/deep", context=ctx(cfg("127.0.0.1")))
    assert got["body"].startswith("[[[")


def test_binary_content_is_described_not_returned(server: LocalServer):
    got = http_get(f"http://127.0.0.1:{server.port}/binary", context=ctx(cfg("127.0.0.1")))
    assert got["body"].startswith("[binary content (image/png, 108 bytes")


def test_methods_body_and_head(server: LocalServer):
    url = f"http://127.0.0.1:{server.port}/json"
    headers = {"Content-Type": "application/json"}
    got = http_request("post", url, headers, '{"a": 1}', context=ctx(cfg("127.0.0.1")))
    assert got["body"]["method"] == "POST"
    assert got["body"]["body"] == '{"a": 1}'
    head = http_request("HEAD", url, context=ctx(cfg("127.0.0.1")))
    assert (head["status"], head["body"]) == (200, "")
    message = refused(
        "invalid_arguments", http_request, "TRACE", url, context=ctx(cfg("127.0.0.1"))
    )
    assert "GET" in message


def test_no_cookie_and_no_proxy_from_the_environment(server: LocalServer, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    got = http_get(f"http://127.0.0.1:{server.port}/json", context=ctx(cfg("127.0.0.1")))
    assert got["status"] == 200  # the proxy on port 9 would have refused the connection
    assert "Cookie" not in got["body"]["headers"]


# --- who may be reached ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [{}, {"tooldeck": {}}, {"tooldeck": {"http": {}}}, {"tooldeck": {"http": {"allow_hosts": []}}}],
)
def test_no_allowed_host_refuses_everything(server: LocalServer, config: dict[str, Any]):
    message = refused(
        "not_enabled", http_get, f"http://127.0.0.1:{server.port}/json", context=ctx(config)
    )
    assert "tooldeck.http.allow_hosts" in message
    assert server.seen == []


def test_a_host_off_the_list_is_refused(server: LocalServer):
    message = refused(
        "not_permitted",
        http_get,
        f"http://127.0.0.1:{server.port}/",
        context=ctx(cfg("api.github.com")),
    )
    assert "tooldeck.http.allow_hosts" in message


def test_loopback_needs_allow_private(server: LocalServer):
    for url in [
        f"http://127.0.0.1:{server.port}/",
        f"http://localhost:{server.port}/",
        f"http://2130706433:{server.port}/",
        f"http://0x7f.1:{server.port}/",
        f"http://127.1:{server.port}/",
        f"http://[::ffff:127.0.0.1]:{server.port}/",
    ]:
        config = cfg("127.0.0.1", "localhost", "::ffff:127.0.0.1", private=False)
        message = refused("not_permitted", http_get, url, context=ctx(config))
        assert "allow_private" in message
    assert server.seen == []


def test_odd_spellings_reach_what_they_mean(server: LocalServer):
    got = http_get(f"http://2130706433:{server.port}/json", context=ctx(cfg("127.0.0.1")))
    assert got["body"]["headers"]["Host"] == f"2130706433:{server.port}"


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"tooldeck": "yes"}, "tooldeck"),
        ({"tooldeck": {"http": ["a"]}}, "tooldeck.http"),
        (cfg("a.test", private="no"), "tooldeck.http.allow_private"),
        (cfg("a.test", timeout="3"), "tooldeck.http.timeout"),
        (cfg("a.test", max_response_bytes=0), "tooldeck.http.max_response_bytes"),
        (cfg("a.test", max_redirects=-1), "tooldeck.http.max_redirects"),
        (cfg("a.test", headers=["x"]), "tooldeck.http.headers"),
        (cfg("a.test", headers={"a.test": {"X-A": 1}}), "tooldeck.http.headers"),
    ],
)
def test_wrong_config_types_name_the_key(config: dict[str, Any], key: str):
    message = refused("invalid_config", http_get, "http://a.test/", context=ctx(config))
    assert key in message


def test_a_public_looking_name_for_loopback_is_refused(server: LocalServer, monkeypatch):
    dns = FakeDns(api_example_test=["127.0.0.1"])
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    url = f"http://api.example.test:{server.port}/json"
    message = refused(
        "not_permitted", http_get, url, context=ctx(cfg("api.example.test", private=False))
    )
    assert "127.0.0.1" in message
    assert server.seen == []
    got = http_get(url, context=ctx(cfg("api.example.test")))
    assert got["body"]["headers"]["Host"] == f"api.example.test:{server.port}"
    assert got["url"] == url


def test_rebinding_cannot_reach_the_local_server(server: LocalServer, monkeypatch):
    """The check sees a public address, a later lookup would say 127.0.0.1: the connection goes
    to the checked address (refused here without touching the network), never to loopback."""
    dns = FakeDns(api_example_test=["93.184.215.14", "127.0.0.1"])
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    dialled: list[tuple[str, int]] = []
    real_connect = socket.create_connection

    def connect(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        dialled.append(address)
        if not ipaddress.ip_address(address[0]).is_loopback:
            raise ConnectionRefusedError("no network in tests")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", connect)
    url = f"http://api.example.test:{server.port}/json"
    refused("connection_failed", http_get, url, context=ctx(cfg("api.example.test", private=False)))
    assert dialled == [("93.184.215.14", server.port)]
    assert dns.asked == ["api.example.test"]
    assert server.seen == []


# --- redirects ------------------------------------------------------------------------------


def test_redirects_are_followed_and_rechecked(server: LocalServer):
    base = f"http://127.0.0.1:{server.port}"
    got = http_get(f"{base}/redirect?to=/json%3Fhop%3D1", context=ctx(cfg("127.0.0.1")))
    assert got["body"]["path"] == "/json?hop=1"
    assert got["url"] == f"{base}/json?hop=1"
    for target, kind in [
        ("http://elsewhere.test/", "not_permitted"),
        ("http://169.254.169.254/latest/meta-data/", "not_permitted"),
        ("file:///etc/passwd", "invalid_arguments"),
    ]:
        message = refused(
            kind, http_get, f"{base}/redirect?to={target}", context=ctx(cfg("127.0.0.1"))
        )
        assert "redirected" in message
    assert len(server.seen) == 5  # two for the first call, then one per refused redirect


PUBLIC = "93.184.215.14"


@pytest.fixture
def public(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> FakeDns:
    """``www.example.test`` resolves to a public address whose connections land on the local
    server (as a real public server would answer), ``metadata.test`` to the cloud metadata
    address; nothing else but loopback may be dialled."""
    dns = FakeDns(www_example_test=[PUBLIC], metadata_test=["169.254.169.254"])
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    real_connect = socket.create_connection

    def connect(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        if address[0] == PUBLIC:
            address = ("127.0.0.1", address[1])
        if not ipaddress.ip_address(address[0]).is_loopback:
            raise AssertionError(f"dialled {address}")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", connect)
    return dns


def test_a_redirect_to_a_private_address_is_refused(server: LocalServer, public: FakeDns):
    config = cfg("www.example.test", "metadata.test", "169.254.169.254", private=False)
    start = f"http://www.example.test:{server.port}"
    assert http_get(f"{start}/json", context=ctx(config))["status"] == 200
    for target in ["http://metadata.test/latest/", "http://169.254.169.254/latest/"]:
        message = refused(
            "not_permitted", http_get, f"{start}/redirect?to={target}", context=ctx(config)
        )
        assert "169.254.169.254" in message
        assert "allow_private" in message
    assert [r["path"].split("?")[0] for r in server.seen] == ["/json", "/redirect", "/redirect"]


def test_a_redirect_loop_ends(server: LocalServer):
    config = cfg("127.0.0.1", max_redirects=3)
    message = refused(
        "too_many_redirects", http_get, f"http://127.0.0.1:{server.port}/loop", context=ctx(config)
    )
    assert "3 redirects" in message
    assert len(server.seen) == 4


def test_303_and_post_302_become_get_and_307_keeps_the_body(server: LocalServer):
    base = f"http://127.0.0.1:{server.port}"
    headers = {"Content-Type": "text/plain"}
    for status, method, body in [(303, "GET", ""), (302, "GET", ""), (307, "POST", "data")]:
        url = f"{base}/redirect?status={status}&to=/json"
        got = http_request("POST", url, headers, "data", context=ctx(cfg("127.0.0.1")))
        assert (got["body"]["method"], got["body"]["body"]) == (method, body)
        assert ("Content-Type" in got["body"]["headers"]) == (method == "POST")


def test_credentials_stay_with_the_origin(server: LocalServer, monkeypatch):
    monkeypatch.setenv("HTTP_PACK_TOKEN", "tok-123456")
    config = cfg(
        "127.0.0.1", "localhost", headers={"127.0.0.1": {"X-Api-Key": "${env:HTTP_PACK_TOKEN}"}}
    )
    mine = {"Authorization": "Bearer model", "Cookie": "a=b", "X-Trace": "t"}
    same = http_get(f"http://127.0.0.1:{server.port}/redirect?to=/json", mine, context=ctx(config))
    assert same["body"]["headers"]["X-Api-Key"] == "***"
    assert same["body"]["headers"]["Authorization"] == "Bearer model"
    other = f"http://localhost:{server.port}/json"
    moved = http_get(
        f"http://127.0.0.1:{server.port}/redirect?to={other}", mine, context=ctx(config)
    )
    sent = server.seen[-1]["headers"]
    assert moved["body"]["headers"]["Host"] == f"localhost:{server.port}"
    assert "X-Api-Key" not in sent
    assert "Authorization" not in sent
    assert "Cookie" not in sent
    assert sent["X-Trace"] == "t"


# --- bounded answers ------------------------------------------------------------------------


def test_a_100_mb_answer_is_cut(server: LocalServer):
    config = cfg("127.0.0.1", max_response_bytes=200_000)
    got = http_get(f"http://127.0.0.1:{server.port}/big", context=ctx(config))
    assert got["truncated"] is True
    assert got["body"].endswith("\n[... response truncated at 200000 bytes]")
    assert got["body"].count("x") == 200_000
    assert server.stopped_big.wait(30), "the server is still sending: the tool read on"
    assert server.big_sent[0] < BIG_BYTES


def test_a_gzip_bomb_is_inflated_only_up_to_the_cap(server: LocalServer):
    config = cfg("127.0.0.1", max_response_bytes=1_048_576)
    tracemalloc.start()
    try:
        got = http_get(f"http://127.0.0.1:{server.port}/bomb", context=ctx(config))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got["truncated"] is True
    assert got["body"].count("\x00") == 1_048_576
    assert peak < 16 * 1024 * 1024, f"peak {peak:,} bytes"


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "raw-deflate"])
def test_compressed_text_is_decoded(server: LocalServer, encoding: str):
    got = http_get(
        f"http://127.0.0.1:{server.port}/packed?as={encoding}", context=ctx(cfg("127.0.0.1"))
    )
    assert got["body"] == {"packed": True}


def test_a_slow_server_is_a_timeout(server: LocalServer):
    config = cfg("127.0.0.1", timeout=0.3)
    message = refused(
        "timeout", http_get, f"http://127.0.0.1:{server.port}/slow", context=ctx(config)
    )
    assert "tooldeck.http.timeout" in message


# --- headers and secrets --------------------------------------------------------------------


def test_configured_secrets_are_sent_and_masked(server: LocalServer, monkeypatch):
    monkeypatch.setenv("HTTP_PACK_TOKEN", "s3cr3t-value")
    config = cfg(
        "*.localhost",
        "localhost",
        headers={"localhost": {"Authorization": "Bearer ${env:HTTP_PACK_TOKEN}"}},
    )
    got = http_get(f"http://localhost:{server.port}/json?k=s3cr3t-value", context=ctx(config))
    assert server.seen[-1]["headers"]["Authorization"] == "Bearer s3cr3t-value"
    assert got["body"]["headers"]["Authorization"] == "Bearer ***"
    assert got["body"]["path"] == "/json?k=***"
    assert got["url"].endswith("/json?k=***")
    assert got["headers"]["link"] == "</json?k=***>"
    assert "s3cr3t-value" not in repr(got)


def test_a_missing_variable_is_named_and_nothing_is_sent(server: LocalServer, monkeypatch):
    monkeypatch.delenv("HTTP_PACK_MISSING", raising=False)
    config = cfg("127.0.0.1", headers={"127.0.0.1": {"X-Key": "${env:HTTP_PACK_MISSING}"}})
    message = refused(
        "not_enabled", http_get, f"http://127.0.0.1:{server.port}/json", context=ctx(config)
    )
    assert "HTTP_PACK_MISSING" in message
    assert server.seen == []


@pytest.mark.parametrize(
    ("headers", "kind"),
    [
        ({"X-A": "v\r\nX-Injected: 1"}, "invalid_arguments"),
        ({"X-A": "v\nX-Injected: 1"}, "invalid_arguments"),
        ({"X-A": "v\x00"}, "invalid_arguments"),
        ({"X-A": "caf\u00e9"}, "invalid_arguments"),
        ({"X-A\r\nX-B": "v"}, "invalid_arguments"),
        ({"Bad Name": "v"}, "invalid_arguments"),
        ({"Host": "evil.test"}, "invalid_arguments"),
        ({"content-length": "5"}, "invalid_arguments"),
        ({"Transfer-Encoding": "chunked"}, "invalid_arguments"),
        ({"Connection": "close"}, "invalid_arguments"),
        ({"X-A": "${env:HOME}"}, "not_permitted"),
        ({"x-key": "mine"}, "not_permitted"),
    ],
)
def test_bad_model_headers_are_refused(server: LocalServer, headers: dict[str, str], kind: str):
    config = cfg("127.0.0.1", headers={"127.0.0.1": {"X-Key": "operator"}})
    refused(kind, http_get, f"http://127.0.0.1:{server.port}/json", headers, context=ctx(config))
    assert server.seen == []


def test_urls_with_credentials_or_other_schemes_are_refused():
    config = cfg("a.test")
    refused("invalid_arguments", http_get, "http://u:p@a.test/", context=ctx(config))
    refused("invalid_arguments", http_get, "ftp://a.test/", context=ctx(config))
    refused("invalid_arguments", http_get, "http://[zz]/", context=ctx(config))


@pytest.mark.parametrize(
    ("then", "same"),
    [
        (("https", "a.test", 443), True),  # http -> https upgrade of the same host
        (("http", "a.test", 80), True),
        (("http", "a.test", 8080), False),
        (("http", "b.test", 80), False),
        (("https", "b.test", 443), False),
    ],
)
def test_which_redirects_keep_credentials(then: tuple[str, str, int], same: bool):
    from tooldeck.handlers._httpfetch import _same_origin

    assert _same_origin(("http", "a.test", 80), then) is same
    assert _same_origin(("https", "a.test", 443), ("http", "a.test", 80)) is False  # downgrade
