"""TD411: lint compares each declared manifest parameter with the handler's signature."""

from __future__ import annotations

import enum
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest

from tooldeck import Diagnostic, load_manifests
from tooldeck._accepts import lossless_types
from tooldeck._lint.runner import LintSettings, lint
from tooldeck._lint.signature import accepted_types

HERE = __name__


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclass
class Point:
    x: int
    y: int


class Movie(TypedDict):
    title: str


def takes_int(value: int) -> int:
    return value


def takes_str(value: str) -> str:
    return value


def takes_float(value: float) -> float:
    return value


def takes_float_or_none(value: float | None = None) -> float | None:
    return value


def takes_list(value: list[int]) -> list[int]:
    return value


def takes_dict(value: dict[str, int]) -> dict[str, int]:
    return value


def takes_optional(value: Optional[str]) -> str | None:  # noqa: UP045 - the typing spelling
    return value


def takes_path(value: Path) -> str:
    return str(value)


def takes_point(value: Point) -> Point:
    return value


def takes_any(value: Any) -> Any:
    return value


def takes_unannotated(value):  # type: ignore[no-untyped-def]
    return value


def takes_literal(value: Literal["a", "b"]) -> str:
    return value


def takes_int_or_none(value: int | None = None) -> int | None:
    return value


def takes_int_five(value: int = 5) -> int:
    return value


def takes_int_none_default(value: int = None) -> int:  # type: ignore[assignment]  # noqa: RUF013
    return value


def takes_two(a: str, b: int = 0) -> str:
    return a * b


def takes_kwargs(a: str, **rest: Any) -> str:
    return a


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "tools.yaml"
    path.write_text("version: 1\ntools:\n" + textwrap.dedent(body), encoding="utf-8")
    return path


def tool(handler: str, params: str, name: str = "probe") -> str:
    """One tool entry; ``params`` are flow mappings, one a line."""
    lines = "".join(f"      - {p}\n" for p in params.strip().splitlines())
    return (
        f"  - name: {name}\n"
        f"    handler: {HERE}:{handler}\n"
        "    description: A tool for checking handler signatures.\n"
        f"    params:\n{lines}"
    )


def run(tmp_path: Path, body: str) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """(load diagnostics, TD411 lint diagnostics) for one manifest."""
    path = write(tmp_path, body)
    registry, result = load_manifests([path], allow_handlers=[HERE], environ={})
    found = lint(result, registry, LintSettings())
    return result.diagnostics, [d for d in found if d.code == "TD411"]


def td411(tmp_path: Path, handler: str, param: str) -> list[Diagnostic]:
    loaded, found = run(tmp_path, tool(handler, param))
    assert loaded == []
    return found


def line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)


# --- 1. a declared type the annotation cannot take -------------------------------------------


@pytest.mark.parametrize(
    ("handler", "declared"),
    [
        ("takes_int", "string"),
        ("takes_int", "number"),
        ("takes_int", "boolean"),
        ("takes_str", "integer"),
        ("takes_list", "object"),
        ("takes_dict", "array"),
        ("takes_point", "array"),
        ("takes_path", "integer"),
        ("takes_literal", "integer"),
        ("takes_float", "string"),
    ],
)
def test_a_declared_type_the_annotation_cannot_take_is_reported(tmp_path, handler, declared):
    found = td411(tmp_path, handler, f"{{name: value, type: {declared}, description: The value}}")
    assert len(found) == 1, [d.format() for d in found]
    diagnostic = found[0]
    assert f'type "{declared}"' in diagnostic.message
    assert diagnostic.location is not None
    assert diagnostic.location.json_path == "$.tools[0].params[0].type"
    assert diagnostic.location.line == 7  # the parameter's line, after 6 lines of the tool
    assert diagnostic.severity.value == "error"  # a call sending such a value fails
    assert diagnostic.tool_name == "probe"


