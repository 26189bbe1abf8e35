"""The string formats tooldeck asserts, checked on RE2.

jsonschema only annotates ``format`` by default; tooldeck asserts the formats
below, and the same :data:`FORMAT_CHECKER` serves the checks compiled from
descriptors (:mod:`tooldeck._validation`), those compiled from raw schemas
(:mod:`tooldeck._fastcheck`), the bounded jsonschema validator
(:mod:`tooldeck._schema_validator`) and the manifest lint, so a value means the
same everywhere. A module of its own because all of them need it and it needs
none of them.
"""

from __future__ import annotations

import ipaddress
import uuid
from datetime import date, datetime, time

import jsonschema

from tooldeck._regex import compile_pattern

__all__ = ["FORMAT_CHECKER"]

FORMAT_CHECKER = jsonschema.FormatChecker(formats=())
"""Formats tooldeck asserts (jsonschema only annotates them by default)."""

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


@FORMAT_CHECKER.checks("date", raises=ValueError)
def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_DATE.fullmatch(value)) and bool(date.fromisoformat(value))


@FORMAT_CHECKER.checks("date-time", raises=ValueError)
def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_DATETIME.fullmatch(value)) and bool(datetime.fromisoformat(value.upper()))


@FORMAT_CHECKER.checks("time", raises=ValueError)
def _is_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_TIME.fullmatch(value)) and bool(time.fromisoformat(value.rstrip("Zz")))


@FORMAT_CHECKER.checks("uuid", raises=ValueError)
def _is_uuid(value: object) -> bool:
    return not isinstance(value, str) or (bool(_UUID.fullmatch(value)) and bool(uuid.UUID(value)))


@FORMAT_CHECKER.checks("email")
def _is_email(value: object) -> bool:
    return not isinstance(value, str) or bool(_EMAIL.fullmatch(value))


@FORMAT_CHECKER.checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_URI.fullmatch(value))


@FORMAT_CHECKER.checks("ipv4", raises=ValueError)
def _is_ipv4(value: object) -> bool:
    return not isinstance(value, str) or bool(ipaddress.IPv4Address(value))


@FORMAT_CHECKER.checks("ipv6", raises=ValueError)
def _is_ipv6(value: object) -> bool:
    return not isinstance(value, str) or ("%" not in value and bool(ipaddress.IPv6Address(value)))
