"""Attacks on the built-in tool packs that once worked, and guarantees no other test pins down.

Each attack is played by a hostile project (files, symlinks and FIFOs inside its ``.git``), a
hostile server (HTTP answers) or a hostile model (arguments). A call that could hang runs in a
daemon thread joined with a bound, so a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.packs import ctx, git, git_identity
from tooldeck import ToolFailed, ToolRegistry, load_manifests
from tooldeck.handlers.commands import run_command
from tooldeck.handlers.git import git_commit, git_diff, git_log, git_show, git_status
from tooldeck.handlers.http import http_get

__all__ = ["git_identity"]  # an autouse fixture: git runs with the test's own identity

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")

COMMIT_ON = {"tooldeck": {"git": {"commit": True, "timeout": 5}}}
RUN = ctx({"tooldeck": {"commands": {"allow": ["true"], "timeout": 5}}})


def bounded(call: Callable[[], Any], seconds: float = 10.0) -> Any:
    """The call's result or ToolFailed; fails the test (instead of hanging) if it never returns."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # handed back to the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"the call did not return within {seconds} s"
    return outcome[0]


def refused(call: Callable[[], Any], kind: str) -> ToolFailed:
    result = bounded(call)
    assert isinstance(result, ToolFailed), result
    assert result.kind == kind, result.message
    return result


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A private repository outside the project, with a branch the project knows the name of."""
    repo = make_repo(tmp_path / "victim")
    git(repo, "checkout", "-q", "-b", "secret")
    (repo / "s.txt").write_text("TOPSECRET\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "secret commit")
    return repo


# --- git: a hostile .git folder ---------------------------------------------------------------


def test_a_fifo_as_object_alternates_does_not_hang(tmp_path: Path) -> None:
    project = make_repo(tmp_path / "project")
    os.mkfifo(project / ".git" / "objects" / "info" / "alternates")
    refused(lambda: git_status(project_dir=project, context=ctx({})), "not_permitted")


def test_nested_object_alternates_outside_are_refused(tmp_path: Path, victim: Path) -> None:
    """The repository's alternate is inside the project, but that one's alternate is not."""
    project = make_repo(tmp_path / "project")
    inner = tmp_path / "project" / "inner"
    inner.mkdir()
    git(inner, "init", "-q")
    (inner / ".git" / "objects" / "info" / "alternates").write_text(
        f"{victim / '.git' / 'objects'}\n"
    )
    (project / ".git" / "objects" / "info" / "alternates").write_text(
        f"{inner / '.git' / 'objects'}\n"
    )
    secret = git(victim, "rev-parse", "secret:s.txt").strip()
    refused(lambda: git_show(ref=secret, project_dir=project, context=ctx({})), "not_permitted")


def test_git_folders_linked_outside_are_not_read(tmp_path: Path, victim: Path) -> None:
    """``.git/objects`` and ``.git/refs`` as symlinks to another repository's: git would show it."""
    project = make_repo(tmp_path / "project")
    for name in ("objects", "refs"):
        shutil.rmtree(project / ".git" / name)
        (project / ".git" / name).symlink_to(victim / ".git" / name)
    assert "TOPSECRET" in git(project, "show", "secret:s.txt")  # plain git reads it
    for call in (
        lambda: git_show(ref="secret:s.txt", project_dir=project, context=ctx({})),
        lambda: git_log(ref="secret", project_dir=project, context=ctx({})),
    ):
        refused(call, "not_permitted")


def test_a_commit_never_writes_through_a_link_in_git(tmp_path: Path) -> None:
    """``.git/logs`` linked outside: git would append the reflog line (with the model's message)
    to a file outside the project, e.g. a shell start-up file."""
    project = make_repo(tmp_path / "project")
    sink = tmp_path / "sink"
    sink.mkdir()
    shutil.rmtree(project / ".git" / "logs")
    (project / ".git" / "logs").symlink_to(sink)
    (project / "a.txt").write_text("two\n")
    refused(
        lambda: git_commit(
            "x; touch /tmp/p", all=True, project_dir=project, context=ctx(COMMIT_ON)
        ),
        "not_permitted",
    )
    assert list(sink.iterdir()) == []


def test_links_inside_the_project_are_fine(tmp_path: Path) -> None:
    project = make_repo(tmp_path / "project")
    shutil.move(project / ".git" / "logs", project / "logs-elsewhere")
    (project / ".git" / "logs").symlink_to(project / "logs-elsewhere")
    (project / "a.txt").write_text("two\n")
    done = git_commit("second", all=True, project_dir=project, context=ctx(COMMIT_ON))
    assert len(done["commit"]) == 40


