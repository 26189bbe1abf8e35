"""outputSchema from return annotations, and structuredContent a validating client accepts.

The ``mcp`` package's ``ClientSession.call_tool`` checks every successful
result's ``structuredContent`` against the tool's advertised ``outputSchema``
and raises on a mismatch, so every call below is also that check.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional, TypedDict

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from tests.unit.test_mcp_server import connected, text_of
from tooldeck import ResultSpec, ToolRegistry, ToolResult
from tooldeck.mcp import build_server, call_result
from tooldeck.mcp._serving.output import output_schema


class Point(TypedDict):
    x: int
    y: int


@dataclasses.dataclass
class Report:
    title: str
    lines: list[str] = dataclasses.field(default_factory=list)


class Owner(BaseModel):
    name: str


class Repo(BaseModel):
    owner: Owner
    stars: int = 0


def point() -> Point:
    return {"x": 1, "y": 2}


def report() -> Report:
    return Report("weekly", ["all good"])


def repo() -> Repo:
    return Repo(owner=Owner(name="ada"), stars=3)


def counts() -> dict[str, int]:
    return {"a": 1, "b": 2}


def anything() -> dict:
    return {"nested": {"ok": [1, None]}}


def evens(n: int) -> list[int]:
    return list(range(0, n, 2))


def points() -> list[Point]:
    return [{"x": 0, "y": 0}]


def pair() -> tuple[int, str]:
    return (1, "one")


def liar() -> dict[str, int]:
    return {"a": "not a number"}  # type: ignore[dict-item]


def liar_list() -> list[int]:
    return None  # type: ignore[return-value]


def text() -> str:
    return "plain"


def number() -> int:
    return 7


def nothing() -> None:
    return None


def maybe() -> Optional[dict]:  # noqa: UP045 - the spelling under test
    return None


def unannotated():  # type: ignore[no-untyped-def]
    return {"k": "v"}


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    for handler in (point, report, repo, counts, anything, evens, points, pair, liar, liar_list):
        reg.add_tool(handler.__name__, f"{handler.__name__}.", handler)
    for handler in (text, number, nothing, maybe, unannotated):
        reg.add_tool(handler.__name__, f"{handler.__name__}.", handler)
    reg.add_tool("selected", "Shaped.", counts, result=ResultSpec(select="a"))
    reg.add_tool("cut", "Cut.", counts, result=ResultSpec(max_chars=5))
    return reg


WITH_SCHEMA = {
    "point": False,
    "report": False,
    "repo": False,
    "counts": False,
    "evens": True,
    "points": True,
    "pair": True,
    "liar": False,
    "liar_list": True,
}
"""Tool -> whether its result is wrapped as {"result": ...}."""
WITHOUT = ["anything", "text", "number", "nothing", "maybe", "unannotated", "selected", "cut"]
"""``anything`` is a bare ``dict``: ``{"type": "object"}`` would tell a client nothing."""


async def test_object_and_array_annotations_get_an_output_schema_others_none():
    async with connected(build_server(registry())) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    for name, wrapped in WITH_SCHEMA.items():
        schema = tools[name].output_schema
        assert schema is not None, name
        assert schema["type"] == "object", name  # MCP requires an object outputSchema
        Draft202012Validator.check_schema(schema)
        if wrapped:
            assert schema["required"] == ["result"]
            assert schema["properties"]["result"]["type"] == "array"
    for name in WITHOUT:
        assert tools[name].output_schema is None, name


def test_the_schemas_are_the_parameter_inference_ones():
    reg = registry()

    def takes(a: Point, b: Report, c: dict[str, int], d: list[int]) -> None: ...

    reg.add_tool("takes", "Takes.", takes)
    params = reg.input_schema("takes")["properties"]
    assert output(reg, "point") == params["a"]
    assert output(reg, "report") == params["b"]
    assert output(reg, "counts") == params["c"]
    wrapped = output(reg, "evens")
    assert wrapped == {
        "type": "object",
        "properties": {"result": params["d"]},
        "required": ["result"],
        "additionalProperties": False,
    }
    repo_schema = output(reg, "repo")
    assert repo_schema["$defs"]["Owner"]["properties"]["name"] == {
        "title": "Name",
        "type": "string",
    }


def output(reg: ToolRegistry, name: str) -> dict[str, Any]:
    spec = reg.get_tool(name)
    assert spec is not None
    found = output_schema(spec)
    assert found is not None
    return found.schema


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("point", {"x": 1, "y": 2}),
        ("report", {"title": "weekly", "lines": ["all good"]}),
        ("repo", {"owner": {"name": "ada"}, "stars": 3}),
        ("counts", {"a": 1, "b": 2}),
        ("anything", {"nested": {"ok": [1, None]}}),
        ("points", {"result": [{"x": 0, "y": 0}]}),
        ("pair", {"result": [1, "one"]}),
    ],
)
async def test_structured_content_matches_the_schema_for_a_validating_client(name, expected):
    async with connected(build_server(registry())) as session:
        result = await session.call_tool(name, {})  # ClientSession validates it
    assert not result.is_error, text_of(result)
    assert result.structured_content == expected


async def test_a_wrapped_list_result_and_its_arguments():
    async with connected(build_server(registry())) as session:
        result = await session.call_tool("evens", {"n": 7})
    assert result.structured_content == {"result": [0, 2, 4, 6]}
    assert text_of(result) == "[0, 2, 4, 6]"


@pytest.mark.parametrize("name", ["liar", "liar_list"])
async def test_a_result_that_breaks_its_own_annotation_is_a_tool_error(name):
    async with connected(build_server(registry())) as session:
        result = await session.call_tool(name, {})  # a validating client raises on bad structure
        still = await session.call_tool("counts", {})
    assert result.is_error
    assert result.structured_content is None
    words = text_of(result)
    assert words.startswith(f"Error (invalid_output): tool {name!r} returned a result")
    assert "outputSchema" in words
    assert still.structured_content == {"a": 1, "b": 2}


async def test_tools_without_a_schema_keep_the_old_structure():
    async with connected(build_server(registry())) as session:
        plain = await session.call_tool("text", {})
        seven = await session.call_tool("number", {})
        free = await session.call_tool("unannotated", {})
        selected = await session.call_tool("selected", {})
    assert plain.structured_content is None
    assert seven.structured_content is None
    assert free.structured_content == {"k": "v"}  # a dict result, no schema: sent as it is
    assert text_of(selected) == "1"
    assert selected.structured_content is None


def test_a_bare_dict_has_no_output_schema_but_its_result_is_structure():
    def loose() -> dict[str, Any]:
        return {"k": 1}

    reg = registry()
    reg.add_tool("loose", "Loose.", loose)
    for name in ("anything", "loose"):
        spec = reg.get_tool(name)
        assert spec is not None
        assert output_schema(spec) is None, name
    result = call_result(ToolResult(True, '{"k": 1}', {"k": 1}, tool_name="loose"))
    assert result.structured_content == {"k": 1}
    assert not result.is_error


def test_the_output_check_answers_matches_without_jsonschema_and_explains_the_rest():
    reg = registry()
    spec = reg.get_tool("counts")
    assert spec is not None
    schema = output_schema(spec)
    assert schema is not None
    assert schema.fast is not None  # compiled: jsonschema is not asked about good results
    assert schema.problem({"a": 1, "b": 2}) is None
    assert "validator" not in schema.__dict__
    assert schema.problem({"a": "x"}) == "'x' is not of type 'integer' (at structuredContent['a'])"
    nested = output_schema(reg.get_tool("repo"))  # $defs and $ref: jsonschema judges alone
    assert nested is not None
    assert nested.fast is None
    assert nested.problem({"owner": {"name": "ada"}, "stars": 3}) is None
    assert nested.problem({"owner": {}, "stars": 3}) is not None


def test_external_tools_have_no_output_schema():
    reg = ToolRegistry()

    def forward(arguments: dict[str, Any]) -> dict[str, Any]:
        return dict(arguments)

    reg.add_tool(
        "remote",
        "An attached tool.",
        forward,
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
    )
    spec = reg.get_tool("remote")
    assert spec is not None
    assert output_schema(spec) is None


def test_a_schema_is_computed_once_per_spec():
    reg = registry()
    served = build_server(reg)
    spec = reg.get_tool("point")
    assert spec is not None
    assert served.output(spec) is served.output(spec)


def test_call_result_with_a_schema_wraps_and_checks():
    reg = registry()
    spec = reg.get_tool("evens")
    assert spec is not None
    schema = output_schema(spec)
    ok = call_result(ToolResult(True, "[2, 4]", [2, 4], tool_name="evens"), schema)
    assert ok.structured_content == {"result": [2, 4]}
    not_json = call_result(ToolResult(True, "Success.", None, tool_name="evens"), schema)
    assert not_json.is_error
    assert "not JSON" in text_of(not_json)


@pytest.mark.parametrize(
    "text",
    ['{"a": 1}', ' {"a": 1} ', "[1, 2]", "[1, 2] x", '"s"', "12", "NaN", "", "nope", "\ufeff{}"],
)
def test_the_result_text_is_read_back_as_json_loads_reads_it(text):
    from tooldeck.mcp._serving.output import _loads

    try:
        expected: Any = json.loads(text)
    except ValueError as exc:
        with pytest.raises(type(exc)):
            _loads(text)
    else:
        assert repr(_loads(text)) == repr(expected)
