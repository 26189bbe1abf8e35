"""The HTTP tools' request machinery: check, connect, follow redirects (see
:mod:`tooldeck.handlers.http` for what it promises).

A module of its own so that importing the tools (which every load of the bundled manifests
does, the HTTP pack switched on or not) does not import httpx2: the tools import this module on
their first call.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx2

from tooldeck import ToolFailed

from ._httpbody import answer
from ._httpconfig import Masker, Settings, model_headers
from ._httpdeadline import Cutoff
from ._netguard import canonical_host, checked_addresses, first_match, ip_literal

REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_URL_CHARS = 8192
_Origin = tuple[str, str, int]
"""Scheme, canonical host, port."""
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})


# --- the request, hop by hop ---------------------------------------------------------------


@dataclass
class _Hop:
    """What the next request sends."""

    method: str
    url: httpx2.URL
    host: str
    """Canonical host (what the allow-list and the resolver see)."""
    body: bytes | None
    headers: dict[str, str]
    credentials: bool
    """Whether the configured headers and the model's Authorization/Cookie still go along."""


def fetch(
    method: str,
    url: str,
    headers: dict[str, str] | None,
    body: str | None,
    config: Mapping[str, Any],
) -> dict[str, Any]:
    settings = Settings.from_config(config)
    masker = Masker()
    deadline = time.monotonic() + settings.timeout
    target, host = _check_url(url, settings)
    sent = model_headers(headers, settings.configured_names(host))
    hop = _Hop(method, target, host, body.encode("utf-8") if body is not None else None, sent, True)
    origin = _origin(target)
    try:
        for _ in range(settings.max_redirects + 1):
            with _exchange(hop, settings, masker, deadline) as response:
                location = response.headers.get("location")
                if response.status_code not in REDIRECTS or location is None:
                    return answer(
                        response,
                        method=hop.method,
                        url=str(hop.url),
                        cap=settings.max_response_bytes,
                        masker=masker,
                        check_time=lambda: _remaining(deadline, settings),
                    )
            hop = _redirected(hop, response.status_code, location, origin, settings)
        raise ToolFailed(
            f"more than {settings.max_redirects} redirects (tooldeck.http.max_redirects); the "
            "last one pointed at " + masker.text(str(hop.url)),
            kind="too_many_redirects",
        )
    except ToolFailed as exc:
        raise ToolFailed(masker.text(exc.message), kind=exc.kind) from None
    except httpx2.TimeoutException:
        raise _timeout(settings) from None
    except httpx2.InvalidURL as exc:
        raise ToolFailed(
            masker.text(f"the request to {hop.url.host} could not be made: {exc}"),
            kind="invalid_arguments",
        ) from None
    except httpx2.HTTPError as exc:
        if time.monotonic() >= deadline:  # the Cutoff shut the connection at the deadline
            raise _timeout(settings) from None
        raise ToolFailed(
            masker.text(f"the request to {hop.url.host} failed: {type(exc).__name__}: {exc}"),
            kind="connection_failed",
        ) from None


def _check_url(url: object, settings: Settings) -> tuple[httpx2.URL, str]:
    """Parse a URL and check what needs no network: scheme, credentials, the allow-list."""
    if not isinstance(url, (str, httpx2.URL)) or len(str(url)) > MAX_URL_CHARS:
        raise ToolFailed(
            f"url must be text of at most {MAX_URL_CHARS} characters", kind="invalid_arguments"
        )
    try:
        parsed = httpx2.URL(url)
    except httpx2.InvalidURL as exc:
        raise ToolFailed(
            f"{str(url)[:200]!r} is not a valid URL: {exc}", kind="invalid_arguments"
        ) from None
    if parsed.scheme not in ("http", "https"):
        raise ToolFailed(
            "only http:// and https:// URLs are supported, not "
            + (parsed.scheme or "a relative URL"),
            kind="invalid_arguments",
        )
    if not parsed.host:
        raise ToolFailed(f"the URL {str(url)[:200]!r} names no host", kind="invalid_arguments")
    if parsed.userinfo:
        raise ToolFailed(
            "URLs with user:password@ are refused; credentials for a host are set by the operator "
            "(tooldeck.http.headers)",
            kind="invalid_arguments",
        )
    host = canonical_host(parsed.raw_host.decode("ascii"))
    if first_match(settings.allow_hosts, host) is None:
        allowed = ", ".join(p.text for p in settings.allow_hosts[:10])
        raise ToolFailed(
            f"the host {host} is not in tooldeck.http.allow_hosts (allowed: {allowed}); only "
            "the operator can add hosts",
            kind="not_permitted",
        )
    return parsed.copy_with(fragment=None), host


