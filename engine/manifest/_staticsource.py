"""Handler modules read as source: found on the import path and parsed, never imported.

``tooldeck lint --static`` judges a pull request without running any of it,
so the modules a manifest names are located the way the import system would
locate them (the same finders, in the same order, asked for one level at a
time so that no package's ``__init__`` runs), read with a size cap and
parsed with :mod:`ast`. What a module binds at its top level is then read
off the tree: definitions, assignments, imports, and the statements that
make names only at run time (``globals()``, ``setattr``, ``exec``), which
static reading can point at but not follow.

Everything here is data about text: no code of the module, its package or
its imports runs, and a broken or hostile file is a problem value, never an
exception out of this module.
"""

from __future__ import annotations

import ast
import importlib.machinery
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tooldeck.manifest._staticfile import (
    MAX_RUN_ELEMENTS,
    MAX_SOURCE_BYTES,
    StaticProblem,
    parse_source,
    read_source,
)
from tooldeck.manifest._staticmarkers import clip

__all__ = ["MAX_SOURCE_BYTES", "Binding", "ModuleIndex", "SourceModule", "StaticProblem"]

_IMPORTING_FINDERS = frozenset({"_distutils_hack"})
"""Modules of ``sys.meta_path`` finders that import code to answer ``find_spec``.

setuptools' ``DistutilsMetaFinder`` imports setuptools (hundreds of
modules) when asked for ``distutils``; a pull request's annotation can ask.
"""

_RUNTIME_NAMERS = frozenset({"globals", "setattr", "exec", "eval", "vars", "__import__"})
"""Calls at module level that can bind module names no statement shows."""


@dataclass(frozen=True)
class Binding:
    """What one top-level name is bound to, as the source says.

    ``kind`` is ``def`` (function), ``class``, ``value`` (an assignment;
    ``node`` is the assigned expression), ``import`` (``import a.b`` or
    ``import a.b as c``; ``target`` is the module), ``from`` (``from m
    import n``; ``target`` is the module and ``name`` the imported name) or
    ``runtime`` (bound by a statement whose value only running it gives:
    a loop variable, a ``with`` target, a tuple unpacking, ``+=``).
    """

    kind: str
    node: ast.AST
    line: int
    conditional: bool = False
    """Bound inside an ``if``, ``try``, loop or ``with``: which one runs is decided at run time."""
    target: str = ""
    name: str = ""


@dataclass
class SourceModule:
    """One parsed module and the names its top level binds."""

    name: str
    file: str
    tree: ast.Module
    is_package: bool
    bindings: dict[str, Binding] = field(default_factory=dict)
    star_imports: list[tuple[str, int]] = field(default_factory=list)
    """``from m import *`` targets (absolute module, line), in source order."""
    runtime_namers: list[tuple[str, int]] = field(default_factory=list)
    """Module-level calls that may bind names no statement shows (``globals``, ``setattr``...)."""

    @property
    def package(self) -> str:
        """The package relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


class ModuleIndex:
    """Finds and parses modules once per run; problems are remembered like results."""

    def __init__(
        self, *, max_bytes: int = MAX_SOURCE_BYTES, search_last: Sequence[str] = ()
    ) -> None:
        self.max_bytes = max_bytes
        self.search_last = tuple(search_last)
        """Folders searched for top-level modules after the import path (never put on it)."""
        self._modules: dict[str, SourceModule | StaticProblem] = {}
        self._budget = [MAX_RUN_ELEMENTS]
        """Syntax elements this run may still read (:data:`MAX_RUN_ELEMENTS`)."""
        self.classes: dict[int, tuple[ast.ClassDef, dict[str, Binding]]] = {}
        """Class bodies' bindings, by node, for every lookup of the run (see ``Walker``)."""

    def module(self, name: str) -> SourceModule:
        """The parsed module ``name``, or raise :class:`StaticProblem` (TD311 or TD316)."""
        found = self._modules.get(name)
        if found is None:
            try:
                found = self._read(name)
            except StaticProblem as problem:
                found = problem
            self._modules[name] = found
        if isinstance(found, StaticProblem):
            raise found
        return found

    def is_package_module(self, name: str) -> bool:
        """Whether ``name`` is a module or package on the import path (found, not read)."""
        try:
            return find_spec(name, self.search_last) is not None
        except StaticProblem:
            return False

    def _read(self, name: str) -> SourceModule:
        spec = find_spec(name, self.search_last)
        if spec is None:
            raise StaticProblem(
                "TD311",
                f"handler module {name!r} is not on the import path (static lint found no "
                "file for it and imports nothing)",
            )
        origin = spec.origin
        if not origin or origin in ("built-in", "frozen") or not origin.endswith((".py", ".pyw")):
            if spec.submodule_search_locations is not None and not origin:
                tree = ast.Module(body=[], type_ignores=[])  # a namespace package: no names
                return SourceModule(name=name, file=name, tree=tree, is_package=True)
            raise StaticProblem(
                "TD316",
                f"handler module {name!r} has no Python source ({origin or 'no file'}); "
                "only importing it could resolve the reference",
            )
        text = read_source(origin, name, self.search_last, self.max_bytes, self._budget)
        tree = parse_source(text, origin, name)
        module = SourceModule(
            name=name,
            file=origin,
            tree=tree,
            is_package=spec.submodule_search_locations is not None,
        )
        _collect(module, tree.body, conditional=False)
        return module


