"""Check manifests against ``schemas/manifest.schema.json`` and say where they break.

Python ``jsonschema`` over a 1,000-tool document costs about as much as
parsing it, so the common case (a valid file) takes a fast path: a boolean
checker compiled once from the meta-schema's subset of keywords. Only a
document that fails it goes through full ``jsonschema`` to collect every
violation, each mapped back to its YAML node's line and column.

=====  ==========================================================
TD210  unknown key (with the closest allowed key suggested)
TD211  missing required key
TD212  wrong type (with a hint when YAML turned yes/no/on/off into a boolean)
TD213  invalid value (enum, const, pattern, range, one-of choices, repeats)
=====  ==========================================================

Manifests are untrusted, so every check here is linear in the document:
``uniqueItems`` hashes instead of comparing pairs (jsonschema's own check is
quadratic for mixed types), messages quote values only in part, and "did you
mean" suggestions stop after the first few unknown keys of a mapping.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

from tooldeck._diagnostics import Diagnostic
from tooldeck._validation import json_equal
from tooldeck.manifest._yamlsource import YamlDocument

__all__ = ["check_document", "compile_schema", "manifest_schema"]

Check = Callable[[Any], bool]


@cache
def manifest_schema() -> dict[str, Any]:
    """The meta-schema shipped with the package (``tooldeck schema`` prints it)."""
    text = resources.files("tooldeck").joinpath("schemas/manifest.schema.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@cache
def _validator() -> Draft202012Validator:
    extend: Any = jsonschema.validators.extend  # untyped in jsonschema's stubs
    checker = extend(Draft202012Validator, {"uniqueItems": _unique_items})
    return checker(manifest_schema())  # type: ignore[no-any-return]


def _unique_items(
    validator: Draft202012Validator, unique: bool, instance: Any, schema: Mapping[str, Any]
) -> Any:
    """jsonschema's ``uniqueItems`` in linear time (its fallback compares every pair)."""
    if unique and validator.is_type(instance, "array") and not _unique(instance):
        yield jsonschema.ValidationError(f"{_short(instance)} has non-unique elements")


@cache
def _fast_check() -> Check:
    schema = manifest_schema()
    return compile_schema(schema, schema)


def check_document(doc: YamlDocument, data: Any = None) -> list[Diagnostic]:
    """Every meta-schema violation in ``data`` (default ``doc.data``), located in ``doc``."""
    data = doc.data if data is None else data
    if _fast_check()(data):
        return []
    out = []
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.path)))
    for error in errors:
        out.extend(_diagnostics(doc, error))
    return out


_SUGGESTED_KEYS = 20
"""Unknown keys per mapping that get a "did you mean" (difflib is slow; 10^5 typos are not)."""
_MESSAGE_CHARS = 200
"""jsonschema's own messages quote whole values; they are cut to this length."""


def _diagnostics(doc: YamlDocument, error: jsonschema.ValidationError) -> list[Diagnostic]:
    path = list(error.absolute_path)
    keyword: Any = error.validator
    instance: Any = error.instance
    value: Any = error.validator_value
    schema: Any = error.schema

    def at(
        code: str, message: str, where: list[Any] | None = None, key: bool = False
    ) -> Diagnostic:
        return Diagnostic(code=code, message=message, location=doc.locate(where or path, key=key))

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


# --------------------------------------------------------------- fast checker
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "title",
        "description",
        "examples",
        "default",
        "$defs",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
    }
)
_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def compile_schema(schema: Any, root: Mapping[str, Any]) -> Check:
    """A boolean checker for the keyword subset the meta-schema uses.

    Keywords outside the subset fall back to jsonschema for that subschema,
    so the result always agrees with ``Draft202012Validator.is_valid``.
    """
    compiled: dict[int, Check] = {}
    return _compile(schema, root, compiled)


def _compile(schema: Any, root: Mapping[str, Any], memo: dict[int, Check]) -> Check:
    if schema is True:
        return lambda v: True
    if schema is False:
        return lambda v: False
    key = id(schema)
    if key in memo:
        return memo[key]
    slot: list[Check] = []
    memo[key] = lambda v: slot[0](v)  # noqa: PLW0108 - recursion through $ref resolves lazily
    tests = _tests(schema, root, memo)
    if tests is None:
        validator = Draft202012Validator({**schema, "$defs": root.get("$defs", {})})
        check: Check = validator.is_valid
    elif not tests:
        check = lambda v: True  # noqa: E731
    elif len(tests) == 1:
        check = tests[0]
    else:
        all_tests = tuple(tests)
        check = lambda v: all(t(v) for t in all_tests)  # noqa: E731
    slot.append(check)
    memo[key] = check
    return check


