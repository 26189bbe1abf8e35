"""Patterns never run in super-linear time, and patterns RE2 cannot run are declaration errors.

A manifest's ``pattern:`` (and a raw ``schema=`` fragment's ``pattern`` and
``patternProperties``) is matched against text a model chose. With Python's backtracking
``re``, ``^(a+)+$`` against ``"a" * 40 + "!"`` runs for minutes holding the GIL; tooldeck
matches every such pattern with RE2 (linear time), including jsonschema's own keywords when
it explains a failure. Syntax RE2 cannot run (backreferences, lookaround) is reported where
it is declared: TD107 at the pattern's line in a manifest, RegistrationError in code.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import jsonschema._keywords
import jsonschema._utils
import pytest

from tooldeck import ParamDescriptor, RegistrationError, ToolRegistry, load_manifests
from tooldeck._regex import (
    MAX_EXPANSION,
    MAX_LENGTH,
    MAX_NESTING,
    PatternError,
    compile_pattern,
    expansion,
)
from tooldeck._validation.validator import schema_problem

BUDGET = 5.0  # a bound on hangs, not a speed target: backtracking takes hours
"""Seconds any single call may take; backtracking would take minutes."""

CATASTROPHIC = [
    ("^(a+)+$", "a" * 40 + "!"),
    ("^(a|a)*$", "a" * 40 + "!"),
    ("^(a|aa)+$", "a" * 40 + "!"),
    ("^(.*a){20}$", "a" * 40 + "!"),
    ("^(\\w+\\s?)*$", "word " * 20 + "!"),
    ("^([a-z0-9]+)*@example\\.com$", "a" * 40 + "@example.org"),
    ("^(x+x+)+y$", "x" * 100_000),
]
IDS = [pattern for pattern, _ in CATASTROPHIC]


def echo(text: str = "") -> str:
    """Echo."""
    return text


def timed(call):
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


def registry_with(pattern: str) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_tool("echo", "Echo.", echo, ParamDescriptor("text", pattern=pattern))
    return registry


# ------------------------------------------------------------------ in code
@pytest.mark.parametrize(("pattern", "hostile"), CATASTROPHIC, ids=IDS)
def test_catastrophic_patterns_declared_in_code_answer_at_once(pattern, hostile):
    registry = registry_with(pattern)
    for text in (hostile, hostile * (1_000 if len(hostile) < 1_000 else 2)):
        result, elapsed = timed(lambda t=text: registry.call("echo", {"text": t}))
        assert elapsed < BUDGET
        assert result.error.kind == "invalid_arguments"
        assert "does not match the pattern" in result.error.message
        assert len(result.text) < 1_000  # the value is shown cut short, not whole


@pytest.mark.parametrize(("pattern", "hostile"), CATASTROPHIC, ids=IDS)
async def test_every_entry_point_answers_at_once(pattern, hostile):
    registry = registry_with(pattern)
    registry.add_tool(
        "guarded", "Echo.", echo, ParamDescriptor("text", pattern=pattern), timeout=5.0
    )
    arguments = {"text": hostile}
    started = time.perf_counter()
    results = [
        await registry.acall("echo", arguments),
        registry.call("guarded", arguments),  # the guarded path (timeouts, hooks)
        *registry.call_many([("echo", arguments), ("guarded", arguments)]),
        *registry.call_many([("echo", arguments)] * 3, strategy="parallel"),
        *await registry.acall_many([("echo", arguments), ("guarded", arguments)]),
    ]
    assert time.perf_counter() - started < BUDGET * 3
    assert {r.error.kind for r in results} == {"invalid_arguments"}


def test_matching_values_still_pass():
    registry = registry_with("^(a+)+$")
    assert registry.call("echo", {"text": "aaaa"}).text == "aaaa"
    registry = registry_with(r"^O-\d{8}$")
    assert registry.call("echo", '{"text": "O-20261122"}').ok


def test_a_format_check_does_not_backtrack_either():
    registry = ToolRegistry()
    registry.add_tool("mail", "Mail.", echo, ParamDescriptor("text", format="email"))
    hostile = "a@" + "." * 100_000 + " "  # quadratic for a backtracking [^@\s]+\.[^@\s]+
    result, elapsed = timed(lambda: registry.call("mail", {"text": hostile}))
    assert elapsed < BUDGET
    assert "is not a valid email" in result.error.message


# ---------------------------------------------------------- raw schema fragments
FRAGMENTS = {
    "pattern": {"type": "string", "pattern": "^(a+)+$"},
    "items": {"type": "array", "items": {"type": "string", "pattern": "^(a|aa)+$"}},
    "patternProperties": {
        "type": "object",
        "patternProperties": {"^(a+)+$": {"type": "integer"}},
    },
    "additionalProperties": {
        "type": "object",
        "patternProperties": {"^(a+)+$": {"type": "integer"}},
        "additionalProperties": False,
    },
    "propertyNames": {"type": "object", "propertyNames": {"pattern": "^(a+)+$"}},
}
HOSTILE_VALUES = {
    "pattern": "a" * 40 + "!",
    "items": ["a" * 40 + "!"],
    "patternProperties": {"a" * 40 + "!": "x", "a" * 4: "not an integer"},
    "additionalProperties": {"a" * 40 + "!": 1},
    "propertyNames": {"a" * 40 + "!": 1},
}


@pytest.mark.parametrize("kind", FRAGMENTS)
def test_fragment_patterns_run_on_re2_in_check_and_explanation(kind):
    registry = ToolRegistry()
    registry.add_tool(
        "t", "T.", lambda value: value, ParamDescriptor("value", schema=FRAGMENTS[kind])
    )
    result, elapsed = timed(lambda: registry.call("t", {"value": HOSTILE_VALUES[kind]}))
    assert elapsed < BUDGET
    assert result.error.kind == "invalid_arguments"
    assert "$.value" in result.error.message


class ForbiddenRe:
    """Stands in for jsonschema's ``re``: any use of it fails the test."""

    def __getattr__(self, name: str):
        raise AssertionError(f"jsonschema used Python's re.{name} on arguments")


