"""Untrusted JSON arguments: parsed, or refused with a reason a model can act on.

What a model sends is parsed here with the same limits everywhere: no NaN or
infinities, no integer literal past :data:`MAX_INT_DIGITS` digits, no lone
UTF-16 surrogates, and every failure a :class:`JsonProblem` whose message
says what to send instead. :func:`value_problem` applies the same rules to a
mapping passed from Python. A module of its own because this is the first
gate of the call path (:mod:`tooldeck._calling.steps`), separate from checking the
parsed values against a schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from .._regex import clip
from .explain import json_preview

__all__ = [
    "MAX_INT_DIGITS",
    "JsonProblem",
    "decode_short_json",
    "lone_surrogate",
    "parse_arguments",
    "parse_json",
    "value_problem",
]

# The text a model sends is parsed by json's C scanner with three hooks that
# cost nothing on ordinary input: NaN/Infinity (not JSON) are refused when
# seen, a float literal that overflows to infinity is refused, and integers
# are bounded only when the text is long enough to hold one over the limit.

MAX_INT_DIGITS = 4_300
"""Longest integer literal accepted (Python's own default limit for int(str))."""

_INT_LIMIT = 10**MAX_INT_DIGITS


class JsonProblem(ValueError):
    """Text that is not acceptable JSON arguments; the message says why, for a model."""


def _no_constant(name: str) -> NoReturn:
    raise JsonProblem(f"arguments contain {name}, which is not valid JSON; send a number (or null)")


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf - inf is nan
        raise JsonProblem(
            f"the number {clip(text, 40)} in the arguments is too large (it would be "
            "infinite); send a smaller number, or a string"
        )
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonProblem(
            f"an integer in the arguments has {len(text.lstrip('-')):,} digits, more than "
            f"{MAX_INT_DIGITS:,}; send it as a string"
        )
    return int(text)


_FAST = json.JSONDecoder(parse_float=_finite_float, parse_constant=_no_constant)
_STRICT = json.JSONDecoder(
    parse_float=_finite_float, parse_constant=_no_constant, parse_int=_bounded_int
)

decode_short_json: Callable[[str], Any] = _FAST.decode
"""The cheapest safe parse, for texts of at most :data:`MAX_INT_DIGITS` characters
(no integer in them can be longer). Raises ValueError or RecursionError and does
not look for lone surrogates (see :func:`lone_surrogate`): callers that need
words for a model use :func:`parse_json`."""


def parse_json(data: str | bytes | bytearray) -> Any:
    """JSON arguments as Python values; :class:`JsonProblem` with a model-readable reason."""
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonProblem(
                f"arguments are not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start}); send UTF-8 JSON"
            ) from None
        text = text.removeprefix("\ufeff")
    else:
        text = data
    decode = _FAST.decode if len(text) <= MAX_INT_DIGITS else _STRICT.decode
    try:
        value = decode(text)
    except JsonProblem:
        raise
    except json.JSONDecodeError as exc:
        raise JsonProblem(
            f"arguments are not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno} (char {exc.pos}); send a JSON object"
        ) from None
    except RecursionError:
        raise JsonProblem("arguments are nested too deeply; send a flatter JSON object") from None
    except ValueError:  # int() under a lower sys.set_int_max_str_digits
        raise JsonProblem(
            "a number in the arguments has too many digits; send it as a string"
        ) from None
    except Exception as exc:  # MemoryError and anything else: a result, never a raise
        raise JsonProblem(f"arguments could not be parsed ({type(exc).__name__})") from None
    if lone_surrogate(text, value):
        raise JsonProblem(_SURROGATE)
    return value


_SURROGATE = (
    "arguments contain a lone UTF-16 surrogate (such as \\ud800 without its pair), "
    "which is not text; send valid Unicode"
)


def lone_surrogate(text: str, value: Any) -> bool:
    """Whether ``value``, parsed from ``text``, holds a string with a lone surrogate.

    Such a string parses, then fails when anything encodes it (a file name, a
    log line, the model's reply). It can come in raw (only in non-ASCII text)
    or as a ``\\ud800`` escape (only where the text has ``\\u``), so ordinary
    ASCII input costs one substring search.
    """
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return True
    return "\\u" in text and _has_surrogate(value)


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return not _encodable(value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(item) for item in value)
    return False


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def value_problem(value: Any) -> str | None:
    """Why Python arguments (a mapping passed directly) are not JSON a model could send.

    The same rules as :func:`parse_json`: no NaN or infinities, no integers
    past :data:`MAX_INT_DIGITS` digits, no lone surrogates, string keys only;
    a cycle or extreme depth is "nested too deeply". Other Python types are
    left to validation and conversion.
    """
    try:
        return _problem(value)
    except RecursionError:
        return "arguments are nested too deeply; send a flatter JSON object"


def _problem(value: Any) -> str | None:
    kind = type(value)
    if kind is str:
        return None if value.isascii() or _encodable(value) else _SURROGATE
    if kind is int or kind is bool or value is None:
        return None if kind is not int or -_INT_LIMIT < value < _INT_LIMIT else _HUGE_INT
    if kind is dict:
        return _mapping_problem(value)
    if kind is list:
        return _items_problem(value)
    return _other_problem(value)


def _items_problem(items: Sequence[Any]) -> str | None:
    for item in items:
        if type(item) is not int or not -_INT_LIMIT < item < _INT_LIMIT:
            problem = _problem(item)
            if problem:
                return problem
    return None


def _mapping_problem(mapping: Mapping[Any, Any]) -> str | None:
    for key, item in mapping.items():
        if type(key) is not str and not isinstance(key, str):
            return f"argument names must be strings, got {type(key).__name__} {json_preview(key)}"
        problem = _problem(key) or _problem(item)
        if problem:
            return problem
    return None


def _other_problem(value: Any) -> str | None:
    """Subclasses and other Python types: numpy floats are floats, tuples are arrays."""
    if isinstance(value, float):
        if value - value == 0.0:
            return None
        return f"arguments contain {value}, which is not valid JSON; send a finite number"
    if isinstance(value, str):
        return None if _encodable(value) else _SURROGATE
    if isinstance(value, int):
        return None if -_INT_LIMIT < value < _INT_LIMIT else _HUGE_INT
    if isinstance(value, Mapping):
        return _mapping_problem(value)
    if isinstance(value, list | tuple):
        return _items_problem(value)
    return None


_HUGE_INT = f"an integer in the arguments has more than {MAX_INT_DIGITS:,} digits"


def parse_arguments(arguments: Any) -> dict[str, Any] | str:
    """Arguments as a fresh dict, or a model-readable reason they are not an object.

    Text is parsed by :func:`parse_json` (no NaN, infinities,
    oversized integers, lone surrogates or invalid UTF-8); a mapping passed
    from Python is held to the same rules, so a handler never sees a value
    JSON could not carry.
    """
    if type(arguments) is dict:  # the common case from Python (and MCP): no ABC check
        args = dict(arguments)
        problem = value_problem(args)
        return args if problem is None else problem
    if arguments is None:
        return {}
    if isinstance(arguments, str | bytes | bytearray):
        if not arguments.strip():
            return {}
        try:
            parsed = parse_json(arguments)
        except JsonProblem as exc:
            return str(exc)
        if not isinstance(parsed, dict):
            return f"arguments must be a JSON object, got {type(parsed).__name__}"
        return parsed
    if isinstance(arguments, Mapping):
        try:
            args = dict(arguments)
        except Exception as exc:  # a Mapping whose iteration fails
            return f"arguments could not be read ({type(exc).__name__}); send a JSON object"
        problem = value_problem(args)
        return args if problem is None else problem
    return f"arguments must be a JSON object, got {type(arguments).__name__}"
