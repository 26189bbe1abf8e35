"""The call path: parsing, validation messages, defaults, conversion, injection, results."""

import asyncio
import enum
import threading
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import pydantic
import pytest

from tooldeck import (
    Param,
    RegistrationError,
    ResultSpec,
    ToolCallError,
    ToolContext,
    ToolRegistry,
)


def add_order(order_id: str, quantity: int = 1, express: bool = False) -> dict:
    """Add an order."""
    return {"order_id": order_id, "quantity": quantity, "express": express}


@pytest.fixture
def registry():
    registry = ToolRegistry()
    registry.add_tool(None, None, add_order)
    return registry


# ------------------------------------------------------------------ arguments
@pytest.mark.parametrize(
    "arguments",
    [
        '{"order_id": "O-1", "quantity": 3}',
        {"order_id": "O-1", "quantity": 3},
        b'{"order_id": "O-1", "quantity": 3}',
    ],
)
def test_arguments_as_json_text_mapping_or_bytes(registry, arguments):
    result = registry.call("add_order", arguments)
    assert result.ok
    assert result.value == {"order_id": "O-1", "quantity": 3, "express": False}
    assert result.text == '{"order_id": "O-1", "quantity": 3, "express": false}'


def test_none_and_empty_arguments_mean_no_arguments():
    registry = ToolRegistry()
    registry.add_tool("now", "No args.", lambda: "ok")
    assert registry.call("now").ok
    assert registry.call("now", "").ok
    assert registry.call("now", "  ").ok


def test_caller_mapping_is_not_mutated(registry):
    arguments = {"order_id": "O-1"}
    registry.call("add_order", arguments)
    assert arguments == {"order_id": "O-1"}


def test_malformed_json_reports_parser_position(registry):
    result = registry.call("add_order", '{"order_id": "O-1",}')
    assert not result.ok
    assert result.error.kind == "invalid_arguments"
    assert "line 1 column 20" in result.error.message
    assert "not valid JSON" in result.text


@pytest.mark.parametrize("arguments", ["[1, 2]", '"text"', "3"])
def test_non_object_json_is_rejected(registry, arguments):
    result = registry.call("add_order", arguments)
    assert result.error.kind == "invalid_arguments"
    assert "must be a JSON object" in result.error.message


def test_every_violation_is_reported_with_its_path(registry):
    result = registry.call("add_order", {"quantity": "3", "express": 1, "colour": "red"})
    message = result.error.message
    assert result.error.kind == "invalid_arguments"
    assert "missing required argument 'order_id'" in message
    assert '$.quantity: expected integer, got string "3"' in message
    assert "$.express: expected boolean, got integer 1" in message
    assert "unexpected argument 'colour'; expected: order_id, quantity, express" in message
    assert "call the tool again" in message


def test_unknown_tool_lists_close_matches_and_available(registry):
    result = registry.call("add_ordr", {})
    assert result.error.kind == "unknown_tool"
    assert "tool 'add_ordr' does not exist" in result.text
    assert "Did you mean 'add_order'?" in result.text
    assert "Available tools: add_order." in result.text
    assert "No tools are registered" in ToolRegistry().call("x").text


def test_constraint_messages_are_model_readable():
    registry = ToolRegistry()
    registry.add_tool(
        "q",
        "Q.",
        lambda **kw: kw,
        Param("order_id", description="Order id, O-YYYYMMDD", pattern=r"^O-\d{8}$"),
        Param("days", "integer", default=1, minimum=0, maximum=30),
        Param("mode", enum=["a", "b"], default="a"),
        Param("when", format="date", required=False),
        Param("tags", "array", items="string", max_items=2, required=False),
        Param("name", min_length=2, required=False),
    )
    result = registry.call(
        "q",
        {
            "order_id": "X",
            "days": -1,
            "mode": "c",
            "when": "2026-13-01",
            "tags": ["a", "b", "c"],
            "name": "x",
        },
    )
    message = result.error.message
    assert "missing" not in message
    assert r'$.order_id: "X" does not match the pattern ^O-\d{8}$' in message
    assert "$.days: -1 is less than the minimum of 0" in message
    assert '$.mode: "c" is not one of "a", "b"' in message
    assert '$.when: "2026-13-01" is not a valid date' in message
    assert "$.tags: must have at most 2 items, got 3" in message
    assert "$.name: must have at least 2 characters, got 1" in message
    assert registry.call("q", {"order_id": "O-20261122", "when": "2026-11-22"}).ok