@pytest.mark.parametrize("kind", FRAGMENTS)
def test_jsonschema_never_uses_python_re_on_arguments(monkeypatch, kind):
    registry = ToolRegistry()
    registry.add_tool(
        "t", "T.", lambda value: value, ParamDescriptor("value", schema=FRAGMENTS[kind])
    )
    registry.add_external_tool(
        "ext",
        "E.",
        {"type": "object", "properties": {"value": FRAGMENTS[kind]}},
        lambda arguments: arguments,
    )
    monkeypatch.setattr(jsonschema._keywords, "re", ForbiddenRe())
    monkeypatch.setattr(jsonschema._utils, "re", ForbiddenRe())
    for name in ("t", "ext"):
        assert registry.call(name, {"value": HOSTILE_VALUES[kind]}).error.kind == (
            "invalid_arguments"
        )


# ------------------------------------------------------------ in a manifest
HANDLERS = "def echo(text: str = '') -> str:\n    return text\n"


@pytest.fixture
def manifest_dir(tmp_path: Path, monkeypatch) -> Iterator[Path]:
    (tmp_path / "tdsec_regex.py").write_text(HANDLERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("tdsec_regex", None)


def manifest(params: str) -> str:
    return textwrap.dedent(
        """\
        version: 1
        tools:
          - name: echo
            handler: tdsec_regex:echo
            description: Echo the given text back, for the regular expression tests.
            params:
        """
    ) + textwrap.indent(textwrap.dedent(params), "      ")


def load(directory: Path, text: str):
    path = directory / "tools.yaml"
    path.write_text(text, encoding="utf-8")
    return load_manifests([path], allow_handlers=["tdsec_regex"])


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(("pattern", "hostile"), CATASTROPHIC, ids=IDS)
def test_catastrophic_patterns_in_a_manifest_answer_at_once(manifest_dir, pattern, hostile):
    quoted = pattern.replace("\\", "\\\\")
    registry, result = load(
        manifest_dir,
        manifest(
            f"""\
            - name: text
              description: the text to echo back
              pattern: "{quoted}"
            """
        ),
    )
    assert result.ok, [d.format() for d in result.diagnostics]
    answer, elapsed = timed(lambda: registry.call("echo", {"text": hostile}))
    assert elapsed < BUDGET
    assert answer.error.kind == "invalid_arguments"


UNSUPPORTED = [
    ("(a)\\\\1", "backreferences are not supported"),
    ("^(?=a)", "lookahead"),
    ("^(?!a)", "negative lookahead"),
    ("(?<=a)b", "lookbehind"),
    ("(?<!a)b", "negative lookbehind"),
    ("a++", "possessive quantifiers"),
    ("(?>a)", "atomic groups"),
    ("a\\\\Z", "use \\z or $"),
    ("^[a-z/.+$", "missing ]"),
]


@pytest.mark.parametrize(("pattern", "says"), UNSUPPORTED, ids=[p for p, _ in UNSUPPORTED])
def test_unsupported_syntax_is_td107_at_the_pattern_line(manifest_dir, pattern, says):
    text = manifest(
        f"""\
        - name: text
          description: the text to echo back
          pattern: "{pattern}"
        """
    )
    registry, result = load(manifest_dir, text)
    assert not result.ok
    [diagnostic] = result.diagnostics
    assert diagnostic.code == "TD107"
    assert diagnostic.location.line == line_of(text, "pattern:")
    assert says in diagnostic.message
    assert "echo" not in {spec.name for spec in registry.tools()}


@pytest.mark.parametrize(("pattern", "says"), UNSUPPORTED, ids=[p for p, _ in UNSUPPORTED])
def test_unsupported_syntax_is_a_registration_error_in_code(pattern, says):
    source = pattern.replace("\\\\", "\\")
    with pytest.raises(RegistrationError, match="not a valid regular expression") as info:
        ParamDescriptor("text", pattern=source)
    assert info.value.code == "TD107"
    assert says in str(info.value)


def test_nested_fields_are_checked_too(manifest_dir):
    text = manifest(
        """\
        - name: text
          description: the text to echo back
          type: array
          items: {type: string, pattern: "(a)\\\\1"}
        """
    )
    _, result = load(manifest_dir, text)
    assert [d.code for d in result.diagnostics] == ["TD107"]
    with pytest.raises(RegistrationError) as info:
        ParamDescriptor("tags", "array", items=ParamDescriptor("tag", pattern="(a)\\1"))
    assert info.value.code == "TD107"


@pytest.mark.parametrize(
    "pattern",
    ["(" * 5_000, "(" * 5_000 + "a" + ")" * 5_000, "(?:" * 3_000 + "a" + ")" * 3_000],
    ids=["unclosed", "balanced", "non-capturing"],
)
def test_deeply_nested_groups_are_td107_not_recursion_error(manifest_dir, pattern):
    """Python's re raises RecursionError on these; tooldeck reports them where they are."""
    text = manifest(
        f"""\
        - name: text
          description: the text to echo back
          pattern: "{pattern}"
        """
    )
    _, result = load(manifest_dir, text)
    assert [d.code for d in result.diagnostics] == ["TD107"]
    assert result.diagnostics[0].location.line == line_of(text, "pattern:")
    with pytest.raises(RegistrationError) as info:
        ParamDescriptor("text", pattern=pattern)
    assert info.value.code == "TD107"


def test_nesting_up_to_the_limit_is_fine():
    registry = registry_with("(" * MAX_NESTING + "a" + ")" * MAX_NESTING)
    assert registry.call("echo", {"text": "a"}).ok
    assert registry.call("echo", {"text": "b"}).error.kind == "invalid_arguments"


@pytest.mark.parametrize(
    "pattern",
    ["[a-z]{1,1000}" * 20, "a?" * 20_000, "(?:(?:a{1,10}){1,10}){1,10}" * 10],
    ids=["repetitions", "optionals", "nested"],
)
def test_patterns_too_costly_to_compile_are_td107_quickly(pattern):
    """RE2 compiles in time linear in the text it matches, but not in its own expansion."""
    started = time.perf_counter()
    with pytest.raises(RegistrationError, match="too complex") as info:
        ParamDescriptor("text", pattern=pattern)
    assert time.perf_counter() - started < BUDGET
    assert info.value.code == "TD107"
    assert expansion(pattern) > MAX_EXPANSION


def test_overlong_patterns_are_td107_quickly():
    started = time.perf_counter()
    with pytest.raises(RegistrationError, match="characters long") as info:
        ParamDescriptor("text", pattern="x" * (MAX_LENGTH + 1))
    assert time.perf_counter() - started < BUDGET
    assert info.value.code == "TD107"


def test_realistic_patterns_stay_well_inside_the_budget():
    for pattern in (
        r"^\w{1,1000}$",
        r"^[\p{L}\p{N} _.-]{1,200}$",
        r"^O-\d{8}$",
        r"^.{0,1000}$",
        r"^([a-z0-9]+[._-]?){1,100}$",
        r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$",
    ):
        assert expansion(pattern) <= MAX_EXPANSION / 2
        ParamDescriptor("text", pattern=pattern)


def test_patterns_with_lone_surrogates_are_td107():
    for pattern in ("\ud800", "a[\udc00-\udfff]"):
        with pytest.raises(RegistrationError, match="lone surrogate") as info:
            ParamDescriptor("text", pattern=pattern)
        assert info.value.code == "TD107"
    assert schema_problem({"type": "string", "pattern": "\ud800"}) is not None


def test_a_yaml_surrogate_escape_is_a_located_error_not_an_exception(manifest_dir):
    text = manifest(
        """\
        - {name: text, description: the text to echo back, pattern: "\\ud800"}
        """
    )
    _, result = load(manifest_dir, text)
    assert not result.ok
    assert all(d.location is not None and d.location.line >= 1 for d in result.diagnostics)


def test_a_lone_surrogate_in_matched_text_is_no_match_not_an_exception():
    assert compile_pattern(".").search("\ud800") is False
    assert compile_pattern(".").search("ok") is True


def test_non_string_patterns_are_pattern_errors():
    with pytest.raises(PatternError, match="must be a string"):
        compile_pattern(5)  # type: ignore[arg-type]


# ----------------------------------------------------- fragments and schemas
@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ({"type": "string", "pattern": "(a)\\1"}, "backreferences"),
        ({"type": "object", "patternProperties": {"(?=x)": {}}}, "lookahead"),
        ({"type": "array", "items": {"pattern": "(?<!a)b"}}, "lookbehind"),
        (
            {
                "type": "object",
                "patternProperties": {"^x": {}},
                "unevaluatedProperties": False,
            },
            "unevaluatedProperties together with patternProperties",
        ),
        (
            {"type": "array", "items": {"$schema": "http://json-schema.org/draft-07/schema#"}},
            "$schema may only open a tool's whole input schema",
        ),
    ],
    ids=["backreference", "lookahead-key", "lookbehind-items", "unevaluated", "nested-schema"],
)
def test_unusable_fragments_and_external_schemas_are_td104(schema, says):
    registry = ToolRegistry()
    with pytest.raises(RegistrationError, match="schema") as info:
        registry.add_tool("t", "T.", lambda value: value, ParamDescriptor("value", schema=schema))
    assert info.value.code == "TD104"
    assert says in str(info.value)
    with pytest.raises(RegistrationError) as info:
        registry.add_external_tool(
            "e", "E.", {"type": "object", "properties": {"v": schema}}, lambda arguments: arguments
        )
    assert info.value.code == "TD104"
    assert says in str(info.value)


