"""The media cap set by a project or on the command line, as a user sets it.

A project on disk with a handler that returns a 2 KB image, driven by the
real ``tooldeck`` executable (``call``, and ``serve`` with a real MCP client)
and by ``load_project`` in a fresh interpreter: ``--max-media-bytes`` and the
``max_media_bytes`` setting lower the cap, the flag wins over the setting, and
a bad value stops the command before anything runs.
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

from tooldeck.manifest._settings import MEDIA_CAP_CEILING
from tooldeck.mcp._http.worker import WorkerPlan

SCRIPTS = Path(sys.executable).parent
TOOLDECK = str(SCRIPTS / "tooldeck")

HANDLERS = textwrap.dedent(
    '''\
    """A picture of 2 KB: over a 1000-byte cap, well under the 10 MiB default."""

    from tooldeck import Image


    def picture() -> Image:
        """A 2048-byte PNG."""
        return Image(data=b"\\x89PNG\\r\\n\\x1a\\n" + bytes(2040), mime_type="image/png")
    '''
)
MANIFEST = textwrap.dedent(
    """\
    version: 1
    bundle: pics
    tools:
      - name: picture
        description: Draw a picture of two kilobytes, for the media cap.
        handler: pic_tools:picture
    """
)
TOO_LARGE = "Error (result_too_large): "


def _project(root: Path, setting: str | None = None, *, yaml: bool = False) -> Path:
    """A project: manifests/pic.yaml, pic_tools.py and its settings (``setting`` appended)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "manifests").mkdir()
    (root / "manifests" / "pic.yaml").write_text(MANIFEST)
    (root / "pic_tools.py").write_text(HANDLERS)
    if yaml:
        lines = ["allow_handlers: [pic_tools]", *([setting] if setting else [])]
        (root / "tooldeck.yaml").write_text("\n".join(lines) + "\n")
    else:
        lines = [
            "[tool.tooldeck]",
            'allow_handlers = ["pic_tools"]',
            *([setting] if setting else []),
        ]
        (root / "pyproject.toml").write_text("\n".join(lines) + "\n")
    return root


def _run(*args: str, cwd: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLDECK, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def _call(project: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return _run("call", "picture", *flags, cwd=project)


# ------------------------------------------------------------------ tooldeck call
def test_the_default_cap_lets_a_2_kb_image_through(tmp_path):
    done = _call(_project(tmp_path / "app"))
    assert done.returncode == 0, done.stderr
    assert "[image: image/png, 2.0 KB]" in done.stdout


def test_the_flag_lowers_the_cap(tmp_path):
    done = _call(_project(tmp_path / "app"), "--max-media-bytes", "1000")
    assert done.returncode == 1
    assert TOO_LARGE in done.stdout + done.stderr
    assert "over the limit of 1.0 KB" in done.stdout + done.stderr


@pytest.mark.parametrize("yaml", [False, True], ids=["pyproject", "tooldeck.yaml"])
def test_the_setting_lowers_the_cap(tmp_path, yaml):
    setting = "max_media_bytes: 1000" if yaml else "max_media_bytes = 1000"
    project = _project(tmp_path / "app", setting, yaml=yaml)
    done = _call(project)
    assert done.returncode == 1
    assert TOO_LARGE in done.stdout + done.stderr
    elsewhere = tmp_path / "elsewhere"  # found above -m, as every setting is
    elsewhere.mkdir()
    outside = _run("call", "picture", "-m", str(project / "manifests"), cwd=elsewhere)
    assert outside.returncode == 1
    assert TOO_LARGE in outside.stdout + outside.stderr


def test_the_flag_wins_over_the_setting_both_ways(tmp_path):
    low = _project(tmp_path / "low", "max_media_bytes = 1000")
    raised = _call(low, "--max-media-bytes", "4096")
    assert raised.returncode == 0, raised.stdout + raised.stderr
    assert "[image: image/png, 2.0 KB]" in raised.stdout
    high = _project(tmp_path / "high", "max_media_bytes = 4096")
    assert _call(high).returncode == 0
    lowered = _call(high, "--max-media-bytes", "1000")
    assert lowered.returncode == 1
    assert TOO_LARGE in lowered.stdout + lowered.stderr


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ('"1k"', "must be a whole number of bytes, not '1k'"),
        ("1.5", "must be a whole number of bytes, not 1.5"),
        ("true", "must be a whole number of bytes, not True"),
        ("-1", "must be 0 or more, not -1"),
        (str(MEDIA_CAP_CEILING + 1), "must be at most 268435456 (256 MiB), not 268435457"),
    ],
)
def test_a_bad_setting_is_a_located_td240(tmp_path, value, words):
    project = _project(tmp_path / "app", f"max_media_bytes = {value}")
    done = _call(project)
    assert done.returncode == 2
    assert f"{project / 'pyproject.toml'}:3:1: TD240 max_media_bytes {words}" in done.stderr
    assert TOO_LARGE not in done.stdout  # nothing ran