def test_missing_required_includes_description():
    registry = ToolRegistry()
    registry.add_tool(
        "q", "Q.", lambda order_id: order_id, Param("order_id", description="Order id")
    )
    assert "missing required argument 'order_id' (Order id)" in registry.call("q", {}).text


def test_nested_object_paths():
    registry = ToolRegistry()
    registry.add_tool(
        "ship",
        "Ship.",
        lambda **kw: kw,
        Param("to", "object", properties=[Param("city"), Param("zip", "integer")]),
    )
    result = registry.call("ship", {"to": {"city": 3, "extra": 1}})
    message = result.error.message
    assert "$.to.city: expected string, got integer 3" in message
    assert "missing required argument 'zip' in $.to" in message
    assert "unexpected argument 'extra' in $.to" in message


# ------------------------------------------------------------------- defaults
def test_defaults_apply_and_placeholders_use_earlier_values():
    registry = ToolRegistry()
    registry.add_tool(
        "backup",
        "Backup.",
        lambda path, target, count, tags: {
            "path": path,
            "target": target,
            "count": count,
            "tags": tags,
        },
        Param("path"),
        Param("target", default="${path}.bak"),
        Param("count", "integer", default=2),
        Param("tags", "array", default=[]),
    )
    result = registry.call("backup", {"path": "a.txt"})
    assert result.value == {"path": "a.txt", "target": "a.txt.bak", "count": 2, "tags": []}
    assert registry.call("backup", {"path": "a", "target": "b"}).value["target"] == "b"
    # Mutable defaults are copied per call.
    first = registry.call("backup", {"path": "a"}).value["tags"]
    first.append("mutated")
    assert registry.call("backup", {"path": "a"}).value["tags"] == []


def test_placeholder_referring_to_later_or_unknown_param_is_a_registration_error():
    registry = ToolRegistry()
    with pytest.raises(RegistrationError, match="later parameter 'b'") as info:
        registry.add_tool("t", "T.", lambda a, b: a, Param("a", default="${b}"), Param("b"))
    assert info.value.code == "TD106"
    with pytest.raises(RegistrationError, match="unknown parameter 'zz'"):
        registry.add_tool("t", "T.", lambda a: a, Param("a", default="${zz}"))


def test_placeholder_needing_a_missing_value_is_an_argument_error():
    registry = ToolRegistry()
    registry.add_tool(
        "t", "T.", lambda **kw: kw, Param("a", required=False), Param("b", default="${a}.x")
    )
    result = registry.call("t", {})
    assert result.error.kind == "invalid_arguments"
    assert "its default needs 'a'" in result.error.message


def test_placeholder_result_is_validated():
    registry = ToolRegistry()
    registry.add_tool(
        "t", "T.", lambda **kw: kw, Param("a"), Param("b", default="${a}", max_length=3)
    )
    assert registry.call("t", {"a": "abc"}).ok
    result = registry.call("t", {"a": "abcdef"})
    assert result.error.kind == "invalid_arguments"
    assert "became 'abcdef'" in result.error.message


