# ruff: noqa: E501  (TIME_BODY is the exact output, lines as written)
"""``tooldeck import mcp``: list an MCP server's tools and write them as ``use:`` entries.

Against the real third-party ``mcp-server-time`` over stdio (in-process through
``run_line``, and once as a real ``tooldeck`` process), a hand-written server
for the edge cases (``mcp_import_servers.py``: names providers reject, missing
descriptions, a destructive tool, nested arguments, no tools), a Streamable
HTTP server that wants a bearer token, and servers that cannot be reached.
Every manifest written must load without a single diagnostic.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import SCRIPTS
from tooldeck._importers import ServerSource, convert_tools, render_mcp_manifest
from tooldeck.cli._importing import SourceError, default_server_name, server_source
from tooldeck.manifest import load_manifests

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "mcp_import_servers.py"
TIME = (sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC")
"""mcp-server-time as its console script runs it (``mcp_server_time:main``)."""

TIME_BODY = """\
version: 1
mcp_servers:
  - name: time
    command: mcp-server-time
    args: [--local-timezone, UTC]
    via: client
    allowed_tools: []  # only the tools below; delete this line to expose every tool the server offers as is

tools:
  - name: get_current_time
    use: time/get_current_time
    description: Get current time in a specific timezone
    idempotent: true
    args:
      timezone:
        description: IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local
          timezone if no timezone provided by the user.

  - name: convert_time
    use: time/convert_time
    description: Convert time between timezones
    idempotent: true
    args:
      source_timezone:
        description: Source IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as
          local timezone if no source timezone provided by the user.
      time:
        description: Time to convert in 24-hour format (HH:MM)
      target_timezone:
        description: Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco'). Use 'UTC'
          as local timezone if no target timezone provided by the user.
"""
"""What follows the comment header for ``tooldeck import mcp -- mcp-server-time --local-timezone UTC``."""


def loads_cleanly(path: Path, environ: dict[str, str] | None = None) -> Any:
    """Load the manifest's directory as the loader does; no diagnostics at all. The registry."""
    registry, result = load_manifests([path.parent], environ={**os.environ, **(environ or {})})
    assert result.diagnostics == [], [str(d) for d in result.diagnostics]
    return registry


def server(mode: str) -> list[str]:
    return [sys.executable, str(SERVERS), mode]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def no_traceback(text: str) -> None:
    assert "Traceback" not in text, text


# --------------------------------------------------------------- mcp-server-time


