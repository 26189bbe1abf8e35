"""``module:attribute`` handler references -> callables, behind an allow-list.

A manifest is data that a teammate (or a compromised PR) can edit; it must
never be able to point a tool at ``os:system`` or ``subprocess:run``. The
module part must equal or sit under an allowed prefix (default ``handlers``,
plus what the application passes) and is checked *before* anything is
imported, so a refused reference has no side effects.

=====  ==========================================================
TD310  module not in the allow-list of handler prefixes
TD311  module cannot be imported (the import error)
TD312  module has no such attribute (close matches suggested)
TD313  the attribute is not callable
TD314  duration is not a number or ``<n>ms|s|m|h``
=====  ==========================================================
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["DEFAULT_ALLOWED", "ResolveError", "is_allowed", "parse_duration", "resolve_handler"]

DEFAULT_ALLOWED: tuple[str, ...] = ("handlers",)

_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h)?\s*$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


class ResolveError(ValueError):
    """A reference that cannot become a callable; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def is_allowed(module: str, allowed: Iterable[str]) -> bool:
    """``handlers.files`` is under ``handlers``; ``handlers_evil`` is not."""
    return any(module == prefix or module.startswith(prefix + ".") for prefix in allowed)


def resolve_handler(reference: str, allowed: Iterable[str]) -> Callable[..., Any]:
    """Import and return the callable ``reference`` names, or raise ResolveError."""
    allowed = tuple(allowed)
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise ResolveError(
            "TD311", f"handler {reference!r} must look like 'package.module:function'"
        )
    if not is_allowed(module_name, allowed):
        raise ResolveError(
            "TD310",
            f"handler module {module_name!r} is not allowed; allowed prefixes: "
            f"{', '.join(allowed)} (extend with --allow-handlers or allowed_handlers=)",
        )
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise ResolveError(
            "TD311", f"cannot import handler module {module_name!r}: {type(exc).__name__}: {exc}"
        ) from exc
    walked = module_name
    for part in attribute.split("."):
        if not hasattr(target, part):
            names = [n for n in dir(target) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ResolveError("TD312", f"{walked!r} has no attribute {part!r}{hint}")
        target = getattr(target, part)
        walked = f"{walked}:{part}" if ":" not in walked else f"{walked}.{part}"
    if not callable(target):
        raise ResolveError(
            "TD313",
            f"handler {reference!r} is not callable (it is a {type(target).__name__} value)",
        )
    return target  # type: ignore[no-any-return]


def parse_duration(value: Any, *, allow_zero: bool = False) -> float:
    """``2`` / ``"500ms"`` / ``"2s"`` / ``"1m"`` / ``"1h"`` -> seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < 0 or (value == 0 and not allow_zero):
            raise ResolveError("TD314", f"duration {value!r} must be positive")
        return float(value)
    if isinstance(value, str):
        match = _DURATION.match(value)
        if match:
            seconds = float(match.group(1)) * _UNITS[match.group(2)]
            if seconds > 0 or allow_zero:
                return seconds
    raise ResolveError(
        "TD314",
        f"duration {value!r} is not a positive number of seconds or like '500ms', '2s', '1m'",
    )
