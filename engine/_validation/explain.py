"""Violations explained in words a model can act on, capped whatever the input's size.

When a call's arguments fail their compiled check, jsonschema finds what is
wrong and this module says it: one line per violation, ``$.path: what is
wrong``, with the parameter's description for a missing argument. A model may
send a 300,000-element array of wrong items or a megabyte string, so the
explanation is bounded: the first :data:`MAX_VIOLATIONS` violations are
described, at most :data:`COUNT_LIMIT` more are counted, each line is cut, and
values are previewed (:func:`json_preview`) without ever serialising all of
them. A module of its own because the bounded validator's messages
(:mod:`tooldeck._validation.validator`) and the argument checks
(:mod:`tooldeck._validation.jsonparse`) preview values the same way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._regex import clip
from .._words import plural
from .jsontypes import TYPE_TESTS

if TYPE_CHECKING:  # only annotations: jsonschema itself comes with the validator passed in
    import jsonschema
    from jsonschema.protocols import Validator

__all__ = ["COUNT_LIMIT", "MAX_VIOLATIONS", "describe_errors", "json_preview"]

MAX_VIOLATIONS = 10
"""Violations an explanation describes one by one."""

COUNT_LIMIT = 1_000
"""Further violations counted before an explanation says "at least"."""

_MAX_LINE = 300
"""Characters per described violation."""


def describe_errors(
    validator: Validator,
    instance: Any,
    *,
    descriptions: Mapping[str, str],
    refused: Mapping[str, str] | None = None,
) -> list[str]:
    """The first violations as ``$.path: what is wrong`` (sorted by path), then how many more.

    ``refused`` (:attr:`ToolSpec.refused_arguments <tooldeck.ToolSpec.refused_arguments>`)
    gives the words for a top-level argument the schema does not take, each on a line of
    its own ("'timezone' is called 'tz' here"), in place of "unexpected argument".

    jsonschema finds violations lazily, so only the first :data:`MAX_VIOLATIONS`
    are explained and at most :data:`COUNT_LIMIT` more are counted: a
    300,000-element array of wrong items costs milliseconds and a few KB of
    text, not 300,000 messages. Never raises: whatever stops jsonschema
    (recursion, an odd Python value) becomes a line of its own.
    """
    shown: list[jsonschema.ValidationError] = []
    more = 0
    exhausted = False
    failure = None
    try:
        for error in validator.iter_errors(instance):
            if len(shown) < MAX_VIOLATIONS:
                shown.append(error)
            elif more < COUNT_LIMIT:
                more += 1
            else:
                break
        else:
            exhausted = True
    except RecursionError:
        failure = "the arguments are nested too deeply to check every value"
    except Exception as exc:
        failure = f"some values could not be checked ({type(exc).__name__})"
    shown.sort(key=lambda e: list(map(str, e.path)))
    lines = [line for error in shown for line in _describe(error, descriptions, refused or {})]
    if more:
        lines.append(_more(more, exact=exhausted))
    if failure:
        lines.append(failure)
    return lines


def _more(count: int, *, exact: bool) -> str:
    noun = "violation" if count == 1 else "violations"
    return f"and {count:,} more {noun}" if exact else f"and at least {count:,} more {noun}"


def _describe(
    error: jsonschema.ValidationError, descriptions: Mapping[str, str], refused: Mapping[str, str]
) -> list[str]:
    """One violation in lines of at most :data:`_MAX_LINE` characters; never raises.

    One line, but for arguments the schema does not take: each ``refused`` one
    has a line of its own (the words it is refused with), the rest share one.
    """
    try:
        if error.validator == "additionalProperties" and error.json_path == "$" and refused:
            lines = _unexpected(error, refused)
        else:
            lines = [_explain(error, descriptions)]
    except Exception:
        try:
            lines = [f"{error.json_path}: {error.message}"]
        except Exception:
            lines = ["a value does not match the tool's schema"]
    return [clip(" ".join(line.split()), _MAX_LINE) for line in lines]


def _unexpected(error: jsonschema.ValidationError, refused: Mapping[str, str]) -> list[str]:
    """Top-level arguments the schema does not take: the refused ones' words, then the rest."""
    inst: Any = error.instance
    schema: Any = error.schema
    if not isinstance(inst, dict) or not isinstance(schema, Mapping):
        return [_explain(error, {})]
    known = list(schema.get("properties", {}))
    extra = sorted((k for k in inst if k not in known), key=str)
    noted = [refused[k] for k in extra if k in refused][:MAX_VIOLATIONS]
    rest = [k for k in extra if k not in refused]
    if rest:
        noted.append(_unexpected_line(rest, known, ""))
    return noted


