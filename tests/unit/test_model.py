"""ParamDescriptor normalisation and the frozen data model."""

import dataclasses

import pytest

from tooldeck import MISSING, Param, ParamDescriptor, RegistrationError, ToolSpec
from tooldeck._params import normalize_type


def test_positional_fields_in_java_addtool_order():
    param = ParamDescriptor("path", "string", True, "File path to read")
    assert (param.name, param.type, param.required, param.description) == (
        "path",
        "string",
        True,
        "File path to read",
    )
    assert Param is ParamDescriptor


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("str", "string"),
        ("int", "integer"),
        ("float", "number"),
        ("bool", "boolean"),
        ("list", "array"),
        ("tuple", "array"),
        ("dict", "object"),
        ("any", "any"),
        ("Integer", "integer"),
        ("null", "null"),
    ],
)
def test_type_aliases_normalise(alias, canonical):
    assert ParamDescriptor("x", alias).type == canonical


def test_type_lists_normalise_and_dedupe():
    assert ParamDescriptor("x", ["str", "string", "null"]).type == ("string", "null")
    assert ParamDescriptor("x", ["int"]).type == "integer"
    assert ParamDescriptor("x", ["int", "any"]).type == "any"


def test_unknown_type_is_rejected_naming_allowed_types():
    with pytest.raises(RegistrationError) as info:
        ParamDescriptor("x", "strng")
    message = str(info.value)
    assert '"strng"' in message
    for allowed in ("string", "integer", "number", "boolean", "array", "object", "any"):
        assert allowed in message
    assert info.value.param == "x"
    assert info.value.code == "TD101"


def test_default_makes_param_optional():
    assert ParamDescriptor("x", "integer", True, default=3).required is False
    assert ParamDescriptor("x", "integer").default is MISSING
    assert ParamDescriptor("x", "integer", default=None).has_default


def test_items_and_properties_shortcuts():
    param = ParamDescriptor(
        "p", "object", properties={"a": "int", "b": ParamDescriptor("ignored", "string")}
    )
    assert [(p.name, p.type) for p in param.properties] == [("a", "integer"), ("b", "string")]
    assert ParamDescriptor("xs", "array", items="int").items == ParamDescriptor("items", "integer")


def test_schema_fragment_sets_type():
    assert ParamDescriptor("f", schema={"anyOf": [{"type": "integer"}]}).type == "any"
    assert ParamDescriptor("f", schema={"type": "integer"}).type == "integer"
    with pytest.raises(RegistrationError):
        ParamDescriptor("f", schema=[1, 2])  # type: ignore[arg-type]


def test_project_dir_is_injected_and_inject_names_are_checked():
    assert ParamDescriptor("project_dir").injected == "project_dir"
    assert ParamDescriptor("project_dir").inject is None
    assert ParamDescriptor("cfg", inject="config").inject == "config"
    with pytest.raises(RegistrationError, match="inject='secrets'"):
        ParamDescriptor("x", inject="secrets")


def test_empty_name_is_rejected():
    with pytest.raises(RegistrationError):
        ParamDescriptor("")


def test_specs_are_frozen():
    spec = ToolSpec(name="t", description="d", handler=print)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "u"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ParamDescriptor("x").name = "y"  # type: ignore[misc]


def test_normalize_type_empty_list():
    with pytest.raises(RegistrationError):
        normalize_type([])
