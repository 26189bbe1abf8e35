"""Which Python function runs each imported tool, and typed stubs to start from.

Three choices, one of which the caller must make (a manifest tool needs a
handler): one handler for every tool (``handler="myapp.tools:dispatch"``,
which then takes ``**arguments``), one function per tool in a module
(``handler_module="myapp.tools"`` -> ``myapp.tools:<tool name>``), or a stub
module written for them (:func:`render_stubs`), whose module name is then
the handler module.

Tool names from catalogues are often not Python identifiers
(``math.factorial``, ``get-weather``, ``class``): the function name is made
from the tool name deterministically (other characters -> ``_``, no leading
underscore or digit, keywords and the names the stubs use get a trailing
``_``, clashes numbered) and each change is reported (TD509). The manifest
keeps the tool name the model knows.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable
from pathlib import Path

from ._problems import ImportProblem, Severity
from ._result import ImportResult

__all__ = [
    "HANDLER_REFERENCE",
    "assign_handlers",
    "module_for_path",
    "python_identifier",
    "valid_module",
]

_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
HANDLER_REFERENCE = re.compile(f"^{_DOTTED}:{_DOTTED}$")
"""The manifest meta-schema's ``HandlerRef`` pattern."""

RESERVED = frozenset({"Any", "bool", "dict", "float", "int", "list", "object", "str"})
"""Names the stub module's annotations use: a function may not shadow them."""

_OTHER = re.compile(r"[^A-Za-z0-9_]+")


def python_identifier(name: str, taken: Iterable[str] = ()) -> str:
    """A public ASCII Python identifier made from ``name``, distinct from ``taken``."""
    ident = _OTHER.sub("_", name).strip("_") or "tool"
    if ident[0].isdigit():
        ident = f"tool_{ident}"
    if keyword.iskeyword(ident) or ident in RESERVED:
        ident += "_"
    used = set(taken)
    if ident not in used:
        return ident
    number = 2
    while f"{ident}_{number}" in used:
        number += 1
    return f"{ident}_{number}"


def valid_module(module: str) -> bool:
    """A dotted module name the handler allow-list can hold (public parts only)."""
    return all(part.isidentifier() and not part.startswith("_") for part in module.split("."))


def module_for_path(path: str | Path, *, root: str | Path | None = None) -> str:
    """The module name ``path`` (a ``.py`` file) is imported as, relative to ``root``.

    ``root`` is the directory that is importable (the current one for the
    CLI); a file outside it is named by its stem alone.
    """
    file = Path(path).resolve()
    base = Path(root or Path.cwd()).resolve()
    try:
        parts = file.with_suffix("").relative_to(base).parts
    except ValueError:
        parts = (file.stem,)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def assign_handlers(
    result: ImportResult, *, handler: str | None = None, handler_module: str | None = None
) -> None:
    """Give every tool of ``result`` its handler reference (exactly one option is used).

    ``handler`` wins when both are given. A renamed function is reported on
    ``result.problems`` (TD509, info).
    """
    if handler is not None:
        for tool in result.tools:
            tool.handler = handler
        return
    if handler_module is None:
        raise ValueError("assign_handlers needs handler= or handler_module=")
    taken: list[str] = []
    for tool in result.tools:
        function = python_identifier(tool.name, taken)
        taken.append(function)
        tool.handler = f"{handler_module}:{function}"
        if function != tool.name:
            result.problems.append(
                ImportProblem(
                    code="TD509",
                    message=f"the tool name is not a Python identifier; its handler is "
                    f"{tool.handler}",
                    severity=Severity.INFO,
                    index=tool.index,
                    name=tool.name,
                    line=tool.line,
                )
            )
