"""Credentials never reach what the CLI prints: server urls, the model's API key, bearer tokens.

The attack, or the accident: ``tooldeck list`` pasted into an issue, a CI log,
a screen share. A ``via: client`` or hosted MCP server's url may carry a
password (``https://user:pass@host``) or a key in its query
(``?api_key=...``); a model endpoint that refuses a request may echo the
``Authorization`` header, the client's API key, in its error body. Each is
``***`` in every form the CLI prints (text and ``--json``), as the MCP
client's own errors already show them; the exact values still go where they
are used (the connection, the provider).

Every test runs the real command in-process (``run_line``) and checks the
whole transcript, standard output and error.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.integration.openai_server import Recorded, ScriptedServer, Turn, call, say

PASSWORD = "Pw-hunter2-7788"
QUERY_KEY = "qk_live_5511aa"
API_KEY = "sk-test-Zq81kLmN0pQrStUv"
PROXY_TOKEN = "ghp_Proxy0Token9876xyz"
"""A token tooldeck never saw: only its ``Bearer`` prefix gives it away."""


def assert_masked(text: str, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in text, f"{secret!r} is printed"
        assert secret[:8] not in text, f"the start of {secret!r} is printed"


# ------------------------------------------------------------ server urls
def _manifest(tmp_path: Path, via: str) -> Path:
    url = f"http://user:{PASSWORD}@127.0.0.1:9/mcp?api_key={QUERY_KEY}&v=2"
    (tmp_path / "servers.yaml").write_text(
        textwrap.dedent(
            f"""\
            version: 1
            mcp_servers:
              - name: remote
                url: "{url}"
                via: {via}
            """
        ),
        encoding="utf-8",
    )
    return tmp_path


@pytest.mark.parametrize("via", ["client", "hosted"])
@pytest.mark.parametrize("form", [(), ("--json",)])
def test_list_masks_a_servers_url_password_and_query_keys(run_line, tmp_path, via, form):
    folder = _manifest(tmp_path, via)
    done = run_line("list", "-m", "servers.yaml", "--offline", *form, cwd=folder)
    assert done.exit_code == 0, done.stderr
    assert_masked(done.output, PASSWORD, QUERY_KEY)
    shown = "http://user:***@127.0.0.1:9/mcp?api_key=***"
    if form:
        [server] = json.loads(done.stdout)["mcp_servers"]
        assert server["url"].startswith(shown)
    else:
        assert shown in done.stdout


def test_list_masks_the_url_of_a_server_it_could_not_reach(run_line, tmp_path):
    folder = _manifest(tmp_path, "client")
    done = run_line("list", "-m", "servers.yaml", "--connect-timeout", "5", cwd=folder)
    assert "unavailable" in done.stdout  # the failure is reported, and the url shown, masked
    assert_masked(done.output, PASSWORD, QUERY_KEY)


# --------------------------------------------------------------- the model
@dataclass
class RefusingModel(ScriptedServer):
    """The scripted model server, answering with an error body when one is queued."""

    failures: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    def reply(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if self.failures:
                self.requests.append(Recorded(path, body))
                return self.failures.pop(0)
        return super().reply(path, body)


@pytest.fixture(scope="module")
def model_server() -> Iterator[RefusingModel]:
    with RefusingModel() as running:
        yield running


@pytest.fixture
def model(model_server: RefusingModel) -> RefusingModel:
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
            env={"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": API_KEY},
        )

    return run


ECHOES = {
    "header": f"Invalid token in header Authorization: Bearer {API_KEY}",
    "key": f"Incorrect API key provided: {API_KEY}. Check your key.",
    "quoted": f"rejected {json.dumps({'authorization': f'Bearer {API_KEY}'})}",
    "cut": f"Incorrect API key provided: {API_KEY[:12]}...",
}
"""Error messages echoing the key: in a header, bare, JSON-quoted, cut off."""


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("echo", sorted(ECHOES))
def test_an_error_body_echoing_the_api_key_is_masked(chat, model, api, echo):
    model.failures.append((401, {"error": {"message": ECHOES[echo], "type": "auth"}}))
    done = chat("hi", api=api)
    assert done.exit_code == 1
    assert "the model request failed: Error code: 401" in done.stderr
    assert "***" in done.stderr
    assert_masked(done.output, API_KEY)
    assert model.requests[0].path.endswith(("/responses", "/chat/completions"))


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "Basic"])
def test_an_error_body_echoing_another_token_is_masked(chat, model, scheme):
    message = f"proxy refused Authorization: {scheme} {PROXY_TOKEN} (expired)"
    model.failures.append((403, {"error": {"message": message, "type": "auth"}}))
    done = chat("hi")
    assert done.exit_code == 1
    assert f"{scheme} *** (expired)" in done.stderr
    assert_masked(done.output, PROXY_TOKEN)


def test_the_api_key_in_an_answer_or_a_tool_call_is_masked(chat, model):
    model.script(
        Turn(calls=(call("read_file", {"path": f"{API_KEY}.txt"}, "c1"),)),
        say(f"Your key is {API_KEY}."),
    )
    done = chat("hi")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "Your key is ***.\n"
    assert '-> read_file {"path": "***.txt"}' in done.stderr
    assert_masked(done.output, API_KEY)
