"""Reshaping an attached MCP tool (``use:`` + ``args``): the schema the model sees, what is sent."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tooldeck._errors import ToolFailed
from tooldeck._model import ArgumentReshape, McpToolUse, ToolSpec
from tooldeck._params import MISSING
from tooldeck._reshape import reshape, reshape_tool
from tooldeck.manifest._build import not_attached

REMOTE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "timezone": {"type": "string", "description": "IANA name"},
        "locale": {"type": "string", "enum": ["en", "fr"]},
        "count": {"type": "integer", "minimum": 1},
    },
    "required": ["timezone", "locale"],
    "additionalProperties": False,
}


def use(**arguments: ArgumentReshape) -> McpToolUse:
    template = ToolSpec(
        name="now", description="placeholder", handler=not_attached, input_schema={}
    )
    return McpToolUse(
        server="time", tool="get_current_time", template=template, arguments=arguments
    )


def test_unlisted_arguments_pass_through_unchanged():
    shaped = reshape(use(), REMOTE)
    assert shaped.schema == REMOTE
    assert shaped.forward({"timezone": "UTC", "locale": "en"}) == {
        "timezone": "UTC",
        "locale": "en",
    }
    assert shaped.problems == ()


def test_rename_redescribe_default_and_hide():
    shaped = reshape(
        use(
            timezone=ArgumentReshape(name="tz", description="Where", default="UTC"),
            locale=ArgumentReshape(value="fr"),
        ),
        REMOTE,
    )
    assert shaped.problems == ()
    props = shaped.schema["properties"]
    assert set(props) == {"tz", "count"}
    assert props["tz"] == {"type": "string", "description": "Where", "default": "UTC"}
    assert "required" not in shaped.schema  # timezone has a default now, locale is hidden
    assert shaped.schema["additionalProperties"] is False
    assert shaped.forward({}) == {"timezone": "UTC", "locale": "fr"}
    assert shaped.forward({"tz": "Asia/Tokyo", "count": 2}) == {
        "timezone": "Asia/Tokyo",
        "locale": "fr",
        "count": 2,
    }


def test_the_model_cannot_set_a_hidden_argument_or_use_an_old_name():
    shaped = reshape(
        use(timezone=ArgumentReshape(name="tz"), locale=ArgumentReshape(value="en")), REMOTE
    )
    assert shaped.forward({"tz": "UTC"}) == {"timezone": "UTC", "locale": "en"}
    assert shaped.refused == {
        "locale": "'locale' is set by the tool itself and cannot be given",
        "timezone": "'timezone' is called 'tz' here",
    }
    # Refused, never dropped, even by a caller that skipped the registry's validation.
    for sent, why in [
        ({"tz": "UTC", "timezone": "Europe/Paris"}, "'timezone' is called 'tz' here"),
        ({"tz": "UTC", "locale": "fr"}, "'locale' is set by the tool itself"),
        ({"tz": "UTC", "zone": "x"}, "unexpected argument 'zone'"),
    ]:
        with pytest.raises(ToolFailed, match=why) as raised:
            shaped.forward(sent)
        assert raised.value.kind == "invalid_arguments"


OPEN_SCHEMAS = [
    {},
    {"additionalProperties": True},
    {"additionalProperties": {"type": "string"}},
    {"patternProperties": {"^time": {"type": "string"}}},
    {"unevaluatedProperties": True},
]


@pytest.mark.parametrize("openness", OPEN_SCHEMAS)
def test_the_reshaped_schema_is_closed_whatever_the_remote_says(openness):
    remote = {
        "type": "object",
        "title": "get_current_timeArguments",
        "properties": {
            "timezone": {"type": "string", "title": "Timezone"},
            "locale": {"type": "string", "title": "Locale"},
        },
        **openness,
    }
    shaped = reshape(use(timezone=ArgumentReshape(name="tz")), remote)
    assert shaped.schema == {
        "type": "object",
        "properties": {"tz": {"type": "string"}, "locale": {"type": "string", "title": "Locale"}},
        "additionalProperties": False,
    }
    check = jsonschema.Draft202012Validator(shaped.schema)
    assert check.is_valid({"tz": "UTC", "locale": "en"})
    for sent in ({"timezone": "UTC"}, {"time_zone": "UTC"}, {"tz": "UTC", "other": 1}):
        assert not check.is_valid(sent)


def test_a_registry_refuses_old_names_hidden_and_unknown_arguments_naming_each():
    from tooldeck import ToolRegistry

    spec, _ = reshape_tool(
        use(timezone=ArgumentReshape(name="tz"), locale=ArgumentReshape(value="en")),
        {**REMOTE, "additionalProperties": True},
        "Current time",
        lambda forward: forward,
        side_effects=False,
    )
    assert spec is not None
    registry = ToolRegistry()
    registry.add(spec)
    assert registry.call("now", {"tz": "UTC"}).value == {"timezone": "UTC", "locale": "en"}
    result = registry.call("now", {"timezone": "UTC", "locale": "fr", "zone": 1})
    assert result.error is not None
    assert result.error.kind == "invalid_arguments"
    assert result.error.message == (
        "invalid arguments for tool 'now':\n"
        "- missing required argument 'tz'\n"
        "- 'locale' is set by the tool itself and cannot be given\n"
        "- 'timezone' is called 'tz' here\n"
        "- unexpected argument 'zone'; expected: tz, count\n"
        "Fix the arguments and call the tool again."
    )


def test_required_arguments_keep_their_new_names():
    shaped = reshape(use(timezone=ArgumentReshape(name="tz")), REMOTE)
    assert shaped.schema["required"] == ["tz", "locale"]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"zone": ArgumentReshape(name="z")},
            "has no argument 'zone' (its arguments: count, locale",
        ),
        ({"locale": ArgumentReshape(value="de")}, "value for 'locale': \"de\" does not fit"),
        ({"count": ArgumentReshape(default=0)}, "default for 'count': 0 does not fit"),
        ({"count": ArgumentReshape(name="locale")}, "renamed to 'locale', which the remote tool's"),
    ],
)
def test_entries_that_do_not_fit_the_live_schema_are_problems(arguments, expected):
    shaped = reshape(use(**arguments), REMOTE)
    assert len(shaped.problems) == 1
    assert expected in shaped.problems[0].message
    spec, problems = reshape_tool(
        use(**arguments), REMOTE, "x", lambda forward: not_attached, side_effects=False
    )
    assert spec is None
    assert problems == shaped.problems


def test_reshape_tool_takes_the_remote_description_unless_the_entry_has_one():
    def handler_for(forward):
        return forward

    spec, _ = reshape_tool(use(), REMOTE, "Current time", handler_for, side_effects=True)
    assert spec is not None
    assert spec.description == "Current time"
    assert spec.side_effects is True
    assert spec.input_schema == REMOTE
    assert spec.handler({"timezone": "UTC", "locale": "en"}) == {"timezone": "UTC", "locale": "en"}
    explicit = McpToolUse(
        server="time",
        tool="get_current_time",
        template=use().template,
        description="Mine",
        side_effects=False,
    )
    spec, _ = reshape_tool(explicit, REMOTE, "Current time", handler_for, side_effects=True)
    assert spec is not None
    assert (spec.description, spec.side_effects) == ("Mine", False)


def test_hostile_remote_schemas_give_problems_not_exceptions():
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(5000):
        deep = {"anyOf": [deep]}
    remote = {
        "type": "object",
        "properties": {
            "a": deep,
            "b": {"$ref": "#/$defs/missing"},
            "c": {"type": "nonsense"},
            "d": "not a schema",
        },
    }
    shaped = reshape(
        use(
            a=ArgumentReshape(default="x"),
            b=ArgumentReshape(value=1),
            c=ArgumentReshape(default=1),
            d=ArgumentReshape(name="e"),
        ),
        remote,
    )
    messages = " | ".join(p.message for p in shaped.problems)
    assert "default for 'a': the server's schema nests too deep to check it" in messages
    assert "'b'" in messages
    assert "'c'" in messages
    assert shaped.forward({"e": 1}) == {"d": 1}


def test_a_remote_schema_without_properties_takes_no_arguments():
    shaped = reshape(use(), {"type": "object"})
    assert shaped.schema == {"type": "object", "properties": {}, "additionalProperties": False}
    assert shaped.forward({}) == {}
    with pytest.raises(ToolFailed, match="unexpected argument 'x'"):
        shaped.forward({"x": 1})


_values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))


@given(
    st.dictionaries(st.sampled_from(["timezone", "locale", "count"]), _values, max_size=3),
    st.booleans(),
)
def test_whatever_the_reshaped_schema_accepts_reaches_the_server_valid(sent, hide_locale):
    """Property: forward(args) fits the remote schema whenever args fit the reshaped one."""
    arguments = {"timezone": ArgumentReshape(name="tz", default="UTC")}
    if hide_locale:
        arguments["locale"] = ArgumentReshape(value="en")
    shaped = reshape(use(**arguments), REMOTE)
    renamed = {("tz" if k == "timezone" else k): v for k, v in sent.items()}
    if not jsonschema.Draft202012Validator(shaped.schema).is_valid(renamed):
        return
    assert jsonschema.Draft202012Validator(REMOTE).is_valid(shaped.forward(renamed))


def test_missing_is_not_a_value():
    assert ArgumentReshape().hidden is False
    assert ArgumentReshape(value=None).hidden is True
    assert ArgumentReshape(default=None).default is None
    assert ArgumentReshape().default is MISSING


def test_a_listing_again_reuses_the_tools_it_compiled_before(monkeypatch):
    from mcp_types import Tool

    from tooldeck._model import McpServerSpec
    from tooldeck._shadowing import assign_names
    from tooldeck.mcp._attaching import listing as _servertools

    server = McpServerSpec(name="time", command=("x",), via="client")
    tools = [Tool(name=f"t{i}", description="d", input_schema={"type": "object"}) for i in range(3)]

    def build(compiled=None, listed=tools):
        names = assign_names([server], {"time": [t.name for t in listed]}, (), ())
        return _servertools.server_tools(
            server,
            listed,
            names,
            raw_handler=lambda remote: not_attached,
            use_handler=lambda name, remote, forward, timeout: not_attached,
            timeout=None,
            compiled=compiled,
        )

    first = build()
    compiles = []
    real = _servertools.prepare_tool
    monkeypatch.setattr(
        _servertools, "prepare_tool", lambda spec: compiles.append(spec.name) or real(spec)
    )
    changed = [*tools[:2], Tool(name="t2", description="new", input_schema={"type": "object"})]
    second = build(first.compiled, changed)
    assert compiles == ["t2"]  # only the tool whose listing changed
    assert second.prepared[:2] == first.prepared[:2]
    assert second.prepared[2].spec.description == "new"