@pytest.mark.parametrize(
    ("param", "why"),
    [
        (
            Param("n", "integer", default="three"),
            'default "three" is not valid: expected integer, got string "three"',
        ),
        (Param("n", "integer", default=5, maximum=3), "default 5 is greater than the maximum of 3"),
        (Param("s", default="x", enum=["a", "b"]), 'default "x" is not one of "a", "b"'),
        (
            Param("s", default="abc", pattern="^[0-9]+$"),
            'default "abc" does not match the pattern ^[0-9]+$',
        ),
    ],
)
def test_invalid_defaults_are_rejected_at_registration_saying_why(param, why):
    with pytest.raises(RegistrationError) as info:
        ToolRegistry().add_tool("t", "T.", lambda **kw: kw, param)
    assert info.value.code == "TD108"
    assert info.value.message == f"parameter {param.name!r}: {why}"


def test_every_invalid_default_of_a_tool_is_in_one_registration_error():
    with pytest.raises(RegistrationError) as info:
        ToolRegistry().add_tool(
            "t",
            "T.",
            lambda **kw: kw,
            Param("a", "integer", default=0, minimum=1),
            Param("o", "object", properties=(Param("n", "integer", default="x"),)),
            Param("b", "string", default="z", enum=["x", "y"]),
        )
    error = info.value
    assert (error.param, error.field_path) == ("a", ())
    assert [(e.param, e.field_path, e.code) for e in error.also] == [
        ("o", ("properties", "n"), "TD108"),
        ("b", (), "TD108"),
    ]
    assert "parameter 'o': field n: default" in str(error)
    assert "(and 2 more: " in str(error)


def test_optional_without_default_leaves_handler_default():
    registry = ToolRegistry()
    registry.add_tool("t", "T.", lambda limit=7: limit, Param("limit", "integer", required=False))
    assert registry.call("t", {}).value == 7
    assert "limit" not in registry.input_schema("t").get("required", [])


# ----------------------------------------------------------------- signatures
def test_declared_param_the_handler_cannot_accept():
    with pytest.raises(RegistrationError, match="not accepted by the handler") as info:
        ToolRegistry().add_tool("t", "T.", lambda a: a, Param("a"), Param("b"))
    assert info.value.code == "TD110"
    assert info.value.param == "b"


def test_required_handler_param_nothing_supplies():
    with pytest.raises(RegistrationError, match="handler parameter 'b' is required") as info:
        ToolRegistry().add_tool("t", "T.", lambda a, b: a, Param("a"))
    assert info.value.code == "TD111"


def test_kwargs_handler_accepts_any_declared_param():
    registry = ToolRegistry()
    registry.add_tool("t", "T.", lambda **kw: kw, Param("a"), Param("b-c"))
    assert registry.call("t", {"a": "1", "b-c": "2"}).value == {"a": "1", "b-c": "2"}


# ----------------------------------------------------------------- conversion
class Level(enum.Enum):
    LOW = "low"
    HIGH = "high"


@dataclass
class Point:
    x: float
    y: float


class Model(pydantic.BaseModel):
    a: int


def test_values_are_converted_to_annotated_types():
    seen = {}

    def handler(  # noqa: PLR0917
        path: Path,
        day: date,
        at: datetime,
        level: Level,
        point: Point,
        points: list[Point],
        ratio: float,
        count: int,
        model: Model,
        levels: dict[str, Level],
    ) -> str:
        seen.update(locals())
        return "ok"

    registry = ToolRegistry()
    registry.add_tool(None, None, handler)
    result = registry.call(
        "handler",
        {
            "path": "a/b.txt",
            "day": "2026-11-22",
            "at": "2026-11-22T10:00:00Z",
            "level": "high",
            "point": {"x": 1, "y": 2.5},
            "points": [{"x": 0, "y": 0}],
            "ratio": 1,
            "count": 3.0,
            "model": {"a": 1},
            "levels": {"k": "low"},
        },
    )
    assert result.ok, result.text
    assert seen["path"] == Path("a/b.txt")
    assert seen["day"] == date(2026, 11, 22)
    assert seen["at"].year == 2026
    assert seen["at"].tzinfo is not None
    assert seen["level"] is Level.HIGH
    assert seen["point"] == Point(1, 2.5)
    assert seen["points"] == [Point(0, 0)]
    assert isinstance(seen["ratio"], float)
    assert isinstance(seen["count"], int)
    assert seen["model"] == Model(a=1)
    assert seen["levels"] == {"k": Level.LOW}