def test_the_ceiling_itself_and_zero_are_accepted(tmp_path):
    at_ceiling = _call(_project(tmp_path / "top", f"max_media_bytes = {MEDIA_CAP_CEILING}"))
    assert at_ceiling.returncode == 0, at_ceiling.stderr
    none_at_all = _call(_project(tmp_path / "zero", "max_media_bytes = 0"))
    assert none_at_all.returncode == 1  # 0: no media at all
    assert TOO_LARGE in none_at_all.stdout + none_at_all.stderr


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("1k", "must be a whole number of bytes, not '1k'"),
        ("-1", "must be 0 or more, not -1"),
        (str(MEDIA_CAP_CEILING + 1), "must be at most 268435456 (256 MiB)"),
    ],
)
def test_a_bad_flag_is_a_usage_error(tmp_path, value, words):
    done = _call(_project(tmp_path / "app"), f"--max-media-bytes={value}")
    assert done.returncode == 2
    assert "argument --max-media-bytes: " + words in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("command", ["serve", "dev", "call", "chat"])
def test_the_commands_that_run_handlers_take_the_flag(command):
    done = _run(command, "--help", cwd="/")
    assert done.returncode == 0
    assert "--max-media-bytes N" in done.stdout


# ------------------------------------------------------------------ tooldeck serve
async def _serve_and_call(project: Path, *extra: str) -> tuple[bool, str]:
    params = StdioServerParameters(
        command=TOOLDECK,
        args=["serve", "-m", str(project / "manifests"), *extra],
        cwd="/",  # as MCP clients start servers: the project is found from -m
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("picture", {})
    text = "".join(getattr(block, "text", "") for block in result.content)
    return result.is_error, text


@pytest.mark.parametrize("reload", [[], ["--reload"]], ids=["once", "reload"])
def test_serve_over_stdio_uses_the_setting_and_the_flag(tmp_path, reload):
    project = _project(tmp_path / "app", "max_media_bytes = 1000")
    failed, text = asyncio.run(asyncio.wait_for(_serve_and_call(project, *reload), 60))
    assert failed
    assert text.startswith(TOO_LARGE)
    raised = _serve_and_call(project, *reload, "--max-media-bytes", "4096")
    failed, text = asyncio.run(asyncio.wait_for(raised, 60))
    assert not failed, text


def test_each_http_worker_gets_the_cap():
    """``serve --workers N`` rebuilds the registry in each process from this plan."""
    plan = WorkerPlan(manifests=("m",), max_media_bytes=1000)
    assert WorkerPlan.from_json(plan.to_json()).max_media_bytes == 1000
    assert WorkerPlan.from_json(WorkerPlan(manifests=("m",)).to_json()).max_media_bytes is None


# ------------------------------------------------------------------ the Python API
API = textwrap.dedent(
    """\
    import json, sys
    import tooldeck
    kwargs = json.loads(sys.argv[1])
    registry = tooldeck.load_project(**kwargs)
    result = registry.call("picture", {})
    print(json.dumps(result.error.kind if result.error else "ok"))
    """
)


@pytest.mark.parametrize(
    ("kwargs", "outcome"),
    [
        ({}, "result_too_large"),  # the setting is honoured
        ({"max_media_bytes": 4096}, "ok"),  # the argument wins
    ],
)
def test_load_project_honours_the_setting(tmp_path, kwargs, outcome):
    project = _project(tmp_path / "app", "max_media_bytes = 1000")
    done = subprocess.run(
        [sys.executable, "-c", API, json.dumps(kwargs)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == outcome
