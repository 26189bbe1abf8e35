"""The README and the documentation site's pages, and the code blocks in them.

A ```` ```python ```` block runs as written unless an HTML comment on the line right before it
says otherwise:

- ``<!-- raises TD101 -->``: the block raises a tooldeck error whose ``code`` is TD101 (the bad
  examples of the diagnostics pages);
- ``<!-- run by tests/acceptance/FILE.py::TEST: why -->``: that test runs it and checks what it
  prints;
- ``<!-- not run: why -->``: the block is not runnable as it stands, for the reason given.

``tests/acceptance/test_docs_site.py`` holds every block to that rule.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_MARK = re.compile(r"<!-- (raises|run by|not run):? (.*?) -->\n\Z")

# The diagnostics pages' examples import the handler module of an example application.
_EXAMPLE_APP = "# myapp/orders.py\n"


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: Path
    line: int
    language: str
    code: str
    mark: str | None
    """``raises``, ``run by``, ``not run`` or None (the block runs as written)."""
    note: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """The README and every page of the site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def page(relative: str) -> str:
    """The text of a page, ``README.md`` or a path under docs/ (``guides/api.md``)."""
    path = README if relative == "README.md" else DOCS / relative
    return path.read_text(encoding="utf-8")


def blocks(path: Path, language: str | None = None) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        if language is not None and match.group(1) != language:
            continue
        before = text[: match.start()]
        mark = _MARK.search(before)
        found.append(
            Block(
                page=path,
                line=before.count("\n") + 1,
                language=match.group(1),
                code=match.group(2),
                mark=mark.group(1) if mark else None,
                note=mark.group(2).strip() if mark else "",
            )
        )
    return found


def sources(relative: str, language: str) -> list[str]:
    """The code of a page's blocks in one language, in order."""
    path = README if relative == "README.md" else DOCS / relative
    return [b.code for b in blocks(path, language)]


def example(relative: str, marker: str) -> str:
    """The one Python block of a page that contains ``marker``."""
    (code,) = [c for c in sources(relative, "python") if marker in c]
    return code


def example_app(folder: Path) -> Path:
    """Write the diagnostics pages' example application (``myapp.orders``) under ``folder``."""
    (code,) = [c for c in sources("diagnostics.md", "python") if c.startswith(_EXAMPLE_APP)]
    (folder / "myapp").mkdir(parents=True, exist_ok=True)
    (folder / "myapp" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "myapp" / "orders.py").write_text(code, encoding="utf-8")
    return folder


_RAISES = """\
import sys
source = sys.stdin.read()
try:
    exec(compile(source, "<example>", "exec"), {"__name__": "__main__"})
except Exception as exc:
    print("raised", type(exc).__name__, getattr(exc, "code", None))
"""


def run_python(
    code: str, *, cwd: Path = ROOT, env: dict[str, str] | None = None, raises: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run one block in a fresh interpreter; with ``raises``, print what it raised."""
    argv = [sys.executable, "-c", _RAISES] if raises else [sys.executable, "-c", code]
    return subprocess.run(
        argv,
        cwd=cwd,
        input=code if raises else None,
        stdin=None if raises else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )
