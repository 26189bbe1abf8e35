"""The string formats tooldeck asserts, checked on RE2.

jsonschema only annotates ``format`` by default; tooldeck asserts the formats
below, and the same :data:`FORMAT_CHECKER` serves the checks compiled from
descriptors (:mod:`tooldeck._paramcheck`), those compiled from raw schemas
(:mod:`tooldeck._validation.fastcheck`), the bounded jsonschema validator
(:mod:`tooldeck._validation.validator`) and the manifest lint, so a value means the
same everywhere. A module of its own because all of them need it and it needs
none of them.
"""

from __future__ import annotations

import ipaddress
import uuid
from collections.abc import Callable
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

from .._regex import compile_pattern

if TYPE_CHECKING:
    import jsonschema

__all__ = ["FORMATS", "FORMAT_CHECKER", "conforms"]

Raises = type[Exception] | tuple[type[Exception], ...]
FORMATS: dict[str, tuple[Callable[[object], bool], Raises]] = {}
"""Formats tooldeck asserts: name -> (check, exceptions meaning "does not conform").

The same shape as ``jsonschema.FormatChecker.checkers``; checking a value needs no
jsonschema (:func:`conforms`), which is imported only for :data:`FORMAT_CHECKER`.
"""


def _checks(name: str, raises: Raises = ()) -> Callable[[Callable[[object], bool]], Any]:
    def register(check: Callable[[object], bool]) -> Callable[[object], bool]:
        FORMATS[name] = (check, raises)
        return check

    return register


def conforms(value: object, fmt: str) -> bool:
    """``FORMAT_CHECKER.conforms(value, fmt)``, without importing jsonschema."""
    entry = FORMATS.get(fmt)
    if entry is None:
        return True
    check, raises = entry
    try:
        return bool(check(value))
    except raises:
        return False


def __getattr__(name: str) -> Any:
    """``FORMAT_CHECKER``: jsonschema's checker for :data:`FORMATS`, built on first use."""
    if name != "FORMAT_CHECKER":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for fmt, (check, raises) in FORMATS.items():
        checker.checks(fmt, raises)(check)
    globals()["FORMAT_CHECKER"] = checker
    return checker


if TYPE_CHECKING:
    FORMAT_CHECKER: jsonschema.FormatChecker

# RE2 like every pattern that meets model input: with Python's re, the email
# shape below backtracks quadratically ("a@" + "." * 50_000 + " " takes minutes).
_DATE = compile_pattern(r"\d{4}-\d{2}-\d{2}")
_DATETIME = compile_pattern(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})",
)
_TIME = compile_pattern(r"\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?")
_EMAIL = compile_pattern(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_URI = compile_pattern(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")
_UUID = compile_pattern(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


@_checks("date", raises=ValueError)
def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_DATE.fullmatch(value)) and bool(date.fromisoformat(value))


@_checks("date-time", raises=ValueError)
def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_DATETIME.fullmatch(value)) and bool(datetime.fromisoformat(value.upper()))


@_checks("time", raises=ValueError)
def _is_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_TIME.fullmatch(value)) and bool(time.fromisoformat(value.rstrip("Zz")))


@_checks("uuid", raises=ValueError)
def _is_uuid(value: object) -> bool:
    return not isinstance(value, str) or (bool(_UUID.fullmatch(value)) and bool(uuid.UUID(value)))


@_checks("email")
def _is_email(value: object) -> bool:
    return not isinstance(value, str) or bool(_EMAIL.fullmatch(value))


@_checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_URI.fullmatch(value))


@_checks("ipv4", raises=ValueError)
def _is_ipv4(value: object) -> bool:
    return not isinstance(value, str) or bool(ipaddress.IPv4Address(value))


@_checks("ipv6", raises=ValueError)
def _is_ipv6(value: object) -> bool:
    return not isinstance(value, str) or ("%" not in value and bool(ipaddress.IPv6Address(value)))
