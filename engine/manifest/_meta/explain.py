"""Say what is wrong with a manifest the meta-schema rejects, and where.

Only a document that fails the fast check gets here: each of jsonschema's
errors becomes one or more diagnostics located at the YAML node its path
names (TD210 unknown key with a "did you mean", TD211 missing key, TD212
wrong type with a hint for YAML's yes/no booleans, TD213 invalid value).
Messages quote values only in part, and suggestions stop after the first few
unknown keys of a mapping, so a hostile document cannot make them expensive.

Separate from the checking (:mod:`tooldeck.manifest._meta.check`) and the
compiled checker (:mod:`tooldeck.manifest._meta.compiler`): it is the wording,
and it runs only on failure.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..._diagnostics import Diagnostic
from .compiler import _first_repeat

if TYPE_CHECKING:
    import jsonschema

    from ..._yaml import YamlDocument

__all__ = ["_diagnostics", "_short"]

_SUGGESTED_KEYS = 20
"""Unknown keys per mapping that get a "did you mean" (difflib is slow; 10^5 typos are not)."""
_MESSAGE_CHARS = 200
"""jsonschema's own messages quote whole values; they are cut to this length."""


def _diagnostics(doc: YamlDocument, error: jsonschema.ValidationError) -> list[Diagnostic]:
    import difflib

    import jsonschema.exceptions

    path = list(error.absolute_path)
    keyword: Any = error.validator
    instance: Any = error.instance
    value: Any = error.validator_value
    schema: Any = error.schema

    def at(
        code: str, message: str, where: list[Any] | None = None, key: bool = False
    ) -> Diagnostic:
        return Diagnostic(code=code, message=message, location=doc.locate(where or path, key=key))

    special = _mistake(path, instance, keyword)
    if special is not None:
        return [at(*special)]
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = list(schema.get("properties", {}))
        out = []
        for index, extra in enumerate(sorted(k for k in instance if k not in allowed)):
            close = (
                difflib.get_close_matches(extra, allowed, n=1, cutoff=0.6)
                if index < _SUGGESTED_KEYS
                else []
            )
            hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(allowed)}"
            out.append(at("TD210", f"unknown key {_quoted(extra)}{hint}", [*path, extra], key=True))
        return out
    if keyword == "required" and isinstance(instance, dict):
        missing = [name for name in value if name not in instance]
        return [at("TD211", f"missing required key {name!r}") for name in missing]
    if keyword == "type":
        want = " or ".join(value) if isinstance(value, list) else value
        message = f"expected {want}, got {_kind(instance)} {_short(instance)}"
        if isinstance(instance, bool) and "boolean" not in str(value):
            message += " (YAML reads yes/no/on/off/true/false as booleans; quote the value)"
        return [at("TD212", message)]
    if keyword in ("oneOf", "anyOf") and _all_required(value):
        names = [n for branch in value for n in branch.get("required", [])]
        present = [n for n in names if isinstance(instance, dict) and n in instance]
        which = "both " + " and ".join(map(repr, present)) if present else "neither"
        return [at("TD213", f"needs exactly one of {' or '.join(map(repr, names))}; has {which}")]
    if keyword in ("oneOf", "anyOf"):
        message = f"{_short(instance)} is not valid here"
        examples = schema.get("examples")
        if examples:
            message += "; examples: " + ", ".join(_short(e) for e in examples[:3])
        elif error.context:
            message += f": {jsonschema.exceptions.best_match(error.context).message}"
        return [at("TD213", message)]
    if keyword == "const":
        return [at("TD213", f"must be {_short(value)}, got {_short(instance)}")]
    if keyword == "enum":
        message = f"{_short(instance)} is not one of {', '.join(map(_short, value))}"
        words = [v for v in value if isinstance(v, str)]
        if isinstance(instance, str):
            close = difflib.get_close_matches(instance, words, n=1, cutoff=0.6)
            if close:
                message = (
                    f"{_short(instance)} is not allowed; did you mean {close[0]!r}? ({message})"
                )
        return [at("TD213", message)]
    if keyword == "uniqueItems":
        repeated = _first_repeat(instance)
        return [at("TD213", f"{_short(repeated)} is listed more than once; list each value once")]
    if keyword == "pattern":
        message = f"{_short(instance)} does not have the expected form"
        examples = schema.get("examples")
        message += f" (e.g. {_short(examples[0])})" if examples else f" ({value})"
        return [at("TD213", message)]
    message = error.message
    if len(message) > _MESSAGE_CHARS:
        message = message[: _MESSAGE_CHARS - 3] + "..."
    return [at("TD213", message)]


