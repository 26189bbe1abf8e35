"""Lint and registration say what is wrong, and where: through the real ``tooldeck`` command.

Each test writes a small project (a handler module and manifests) into ``tmp_path`` and runs
``tooldeck lint`` (imported and ``--static``) or ``tooldeck call`` on it; the Python API is
used where the same rule holds for tools declared in code.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tooldeck import Param, ToolRegistry

MODULE = "lmprobe"

HANDLERS = '''
import socket
from dataclasses import dataclass
from typing import Literal, TypedDict


def twice(n: int) -> int:
    """Double a whole number."""
    return n * 2


def half(x: float) -> float:
    """Halve a number."""
    return x / 2


def shout(text: str) -> str:
    """Shout a text."""
    return text.upper()


def total(ns: list[int]) -> int:
    """Add numbers up."""
    return sum(ns)


def pick(mode: Literal["fast", "slow"]) -> str:
    """Pick a mode."""
    return mode
'''


def project(folder: Path, manifest: str, handlers: str = HANDLERS) -> Path:
    """A project in ``folder``: ``lmprobe.py`` and ``tools.yaml``; returns the manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{MODULE}.py").write_text(textwrap.dedent(handlers), encoding="utf-8")
    path = folder / "tools.yaml"
    path.write_text(textwrap.dedent(manifest), encoding="utf-8")
    return path


def lint(run_line, folder: Path, *extra: str):
    return run_line("lint", *extra, "tools.yaml", "--allow-handlers", MODULE, cwd=folder)


def lint_json(run_line, folder: Path, *extra: str) -> tuple[int, list[dict]]:
    done = lint(run_line, folder, "--format", "json", *extra)
    return done.exit_code, json.loads(done.stdout)["diagnostics"]


def tool(name: str, handler: str, *params: str) -> str:
    """One tool entry with flow-mapping ``params``, one a line."""
    lines = "".join(f"      - {p}\n" for p in params)
    return (
        f"  - name: {name}\n"
        f"    handler: {MODULE}:{handler}\n"
        "    description: A tool that checks what lint says about it.\n"
        f"    params:\n{lines}"
    )


# --------------------------------------------------------------- TD411 and the call path
MISMATCHED = "version: 1\ntools:\n" + (
    tool("twice", "twice", '{name: n, type: string, description: "The number to double"}')
    + tool("half", "half", '{name: x, type: integer, description: "The number to halve"}')
)


@pytest.mark.parametrize("mode", [(), ("--static",)], ids=["imported", "static"])
def test_a_type_the_handler_cannot_take_is_an_error_a_lossless_one_a_warning(
    run_line, tmp_path, mode
):
    project(tmp_path, MISMATCHED)
    done = lint(run_line, tmp_path, *mode)
    assert done.exit_code == 1, done.output
    assert (
        "tools.yaml:7:25: TD411 parameter 'n' is declared type \"string\" but handler "
        'lmprobe:twice annotates it `int`, which takes type "integer"' in done.stdout
    )
    assert (
        "tools.yaml:12:25: TD411 [warning] parameter 'x' is declared type \"integer\" but "
        "handler lmprobe:half annotates it `float`: the model may send only integers, each "
        'converted without loss; declare type "number" unless that narrowing is meant'
    ) in done.stdout
    assert "1 error, 1 warning in 1 file" in done.stdout


def test_static_and_imported_lint_give_td411_the_same_severities(run_line, tmp_path):
    project(tmp_path, MISMATCHED)
    imported = lint_json(run_line, tmp_path)
    static = lint_json(run_line, tmp_path, "--static")
    assert imported == static
    assert [(d["code"], d["severity"]) for d in imported[1]] == [
        ("TD411", "error"),
        ("TD411", "warning"),
    ]