def test_conversion_failure_is_invalid_arguments():
    def handler(day: date) -> str:
        return str(day)

    registry = ToolRegistry()
    registry.add_tool("t", "T.", handler, Param("day"))  # no format: validation lets it through
    result = registry.call("t", {"day": "yesterday"})
    assert result.error.kind == "invalid_arguments"
    assert '$.day: the string "yesterday" is not an ISO 8601 date' in result.error.message


# ------------------------------------------------------------------ injection
def test_project_dir_and_context_are_injected_and_hidden(tmp_path):
    seen = {}

    def handler(text: str, project_dir: Path, ctx: ToolContext) -> str:
        seen["project_dir"] = project_dir
        seen["ctx"] = ctx
        return text

    registry = ToolRegistry(project_dir=tmp_path, config={"k": "v"})
    registry.add_tool(None, None, handler)
    assert list(registry.input_schema("handler")["properties"]) == ["text"]
    result = registry.call("handler", {"text": "x"}, context={"user": "ada"}, call_id="c-1")
    assert result.ok
    assert result.call_id == "c-1"
    assert seen["project_dir"] == tmp_path.resolve()
    ctx = seen["ctx"]
    assert (ctx.tool_name, ctx.call_id, ctx.project_dir) == ("handler", "c-1", tmp_path.resolve())
    assert ctx.config["k"] == "v"
    assert ctx.extra == {"user": "ada"}


def test_project_dir_as_string_and_explicit_injections(tmp_path):
    def handler(project_dir: str, cfg: dict, name: str, cid: str) -> list:
        return [project_dir, cfg["k"], name, cid]

    registry = ToolRegistry(project_dir=tmp_path, config={"k": 1})
    registry.add_tool(
        "t",
        "T.",
        handler,
        Param("cfg", inject="config"),
        Param("name", inject="tool_name"),
        Param("cid", inject="call_id"),
    )
    assert registry.input_schema("t")["properties"] == {}
    assert registry.call("t", {}, call_id="z").value == [str(tmp_path.resolve()), 1, "t", "z"]


def test_missing_project_dir_is_a_clear_error():
    def handler(project_dir: Path) -> str:
        return str(project_dir)

    registry = ToolRegistry()
    registry.add_tool(None, None, handler)
    result = registry.call("handler")
    assert result.error.kind == "execution_error"
    assert "no" in result.error.message
    assert "project directory" in result.error.message

    def optional(project_dir: Path | None = None) -> str:
        return str(project_dir)

    registry.add_tool(None, None, optional)
    assert registry.call("optional").text == "None"


def test_injected_names_cannot_be_sent_by_the_model(tmp_path):
    def handler(project_dir: Path) -> str:
        return str(project_dir)

    registry = ToolRegistry(project_dir=tmp_path)
    registry.add_tool(None, None, handler)
    result = registry.call("handler", {"project_dir": "/etc"})
    assert result.error.kind == "invalid_arguments"


# -------------------------------------------------------------------- lenient
def test_lenient_coercion_is_off_by_default_and_opt_in(registry):
    sloppy = {"order_id": "O-1", "quantity": "3", "express": "true"}
    assert registry.call("add_order", sloppy).error.kind == "invalid_arguments"

    lenient = ToolRegistry(lenient=True)
    lenient.add_tool(None, None, add_order)
    assert lenient.call("add_order", sloppy).value == {
        "order_id": "O-1",
        "quantity": 3,
        "express": True,
    }

    per_tool = ToolRegistry()
    per_tool.add_tool(None, None, add_order, lenient=True)
    assert per_tool.call("add_order", sloppy).ok
    strict_tool = ToolRegistry(lenient=True)
    strict_tool.add_tool(None, None, add_order, lenient=False)
    assert not strict_tool.call("add_order", sloppy).ok