def _origin(url: httpx2.URL) -> _Origin:
    return (
        url.scheme,
        canonical_host(url.raw_host.decode("ascii")),
        url.port or _default_port(url),
    )


def _default_port(url: httpx2.URL) -> int:
    return 443 if url.scheme == "https" else 80


@contextmanager
def _exchange(
    hop: _Hop, settings: Settings, masker: Masker, deadline: float
) -> Iterator[httpx2.Response]:
    """Connect to a checked address of the hop's host and send the request; the body is not read.

    A fresh client per hop: its pool holds only this connection (never reused for another host
    name, whose certificate it was not verified for) and its cookie jar only this answer's cookies.
    """
    port = hop.url.port or _default_port(hop.url)
    addresses = checked_addresses(
        hop.host, port, allow_private=settings.allow_private, timeout=_remaining(deadline, settings)
    )
    headers = dict(hop.headers)
    if hop.credentials:
        headers.update(settings.configured_headers(hop.host, masker))
    headers["Host"] = hop.url.netloc.decode("ascii")
    headers["Accept-Encoding"] = "gzip, deflate"
    extensions: dict[str, Any] = {}
    if hop.url.scheme == "https" and ip_literal(hop.host) is None:
        extensions["sni_hostname"] = hop.host
    failure: httpx2.ConnectError | None = None
    with Cutoff(_remaining(deadline, settings)) as cutoff:  # ends even a slow-loris head
        extensions["trace"] = cutoff.trace
        for address in addresses:
            client = httpx2.Client(trust_env=False, follow_redirects=False, verify=_tls_verify())
            request = client.build_request(
                hop.method,
                hop.url.copy_with(host=str(address)),
                headers=headers,
                content=hop.body,
                timeout=httpx2.Timeout(_remaining(deadline, settings)),
                extensions=extensions,
            )
            with client:
                try:
                    response = client.send(request, stream=True)
                except httpx2.ConnectError as exc:
                    failure = exc
                    continue
                try:
                    yield response
                finally:
                    response.close()
                return
    raise ToolFailed(
        f"could not connect to {hop.host} port {port} ({failure}); the server may be down or "
        "refusing connections",
        kind="connection_failed",
    )


@cache
def _tls_verify() -> ssl.SSLContext:
    """What verifies server certificates: httpx2's default context (the system trust store).

    Built once and shared by every client (building one reads the trust store, tens of ms);
    certificate and host-name checks are on. Tests replace this function to trust a test CA.
    """
    return httpx2.create_ssl_context()


def _remaining(deadline: float, settings: Settings) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _timeout(settings)
    return left


def _timeout(settings: Settings) -> ToolFailed:
    return ToolFailed(
        f"the request took longer than {settings.timeout:g} s (tooldeck.http.timeout) and was "
        "abandoned; the server may be slow or not answering",
        kind="timeout",
    )


def _redirected(hop: _Hop, status: int, location: str, origin: _Origin, settings: Settings) -> _Hop:
    """The next hop of a redirect: resolved against the current URL and checked like the first."""
    try:
        joined = hop.url.join(location)
    except httpx2.InvalidURL as exc:
        raise ToolFailed(
            f"the server redirected to an invalid URL ({exc})", kind="bad_response"
        ) from None
    try:
        target, host = _check_url(joined, settings)
    except ToolFailed as exc:
        raise ToolFailed(
            f"the server at {hop.host} redirected to {_shown(str(joined))}: {exc.message}",
            kind=exc.kind,
        ) from None
    method, body, headers = hop.method, hop.body, dict(hop.headers)
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        method, body = "GET", None
        headers = {k: v for k, v in headers.items() if not k.lower().startswith("content-")}
    credentials = hop.credentials and _same_origin(origin, _origin(target))
    if not credentials:
        headers = {k: v for k, v in headers.items() if k.lower() not in CREDENTIAL_HEADERS}
    return _Hop(method, target, host, body, headers, credentials)


def _shown(url: str, limit: int = 300) -> str:
    """A URL from the server, cut for a message (a Location header can be tens of kilobytes)."""
    return url if len(url) <= limit else f"{url[:limit]}... ({len(url):,} characters)"


def _same_origin(first: _Origin, then: _Origin) -> bool:
    """Same scheme, host and port (or an http -> https upgrade of one host, default ports)."""
    upgrade = first == ("http", then[1], 80) and then == ("https", first[1], 443)
    return first == then or upgrade
