"""``tooldeck chat`` writes the answer as the model streams it.

The scripted server holds its reply after some words until the test
releases it: the first words must reach the command's standard output
while the rest has not been sent, so they were written and flushed as they
came (no timing involved: the server cannot finish before the release).
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator

import pytest

from tests.conftest import ROOT, SCRIPTS
from tests.integration.openai_server import ScriptedServer, Turn, call, say

MANIFESTS = ROOT / "manifests"
WORDS = "one two three four five six seven eight"


@pytest.fixture
def held() -> Iterator[ScriptedServer]:
    with ScriptedServer(hold_after=6) as running:
        yield running
        running.release.set()


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_the_first_words_are_out_before_the_reply_has_ended(held, tmp_path, api):
    held.script(say(WORDS))
    env = {**os.environ, "OPENAI_BASE_URL": held.url, "OPENAI_API_KEY": "test"}
    command = [str(SCRIPTS / "tooldeck"), "chat", "-m", str(MANIFESTS), "--project-dir"]
    command += [str(tmp_path), "--model", "m", "--api", api, "Count"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True, cwd=tmp_path
    ) as process:
        seen: list[str] = []
        early = threading.Event()

        def read() -> None:
            assert process.stdout is not None
            while piece := process.stdout.read(1):
                seen.append(piece)
                if "".join(seen).startswith("one two three"):
                    early.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert held.held.wait(60)
        assert early.wait(60), "".join(seen)  # the reply is held: only a flush gets them out
        held.release.set()
        assert process.wait(60) == 0, process.stderr.read() if process.stderr else ""
        reader.join(10)
    assert "".join(seen) == WORDS + "\n"


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_text_beside_calls_is_its_own_line_and_the_calls_still_show(run_line, tmp_path, api):
    (tmp_path / "notes.txt").write_text("hello from notes\n", encoding="utf-8")
    with ScriptedServer() as model:
        model.script(
            Turn(calls=(call("read_file", {"path": "notes.txt"}, "c1"),), text="Let me look."),
            say("Your notes say hello."),
        )
        done = run_line(
            "chat",
            "-m",
            MANIFESTS,
            "--project-dir",
            tmp_path,
            "--model",
            "m",
            "--api",
            api,
            "What do my notes say?",
            env={"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "test"},
        )
        assert all(r.body["stream"] is True for r in model.requests)
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "Let me look.\nYour notes say hello.\n"
    assert done.stderr == '-> read_file {"path": "notes.txt"}\n<- hello from notes\n'
