"""The manifest JSON Schema (schemas/manifest.schema.json): well-formed, documented, exemplified.

The schema is the single source of truth for manifest format version 1 and editors show its
descriptions, so besides validating fixtures these tests keep it documented and closed
(``additionalProperties: false``) everywhere.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "schemas" / "manifest.schema.json"
FIXTURES = ROOT / "tests" / "fixtures" / "metaschema"
VALID = sorted((FIXTURES / "valid").glob("*.yaml"))
INVALID = sorted((FIXTURES / "invalid").glob("*.yaml"))
SCHEMA_MODELINE = "# yaml-language-server: $schema=../../../../schemas/manifest.schema.json"
EXPECT_LINE = re.compile(r"^# expect: ([A-Za-z$]+)\s*$")

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
SCHEMA_ID = SCHEMA["$id"]
REGISTRY = Registry().with_resource(SCHEMA_ID, Resource(contents=SCHEMA, specification=DRAFT202012))

# Keywords whose values are subschemas (single, list of, or mapping of).
SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
LISTS = ("oneOf", "anyOf", "allOf", "prefixItems")
MAPPINGS = ("properties", "$defs", "patternProperties")
DEFS_NAMES = {
    "Auth",
    "Duration",
    "HandlerRef",
    "ToolOptions",
    "Tool",
    "ArgReshape",
    "Param",
    "ParamItems",
    "Prompt",
    "Resource",
    "WebSearch",
    "McpServer",
    "ResultShaping",
    "Retry",
    "TypeName",
}


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def walk(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (JSON pointer, subschema) for every schema object reachable in the document."""
    if not isinstance(schema, dict):
        return
    yield pointer, schema
    for key in SINGLE:
        if key in schema:
            yield from walk(schema[key], f"{pointer}/{key}")
    for key in LISTS:
        for index, sub in enumerate(schema.get(key, [])):
            yield from walk(sub, f"{pointer}/{key}/{index}")
    for key in MAPPINGS:
        for name, sub in schema.get(key, {}).items():
            yield from walk(sub, f"{pointer}/{key}/{escape(name)}")


