"""HTTP tools: fetch a URL on a host the operator allowed, with bounded answers.

Off until the operator lists hosts under ``tooldeck.http.allow_hosts`` in the application config;
the handlers check that themselves (a manifest may reference them without ``enabled_when``). The
model's URL, headers and body are untrusted, and so is everything the server answers. What holds:

* **Only allowed hosts, only public addresses.** Each hop's host must match ``allow_hosts``, and
  the name is resolved here (:func:`socket.getaddrinfo`); unless ``allow_private`` is true, one
  private/loopback/link-local/... address among the answers refuses the request
  (:mod:`tooldeck.handlers._netguard`).
* **The connection goes to the checked address.** The request URL carries that IP as its host,
  the original ``Host`` header is sent, and for https the TLS server name is the original host
  (httpcore's ``sni_hostname`` request extension, which is also the name the certificate is
  verified against: ``ssl`` checks the certificate against ``server_hostname``). A DNS answer
  that changes after the check (rebinding) is never asked for. One client per hop: no connection
  made for one host name is reused for another, and no cookie outlives a hop.
* **Redirects are followed by hand**, each one checked like the first URL; credentials (the
  operator's configured headers, the model's Authorization/Cookie) go only to the origin the model
  asked for, and are dropped for good once a redirect leaves it.
* **Answers are bounded**: the body is streamed and cut at ``max_response_bytes`` *decoded* bytes,
  gzip/deflate are inflated here in small steps (a compressed bomb never expands in memory), and
  the whole call has one deadline (``timeout``), which also ends a server that sends its head
  or body a line at a time (:mod:`tooldeck.handlers._httpdeadline` shuts the socket down).
* **No environment**: ``trust_env=False`` (no proxy variables, no netrc), TLS verification on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooldeck import ToolContext, ToolFailed

from ._settings import config_of

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def http_get(
    url: str, headers: dict[str, str] | None = None, *, context: ToolContext
) -> dict[str, Any]:
    """GET a URL on an allowed host; the answer is the status, a few headers and the body."""
    return _fetch()("GET", url, headers, None, config_of(context))


def http_request(
    method: str,
    url: str,
    headers: dict[str, str] | None = None,
    body: str | None = None,
    *,
    context: ToolContext,
) -> dict[str, Any]:
    """Send an HTTP request (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS) to an allowed host."""
    verb = method.strip().upper() if isinstance(method, str) else ""
    if verb not in METHODS:
        raise ToolFailed(
            f"the method {method!r} is not supported; use one of {', '.join(METHODS)}",
            kind="invalid_arguments",
        )
    if body is not None and not isinstance(body, str):
        raise ToolFailed("body must be text", kind="invalid_arguments")
    return _fetch()(verb, url, headers, body, config_of(context))


def _fetch() -> Callable[..., dict[str, Any]]:
    """The request machinery (:mod:`._httpfetch`), imported with httpx2 on the first call."""
    from ._httpfetch import fetch

    return fetch