def _unexpected_line(extra: list[Any], known: list[str], where: str) -> str:
    expected = ", ".join(known) if known else "no arguments"
    named = ", ".join(map(repr, extra[:MAX_VIOLATIONS]))
    if len(extra) > MAX_VIOLATIONS:
        named += f" and {len(extra) - MAX_VIOLATIONS:,} more"
    return f"unexpected argument {named}{where}; expected: {expected}"


def _explain(error: jsonschema.ValidationError, descriptions: Mapping[str, str]) -> str:
    path = error.json_path
    kw: Any = error.validator
    inst: Any = error.instance
    val: Any = error.validator_value
    schema: Any = error.schema
    if kw == "required" and isinstance(inst, dict):
        missing = [name for name in val if name not in inst]
        name = missing[0] if missing else "?"
        hint = descriptions.get(name) if path == "$" else None
        where = "" if path == "$" else f" in {path}"
        return f"missing required argument {name!r}{where}" + (f" ({hint})" if hint else "")
    if kw == "additionalProperties" and isinstance(inst, dict):
        known = list(schema.get("properties", {}))
        extra = sorted((k for k in inst if k not in known), key=str)
        return _unexpected_line(extra, known, "" if path == "$" else f" in {path}")
    if kw == "type":
        want = " or ".join(val) if isinstance(val, list) else val
        return f"{path}: expected {want}, got {_json_type(inst)} {json_preview(inst)}"
    if kw == "enum":
        return f"{path}: {json_preview(inst)} is not one of {', '.join(map(json_preview, val))}"
    if kw == "pattern":
        return f"{path}: {json_preview(inst)} does not match the pattern {clip(val)}"
    if kw == "format":
        return f"{path}: {json_preview(inst)} is not a valid {val}"
    if kw in ("minimum", "maximum"):
        word = "less than the minimum" if kw == "minimum" else "greater than the maximum"
        return f"{path}: {json_preview(inst)} is {word} of {val}"
    if kw in ("minLength", "maxLength", "minItems", "maxItems"):
        unit = "character" if "Length" in kw else "item"
        bound = "at least" if kw.startswith("min") else "at most"
        return f"{path}: must have {bound} {plural(val, unit)}, got {len(inst)}"
    return f"{path}: {error.message}"


def _json_type(value: Any) -> str:
    for name in ("boolean", "integer", "number", "string", "array", "object", "null"):
        if TYPE_TESTS[name](value):
            return name
    return type(value).__name__


def json_preview(value: Any, limit: int = 60) -> str:
    """``value`` as JSON in at most ``limit`` characters, never serialising all of it.

    A 300,000-element array or a 1 MB string costs what its first ``limit``
    characters cost; integers too long to print are described, not printed.
    """
    parts: list[str] = []
    _preview(value, parts, limit + 1)
    text = "".join(parts)
    if not text.isascii():  # a lone surrogate would break the message downstream
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 3] + "..."


_PRINTABLE_INT = 10**60


def _preview(value: Any, out: list[str], budget: int) -> int:
    """Append JSON for ``value`` to ``out`` until ``budget`` characters; the budget left."""
    if budget <= 0:
        return budget
    if isinstance(value, str):
        text = json.dumps(value[:budget], ensure_ascii=False)
    elif value is None or isinstance(value, bool):
        text = json.dumps(value)
    elif isinstance(value, int):
        text = str(value) if -_PRINTABLE_INT < value < _PRINTABLE_INT else _big_int(value)
    elif isinstance(value, float):
        text = json.dumps(value)
    elif isinstance(value, list | tuple | dict):
        return _preview_container(value, out, budget)
    else:
        text = _opaque(value)
    out.append(text)
    return budget - len(text)


def _preview_container(value: Any, out: list[str], budget: int) -> int:
    is_dict = isinstance(value, dict)
    out.append("{" if is_dict else "[")
    budget -= 1
    items = value.items() if is_dict else value
    for index, item in enumerate(items):
        if budget <= 0:
            return budget
        if index:
            out.append(", ")
            budget -= 2
        if is_dict:
            budget = _preview(str(item[0]), out, budget)
            out.append(": ")
            budget = _preview(item[1], out, budget - 2)
        else:
            budget = _preview(item, out, budget)
    out.append("}" if is_dict else "]")
    return budget - 1


def _big_int(value: int) -> str:
    digits = math.floor(value.bit_length() * math.log10(2)) + 1
    return f"<integer of about {digits:,} digits>"


def _opaque(value: Any) -> str:
    try:
        import reprlib

        return reprlib.repr(value)
    except Exception:
        return f"<{type(value).__name__}>"
