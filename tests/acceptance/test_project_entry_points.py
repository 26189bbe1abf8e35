"""One project, found the same way from every entry point.

A project made by ``tooldeck init`` (its own handler module, allowed in
``[tool.tooldeck]``) driven as its users drive it: an MCP client that starts
``tooldeck serve`` from ``/``, commands run from another folder, and the
Python API inside the project and from outside it. And the commands that
serve or use tools refuse to start on broken or empty manifests.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

SCRIPTS = Path(sys.executable).parent
TOOLDECK = str(SCRIPTS / "tooldeck")


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """``tooldeck init`` in a fresh folder: manifests/hello.yaml, hello_tools.py, settings."""
    project = tmp_path / "app"
    project.mkdir()
    done = subprocess.run(
        [TOOLDECK, "init"], cwd=project, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert 'allow_handlers = ["hello_tools"]' in (project / "pyproject.toml").read_text()
    return project


def _run(*args: str, cwd: Path | str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLDECK, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


# ------------------------------------------------------------------ serve from /
async def _serve_and_call(app: Path, *extra: str) -> tuple[list[str], str]:
    params = StdioServerParameters(
        command=TOOLDECK,
        args=["serve", "-m", str(app / "manifests"), *extra],
        cwd="/",  # where Claude Desktop and other MCP clients start their servers
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        result = await session.call_tool("greet", {"name": "Ada"})
    text = "".join(getattr(block, "text", "") for block in result.content)
    return [tool.name for tool in listed.tools], text


@pytest.mark.parametrize(
    "extra",
    [pytest.param([], id="manifests only"), pytest.param(["--project-dir"], id="project dir")],
)
def test_serve_started_from_root_serves_the_projects_tools(app, extra):
    """Settings and the handler module are found from the manifests' location, not the cwd."""
    args = [*extra, str(app)] if extra else []
    names, text = asyncio.run(asyncio.wait_for(_serve_and_call(app, *args), 60))
    assert names == ["greet"]
    assert "Ada" in text


def test_serve_of_broken_manifests_exits_non_zero_with_located_errors(app):
    (app / "manifests" / "hello.yaml").write_text(
        (app / "manifests" / "hello.yaml").read_text().replace("hello_tools:", "missing_mod:")
    )
    done = _run("serve", "-m", str(app / "manifests"), cwd="/", timeout=60)
    assert done.returncode == 1
    assert f"{app / 'manifests' / 'hello.yaml'}:" in done.stderr
    assert "TD310" in done.stderr
    assert "not started" in done.stderr
    assert done.stdout == ""  # nothing was served on the MCP stream