def _tests(
    schema: Mapping[str, Any], root: Mapping[str, Any], memo: dict[int, Check]
) -> list[Check] | None:
    """One check per keyword; None when a keyword is outside the compiled subset."""
    tests: list[Check] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS or keyword == "additionalItems":
            continue
        if keyword == "$ref":
            if not value.startswith("#/"):
                return None
            target: Any = root
            for part in value[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            tests.append(_compile(target, root, memo))
        elif keyword == "type":
            tests.append(_type_test([value] if isinstance(value, str) else list(value)))
        elif keyword in ("const", "enum"):
            tests.append(_equal_test((value,) if keyword == "const" else tuple(value)))
        elif keyword == "properties":
            props = {name: _compile(sub, root, memo) for name, sub in value.items()}
            tests.append(_properties_test(props))
        elif keyword == "additionalProperties":
            known = frozenset(schema.get("properties", {}))
            tests.append(_additional_test(known, _compile(value, root, memo)))
        elif keyword == "required":
            tests.append(_required_test(tuple(value)))
        elif keyword == "items":
            tests.append(_items_test(_compile(value, root, memo)))
        elif keyword in _SIZE_KINDS:
            tests.append(_size(keyword, value))
        elif keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            tests.append(_bound(keyword, value))
        elif keyword == "pattern":
            tests.append(_pattern_test(re.compile(value)))
        elif keyword == "uniqueItems":
            if value:
                tests.append(_unique)
        elif keyword in ("oneOf", "anyOf"):
            branches = tuple(_compile(b, root, memo) for b in value)
            tests.append(_any_test(branches) if keyword == "anyOf" else _one_test(branches))
        else:
            return None
    return tests


def _type_test(names: list[str]) -> Check:
    checks = tuple(_TYPES[n] for n in names)
    return lambda v: any(t(v) for t in checks)


def _equal_test(options: tuple[Any, ...]) -> Check:
    return lambda v: any(json_equal(v, o) for o in options)


def _properties_test(props: dict[str, Check]) -> Check:
    return lambda v: not isinstance(v, dict) or all(props[k](x) for k, x in v.items() if k in props)


def _additional_test(known: frozenset[str], extra: Check) -> Check:
    return lambda v: (
        not isinstance(v, dict) or all(extra(x) for name, x in v.items() if name not in known)
    )


def _required_test(needed: tuple[str, ...]) -> Check:
    return lambda v: not isinstance(v, dict) or all(k in v for k in needed)


def _items_test(item: Check) -> Check:
    return lambda v: not isinstance(v, list) or all(item(x) for x in v)


def _pattern_test(pattern: re.Pattern[str]) -> Check:
    return lambda v: not isinstance(v, str) or pattern.search(v) is not None


def _any_test(branches: tuple[Check, ...]) -> Check:
    return lambda v: any(t(v) for t in branches)


def _one_test(branches: tuple[Check, ...]) -> Check:
    return lambda v: sum(1 for t in branches if t(v)) == 1


_SIZE_KINDS: dict[str, type[list[Any]] | type[str] | type[dict[str, Any]]] = {
    "minItems": list,
    "maxItems": list,
    "minLength": str,
    "maxLength": str,
    "minProperties": dict,
}


def _size(keyword: str, bound: int) -> Check:
    kind = _SIZE_KINDS[keyword]
    if keyword.startswith("min"):
        return lambda v: not isinstance(v, kind) or len(v) >= bound
    return lambda v: not isinstance(v, kind) or len(v) <= bound


def _bound(keyword: str, bound: float) -> Check:
    def number(v: Any) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool)

    if keyword == "minimum":
        return lambda v: not number(v) or v >= bound
    if keyword == "maximum":
        return lambda v: not number(v) or v <= bound
    if keyword == "exclusiveMinimum":
        return lambda v: not number(v) or v > bound
    return lambda v: not number(v) or v < bound


def _unique(value: Any) -> bool:
    return not isinstance(value, list) or _first_repeat(value) is _NO_REPEAT


_NO_REPEAT = object()


def _first_repeat(values: list[Any]) -> Any:
    """The first value equal (as JSON) to an earlier one, or ``_NO_REPEAT``; linear time."""
    try:
        seen: set[Any] = set()
        for value in values:
            key = _json_key(value)
            if key in seen:
                return value
            seen.add(key)
    except TypeError:  # a value YAML cannot produce: compare pairs as JSON does
        for i, a in enumerate(values):
            if any(json_equal(a, b) for b in values[:i]):
                return a
    return _NO_REPEAT


def _json_key(value: Any) -> Any:
    """A hashable stand-in, equal exactly when :func:`json_equal` says the values are.

    ``1`` and ``1.0`` are one number (Python hashes them alike) but ``True`` is
    not ``1``; lists compare in order, objects regardless of key order.
    """
    if isinstance(value, bool) or value is None:
        return (type(value), value)
    if isinstance(value, int | float):
        return (float, value)
    if isinstance(value, str):
        return (str, value)
    if isinstance(value, list | tuple):
        return (list, tuple(_json_key(v) for v in value))
    if isinstance(value, dict):
        return (dict, frozenset((k, _json_key(v)) for k, v in value.items()))
    return (type(value), value)