def test_time_server_in_process_writes_use_entries_that_load(tmp_path: Path, run_line) -> None:
    out = tmp_path / "manifests" / "time.yaml"
    result = run_line("import", "mcp", "-o", out, "--", *TIME, cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "imported 2 of 2 tools of MCP server 'time'" in result.stderr
    assert f"check it with: tooldeck lint {out}" in result.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=../schemas/tooldeck.schema.json\n")
    body = text[text.index("version: 1") :]
    expected = TIME_BODY.replace(
        "    command: mcp-server-time\n    args: [--local-timezone, UTC]\n",
        f"    command: {sys.executable}\n    args: [-m, mcp_server_time, --local-timezone, UTC]\n",
    )
    assert body == expected
    assert not list(out.parent.glob(".*.partial"))

    registry = loads_cleanly(out)
    uses = {use.name: use for use in registry.tool_uses()}
    assert set(uses) == {"get_current_time", "convert_time"}
    assert uses["get_current_time"].server == "time"
    assert uses["get_current_time"].tool == "get_current_time"
    assert uses["get_current_time"].description == "Get current time in a specific timezone"
    assert uses["convert_time"].arguments["time"].description == (
        "Time to convert in 24-hour format (HH:MM)"
    )
    assert (
        uses["convert_time"]
        .arguments["source_timezone"]
        .description.startswith("Source IANA timezone name")
    )
    (spec,) = registry.mcp_servers()
    assert spec.command == TIME
    assert spec.via == "client"
    assert spec.allowed_tools == ()


def plain_path() -> str:
    """``PATH`` as a process started without the virtualenv activated sees it."""
    activated = {os.path.normcase(str(SCRIPTS))}
    if os.environ.get("VIRTUAL_ENV"):
        activated.add(os.path.normcase(os.path.join(os.environ["VIRTUAL_ENV"], "bin")))
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(e for e in entries if e and os.path.normcase(e) not in activated)


NOT_ACTIVATED = {"VIRTUAL_ENV": "", "CONDA_PREFIX": ""}


def test_time_server_through_the_installed_command(tmp_path: Path, run_cli) -> None:
    """A real process in an activated virtualenv: the server's script is written by its path."""
    activated = {"PATH": f"{SCRIPTS}{os.pathsep}{plain_path()}", "VIRTUAL_ENV": sys.prefix}
    done = run_cli(
        "import", "mcp", "--", "mcp-server-time", "--local-timezone", "UTC",
        cwd=tmp_path, env={**NOT_ACTIVATED, **activated},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    script = SCRIPTS / "mcp-server-time"
    lines = done.stdout.splitlines()
    assert lines[0].startswith("# yaml-language-server: $schema=")
    assert lines[1] == (
        f"# Imported by `tooldeck import mcp` from {script} --local-timezone UTC: 2 tools."
    )
    body = TIME_BODY.replace("command: mcp-server-time", f"command: {script}")
    assert done.stdout[done.stdout.index("version: 1") :] == body
    assert (
        f"mcp-server-time is in {SCRIPTS}, which is on PATH only while its environment is "
        "activated (an MCP client starting tooldeck does not activate it); wrote its full path"
    ) in done.stderr
    assert "imported 2 of 2 tools of MCP server 'time' into standard output" in done.stderr
    no_traceback(done.stderr)
    out = tmp_path / "m" / "time.yaml"
    out.parent.mkdir()
    out.write_text(done.stdout, encoding="utf-8")
    loads_cleanly(out)


def test_a_server_of_the_virtualenv_imports_and_runs_without_activating_it(
    tmp_path: Path, run_cli
) -> None:
    """``.venv/bin/tooldeck import mcp -- mcp-server-time``, then a call, never activated."""
    plain = {**NOT_ACTIVATED, "PATH": plain_path()}
    done = run_cli(
        "import", "mcp", "-o", "manifests/time.yaml", "--", "mcp-server-time",
        "--local-timezone", "UTC", cwd=tmp_path, env=plain,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        f"mcp-server-time is not on PATH; found it in this Python's scripts folder ({SCRIPTS}) "
        "and wrote its full path"
    ) in done.stderr
    written = yaml.safe_load((tmp_path / "manifests" / "time.yaml").read_text(encoding="utf-8"))
    assert written["mcp_servers"][0]["command"] == str(SCRIPTS / "mcp-server-time")
    call = run_cli(
        "call", "convert_time", "-m", str(tmp_path / "manifests"), "--args",
        '{"source_timezone": "UTC", "time": "12:00", "target_timezone": "UTC"}',
        cwd="/", env=plain,
    )  # fmt: skip
    assert call.returncode == 0, call.stderr
    assert '"time_difference": "+0.0h"' in call.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell script on PATH")
def test_a_server_on_a_plain_path_keeps_its_word(tmp_path: Path, run_cli) -> None:
    """A command found without any virtualenv's folder is written as typed."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    wrapper = bin_folder / "time-server"
    wrapper.write_text(f'#!/bin/sh\nexec "{SCRIPTS / "mcp-server-time"}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    path = os.pathsep.join((str(SCRIPTS), str(bin_folder), plain_path()))
    done = run_cli(
        "import", "mcp", "--", "time-server",
        cwd=tmp_path, env={**NOT_ACTIVATED, "PATH": path, "VIRTUAL_ENV": sys.prefix},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "    command: time-server\n" in done.stdout
    assert "full path" not in done.stderr


def test_the_knobs_are_explained_once_at_the_top(tmp_path: Path, run_line) -> None:
    out = tmp_path / "time.yaml"
    assert run_line("import", "mcp", "-o", out, "--", *TIME).exit_code == 0
    text = out.read_text(encoding="utf-8")
    header, body = text.split("version: 1", 1)
    for knob in ("name: tz", "default: UTC", "value: UTC", "description:"):
        assert knob in header
    assert "name: tz" not in body
    assert "default:" not in body
    assert "value:" not in body


def test_server_name_option_and_overwriting(tmp_path: Path, run_line) -> None:
    out = tmp_path / "time.yaml"
    out.write_text("keep me\n", encoding="utf-8")
    refused = run_line("import", "mcp", "-o", out, "--name", "clock", "--", *TIME)
    assert refused.exit_code == 2
    assert "exists; pass --force" in refused.stderr
    assert out.read_text(encoding="utf-8") == "keep me\n"
    forced = run_line("import", "mcp", "-o", out, "--force", "--name", "clock", "--", *TIME)
    assert forced.exit_code == 0, forced.output
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert data["mcp_servers"][0]["name"] == "clock"
    assert [tool["use"] for tool in data["tools"]] == [
        "clock/get_current_time",
        "clock/convert_time",
    ]
    loads_cleanly(out)
    bad = run_line("import", "mcp", "--name", "a/b", "--", *TIME)
    assert bad.exit_code == 2
    assert "--name 'a/b'" in bad.stderr


# -------------------------------------------------------------------- edge cases


def test_edge_cases_of_names_descriptions_and_hints(tmp_path: Path, run_line) -> None:
    out = tmp_path / "edge.yaml"
    result = run_line("import", "mcp", "-o", out, "--name", "edge", "--", *server("edge"))
    assert result.exit_code == 0, result.output
    # renames are notes (shown with --verbose); a missing description is a warning
    assert "TD514" not in result.stderr
    assert "4 notes about renames and rewrites" in result.stderr
    assert "definition 4 (bare): TD515 [warning] the server gives the tool no description" in (
        result.stderr
    )
    text = out.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    tools = {tool["use"].removeprefix("edge/"): tool for tool in data["tools"]}
    names = {remote: tool["name"] for remote, tool in tools.items()}
    assert names == {
        "math.factorial": "math_factorial",
        "get weather": "get_weather_2",  # the server's own get_weather keeps its name
        "get_weather": "get_weather",
        "bare": "bare",
        "titled": "titled",
        "delete_everything": "delete_everything",
        "search": "search",
        "a$${b}": "a_b",  # written escaped: the loader reads it back as a${b}
        "n" * 80: "n" * 64,
    }
    # no description: none is written, a comment says where it goes; undescribed args listed
    assert "description" not in tools["bare"]
    assert "args" not in tools["bare"]
    bare = text[text.index("  - name: bare") : text.index("  - name: titled")]
    assert "# description: (none from the server)" in bare
    assert "# arguments the server does not describe: a, b" in bare
    # a title stands in for a missing description
    assert tools["titled"]["description"] == "A tool known by its title"
    # destructive -> side_effects, with the reason on the line; read-only wins over it
    assert tools["delete_everything"]["side_effects"] is True
    assert tools["delete_everything"]["idempotent"] is True
    assert "side_effects: true  # the server marks it destructive" in text
    assert "side_effects" not in tools["search"]
    # nested object arguments: the top-level description is copied, not the nested ones
    assert tools["search"]["args"] == {
        "query": {"description": "Words to look for."},
        "filter": {"description": "Only records matching all of these."},
    }
    assert tools["search"]["description"] == "Search records.\nFilters narrow the results down."
    assert "description: |-" in text  # a multi-line description stays readable
    # interpolation syntax from the server is escaped, never resolved
    assert tools["a$${b}"]["description"] == "Costs $${env:HOME} dollars."
    assert text.count("allowed_tools: []") == 1

    registry = loads_cleanly(out)
    uses = {use.name: use for use in registry.tool_uses()}
    assert uses["a_b"].tool == "a${b}"
    assert uses["a_b"].description == "Costs ${env:HOME} dollars."
    assert uses["a_b"].arguments["x"].description == "Not ${config:secret}."
    assert uses["math_factorial"].tool == "math.factorial"
    assert uses["get_weather_2"].tool == "get weather"
    assert uses["bare"].description is None
    assert uses["delete_everything"].side_effects is True
    assert uses["search"].side_effects is None


def test_verbose_shows_the_renames(tmp_path: Path, run_line) -> None:
    result = run_line("import", "mcp", "-v", "--name", "edge", "--", *server("edge"))
    assert result.exit_code == 0, result.output
    assert (
        "definition 1 (math.factorial): TD514 [info] the name is not one providers accept "
        "(^[a-zA-Z0-9_-]{1,64}$); the model sees it as 'math_factorial', and use: keeps the "
        "server's name"
    ) in result.stderr
    assert "TD514" in result.stderr.split("(get weather)")[1].splitlines()[0]


def test_unusable_and_repeated_names_are_skipped_with_exit_1(tmp_path: Path, run_line) -> None:
    out = tmp_path / "broken.yaml"
    result = run_line("import", "mcp", "-o", out, "--", *server("broken"))
    assert result.exit_code == 1, result.output
    assert "definition 1: TD501" in result.stderr
    assert "definition 3 (good): TD502 the server lists this name already as tool 2" in (
        result.stderr
    )
    assert "definition 4 ( padded): TD501" in result.stderr
    assert "imported 1 of 4 tools" in result.stderr
    assert "3 skipped" in result.stderr
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert [tool["name"] for tool in data["tools"]] == ["good"]
    loads_cleanly(out)


def test_a_server_without_tools(tmp_path: Path, run_line) -> None:
    out = tmp_path / "empty.yaml"
    result = run_line("import", "mcp", "-o", out, "--name", "empty", "--", *server("empty"))
    assert result.exit_code == 0, result.output
    assert "imported 0 of 0 tools" in result.stderr
    assert "the server lists no tools" in result.stderr
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\ntools: []\n")
    assert "0 tools." in text
    registry = loads_cleanly(out)
    assert registry.tool_uses() == ()
    assert [spec.name for spec in registry.mcp_servers()] == ["empty"]


# ------------------------------------------------------------------- unreachable


def test_a_command_that_does_not_exist(tmp_path: Path, run_line) -> None:
    out = tmp_path / "x.yaml"
    result = run_line("import", "mcp", "-o", out, "--", "no-such-mcp-server-xyz", "--flag")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "no-such-mcp-server-xyz --flag: TD513 cannot start the MCP server: "
        "no command 'no-such-mcp-server-xyz'"
    )
    no_traceback(result.output)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_url_with_nothing_listening(tmp_path: Path, run_line) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    out = tmp_path / "x.yaml"
    started = time.monotonic()
    result = run_line("import", "mcp", "--url", url, "--timeout", "10", "-o", out)
    assert result.exit_code == 2
    assert time.monotonic() - started < 10
    assert result.stderr.startswith(f"{url}: TD513 cannot reach the MCP server: ")
    no_traceback(result.output)
    assert not out.exists()


def test_a_server_that_never_answers_times_out(tmp_path: Path, run_line) -> None:
    started = time.monotonic()
    result = run_line("import", "mcp", "--timeout", "1", "--", *server("silent"))
    assert result.exit_code == 2
    assert time.monotonic() - started < 15
    assert "TD513" in result.stderr
    assert "within 1s (--timeout)" in result.stderr
    assert result.stdout == ""
    no_traceback(result.output)


def test_a_server_that_exits_is_quoted(run_line) -> None:
    result = run_line("import", "mcp", "--", *server("crash"))
    assert result.exit_code == 2
    assert "TD513 cannot start the MCP server" in result.stderr
    assert "boom: the server needs a configuration file" in result.stderr
    no_traceback(result.output)


def test_an_unreachable_server_through_the_installed_command(tmp_path: Path, run_cli) -> None:
    done = run_cli("import", "mcp", "-o", "x.yaml", "--", "no-such-mcp-server-xyz", cwd=tmp_path)
    assert done.returncode == 2
    assert "TD513" in done.stderr
    no_traceback(done.stderr)
    assert not (tmp_path / "x.yaml").exists()


# ------------------------------------------------------------ http and secrets


@contextlib.contextmanager
def serving(transport: str) -> Iterator[tuple[str, str]]:
    """An HTTP server wanting ``Bearer <token>`` and ``X-Team: search``: (url, token)."""
    port, token = free_port(), "s3cret-token-4711"
    process = subprocess.Popen(
        [*server(transport), str(port), token],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the HTTP MCP server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}", token
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture
def http_server() -> Iterator[tuple[str, str]]:
    with serving("http") as found:
        yield found


def test_a_url_with_a_token_from_the_environment(
    tmp_path: Path, run_line, http_server: tuple[str, str]
) -> None:
    url, token = http_server
    out = tmp_path / "remote.yaml"
    args = ["import", "mcp", "--url", url, "--header-env", "Authorization=IMPORT_MCP_TOKEN"]
    result = run_line(
        *args, "--header", "X-Team: search", "-o", out, env={"IMPORT_MCP_TOKEN": token}
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert token not in text
    assert token not in result.output
    data = yaml.safe_load(text)
    assert data["mcp_servers"] == [
        {
            "name": "local",
            "url": url,
            "headers": {"X-Team": "search"},
            "authorization": "${env:IMPORT_MCP_TOKEN}",
            "via": "client",
            "allowed_tools": [],
        }
    ]
    assert data["tools"] == [
        {
            "name": "echo",
            "use": "local/echo",
            "description": "Echo the text back.",
        }
    ]
    registry = loads_cleanly(out, environ={"IMPORT_MCP_TOKEN": token})
    (spec,) = registry.mcp_servers()
    assert spec.authorization == token

    refused = run_line(*args, "--header", "X-Team: search", "-o", tmp_path / "no.yaml")
    assert refused.exit_code == 2  # the variable is not set: nothing to send
    assert "environment variable IMPORT_MCP_TOKEN is not set" in refused.stderr

    wrong = run_line(*args, "-o", tmp_path / "no.yaml", env={"IMPORT_MCP_TOKEN": "wr0ng-t0k3n"})
    assert wrong.exit_code == 2
    assert "TD513 cannot reach the MCP server" in wrong.stderr
    assert "wr0ng-t0k3n" not in wrong.output
    no_traceback(wrong.output)
    assert not (tmp_path / "no.yaml").exists()


def test_the_legacy_sse_transport(tmp_path: Path, run_line) -> None:
    out = tmp_path / "legacy.yaml"
    with serving("sse") as (url, token):
        result = run_line(
            "import", "mcp", "--url", url, "--transport", "sse", "--name", "legacy",
            "--header-env", "Authorization=IMPORT_MCP_TOKEN", "--header", "X-Team:search",
            "-o", out, env={"IMPORT_MCP_TOKEN": token},
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert data["mcp_servers"][0]["transport"] == "sse"
    assert data["tools"][0]["use"] == "legacy/echo"
    registry = loads_cleanly(out, environ={"IMPORT_MCP_TOKEN": token})
    assert registry.mcp_servers()[0].transport == "sse"


@pytest.mark.parametrize(
    "header", ["Authorization: Bearer abc", "X-Api-Key:abc", "Cookie:a=b", "X-Auth-Token:abc"]
)
def test_literal_secret_headers_are_refused(tmp_path: Path, run_line, header: str) -> None:
    out = tmp_path / "x.yaml"
    result = run_line("import", "mcp", "--url", "http://127.0.0.1:1/mcp", "--header", header,
                      "-o", out)  # fmt: skip
    assert result.exit_code == 2
    assert "would write a secret into the manifest" in result.stderr
    assert "--header-env" in result.stderr
    assert "abc" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "name the server"),
        (["--url", "http://x/mcp", "--", "cmd"], "not both"),
        (["--transport", "sse", "--", "cmd"], "--transport applies to --url"),
        (["--header", "X-Team:a", "--", "cmd"], "--header applies to --url"),
        (["--env", "TOKEN", "--url", "http://x/mcp"], "--env applies to a command"),
        (["--url", "ftp://x/mcp"], "is not an http:// or https:// address"),
        (["--url", "http://u:pw@x/mcp"], "--url holds a password"),
        (["--url", "http://x/mcp", "--header", "nocolon"], "is not NAME:VALUE"),
        (["--url", "http://x/mcp", "--header-env", "X-Team"], "is not HEADER=VARIABLE"),
        (["--env", "1BAD", "--", "cmd"], "is not NAME or NAME=VARIABLE"),
    ],
)
def test_usage_errors(run_line, argv: list[str], message: str) -> None:
    result = run_line("import", "mcp", *argv)
    assert result.exit_code == 2
    assert message in result.stderr
    no_traceback(result.output)


def test_env_for_a_command_is_written_as_a_reference(tmp_path: Path, run_line) -> None:
    out = tmp_path / "time.yaml"
    result = run_line(
        "import", "mcp", "--env", "TZ_HINT=IMPORT_MCP_HINT", "-o", out, "--", *TIME,
        env={"IMPORT_MCP_HINT": "hidden-value-93"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "hidden-value-93" not in text
    assert yaml.safe_load(text)["mcp_servers"][0]["env"] == {"TZ_HINT": "${env:IMPORT_MCP_HINT}"}
    loads_cleanly(out, environ={"IMPORT_MCP_HINT": "hidden-value-93"})


# ------------------------------------------------------------ without a server


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["mcp-server-time"], "time"),
        ([sys.executable, "-m", "mcp_server_time"], "time"),
        (["uvx", "mcp-server-git", "--repository", "."], "git"),
        (["npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "filesystem"),
        (["docker", "run", "-i", "--rm", "-e", "TOKEN", "mcp/github:latest"], "github"),
        (["node", "build/index.js"], "index"),
        (["./My Server!"], "my_server"),
    ],
)
def test_default_server_names_from_commands(command: list[str], name: str) -> None:
    assert default_server_name(command=command) == name


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://mcp.example.com/mcp", "example"),
        ("http://127.0.0.1:8000/mcp", "local"),
        ("http://localhost:3000/github/mcp", "github"),
    ],
)
def test_default_server_names_from_urls(url: str, name: str) -> None:
    assert default_server_name(url=url) == name


def test_conversion_without_a_server() -> None:
    source = server_source(command=["srv"])
    assert source == ServerSource(name="srv", command=("srv",))
    imported = convert_tools(
        [
            {"name": "a.b", "description": "x", "inputSchema": {"type": "object"}},
            {"name": "a_b", "description": "y", "inputSchema": {"type": "object"}},
            {"name": "a b", "description": "z", "inputSchema": {"type": "object"}},
        ],
        source,
    )
    assert [tool.name for tool in imported.tools] == ["a_b_2", "a_b", "a_b_3"]
    assert [p.code for p in imported.result.problems] == ["TD514", "TD514"]
    text = render_mcp_manifest(imported)
    assert "use: srv/a.b" in text
    with pytest.raises(SourceError, match="--header-env authorization=MCP_TOKEN"):
        server_source(url="http://x/mcp", headers=["authorization:abc"])


def test_importing_the_importer_does_not_import_mcp() -> None:
    code = (
        "import sys, tooldeck, tooldeck._importers, tooldeck._importers._mcp, "
        "tooldeck.cli._import_cmd, tooldeck.cli._importing.mcp_source\n"
        "loaded = sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.'))\n"
        "assert not loaded, loaded"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_help_mentions_the_mcp_source(run_line) -> None:
    result = run_line("import", "mcp", "-h")
    assert result.exit_code == 0
    for option in ("--url", "--header-env", "--transport", "--timeout", "--name", "--force"):
        assert option in result.stdout
    assert "MCP server" in run_line("--help").stdout
