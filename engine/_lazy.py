"""Public names that load their module on first use (PEP 562), for light package imports.

``import tooldeck`` (and ``tooldeck.manifest``, ``tooldeck.mcp``) must not
pay for what a caller never touches: a CLI run in pre-commit, or an
attachment that never serves. Each package lists ``name -> module`` once and
takes its ``__getattr__`` from :func:`lazy_getattr`. Module names may be
relative to the package (``".validator"``), as the package's imports are.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` importing ``exports[name]`` on first use and caching the value.

    ``exports`` maps each name to the module defining it, absolute or relative to ``package``.
    """
    namespace = importlib.import_module(package).__dict__
    anchor = namespace.get("__package__") or package  # what a relative name starts from

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, anchor), name)
        namespace[name] = value  # later lookups skip this function
        return value

    return __getattr__
