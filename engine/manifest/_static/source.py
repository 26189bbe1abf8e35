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

from .bindings import Binding, SourceModule, collect_module
from .file import (
    MAX_RUN_ELEMENTS,
    MAX_SOURCE_BYTES,
    StaticProblem,
    parse_source,
    read_source,
)

__all__ = ["MAX_SOURCE_BYTES", "Binding", "ModuleIndex", "SourceModule", "StaticProblem"]

_IMPORTING_FINDERS = frozenset({"_distutils_hack"})
"""Modules of ``sys.meta_path`` finders that import code to answer ``find_spec``.

setuptools' ``DistutilsMetaFinder`` imports setuptools (hundreds of
modules) when asked for ``distutils``; a pull request's annotation can ask.
"""


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
        self.classes: dict[int, tuple[ast.ClassDef, dict[str, Binding], dict[str, int]]] = {}
        """What each class body binds and sets on ``self``, by node, read once per run."""

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
        collect_module(module)
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
