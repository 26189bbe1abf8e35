"""Text from outside reaches the terminal as text: no escape sequence, C1 or bidi control.

The attack: a manifest, an attached MCP server or a model puts terminal
controls in a tool's name, description, result, arguments, error or answer
(clear the screen ``ESC [2J``, set the title ``ESC ]0;...BEL``, write the
clipboard with OSC 52, a C1 CSI ``U+009B``, a carriage return that goes back
over the line, a right-to-left override that hides text). Every command is run
for real (in-process through ``run_line``, or as a process when an MCP server
is attached, to see every byte a process writes) and its whole transcript,
stdout and stderr, must hold none of them; each must be visible instead, as
``\\uXXXX``. ``--json`` output must still parse to exactly the data sent.

Names are refused where they enter: a manifest's (TD213), code's
(``RegistrationError``), an attached server's (left out and reported), a
model's (an error output that does not quote it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, SCRIPTS, RunLine
from tests.integration.openai_server import Recorded, ScriptedServer, Turn, call, say
from tests.security.hostile_mcp_server import HOSTILE, ODD_NAMES
from tooldeck import ToolRegistry
from tooldeck._errors import RegistrationError
from tooldeck._model import McpServerSpec

SERVER = Path(__file__).with_name("hostile_mcp_server.py")

INERT = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)
"""What must never reach a terminal from outside: C0 but tab and line ends, DEL, C1, bidi."""

SHOWN = "\\u001b[2J\\u001b]0;pwned\\u0007"
"""How the start of :data:`HOSTILE` must look instead: visible, inert."""


def assert_inert(*texts: str) -> None:
    for text in texts:
        found = INERT.search(text)
        if found is not None:
            start = found.start()
            around = text[max(0, start - 60) : start + 20]
            pytest.fail(f"{found.group()!r} reached the terminal: ...{around!r}")


def _yaml(value: str) -> str:
    """``value`` as a YAML double-quoted string (JSON's escapes are YAML's too)."""
    return json.dumps(value)


# ------------------------------------------------------------------ a manifest
HANDLERS = f"""\
HOSTILE = {HOSTILE!r}


def describe(text: str) -> str:
    return "first line" + HOSTILE + "\\nsecond line" + HOSTILE


def structured(text: str) -> dict:
    return {{"text": "value" + HOSTILE, "also" + HOSTILE: [HOSTILE]}}


