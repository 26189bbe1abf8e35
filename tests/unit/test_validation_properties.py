"""Property tests: the compiled checker agrees with jsonschema, valid calls pass, bad ones fail.

Descriptors are generated at random (types, aliases, type lists, enums, bounds,
patterns, formats, arrays, nested objects, raw ``schema=`` fragments). Then:

* the fast checker from :func:`compile_object_checker` and full jsonschema on the
  generated tool schema agree on random and on nearly-valid instances;
* instances generated to be valid are accepted by a registered tool;
* replacing one value with one of a JSON type the parameter does not allow is
  rejected as ``invalid_arguments`` naming the parameter's JSON path;
* every generated schema is a valid Draft 2020-12 schema.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tooldeck import ParamDescriptor, ToolRegistry, tool_input_schema
from tooldeck._paramcheck import compile_object_checker
from tooldeck._validation.formats import FORMAT_CHECKER
from tooldeck._validation.validator import schema_validator

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
ALIASES = {
    "string": ("string", "str"),
    "integer": ("integer", "int"),
    "number": ("number", "float"),
    "boolean": ("boolean", "bool"),
    "array": ("array", "list"),
    "object": ("object", "dict"),
    "null": ("null",),
}
TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        not isinstance(v, bool)
        and (isinstance(v, int) or (isinstance(v, float) and v.is_integer()))
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}

MAX_DEPTH = 2
"""Nesting below the top level: properties/items of properties/items, no deeper."""

# --- building blocks ----------------------------------------------------------------------

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)
"""Parameter names; never "project_dir" (too long), which would be injected by name."""

FINITE = st.floats(allow_nan=False, allow_infinity=False)

TRICKY_STRINGS = st.sampled_from(
    [
        "",
        "3",
        "true",
        "null",
        "abc",
        "ABC",
        "123",
        "x-1f",
        "2024-02-29",
        "2024-02-30",
        "2024-01-02T03:04:05Z",
        "12:34:56",
        "25:00:00",
        "123e4567-e89b-12d3-a456-426614174000",
        "a@example.com",
        "not an email",
        "192.168.0.1",
        "300.1.1.1",
        "::1",
        "https://example.com/x",
        "red",
        "green",
    ]
)

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-10, max_value=10),
    FINITE,
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 2.5, -1.5, 1e300]),
    st.text(max_size=8),
    TRICKY_STRINGS,
)


def json_values(keys: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[Any]:
    key_strategy = st.text(max_size=4) if keys is None else (keys | st.text(max_size=4))
    return st.recursive(
        JSON_SCALARS,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(key_strategy, children, max_size=4),
        ),
        max_leaves=12,
    )


JSON = json_values()


@dataclass(frozen=True)
class PatternCase:
    regex: str
    min_len: int
    max_len: int | None
    make: Callable[[int, int | None], st.SearchStrategy[str]]
    """Strings matching ``regex`` with a length in [lo, hi]."""
    bounded: bool = True
    """Whether minLength/maxLength may be combined with this pattern."""


PATTERNS = (
    PatternCase(
        "^[a-z]+$",
        1,
        None,
        lambda lo, hi: st.text(string.ascii_lowercase, min_size=lo, max_size=hi),
    ),
    PatternCase(
        "^[0-9]{3}$",
        3,
        3,
        lambda lo, hi: st.text(string.digits, min_size=3, max_size=3),
    ),
    PatternCase(
        "^[A-Z][a-z0-9_]*$",
        1,
        None,
        lambda lo, hi: st.builds(
            str.__add__,
            st.sampled_from(string.ascii_uppercase),
            st.text(
                string.ascii_lowercase + string.digits + "_",
                min_size=lo - 1,
                max_size=None if hi is None else hi - 1,
            ),
        ),
    ),
    PatternCase(
        "^(red|green|blue)$",
        3,
        5,
        lambda lo, hi: st.sampled_from(["red", "green", "blue"]).filter(
            lambda s: lo <= len(s) <= (hi or 99)
        ),
        bounded=False,
    ),
    # Unanchored: JSON Schema patterns search, they do not have to match the whole string.
    PatternCase("ab", 2, None, lambda lo, hi: st.from_regex("ab"), bounded=False),
    PatternCase(
        r"^x-[0-9a-f]+$",
        3,
        None,
        lambda lo, hi: st.from_regex(r"x-[0-9a-f]+", fullmatch=True),
        bounded=False,
    ),
)
PATTERN_BY_REGEX = {case.regex: case for case in PATTERNS}

FORMAT_SAMPLES: dict[str, tuple[str, ...]] = {
    "date": ("2024-02-29", "1999-12-31", "2000-01-01"),
    "date-time": (
        "2024-01-02T03:04:05Z",
        "2024-01-02T03:04:05.123+02:00",
        "1999-12-31 23:59:59-05:00",
    ),
    "time": ("12:34:56", "00:00:00Z", "23:59:59.5+01:00"),
    "uuid": ("123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000"),
    "email": ("a@example.com", "first.last+tag@sub.example.org"),
    "ipv4": ("192.168.0.1", "0.0.0.0", "255.255.255.255"),
    "ipv6": ("::1", "2001:db8::8a2e:370:7334", "fe80::1"),
    "uri": ("https://example.com/x?y=1", "mailto:a@example.com", "urn:isbn:0451450523"),
}
FORMATS = tuple(FORMAT_SAMPLES)

POINT = {
    "type": "object",
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
    "additionalProperties": False,
}

FRAGMENTS: tuple[tuple[dict[str, Any], st.SearchStrategy[Any]], ...] = (
    (
        {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}]},
        st.integers() | st.text(max_size=3),
    ),
    (
        {"type": "integer", "minimum": 0, "multipleOf": 5},
        st.integers(0, 10**6).map(lambda n: n * 5),
    ),
    (
        {"$defs": {"Point": POINT}, "$ref": "#/$defs/Point"},
        st.fixed_dictionaries({"x": FINITE, "y": st.integers()}),
    ),
    (
        {
            "type": "array",
            "prefixItems": [{"type": "string"}, {"type": "integer"}],
            "items": False,
        },
        st.tuples(st.text(max_size=4), st.integers()).map(list)
        | st.tuples(st.text(max_size=4)).map(list),
    ),
    ({"oneOf": [{"const": "a"}, {"const": 1}]}, st.sampled_from(["a", 1, 1.0])),
    ({"type": ["string", "null"], "minLength": 2}, st.none() | st.text(min_size=2, max_size=6)),
    ({"not": {"type": "null"}, "description": "Anything but null."}, JSON.filter(bool)),
    (
        {
            "$defs": {"Color": {"enum": ["red", "green", "blue"]}},
            "type": "array",
            "items": {"$ref": "#/$defs/Color"},
            "uniqueItems": True,
        },
        st.lists(st.sampled_from(["red", "green", "blue"]), unique=True),
    ),
)


def fragment_values(fragment: Any) -> st.SearchStrategy[Any]:
    for known, values in FRAGMENTS:
        if known == fragment:
            return values
    raise AssertionError(f"unknown fragment {fragment!r}")


ENUM_VALUES = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([1.0, 2.5, -0.5, 3.0]),
    st.booleans(),
    st.sampled_from(["a", "b", "1", "true", "red"]),
    st.none(),
    st.sampled_from([[1, "a"], [1.0], {"k": 1}]),
)


def json_type_of(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if TYPE_TESTS[name](value):
            return name
    raise AssertionError(value)


# --- descriptor strategy ------------------------------------------------------------------


@st.composite
def declared_types(draw: st.DrawFn) -> tuple[Any, tuple[str, ...]]:
    """A type as declared (alias, list, any) and the JSON types it stands for."""
    kind = draw(st.sampled_from(["one", "one", "one", "list", "any"]))
    if kind == "any":
        return draw(st.sampled_from(["any", "ANY", "*"])), ()
    if kind == "one":
        canonical = draw(st.sampled_from(JSON_TYPES))
        return draw(st.sampled_from(ALIASES[canonical])), (canonical,)
    chosen = draw(st.lists(st.sampled_from(JSON_TYPES), min_size=2, max_size=3, unique=True))
    return [draw(st.sampled_from(ALIASES[t])) for t in chosen], tuple(chosen)


def _ordered_bounds(out: dict[str, Any], low: str, high: str) -> dict[str, Any]:
    """Registration refuses a lower bound above the upper one; keep wild bounds ordered."""
    if low in out and high in out and out[low] > out[high]:
        out[low], out[high] = out[high], out[low]
    return out


@st.composite
def length_bounds(draw: st.DrawFn, lo_min: int = 0, lo_max: int = 4) -> dict[str, int]:
    out: dict[str, int] = {}
    lo = draw(st.none() | st.integers(lo_min, lo_max))
    if lo is not None:
        out["min_length"] = lo
    if draw(st.booleans()):
        out["max_length"] = (lo if lo is not None else lo_min) + draw(st.integers(0, 6))
    return out


@st.composite
def string_constraints(draw: st.DrawFn, wild: bool) -> dict[str, Any]:
    if wild:
        out: dict[str, Any] = {}
        if draw(st.booleans()):
            out["pattern"] = draw(st.sampled_from(PATTERNS)).regex
        if draw(st.booleans()):
            out["format"] = draw(st.sampled_from(FORMATS))
        if draw(st.booleans()):
            out["min_length"] = draw(st.integers(0, 5))
        if draw(st.booleans()):
            out["max_length"] = draw(st.integers(0, 5))
        return _ordered_bounds(out, "min_length", "max_length")
    kind = draw(st.sampled_from(["none", "length", "pattern", "format"]))
    if kind == "length":
        return draw(length_bounds())
    if kind == "pattern":
        case = draw(st.sampled_from(PATTERNS))
        out = {"pattern": case.regex}
        if case.bounded and draw(st.booleans()):
            bounds = draw(length_bounds(case.min_len, case.min_len + 2))
            if case.max_len is not None:
                bounds = {k: min(max(v, case.min_len), case.max_len) for k, v in bounds.items()}
            out.update(bounds)
        return out
    if kind == "format":
        return {"format": draw(st.sampled_from(FORMATS))}
    return {}


@st.composite
def number_constraints(draw: st.DrawFn, wild: bool, integral: bool) -> dict[str, Any]:
    if wild:
        bound = st.integers(-100, 100) | st.floats(-100, 100)
        out = {}
        if draw(st.booleans()):
            out["minimum"] = draw(bound)
        if draw(st.booleans()):
            out["maximum"] = draw(bound)
        return _ordered_bounds(out, "minimum", "maximum")
    bound = st.integers(-1000, 1000) if integral else st.floats(-1000, 1000)
    lo = draw(st.none() | bound)
    hi = draw(st.none() | bound)
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    out = {}
    if lo is not None:
        out["minimum"] = lo
    if hi is not None:
        out["maximum"] = hi
    return out


@st.composite
def enum_params(draw: st.DrawFn) -> dict[str, Any]:
    values = draw(st.lists(ENUM_VALUES, min_size=1, max_size=5))
    if draw(st.booleans()):
        # Strings only: the fast path.
        values = draw(st.lists(st.sampled_from(["a", "b", "c", "1", ""]), min_size=1, max_size=4))
    style = draw(st.sampled_from(["any", "cover"]))
    if style == "any":
        declared: Any = "any"
    else:
        covering: list[str] = []
        for value in values:
            kind = json_type_of(value)
            kind = "number" if kind == "integer" and isinstance(value, float) else kind
            if kind not in covering:
                covering.append(kind)
        declared = covering if len(covering) > 1 else covering[0]
    return {"type": declared, "enum": tuple(values)}


@st.composite
def param_descriptors(draw: st.DrawFn, name: str, depth: int, wild: bool) -> ParamDescriptor:
    required = draw(st.booleans())
    description = draw(st.sampled_from(["", "", "A parameter.", "Ünïcode — description."]))
    kind = draw(st.sampled_from(["plain"] * 8 + ["enum", "fragment"]))
    if kind == "fragment":
        fragment = draw(st.sampled_from(FRAGMENTS))[0]
        return ParamDescriptor(name, "any", required, description, schema=fragment)
    if kind == "enum":
        spec = draw(enum_params())
        if wild and draw(st.booleans()):
            spec.update(draw(string_constraints(wild=True)))
        return ParamDescriptor(name, spec.pop("type"), required, description, **spec)

    declared, types = draw(declared_types())
    kwargs: dict[str, Any] = {}
    everything = wild or not types

    def allows(*names: str) -> bool:
        return everything or any(t in types for t in names)

    if allows("string") and draw(st.booleans()):
        kwargs.update(draw(string_constraints(wild)))
    if allows("integer", "number") and draw(st.booleans()):
        integral = not types or "integer" in types
        kwargs.update(draw(number_constraints(wild, integral)))
    nest = depth < MAX_DEPTH
    if allows("array") and draw(st.booleans()):
        if nest and draw(st.booleans()):
            kwargs["items"] = draw(param_descriptors("items", depth + 1, wild))
        lo = draw(st.none() | st.integers(0, 3))
        if lo is not None:
            kwargs["min_items"] = lo
        if draw(st.booleans()):
            kwargs["max_items"] = draw(st.integers(0, 3)) + (lo or 0)
    if allows("object") and nest and draw(st.booleans()):
        kwargs["properties"] = draw(param_lists(depth + 1, wild, max_size=3))
    return ParamDescriptor(name, declared, required, description, **kwargs)


@st.composite
def param_lists(
    draw: st.DrawFn,
    depth: int = 0,
    wild: bool = False,
    *,
    min_size: int = 0,
    max_size: int = 5,
    injections: bool = True,
) -> tuple[ParamDescriptor, ...]:
    names = draw(st.lists(NAMES, min_size=min_size, max_size=max_size, unique=True))
    params = [draw(param_descriptors(name, depth, wild)) for name in names]
    if injections and depth == 0 and draw(st.integers(0, 4)) == 0:
        taken = set(names)
        inject = draw(st.sampled_from(["config", "call_id", "tool_name", "context"]))
        name = f"inj_{inject}"
        if name not in taken:
            position = draw(st.integers(0, len(params)))
            params.insert(position, ParamDescriptor(name, "any", inject=inject))
    return tuple(params)


# --- valid values -------------------------------------------------------------------------


def _int_range(param: ParamDescriptor) -> tuple[int | None, int | None]:
    lo = None if param.minimum is None else math.ceil(param.minimum)
    hi = None if param.maximum is None else math.floor(param.maximum)
    return lo, hi


def value_of_type(param: ParamDescriptor, kind: str, depth: int) -> st.SearchStrategy[Any]:
    """Values of JSON type ``kind`` that satisfy every constraint of ``param``."""
    if kind == "string":
        if param.format is not None:
            return st.sampled_from(FORMAT_SAMPLES[param.format])
        lo, hi = param.min_length or 0, param.max_length
        if param.pattern is not None:
            case = PATTERN_BY_REGEX[param.pattern]
            return case.make(max(lo, case.min_len), hi)
        return st.text(min_size=lo, max_size=hi if hi is not None else lo + 8)
    if kind == "integer":
        lo, hi = _int_range(param)
        if lo is not None and hi is not None and lo > hi:
            return st.nothing()
        ints = st.integers(lo, hi)
        # 3.0 is an integer in JSON Schema; json.dumps keeps it a float.
        return ints | ints.filter(lambda n: abs(n) < 2**52).map(float)
    if kind == "number":
        lo, hi = param.minimum, param.maximum
        floats = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
        ilo, ihi = _int_range(param)
        if ilo is not None and ihi is not None and ilo > ihi:
            return floats
        return floats | st.integers(ilo, ihi)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        low = param.min_items or 0
        high = param.max_items if param.max_items is not None else low + 3
        elements = JSON if param.items is None else valid_value(param.items, depth + 1)
        return st.lists(elements, min_size=low, max_size=high)
    if kind == "object":
        if param.properties is None:
            return st.dictionaries(st.text(max_size=4), JSON, max_size=3)
        return valid_objects(param.properties, depth + 1)
    raise AssertionError(kind)


def valid_value(param: ParamDescriptor, depth: int = 0) -> st.SearchStrategy[Any]:
    if param.schema is not None:
        return fragment_values(param.schema)
    if param.enum is not None:
        return st.sampled_from(param.enum)
    types = param.types or JSON_TYPES
    return st.one_of([value_of_type(param, kind, depth) for kind in types])


def valid_objects(params: tuple[ParamDescriptor, ...], depth: int = 0) -> st.SearchStrategy[Any]:
    visible = [p for p in params if p.inject is None]
    return st.fixed_dictionaries(
        {p.name: valid_value(p, depth) for p in visible if p.required},
        optional={p.name: valid_value(p, depth) for p in visible if not p.required},
    )


# --- mutations ----------------------------------------------------------------------------


def containers(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every list and dict inside ``value`` (including itself)."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        found.append(path)
        for key, child in value.items():
            found.extend(containers(child, (*path, key)))
    elif isinstance(value, list):
        found.append(path)
        for index, child in enumerate(value):
            found.extend(containers(child, (*path, index)))
    return found


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@st.composite
def nearly_valid(draw: st.DrawFn, params: tuple[ParamDescriptor, ...]) -> Any:
    """A valid instance with (usually) one thing changed somewhere inside it."""
    instance = draw(valid_objects(params))
    instance = json.loads(json.dumps(instance))
    names = st.sampled_from([p.name for p in params]) if params else st.text(max_size=3)
    target = at(instance, draw(st.sampled_from(containers(instance))))
    operation = draw(st.sampled_from(["replace", "replace", "delete", "add", "none"]))
    if isinstance(target, dict):
        if operation == "replace" and target:
            key = draw(st.sampled_from(sorted(target)))
            target[key] = draw(JSON_SCALARS | JSON)
        elif operation == "delete" and target:
            del target[draw(st.sampled_from(sorted(target)))]
        elif operation == "add":
            target[draw(names | st.text(max_size=3))] = draw(JSON_SCALARS)
    elif isinstance(target, list):
        if operation == "replace" and target:
            target[draw(st.integers(0, len(target) - 1))] = draw(JSON_SCALARS | JSON)
        elif operation == "delete" and target:
            del target[draw(st.integers(0, len(target) - 1))]
        elif operation == "add":
            target.append(draw(JSON_SCALARS))
    return instance


def random_instances(params: tuple[ParamDescriptor, ...]) -> st.SearchStrategy[Any]:
    names = [p.name for p in params]
    keyed = (
        st.dictionaries(st.sampled_from(names), JSON_SCALARS | JSON, max_size=len(names))
        if names
        else st.just({})
    )
    return st.one_of(JSON, keyed, nearly_valid(params))


# --- helpers ------------------------------------------------------------------------------


def checker_and_validator(
    params: tuple[ParamDescriptor, ...],
) -> tuple[dict[str, Any], Callable[[Any], bool], Callable[[Any], bool]]:
    schema = tool_input_schema(params)
    fast = compile_object_checker(params, root_defs=schema.get("$defs"))
    return schema, fast, schema_validator(schema).is_valid


def echo(**kwargs: Any) -> dict[str, Any]:
    return kwargs


def register(params: tuple[ParamDescriptor, ...]) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_tool("probe", "Probe tool.", echo, *params)
    return registry


# --- properties ---------------------------------------------------------------------------


@SETTINGS
@given(params=param_lists(wild=True), data=st.data())
def test_checker_agrees_with_jsonschema_on_random_instances(params, data):
    _, fast, full = checker_and_validator(params)
    names = [p.name for p in params]
    keyed = st.dictionaries(
        st.sampled_from(names) if names else st.text(max_size=3),
        JSON_SCALARS | JSON,
        max_size=4,
    )
    for _ in range(5):
        instance = data.draw(JSON | keyed, label="instance")
        assert fast(instance) == full(instance), instance


@SETTINGS
@given(params=param_lists(), data=st.data())
def test_checker_agrees_with_jsonschema_on_nearly_valid_instances(params, data):
    _, fast, full = checker_and_validator(params)
    valid = data.draw(valid_objects(params), label="valid")
    assert fast(valid), valid
    assert full(valid), valid
    for _ in range(5):
        instance = data.draw(random_instances(params), label="instance")
        assert fast(instance) == full(instance), instance


@SETTINGS
@given(params=param_lists(), data=st.data())
def test_generated_valid_arguments_are_accepted(params, data):
    instance = data.draw(valid_objects(params), label="instance")
    registry = register(params)
    result = registry.call("probe", json.dumps(instance))
    assert result.ok, result.text
    received = {k: v for k, v in result.value.items() if not k.startswith("inj_")}
    assert received == instance


REPLACEMENTS: tuple[Any, ...] = ("3", 7, 1.5, True, None, [1], {"k": 1})


@SETTINGS
@given(params=param_lists(min_size=1), data=st.data())
def test_a_value_of_a_wrong_json_type_is_rejected_naming_its_path(params, data):
    instance = data.draw(valid_objects(params), label="instance")
    by_name = {p.name: p for p in params}
    eligible = sorted(k for k in instance if by_name[k].types)
    assume(eligible)
    name = data.draw(st.sampled_from(eligible), label="name")
    allowed = by_name[name].types
    wrong = [v for v in REPLACEMENTS if not any(TYPE_TESTS[t](v) for t in allowed)]
    if not by_name[name].required:
        wrong = [v for v in wrong if v is not None]  # null for an optional param means absent
    assume(wrong)
    instance[name] = data.draw(st.sampled_from(wrong), label="wrong")

    result = register(params).call("probe", json.dumps(instance))
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "invalid_arguments"
    assert f"$.{name}:" in result.error.message, result.error.message


@SETTINGS
@given(params=param_lists(wild=True) | param_lists())
def test_generated_schemas_pass_the_draft_2020_12_meta_schema(params):
    schema = tool_input_schema(params)
    Draft202012Validator.check_schema(schema)
    assert json.dumps(schema) == json.dumps(tool_input_schema(params))


# --- enum semantics (JSON Schema equality) ------------------------------------------------


@pytest.mark.parametrize(
    ("enum", "value", "expected"),
    [
        ((1,), 1.0, True),
        ((1.0,), 1, True),
        ((1,), True, False),
        ((True,), 1, False),
        ((0,), False, False),
        ((False,), 0.0, False),
        ((None,), 0, False),
        (("1",), 1, False),
        (([1, "a"],), [1.0, "a"], True),
        (([1],), [True], False),
        (({"k": 1},), {"k": 1.0}, True),
        (({"k": 1},), {"k": True}, False),
        (("a", 2.5), 2.5, True),
        (("a", 2.5), "2.5", False),
    ],
)
def test_enum_equality_matches_json_schema(enum, value, expected):
    params = (ParamDescriptor("v", "any", enum=enum),)
    _, fast, full = checker_and_validator(params)
    assert full({"v": value}) is expected
    assert fast({"v": value}) is expected


# --- format samples -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "value"), [(fmt, value) for fmt, values in FORMAT_SAMPLES.items() for value in values]
)
def test_format_samples_are_accepted(fmt, value):
    assert FORMAT_CHECKER.conforms(value, fmt)


@pytest.mark.parametrize(
    ("fmt", "value", "expected"),
    [
        ("date", "2024-02-30", False),
        ("date", "2024-01-01\n", False),
        ("date-time", "2024-01-02t03:04:05Z", True),
        ("date-time", "2024-01-02T03:04:05", False),
        ("time", "25:00:00", False),
        ("time", "12:34:56z", True),
        ("uuid", "123e4567-e89b-12d3-a456-42661417400", False),
        ("email", "not an email", False),
        ("ipv4", "300.1.1.1", False),
        ("ipv6", "::g", False),
        ("uri", "no scheme", False),
        pytest.param(
            "date-time",
            "2024-01-02T03:04:05z",
            True,
        ),
        pytest.param(
            "email",
            "a@example.com\n",
            False,
        ),
        pytest.param(
            "uri",
            "https://example.com/\n",
            False,
        ),
        pytest.param(
            "uuid",
            "----123e4567e89b12d3a456426614174000",
            False,
        ),
        pytest.param(
            "ipv6",
            "fe80::1%eth0",
            False,
        ),
    ],
)
def test_format_checks_through_a_tool(fmt, value, expected):
    assert FORMAT_CHECKER.conforms(value, fmt) is expected
    registry = register((ParamDescriptor("v", "string", format=fmt),))
    assert registry.call("probe", json.dumps({"v": value})).ok is expected
