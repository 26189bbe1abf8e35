"""The operator's ``tooldeck.http`` settings and the headers one request sends.

Read defensively: the application config is free-form YAML, so every level may be missing (the
pack is then not enabled, or the key takes its default) and an explicit key of the wrong type is a
:class:`~tooldeck.ToolFailed` naming the key, never a traceback. Configured header values may hold
``${env:NAME}``, expanded here at call time; the values that came from the environment are
collected as secrets, which :class:`Masker` removes from everything the model is shown.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from tooldeck import ToolFailed

from ._netguard import HostPattern, first_match, parse_patterns

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024
DEFAULT_MAX_REDIRECTS = 5
MAX_MODEL_HEADERS = 50
MAX_HEADER_VALUE_CHARS = 8192

_ENV = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""An HTTP header name (RFC 9110 token)."""
_BAD_VALUE = re.compile(r"[^\t\x20-\x7e]")
"""What a header value must not hold: control characters (CR, LF and NUL among them; tab is
allowed) and non-ASCII (httpx2 sends header values as ASCII; use percent-encoding)."""
RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "proxy-connection",
        "upgrade",
        "te",
        "trailer",
        "accept-encoding",
    }
)
"""Headers the model may not send: they decide where and how the bytes travel, and the
decompression cap relies on the tool choosing the encodings it accepts."""


