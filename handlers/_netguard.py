"""Where the HTTP tools may connect: host patterns, name resolution and address checks.

The HTTP tools (:mod:`tooldeck.handlers.http`) take a URL from the model, which is untrusted. Two
questions decide whether a request may leave the machine, and this module answers both:

* **Is the host on the operator's list?** Host names are compared in the form the URL parser gives
  them (lower case, IDNA-encoded, no trailing dot); IP literals in any spelling the C resolver
  accepts (``2130706433``, ``0x7f.1``, ``127.1``, ``[::ffff:127.0.0.1]``) are first turned into
  the address they mean, so the list and the connection agree on what a host is.
* **Is every address the name resolves to public?** Unless ``allow_private`` is set, one private,
  loopback, link-local, multicast, reserved, unspecified or shared address among the answers
  refuses the request, and so do IPv6 forms that embed such an IPv4 address (mapped, compatible,
  6to4, Teredo, NAT64).

The caller then connects to one of the addresses checked here, never to the name again, so a DNS
answer that changes between the check and the connection cannot redirect the request.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass

import httpx2

from tooldeck import ToolFailed

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # well-known NAT64 prefix (RFC 6052)
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")  # local-use NAT64 (RFC 8215)
_V4_COMPATIBLE = ipaddress.IPv6Network("::/96")  # deprecated IPv4-compatible (RFC 4291)
_NUMERIC_V4 = re.compile(r"^[0-9a-fA-FxX.]+$")
"""What the C resolver may read as an IPv4 number (inet_aton: decimal, octal, hex, 1-4 parts)."""
_NOT_IN_HOST = re.compile(r"[/?#@:\[\]\\\s%]")
"""Characters that would make an entry more than a host (a path, a port, credentials)."""
_NAME = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*$")
"""An ASCII (already IDNA-encoded) host name as an allow-list entry may give it."""


def ip_literal(host: str) -> IPAddress | None:
    """The address a host means when it is an IP literal in any spelling, else None.

    ``ipaddress`` reads the standard forms (brackets around IPv6 are dropped first); the forms
    only ``inet_aton`` reads (``127.1``, ``0x7f.0.0.1``, ``2130706433``) are what getaddrinfo
    turns such a name into, so they are read the same way here rather than treated as names.
    """
    text = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if _NUMERIC_V4.match(text) and any(c.isdigit() for c in text):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def canonical_host(host: str) -> str:
    """The form a host is compared in: the address for IP literals, else lower case, no dot."""
    address = ip_literal(host)
    if address is not None:
        return address.compressed
    return host.lower().rstrip(".")


@dataclass(frozen=True)
class HostPattern:
    """One allow-list entry: an exact host or IP, or ``*.suffix`` (subdomains only)."""

    text: str
    """The entry as the operator wrote it (shown in messages)."""
    host: str
    """Canonical host, or the suffix without ``*.`` for a wildcard."""
    wildcard: bool

    @classmethod
    def parse(cls, entry: str, key: str) -> HostPattern:
        """Read one entry; ``key`` names the config key in the error for a malformed entry."""
        text = entry.strip()
        wildcard = text.startswith("*.")
        body = text[2:] if wildcard else text
        if not wildcard and ip_literal(body) is not None:
            return cls(entry, canonical_host(body), False)
        name = ""
        if body and not _NOT_IN_HOST.search(body):
            with suppress(httpx2.InvalidURL):  # the URL parser's IDNA: entries and URLs agree
                name = httpx2.URL(f"http://{body}/").raw_host.decode("ascii").rstrip(".")
        if not _NAME.match(name) or ip_literal(name) is not None:
            raise ToolFailed(
                f"the config key {key} holds {entry!r}, which is not a host name, "
                "'*.domain' or an IP address; ask the operator to fix it",
                kind="invalid_config",
            )
        return cls(entry, name, wildcard)

    def matches(self, host: str) -> bool:
        """Whether a canonical host is this entry (a wildcard matches subdomains, not itself)."""
        if self.wildcard:
            return host.endswith("." + self.host)
        return host == self.host


def parse_patterns(entries: object, key: str) -> tuple[HostPattern, ...]:
    """Read a list of host entries from the config; a wrong type fails naming ``key``."""
    if entries is None:
        return ()
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise ToolFailed(
            f"the config key {key} must be a list of host names (e.g. [api.github.com, "
            "'*.example.com']); ask the operator to fix it",
            kind="invalid_config",
        )
    return tuple(HostPattern.parse(e, key) for e in entries)


def first_match(patterns: Iterable[HostPattern], host: str) -> HostPattern | None:
    """The first entry matching a canonical host, or None."""
    return next((p for p in patterns if p.matches(host)), None)


# --- addresses -----------------------------------------------------------------------------


def _embedded_v4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo, NAT64)."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def forbidden_reason(ip: IPAddress) -> str | None:
    """Why an address is not a public destination (None when it is).

    IPv4-mapped IPv6 is read as the IPv4 address first (Python 3.11 calls ``::ffff:127.0.0.1``
    neither loopback nor private), and the other IPv6 forms that embed an IPv4 address are refused
    when the embedded address would be. Anything ``ipaddress`` does not call global (documentation
    ranges, benchmarking, ...) is refused too.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            return "a link-local address with a zone"
        if ip in _LOCAL_NAT64:
            return "a local-use NAT64 address"
        if ip in _V4_COMPATIBLE and int(ip) > 1:
            return "a deprecated IPv4-compatible IPv6 address"
        for inner in _embedded_v4(ip):
            reason = forbidden_reason(inner)
            if reason is not None:
                return f"an IPv6 form of {inner} ({reason})"
        if ip.ipv4_mapped is not None or ip in _NAT64:
            return None  # these reach the embedded IPv4 address, which passed
    checks = (
        (ip.is_unspecified, "the unspecified address"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local address"),
        (ip.is_multicast, "a multicast address"),
        (isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED, "a shared (carrier NAT) address"),
        (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local, "a site-local address"),
        (ip.is_private, "a private address"),
        (ip.is_reserved, "a reserved address"),
        (not ip.is_global, "not a public address"),
    )
    return next((why for bad, why in checks if bad), None)


def resolve(host: str, port: int, timeout: float) -> list[IPAddress]:
    """The addresses ``host`` resolves to for TCP, in the resolver's order, duplicates dropped.

    ``socket.getaddrinfo`` has no timeout of its own, so it runs in a daemon thread that is
    abandoned (left to finish on its own) when ``timeout`` passes.
    """
    outcome: list[object] = []

    def lookup() -> None:
        try:
            outcome.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as exc:
            outcome.append(exc)

    worker = threading.Thread(target=lookup, name="tooldeck-http-resolve", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        raise ToolFailed(
            f"resolving the host {host!r} took longer than {timeout:g} s; try again later",
            kind="timeout",
        )
    answer = outcome[0]
    if isinstance(answer, BaseException):
        raise ToolFailed(
            f"the host {host!r} could not be resolved ({answer}); check the spelling of the URL",
            kind="not_found",
        )
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, sockaddr in answer:  # type: ignore[attr-defined]
        try:
            address = ipaddress.ip_address(sockaddr[0])
        except ValueError:
            continue
        if isinstance(sockaddr, tuple) and len(sockaddr) == 4 and sockaddr[3]:
            address = ipaddress.IPv6Address(f"{address}%{sockaddr[3]}")
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise ToolFailed(f"the host {host!r} has no IP address", kind="not_found")
    return addresses


def checked_addresses(
    host: str, port: int, *, allow_private: bool, timeout: float
) -> list[IPAddress]:
    """The addresses a request to ``host`` may connect to: all of them, or a refusal.

    An IP literal is its own single address; a name is resolved. With ``allow_private`` false,
    ONE forbidden address among the answers refuses the host (a name that answers both a public
    and a private address is how rebinding attacks start).
    """
    literal = ip_literal(host)
    addresses = [literal] if literal is not None else resolve(host, port, timeout)
    if allow_private:
        return addresses
    for address in addresses:
        reason = forbidden_reason(address)
        if reason is not None:
            shown = host if literal is not None else f"{host} (it resolves to {address})"
            raise ToolFailed(
                f"refused: {shown} is {reason}; requests to private and local addresses need "
                "tooldeck.http.allow_private: true in the application config",
                kind="not_permitted",
            )
    return addresses