def test_lenient_json_strings_and_numbers():
    def handler(items: list[int], options: dict, ratio: float) -> list:
        return [items, options, ratio]

    registry = ToolRegistry(lenient=True)
    registry.add_tool(None, None, handler)
    result = registry.call("handler", {"items": "[1, 2]", "options": '{"a": 1}', "ratio": "0.5"})
    assert result.value == [[1, 2], {"a": 1}, 0.5]
    assert not registry.call("handler", {"items": "1, 2", "options": {}, "ratio": 1}).ok


# -------------------------------------------------------------------- results
@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain text", "plain text"),
        (None, "Success."),
        (3, "3"),
        (True, "true"),
        ({"a": [1, 2]}, '{"a": [1, 2]}'),
        (Point(1, 2), '{"x": 1, "y": 2}'),
        (Model(a=1), '{"a": 1}'),
        (Level.LOW, '"low"'),
        ({"when": date(2026, 1, 2), "path": Path("a")}, '{"when": "2026-01-02", "path": "a"}'),
        ({3, 1, 2}, "[1, 2, 3]"),
        ({"name": "čaj"}, '{"name": "čaj"}'),
    ],
)
def test_results_serialise_to_text(value, text):
    registry = ToolRegistry()
    registry.add_tool("t", "T.", lambda: value)
    result = registry.call("t")
    assert result.ok, result.text
    assert result.text == text
    assert result.value == value


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (b"\x00\x01", "returned bytes"),
        (float("nan"), "not valid JSON"),
        (object(), "not JSON-serialisable"),
    ],
)
def test_unserialisable_results_are_clear_errors(value, fragment):
    registry = ToolRegistry()
    registry.add_tool("t", "T.", lambda: value)
    result = registry.call("t")
    assert result.error.kind == "execution_error"
    assert fragment in result.error.message


def test_handler_exceptions_become_results_with_original_kept():
    def boom(path: str) -> str:
        raise FileNotFoundError(f"no such file: {path}")

    registry = ToolRegistry()
    registry.add_tool(None, None, boom)
    result = registry.call("boom", {"path": "x"})
    assert not result.ok
    assert result.error.kind == "execution_error"
    assert result.error.message == "FileNotFoundError: no such file: x"
    assert isinstance(result.error.exception, FileNotFoundError)
    assert result.value is None


def test_system_exit_in_a_handler_does_not_escape():
    def leave() -> None:
        raise SystemExit(3)

    registry = ToolRegistry()
    registry.add_tool(None, None, leave)
    assert registry.call("leave").error.kind == "execution_error"


def test_raise_errors_per_call_and_per_registry():
    def boom() -> None:
        raise ValueError("bad")

    registry = ToolRegistry()
    registry.add_tool(None, None, boom)
    with pytest.raises(ToolCallError) as info:
        registry.call("boom", raise_errors=True)
    assert info.value.kind == "execution_error"
    assert info.value.tool_name == "boom"
    assert isinstance(info.value.__cause__, ValueError)

    raising = ToolRegistry(raise_errors=True)
    raising.add_tool(None, None, boom)
    with pytest.raises(ToolCallError):
        raising.call("boom")
    with pytest.raises(ToolCallError) as info:
        raising.call("missing")
    assert info.value.kind == "unknown_tool"
    assert not raising.call("boom", raise_errors=False).ok


