"""The documentation site builds without a warning, documents the public API, and its examples run.

The build is ``mkdocs build --strict`` from the repository's top, as a writer runs it; every
``python`` block of the README and of ``docs/`` runs, or says why not (see
``tests/acceptance/doc_pages.py`` for the comments that mark a block).
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.acceptance.doc_pages import DOCS, README, blocks, example_app, pages, run_python
from tests.conftest import ROOT

# Each public module, and the reference page that documents it.
REFERENCE = {
    "tooldeck": "reference/tooldeck.md",
    "tooldeck.manifest": "reference/manifest.md",
    "tooldeck.mcp": "reference/mcp.md",
    "tooldeck.providers": "reference/providers.md",
    "tooldeck.providers.openai": "reference/providers-openai.md",
    "tooldeck.providers.anthropic": "reference/providers-anthropic.md",
    "tooldeck.providers.gemini": "reference/providers-gemini.md",
    "tooldeck.providers.mcp": "reference/providers-mcp.md",
}

PYTHON_BLOCKS = [b for path in pages() for b in blocks(path, "python")]


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item)]
    if isinstance(nav, dict):
        return [page for item in nav.values() for page in _nav_pages(item)]
    return []


def _config() -> dict[str, object]:
    # mkdocs.yml is plain YAML (no !!python tags), so the safe loader reads it.
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert isinstance(config, dict)
    return config


@pytest.mark.slow
def test_the_site_builds_in_strict_mode_without_a_warning(tmp_path: Path):
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "WARNING" not in output, output
    # Every public name is on its module's reference page, under its public path.
    for module, page in REFERENCE.items():
        html = (site / page.removesuffix(".md") / "index.html").read_text(encoding="utf-8")
        ids = set(re.findall(r'id="([^"]+)"', html))
        names = importlib.import_module(module).__all__
        missing = [name for name in names if f"{module}.{name}" not in ids]
        assert missing == [], f"{page} does not document {module}.{missing}"


def test_the_config_is_strict_and_the_nav_holds_every_page():
    config = _config()
    assert config["strict"] is True
    listed = _nav_pages(config["nav"])
    on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(listed) == on_disk
    assert len(listed) == len(set(listed))


def test_the_reference_names_only_public_paths():
    """The engine's private modules move; the reference must not spell one."""
    for module, page in REFERENCE.items():
        text = (DOCS / page).read_text(encoding="utf-8")
        identifiers = re.findall(r"^::: (\S+)$", text, flags=re.MULTILINE)
        assert identifiers, page
        private = [i for i in identifiers if any(p.startswith("_") for p in i.split("."))]
        assert private == [], f"{page}: {private}"
        assert all(i == module or i.startswith(f"{module}.") for i in identifiers), page


def test_every_name_tooldeck_exports_has_its_own_entry():
    text = (DOCS / REFERENCE["tooldeck"]).read_text(encoding="utf-8")
    entries = re.findall(r"^::: tooldeck\.(\w+)$", text, flags=re.MULTILINE)
    import tooldeck

    assert sorted(entries) == sorted(tooldeck.__all__)


def test_the_readme_links_to_pages_that_exist():
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert links
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_every_python_block_is_run_or_says_why_not():
    assert len(PYTHON_BLOCKS) > 20
    for block in PYTHON_BLOCKS:
        if block.mark == "not run":
            assert len(block.note) > 10, f"{block.where}: say why the block is not run"
        elif block.mark == "raises":
            assert re.fullmatch(r"TD\d{3}", block.note), block.where
        elif block.mark == "run by":
            named = re.fullmatch(r"(\S+\.py)::(\w+): (.+)", block.note)
            assert named, f"{block.where}: name the test (FILE.py::TEST: what it checks)"
            path, test, _ = named.groups()
            source = (ROOT / path).read_text(encoding="utf-8")
            assert f"def {test}(" in source, f"{block.where}: {path} has no {test}"


@pytest.mark.parametrize(
    "block",
    [b for b in PYTHON_BLOCKS if b.mark in (None, "raises")],
    ids=lambda b: b.where,
)
def test_python_example_runs(block, tmp_path: Path):
    app = example_app(tmp_path)
    done = run_python(block.code, env={"PYTHONPATH": str(app)}, raises=block.mark == "raises")
    assert done.returncode == 0, done.stderr
    if block.mark == "raises":
        assert done.stdout.split()[-1:] == [block.note], done.stdout + done.stderr