def test_a_submodule_config_never_runs_a_program(tmp_path: Path) -> None:
    """A submodule's own config is never vetted: its clean filter ran on git_status, since
    ``.gitmodules`` (ignore = none) overrode ``-c diff.ignoreSubmodules=all``."""
    project = make_repo(tmp_path / "project")
    sub = make_repo(project / "sub")
    git(project, "add", "sub")
    (project / ".gitmodules").write_text('[submodule "sub"]\n\tpath = sub\n\tignore = none\n')
    git(project, "add", ".gitmodules")
    git(project, "commit", "-q", "-m", "with a submodule")
    git(project, "config", "submodule.sub.ignore", "none")
    marker = tmp_path / "ran"
    git(sub, "config", "filter.evil.clean", f"sh -c 'touch {marker}; cat'")
    (sub / ".gitattributes").write_text("* filter=evil\n")
    (sub / "a.txt").write_text("two\n")
    (project / "a.txt").write_text("two\n")
    git(project, "status")  # plain git runs it
    assert marker.exists()
    marker.unlink()
    calls = {
        "status": lambda: git_status(project_dir=project, context=ctx({})),
        "diff": lambda: git_diff(project_dir=project, context=ctx({})),
        "diff-head": lambda: git_diff(ref="HEAD", project_dir=project, context=ctx({})),
        "commit-a": lambda: git_commit("c", all=True, project_dir=project, context=ctx(COMMIT_ON)),
        "commit-sub": lambda: git_commit(
            "c", paths=["sub"], project_dir=project, context=ctx(COMMIT_ON)
        ),
    }
    for name, call in calls.items():
        bounded(call)
        assert not marker.exists(), f"git_{name} ran the submodule's filter"


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs ssh-keygen")
@pytest.mark.parametrize(
    "settings",
    [
        {"commit.gpgsign": "true", "gpg.format": "ssh", "user.signingkey": "KEY"},
        {"commit.gpgSign": "true"},
    ],
    ids=["ssh-key-outside", "gpg-default-key"],
)
def test_a_repository_cannot_have_commits_signed_with_the_users_key(
    tmp_path: Path, settings: dict[str, str]
) -> None:
    """The repository's own config turned signing on and chose the key (a private key file
    outside the project): git_commit had ssh-keygen sign the model's commit with it."""
    key = tmp_path / "home" / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    project = make_repo(tmp_path / "project")
    for name, value in settings.items():
        git(project, "config", name, str(key) if value == "KEY" else value)
    (project / "a.txt").write_text("two\n")
    failure = refused(
        lambda: git_commit("m", all=True, project_dir=project, context=ctx(COMMIT_ON)),
        "not_permitted",
    )
    assert "sign" in failure.message
    assert git(project, "log", "--format=%s") == "first\n"
    assert git_status(project_dir=project, context=ctx({}))["clean"] is False  # reading is fine


# --- http: a hostile server ---------------------------------------------------------------------


