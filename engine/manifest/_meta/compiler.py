"""The meta-schema's fast checker: a JSON Schema subset compiled into Python functions.

Python ``jsonschema`` over a 1,000-tool document costs about as much as
parsing it; :func:`compile_schema` writes the keywords the meta-schema uses
as Python source, one function per subschema, compiled once per process
(~1 ms), so a valid document is confirmed at a fraction of that. A subschema
with any other keyword is left to jsonschema, so the answer always agrees
with ``Draft202012Validator.is_valid``. Also here: ``uniqueItems`` in linear
time (:func:`_unique`, :func:`_first_repeat`), which the compiled code, the
full validator and the error messages share.

Separate because it is code generation: it answers only yes or no, and
knows nothing of documents, positions or messages
(:mod:`tooldeck.manifest._meta.explain` says what is wrong and where).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from ..._validation import json_equal

__all__ = ["Check", "_first_repeat", "_unique", "compile_pattern", "compile_schema"]

Check = Callable[[Any], bool]


@cache
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A meta-schema ``pattern`` with JSON Schema's (ECMA-262's) ``$``: the end of the text.

    Python's ``$`` also matches before a final newline, so ``^[a-z]+$`` would
    accept ``"files\\n"``; each ``$`` outside a character class becomes ``\\Z``.
    """
    out: list[str] = []
    in_class = escaped = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            out.append("\\Z")
            continue
        out.append(char)
    return re.compile("".join(out))


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
_TYPE_TESTS: dict[str, str] = {
    "string": "isinstance(v, str)",
    "integer": "((isinstance(v, int) and not isinstance(v, bool))"
    " or (isinstance(v, float) and v.is_integer()))",
    "number": "(isinstance(v, (int, float)) and not isinstance(v, bool))",
    "boolean": "isinstance(v, bool)",
    "array": "isinstance(v, list)",
    "object": "isinstance(v, dict)",
    "null": "v is None",
}
"""JSON Schema's types (``1.0`` is an integer, booleans are not numbers) as expressions."""
_OBJECT_KEYWORDS = frozenset(
    {"properties", "additionalProperties", "required", "minProperties", "propertyNames"}
)
_ARRAY_KEYWORDS = frozenset({"items", "minItems", "maxItems", "uniqueItems"})
_STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern"})
_NUMBER_FAILS = {  # jsonschema's own comparisons: a value fails when this holds (NaN never does)
    "minimum": "v < {}",
    "maximum": "v > {}",
    "exclusiveMinimum": "v <= {}",
    "exclusiveMaximum": "v >= {}",
}
_BRANCHES = ("allOf", "anyOf", "oneOf")
_SIZES = ("minItems", "maxItems", "minLength", "maxLength", "minProperties")
_KNOWN = frozenset(
    {"$ref", "type", "const", "enum", "allOf", "anyOf", "oneOf", "additionalItems"}
    | _OBJECT_KEYWORDS
    | _ARRAY_KEYWORDS
    | _STRING_KEYWORDS
    | _NUMBER_FAILS.keys()
    | _ANNOTATIONS
)


def compile_schema(schema: Any, root: Mapping[str, Any]) -> Check:
    """A boolean checker for ``schema`` (references resolve in ``root``).

    The keywords the meta-schema uses become Python source, one function per
    subschema, compiled once; a subschema with any other keyword is checked
    by jsonschema, so the result always agrees with
    ``Draft202012Validator.is_valid``. The functions never raise on JSON
    values: every keyword is guarded by the type it applies to.
    """
    compiler = _Compiler(root)
    entry = compiler.function(schema)
    lines = compiler.lines + compiler.aliases  # aliases and tables after what they name
    for table, functions in compiler.tables:
        entries = ", ".join(f"{key!r}: {function}" for key, function in functions.items())
        lines.append(f"{table} = {{{entries}}}")
    source = "\n".join(lines) + "\n"
    namespace: dict[str, Any] = dict(compiler.constants)
    exec(compile(source, "<tooldeck manifest meta-schema>", "exec"), namespace)
    check: Check = namespace[entry]
    return check


def _always(v: Any) -> bool:
    return True


def _never(v: Any) -> bool:
    return False


