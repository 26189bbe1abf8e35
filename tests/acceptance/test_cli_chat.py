"""``tooldeck chat`` in-process, against the scripted OpenAI-compatible server on loopback.

``OPENAI_BASE_URL`` points the real ``openai`` client at the server, as it would
at vLLM or Ollama; the server records every request, so the tests see what the
command sent as well as what it printed.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.integration.openai_server import Turn, call, say
from tests.scripted_model import model, server

__all__ = ["model", "server"]  # fixtures, used by name

MANIFESTS = ROOT / "manifests"
FILE_TOOLS = ["read_file", "list_dir", "search_text", "file_info"]
GIT_TOOLS = ["git_status", "git_diff", "git_log", "git_show"]
PLAIN_TOOLS = FILE_TOOLS + GIT_TOOLS
"""What the bundled manifests offer with no config: the read-only file and git tools."""


@pytest.fixture
def chat(run_line, model, tmp_path):
    """``tooldeck chat`` with the bundled file tools confined to ``tmp_path``."""
    (tmp_path / "notes.txt").write_text("hello from notes\n", encoding="utf-8")

    def run(*args: str | Path, stdin: str = "", key: str | None = "test", manifests=MANIFESTS):
        env = {"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": key}
        return run_line(
            "chat",
            "-m",
            manifests,
            "--project-dir",
            tmp_path,
            "--model",
            "m",
            *args,
            env=env,
            stdin=stdin,
        )

    return run


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_question_is_answered_and_each_call_is_shown_as_it_happens(chat, model, api):
    model.script(
        Turn(calls=(call("read_file", {"path": "notes.txt"}, "c1"),)),
        say("Your notes say hello."),
    )
    done = chat("--api", api, "What do my notes say?")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "Your notes say hello.\n"
    assert done.stderr == '-> read_file {"path": "notes.txt"}\n<- hello from notes\n'

    first, second = model.requests
    assert first.path == ("/v1/responses" if api == "responses" else "/v1/chat/completions")
    tools = first.body["tools"]
    names = [t["name"] if api == "responses" else t["function"]["name"] for t in tools]
    assert names == PLAIN_TOOLS
    if api == "responses":
        [output] = [i for i in second.body["input"] if i.get("type") == "function_call_output"]
        assert output["call_id"] == "c1"
    else:
        [output] = [m for m in second.body["messages"] if m["role"] == "tool"]
        assert output["tool_call_id"] == "c1"


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_without_a_question_each_line_of_stdin_goes_on_with_the_conversation(chat, model, api):
    model.script(say("First answer."), say("Second answer."))
    done = chat("--api", api, stdin="first question\n\nsecond question\n")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "First answer.\nSecond answer.\n"
    key = "input" if api == "responses" else "messages"
    first, second = (r.body[key] for r in model.requests)
    assert first == [{"role": "user", "content": "first question"}]
    assert second[0] == first[0]
    assert second[-1] == {"role": "user", "content": "second question"}
    assert len(second) == 3  # the first answer in between


def test_instructions_go_where_each_api_takes_them(chat, model):
    model.script(say("a"), say("b"))
    assert chat("--instructions", "Be brief.", "hi").exit_code == 0
    assert chat("--api", "chat", "--instructions", "Be brief.", "hi").exit_code == 0
    responses, completions = (r.body for r in model.requests)
    assert responses["instructions"] == "Be brief."
    assert completions["messages"][0] == {"role": "system", "content": "Be brief."}


def test_selectors_narrow_the_tools_and_a_wrong_one_is_a_usage_error(chat, model):
    model.script(say("ok"))
    assert chat("--tool", "read_file", "--tool", "list_dir", "hi").exit_code == 0
    assert [t["name"] for t in model.requests[0].body["tools"]] == ["read_file", "list_dir"]
    done = chat("--tool", "nope", "hi")
    assert done.exit_code == 2
    assert "unknown tool 'nope'" in done.stderr
    assert len(model.requests) == 1  # nothing sent


SIDE_EFFECTS = textwrap.dedent(
    """\
    version: 1
    tools:
      - name: touch
        handler: tests.acceptance.side_handlers:touch
        description: Create an empty file with the given name in the project directory.
        side_effects: true
        effect: Creates a file in the project directory
        params:
          - {name: name, description: "File name to create"}
    """
)


def test_side_effects_are_denied_without_a_terminal_and_approved_with_yes(chat, model, tmp_path):
    manifest = tmp_path / "touch.yaml"
    manifest.write_text(SIDE_EFFECTS, encoding="utf-8")
    made = tmp_path / "made.txt"
    touch = Turn(calls=(call("touch", {"name": "made.txt"}, "t1"),))
    model.script(touch, say("Could not."), touch, say("Done."))
    args = ("--allow-handlers", "tests.acceptance", "make it")

    denied = chat(*args, manifests=manifest)
    assert denied.exit_code == 0, denied.stderr  # the model was told, and answered
    assert "<- Error (denied)" in denied.stderr
    assert "`tooldeck chat` with --yes" in denied.stderr
    assert not made.exists()
    [output] = [i for i in model.requests[1].body["input"] if "output" in i]
    assert output["output"].startswith("Error (denied)")

    approved = chat(*args, "--yes", manifests=manifest)
    assert approved.exit_code == 0, approved.stderr
    assert "<- created made.txt" in approved.stderr
    assert approved.stdout == "Done.\n"
    assert made.exists()


def test_hosted_entries_are_left_out_of_chat_completions_with_a_warning(chat, model, tmp_path):
    manifest = tmp_path / "hosted.yaml"
    manifest.write_text(
        "version: 1\nweb_search: {type: web_search, city: Oslo, country: 'NO'}\n",
        encoding="utf-8",
    )
    model.script(say("a"), say("b"))
    done = chat("--api", "chat", "hi", manifests=manifest)
    assert done.exit_code == 0, done.stderr
    assert "tooldeck: warning: hosted web search (web_search) left out" in done.stderr
    assert "tools" not in model.requests[0].body
    assert chat("hi", manifests=manifest).exit_code == 0
    assert model.requests[1].body["tools"][0]["type"] == "web_search"


def test_running_out_of_turns_fails_with_exit_1(chat, model):
    model.script(*(Turn(calls=(call("list_dir", {}, f"c{n}"),)) for n in range(2)))
    done = chat("--max-turns", "2", "loop")
    assert done.exit_code == 1
    assert "after 2 turns (max_turns=2)" in done.stderr
    assert done.stdout == ""


def test_a_failed_request_fails_with_exit_1(chat, model):
    done = chat("hi")  # the script is empty: the server answers 400
    assert done.exit_code == 1
    assert "tooldeck: the model request failed" in done.stderr
    assert "no more turns" in done.stderr


def test_a_base_url_without_a_key_works_and_neither_is_a_usage_error(chat, model, run_line):
    model.script(say("local"))
    done = chat("hi", key=None)
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "local\n"
    bare = run_line(
        "chat",
        "--model",
        "m",
        "hi",
        env={"OPENAI_BASE_URL": None, "OPENAI_API_KEY": None},
    )
    assert bare.exit_code == 2
    assert "set OPENAI_API_KEY" in bare.stderr


@pytest.mark.slow
def test_an_attached_mcp_servers_tools_are_offered_and_called(chat, model, tmp_path):
    manifest = tmp_path / "time.yaml"
    command = json.dumps([sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"])
    manifest.write_text(
        f"version: 1\nmcp_servers:\n  - name: time\n    command: {command}\n    via: client\n",
        encoding="utf-8",
    )
    model.script(
        Turn(calls=(call("get_current_time", {"timezone": "Asia/Tokyo"}, "t1"),)),
        say("Evening in Tokyo."),
    )
    done = chat("What time is it in Tokyo?", manifests=manifest)
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "Evening in Tokyo.\n"
    names = [t["name"] for t in model.requests[0].body["tools"]]
    assert names == ["get_current_time", "convert_time"]
    assert '-> get_current_time {"timezone": "Asia/Tokyo"}\n<- {' in done.stderr
    [output] = [i for i in model.requests[1].body["input"] if "output" in i]
    assert json.loads(output["output"])["timezone"] == "Asia/Tokyo"