def _mistake(path: list[Any], instance: Any, keyword: Any) -> tuple[str, str] | None:
    """Messages for mistakes people make often, with the fix spelled out."""
    last = path[-1] if path else None
    if (last == "type" and "params" in path) or (last == "type" and "properties" in path):
        names = [instance] if isinstance(instance, str) else instance
        if isinstance(names, list):  # YAML reads a bare null in a type list as None
            names = ["null" if n is None else n for n in names]
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            unknown = [n for n in names if _type_name(n) is None]
            if unknown:
                return ("TD213", _unknown_type(unknown[0]))
    if last == "properties" and isinstance(instance, dict) and keyword == "type":
        items = []
        for name, schema in list(instance.items())[:3]:
            fields = [f"name: {name}"]
            if isinstance(schema, dict):
                fields += [
                    f"{key}: {_plain(schema[key])}"
                    for key in ("type", "description")
                    if key in schema and isinstance(schema[key], str)
                ]
            items.append("{" + ", ".join(fields) + "}")
        more = ", ..." if len(instance) > 3 else ""
        return (
            "TD212",
            "properties is a list of parameters here, not a JSON Schema mapping of name -> "
            f"schema; write properties: [{', '.join(items)}{more}], or put a whole JSON Schema "
            "under schema: instead of type/properties",
        )
    return None


def _plain(text: str) -> str:
    """A YAML scalar as someone would type it: bare when it needs no quotes."""
    if text.replace("_", "").replace("-", "").replace(" ", "").isalnum() and ": " not in text:
        return text
    return _short(text)


def _type_name(name: str) -> str | None:
    from ..._params import JSON_TYPES, TYPE_ALIASES

    lowered = name.strip().lower()
    if lowered in JSON_TYPES or lowered == "any":
        return lowered
    return TYPE_ALIASES.get(lowered)


def _unknown_type(name: str) -> str:
    import difflib

    from ..._params import JSON_TYPES, TYPE_ALIASES, format_hint

    allowed = [*JSON_TYPES, "any"]
    fmt = format_hint(name)
    if fmt is not None:  # type: date -> type: string with format: date
        return (
            f"unknown type {_short(name)}; JSON has no {name.strip()} type: write "
            f"type: string with format: {fmt}"
        )
    close = difflib.get_close_matches(name.lower(), [*allowed, *TYPE_ALIASES], n=1, cutoff=0.6)
    hint = ""
    if close:
        canonical = TYPE_ALIASES.get(close[0], close[0])
        hint = f"; did you mean {canonical!r}?"
    aliases = ", ".join(sorted(TYPE_ALIASES))
    return (
        f"unknown type {_short(name)}{hint} Allowed: {', '.join(allowed)} "
        f"(or a list of them), and the aliases {aliases}"
    )


def _all_required(branches: Any) -> bool:
    """Branches that only say "one of these keys" (annotations aside)."""
    return isinstance(branches, list) and all(
        isinstance(b, dict) and "required" in b and set(b) <= {"required", "description", "title"}
        for b in branches
    )


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", int: "integer", float: "number"}.get(
        type(value), type(value).__name__
    )


def _quoted(key: str, limit: int = 60) -> str:
    """``repr(key)``, cut short: a key can be as long as the file."""
    return repr(key if len(key) <= limit else key[: limit - 3] + "...")


def _short(value: Any, limit: int = 60) -> str:
    """``value`` as JSON, cut at ``limit``; encodes only as much as it shows.

    The value can be a whole document section, so it is encoded chunk by
    chunk (``iterencode`` is lazy) and encoding stops past the limit.
    """
    text = ""
    for chunk in _ENCODER.iterencode(value):
        text += chunk
        if len(text) > limit:
            return text[: limit - 3] + "..."
    return text


_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