def _enum(v: Any, options: tuple[Any, ...]) -> bool:
    return any(json_equal(v, o) for o in options)


class _Compiler:
    """Writes one ``def _sN(v)`` per subschema; names are handed out before bodies exist,
    so recursive references (a parameter's ``properties`` are parameters) just work."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.lines: list[str] = []
        self.constants: dict[str, Any] = {
            "_always": _always,
            "_never": _never,
            "_enum": _enum,
            "_unique": _unique,
        }
        self.aliases: list[str] = []
        """``_sN = _sM`` for subschemas that are only a reference."""
        self.tables: list[tuple[str, dict[str, str]]] = []
        """``properties`` lookups: global name -> {property: function name}."""
        self._names: dict[int, str] = {}
        self._bodies: dict[str, str] = {}  # a body written once serves equal subschemas
        self._keep: list[Any] = []  # schemas named by id() stay alive while compiling

    def constant(self, value: Any) -> str:
        name = f"_c{len(self.constants) + len(self.tables)}"
        self.constants[name] = value
        return name

    def function(self, schema: Any) -> str:
        """The name of the function checking ``schema`` (written on first request)."""
        if schema is True:
            return "_always"
        if schema is False:
            return "_never"
        key = id(schema)
        if key not in self._names:
            self._keep.append(schema)
            name = self._names[key] = f"_s{len(self._names)}"
            target = self._alias(schema)
            if target is None:
                self._write(name, schema)
            else:  # only a $ref (and annotations): the target's function, under this name too
                function = self.function(target)
                if function == name:  # a reference to itself and nothing else
                    self._fallback(name, schema)
                else:
                    self._names[key] = function
                    self.aliases.append(f"{name} = {function}")
        return self._names[key]

    def _alias(self, schema: Any) -> Any:
        if not isinstance(schema, dict) or "$ref" not in schema:
            return None
        if not set(schema) - _ANNOTATIONS <= {"$ref"}:
            return None
        return self._resolve(schema["$ref"])

    def _resolve(self, reference: Any) -> Any:
        if not isinstance(reference, str) or not reference.startswith("#/"):
            return None
        target: Any = self.root
        for part in reference[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        return target

    def _fallback(self, name: str, schema: Any) -> None:
        """A subschema outside the compiled subset: jsonschema checks it."""
        from jsonschema import Draft202012Validator

        validator = Draft202012Validator({**schema, "$defs": self.root.get("$defs", {})})
        self.lines += [f"def {name}(v):", f"    return {self.constant(validator.is_valid)}(v)"]

    def _write(self, name: str, schema: Any) -> None:
        if not self._compilable(schema):
            self._fallback(name, schema)
            return
        body: list[str] = []
        for keyword, value in schema.items():
            body += self._keyword(keyword, value)
        only = schema.get("type")  # a single type already checked above needs no guard
        for kind, checks in (
            ("object", self._object(schema)),
            ("array", self._array(schema)),
            ("string", self._string(schema)),
            ("number", self._number(schema)),
        ):
            if not checks:
                continue
            if only == kind or (kind == "number" and only == "integer"):
                body += checks
            else:
                body += [f"if {_TYPE_TESTS[kind]}:", *("    " + line for line in checks)]
        text = "".join(f"    {line}\n" for line in body)
        same = self._bodies.get(text)
        if same is not None:
            self._names[id(schema)] = same
            self.aliases.append(f"{name} = {same}")
            return
        self._bodies[text] = name
        self.lines.append(f"def {name}(v):\n{text}    return True")

    def _compilable(self, schema: Any) -> bool:
        """Only keywords of the subset, each with a value of the shape the subset expects."""
        if not isinstance(schema, dict) or not set(schema) <= _KNOWN:
            return False
        kinds = schema.get("type", "string")
        names = [kinds] if isinstance(kinds, str) else kinds
        shapes = (
            isinstance(names, list) and all(n in _TYPE_TESTS for n in names),
            "$ref" not in schema or self._resolve(schema["$ref"]) is not None,
            isinstance(schema.get("enum", []), list),
            isinstance(schema.get("required", []), list),
            isinstance(schema.get("properties", {}), dict),
            not isinstance(schema.get("items"), list),  # the pre-2020 tuple form
            all(isinstance(schema.get(k, []), list) and schema.get(k, [0]) for k in _BRANCHES),
            all(type(schema.get(k, 0)) is int for k in _SIZES),
            all(type(schema.get(k, 0)) in (int, float) for k in _NUMBER_FAILS),
        )
        return all(shapes)

    def _keyword(self, keyword: str, value: Any) -> list[str]:
        """The checks that apply to every type."""
        if keyword == "$ref":
            return [f"if not {self.function(self._resolve(value))}(v): return False"]
        if keyword == "type":
            names = [value] if isinstance(value, str) else list(value)
            tests = " or ".join(_TYPE_TESTS[n] for n in names) or "False"
            return [f"if not ({tests}): return False"]
        if keyword in ("const", "enum"):
            options = (value,) if keyword == "const" else tuple(value)
            if options and all(type(o) is str for o in options):
                allowed = self.constant(frozenset(options))
                return [f"if not (isinstance(v, str) and v in {allowed}): return False"]
            return [f"if not _enum(v, {self.constant(options)}): return False"]
        if keyword in _BRANCHES:
            calls = [f"{self.function(branch)}(v)" for branch in value]
            if keyword == "allOf":
                return [f"if not ({' and '.join(calls) or 'True'}): return False"]
            if keyword == "anyOf":
                return [f"if not ({' or '.join(calls) or 'False'}): return False"]
            return [f"if ({' + '.join(calls) or '0'}) != 1: return False"]
        return []  # annotations and the type-specific keywords (below)

    def _object(self, schema: Mapping[str, Any]) -> list[str]:
        if not _OBJECT_KEYWORDS & schema.keys():
            return []
        body = []
        if schema.get("required"):
            needed = self.constant(frozenset(schema["required"]))
            body.append(f"if not v.keys() >= {needed}: return False")
        if "minProperties" in schema:
            body.append(f"if len(v) < {schema['minProperties']}: return False")
        if "propertyNames" in schema:
            check = self.function(schema["propertyNames"])
            body += ["for k in v:", f"    if not {check}(k): return False"]
        props = {k: self.function(sub) for k, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        if props or extra is not True:
            body.append("for k, x in v.items():")
            if props:
                table = f"_c{len(self.constants) + len(self.tables)}"
                self.tables.append((table, props))
                body += [f"    c = {table}.get(k)", "    if c is not None:"]
                body.append("        if not c(x): return False")
                if extra is False:
                    body.append("    else: return False")
                elif extra is not True:
                    body.append(f"    elif not {self.function(extra)}(x): return False")
            elif extra is False:
                body.append("    return False")
            else:
                body.append(f"    if not {self.function(extra)}(x): return False")
        return body

    def _array(self, schema: Mapping[str, Any]) -> list[str]:
        if not _ARRAY_KEYWORDS & schema.keys():
            return []
        body = []
        if "minItems" in schema:
            body.append(f"if len(v) < {schema['minItems']}: return False")
        if "maxItems" in schema:
            body.append(f"if len(v) > {schema['maxItems']}: return False")
        if schema.get("uniqueItems"):
            body.append("if not _unique(v): return False")
        if "items" in schema and schema["items"] is not True:
            check = self.function(schema["items"])
            body += ["for x in v:", f"    if not {check}(x): return False"]
        return body

    def _string(self, schema: Mapping[str, Any]) -> list[str]:
        if not _STRING_KEYWORDS & schema.keys():
            return []
        body = []
        if "minLength" in schema:
            body.append(f"if len(v) < {schema['minLength']}: return False")
        if "maxLength" in schema:
            body.append(f"if len(v) > {schema['maxLength']}: return False")
        if "pattern" in schema:
            pattern = self.constant(compile_pattern(schema["pattern"]))
            body.append(f"if {pattern}.search(v) is None: return False")
        return body

    def _number(self, schema: Mapping[str, Any]) -> list[str]:
        bounds = [(k, schema[k]) for k in _NUMBER_FAILS if k in schema]
        if not bounds:
            return []
        body = []
        for keyword, bound in bounds:
            failing = _NUMBER_FAILS[keyword].format(self.constant(bound))
            body.append(f"if {failing}: return False")
        return body


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