def fail(text: str) -> str:
    raise ValueError("it failed" + HOSTILE)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A manifest whose descriptions carry :data:`HOSTILE`, and handlers whose results do."""
    (tmp_path / "hostile_tools.py").write_text(HANDLERS, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(
        textwrap.dedent(
            f"""\
            version: 1
            bundle: hostile
            tools:
              - name: describe
                description: {_yaml("Describe the text." + HOSTILE)}
                handler: hostile_tools:describe
                params:
                  - name: text
                    description: {_yaml("The text." + HOSTILE)}
              - name: structured
                description: {_yaml("Structured." + HOSTILE + chr(10) + "second line")}
                handler: hostile_tools:structured
                params:
                  - {{name: text, description: The text to use.}}
              - name: fail
                description: Fails, saying why.
                handler: hostile_tools:fail
                params:
                  - {{name: text, description: The text to use.}}
            prompts:
              - name: greet
                description: {_yaml("Greets." + HOSTILE)}
                template: Hello.
            """
        ),
        encoding="utf-8",
    )
    return tmp_path


def tooldeck(run_line: RunLine, project: Path, *args: str):
    return run_line(*args, "-m", "tools.yaml", "--allow-handlers", "hostile_tools", cwd=project)


def test_list_shows_descriptions_as_text(run_line, project):
    done = tooldeck(run_line, project, "list")
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    assert f"Describe the text.{SHOWN}" in done.stdout
    assert f"Greets.{SHOWN}" in done.stdout
    assert "second line" not in done.stdout  # a summary is one line, whatever the text holds


def test_list_json_is_the_same_data_and_inert(run_line, project):
    done = tooldeck(run_line, project, "list", "--json")
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    listing = json.loads(done.stdout)
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert tools["describe"]["description"] == "Describe the text." + HOSTILE
    assert tools["describe"]["params"][0]["description"] == "The text." + HOSTILE
    assert listing["prompts"][0]["description"] == "Greets." + HOSTILE


@pytest.mark.parametrize("provider", ["openai-responses", "anthropic", "gemini", "mcp"])
def test_export_is_the_same_json_and_inert(run_line, project, provider):
    done = tooldeck(run_line, project, "export", "--provider", provider)
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    descriptions = _descriptions(json.loads(done.stdout))
    assert {"Describe the text." + HOSTILE, "The text." + HOSTILE} <= descriptions


def _descriptions(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "description" and isinstance(item, str):
                found.add(item)
            found |= _descriptions(item)
    elif isinstance(value, list):
        for item in value:
            found |= _descriptions(item)
    return found


def test_a_call_result_is_shown_as_text_line_by_line(run_line, project):
    done = tooldeck(run_line, project, "call", "describe", "--args", '{"text": "x"}')
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    first, second = done.stdout.splitlines()  # the result's own line break is kept
    assert first.startswith(f"first line{SHOWN}")
    assert second.startswith(f"second line{SHOWN}")


def test_a_json_result_stays_the_same_json(run_line, project):
    done = tooldeck(run_line, project, "call", "structured", "--args", '{"text": "x"}')
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    assert json.loads(done.stdout) == {"text": "value" + HOSTILE, "also" + HOSTILE: [HOSTILE]}


def test_an_error_is_shown_as_text(run_line, project):
    done = tooldeck(run_line, project, "call", "fail", "--args", '{"text": "x"}')
    assert done.exit_code == 1
    assert_inert(done.stdout, done.stderr)
    assert f"it failed{SHOWN}" in done.stderr


def test_import_writes_hostile_text_escaped_and_reads_back_the_same(run_line, tmp_path):
    definitions = [
        {
            "type": "function",
            "function": {
                "name": "describe",
                "description": "Describe." + HOSTILE,
                "parameters": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "Text." + HOSTILE}},
                },
            },
        }
    ]
    source = tmp_path / "tools.json"
    source.write_text(json.dumps(definitions), encoding="utf-8")
    done = run_line("import", "openai", source, "--handler-module", "myapp.tools", cwd=tmp_path)
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    [tool] = yaml.safe_load(done.stdout)["tools"]
    assert tool["description"] == "Describe." + HOSTILE
    assert tool["params"][0]["description"] == "Text." + HOSTILE


# ------------------------------------------------------------- names refused
def test_a_manifest_name_with_control_characters_is_a_located_error(run_line, tmp_path):
    (tmp_path / "names.yaml").write_text(
        textwrap.dedent(
            f"""\
            version: 1
            tools:
              - name: {_yaml("evil" + chr(27) + "[2Jname" + chr(10) + "fake line")}
                description: A tool whose name is hostile.
                handler: tooldeck.handlers.files:read_file
            prompts:
              - name: {_yaml("bidi" + chr(0x202E) + "exe")}
                template: Hello.
            mcp_servers:
              - name: {_yaml("srv" + chr(0x9B) + "31m")}
                command: [server]
            """
        ),
        encoding="utf-8",
    )
    done = run_line("lint", "names.yaml", "--offline", cwd=tmp_path)
    assert done.exit_code == 1
    assert_inert(done.stdout, done.stderr)
    lines = [line for line in done.stdout.splitlines() if "TD213" in line]
    assert [line.split(":")[1] for line in lines] == ["3", "7", "10"]  # where each name is


@pytest.mark.parametrize("name", ["evil\x1b[2J", "a\nb", "a\rb", "c1\x9b", "bidi\u202e", "\x7f"])
def test_a_name_with_control_characters_cannot_be_registered_in_code(name):
    registry = ToolRegistry()
    with pytest.raises(RegistrationError) as raised:
        registry.add_tool(name, "A tool.", lambda: "ok")
    assert name not in str(raised.value)
    with pytest.raises(RegistrationError):
        registry.add_prompt(name, "A prompt.", "Hello.")
    with pytest.raises(RegistrationError):
        McpServerSpec(name=name, command=("server",))
    assert not registry.tools()
    assert not registry.prompts()


# --------------------------------------------------------- an attached server
@dataclass
class Transcript:
    code: int
    stdout: str
    stderr: str

    @property
    def both(self) -> str:
        return self.stdout + self.stderr


def process(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Transcript:
    """The console script, its output as the bytes it wrote (decoded strictly)."""
    done = subprocess.run(
        [str(SCRIPTS / "tooldeck"), *args],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )
    for stream in (done.stdout, done.stderr):
        assert b"\x1b" not in stream  # ESC, checked on the bytes too
        assert b"\x07" not in stream  # BEL
    return Transcript(done.returncode, done.stdout.decode(), done.stderr.decode())


@pytest.fixture
def attached(tmp_path: Path) -> Path:
    """A manifest attaching the hostile server, one that fails to list, and a use: entry."""
    command = json.dumps([sys.executable, str(SERVER)])[:-1]
    (tmp_path / "attach.yaml").write_text(
        textwrap.dedent(
            f"""\
            version: 1
            mcp_servers:
              - name: hostile
                command: {command}, "tools"]
                via: client
              - name: refusing
                command: {command}, "list-error"]
                via: client
            tools:
              - name: described
                use: hostile/no_such_tool
            """
        ),
        encoding="utf-8",
    )
    return tmp_path


def test_an_attached_servers_listing_is_shown_as_text(attached):
    done = process("list", "-m", "attach.yaml", cwd=attached)
    assert_inert(done.both)
    assert f"Describe the text.{SHOWN}" in done.stdout
    assert f"cannot list{SHOWN}" in done.stderr  # the failing server's error
    for name in ODD_NAMES:  # never registered, each reported with why
        shown = name.replace("\n", "\\u000a").replace("\x1b", "\\u001b")
        shown = shown.replace("\u202e", "\\u202e")
        assert f"tool '{shown}' is left out: its name contains" in done.stderr


def test_an_attached_servers_listing_as_json_is_exact_and_leaves_odd_names_out(attached):
    done = process("list", "-m", "attach.yaml", "--json", cwd=attached)
    assert_inert(done.both)
    listing = json.loads(done.stdout)
    tools = {tool["name"]: tool for tool in listing["tools"]}
    assert set(tools) == {"describe", "fail", "protocol_fail"}
    assert tools["describe"]["description"] == "Describe the text." + HOSTILE
    assert tools["describe"]["params"][0]["description"] == "The text." + HOSTILE
    [status] = [s["status"] for s in listing["mcp_servers"] if s["name"] == "hostile"]
    assert sorted(status["skipped"]) == sorted(ODD_NAMES)


@pytest.mark.parametrize(
    ("tool", "code", "expected"),
    [
        ("describe", 0, f"first line{SHOWN}"),
        ("fail", 1, f"it failed{SHOWN}"),
        ("protocol_fail", 1, f"protocol failure{SHOWN}"),
    ],
)
def test_an_attached_tools_result_and_errors_are_shown_as_text(attached, tool, code, expected):
    done = process("call", "-m", "attach.yaml", tool, "--args", '{"text": "x"}', cwd=attached)
    assert done.code == code, done.stderr
    assert_inert(done.both)
    assert expected in done.both


def test_lint_quoting_a_servers_tool_names_keeps_one_diagnostic_per_line(attached):
    for form in ("text", "github"):
        done = process("lint", "attach.yaml", "--format", form, cwd=attached)
        assert_inert(done.both)
        [unresolved] = [line for line in done.stdout.splitlines() if "TD413" in line]
        assert "no_such_tool" in unresolved
        assert "evil\\u000aname" in unresolved or "evil%0Aname" in unresolved
    done = process("lint", "attach.yaml", "--format", "json", cwd=attached)
    assert_inert(done.both)
    [diagnostic] = [d for d in json.loads(done.stdout)["diagnostics"] if d["code"] == "TD413"]
    assert "evil\nname" in diagnostic["message"]  # the data is exact; only its display escapes


# ------------------------------------------------------------------ a model
@dataclass
class HostileModel(ScriptedServer):
    """The scripted model server, answering with an error body when one is queued."""

    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def reply(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if self.failures:
                self.requests.append(Recorded(path, body))
                return self.failures.pop(0)
        return super().reply(path, body)


@pytest.fixture(scope="module")
def model_server() -> Iterator[HostileModel]:
    with HostileModel() as running:
        yield running


@pytest.fixture
def model(model_server: HostileModel) -> HostileModel:
    model_server.script()
    model_server.requests.clear()
    model_server.failures.clear()
    return model_server


@pytest.fixture
def chat(run_line, model, tmp_path):
    (tmp_path / "notes.txt").write_text("hello from notes\n", encoding="utf-8")

    def run(*args: str, api: str = "responses"):
        return run_line(
            "chat",
            "-m",
            ROOT / "manifests",
            "--project-dir",
            tmp_path,
            "--model",
            "m",
            "--api",
            api,
            *args,
            env={"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "test-key"},
        )

    return run


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_model_answer_is_shown_as_text(chat, model, api):
    model.script(say("The answer." + HOSTILE + "\nsecond line" + HOSTILE))
    done = chat("hi", api=api)
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    assert done.stdout.startswith(f"The answer.{SHOWN}")


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_models_arguments_and_the_result_are_shown_as_text(chat, model, api):
    model.script(
        Turn(calls=(call("read_file", '{"path": "notes.txt' + HOSTILE + '"}', "c1"),)),
        say("done"),
    )
    done = chat("hi", api=api)
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    assert f'-> read_file {{"path": "notes.txt{SHOWN}' in done.stderr


@pytest.mark.parametrize("name", ["read_file\x1b[2J", "read\nfake line", "bidi\u202eexe", "c1\x9b"])
def test_a_tool_name_with_control_characters_gets_an_error_that_does_not_quote_it(
    chat, model, name
):
    model.script(Turn(calls=(call(name, {"path": "notes.txt"}, "c1"),)), say("done"))
    done = chat("hi")
    assert done.exit_code == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    assert len(done.stderr.splitlines()) == 2  # -> the call, <- its error: nothing faked
    [output] = [
        i for i in model.requests[1].body["input"] if i.get("type") == "function_call_output"
    ]
    assert_inert(output["output"])
    assert "no tool has that name" in output["output"]
    assert "read_file" in output["output"]  # the tools there are


def test_a_models_long_arguments_are_cut_and_indented_like_results(chat, model):
    arguments = json.dumps({"path": "notes.txt", "pad": "x" * 3000}, indent=2)
    model.script(Turn(calls=(call("read_file", arguments, "c1"),)), say("done"))
    done = chat("hi")
    assert done.exit_code == 0, done.stderr
    first, *rest = done.stderr.split("\n<- ")[0].splitlines()
    assert first == "-> read_file {"
    assert all(line.startswith("   ") for line in rest)  # never a line of its own
    assert done.stderr.split("\n<- ")[0].endswith(f"... ({len(arguments) - 2000} more characters)")


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_an_error_body_is_shown_as_text(chat, model, api):
    model.failures.append((400, {"error": {"message": "bad request" + HOSTILE, "type": "x"}}))
    done = chat("hi", api=api)
    assert done.exit_code == 1
    assert_inert(done.stdout, done.stderr)
    # Visible either way: tooldeck's \uXXXX, or Python's \xNN where the SDK's message is the
    # repr() of the body (openai 2.0 writes it so; later releases quote the JSON).
    assert f"bad request{SHOWN}" in done.stderr or (
        "bad request\\x1b[2J\\x1b]0;pwned\\x07" in done.stderr
    ), done.stderr
