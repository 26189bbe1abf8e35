"""A hosted MCP server's ``${env:...}`` credentials reach the provider, and only the provider.

The provider connects to a ``via: hosted`` server itself, so the model loop
and ``tooldeck chat`` must send the real ``authorization``, header values and
url; sending ``***`` (as they did) makes every hosted call fail. Everything
a person reads (``tooldeck export``, what ``chat`` prints, the logs) still
shows ``***``. The provider is the loopback OpenAI server, which records each
request body.
"""

from __future__ import annotations

import json
import logging
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.integration.openai_server import ScriptedServer, Turn, call, say
from tooldeck.manifest import load_manifests
from tooldeck.providers.openai import run

TOKEN = "tok-0042-secret-value"
KEY = "key-7781-secret-value"
URL_KEY = "q-5521-secret-value"
SECRETS = (TOKEN, KEY, URL_KEY)
ENV = {"MCP_TOKEN": TOKEN, "MCP_KEY": KEY, "MCP_URL_KEY": URL_KEY}

MANIFEST = """\
version: 1
mcp_servers:
  - name: wiki
    url: https://mcp.example.com/mcp?key=${env:MCP_URL_KEY}
    via: hosted
    authorization: Bearer ${env:MCP_TOKEN}
    headers: {X-Api-Key: "${env:MCP_KEY}"}
    description: The team wiki.
tools:
  - name: echo
    handler: tooldeck.handlers.files:file_info
    description: Not about ${env:MCP_KEY}.
"""

SENT = {
    "type": "mcp",
    "server_label": "wiki",
    "server_url": f"https://mcp.example.com/mcp?key={URL_KEY}",
    "server_description": "The team wiki.",
    "authorization": TOKEN,
    "headers": {"X-Api-Key": KEY},
}
"""The hosted entry as the provider must get it (no require_approval: its default)."""


@pytest.fixture
def model() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def manifests(tmp_path: Path) -> Path:
    folder = tmp_path / "manifests"
    folder.mkdir()
    (folder / "wiki.yaml").write_text(textwrap.dedent(MANIFEST), encoding="utf-8")
    return folder


def hosted_entry(body: dict[str, Any]) -> dict[str, Any]:
    [entry] = [t for t in body["tools"] if t["type"] == "mcp"]
    return entry


def test_the_loop_sends_the_real_credentials_and_logs_none(model, manifests, monkeypatch, caplog):
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    caplog.set_level(logging.DEBUG)  # every logger: tooldeck's, openai's, httpx's
    registry, loaded = load_manifests([manifests])
    assert loaded.diagnostics == []
    model.script(Turn(calls=(call("echo", {"path": TOKEN}, "c1"),)), say(f"It is {TOKEN}."))
    with registry, openai.OpenAI(base_url=model.url, api_key="test", max_retries=0) as client:
        result = run(client, model="m", input="?", registry=registry)
    first = model.requests[0].body
    assert hosted_entry(first) == SENT
    assert first["tools"][0]["description"] == "Not about ***."  # only credentials go out
    assert all(secret not in caplog.text for secret in SECRETS)
    assert TOKEN not in result.calls[0].result.text  # the result as the registry hands it back


def test_chat_sends_them_and_prints_only_masks(model, manifests, tmp_path, run_line):
    model.script(Turn(calls=(call("echo", {"path": TOKEN}, "c1"),)), say(f"It is {TOKEN}."))
    env = {"OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "test", **ENV}
    done = run_line("chat", "-m", manifests, "--model", "m", "hi", cwd=tmp_path, env=env)
    assert done.exit_code == 0, done.stderr
    assert hosted_entry(model.requests[0].body) == SENT
    assert done.stdout == "It is ***.\n"
    assert '-> echo {"path": "***"}' in done.stderr
    printed = done.stdout + done.stderr
    assert all(secret not in printed for secret in SECRETS)
    exported = run_line(
        "export", "--provider", "openai-responses", "-m", manifests, cwd=tmp_path, env=env
    )
    assert exported.exit_code == 0, exported.stderr
    entry = hosted_entry({"tools": json.loads(exported.stdout)})
    assert entry["authorization"] == "***"
    assert entry["headers"] == {"X-Api-Key": "***"}
    assert entry["server_url"] == "https://mcp.example.com/mcp?key=***"
    assert all(secret not in exported.stdout for secret in SECRETS)