def _section(config: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``tooldeck.http`` as a mapping, None when absent; a wrong type fails naming the key."""
    tooldeck = config.get("tooldeck") if isinstance(config, Mapping) else None
    if tooldeck is None:
        return None
    if not isinstance(tooldeck, Mapping):
        raise _bad("tooldeck", "a mapping of tool-pack settings")
    http = tooldeck.get("http")
    if http is None or http is False:
        return None
    if http is True:
        return {}
    if not isinstance(http, Mapping):
        raise _bad("tooldeck.http", "a mapping (allow_hosts, allow_private, timeout, ...)")
    return http


def _bad(key: str, expected: str) -> ToolFailed:
    return ToolFailed(
        f"the config key {key} must be {expected}; ask the operator to fix the application config",
        kind="invalid_config",
    )


def _number(http: Mapping[str, Any], key: str, default: float, *, whole: bool) -> float:
    value = http.get(key, default)
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
        expected = "a whole number above 0" if whole else "a number of seconds above 0"
        raise _bad(f"tooldeck.http.{key}", expected)
    return value


@dataclass(frozen=True)
class Settings:
    """What ``tooldeck.http`` allows, with defaults filled in."""

    allow_hosts: tuple[HostPattern, ...]
    allow_private: bool = False
    timeout: float = DEFAULT_TIMEOUT
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_redirects: int = DEFAULT_MAX_REDIRECTS
    headers: tuple[tuple[HostPattern, Mapping[str, str]], ...] = ()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """Read the settings; refuse (``not_enabled``) when no host is allowed."""
        http = _section(config)
        hosts = parse_patterns(
            http.get("allow_hosts") if http else None, "tooldeck.http.allow_hosts"
        )
        if not hosts:
            raise ToolFailed(
                "HTTP requests are not enabled: the application config lists no host under "
                "tooldeck.http.allow_hosts; the operator must add the hosts this tool may reach",
                kind="not_enabled",
            )
        assert http is not None
        allow_private = http.get("allow_private", False)
        if not isinstance(allow_private, bool):
            raise _bad("tooldeck.http.allow_private", "true or false")
        max_redirects = http.get("max_redirects", DEFAULT_MAX_REDIRECTS)
        if (
            isinstance(max_redirects, bool)
            or not isinstance(max_redirects, int)
            or max_redirects < 0
        ):
            raise _bad("tooldeck.http.max_redirects", "a whole number, 0 or more")
        return cls(
            allow_hosts=hosts,
            allow_private=allow_private,
            timeout=float(_number(http, "timeout", DEFAULT_TIMEOUT, whole=False)),
            max_response_bytes=int(
                _number(http, "max_response_bytes", DEFAULT_MAX_RESPONSE_BYTES, whole=True)
            ),
            max_redirects=max_redirects,
            headers=_header_config(http.get("headers")),
        )

    def configured_headers(self, host: str, masker: Masker) -> dict[str, str]:
        """The headers the operator set for a canonical host, ``${env:}`` expanded.

        Wildcard entries apply first and exact ones after, so an exact entry wins.
        """
        chosen: dict[str, str] = {}
        ordered = sorted(self.headers, key=lambda item: not item[0].wildcard)
        for pattern, values in ordered:
            if first_match((pattern,), host) is None:
                continue
            for name, value in values.items():
                for old in [k for k in chosen if k.lower() == name.lower()]:
                    del chosen[old]
                chosen[name] = _expand(value, name, masker)
        return chosen

    def configured_names(self, host: str) -> set[str]:
        """Lower-case names of the headers configured for a host (the model may not set them)."""
        return {
            name.lower()
            for pattern, values in self.headers
            if pattern.matches(host)
            for name in values
        }


def _header_config(value: object) -> tuple[tuple[HostPattern, Mapping[str, str]], ...]:
    key = "tooldeck.http.headers"
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise _bad(key, "a mapping of host pattern -> {Header: value}")
    result = []
    for host, headers in value.items():
        if not isinstance(host, str) or not isinstance(headers, Mapping):
            raise _bad(key, "a mapping of host pattern -> {Header: value}")
        for name, text in headers.items():
            if not isinstance(name, str) or not _TOKEN.match(name) or not isinstance(text, str):
                raise _bad(f"{key}[{host!r}]", "a mapping of header names to text values")
            if _BAD_VALUE.search(text):
                raise _bad(f"{key}[{host!r}][{name!r}]", "ASCII text without control characters")
        result.append((HostPattern.parse(host, key), dict(headers)))
    return tuple(result)


def _expand(value: str, header: str, masker: Masker) -> str:
    """Replace ``${env:NAME}`` by the variable's value (now), remembering it as a secret."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        found = os.environ.get(name)
        if not found:
            raise ToolFailed(
                f"the header {header} configured under tooldeck.http.headers needs the "
                f"environment variable {name}, which is not set (or empty); the request was "
                "not sent. Ask the operator to set it",
                kind="not_enabled",
            )
        if _BAD_VALUE.search(found):
            raise ToolFailed(
                f"the environment variable {name} (for the header {header}) holds control "
                "or non-ASCII characters; the request was not sent",
                kind="invalid_config",
            )
        masker.add(found)
        return found

    return _ENV.sub(one, value)


def model_headers(headers: object, reserved: set[str]) -> dict[str, str]:
    """The model's own headers, validated; ``reserved`` are lower-case names it may not set."""
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise ToolFailed(
            "headers must be an object of header name -> text", kind="invalid_arguments"
        )
    if len(headers) > MAX_MODEL_HEADERS:
        raise ToolFailed(f"send at most {MAX_MODEL_HEADERS} headers", kind="invalid_arguments")
    result: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(name, str) or not _TOKEN.match(name):
            raise ToolFailed(
                f"{name!r} is not a valid header name (letters, digits and -, no spaces or "
                "line breaks)",
                kind="invalid_arguments",
            )
        if (
            not isinstance(value, str)
            or _BAD_VALUE.search(value)
            or len(value) > MAX_HEADER_VALUE_CHARS
        ):
            raise ToolFailed(
                f"the value of the header {name} must be ASCII text without line breaks or "
                f"control characters (percent-encode anything else), at most "
                f"{MAX_HEADER_VALUE_CHARS} characters",
                kind="invalid_arguments",
            )
        if "${env:" in value:
            raise ToolFailed(
                f"the header {name} contains '${{env:'; header values are sent as written, "
                "and the environment is not readable from a tool call",
                kind="not_permitted",
            )
        lowered = name.lower()
        if lowered in RESERVED_HEADERS:
            raise ToolFailed(
                f"the header {name} is set by the tool itself; leave it out",
                kind="invalid_arguments",
            )
        if lowered in reserved:
            raise ToolFailed(
                f"the header {name} is configured by the operator for this host "
                "(tooldeck.http.headers) and cannot be overridden; leave it out",
                kind="not_permitted",
            )
        if lowered in {n.lower() for n in result}:
            raise ToolFailed(f"the header {name} is given twice", kind="invalid_arguments")
        result[name] = value
    return result


@dataclass
class Masker:
    """Secrets (expanded ``${env:}`` values) replaced by ``***`` in what the model sees."""

    secrets: set[str] = field(default_factory=set)

    def add(self, secret: str) -> None:
        self.secrets.add(secret)
        self.secrets.add(quote(secret, safe=""))

    def text(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            if secret:
                text = text.replace(secret, "***")
        return text

    def value(self, value: Any) -> Any:
        """A parsed JSON value with every string (keys too) masked."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.value(v) for k, v in value.items()}
        return value