def test_a_value_the_annotation_rejects_fails_the_call_instead_of_reaching_the_handler(
    run_line, tmp_path
):
    project(tmp_path, MISMATCHED)
    call = ("call", "twice", "-m", "tools.yaml", "--allow-handlers", MODULE)
    done = run_line(*call, "--args", '{"n": "21"}', cwd=tmp_path)
    assert done.exit_code == 1
    assert done.stdout == ""  # not "2121"
    assert "invalid_arguments" in done.stderr
    assert '$.n: the string "21" is not an integer' in done.stderr
    converted = run_line("call", "half", "-m", "tools.yaml", "--allow-handlers", MODULE,
                         "--args", '{"x": 3}', cwd=tmp_path)  # fmt: skip
    assert (converted.exit_code, converted.stdout) == (0, "1.5\n"), converted.output


@pytest.mark.parametrize(
    ("declared", "arguments", "expected"),
    [
        ("number", {"n": 2.5}, "$.n: the number 2.5 is not an integer"),
        ("number", {"n": 2.0}, None),  # a whole number converts without loss
        ("boolean", {"n": True}, "$.n: the boolean true is not an integer"),
        ("any", {"n": [1]}, "$.n: the array [1] is not an integer"),
    ],
)
def test_numbers_convert_only_without_loss(run_line, tmp_path, declared, arguments, expected):
    manifest = "version: 1\ntools:\n" + tool(
        "twice", "twice", f"{{name: n, type: {declared}, description: The number to double}}"
    )
    project(tmp_path, manifest)
    done = run_line("call", "twice", "-m", "tools.yaml", "--allow-handlers", MODULE,
                    "--args", json.dumps(arguments), cwd=tmp_path)  # fmt: skip
    if expected is None:
        assert (done.exit_code, done.stdout) == (0, "4\n"), done.output
    else:
        assert done.exit_code == 1
        assert expected in done.stderr


def twice(n: int) -> int:
    return n * 2


def shout(text: str) -> str:
    return text.upper()


def total(ns: list[int]) -> int:
    return sum(ns)


def test_the_python_api_refuses_what_the_annotation_rejects_with_its_path():
    registry = ToolRegistry()
    registry.add_tool("twice", "Double a whole number.", twice, Param("n", "string", True, "N"))
    registry.add_tool("shout", "Shout a text.", shout, Param("text", "integer", True, "Text"))
    registry.add_tool(
        "total", "Add numbers up.", total, Param("ns", "array", True, "Numbers", items="number")
    )
    result = registry.call("twice", {"n": "21"})
    assert result.error is not None
    assert result.error.kind == "invalid_arguments"
    assert '$.n: the string "21" is not an integer' in result.text
    assert "the integer 5 is not a string" in registry.call("shout", {"text": 5}).text
    assert (
        "$.ns[1]: the number 2.5 is not an integer" in registry.call("total", {"ns": [1, 2.5]}).text
    )
    assert registry.call("total", {"ns": [1, 2.0]}).value == 3
    assert registry.call("twice", {"n": "21"}).value is None


def test_a_literal_annotation_refuses_a_value_outside_it(run_line, tmp_path):
    manifest = "version: 1\ntools:\n" + tool(
        "pick", "pick", "{name: mode, type: string, description: How to run it}"
    )
    project(tmp_path, manifest)
    call = ("call", "pick", "-m", "tools.yaml", "--allow-handlers", MODULE)
    assert run_line(*call, "--args", '{"mode": "fast"}', cwd=tmp_path).stdout == "fast\n"
    refused = run_line(*call, "--args", '{"mode": "quick"}', cwd=tmp_path)
    assert refused.exit_code == 1
    assert '$.mode: the string "quick" is not one of "fast", "slow"' in refused.stderr


# ------------------------------------------ parameter types with no JSON form: TD116, located
UNUSABLE = '''
from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import TypedDict

import pydantic


@dataclass
class Node:
    name: str
    children: list[Node] = field(default_factory=list)


class Folder(TypedDict):
    name: str
    folders: list[Folder]


class Connection(TypedDict):
    sock: socket.socket


class Wire(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(arbitrary_types_allowed=True)
    sock: socket.socket


def tree(root: Node) -> str:
    """Walk a tree of nodes."""
    return root.name + "".join(tree(child) for child in root.children)


def folders(top: Folder) -> str:
    """Walk a tree of folders."""
    return top["name"]


def connect(conn: Connection) -> str:
    """Use a connection."""
    return "ok"


def wire(w: Wire) -> str:
    """Use a wire."""
    return "ok"


def ok(n: int) -> int:
    """Return a whole number."""
    return n
'''