def resolve(ref: str) -> dict[str, Any]:
    """Resolve a local ``#/...`` reference inside the schema document."""
    assert ref.startswith("#/"), f"only local references are expected, got {ref!r}"
    node: Any = SCHEMA
    for raw in ref[2:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        assert isinstance(node, dict), ref
        assert token in node, f"dangling $ref {ref!r}"
        node = node[token]
    assert isinstance(node, dict), ref
    return node


def validator_for(pointer: str) -> Draft202012Validator:
    """A validator for the subschema at ``pointer``, with references resolved in the document."""
    ref = f"{SCHEMA_ID}#{quote(pointer, safe='/~$')}" if pointer else SCHEMA_ID
    return Draft202012Validator({"$ref": ref}, registry=REGISTRY)


MANIFEST = validator_for("")


def keywords(errors: list[ValidationError]) -> set[str]:
    """Every validator keyword among the errors, including those nested in oneOf/anyOf."""
    found: set[str] = set()
    pending = list(errors)
    while pending:
        error = pending.pop()
        found.add(str(error.validator))
        pending.extend(error.context or ())
    return found


def load_fixture(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


# -- the document itself ---------------------------------------------------------------------


def test_schema_file_is_pretty_printed_json() -> None:
    text = SCHEMA_PATH.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"] == "urn:tooldeck:schema:manifest:1"
    assert SCHEMA["title"] == "tooldeck manifest"
    assert SCHEMA["required"] == ["version"]


def test_schema_defines_the_expected_defs() -> None:
    assert set(SCHEMA["$defs"]) == DEFS_NAMES


def test_top_level_description_mentions_interpolation() -> None:
    for placeholder in ("${env:NAME}", "${env:NAME:-default}", "${config:dotted.key}"):
        assert placeholder in SCHEMA["description"]


def test_every_ref_resolves() -> None:
    refs = [sub["$ref"] for _, sub in walk(SCHEMA) if "$ref" in sub]
    assert refs
    for ref in refs:
        resolve(ref)


def test_every_object_with_properties_is_closed() -> None:
    open_objects = [
        pointer or "/"
        for pointer, sub in walk(SCHEMA)
        if "properties" in sub and sub.get("additionalProperties") is not False
    ]
    assert open_objects == []


def has_description(schema: dict[str, Any]) -> bool:
    description = schema.get("description")
    return isinstance(description, str) and bool(description.strip())


def test_every_property_and_definition_is_described() -> None:
    missing: list[str] = []
    assert has_description(SCHEMA)
    for name, definition in SCHEMA["$defs"].items():
        if not has_description(definition):
            missing.append(f"/$defs/{name}")
    for pointer, sub in walk(SCHEMA):
        for name, prop in sub.get("properties", {}).items():
            where = f"{pointer}/properties/{name}"
            if has_description(prop):
                continue
            if set(prop) == {"$ref"}:
                # A bare $ref borrows its target's description (editors follow the ref).
                if not has_description(resolve(prop["$ref"])):
                    missing.append(f"{where} -> {prop['$ref']}")
                continue
            missing.append(where)
    assert missing == []


def test_key_definitions_carry_examples() -> None:
    for name in DEFS_NAMES:
        assert SCHEMA["$defs"][name].get("examples"), f"$defs/{name} has no examples"


EXAMPLES = [
    (pointer, index, example)
    for pointer, sub in walk(SCHEMA)
    for index, example in enumerate(sub.get("examples", []))
]


def test_the_schema_has_many_examples() -> None:
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize(
    ("pointer", "example"),
    [(pointer, example) for pointer, _, example in EXAMPLES],
    ids=[f"{pointer or '/'}[{index}]" for pointer, index, _ in EXAMPLES],
)
def test_examples_validate_against_their_own_subschema(pointer: str, example: Any) -> None:
    errors = [error.message for error in validator_for(pointer).iter_errors(example)]
    assert errors == []


def test_defaults_validate_against_their_own_subschema() -> None:
    checked = 0
    for pointer, sub in walk(SCHEMA):
        if "default" in sub and pointer.split("/")[-1] != "default":
            assert list(validator_for(pointer).iter_errors(sub["default"])) == [], pointer
            checked += 1
    assert checked >= 3


# -- a few spot checks of the format ---------------------------------------------------------


@pytest.mark.parametrize("value", ["500ms", "2s", "1m", "1.5h", 30, 0.25])
def test_duration_accepts(value: Any) -> None:
    assert validator_for("/$defs/Duration").is_valid(value)


@pytest.mark.parametrize("value", ["5 seconds", "2", "1.s", "-1s", 0, -3, True, None])
def test_duration_rejects(value: Any) -> None:
    assert not validator_for("/$defs/Duration").is_valid(value)


@pytest.mark.parametrize(
    "value", ["tooldeck.handlers.files:read_file", "handlers:f", "a.b.c:Klass.method", "_x:_y"]
)
def test_handler_ref_accepts(value: str) -> None:
    assert validator_for("/$defs/HandlerRef").is_valid(value)


@pytest.mark.parametrize(
    "value",
    [
        "os system",
        "tooldeck.handlers.files",
        "tooldeck.handlers.files:",
        ":f",
        "1mod:f",
        "a..b:f",
        "a:b:c",
    ],
)
def test_handler_ref_rejects(value: str) -> None:
    assert not validator_for("/$defs/HandlerRef").is_valid(value)


def test_tool_lists_every_tool_option() -> None:
    tool = SCHEMA["$defs"]["Tool"]["properties"]
    options = SCHEMA["$defs"]["ToolOptions"]["properties"]
    assert set(options) <= set(tool)
    shape = {
        "name",
        "description",
        "handler",
        "use",
        "args",
        "params",
        "additional_properties",
        "auth",
    }
    assert set(tool) - set(options) == shape


def test_param_items_excludes_what_only_a_named_parameter_has() -> None:
    items = SCHEMA["$defs"]["ParamItems"]
    param = SCHEMA["$defs"]["Param"]
    assert "required" not in items
    assert set(param["properties"]) - set(items["properties"]) == {
        "required",
        "default",
        "inject",
        "from_auth",
    }


# -- fixtures --------------------------------------------------------------------------------


def test_there_are_enough_fixtures() -> None:
    assert len(VALID) >= 6
    assert len(INVALID) >= 10


@pytest.mark.parametrize("path", VALID, ids=[path.stem for path in VALID])
def test_valid_fixture_validates(path: Path) -> None:
    assert path.read_text(encoding="utf-8").splitlines()[0] == SCHEMA_MODELINE
    errors = [
        f"{error.json_path}: {error.message}" for error in MANIFEST.iter_errors(load_fixture(path))
    ]
    assert errors == []


@pytest.mark.parametrize("path", INVALID, ids=[path.stem for path in INVALID])
def test_invalid_fixture_fails_with_expected_keyword(path: Path) -> None:
    first, second, *_ = path.read_text(encoding="utf-8").splitlines()
    match = EXPECT_LINE.match(first)
    assert match, f"{path.name}: the first line must be '# expect: <keyword>'"
    assert second == SCHEMA_MODELINE
    errors = list(MANIFEST.iter_errors(load_fixture(path)))
    assert errors, f"{path.name} unexpectedly validates"
    assert match.group(1) in keywords(errors)


def test_full_fixture_uses_every_field() -> None:
    """full.yaml uses every top-level key and every Tool/Param/Prompt/Resource/McpServer field."""
    manifest = load_fixture(FIXTURES / "valid" / "full.yaml")
    defs = SCHEMA["$defs"]
    assert set(manifest) == set(SCHEMA["properties"])

    def params_of(params: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for param in params:
            yield param
            yield from params_of(param.get("properties", []))
            if isinstance(param.get("items"), dict):
                yield param["items"]

    used: dict[str, set[str]] = {
        "Tool": {key for tool in manifest["tools"] for key in tool},
        "Param": {
            key
            for owner in [*manifest["tools"], *manifest["prompts"], *manifest["resources"]]
            for param in params_of(owner.get("params", []))
            for key in param
        },
        "Prompt": {key for prompt in manifest["prompts"] for key in prompt},
        "Resource": {key for resource in manifest["resources"] for key in resource},
        "McpServer": {key for server in manifest["mcp_servers"] for key in server},
        "ToolOptions": set(manifest["defaults"]),
        "WebSearch": set(manifest["web_search"]),
    }
    for name, keys in used.items():
        assert set(defs[name]["properties"]) - keys == set(), name


# -- the compiled fast check (tooldeck.manifest._meta.check) ----------------------------------

FAST_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.5,
    2.0,
    float("nan"),
    float("inf"),
    -float("inf"),
    10**30,
    "",
    "x",
    "string",
    "integer",
    "any",
    "5s",
    "0s",
    "500ms",
    "-1s",
    "a.b:c",
    "tooldeck.handlers.files:read_file",
    "json",
    "text",
    "project_dir",
    "stdio",
    "assistant",
    [],
    ["a"],
    ["a", "a"],
    [1, 1.0],
    [True, 1],
    ["string", "null"],
    ["string", "nope"],
    {},
    {"name": "x"},
    {"type": "string"},
    {"A_B": "x"},
    {"1A": "x"},
    {"A": 1},
]
FAST_KEYS = [
    "extra",
    "nme",
    "name",
    "type",
    "minimum",
    "enum",
    "items",
    "properties",
    "env",
    "pattern",
    "default",
    "select",
    "max_chars",
    "retry",
    "timeout",
    "tags",
    "inject",
    "schema",
    "url",
    "command",
    "via",
    "role",
    "template",
    "backoff",
    "on",
    "format",
    "required",
    "version",
    "defaults",
    "result",
]


def _mutations(document: Any, rng: random.Random, count: int) -> Iterator[Any]:
    """``document`` with one or two values replaced, keys added or removed, items repeated."""

    def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        if prefix:
            yield prefix
        if isinstance(value, dict):
            for key, child in value.items():
                yield from paths(child, (*prefix, key))
        elif isinstance(value, list):
            for index, child in enumerate(value):
                yield from paths(child, (*prefix, index))

    for _ in range(count):
        mutated = copy.deepcopy(document)
        for _ in range(rng.choice((1, 1, 2))):
            where = list(paths(mutated))
            if not where:
                break
            path = rng.choice(where)
            parent = mutated
            for part in path[:-1]:
                parent = parent[part]
            roll = rng.random()
            if roll < 0.55:
                parent[path[-1]] = copy.deepcopy(rng.choice(FAST_VALUES))
            elif roll < 0.85 and isinstance(parent, dict):
                parent[rng.choice(FAST_KEYS)] = copy.deepcopy(rng.choice(FAST_VALUES))
            elif isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.append(copy.deepcopy(parent[path[-1]]))
        yield mutated


def test_fast_check_agrees_with_jsonschema_on_every_fixture() -> None:
    from tooldeck.manifest._meta.check import _fast_check

    check = _fast_check()
    for path in [*VALID, *INVALID]:
        document = load_fixture(path)
        assert check(document) == MANIFEST.is_valid(document), path.name


def test_fast_check_agrees_with_jsonschema_on_mutated_manifests() -> None:
    """Thousands of near-valid documents: the compiled check and jsonschema never disagree."""
    from tooldeck.manifest._meta.check import _fast_check

    check = _fast_check()
    rng = random.Random(20261123)
    compared = failing = 0
    for path in VALID:
        for document in _mutations(load_fixture(path), rng, 150):
            expected = MANIFEST.is_valid(document)
            assert check(document) == expected, (path.name, document)
            compared += 1
            failing += not expected
    assert compared >= 1000
    assert 0.2 < failing / compared < 0.9  # both outcomes are well represented


@pytest.mark.parametrize(
    ("schema", "values"),
    [
        ({"minimum": 1}, [0, 1, 2.5, float("nan"), True, "0"]),
        ({"exclusiveMaximum": 3}, [2, 3, float("nan"), float("inf")]),
        ({"type": "integer"}, [1, 1.0, 1.5, True, "1", float("inf")]),
        ({"enum": [1, "a", None]}, [1, 1.0, True, "a", None, "b", [1]]),
        ({"const": [1, {"a": True}]}, [[1, {"a": True}], [1.0, {"a": True}], [1, {"a": 1}]]),
        ({"uniqueItems": True}, [[1, 1.0], [1, True], [[1], [1]], [{"a": 1}, {"a": 1}], [1, 2]]),
        ({"propertyNames": {"pattern": "^[a-z]+$"}}, [{"ab": 1}, {"Ab": 1}, {}, "Ab", ["Ab"]]),
        ({"oneOf": [{"type": "number"}, {"type": "integer"}]}, [1, 1.5, "x"]),
        (
            {"allOf": [{"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"required": ["c"]}]},
            [{"a": 1, "c": 1}, {"a": 1, "b": 1, "c": 1}, {"a": 1}, {"c": 1}, "x", []],
        ),
        ({"additionalProperties": False, "properties": {"a": True}}, [{"a": 1}, {"b": 1}, []]),
        ({"not": {"type": "string"}}, ["x", 1, None]),  # outside the subset: jsonschema checks it
        ({"maxProperties": 1}, [{}, {"a": 1}, {"a": 1, "b": 2}]),
    ],
)
def test_compile_schema_agrees_with_jsonschema(schema: dict[str, Any], values: list[Any]) -> None:
    from tooldeck.manifest._meta.check import compile_schema

    check = compile_schema(schema, schema)
    for value in values:
        assert check(value) == Draft202012Validator(schema).is_valid(value), value


def test_compile_schema_follows_recursive_references() -> None:
    from tooldeck.manifest._meta.check import compile_schema

    schema = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                "additionalProperties": False,
            },
            "Alias": {"$ref": "#/$defs/Node", "description": "only a reference"},
        },
        "$ref": "#/$defs/Alias",
    }
    check = compile_schema(schema, schema)
    deep: dict[str, Any] = {"children": []}
    for _ in range(50):
        deep = {"children": [deep, {"children": []}]}
    assert check(deep)
    deep["children"][1]["children"] = [{"oops": 1}]
    assert not check(deep)
    assert check(deep) == Draft202012Validator(schema).is_valid(deep)


def test_checking_a_valid_manifest_does_not_import_jsonschema() -> None:
    """The meta-schema is inside the compiled subset: jsonschema is only for explaining failures."""
    code = (
        "import sys\n"
        "from tooldeck.manifest._meta.check import check_document\n"
        "from tooldeck._yaml.source import read_yaml\n"
        f"doc = read_yaml({str(VALID[0])!r})\n"
        "assert check_document(doc) == []\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


TRAILING_NEWLINE = {
    "bundle": 'version: 1\nbundle: "files\\n"\n',
    "handler": 'version: 1\ntools:\n  - handler: "tooldeck.handlers.files:read_file\\n"\n',
    "timeout": (
        'version: 1\ntools:\n  - handler: tooldeck.handlers.files:read_file\n    timeout: "2s\\n"\n'
    ),
    "tool name": (
        'version: 1\ntools:\n  - name: "read\\n"\n    handler: tooldeck.handlers.files:read_file\n'
    ),
}


@pytest.mark.parametrize("where", TRAILING_NEWLINE)
def test_patterns_end_at_the_end_of_the_text_as_json_schema_says(tmp_path: Path, where: str):
    """Python's ``$`` matches before a final newline; JSON Schema's (ECMA-262) does not."""
    from tooldeck import load_manifests

    path = tmp_path / "m.yaml"
    path.write_text(TRAILING_NEWLINE[where])
    _, result = load_manifests([path], environ={})
    assert "TD213" in {d.code for d in result.errors}, result.diagnostics
