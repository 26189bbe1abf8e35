"""``tooldeck serve --transport http --auth ...`` as an operator runs it (subprocesses)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.security.serve_auth_helpers import INIT, free_port, mcp_session, text_of
from tests.serve_process import serve_process
from tooldeck.mcp._http import hash_token

pytestmark = pytest.mark.slow

TOOLDECK = Path(sys.executable).parent / "tooldeck"
DEADLINE = 30.0
TOKEN = "operator-token-0123456789"
MANIFEST = """\
version: 1
tools:
  - name: shout
    handler: shout_handlers:shout
    description: Shout a word.
    params:
      - {name: word, description: "The word"}
"""
SERVE = ("serve", "-m", "tools.yaml", "--offline", "--allow-handlers", "shout_handlers")
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "shout_handlers.py").write_text(
        "def shout(word: str) -> str:\n    return word.upper()\n", encoding="utf-8"
    )
    (tmp_path / "tools.yaml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "tokens.yaml").write_text(
        f"- sha256: {hash_token(TOKEN)}\n  subject: operator\n", encoding="utf-8"
    )
    return tmp_path


def serve(project: Path, *extra: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    argv = [str(TOOLDECK), *SERVE, *extra]
    return subprocess.run(
        argv,
        check=False,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        input=stdin,
    )


@contextlib.contextmanager
def running(project: Path, port: int, *extra: str) -> Iterator[Path]:
    argv = [str(TOOLDECK), *SERVE, "--transport", "http", "--port", str(port), *extra]
    log = project / "serve.log"
    with serve_process(argv, cwd=project, port=port, log=log, deadline=DEADLINE):
        yield log


async def test_the_cli_serves_bearer_tokens(project: Path):
    port = free_port()
    with running(project, port, "--auth", "bearer", "--tokens", "tokens.yaml") as log:
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx2.post(url, json=INIT, headers=ACCEPT, timeout=30).status_code == 401
        async with mcp_session(url, TOKEN) as session:
            assert text_of(await session.call_tool("shout", {"word": "hi"})) == "HI"
        assert "authentication: bearer tokens from tokens.yaml" in log.read_text()


def test_a_public_bind_without_auth_is_a_usage_error(project: Path):
    done = serve(project, "--transport", "http", "--host", "0.0.0.0", "--allowed-host", "x")
    assert done.returncode == 2
    assert "--insecure-no-auth" in done.stderr


def test_insecure_no_auth_serves_and_says_so_loudly(project: Path):
    port = free_port()
    extra = ("--host", "0.0.0.0", "--allowed-host", "tools.example", "--insecure-no-auth")
    with running(project, port, *extra) as log:
        headers = dict(ACCEPT, Host="tools.example")
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx2.post(url, json=INIT, headers=headers, timeout=30).status_code == 200
        assert "NOTHING IS AUTHENTICATED" in log.read_text()


HS = ("--jwt-algorithm", "HS256")


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--auth", "bearer"), "--tokens"),
        (("--auth", "jwt", "--jwks-url", "https://x/jwks"), "--audience"),
        (("--auth", "jwt", "--audience", "https://x/mcp"), "--jwks-url"),
        (("--auth", "none", "--tokens", "tokens.yaml"), "--tokens applies to --auth bearer"),
        (
            ("--auth", "jwt", "--audience", "https://x/mcp", "--jwks-url", "https://x/j", *HS),
            "HS256 is refused",
        ),
    ],
)
def test_missing_or_unsafe_flags_are_usage_errors(
    project: Path, flags: tuple[str, ...], words: str
):
    done = serve(project, "--transport", "http", *flags)
    assert done.returncode == 2, done.stderr
    assert words in done.stderr


def test_a_tokens_file_with_a_token_in_clear_is_refused_with_its_line(project: Path):
    (project / "tokens.yaml").write_text(
        f"- sha256: {hash_token(TOKEN)}\n  subject: a\n- subject: b\n  token: hunter2hunter2\n",
        encoding="utf-8",
    )
    done = serve(project, "--transport", "http", "--auth", "bearer", "--tokens", "tokens.yaml")
    assert done.returncode == 2
    assert "tokens.yaml:4:" in done.stderr
    assert "in clear is refused" in done.stderr
    assert "hunter2" not in done.stderr


def test_hash_token_prints_the_entry_for_a_piped_token(project: Path):
    done = serve(project, "--hash-token", stdin=TOKEN + "\n")
    assert done.returncode == 0
    assert f"sha256: {hash_token(TOKEN)}" in done.stdout
    assert TOKEN not in done.stdout + done.stderr
    assert serve(project, "--hash-token", stdin="").returncode == 2
    assert serve(project, "--hash-token", stdin="short").returncode == 2


SCOPED = """\
version: 1
tools:
  - name: shout
    handler: shout_handlers:shout
    description: Shout a word.
    auth: {scopes: ["words:write"]}
    params:
      - {name: word, description: "The word"}
  - name: greet_me
    handler: shout_handlers:shout
    description: Shout the caller's email.
    params:
      - {name: word, description: "The caller's email", from_auth: email}
"""


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_tools_that_need_an_identity_are_named_when_nobody_is_authenticated(
    project: Path, transport: str
) -> None:
    # Stdio ends when its input does; over HTTP the server runs until stopped.
    (project / "tools.yaml").write_text(SCOPED, encoding="utf-8")
    if transport == "stdio":
        done = serve(project, stdin="")
        stderr = done.stderr
    else:
        port = free_port()
        with running(project, port) as log:
            stderr = log.read_text()
    assert "1 tool declares scopes (shout), which are not checked" in stderr
    assert "1 tool declares from_auth parameters (greet_me)" in stderr
    assert "every call fails" in stderr


def test_no_warning_when_tokens_are_checked(project: Path) -> None:
    (project / "tools.yaml").write_text(SCOPED, encoding="utf-8")
    port = free_port()
    with running(project, port, "--auth", "bearer", "--tokens", "tokens.yaml") as log:
        assert "warning" not in log.read_text()