@pytest.mark.parametrize("declared", ["integer", '[integer, "null"]'])
def test_a_type_taken_only_by_a_lossless_conversion_is_a_warning(tmp_path, declared):
    handler = "takes_float" if "null" not in declared else "takes_float_or_none"
    (diagnostic,) = td411(tmp_path, handler, f"{{name: value, type: {declared}, description: V X}}")
    assert diagnostic.severity.value == "warning"
    assert diagnostic.location is not None
    assert diagnostic.location.json_path == "$.tools[0].params[0].type"
    assert "may send only integers, each converted without loss" in diagnostic.message
    better = 'type "number"' if "null" not in declared else 'type ["number", "null"]'
    assert f"declare {better} unless" in diagnostic.message


def test_a_configured_severity_relevels_every_form(tmp_path):
    body = tool("takes_int", "{name: value, type: string, description: V X}", name="one")
    body += tool("takes_float", "{name: value, type: integer, description: V X}", name="two")
    path = write(tmp_path, body)
    registry, result = load_manifests([path], allow_handlers=[HERE], environ={})
    found = lint(result, registry, LintSettings(severity={"TD411": "warning"}))
    assert [d.severity.value for d in found if d.code == "TD411"] == ["warning", "warning"]


def test_the_message_names_the_handler_and_what_it_takes(tmp_path):
    (diagnostic,) = td411(tmp_path, "takes_int", "{name: value, type: string, description: X val}")
    assert diagnostic.message == (
        f"parameter 'value' is declared type \"string\" but handler {HERE}:takes_int "
        'annotates it `int`, which takes type "integer"; change the declared type or the '
        "annotation"
    )


@pytest.mark.parametrize(
    ("handler", "declared"),
    [
        ("takes_int", "integer"),
        ("takes_float", "number"),
        ("takes_optional", '[string, "null"]'),
        ("takes_optional", "string"),
        ("takes_path", "string"),
        ("takes_list", "array"),
        ("takes_dict", "object"),
        ("takes_point", "object"),
        ("takes_any", "object"),
        ("takes_any", '[string, integer, "null"]'),
        ("takes_unannotated", "boolean"),
        ("takes_literal", "string"),
        ("takes_int_or_none", '[integer, "null"]'),
    ],
)
def test_matching_declarations_say_nothing(tmp_path, handler, declared):
    assert (
        td411(tmp_path, handler, f"{{name: value, type: {declared}, description: The value}}") == []
    )


def test_a_declared_any_says_nothing(tmp_path):
    assert td411(tmp_path, "takes_int", "{name: value, type: any, description: The value}") == []


# --- 2. null for a handler that does not expect None -----------------------------------------


def test_a_nullable_type_for_a_plain_annotation_is_reported_at_the_type(tmp_path):
    (diagnostic,) = td411(
        tmp_path, "takes_str", '{name: value, type: [string, "null"], description: The value}'
    )
    assert diagnostic.location is not None
    assert diagnostic.location.json_path == "$.tools[0].params[0].type"
    assert 'type ["string", "null"]' in diagnostic.message
    assert "may send null" in diagnostic.message
    assert "None" not in diagnostic.message


def test_a_nullable_type_with_a_handler_default_of_none_is_fine(tmp_path):
    found = td411(
        tmp_path,
        "takes_int_none_default",
        '{name: value, type: [integer, "null"], description: V X}',
    )
    assert found == []


def test_default_null_with_an_optional_annotation_is_fine(tmp_path):
    found = td411(
        tmp_path,
        "takes_int_or_none",
        "{name: value, type: integer, default: null, description: The value}",
    )
    assert found == []


def test_default_null_with_a_handler_default_of_its_own_is_fine(tmp_path):
    found = td411(
        tmp_path, "takes_int_five", "{name: value, type: integer, default: null, description: V X}"
    )
    assert found == []


def test_default_null_for_a_plain_annotation_without_default_is_reported(tmp_path):
    path = write(
        tmp_path, tool("takes_int", "{name: value, type: integer, default: null, description: V X}")
    )
    registry, result = load_manifests([path], allow_handlers=[HERE], environ={})
    assert result.diagnostics == []
    (diagnostic,) = [d for d in lint(result, registry, LintSettings()) if d.code == "TD411"]
    assert diagnostic.location is not None
    assert diagnostic.location.json_path == "$.tools[0].params[0].default"
    assert diagnostic.location.line == line_of(path, "default: null")
    assert "default null" in diagnostic.message
    assert "None" not in diagnostic.message


# --- 3. declared parameters the handler does not accept, also in tools that failed ----------


