"""tooldeck.providers._schema: the schema walking every provider module shares."""

import pytest

from tooldeck.providers import ExportError
from tooldeck.providers._schema import (
    converting,
    merge_all_of,
    object_root,
    redacted,
    resolve,
    types_of,
)

ROOT = {
    "$defs": {"Point": {"type": "object"}, "a/b": {"type": "string"}, "t~n": {"type": "integer"}},
    "definitions": {"Old": {"type": "number"}, "Leaf": 3},
}


def test_resolve_local_pointers_with_escapes():
    assert resolve(ROOT, "#/$defs/Point", "#") == {"type": "object"}
    assert resolve(ROOT, "#/$defs/a~1b", "#") == {"type": "string"}
    assert resolve(ROOT, "#/$defs/t~0n", "#") == {"type": "integer"}
    assert resolve(ROOT, "#/definitions/Old", "#") == {"type": "number"}
    assert resolve(ROOT, "#", "#") is ROOT


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("https://example.org/s.json", "only local"),
        ("#/$defs/Missing", "does not resolve"),
        ("#/definitions/Leaf", "does not point at a schema object"),
    ],
)
def test_resolve_refuses_what_it_cannot_inline(ref, message):
    with pytest.raises(ExportError, match=rf"^#/properties/p: .*{message}"):
        resolve(ROOT, ref, "#/properties/p")


def test_merge_all_of_folds_one_schema_and_refuses_several():
    node = {"allOf": [{"type": "string", "description": "inner"}], "description": "outer"}
    assert merge_all_of(node, "#") == {"type": "string", "description": "outer"}
    plain = {"type": "string"}
    assert merge_all_of(plain, "#") is plain
    for bad in ([{"type": "string"}, {"minLength": 1}], [], {"type": "string"}, [True]):
        with pytest.raises(ExportError, match="allOf with several schemas"):
            merge_all_of({"allOf": bad}, "#")


def test_types_of():
    assert types_of({}) == []
    assert types_of({"type": "string"}) == ["string"]
    assert types_of({"type": ["string", "null"]}) == ["string", "null"]


def test_object_root():
    assert object_root({"properties": {}}) == {"type": "object", "properties": {}}
    typed = ({"type": "object"}, {"$ref": "#/x"}, {"anyOf": []}, {"oneOf": []}, {"allOf": []})
    for schema in typed:
        assert object_root(schema) is schema


def test_redacted_touches_string_values_not_keys():
    def hide(text: str) -> str:
        return text.replace("k3y", "***")

    value = {"k3y": ["k3y", ("k3y", 1)], "n": None, "b": True, "s": "a k3y"}
    assert redacted(value, hide) == {"k3y": ["***", ["***", 1]], "n": None, "b": True, "s": "a ***"}


def test_converting_turns_crashes_into_export_errors():
    with pytest.raises(ExportError, match=r"malformed \(TypeError") as info, converting():
        list(5)
    assert isinstance(info.value.__cause__, TypeError)
    with pytest.raises(ExportError, match="nested too deeply"), converting():
        raise RecursionError
    with pytest.raises(KeyError), converting():  # not a schema problem: left alone
        raise KeyError("x")
    with pytest.raises(ExportError, match=r"^as raised$"), converting():
        raise ExportError("as raised")