def test_schema_may_open_an_external_schema_but_not_a_fragment():
    """Below the top, jsonschema would switch to its stock class (Python's re) for it."""
    registry = ToolRegistry()
    dialect = "https://json-schema.org/draft/2020-12/schema"
    schema = {
        "$schema": dialect,
        "type": "object",
        "properties": {"v": {"pattern": "^(a+)+$"}, "child": {"$ref": "#"}},
    }
    registry.add_external_tool("e", "E.", schema, lambda arguments: arguments)
    for arguments in ({"v": "a" * 40 + "!"}, {"child": {"child": {"v": "a" * 40 + "!"}}}):
        result, elapsed = timed(lambda a=arguments: registry.call("e", a))
        assert elapsed < BUDGET
        assert result.error.kind == "invalid_arguments"
    with pytest.raises(RegistrationError, match=r"\$schema may only open") as info:
        registry.add_tool(
            "t",
            "T.",
            lambda value: value,
            ParamDescriptor("value", schema={"$schema": dialect, "type": "string"}),
        )
    assert info.value.code == "TD104"


def test_patterns_re2_accepts_and_python_does_not_are_accepted_in_fragments():
    """The meta-schema's ``format: regex`` is checked with RE2 too: \\pL is fine."""
    registry = ToolRegistry()
    registry.add_tool(
        "t", "T.", lambda value: value, ParamDescriptor("value", schema={"pattern": r"^\pL+$"})
    )
    assert registry.call("t", {"value": "Žluťoučký"}).ok
    assert registry.call("t", {"value": "a1"}).error.kind == "invalid_arguments"


