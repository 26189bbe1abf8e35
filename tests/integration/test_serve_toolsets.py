"""Toolsets: ``serve --bundle/--tag/--tool/--toolset``, ``[tool.tooldeck.toolsets]`` at /mcp/NAME.

Real CLI processes and real MCP clients over stdio and Streamable HTTP; the settings come
from a real pyproject.toml, and a flag on the command line wins over them.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.integration.test_mcp_serve import (
    DEADLINE,
    TOOLDECK,
    free_port,
    http_session,
    text_of,
)
from tests.serve_process import serve_process

MODULE = "toolset_handlers"

HANDLERS = """\
def echo(text: str) -> str:
    return text
"""

MANIFEST_ORDERS = f"""\
version: 1
bundle: orders
tools:
  - {{name: find_order, handler: "{MODULE}:echo", description: Find an order., tags: [support]}}
  - {{name: cancel_order, handler: "{MODULE}:echo", description: Cancel an order.}}
prompts:
  - {{name: order_help, description: Help with an order., template: "Help with {{{{text}}}}.",
      params: [{{name: text, description: What}}]}}
"""

MANIFEST_BILLING = f"""\
version: 1
bundle: billing
tools:
  - {{name: refund, handler: "{MODULE}:echo", description: Refund a payment.}}
  - {{name: invoice, handler: "{MODULE}:echo", description: Show an invoice., tags: [support]}}
"""

SETTINGS = f"""\
[tool.tooldeck]
manifests = ["manifests"]
allow_handlers = ["{MODULE}"]

[tool.tooldeck.serve]
transport = "http"
port = {{port}}

[tool.tooldeck.toolsets.support]
tags = ["support"]

