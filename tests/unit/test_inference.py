"""Deriving descriptors from handler signatures and docstrings."""

import enum
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated, Literal, Optional, TypedDict

import jsonschema

from tooldeck import ParamDescriptor, ToolContext, ToolRegistry
from tooldeck._inference import infer_params, snake_case


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass
class Address:
    street: str
    zip_code: int = 0


class Options(TypedDict, total=False):
    verbose: bool


def rich(  # noqa: PLR0917 - the point is many parameter kinds
    name: Annotated[str, "Who to greet"],
    count: int,
    ratio: float = 0.5,
    flag: bool = False,
    tags: list[str] | None = None,
    mode: Literal["fast", "slow"] = "fast",
    color: Color = Color.RED,
    when: date | None = None,
    address: Address | None = None,
    options: Options | None = None,
    meta: dict[str, int] | None = None,
    anything=None,
    project_dir: Path | None = None,
    ctx: ToolContext | None = None,
) -> str:
    """Do a rich thing.

    Args:
        name: overridden by Annotated.
        count: How many times.
        ratio: A ratio.
    """
    return "ok"


def by_name(params):
    return {p.name: p for p in params}


def test_types_descriptions_and_defaults_from_signature():
    params = by_name(infer_params(rich))
    assert "project_dir" not in params
    assert "ctx" not in params
    assert params["name"].description == "Who to greet"
    assert params["name"].required
    assert params["count"].type == "integer"
    assert params["count"].description == "How many times."
    assert params["ratio"].type == "number"
    assert params["ratio"].default == 0.5
    assert params["flag"].default is False
    assert params["tags"].type == ("array", "null")
    assert params["tags"].items == ParamDescriptor("items", "string")
    assert params["mode"].enum == ("fast", "slow")
    assert params["color"].enum == ("red", "blue")
    assert params["color"].default == "red"
    assert params["when"].format == "date"
    assert params["when"].type == ("string", "null")
    assert params["address"].type == ("object", "null")
    assert [p.name for p in params["address"].properties] == ["street", "zip_code"]
    assert params["address"].properties[0].required
    assert not params["address"].properties[1].required
    assert params["options"].properties[0].name == "verbose"
    assert params["meta"].schema is not None
    assert params["anything"].type == "any"


def test_inferred_schema_is_valid_and_tool_is_callable():
    registry = ToolRegistry()
    registry.add_tool(None, None, rich)
    spec = registry.get_tool("rich")
    assert spec is not None
    assert spec.description == "Do a rich thing."
    schema = registry.input_schema("rich")
    jsonschema.Draft202012Validator.check_schema(schema)
    result = registry.call(
        "rich",
        {
            "name": "a",
            "count": 2,
            "color": "blue",
            "when": "2026-11-22",
            "address": {"street": "Main"},
            "meta": {"x": 1},
        },
    )
    assert result.ok, result.text


def test_numpy_and_sphinx_docstrings_feed_descriptions():
    def numpy_style(path: str, depth: int = 1) -> str:
        """List things.

        Parameters
        ----------
        path : str
            Where to look.
        depth : int
            How deep.
        """
        return path

    def sphinx_style(path: str) -> str:
        """List things.

        :param path: Where to look.
        """
        return path

    assert [p.description for p in infer_params(numpy_style)] == ["Where to look.", "How deep."]
    assert [p.description for p in infer_params(sphinx_style)] == ["Where to look."]


def test_optional_without_default_is_required_but_nullable():
    def handler(x: Optional[int]) -> None:  # noqa: UP045 - testing the old spelling
        return None

    (param,) = infer_params(handler)
    assert param.required
    assert param.type == ("integer", "null")


def test_untyped_and_non_json_defaults():
    sentinel = object()

    def handler(a, b=sentinel, *args, c: Path = Path("x"), **kwargs) -> None:
        return None

    params = by_name(infer_params(handler))
    assert set(params) == {"a", "b", "c"}
    assert params["a"].type == "any"
    assert not params["b"].required
    assert not params["b"].has_default  # the handler's own default applies
    assert params["c"].default == "x"


def test_snake_case_names():
    assert snake_case("readFile") == "read_file"
    assert snake_case("ReadFile") == "read_file"
    assert snake_case("HTTPServer") == "http_server"
    assert snake_case("already_snake") == "already_snake"
    assert snake_case("getV2Data") == "get_v2_data"


QUALIFIED_TYPEDDICTS = """
from __future__ import annotations

from typing import NotRequired, Required, TypedDict


class Order(TypedDict):
    id: int
    note: NotRequired[str]


class Patch(TypedDict, total=False):
    title: str
    done: Required[bool]


def handler(order: Order, patch: Patch) -> None: ...
"""


def test_typeddict_qualifiers_hold_also_in_deferred_annotations(tmp_path):
    """Python 3.11 counts a stringified NotRequired key as required; the schema must not."""
    import importlib.util

    from tooldeck._schema import param_schema

    path = tmp_path / "qualified.py"
    path.write_text(QUALIFIED_TYPEDDICTS)
    spec = importlib.util.spec_from_file_location("qualified_typeddicts", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: annotations evaluate in it
    try:
        spec.loader.exec_module(module)
        order, patch = (param_schema(p) for p in infer_params(module.handler))
    finally:
        del sys.modules[spec.name]
    assert order["required"] == ["id"]
    assert order["properties"]["note"] == {"type": "string"}
    assert patch["required"] == ["done"]
    assert patch["properties"]["done"] == {"type": "boolean"}
