"""``tooldeck serve --transport http`` flags for the per-client limits (:class:`HttpOptions`).

Each flag is parsed by an argparse ``type``, so a bad value is a usage error
(exit 2) that names the flag. :func:`limit_options` returns only the flags
given, so the defaults stay :class:`~tooldeck.mcp.HttpOptions`' own.
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Any

__all__ = ["add_limit_arguments", "limit_options", "parse_rate", "parse_size"]

_FIELDS = (
    "max_body",
    "session_idle_timeout",
    "max_sessions",
    "max_sessions_per_client",
    "rate_limit",
    "max_concurrent",
    "max_connections_per_client",
    "header_timeout",
    "body_timeout",
    "drain_timeout",
)

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "kib": 1024,
    "m": 1000**2,
    "mb": 1000**2,
    "mib": 1024**2,
    "g": 1000**3,
    "gb": 1000**3,
    "gib": 1024**3,
}


def parse_size(text: str) -> int:
    """``1048576``, ``512KiB``, ``1MiB``, ``2MB``: a positive number of bytes."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = _UNITS.get(match.group(2).lower()) if match else None
    if match is None or unit is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (such as 1048576, 512KiB, 1MiB)")
    size = int(float(match.group(1)) * unit)
    if size <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a size must be more than 0 bytes")
    return size


def parse_rate(text: str) -> float | None:
    """``20/s``, ``600/m``, ``20`` (per second), or ``none`` (no limit): requests a second."""
    if text.strip().lower() in ("none", "off"):
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:/\s*(s|sec|second|m|min|minute))?\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate (such as 20/s, 600/m or none)")
    per = 60.0 if (match.group(2) or "s").startswith("m") else 1.0
    rate = float(match.group(1)) / per
    if not rate > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a rate must be more than 0 (or none)")
    return rate


def parse_seconds(text: str) -> float:
    try:
        value = float(text.strip().removesuffix("s"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r}: seconds must be more than 0")
    return value


def parse_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return value


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The limit flags, in a group of their own in ``--help``."""
    group = parser.add_argument_group("HTTP limits (per client: verified subject, else address)")
    add = group.add_argument
    add(
        "--max-body",
        type=parse_size,
        metavar="BYTES",
        help="largest request body; more gets 413 (default: 1MiB; 512KiB, 2MiB forms accepted)",
    )
    add(
        "--session-idle-timeout",
        type=parse_seconds,
        metavar="SECONDS",
        help="end a session unused this long (default: 600)",
    )
    add(
        "--max-sessions", type=parse_count, metavar="N", help="open sessions in all (default: 1000)"
    )
    add(
        "--max-sessions-per-client",
        type=parse_count,
        metavar="N",
        help="open sessions per client; its least recently used one ends beyond (default: 32)",
    )
    add(
        "--rate-limit",
        type=parse_rate,
        metavar="RATE",
        help="requests per client, as 20/s or 600/m, burst twice that; none: no limit "
        "(default: 20/s)",
    )
    add(
        "--max-concurrent",
        type=parse_count,
        metavar="N",
        help="requests (and tool calls) in flight per client; more gets 429 (default: 8)",
    )
    add(
        "--max-connections-per-client",
        type=parse_count,
        metavar="N",
        help="open TCP connections per client address; more are closed at once (default: 128)",
    )
    add(
        "--header-timeout",
        type=parse_seconds,
        metavar="SECONDS",
        help="close a connection whose request headers take longer (default: 10)",
    )
    add(
        "--body-timeout",
        type=parse_seconds,
        metavar="SECONDS",
        help="answer 408 to a request whose body takes longer (default: 30)",
    )
    add(
        "--drain-timeout",
        type=parse_seconds,
        metavar="SECONDS",
        help="on SIGTERM, how long calls in flight may finish before exit (default: 30)",
    )
    for name in _FIELDS:  # "not given" must be told apart from any value, None included
        parser.set_defaults(**{name: _NOT_GIVEN})


class _NotGiven:
    def __repr__(self) -> str:
        return "<not given>"


_NOT_GIVEN: Any = _NotGiven()


def limit_options(args: argparse.Namespace) -> dict[str, Any]:
    """``HttpOptions`` field -> value for each limit flag given on the command line."""
    return {
        name: getattr(args, name)
        for name in _FIELDS
        if getattr(args, name, _NOT_GIVEN) is not _NOT_GIVEN
    }