def find_spec(name: str, search_last: Sequence[str] = ()) -> importlib.machinery.ModuleSpec | None:
    """Where the import system would find ``name``, without importing it or its packages.

    Each level is asked of the finders on ``sys.meta_path`` in order (as
    :mod:`importlib` does), with the parent's search locations for a
    submodule, so a package's ``__init__`` never runs to find its children.
    ``sys.modules`` is not consulted: what this process imported says nothing
    about the files a pull request holds (and an entry may be an alias).

    A top-level name no finder knows is then looked for in ``search_last``
    (the project's folders). They are searched here rather than put on the
    import system, where they would answer every optional ``import`` that
    this process makes: ``copy`` asks for ``org.python.core`` and
    jsonschema for ``webcolors``, so a pull request's ``org/__init__.py``
    or ``webcolors.py`` would run inside a lint that promises to run nothing.
    """
    parts = name.split(".")
    spec: importlib.machinery.ModuleSpec | None = None
    for depth in range(1, len(parts) + 1):
        fullname = ".".join(parts[:depth])
        path = None if spec is None else spec.submodule_search_locations
        if depth > 1 and path is None:
            return None  # the parent is a plain module: it has no submodules
        spec = _spec_of(fullname, None if path is None else list(path))
        if spec is None and path is None and search_last:
            spec = importlib.machinery.PathFinder.find_spec(fullname, list(search_last))
        if spec is None:
            return None
    return spec


def _spec_of(fullname: str, path: list[str] | None) -> importlib.machinery.ModuleSpec | None:
    for finder in list(sys.meta_path):
        find = getattr(finder, "find_spec", None)
        if find is None or type(finder).__module__ in _IMPORTING_FINDERS:
            continue
        try:
            spec = find(fullname, path)
        except Exception:  # an installed finder's own failure: ask the next one
            continue
        if isinstance(spec, importlib.machinery.ModuleSpec):
            return spec
    return None


# ------------------------------------------------------------------ top-level bindings
def _collect(module: SourceModule, body: list[ast.stmt], *, conditional: bool) -> None:
    """Record what each statement of a module-level block binds, in source order."""
    for statement in body:
        _bind_statement(module, statement, conditional)
        _note_runtime_namers(module, statement)


