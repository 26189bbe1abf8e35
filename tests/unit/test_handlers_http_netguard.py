"""The HTTP tools' address checks and host patterns (tooldeck.handlers._netguard).

What is checked is what the resolver turns a host into: odd spellings of IP literals are read the
way ``inet_aton`` reads them, and IPv6 forms that embed an IPv4 address are judged by that address.
"""

import ipaddress
import socket

import pytest

from tooldeck import ToolFailed
from tooldeck.handlers._netguard import (
    HostPattern,
    canonical_host,
    checked_addresses,
    forbidden_reason,
    ip_literal,
    parse_patterns,
    resolve,
)


@pytest.mark.parametrize(
    ("host", "meant"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("[::1]", "::1"),
        ("::ffff:127.0.0.1", "::ffff:7f00:1"),
        ("[0:0:0:0:0:ffff:7f00:1]", "::ffff:7f00:1"),
    ],
)
def test_ip_literals_in_any_spelling_mean_their_address(host: str, meant: str):
    assert str(ip_literal(host)) == meant
    assert canonical_host(host) == meant


@pytest.mark.parametrize("host", ["example.com", "deadbeef.example", "abc", "x.0x7f", "1.2.3.4.5"])
def test_names_are_not_ip_literals(host: str):
    assert ip_literal(host) is None


def test_names_compare_in_lower_case_without_the_trailing_dot():
    assert canonical_host("API.Example.COM.") == "api.example.com"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.255.0.9",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "100.127.255.254",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "192.0.2.1",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd12:3456::1",
        "fec0::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "::127.0.0.1",
        "::8.8.8.8",
        "2002:7f00:1::",
        "2002:a00:1::1",
        "2001:0:4136:e378:8000:63bf:80ff:fffe",
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::808:808",
        "2001:db8::1",
    ],
)
def test_private_and_special_addresses_are_refused(address: str):
    assert forbidden_reason(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize(
    "address",
    [
        "8.8.8.8",
        "1.1.1.1",
        "93.184.215.14",
        "2606:4700:4700::1111",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
    ],
)
def test_public_addresses_pass(address: str):
    assert forbidden_reason(ipaddress.ip_address(address)) is None


def test_the_reason_names_the_embedded_address():
    reason = forbidden_reason(ipaddress.ip_address("::ffff:127.0.0.1"))
    assert reason is not None
    assert "127.0.0.1" in reason
    assert "loopback" in reason


def test_patterns_exact_wildcard_idna_and_ip():
    exact = HostPattern.parse("API.Example.com", "k")
    assert exact.matches("api.example.com")
    assert not exact.matches("x.api.example.com")
    wild = HostPattern.parse("*.example.com", "k")
    assert wild.matches("a.example.com")
    assert wild.matches("a.b.example.com")
    assert not wild.matches("example.com")
    assert not wild.matches("badexample.com")
    idn = HostPattern.parse("bücher.de", "k")
    assert idn.matches("xn--bcher-kva.de")
    assert HostPattern.parse("*.faß.de", "k").matches("a.xn--fa-hia.de")  # IDNA 2008, as URLs
    ip = HostPattern.parse("127.1", "k")
    assert ip.matches("127.0.0.1")
    v6 = HostPattern.parse("[::ffff:127.0.0.1]", "k")
    assert v6.matches(canonical_host("::ffff:7f00:1"))


@pytest.mark.parametrize(
    "entry",
    ["", "*", "*.", "http://x.com", "a b", "x.com/path", "u@x.com", "*.1.2", "x.com:80", "a%2eb"],
)
def test_malformed_entries_fail_naming_the_key(entry: str):
    with pytest.raises(ToolFailed) as caught:
        HostPattern.parse(entry, "tooldeck.http.allow_hosts")
    assert caught.value.kind == "invalid_config"
    assert "tooldeck.http.allow_hosts" in caught.value.message


@pytest.mark.parametrize("value", ["api.github.com", {"a": 1}, [1, 2], True])
def test_an_allow_list_of_the_wrong_type_fails_naming_the_key(value: object):
    with pytest.raises(ToolFailed, match=r"tooldeck\.http\.allow_hosts"):
        parse_patterns(value, "tooldeck.http.allow_hosts")


def _answers(*addresses: str):
    def fake(host, port, *args, **kwargs):
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in addresses
        ]

    return fake


def test_one_private_answer_among_public_ones_refuses_the_name(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(socket, "getaddrinfo", _answers("8.8.8.8", "10.0.0.7"))
    with pytest.raises(ToolFailed) as caught:
        checked_addresses("api.example.test", 443, allow_private=False, timeout=5)
    assert caught.value.kind == "not_permitted"
    assert "10.0.0.7" in caught.value.message
    assert "allow_private" in caught.value.message


def test_allow_private_lets_private_answers_through(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(socket, "getaddrinfo", _answers("127.0.0.1", "127.0.0.1"))
    found = checked_addresses("api.example.test", 80, allow_private=True, timeout=5)
    assert found == [ipaddress.ip_address("127.0.0.1")]


def test_ip_literals_are_not_resolved(monkeypatch: pytest.MonkeyPatch):
    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("an IP literal must not reach the resolver")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    with pytest.raises(ToolFailed, match="loopback"):
        checked_addresses("2130706433", 80, allow_private=False, timeout=5)
    assert checked_addresses("8.8.8.8", 80, allow_private=False, timeout=5) == [
        ipaddress.ip_address("8.8.8.8")
    ]


def test_a_name_that_does_not_resolve_is_a_clear_failure(monkeypatch: pytest.MonkeyPatch):
    def fail(*args: object, **kwargs: object) -> object:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(ToolFailed) as caught:
        resolve("nowhere.example.test", 80, timeout=5)
    assert caught.value.kind == "not_found"
    assert "nowhere.example.test" in caught.value.message


def test_a_resolver_that_hangs_is_a_timeout(monkeypatch: pytest.MonkeyPatch):
    import threading

    release = threading.Event()

    def hang(*args: object, **kwargs: object) -> object:
        release.wait(10)
        raise socket.gaierror("late")

    monkeypatch.setattr(socket, "getaddrinfo", hang)
    try:
        with pytest.raises(ToolFailed) as caught:
            resolve("slow.example.test", 80, timeout=0.05)
        assert caught.value.kind == "timeout"
    finally:
        release.set()
