"""A griffe extension for the API reference: names that load lazily (PEP 562) are found.

``tooldeck``, ``tooldeck.manifest``, ``tooldeck.mcp`` and ``tooldeck.providers.openai`` import
most public names on first use, through a module ``__getattr__``. griffe reads the source: it
sees the names a ``TYPE_CHECKING`` block imports, but not one only the lazy table knows
(``tooldeck.providers.openai.run``), and it follows a type alias re-exported that way
(``tooldeck.ErrorKind``) to ``typing.Literal``. For each name in a public module's runtime
``__all__`` that griffe did not find inside the package, this looks for the module of the
package whose object *is* the one the import gives, and points an alias at it. So the Markdown
names public paths only (``::: tooldeck.providers.openai.run``), and neither it nor this file
spells a private module, which may move.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import griffe

PACKAGE = "tooldeck"


def _modules(module: griffe.Module) -> Iterator[griffe.Module]:
    yield module
    for member in module.members.values():
        if not member.is_alias and isinstance(member, griffe.Module):
            yield from _modules(member)


def _found(member: griffe.Object | griffe.Alias | None) -> bool:
    """Whether griffe knows the name as an object of this package (or an alias to one)."""
    if member is None:
        return False
    return not member.is_alias or member.target_path.startswith(f"{PACKAGE}.")


def _defined_in(pkg: griffe.Module, name: str, value: object) -> str | None:
    """The path of the package module whose ``name`` is ``value`` (not an import of it)."""
    for module in _modules(pkg):
        member = module.members.get(name)
        if member is None or member.is_alias:
            continue
        try:
            if getattr(importlib.import_module(module.path), name) is value:
                return f"{module.path}.{name}"
        except (ImportError, AttributeError):
            continue
    return None


class LazyExports(griffe.Extension):
    """Point each public ``__all__`` name griffe missed at the object the import gives."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **_: Any) -> None:
        if pkg.name != PACKAGE:
            return
        public = [m for m in _modules(pkg) if not any(p.startswith("_") for p in m.path.split("."))]
        for module in public:
            runtime = importlib.import_module(module.path)
            exported = [str(name) for name in getattr(runtime, "__all__", ())]
            missing = [name for name in exported if not _found(module.members.get(name))]
            for name in missing:
                target = _defined_in(pkg, name, getattr(runtime, name))
                if target is None:
                    raise LookupError(f"{module.path}.{name}: no module of {PACKAGE} defines it")
                module.set_member(name, griffe.Alias(name, target, parent=module))
            if missing:
                module.exports = exported