OTHER_TOOL = (
    "  - name: other\n"
    f"    handler: {MODULE}:ok\n"
    "    description: A tool whose default breaks its own type, in the same file.\n"
    "    params:\n"
    "      - {name: n, type: integer, default: many, description: The number}\n"
)


@pytest.mark.parametrize(
    "case",
    [
        ("tree", "parameter 'root': field children: type lmprobe.Node contains itself", True),
        ("folders", "parameter 'top': field folders: type lmprobe.Folder contains itself", True),
        ("connect", "parameter 'conn': field sock: type socket.socket has no JSON form", False),
        ("wire", "parameter 'w': pydantic model lmprobe.Wire has no JSON Schema", False),
    ],
)
@pytest.mark.parametrize("kind", ["tools", "prompts"])
def test_an_unusable_parameter_type_is_td116_at_the_handler_and_the_rest_is_still_linted(
    run_line, tmp_path, case, kind
):
    handler, words, static_too = case
    entry = (
        f"{kind}:\n  - name: broken\n    handler: {MODULE}:{handler}\n"
        "    description: A declaration whose handler has an unusable parameter type.\n"
    )
    project(tmp_path, f"version: 1\n{entry}" + ("" if kind == "tools" else "tools:\n")
            + OTHER_TOOL, UNUSABLE)  # fmt: skip
    for mode in [()] + ([("--static",)] if static_too else []):
        done = lint(run_line, tmp_path, *mode)
        assert done.exit_code == 1, done.output
        assert "TD299" not in done.stdout
        assert f"tools.yaml:4:14: TD116 {words}" in done.stdout, (mode, done.stdout)
        assert "TD108 parameter 'n': default" in done.stdout  # the other tool is still checked


def test_the_python_api_raises_td116_for_a_type_that_contains_itself(monkeypatch):
    import sys
    from types import ModuleType

    from tooldeck import RegistrationError

    module = ModuleType("lmprobe_api")
    monkeypatch.setitem(sys.modules, "lmprobe_api", module)  # dataclasses look their module up
    exec(textwrap.dedent(UNUSABLE), module.__dict__)
    for handler, words in [
        (module.tree, "field children: type lmprobe_api.Node contains itself"),
        (module.wire, "pydantic model lmprobe_api.Wire has no JSON Schema"),
    ]:
        with pytest.raises(RegistrationError) as raised:
            ToolRegistry().add_tool(None, None, handler)
        assert raised.value.code == "TD116"
        assert words in str(raised.value)


def test_a_declared_object_for_a_self_containing_dataclass_loads_and_converts(run_line, tmp_path):
    manifest = "version: 1\ntools:\n" + tool(
        "tree", "tree", "{name: root, type: object, description: The root of the tree}"
    )
    project(tmp_path, manifest, UNUSABLE)
    assert lint(run_line, tmp_path).exit_code == 0
    arguments = {"root": {"name": "a", "children": [{"name": "b", "children": []}]}}
    done = run_line("call", "tree", "-m", "tools.yaml", "--allow-handlers", MODULE,
                    "--args", json.dumps(arguments), cwd=tmp_path)  # fmt: skip
    assert (done.exit_code, done.stdout) == (0, "ab\n"), done.output


# --------------------------------------------------------- TD108: every bad default, and why
BAD_DEFAULTS = """\
version: 1
tools:
  - name: first
    handler: lmprobe:ok
    description: A tool whose defaults break their own declarations.
    params:
      - {name: n, type: integer, enum: [1, 2], default: 3, description: The number}
      - {name: m, type: integer, maximum: 2, default: 3, description: Another one}
      - name: o
        type: object
        description: Options of the call
        properties:
          - {name: depth, type: integer, minimum: 1, default: 0}
          - {name: tags, type: array, items: {type: string, max_length: 2}, default: [ok, long]}
  - name: second
    handler: lmprobe:ok
    description: Another tool, in the same file, with a default of the wrong type.
    params:
      - {name: n, type: integer, default: many, description: The number}
"""