[tool.tooldeck.toolsets.billing]
bundles = ["billing"]
"""


def make_project(root: Path, settings: str) -> Path:
    (root / "manifests").mkdir()
    (root / "manifests" / "orders.yaml").write_text(MANIFEST_ORDERS, encoding="utf-8")
    (root / "manifests" / "billing.yaml").write_text(MANIFEST_BILLING, encoding="utf-8")
    (root / f"{MODULE}.py").write_text(HANDLERS, encoding="utf-8")
    (root / "pyproject.toml").write_text(settings, encoding="utf-8")
    return root


@contextlib.contextmanager
def http_server(project: Path, port: int, *flags: str) -> Iterator[str]:
    """``tooldeck serve`` with only ``flags`` (the settings say http and the port)."""
    argv = [str(TOOLDECK), "serve", *flags]
    with serve_process(argv, cwd=project, port=port, log=project / "http.log", deadline=DEADLINE):
        yield f"http://127.0.0.1:{port}/mcp"


@contextlib.asynccontextmanager
async def stdio_session(project: Path, *flags: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(TOOLDECK), args=["serve", *flags], cwd=str(project))
    with (project / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=DEADLINE) as session,
        ):
            async with asyncio.timeout(DEADLINE):
                await session.initialize()
            yield session


def serve(project: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOLDECK), "serve", *flags],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def tool_names(url: str) -> list[str]:
    async with http_session(url) as session:
        return sorted(tool.name for tool in (await session.list_tools()).tools)


async def test_named_toolsets_are_served_beside_the_whole_registry(tmp_path: Path) -> None:
    port = free_port()
    project = make_project(tmp_path, SETTINGS.format(port=port))
    with http_server(project, port) as url:  # the settings give the transport and the port
        assert await tool_names(url) == ["cancel_order", "find_order", "invoice", "refund"]
        assert await tool_names(f"{url}/support") == ["find_order", "invoice"]
        assert await tool_names(f"{url}/billing") == ["invoice", "refund"]
        async with http_session(f"{url}/support") as session:
            ok = await session.call_tool("find_order", {"text": "A-1"})
            assert not ok.is_error
            assert text_of(ok) == "A-1"
            # A tool of the registry outside the toolset is unknown here, and so are its
            # names: the error offers only what this endpoint serves.
            outside = await session.call_tool("refund", {"text": "x"})
            assert outside.is_error
            assert "unknown_tool" in text_of(outside)
            assert "refund" in text_of(outside)  # the name asked for, quoted
            assert "cancel_order" not in text_of(outside)
            # Prompts go with their bundle or tags: the orders prompt is not in "support".
            assert (await session.list_prompts()).prompts == []
        async with http_session(url) as session:
            names = [p.name for p in (await session.list_prompts()).prompts]
            assert names == ["order_help"]


async def test_selectors_choose_what_stdio_serves(tmp_path: Path) -> None:
    project = make_project(tmp_path, SETTINGS.format(port=free_port()))
    async with stdio_session(project, "--transport", "stdio", "--bundle", "orders") as session:
        names = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert names == ["cancel_order", "find_order"]
        assert [p.name for p in (await session.list_prompts()).prompts] == ["order_help"]


async def test_a_named_toolset_can_be_served_alone_on_stdio(tmp_path: Path) -> None:
    project = make_project(tmp_path, SETTINGS.format(port=free_port()))
    async with stdio_session(project, "--transport", "stdio", "--toolset", "support") as session:
        names = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert names == ["find_order", "invoice"]


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--bundle", "nope"], "unknown bundle 'nope'"),
        (["--tag", "nope"], "unknown tag 'nope'"),
        (["--toolset", "nope"], "unknown toolset 'nope'; the toolsets here are: billing, support"),
        (["--toolset", "support", "--tag", "support"], "cannot be combined"),
    ],
)
def test_a_selector_that_matches_nothing_refuses_to_start(
    tmp_path: Path, flags: list[str], words: str
) -> None:
    project = make_project(tmp_path, SETTINGS.format(port=free_port()))
    done = serve(project, *flags)
    assert done.returncode == 2, done.stderr
    assert words in done.stderr


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('[tool.tooldeck.serve]\ntransport = "carrier-pigeon"\n', "transport must be one of"),
        ('[tool.tooldeck.serve]\nport = "80"\n', "port must be a whole number"),
        ("[tool.tooldeck.serve]\nportt = 80\n", "unknown setting(s) portt"),
        ('[tool.tooldeck.toolsets."Bad Name"]\ntags = ["x"]\n', "cannot be a URL path segment"),
        ('[tool.tooldeck.toolsets.x]\nbundle = ["orders"]\n', "unknown key(s) bundle"),
        ('[tool.tooldeck.toolsets.x]\ntags = "support"\n', "x.tags must be a list of names"),
        ('[tool.tooldeck.toolsets.x]\nbundles = ["nope"]\n', "toolset 'x': unknown bundle"),
    ],
)
def test_bad_serve_settings_are_usage_errors_naming_the_key(
    tmp_path: Path, table: str, words: str
) -> None:
    settings = f'[tool.tooldeck]\nmanifests = ["manifests"]\nallow_handlers = ["{MODULE}"]\n'
    project = make_project(tmp_path, settings + table)
    done = serve(project, "--transport", "http", "--port", str(free_port()))
    assert done.returncode == 2, done.stderr
    assert words in done.stderr
    assert "Traceback" not in done.stderr


def test_a_flag_wins_over_the_settings(tmp_path: Path) -> None:
    # The settings say http; --transport stdio on the command line wins, and stdio ends
    # when its input does (nothing is listening on a port).
    project = make_project(tmp_path, SETTINGS.format(port=free_port()))
    done = subprocess.run(
        [str(TOOLDECK), "serve", "--transport", "stdio"],
        cwd=project,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "serving MCP at http" not in done.stderr
    assert done.stdout == ""  # stdout is the protocol: nothing but protocol on it


def test_settings_paths_cannot_leave_the_project(tmp_path: Path) -> None:
    from tooldeck.cli._common import UsageError
    from tooldeck.cli._serve_settings import _Where, as_path
    from tooldeck.manifest._settings import ProjectSettings

    project = ProjectSettings(source=tmp_path / "pyproject.toml", root=tmp_path)
    assert as_path("keys/public.pem", _Where(project, "jwt_public_key")) == (
        tmp_path / "keys/public.pem"
    )
    with pytest.raises(UsageError, match="outside"):
        as_path("../../etc/passwd", _Where(project, "tokens"))


def test_toolset_endpoints_follow_a_reload(tmp_path: Path) -> None:
    port = free_port()
    project = make_project(tmp_path, SETTINGS.format(port=port))

    async def scenario(url: str) -> None:
        assert await tool_names(f"{url}/billing") == ["invoice", "refund"]
        (project / "manifests" / "billing.yaml").write_text(
            MANIFEST_BILLING.replace("name: refund", "name: refund_payment"), encoding="utf-8"
        )
        for _ in range(100):
            if await tool_names(f"{url}/billing") == ["invoice", "refund_payment"]:
                return
            await asyncio.sleep(0.1)
        raise AssertionError("the billing toolset never showed the reloaded tool")

    with http_server(project, port, "--reload") as url:
        asyncio.run(scenario(url))


def test_export_of_a_toolset_gives_what_its_endpoint_serves(tmp_path: Path) -> None:
    import json

    project = make_project(tmp_path, SETTINGS.format(port=free_port()))
    done = subprocess.run(
        [str(TOOLDECK), "export", "--provider", "anthropic", "--toolset", "support"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names = sorted(definition["name"] for definition in json.loads(done.stdout))
    assert names == ["find_order", "invoice"]
    unknown = subprocess.run(
        [str(TOOLDECK), "export", "--provider", "anthropic", "--toolset", "nope"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert unknown.returncode == 2
    assert "unknown toolset 'nope'" in unknown.stderr
