"""Check manifests against ``schemas/manifest.schema.json`` and say where they break.

Python ``jsonschema`` over a 1,000-tool document costs about as much as
parsing it, so the common case (a valid file) takes a fast path: the
meta-schema's subset of keywords compiled once into plain Python functions
(:func:`compile_schema`, one function per subschema, ~1 ms per process).
Only a document that fails it goes through full ``jsonschema`` (imported
then) to collect every violation, each mapped back to its YAML node's line
and column.

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

import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from tooldeck._diagnostics import Diagnostic
from tooldeck._jsontypes import json_equal

if TYPE_CHECKING:
    import jsonschema
    from jsonschema import Draft202012Validator

    from tooldeck.manifest._yamlsource import YamlDocument

__all__ = ["check_document", "compile_schema", "manifest_schema"]

Check = Callable[[Any], bool]


@cache
def manifest_schema() -> dict[str, Any]:
    """The meta-schema shipped with the package (``tooldeck schema`` prints it)."""
    import pkgutil  # the package's loader reads it: a folder, a zip or an editable install

    raw = pkgutil.get_data("tooldeck", "schemas/manifest.schema.json")
    if raw is None:  # pragma: no cover - a loader that cannot read package data
        raise FileNotFoundError("tooldeck/schemas/manifest.schema.json")
    return json.loads(raw.decode("utf-8"))  # type: ignore[no-any-return]


@cache
def _validator() -> Draft202012Validator:
    import jsonschema

    extend: Any = jsonschema.validators.extend  # untyped in jsonschema's stubs
    checker = extend(jsonschema.Draft202012Validator, {"uniqueItems": _unique_items})
    return checker(manifest_schema())  # type: ignore[no-any-return]


def _unique_items(
    validator: Draft202012Validator, unique: bool, instance: Any, schema: Mapping[str, Any]
) -> Any:
    """jsonschema's ``uniqueItems`` in linear time (its fallback compares every pair)."""
    import jsonschema

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
_BRANCHES = ("anyOf", "oneOf")
_SIZES = ("minItems", "maxItems", "minLength", "maxLength", "minProperties")
_KNOWN = frozenset(
    {"$ref", "type", "const", "enum", "anyOf", "oneOf", "additionalItems"}
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
        if keyword in ("anyOf", "oneOf"):
            calls = [f"{self.function(branch)}(v)" for branch in value]
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
            pattern = self.constant(re.compile(schema["pattern"]))
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
