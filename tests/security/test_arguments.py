"""Whatever a model sends as arguments ends as a result, quickly, with a short message.

Arguments are untrusted text. Numbers past Python's 4,300-digit limit, ``1e999``
(infinity), ``NaN``/``Infinity`` (which ``json.loads`` accepts but JSON does not), lone
UTF-16 surrogates, bytes that are not UTF-8 and extreme nesting must each become an
``invalid_arguments`` result with a message a model can act on, never an exception out of
``call``/``acall``/``call_many``/``acall_many``. Mappings passed from Python are held to the
same rules. Explanations are capped: a 300,000-element array of wrong items is described by
its first violations and a count of the rest, in milliseconds and a few KB.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import ParamDescriptor, ToolRegistry
from tooldeck._validation.explain import COUNT_LIMIT, MAX_VIOLATIONS
from tooldeck._validation.jsonparse import MAX_INT_DIGITS

BUDGET = 5.0  # a bound on hangs, not a speed target: the failure modes take minutes
MESSAGE_LIMIT = 4_096
"""Characters an invalid-arguments message may use, whatever the arguments were."""


def echo(**arguments: Any) -> dict[str, Any]:
    """Echo."""
    return arguments


PARAMS = (
    ParamDescriptor("s", "string", required=False),
    ParamDescriptor("n", "number", required=False),
    ParamDescriptor("i", "integer", required=False),
    ParamDescriptor("items", "array", items="integer", required=False),
    ParamDescriptor("obj", "object", required=False),
    ParamDescriptor("any", "any", required=False),
)


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_tool("echo", "Echo.", echo, *PARAMS)
    registry.add_tool("guarded", "Echo.", echo, *PARAMS, timeout=5.0)  # the policy path
    registry.add_tool(
        "fragment",
        "Echo.",
        echo,
        ParamDescriptor("items", schema={"type": "array", "items": {"type": "integer"}}),
    )
    registry.add_external_tool(
        "external",
        "Echo.",
        {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "integer"}}},
        },
        lambda arguments: arguments,
    )
    return registry


async def every_way(registry: ToolRegistry, name: str, arguments: Any) -> list:
    """The same call through every public entry point."""
    return [
        registry.call(name, arguments),
        await registry.acall(name, arguments),
        *registry.call_many([(name, arguments)]),
        *registry.call_many([(name, arguments)], strategy="parallel"),
        *await registry.acall_many([(name, arguments)]),
        *await registry.acall_many([{"name": name, "arguments": arguments}], strategy="sequential"),
    ]


async def assert_invalid(registry: ToolRegistry, arguments: Any, *words: str) -> None:
    for name in ("echo", "guarded"):
        for result in await every_way(registry, name, arguments):
            assert not result.ok
            assert result.error.kind == "invalid_arguments", result.text
            for word in words:
                assert word in result.error.message
            assert len(result.text) <= MESSAGE_LIMIT
            result.text.encode("utf-8")  # no lone surrogate leaks into the reply


# ------------------------------------------------------------------ numbers
async def test_integers_past_the_digit_limit(registry):
    huge = "1" * 5_000
    await assert_invalid(registry, '{"i": ' + huge + "}", "5,000 digits", "as a string")
    await assert_invalid(registry, '{"i": -' + huge + "}", "digits")
    await assert_invalid(registry, '{"any": [[' + huge + "]]}", "digits")
    await assert_invalid(registry, {"i": 10**5_000}, "digits")


async def test_integers_at_the_limit_are_fine(registry):
    at_limit = "9" * MAX_INT_DIGITS
    result = registry.call("echo", '{"i": ' + at_limit + "}")
    assert result.ok
    assert result.value["i"] == int(at_limit)
    padded = '{"s": "' + "x" * 10_000 + '", "i": 3}'  # long text, small integer
    assert registry.call("echo", padded).value["i"] == 3


@pytest.mark.parametrize("literal", ["1e999", "-1e999", "1e400", "1" * 400 + ".0"])
async def test_numbers_that_overflow_to_infinity(registry, literal):
    await assert_invalid(registry, '{"n": ' + literal + "}", "too large")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
async def test_nan_and_infinity_are_not_json(registry, constant):
    await assert_invalid(registry, '{"n": ' + constant + "}", constant, "not valid JSON")
    await assert_invalid(registry, '{"any": {"deep": [' + constant + "]}}", constant)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
async def test_nan_and_infinity_in_python_mappings(registry, value):
    await assert_invalid(registry, {"n": value}, "not valid JSON")
    await assert_invalid(registry, {"any": {"deep": [1, value]}}, "not valid JSON")
    await assert_invalid(registry, {"any": (value,)}, "not valid JSON")


def test_finite_floats_still_pass(registry):
    assert registry.call("echo", '{"n": 1.5e300}').value == {"n": 1.5e300}
    assert registry.call("echo", {"n": -0.0}).ok


def test_lenient_coercion_does_not_make_infinities(registry):
    lenient = ToolRegistry(lenient=True)
    lenient.add_tool("echo", "Echo.", echo, *PARAMS)
    for text in ("nan", "inf", "-Infinity", "1e999"):
        assert lenient.call("echo", {"n": text}).error.kind == "invalid_arguments"
    assert lenient.call("echo", {"n": "2.5"}).value == {"n": 2.5}
    assert lenient.call("echo", {"obj": '{"a": NaN}'}).error.kind == "invalid_arguments"
    assert lenient.call("echo", {"obj": '{"a": 1}'}).value == {"obj": {"a": 1}}


# --------------------------------------------------------------------- text
@pytest.mark.parametrize(
    "arguments",
    [
        '{"s": "\\ud800"}',
        '{"s": "\\udfff tail"}',
        '{"s": "\\uDC00\\uD800"}',  # a pair in the wrong order is two lone halves
        '{"\\ud800": 1}',
        '{"any": ["ok", {"k": "\\ud83d"}]}',
        '{"s": "\ud800"}',  # a raw surrogate in a Python str
        '{"s": "né\udc80"}',
    ],
)
async def test_lone_surrogates_are_rejected(registry, arguments):
    await assert_invalid(registry, arguments, "lone UTF-16 surrogate")


async def test_lone_surrogates_in_python_mappings(registry):
    await assert_invalid(registry, {"s": "\ud800"}, "surrogate")
    await assert_invalid(registry, {"\udc00": "x"}, "surrogate")
    await assert_invalid(registry, {"any": ["\ud800"]}, "surrogate")


def test_valid_surrogate_pairs_and_non_ascii_text_pass(registry):
    assert registry.call("echo", '{"s": "\\ud83d\\ude00"}').value == {"s": "😀"}
    assert registry.call("echo", '{"s": "Žluťoučký kůň 😀"}').value == {"s": "Žluťoučký kůň 😀"}
    assert registry.call("echo", '{"s": "a\\\\ud800"}').value == {"s": "a\\ud800"}  # text


@pytest.mark.parametrize(
    ("data", "word"),
    [
        (b'{"s": "\xff"}', "UTF-8"),
        (b'{"s": "\xc3"}', "UTF-8"),
        (b'{"s": "\xed\xa0\x80"}', "UTF-8"),  # an encoded surrogate (CESU-8)
        (bytearray(b'{"s": "\x80"}'), "UTF-8"),
        (b"\xff\xfe{\x00}\x00", "UTF-8"),  # UTF-16: JSON between systems is UTF-8
    ],
)
async def test_bytes_that_are_not_utf8(registry, data, word):
    await assert_invalid(registry, data, word)


def test_utf8_bytes_with_or_without_bom_pass(registry):
    assert registry.call("echo", '{"s": "é"}'.encode()).value == {"s": "é"}
    assert registry.call("echo", b'\xef\xbb\xbf{"s": "x"}').value == {"s": "x"}


# ----------------------------------------------------------------- structure
@pytest.mark.parametrize("depth", [2_000, 100_000])
async def test_deep_nesting_in_text(registry, depth):
    text = '{"any": ' + "[" * depth + "]" * depth + "}"
    await assert_invalid(registry, text, "nested too deeply")


async def test_deep_and_cyclic_python_mappings(registry):
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    await assert_invalid(registry, {"any": deep}, "nested too deeply")
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    await assert_invalid(registry, {"obj": cyclic}, "nested too deeply")


async def test_non_string_argument_names(registry):
    await assert_invalid(registry, {1: "x"}, "names must be strings")
    await assert_invalid(registry, {"obj": {("a",): 1}}, "names must be strings")


# ------------------------------------------------------------- explanations
def big_wrong_array(size: int = 300_000) -> list[str]:
    return ["x"] * size


@pytest.mark.parametrize("name", ["echo", "guarded", "fragment", "external"])
@pytest.mark.parametrize("as_text", [True, False], ids=["json", "mapping"])
async def test_a_huge_array_of_wrong_items_is_explained_briefly(registry, name, as_text):
    arguments: Any = {"items": big_wrong_array()}
    if as_text:
        arguments = json.dumps(arguments)
    started = time.perf_counter()
    results = [registry.call(name, arguments), await registry.acall(name, arguments)]
    assert time.perf_counter() - started < 2 * BUDGET
    for result in results:
        message = result.error.message
        assert result.error.kind == "invalid_arguments"
        assert len(result.text) <= MESSAGE_LIMIT
        assert "$.items[0]: expected integer" in message
        assert f"$.items[{MAX_VIOLATIONS - 1}]" in message
        assert f"$.items[{MAX_VIOLATIONS}]" not in message
        assert f"and at least {COUNT_LIMIT:,} more violations" in message


async def test_huge_arrays_through_the_batch_entry_points(registry):
    arguments = {"items": big_wrong_array()}
    started = time.perf_counter()
    results = [
        *registry.call_many([("echo", arguments), ("fragment", arguments)]),
        *await registry.acall_many([("echo", arguments), ("external", arguments)]),
    ]
    assert time.perf_counter() - started < 4 * BUDGET
    assert {r.error.kind for r in results} == {"invalid_arguments"}
    assert all(len(r.text) <= MESSAGE_LIMIT for r in results)


@pytest.mark.parametrize("name", ["echo", "fragment", "external"])
def test_one_wrong_item_at_the_end_of_a_huge_array_is_found_quickly(registry, name):
    arguments = {"items": [*range(299_999), "x"]}
    result, elapsed = _timed(lambda: registry.call(name, arguments))
    assert elapsed < BUDGET
    assert "$.items[299999]: expected integer" in result.error.message
    assert "more violation" not in result.error.message


def test_a_small_count_is_exact(registry):
    result = registry.call("echo", {"items": ["x"] * (MAX_VIOLATIONS + 15)})
    assert "and 15 more violations" in result.error.message
    one_more = registry.call("echo", {"items": ["x"] * (MAX_VIOLATIONS + 1)})
    assert "and 1 more violation\n" in one_more.error.message


def test_huge_values_are_shown_cut_short(registry):
    for value in ("x" * 1_000_000, ["y"] * 300_000, {f"k{i}": "v" * 100 for i in range(10_000)}):
        result, elapsed = _timed(lambda v=value: registry.call("echo", {"i": v}))
        assert elapsed < BUDGET
        assert "$.i: expected integer" in result.error.message
        assert len(result.text) < 1_000


def test_many_unexpected_arguments_are_counted_not_listed(registry):
    arguments = {f"extra{i}": 1 for i in range(100_000)}
    result, elapsed = _timed(lambda: registry.call("echo", arguments))
    assert elapsed < BUDGET
    assert "and 99,990 more" in result.error.message
    assert len(result.text) <= MESSAGE_LIMIT


def test_unique_items_of_objects_are_checked_in_linear_time():
    registry = ToolRegistry()
    schema = {"type": "array", "uniqueItems": True}
    registry.add_tool("t", "T.", echo, ParamDescriptor("items", schema=schema))
    distinct = [{"id": i} for i in range(50_000)]  # stock jsonschema: pairwise, minutes
    result, elapsed = _timed(lambda: registry.call("t", {"items": distinct}))
    assert elapsed < BUDGET
    assert result.ok
    result = registry.call("t", {"items": [*distinct, {"id": 7}]})
    assert "non-unique" in result.error.message
    assert registry.call("t", {"items": [1, True]}).ok  # JSON: true is not 1
    assert not registry.call("t", {"items": [1, 1.0]}).ok  # but 1.0 is


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"type": "integer"}, "unevaluatedItems": False},
        {
            "type": "object",
            "additionalProperties": {"type": "integer"},
            "unevaluatedProperties": False,
        },
    ],
    ids=["unevaluatedItems", "unevaluatedProperties"],
)
def test_unevaluated_keywords_are_linear(schema):
    """Stock jsonschema looks keys up in a list: 30,000 keys take seconds, 300,000 hours."""
    registry = ToolRegistry()
    registry.add_tool("t", "T.", echo, ParamDescriptor("value", schema=schema))
    many: Any = list(range(30_000))
    if schema["type"] == "object":
        many = {f"k{i}": i for i in range(30_000)}
    result, elapsed = _timed(lambda: registry.call("t", {"value": many}))
    assert elapsed < BUDGET
    assert result.ok


def _timed(call):
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


# ------------------------------------------------------------------ fuzzing
TOKENS = [
    "{", "}", "[", "]", ",", ":", '"', " ", "\\", "\\u", "\\ud800", "\\udc00",
    "\\ud83d\\ude00", "NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" * 4_400,
    "0.5", "-", "true", "null", '"s"', '"i"', '"n"', '"items"', '"any"', '"obj"',
    "\ud800", "é", "\x00", "\ufeff",
]  # fmt: skip

fragments = st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=25).map("".join)


def values(*, huge: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Argument mappings: JSON values, NaN, infinities, surrogates (and huge integers)."""
    leaves = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats()
        | st.text(max_size=5)
        | st.sampled_from(["\ud800", math.nan, math.inf])
    )
    if huge:  # built lazily: hypothesis prints strategies, and repr() refuses such ints
        leaves |= st.sampled_from([5_000, 10_000]).map(lambda digits: -(10**digits))
    return st.dictionaries(
        st.sampled_from(["s", "n", "i", "items", "any", "obj", "zzz"]),
        st.recursive(
            leaves,
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
            max_leaves=8,
        ),
        max_size=4,
    )