class RawServer:
    """A loopback server that answers each connection with ``script(sock)`` (after reading the
    request head), until the test ends; the script stops when the client hangs up."""

    def __init__(self, script: Callable[[socket.socket], None]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.script = script
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            head = b""
            while b"\r\n\r\n" not in head:
                data = conn.recv(4096)
                if not data:
                    return
                head += data
            self.script(conn)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def raw_server() -> Iterator[Callable[[Callable[[socket.socket], None]], RawServer]]:
    servers: list[RawServer] = []

    def start(script: Callable[[socket.socket], None]) -> RawServer:
        servers.append(RawServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def http_on(port: int, timeout: float = 0.5) -> Any:
    allow = {"allow_hosts": ["127.0.0.1"], "allow_private": True, "timeout": timeout}
    return ctx({"tooldeck": {"http": allow}})


def endless_empty_deflate_blocks(conn: socket.socket) -> None:
    """A deflate body of empty stored blocks, chunk after chunk: it never inflates to a byte."""
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: deflate\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    blocks = b"\x00\x00\x00\xff\xff" * 200  # BFINAL=0, stored, LEN=0, NLEN=0xffff
    while True:
        conn.sendall(b"%x\r\n%s\r\n" % (len(blocks), blocks))
        time.sleep(0.01)


def test_a_compressed_body_that_never_inflates_ends_at_the_deadline(raw_server: Any) -> None:
    server = raw_server(endless_empty_deflate_blocks)
    call = lambda: http_get(f"http://127.0.0.1:{server.port}/", context=http_on(server.port))  # noqa: E731
    refused(call, "timeout")


def headers_forever(conn: socket.socket) -> None:
    """A status line, then one header line every 50 ms: every read succeeds, none ends."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    while True:
        conn.sendall(b"X-Wait: a\r\n")
        time.sleep(0.05)


def body_forever(conn: socket.socket) -> None:
    """A body ended by closing the connection, one byte every 50 ms."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
    while True:
        conn.sendall(b"a")
        time.sleep(0.05)


@pytest.mark.parametrize("script", [headers_forever, body_forever])
def test_a_slow_drip_ends_at_the_deadline(raw_server: Any, script: Any) -> None:
    server = raw_server(script)
    failure = refused(
        lambda: http_get(f"http://127.0.0.1:{server.port}/", context=http_on(server.port)),
        "timeout",
    )
    assert "0.5 s" in failure.message


def test_a_huge_location_is_not_repeated_to_the_model(raw_server: Any) -> None:
    def huge_location(conn: socket.socket) -> None:
        target = b"http://127.0.0.1/" + b"a" * 60_000
        conn.sendall(
            b"HTTP/1.1 302 Found\r\nLocation: " + target + b"\r\nContent-Length: 0\r\n\r\n"
        )

    server = raw_server(huge_location)
    call = lambda: http_get(f"http://127.0.0.1:{server.port}/", context=http_on(server.port))  # noqa: E731
    failure = refused(call, "invalid_arguments")
    assert len(failure.message) < 1000


# --- a hostile model: arguments of the wrong type (a team manifest may declare them loosely) -----


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(
            lambda p: run_command("true", "-c", project_dir=p, context=RUN), id="args-str"
        ),
        pytest.param(
            lambda p: run_command("true", {"-c": 1}, project_dir=p, context=RUN), id="args-dict"
        ),
        pytest.param(
            lambda p: git_commit("m", all="false", project_dir=p, context=ctx(COMMIT_ON)),
            id="commit-all-str",
        ),
        pytest.param(
            lambda p: git_diff(staged="no", project_dir=p, context=ctx({})), id="diff-staged-str"
        ),
    ],
)
def test_arguments_are_never_coerced(tmp_path: Path, call: Callable[[Path], Any]) -> None:
    """A string for a list was split into characters, a dict became its keys, and the string
    "false" counted as true: a wrong type is now refused, never reinterpreted."""
    project = make_repo(tmp_path / "project")
    (project / "a.txt").write_text("two\n")
    failure = refused(lambda: call(project), "invalid_arguments")
    assert git(project, "log", "--format=%s") == "first\n"
    assert "must be" in failure.message


@pytest.mark.parametrize(
    ("handler", "params", "args"),
    [
        (
            "commands:run_command",
            "{name: command, type: string}",
            {"command": "true"},
        ),
        ("http:http_get", "{name: url, type: string}", {"url": "http://127.0.0.1:9/"}),
        ("git:git_commit", "{name: message, type: string}", {"message": "m", "all": True}),
    ],
)
def test_a_context_sent_by_the_model_never_enables_a_pack(
    tmp_path: Path, handler: str, params: str, args: dict[str, Any]
) -> None:
    """A team manifest that declares ``context`` for the model: the model's object arrives as
    data, never as the engine's ToolContext, so its config turns nothing on."""
    enabled = {
        "tooldeck": {
            "commands": {"allow": ["true"]},
            "http": {"allow_hosts": ["127.0.0.1"], "allow_private": True},
            "git": {"commit": True},
        }
    }
    manifest = tmp_path / "careless.yaml"
    extra = "      - {name: all, type: boolean}\n" if "all" in args else ""
    manifest.write_text(
        f"version: 1\nbundle: careless\ntools:\n  - name: tool\n"
        f"    handler: tooldeck.handlers.{handler}\n    side_effects: true\n"
        f"    params:\n      - {params}\n{extra}      - {{name: context, type: object}}\n"
    )
    project = make_repo(tmp_path / "project")
    (project / "a.txt").write_text("two\n")
    tools = ToolRegistry(project_dir=project, config={}, allow_side_effects=True)
    load_manifests([manifest], registry=tools)
    sent = {"config": enabled, "tool_name": "tool", "call_id": "1", **enabled}
    result = tools.call("tool", {**args, "context": sent})
    assert result.error is not None
    assert result.error.kind == "not_enabled", result.text
    assert git(project, "log", "--format=%s") == "first\n"