def test_every_unaccepted_parameter_of_a_tool_with_another_error_is_reported(tmp_path):
    params = """
        {name: a, description: The text to repeat}
        {name: b, type: integer, default: "many", description: How many times}
        {name: extra, description: Something the handler lacks}
        {name: more, description: Something else it lacks}
    """
    loaded, found = run(tmp_path, tool("takes_two", params))
    assert [d.code for d in loaded] == ["TD108"]  # the tool did not build
    assert [d.location.json_path for d in found if d.location] == [
        "$.tools[0].params[2].name",
        "$.tools[0].params[3].name",
    ]
    assert found[0].message == (
        f"declared parameter 'extra' is not accepted by handler {HERE}:takes_two "
        "(parameters: a, b); rename it or add **kwargs"
    )
    assert found[0].tool_name == "probe"


def test_a_td110_the_loader_reported_is_not_repeated(tmp_path):
    params = """
        {name: a, description: The text to repeat}
        {name: extra, description: Something the handler lacks}
        {name: more, description: Something else it lacks}
    """
    loaded, found = run(tmp_path, tool("takes_two", params))
    assert [(d.code, d.location.json_path) for d in loaded if d.location] == [
        ("TD110", "$.tools[0].params[1].name")
    ]
    assert [d.location.json_path for d in found if d.location] == ["$.tools[0].params[2].name"]


def test_kwargs_accept_any_declared_parameter(tmp_path):
    params = """
        {name: a, description: The text to repeat}
        {name: b, type: integer, default: "many", description: How many times}
        {name: extra, description: Something the handler lacks}
    """
    loaded, found = run(tmp_path, tool("takes_kwargs", params))
    assert [d.code for d in loaded] == ["TD108"]
    assert found == []


def test_a_handler_the_loader_could_not_resolve_is_left_alone(tmp_path):
    params = "{name: extra, description: Something the handler lacks}"
    loaded, found = run(tmp_path, tool("no_such_function", params))
    assert [d.code for d in loaded] == ["TD312"]
    assert found == []


def test_a_clean_manifest_with_several_tools_says_nothing(tmp_path):
    body = tool(
        "takes_two",
        "{name: a, description: The text}\n{name: b, type: integer, "
        "default: 2, description: How many times}",
        name="one",
    )
    body += tool(
        "takes_optional", '{name: value, type: [string, "null"], description: V X}', name="two"
    )
    loaded, found = run(tmp_path, body)
    assert loaded == []
    assert found == []


def test_the_rule_can_be_switched_off(tmp_path):
    path = write(tmp_path, tool("takes_int", "{name: value, type: string, description: V X}"))
    registry, result = load_manifests([path], allow_handlers=[HERE], environ={})
    found = lint(result, registry, LintSettings(severity={"TD411": "off"}))
    assert [d for d in found if d.code == "TD411"] == []


# --- the table -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (int, {"integer"}),
        (float, {"number", "integer"}),
        (str, {"string"}),
        (bool, {"boolean"}),
        (Path, {"string"}),
        (Color, {"string"}),
        (Level, {"integer"}),
        (list[int], {"array"}),
        (tuple[int, ...], {"array"}),
        (set[str], {"array"}),
        (Sequence[int], {"array"}),
        (dict[str, int], {"object"}),
        (Mapping[str, int], {"object"}),
        (Point, {"object"}),
        (Movie, {"object"}),
        (Optional[int], {"integer", "null"}),  # noqa: UP045
        (int | str, {"integer", "string"}),
        (Literal["a", 1, None], {"string", "integer", "null"}),
        (Annotated[int, "meta"], {"integer"}),
        (Any, None),
        (object, None),
        (bytes, None),
        ("Unresolved", None),
    ],
)
def test_accepted_types(annotation, expected):
    found = accepted_types(annotation)
    assert (None if found is None else set(found)) == expected


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (float, {"integer"}),
        (Optional[float], {"integer"}),  # noqa: UP045
        (float | int, set()),  # int takes integers as they are
        (int, set()),
        (str, set()),
        (Any, set()),
        (Literal[1.5], set()),
    ],
)
def test_lossless_types(annotation, expected):
    assert set(lossless_types(annotation)) == expected