# ------------------------------------------------------------------ commands elsewhere
def test_list_from_another_folder_says_which_settings_it_used(app, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = _run("list", "-v", "-m", str(app / "manifests"), cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    assert f"settings: {app / 'pyproject.toml'}" in done.stdout
    assert "allow_handlers: hello_tools" in done.stdout
    assert f"project dir: {app}" in done.stdout
    assert "greet(name)" in done.stdout
    listing = json.loads(_run("list", "-v", "--json", "--project-dir", str(app), cwd="/").stdout)
    assert listing["project"]["settings"] == str(app / "pyproject.toml")
    assert [tool["name"] for tool in listing["tools"]] == ["greet"]


def test_list_v_without_a_project_says_none_was_found(tmp_path):
    (tmp_path / "tools.yaml").write_text(GOOD)
    done = _run("list", "-v", "-m", "tools.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "settings: none found" in done.stdout


def test_call_and_export_from_a_subfolder_and_from_outside(app, tmp_path):
    sub = app / "docs" / "deep"
    sub.mkdir(parents=True)
    called = _run("call", "greet", "--args", '{"name": "Bo"}', cwd=sub)
    assert called.returncode == 0, called.stderr
    assert "Bo" in called.stdout
    outside = _run("call", "greet", "--args", '{"name": "Cy"}', "--project-dir", str(app), cwd="/")
    assert outside.returncode == 0, outside.stderr
    exported = _run("export", "--provider", "anthropic", "-m", str(app / "manifests"), cwd="/")
    assert exported.returncode == 0, exported.stderr
    assert [tool["name"] for tool in json.loads(exported.stdout)] == ["greet"]


# ------------------------------------------------------------------ the Python API
API = textwrap.dedent(
    """\
    import json, sys
    import tooldeck
    registry = tooldeck.load_project(*sys.argv[1:])
    print(json.dumps({
        "tools": [t.name for t in registry.tools()],
        "text": registry.call("greet", {"name": "Ada"}).text,
        "project_dir": str(registry.project_dir),
    }))
    """
)


def _python(code: str, *args: str, cwd: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_load_project_inside_the_project_configures_it_as_the_cli_does(app):
    done = _python(API, cwd=app / "manifests")  # any folder of the project
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["tools"] == ["greet"]
    assert "Ada" in found["text"]
    assert found["project_dir"] == str(app)


def test_load_project_from_outside_with_a_path(app):
    done = _python(API, str(app), cwd="/")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tools"] == ["greet"]


def test_from_manifests_reads_the_allow_list_of_the_project(app):
    """The README's example, unchanged, inside a project made by ``tooldeck init``."""
    code = textwrap.dedent(
        """\
        from tooldeck import from_manifests
        registry = from_manifests(["manifests"], project_dir=".")
        print(registry.call("greet", {"name": "Ada"}).text)
        """
    )
    done = _python(code, cwd=app)
    assert done.returncode == 0, done.stderr
    assert "Ada" in done.stdout
    strict = "from tooldeck import from_manifests\nfrom_manifests(['manifests'], allow_handlers=[])"
    refused = _python(strict, cwd=app)  # an explicit allow-list is the whole allow-list
    assert refused.returncode == 1
    assert "TD310" in refused.stderr
    assert "allow_handlers in [tool.tooldeck]" in refused.stderr


def test_load_project_raises_with_the_located_settings_problem(app):
    pyproject = app / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'project_dir = "/"\n')
    code = (
        "import tooldeck\ntry:\n    tooldeck.load_project()\n"
        "except tooldeck.ManifestError as exc:\n    print(exc.diagnostics[0])\n"
    )
    done = _python(code, cwd=app)
    assert done.returncode == 0, done.stderr
    assert f"{pyproject}:" in done.stdout
    assert "TD240" in done.stdout


def test_load_project_of_a_folder_with_nothing_to_load_raises(tmp_path):
    code = (
        "import tooldeck\ntry:\n    tooldeck.load_project()\n"
        "except tooldeck.ManifestError as exc:\n    print(exc)\n"
    )
    done = _python(code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no manifests to load" in done.stdout


# ------------------------------------------------------------------ refusing to start
GOOD = textwrap.dedent(
    """\
    version: 1
    tools:
      - name: info
        description: Describe one file of the project, its size and kind.
        handler: tooldeck.handlers.files:file_info
        params:
          - {name: path, type: string, required: true, description: Which file to describe}
    """
)
BROKEN = GOOD.replace("tooldeck.handlers.files:file_info", "os:system")


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["call", "info", "--args", '{"path": "good.yaml"}'],
        ["export", "--provider", "openai-chat"],
        ["serve"],
        ["serve", "--reload"],
        ["dev"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_commands_refuse_to_start_on_errors_unless_allowed(tmp_path, command):
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "broken.yaml").write_text(BROKEN)
    done = _run(*command, "-m", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert f"{tmp_path / 'broken.yaml'}:5:14: TD310" in done.stderr  # located
    assert "TD310" in done.stderr
    assert "not started: 1 error in" in done.stderr
    assert "--allow-errors" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["list"],
        ["call", "info", "--args", '{"path": "good.yaml"}'],
        ["export", "--provider", "openai-chat"],
    ],
    ids=lambda c: c[0],
)
def test_allow_errors_goes_on_with_what_loaded(tmp_path, command):
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "broken.yaml").write_text(BROKEN)
    done = _run(*command, "--allow-errors", "-m", str(tmp_path), cwd=tmp_path)
    assert "TD310" in done.stderr  # still printed
    assert "info" in done.stdout or "good.yaml" in done.stdout


@pytest.mark.parametrize(
    "command", [["list"], ["serve"], ["export", "--provider", "gemini"]], ids=lambda c: c[0]
)
def test_commands_refuse_an_empty_load(tmp_path, command):
    empty = tmp_path / "manifests"
    empty.mkdir()
    (empty / "notes.yaml").write_text("version: 1\n")
    done = _run(*command, "-m", str(empty), cwd=tmp_path)
    assert done.returncode == 1
    assert "no tool loaded from" in done.stderr
    assert "tooldeck list -v" in done.stderr


# ------------------------------------------------------------------ only the work asked for
def test_calling_a_local_tool_starts_no_attached_server(tmp_path):
    """Each ``via: client`` server would leave a marker file when started."""
    marker = tmp_path / "started"
    starts = (
        "import pathlib, sys; pathlib.Path(sys.argv[1]).joinpath(sys.argv[2]).touch(); "
        "sys.stdin.read()"
    )
    servers = "".join(
        f"  - name: s{index}\n    via: client\n"
        f"    command: {json.dumps([sys.executable, '-c', starts, str(marker), f's{index}'])}\n"
        for index in range(2)
    )
    marker.mkdir()
    (tmp_path / "tools.yaml").write_text(GOOD + "mcp_servers:\n" + servers)
    done = _run(
        "call", "info", "--args", '{"path": "tools.yaml"}', "-m", "tools.yaml", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert '"size"' in done.stdout or "tools.yaml" in done.stdout
    assert sorted(p.name for p in marker.iterdir()) == []  # neither server was started
    listed = _run("list", "--connect-timeout", "3", "-m", "tools.yaml", cwd=tmp_path)
    assert sorted(p.name for p in marker.iterdir()) == ["s0", "s1"]  # list shows all, so starts all
    assert "info" in listed.stdout