# --------------------------------------------------------------- semantics
def test_json_schema_semantics_search_not_fullmatch_and_dollar_is_the_end():
    registry = registry_with("ab")
    assert registry.call("echo", {"text": "xxabyy"}).ok  # a search, as JSON Schema says
    registry = registry_with("^[a-z]+$")
    # Python's $ also matches before a final newline; ECMA-262 and RE2 do not.
    assert registry.call("echo", {"text": "abc\n"}).error.kind == "invalid_arguments"
    registry = registry_with(r"^\d+$")
    assert registry.call("echo", {"text": "١٢٣"}).error.kind == "invalid_arguments"  # ASCII \d
    registry = registry_with("^é+$")
    assert registry.call("echo", {"text": "éé"}).ok  # Unicode text, not bytes


def test_matching_releases_the_gil():
    """Another thread keeps running at a good share of its speed during a long match.

    Were the GIL held, it would get at most a switch interval (5 ms) of the match,
    so the bound is loose on purpose: a busy machine slows the spinner, not to zero.
    """
    import threading

    regex = compile_pattern("(x+x+)+y")
    text = "x" * 60_000_000
    ticks = 0
    done = threading.Event()

    def spin() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    thread = threading.Thread(target=spin)
    thread.start()
    try:
        time.sleep(0.02)
        start, started = ticks, time.perf_counter()
        time.sleep(0.1)
        alone = (ticks - start) / (time.perf_counter() - started)
        start, started = ticks, time.perf_counter()
        assert regex.search(text) is False
        elapsed = time.perf_counter() - started
        during = (ticks - start) / elapsed
    finally:
        done.set()
        thread.join()
    assert elapsed > 0.05, "the match was too quick to tell"
    assert during > 0.05 * alone


def test_the_loop_stays_responsive_while_a_batch_matches():
    registry = registry_with("^(a+)+$")
    arguments = {"text": "a" * 40 + "!"}

    async def main() -> list:
        return await registry.acall_many([("echo", arguments)] * 50)

    started = time.perf_counter()
    results = asyncio.run(main())
    assert time.perf_counter() - started < BUDGET
    assert all(r.error.kind == "invalid_arguments" for r in results)