def test_result_shaping_select_format_and_max_chars():
    registry = ToolRegistry()
    data = {"items": [{"name": "a"}, {"name": "b"}], "total": 2}
    registry.add_tool("names", "N.", lambda: data, result={"select": "items[].name"})
    registry.add_tool("raw", "R.", lambda: "text", result=ResultSpec(format="json"))
    registry.add_tool("long", "L.", lambda: "x" * 100, result=ResultSpec(max_chars=10))
    assert registry.call("names").text == '["a", "b"]'
    assert registry.call("names").value == data
    assert registry.call("raw").text == '"text"'
    text = registry.call("long").text
    assert text.startswith("x" * 10 + "\n[... truncated 90 characters")
    with pytest.raises(RegistrationError, match="JMESPath") as info:
        registry.add_tool("bad", "B.", lambda: 1, result={"select": "items[?"})
    assert info.value.code == "TD109"


def test_return_direct_is_exposed():
    registry = ToolRegistry()
    registry.add_tool("t", "T.", lambda: "x", return_direct=True)
    assert registry.call("t").return_direct


# ---------------------------------------------------------------------- async
async def slow_double(n: int) -> int:
    await asyncio.sleep(0)
    return n * 2


def test_async_handler_under_sync_call():
    registry = ToolRegistry()
    registry.add_tool(None, None, slow_double)
    assert registry.call("slow_double", {"n": 2}).value == 4


async def test_async_handler_under_acall_and_sync_call_inside_a_loop():
    registry = ToolRegistry()
    registry.add_tool(None, None, slow_double)
    assert (await registry.acall("slow_double", {"n": 3})).value == 6
    # A sync call from inside a running loop still completes (on a helper thread).
    assert registry.call("slow_double", {"n": 4}).value == 8


async def test_sync_handlers_under_acall_run_in_a_worker_unless_inline():
    threads = {}

    def where(tag: str) -> str:
        threads[tag] = threading.current_thread().name
        return tag

    with ToolRegistry() as registry:
        registry.add_tool("worker", "W.", where)
        registry.add_tool("inline", "I.", where, inline=True)
        assert (await registry.acall("worker", {"tag": "w"})).ok
        assert (await registry.acall("inline", {"tag": "i"})).ok
    assert threads["w"].startswith("tooldeck-tool")
    assert threads["i"] == threading.current_thread().name


async def test_an_inline_sync_tool_answers_acall_as_call_does():
    def pick(n: int, word: str = "x", ctx: ToolContext | None = None) -> dict:
        if n < 0:
            raise ValueError("negative")
        return {"n": n, "word": word, "call_id": ctx.call_id if ctx else None}

    registry = ToolRegistry()
    registry.secrets.add("s3cr3t-value")
    registry.add_tool("pick", "P.", pick, inline=True)
    arguments = [
        {"n": 1},
        '{"n": 2, "word": "y"}',
        {"n": "3"},
        {"n": -1},
        "{bad",
        {"n": 1, "word": "s3cr3t-value"},
    ]
    for args in arguments:
        sync = registry.call("pick", args, call_id="c1")
        sent = await registry.acall("pick", args, call_id="c1")
        assert (sent.ok, sent.text, sent.value) == (sync.ok, sync.text, sync.value), args
        assert sent.call_id == sync.call_id == "c1"
        assert "s3cr3t-value" not in sent.text
    with pytest.raises(ToolCallError, match="negative"):
        await registry.acall("pick", {"n": -1}, raise_errors=True)


async def test_acall_errors_and_unknown_tools():
    async def fail() -> None:
        raise ConnectionError("down")

    registry = ToolRegistry()
    registry.add_tool(None, None, fail)
    result = await registry.acall("fail")
    assert result.error.kind == "execution_error"
    assert isinstance(result.error.exception, ConnectionError)
    assert (await registry.acall("nope")).error.kind == "unknown_tool"
    assert (await registry.acall("fail", "{bad")).error.kind == "invalid_arguments"
    with pytest.raises(ToolCallError):
        await registry.acall("fail", raise_errors=True)


