"""The layout is the architecture: dependencies point one way and the core stays light.

Read from the source tree (every import statement, at module level, inside functions and
under ``TYPE_CHECKING``), resolved the way Python resolves them from the folder: inside
``engine/`` imports are relative, so ``from .._yaml import read_yaml`` in
``engine/manifest/_loader.py`` is ``tooldeck._yaml``. A lazy import cannot hide a cycle or
a dependency that points the wrong way.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"
LEAVES = {"openai", "mcp", "watchfiles", "prometheus_client"}
"""Imported only by leaf modules, when used (the brief's rule for the core)."""

FOLDERS = (
    "tooldeck._calling",
    "tooldeck._config",
    "tooldeck._importers",
    "tooldeck._lint",
    "tooldeck._model",
    "tooldeck._validation",
    "tooldeck._yaml",
    "tooldeck.cli",
    "tooldeck.cli._importing",
    "tooldeck.manifest._build",
    "tooldeck.manifest._meta",
    "tooldeck.manifest._static",
    "tooldeck.mcp._attaching",
    "tooldeck.mcp._http",
    "tooldeck.mcp._serving",
    "tooldeck.providers._loop",
)
"""Private folders: their modules share private names; other code imports what the
folder's ``__init__`` exports, never one of its modules."""

CORE = (
    "tooldeck._binding",
    "tooldeck._calling",
    "tooldeck._config",
    "tooldeck._entries",
    "tooldeck._errors",
    "tooldeck._model",
    "tooldeck._paramcheck",
    "tooldeck._prepare",
    "tooldeck._registry",
    "tooldeck._schema",
    "tooldeck._validation",
    "tooldeck._yaml",
)
"""Model, schema, binding, registry, calls, validation, configuration and the YAML reader:
they never import upward (a folder here means every module in it)."""

UPPER_LAYERS = (
    "tooldeck.manifest",
    "tooldeck.cli",
    "tooldeck.providers",
    "tooldeck.mcp",
    "tooldeck._lint",
    "tooldeck._importers",
    "tooldeck._reload",
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE).with_suffix("").parts
        name = ".".join(("tooldeck", *parts)).removesuffix(".__init__")
        found[name] = path
    return found


MODULES = _modules()


def _package_of(module: str) -> str:
    """The package a module's relative imports start from."""
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


@cache
def _imports(module: str) -> frozenset[str]:
    """Every module (or module attribute) ``module`` imports, at any level, absolute."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(module).split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            names.add(source)
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return frozenset(names)


def _internal_imports(module: str) -> set[str]:
    """What ``module`` imports from the engine, leaving out its own packages (``from . import
    sibling`` names the package, which is being imported already)."""
    return {
        m
        for m in _imports(module)
        if m in MODULES and m != module and not module.startswith(m + ".")
    }


def _folder_of(module: str) -> str | None:
    for folder in sorted(FOLDERS, key=len, reverse=True):
        if module == folder or module.startswith(folder + "."):
            return folder
    return None


def _unit(module: str) -> str:
    """A folder counts as one unit, with any folder inside it; any other module as itself."""
    for folder in sorted(FOLDERS, key=len):
        if module == folder or module.startswith(folder + "."):
            return folder
    return module


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_relative_imports_resolve_to_modules_in_the_tree():
    """Every relative import names a module (or a package's attribute) that exists."""
    unresolved = []
    for module in MODULES:
        for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = _package_of(module).split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
                if source not in MODULES:
                    unresolved.append(f"{module}: from {'.' * node.level}{node.module or ''}")
    assert unresolved == []


def test_the_engine_imports_itself_relatively():
    """No ``tooldeck.`` import inside engine/: the folder's name is not the package's."""
    absolute = sorted(
        module
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] == "tooldeck"
        )
        or (
            isinstance(node, ast.Import)
            and any(a.name.split(".")[0] == "tooldeck" for a in node.names)
        )
    )
    assert absolute == []


def test_there_are_no_import_cycles_lazy_or_not():
    graph = {name: _internal_imports(name) for name in MODULES}
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_folders_are_layered_no_cycle_between_them():
    """Counting each folder as one unit, dependencies still point one way."""
    graph: dict[str, set[str]] = {}
    for name in MODULES:
        for imported in _internal_imports(name):
            if _unit(imported) != _unit(name):
                graph.setdefault(_unit(name), set()).add(_unit(imported))
    cycle = _find_cycle(graph)
    assert cycle is None, "folder cycle: " + " -> ".join(cycle or [])


def test_folders_are_entered_through_their_init():
    """Outside a folder, code imports the folder's exports, not one of its modules."""
    reaching_in = sorted(
        f"{name} imports {imported}"
        for name in MODULES
        for imported in _internal_imports(name)
        if (folder := _folder_of(imported)) is not None
        and imported != folder
        and _folder_of(name) != folder
        and not name.startswith(folder + ".")
    )
    assert reaching_in == []


@pytest.mark.parametrize("unit", CORE)
def test_the_core_never_imports_upward_or_a_leaf_dependency(unit):
    members = [m for m in MODULES if m == unit or m.startswith(unit + ".")]
    assert members, unit
    for module in members:
        imported = _imports(module)
        upward = sorted(m for m in imported if m.startswith(UPPER_LAYERS))
        leaves = sorted(m for m in imported if m.split(".")[0] in LEAVES)
        assert upward == [], f"{module} imports {upward}"
        assert leaves == [], f"{module} imports {leaves}"


def test_every_internal_module_is_private():
    public = {
        "tooldeck",
        "tooldeck.__main__",
        "tooldeck.cli",
        "tooldeck.manifest",
        "tooldeck.mcp",
        "tooldeck.providers",
    }
    exposed = sorted(
        name
        for name in MODULES
        if name not in public
        and not any(part.startswith("_") for part in name.split(".")[1:])
        and not name.startswith("tooldeck.providers.")  # one public module per provider
    )
    assert exposed == []


def test_no_module_is_over_500_lines():
    long = sorted(
        f"{name}: {n} lines"
        for name, path in MODULES.items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 500
    )
    assert long == []
