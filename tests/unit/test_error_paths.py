"""A RegistrationError says which field of a declaration was wrong, as data (``path``).

The path runs from the object being declared: a ``ParamDescriptor`` says
``("enum",)``, a ``ToolSpec`` holding it as its second parameter
``("params", 1, "enum")``. The manifest builder reports at that place in the
file, so nothing maps error codes back to YAML keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tooldeck import DuplicateToolError, Param, RegistrationError, ToolSpec, load_manifests
from tooldeck._model import PromptSpec, ResultSpec
from tooldeck._prepare import prepare_tool
from tooldeck._prompts import prepare_prompt
from tooldeck._yaml import read_yaml


def handler(a: int = 0, o: Any = None, b: str = "") -> object:
    return a, o, b


def refused(*params: Param, **options: Any) -> RegistrationError:
    spec = ToolSpec(name="t", description="T.", handler=handler, params=params, **options)
    with pytest.raises(RegistrationError) as raised:
        prepare_tool(spec)
    return raised.value


def declared(*args: Any, **kwargs: Any) -> RegistrationError:
    with pytest.raises(RegistrationError) as raised:
        Param(*args, **kwargs)
    return raised.value


# ------------------------------------------------------------------- a descriptor
@pytest.mark.parametrize(
    ("args", "kwargs", "path"),
    [
        (("a", "integr"), {}, ("type",)),
        (("a",), {"enum": []}, ("enum",)),
        (("a",), {"inject": "nothing"}, ("inject",)),
        (("a",), {"pattern": "[a-"}, ("pattern",)),
        (("a",), {"min_length": -1}, ("min_length",)),
        (("a",), {"schema": {"type": "int"}}, ("schema", "type")),
        (("a",), {"min_length": 5, "max_length": 1}, ()),  # the fields contradict each other
        (("a", "array"), {"items": "integr"}, ("items", "type")),
        (
            ("o", "object"),
            {"properties": {"x": "string", "y": "integr"}},
            ("properties", 1, "type"),
        ),
    ],
)
def test_a_descriptor_names_its_wrong_field(
    args: tuple[Any, ...], kwargs: dict[str, Any], path: tuple[str | int, ...]
) -> None:
    assert declared(*args, **kwargs).path == path


# ------------------------------------------------------------------------ a tool spec
def test_a_bad_default_is_located_at_every_depth_with_the_others_in_also() -> None:
    error = refused(
        Param("a", "integer", default=0, minimum=1),
        Param("o", "object", properties=(Param("s"), Param("n", "integer", default="x"))),
        Param("b", "string", default="z", enum=["x", "y"]),
    )
    assert error.path == ("params", 0, "default")
    assert [e.path for e in error.also] == [
        ("params", 1, "properties", 1, "default"),
        ("params", 2, "default"),
    ]
    assert error.also[0].field_path == ("properties", "n")  # the older, by-name form stays


@pytest.mark.parametrize(
    ("params", "options", "code", "path"),
    [
        ((Param("a", "integer"), Param("a", "integer")), {}, "TD103", ("params", 1)),
        ((Param("a", default="${b}"), Param("b")), {}, "TD106", ("params", 0, "default")),
        ((Param("zzz"),), {}, "TD110", ("params", 0)),
        (
            (Param("o", "object", properties=(Param("s"), Param("d", inject="project_dir"))),),
            {},
            "TD105",
            ("params", 0, "properties", 1, "inject"),
        ),
        (
            (
                Param(
                    "o",
                    "array",
                    items=Param("i", "object", properties=(Param("x", "integer", default="x"),)),
                ),
            ),
            {},
            "TD108",
            ("params", 0, "items", "properties", 0, "default"),
        ),
        ((), {"result": ResultSpec(select="[?")}, "TD109", ("result", "select")),
        ((Param("a", "integer"),), {"name": "bad\nname"}, "TD100", ("name",)),
    ],
)
def test_a_tool_spec_names_the_field_that_was_wrong(
    params: tuple[Param, ...], options: dict[str, Any], code: str, path: tuple[str | int, ...]
) -> None:
    options = {"name": "t", **options}
    spec = ToolSpec(description="T.", handler=handler, params=params, **options)
    with pytest.raises(RegistrationError) as raised:
        prepare_tool(spec)
    assert (raised.value.code, raised.value.path) == (code, path)


def test_a_required_handler_parameter_nobody_supplies_is_the_handlers_fault() -> None:
    def needs(x: int) -> int:
        return x

    with pytest.raises(RegistrationError) as raised:
        prepare_tool(ToolSpec(name="t", description="T.", handler=needs))
    assert (raised.value.code, raised.value.path) == ("TD111", ("handler",))


def test_a_prompt_names_its_template() -> None:
    with pytest.raises(RegistrationError) as raised:
        prepare_prompt(PromptSpec(name="p", description="P.", template="Hi {who}"))
    assert (raised.value.code, raised.value.path) == ("TD113", ("template",))


# --------------------------------------------------------------------------- under()
def test_under_moves_the_error_and_its_also_and_nothing_else() -> None:
    inner = RegistrationError("x", param="a", code="TD104", path=("enum",))
    error = RegistrationError(
        "m", tool_name="t", param="a", code="TD108", path=("default",), also=(inner,)
    )
    moved = error.under("params", 2)
    assert moved.path == ("params", 2, "default")
    assert moved.also[0].path == ("params", 2, "enum")
    assert (moved.message, str(moved), moved.code, moved.param) == (
        error.message,
        str(error),
        "TD108",
        "a",
    )
    assert error.path == ("default",)  # the original is untouched
    duplicate = DuplicateToolError("d", kind="prompt", name="p", group="g", owner=None)
    lifted = duplicate.under("prompts", 0)
    assert isinstance(lifted, DuplicateToolError)
    assert (lifted.kind, lifted.name, lifted.group, lifted.owner, lifted.path) == (
        "prompt",
        "p",
        "g",
        None,
        ("prompts", 0),
    )


# ------------------------------------------------------------------------- manifests
NESTED = """\
version: 1
tools:
  - name: t
    handler: tests.unit.test_error_paths:handler
    description: A tool whose object parameter has a field with contradicting bounds.
    params:
      - name: o
        type: object
        description: An object parameter.
        properties:
          - {name: s, description: "A field."}
          - {name: n, type: integer, minimum: 5, maximum: 1, description: "A field."}
"""


def test_a_nested_mistake_in_a_manifest_is_shown_where_it_is_written(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(NESTED, encoding="utf-8")
    _, result = load_manifests([path], environ={}, allow_handlers=["tests.unit"])
    (diagnostic,) = result.diagnostics
    assert diagnostic.code == "TD104"
    assert diagnostic.location is not None
    assert diagnostic.location.line == 12
    assert diagnostic.location.json_path == "$.tools[0].params[0].properties[1].name"


def test_existing_trims_a_path_to_what_the_document_has(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(NESTED, encoding="utf-8")
    doc = read_yaml(str(path))
    assert doc.existing(("tools", 0, "params", 0, "properties", 1, "name")) == (
        "tools",
        0,
        "params",
        0,
        "properties",
        1,
        "name",
    )
    assert doc.existing(("tools", 0, "params", 3, "default")) == ("tools", 0, "params")
    assert doc.existing(("tools", 0, "result", "select")) == ("tools", 0)
