"""Handlers that no timeout can pre-empt are flagged by lint (TD410).

An ``inline: true`` tool runs on the caller's event loop and an ``async def`` handler that
never awaits has no cancellation point; a ``timeout`` on either is a promise tooldeck cannot
keep, so ``tooldeck lint`` warns at the ``timeout`` line.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

HANDLERS = '''
import asyncio
import time


def plain(text: str) -> str:
    """Echo."""
    return text


async def awaits(text: str) -> str:
    """Echo after a pause."""
    await asyncio.sleep(0)
    return text


async def awaits_in_comprehension(text: str) -> str:
    """Echo, awaiting inside a comprehension."""
    parts = [await asyncio.sleep(0, p) for p in text]
    return "".join(parts)


async def never_awaits(text: str) -> str:
    """Echo while blocking the loop."""
    time.sleep(0)
    return text
'''


def manifest(handler: str, extra: str) -> str:
    return textwrap.dedent(
        f"""\
        version: 1
        tools:
          - name: echo
            handler: tdsec_limits:{handler}
            description: Echo the given text back, for the timeout lint tests.
            params:
              - name: text
                type: string
                description: the text to echo
        """
    ) + textwrap.indent(textwrap.dedent(extra), "    ")


CASES = [
    ("plain", "inline: true\ntimeout: 2s\n", 11),
    ("never_awaits", "timeout: 2s\n", 10),
    ("never_awaits", "inline: true\ntimeout: 500ms\n", 11),
]
QUIET = [
    ("plain", "timeout: 2s\n"),
    ("awaits", "timeout: 2s\n"),
    ("awaits_in_comprehension", "timeout: 2s\n"),
    ("never_awaits", ""),
    ("plain", "inline: true\n"),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tdsec_limits.py").write_text(HANDLERS)
    return tmp_path


def lint(run_line, project: Path, text: str):
    (project / "tools.yaml").write_text(text)
    return run_line(
        "lint", "tools.yaml", "--allow-handlers", "tdsec_limits", "--strict", cwd=project
    )


@pytest.mark.parametrize(("handler", "extra", "line"), CASES)
def test_unenforceable_timeouts_are_flagged(run_line, project: Path, handler, extra, line):
    done = lint(run_line, project, manifest(handler, extra))
    assert done.exit_code == 1, done.stdout
    assert f"tools.yaml:{line}:14: TD410 [warning] tool 'echo' declares a timeout" in done.stdout


@pytest.mark.parametrize(("handler", "extra"), QUIET)
def test_enforceable_timeouts_are_not(run_line, project: Path, handler, extra):
    done = lint(run_line, project, manifest(handler, extra))
    assert "TD410" not in done.stdout, done.stdout


def test_a_timeout_from_defaults_is_flagged_at_the_tool(run_line, project: Path):
    text = "defaults:\n  timeout: 2s\n" + manifest("never_awaits", "").replace("version: 1\n", "")
    done = lint(run_line, project, "version: 1\n" + text)
    assert "TD410" in done.stdout, done.stdout
