"""The layout is the architecture: dependencies point one way and the core stays light.

Read from the source (every import statement, at module level, inside
functions and under ``TYPE_CHECKING``), so a lazy import cannot hide a cycle
or a dependency that points the wrong way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"
LEAVES = {"openai", "mcp", "watchfiles"}
"""Imported only by leaf modules, when used (the brief's rule for the core)."""

CORE = (
    "tooldeck._binding",
    "tooldeck._calls",
    "tooldeck._dispatch",
    "tooldeck._entries",
    "tooldeck._errors",
    "tooldeck._execution",
    "tooldeck._model",
    "tooldeck._prepare",
    "tooldeck._registry",
    "tooldeck._schema",
    "tooldeck._validation",
)
"""Model, schema, binding, registry, calls: they never import upward."""

UPPER_LAYERS = ("tooldeck.manifest", "tooldeck.cli", "tooldeck.providers", "tooldeck._reload")


def _modules() -> dict[str, Path]:
    found = {}
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE).with_suffix("").parts
        if parts[0] in {"handlers", "bundled", "schemas"}:
            continue
        name = ".".join(("tooldeck", *parts)).removesuffix(".__init__")
        found[name] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any level."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _internal_graph() -> dict[str, set[str]]:
    return {
        name: {m for m in _imports(path) if m in MODULES and m not in {name, "tooldeck"}}
        for name, path in MODULES.items()
    }


def test_there_are_no_import_cycles_lazy_or_not():
    graph = _internal_graph()
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            pytest.fail("import cycle: " + " -> ".join(cycle))


@pytest.mark.parametrize("module", CORE)
def test_the_core_never_imports_upward_or_a_leaf_dependency(module):
    imported = _imports(MODULES[module])
    upward = sorted(m for m in imported if m.startswith(UPPER_LAYERS))
    leaves = sorted(m for m in imported if m.split(".")[0] in LEAVES)
    assert upward == [], f"{module} imports {upward}"
    assert leaves == [], f"{module} imports {leaves}"


def test_every_internal_module_is_private():
    public_packages = {
        "tooldeck",
        "tooldeck.cli",
        "tooldeck.manifest",
        "tooldeck.mcp",
        "tooldeck.providers",
    }
    exposed = sorted(
        name
        for name in MODULES
        if name not in public_packages
        and not name.rsplit(".", 1)[1].startswith("_")
        and not name.startswith("tooldeck.providers.")  # one public module per provider
    )
    assert exposed == []