# ------------------------------------------------------------- external tools
async def test_external_tool_with_its_own_schema():
    seen = {}

    async def proxy(arguments: dict, ctx: ToolContext) -> dict:
        seen["ctx"] = ctx
        return {"echo": arguments}

    registry = ToolRegistry()
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["q"],
    }
    registry.add_external_tool("remote_search", "Search remotely.", schema, proxy)
    assert registry.input_schema("remote_search") == schema
    result = await registry.acall("remote_search", {"q": "x", "n": 2})
    assert result.value == {"echo": {"q": "x", "n": 2}}
    assert seen["ctx"].tool_name == "remote_search"
    bad = await registry.acall("remote_search", {"n": 0})
    assert bad.error.kind == "invalid_arguments"
    assert "missing required argument 'q'" in bad.error.message
    assert "$.n: 0 is less than the minimum of 1" in bad.error.message
    assert registry.call("remote_search", {"q": "sync"}).ok
    with pytest.raises(RegistrationError, match="not a valid JSON Schema"):
        registry.add_external_tool("bad", "B.", {"type": 12}, proxy)


def test_external_tools_check_with_jsonschema_semantics_compiled_or_not():
    """The compiled check never refuses what jsonschema accepts, nor accepts what it refuses."""

    def echo(arguments: dict) -> dict:
        return arguments

    registry = ToolRegistry()
    simple = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 1}, "tag": {"enum": ["a", "b"]}},
        "required": ["n"],
        "additionalProperties": False,
    }
    rich = {  # oneOf: beyond the compiled subset, jsonschema alone decides
        "type": "object",
        "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]}},
        "required": ["v"],
    }
    registry.add_external_tool("simple", "Simple.", simple, echo)
    registry.add_external_tool("rich", "Rich.", rich, echo)
    assert registry.call("simple", {"n": 2, "tag": "a"}).ok
    assert registry.call("simple", {"n": 2.0}).ok  # an integer for JSON Schema too
    for bad, words in [
        ({"n": 0}, "$.n: 0 is less than the minimum of 1"),
        ({"n": 1, "tag": "c"}, "$.tag"),
        ({"n": 1, "extra": True}, "extra"),
        ({}, "missing required argument 'n'"),
        ({"n": True}, "$.n"),
    ]:
        result = registry.call("simple", bad)
        assert result.error is not None, bad
        assert result.error.kind == "invalid_arguments"
        assert words in result.error.message, (bad, result.error.message)
    assert registry.call("rich", {"v": 3}).ok
    assert registry.call("rich", {"v": "ab"}).ok
    short = registry.call("rich", {"v": "a"})
    assert short.error is not None
    assert short.error.kind == "invalid_arguments"
    assert "$.v" in short.error.message


def test_null_for_an_optional_parameter_means_absent():
    """Provider strict mode makes models send null where they would omit a key."""
    registry = ToolRegistry()
    registry.add_tool(None, None, add_order)
    result = registry.call("add_order", {"order_id": "O-1", "quantity": None, "express": None})
    assert result.value == {"order_id": "O-1", "quantity": 1, "express": False}
    assert registry.call("add_order", {"order_id": None}).error.kind == "invalid_arguments"

    def nullable(note: str | None = "x") -> str | None:
        return note

    registry.add_tool(None, None, nullable)
    assert registry.call("nullable", {"note": None}).value is None


@pytest.mark.parametrize(
    "arguments", ["[" * 100_000, '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"]
)
async def test_deeply_nested_json_is_an_error_result_not_an_exception(arguments):
    registry = ToolRegistry(lenient=True)
    registry.add_tool("t", "T.", lambda **kw: kw)
    for result in (registry.call("t", arguments), await registry.acall("t", arguments)):
        assert result.error.kind == "invalid_arguments"
        assert "nested too deeply" in result.error.message
    registry.add_tool("u", "U.", lambda items: items, Param("items", "array"))
    deep = '{"items": "' + "[" * 100_000 + '"}'
    assert registry.call("u", deep).error.kind == "invalid_arguments"  # lenient JSON-in-string
