"""What a name in a module's source stands for, worked out without running the module.

The values here are descriptions, not objects: a function's definition, a
class's definition, an instance of a class that an assignment makes, a name
from a module outside what may be followed, data, or something only running
the code could tell (:class:`Runtime`).
:class:`~tooldeck.manifest._static.walker.Walker` works them out for
:mod:`tooldeck.manifest._static.resolve` (handler references) and
:mod:`tooldeck.manifest._static.types` (annotations).
"""

from __future__ import annotations

import ast
import sys
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .bindings import SourceModule

__all__ = [
    "ClassDef",
    "Data",
    "External",
    "Function",
    "Instance",
    "Missing",
    "ModuleRef",
    "Runtime",
    "Value",
    "builtin_exists",
    "is_installed_module",
]


@dataclass(frozen=True)
class Function:
    """A ``def``, ``async def`` or ``lambda`` in a module's source."""

    module: SourceModule
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    qualname: str
    drop: int = 0
    """Leading parameters already bound (``self`` of a bound method, ``cls``)."""
    kind: str = "function"
    """``function``, ``static`` (``@staticmethod``) or ``class`` (``@classmethod``)."""
    decorators: tuple[str, ...] = ()
    """Decorators static reading cannot see through (their source text)."""


@dataclass(frozen=True)
class ClassDef:
    """A ``class`` statement in a module's source."""

    module: SourceModule
    node: ast.ClassDef
    qualname: str


@dataclass(frozen=True)
class Instance:
    """An object an assignment makes by calling a class defined in the source."""

    cls: ClassDef
    line: int


@dataclass(frozen=True)
class ModuleRef:
    """A module (``import x``, a package's submodule): never a handler step."""

    name: str


@dataclass(frozen=True)
class External:
    """A name that comes from a module static reading does not follow (``module.name``)."""

    module: str
    name: str


@dataclass(frozen=True)
class Data:
    """A plain value (a literal, a computed property): ``kind`` names what it is."""

    kind: str
    computed: bool = False


@dataclass(frozen=True)
class Runtime:
    """Something only running the module could tell; ``why`` says what."""

    why: str
    made_by: External | None = None
    """The outside callable that made this value (``Counter()``), when one did."""


@dataclass(frozen=True)
class Missing:
    """No such name; ``close`` holds names that look like it."""

    close: tuple[str, ...] = ()


Value = Function | ClassDef | Instance | ModuleRef | External | Data | Runtime | Missing


@cache
def _install_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(Path(root).resolve() for root in roots if root)


def is_installed_module(source: SourceModule) -> bool:
    """Whether a module lives in the standard library or site-packages (not the project)."""
    try:
        where = Path(source.file).resolve()
    except (OSError, RuntimeError):
        return True
    return any(where.is_relative_to(root) for root in _install_roots())


def builtin_exists(name: str) -> bool:
    """Whether ``name`` is a builtin (``dict``, ``print``): a base or value from outside."""
    return hasattr(sys.modules["builtins"], name)
