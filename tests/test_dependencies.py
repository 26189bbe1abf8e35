"""What pyproject.toml declares is what the code imports, and CI tests its lower bounds."""

from __future__ import annotations

import ast

from packaging.utils import canonicalize_name

from tests.dependencies import ROOT, declared_bounds, imported_distributions, lowest_pins

LOWEST = ROOT / ".ci" / "lowest.txt"


def test_the_lowest_pass_pins_exactly_the_declared_lower_bounds():
    assert lowest_pins(LOWEST) == declared_bounds()


def test_every_imported_distribution_is_declared():
    """uvicorn, starlette, anyio, httpx2 ... come with mcp, but what we import we declare."""
    declared = set(declared_bounds())
    missing = {
        module: (sorted(dists), sorted(files))
        for module, (dists, files) in imported_distributions().items()
        if not dists & declared
    }
    assert missing == {}


def test_the_core_dependencies_are_declared():
    assert {"pyyaml", "jsonschema", "jmespath", "openai", "mcp", "watchfiles"} <= set(
        declared_bounds()
    )
    assert canonicalize_name("google-re2") in declared_bounds()


def _guarded(tree: ast.AST) -> set[ast.AST]:
    """Import nodes inside a ``try`` that handles ImportError (a fallback exists)."""
    guarded: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
            for h in node.handlers
        ):
            for statement in node.body:
                guarded.update(ast.walk(statement))
    return guarded


def test_no_private_module_of_a_dependency_is_imported():
    """``mcp.shared._httpx_utils`` and the like change without notice between releases.

    One is allowed only guarded, with a fallback when it is gone (jsonschema's
    evaluated-keys helpers: the stock keywords are used then).
    """
    private = []
    for source in (ROOT / "engine", ROOT / "handlers"):
        for path in source.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            guarded = _guarded(tree)
            for node in ast.walk(tree):
                if node in guarded:
                    continue
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    top, *rest = name.split(".")
                    if top != "tooldeck" and any(part.startswith("_") for part in rest):
                        private.append(f"{path.relative_to(ROOT)}: {name}")
    assert private == []