def _bind_statement(module: SourceModule, node: ast.stmt, conditional: bool) -> None:
    bind = module.bindings
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        bind[node.name] = Binding("def", node, node.lineno, conditional)
    elif isinstance(node, ast.ClassDef):
        bind[node.name] = Binding("class", node, node.lineno, conditional)
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            _bind_target(module, target, node.value, node.lineno, conditional)
    elif isinstance(node, ast.AnnAssign):
        if node.value is not None:  # a bare annotation binds nothing
            _bind_target(module, node.target, node.value, node.lineno, conditional)
    elif isinstance(node, ast.AugAssign):
        _bind_target(module, node.target, None, node.lineno, conditional)
    elif isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                bind[alias.asname] = Binding(
                    "import", node, node.lineno, conditional, target=alias.name
                )
            else:
                top = alias.name.partition(".")[0]
                bind[top] = Binding("import", node, node.lineno, conditional, target=top)
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(module, node.module, node.level)
        for alias in node.names:
            if base is None:  # a relative import above the top package: fails when run
                bind[alias.asname or alias.name] = Binding("runtime", node, node.lineno, True)
            elif alias.name == "*":
                module.star_imports.append((base, node.lineno))
            else:
                bind[alias.asname or alias.name] = Binding(
                    "from", node, node.lineno, conditional, target=base, name=alias.name
                )
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            if isinstance(target, ast.Name):
                bind.pop(target.id, None)
    elif isinstance(node, ast.For | ast.AsyncFor):
        _bind_target(module, node.target, None, node.lineno, True)
        _collect(module, node.body, conditional=True)
        _collect(module, node.orelse, conditional=True)
    elif isinstance(node, ast.While | ast.If):
        _collect(module, node.body, conditional=True)
        _collect(module, node.orelse, conditional=True)
    elif isinstance(node, ast.With | ast.AsyncWith):
        for item in node.items:
            if item.optional_vars is not None:
                _bind_target(module, item.optional_vars, None, node.lineno, True)
        _collect(module, node.body, conditional=True)
    elif isinstance(node, ast.Try | ast.TryStar):
        _collect(module, node.body, conditional=True)
        for handler in node.handlers:
            if handler.name:
                bind[handler.name] = Binding("runtime", handler, handler.lineno, True)
            _collect(module, handler.body, conditional=True)
        _collect(module, node.orelse, conditional=True)
        _collect(module, node.finalbody, conditional=True)
    elif isinstance(node, ast.Match):
        for case in node.cases:
            _collect(module, case.body, conditional=True)
    for named in _walrus_targets(node):
        bind[named.id] = Binding("runtime", named, named.lineno, True)


def _bind_target(
    module: SourceModule, target: ast.expr, value: ast.expr | None, line: int, conditional: bool
) -> None:
    if isinstance(target, ast.Name):
        if value is None:
            module.bindings[target.id] = Binding("runtime", target, line, conditional)
        else:
            module.bindings[target.id] = Binding("value", value, line, conditional)
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            _bind_target(module, element, None, line, conditional)
    elif isinstance(target, ast.Starred):
        _bind_target(module, target.value, None, line, conditional)


def _absolute(module: SourceModule, name: str | None, level: int) -> str | None:
    """The absolute module a (possibly relative) ``from`` import names; None if it cannot."""
    if level == 0:
        return name
    package = module.package
    for _ in range(level - 1):
        if not package:
            return None
        package = package.rpartition(".")[0]
    if not package:
        return None
    return f"{package}.{name}" if name else package


def _walrus_targets(node: ast.stmt) -> list[ast.Name]:
    """``(name := ...)`` targets in a statement's own expressions (they bind module names)."""
    found: list[ast.Name] = []
    stack: list[ast.AST] = [
        child
        for child in ast.iter_child_nodes(node)
        if not isinstance(child, ast.stmt)  # nested blocks are collected as statements
    ]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.NamedExpr) and isinstance(current.target, ast.Name):
            found.append(current.target)
        if isinstance(current, ast.Lambda):
            continue  # its own scope
        stack.extend(ast.iter_child_nodes(current))
    return found


def _note_runtime_namers(module: SourceModule, node: ast.stmt) -> None:
    """Remember module-level calls such as ``globals()[...] = f`` that bind unseen names."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(current, ast.Call):
            callee = current.func
            called = (
                callee.id
                if isinstance(callee, ast.Name)
                else callee.attr
                if isinstance(callee, ast.Attribute)
                else None
            )
            if called in _RUNTIME_NAMERS:
                module.runtime_namers.append((f"{called}()", current.lineno))
        elif (
            isinstance(current, ast.Attribute)
            and current.attr in ("__dict__", "modules")
            and isinstance(current.ctx, ast.Load)
        ):
            module.runtime_namers.append((clip(current), current.lineno))
        stack.extend(ast.iter_child_nodes(current))