@pytest.mark.parametrize("mode", [(), ("--static",)], ids=["imported", "static"])
def test_one_lint_run_reports_every_bad_default_where_it_is_and_why(run_line, tmp_path, mode):
    project(tmp_path, BAD_DEFAULTS, UNUSABLE)
    done = lint(run_line, tmp_path, *mode)
    assert done.exit_code == 1
    found = [line for line in done.stdout.splitlines() if " TD108 " in line]
    assert found == [
        f"{at(BAD_DEFAULTS, 7, 'default: 3')} TD108 parameter 'n': default 3 is not one of 1, 2",
        f"{at(BAD_DEFAULTS, 8, 'default: 3')} TD108 parameter 'm': default 3 is greater than "
        "the maximum of 2",
        f"{at(BAD_DEFAULTS, 13, 'default: 0')} TD108 parameter 'o': field depth: default 0 is "
        "less than the minimum of 1",
        f"{at(BAD_DEFAULTS, 14, 'default: [')} TD108 parameter 'o': field tags: default "
        '["ok", "long"] is not valid: at [1]: must have at most 2 characters, got 4',
        f"{at(BAD_DEFAULTS, 19, 'default: many')} TD108 parameter 'n': default \"many\" is "
        'not valid: expected integer, got string "many"',
    ], done.stdout


def at(text: str, line: int, key_and_value: str) -> str:
    """``tools.yaml:LINE:COL:`` of the value in ``key: value`` on ``line`` of ``text``."""
    written = text.splitlines()[line - 1]
    column = written.index(key_and_value) + key_and_value.index(": ") + 3
    return f"tools.yaml:{line}:{column}:"


# ------------------------------------------------------------- a format written as a type
@pytest.mark.parametrize(
    ("written", "fmt"),
    [("date", "date"), ("datetime", "date-time"), ("uri", "uri"), ("email", "email")],
)
def test_a_format_written_as_a_type_gets_the_string_and_format_hint(
    run_line, tmp_path, written, fmt
):
    manifest = "version: 1\ntools:\n" + tool(
        "shout", "shout", f"{{name: text, type: {written}, description: The text to shout}}"
    )
    project(tmp_path, manifest)
    done = lint(run_line, tmp_path)
    assert done.exit_code == 1
    assert (
        f'TD213 unknown type "{written}"; JSON has no {written} type: write type: string with '
        f"format: {fmt}"
    ) in done.stdout
    assert "did you mean" not in done.stdout
    with pytest.raises(Exception, match=f"declare type 'string' with format='{fmt}'"):
        Param("text", written)


# ------------------------------------------------------- a key indented less than its siblings
INDENTED = """\
version: 1
tools:
  - name: read
    handler: tooldeck.handlers.files:read_file
    description: Read a file of the project as plain text lines.
    params:
      - name: path
        type: string
{indent}description: Path relative to the project
"""


@pytest.mark.parametrize(("spaces", "by"), [(7, 1), (6, 2), (5, 3)])
def test_a_key_indented_less_than_its_siblings_is_to_be_indented_not_given_a_dash(
    run_line, tmp_path, spaces, by
):
    (tmp_path / "tools.yaml").write_text(INDENTED.format(indent=" " * spaces), encoding="utf-8")
    done = run_line("lint", "tools.yaml", cwd=tmp_path)
    assert done.exit_code == 1
    assert f"tools.yaml:9:{spaces + 1}: TD204 this key is indented {spaces} spaces, less than" in (
        done.stdout
    )
    assert f"indent it by {by} to line up with" in done.stdout
    assert "add the '- '" not in done.stdout


def test_a_key_the_item_above_already_has_starts_a_new_item_that_needs_its_dash(run_line, tmp_path):
    text = INDENTED.format(indent="      ").replace("      description", "      name: other\n#")
    (tmp_path / "tools.yaml").write_text(text, encoding="utf-8")
    done = run_line("lint", "tools.yaml", cwd=tmp_path)
    assert (
        "tools.yaml:9:7: TD204 a list item must start with '- ' at column 7: the item above "
        "already has 'name'; add the '- '"
    ) in done.stdout