as_text = values().map(json.dumps)  # json.dumps writes NaN and escapes surrogates
ARGUMENTS = st.one_of(
    fragments,
    fragments.map(lambda text: "{" + text + "}"),
    as_text,
    as_text.map(str.encode),
    values(huge=True),
    st.binary(max_size=30),
)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(arguments=ARGUMENTS)
def test_any_argument_text_gives_ok_or_invalid_arguments(registry, arguments):
    for name in ("echo", "guarded", "fragment", "external"):
        result = registry.call(name, arguments)
        assert result.ok or result.error.kind == "invalid_arguments", result.text
        assert len(result.text) <= MESSAGE_LIMIT or result.ok
        result.text.encode("utf-8")


# ------------------------------------------- the bounded jsonschema agrees
SAFE_PATTERNS = ("^[a-z]+", "ab", "[0-9]", "^x")  # no $: Python's $ also matches before "\n"


@st.composite
def schemas(draw: st.DrawFn, depth: int = 2) -> dict[str, Any]:
    """Schemas over the keywords tooldeck reimplements, and the ones its fast skip reads."""
    schema: dict[str, Any] = {}
    if draw(st.booleans()):
        schema["type"] = draw(
            st.sampled_from(["string", "integer", "number", "array", "object", "boolean"])
            | st.lists(st.sampled_from(["string", "integer", "null"]), min_size=1, max_size=2)
        )
    keywords = draw(
        st.sets(
            st.sampled_from(
                ["enum", "minimum", "maxLength", "pattern", "format", "minItems", "uniqueItems"]
                + (["items", "prefixItems", "properties", "patternProperties"] if depth else [])
                + ["additionalProperties", "required", "unevaluatedItems"]
            ),
            max_size=4,
        )
    )
    inner = schemas(depth - 1) if depth else st.just({"type": "integer"})
    for keyword in sorted(keywords):
        if keyword == "enum":
            schema[keyword] = draw(st.lists(JSON_LEAVES, min_size=1, max_size=3))
        elif keyword == "minimum":
            schema[keyword] = draw(st.integers(-3, 3))
        elif keyword in ("maxLength", "minItems"):
            schema[keyword] = draw(st.integers(0, 3))
        elif keyword == "pattern":
            schema[keyword] = draw(st.sampled_from(SAFE_PATTERNS))
        elif keyword == "format":
            schema[keyword] = draw(st.sampled_from(["date", "email", "uuid", "unknown"]))
        elif keyword == "uniqueItems":
            schema[keyword] = True
        elif keyword == "items":
            schema[keyword] = draw(inner)
        elif keyword == "prefixItems":
            schema[keyword] = draw(st.lists(inner, min_size=1, max_size=2))
        elif keyword == "properties":
            schema[keyword] = draw(st.dictionaries(st.sampled_from("abx"), inner, max_size=2))
        elif keyword == "patternProperties":
            schema[keyword] = {draw(st.sampled_from(SAFE_PATTERNS)): draw(inner)}
        elif keyword == "additionalProperties":
            schema[keyword] = draw(st.booleans() | inner)
        elif keyword == "required":
            schema[keyword] = draw(st.lists(st.sampled_from("abx"), max_size=2, unique=True))
        elif keyword == "unevaluatedItems":
            schema[keyword] = draw(st.booleans())
    return schema


JSON_LEAVES = st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from([1.0, 2.5])
JSON_LEAVES |= st.sampled_from(["", "ab", "x1", "2024-02-29", "a@b.co", "Z"])
INSTANCES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "x", "xy", "9"]), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None)
@given(schema=schemas(), instances=st.lists(INSTANCES, min_size=1, max_size=4))
def test_bounded_keywords_agree_with_stock_jsonschema(schema, instances):
    from jsonschema import Draft202012Validator

    from tooldeck._validation.formats import FORMAT_CHECKER
    from tooldeck._validation.validator import schema_validator

    ours = schema_validator(schema)
    stock = Draft202012Validator(schema, format_checker=FORMAT_CHECKER)
    for instance in instances:
        assert ours.is_valid(instance) == stock.is_valid(instance), (schema, instance)
        mine = {(tuple(e.path), e.validator) for e in ours.iter_errors(instance)}
        theirs = {(tuple(e.path), e.validator) for e in stock.iter_errors(instance)}
        assert mine == theirs, (schema, instance)
