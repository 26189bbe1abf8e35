"""``[tool.tooldeck.serve]`` and ``[tool.tooldeck.toolsets]``: what ``serve`` takes from settings.

Every key of the ``serve`` table is a ``tooldeck serve`` flag, spelt with
underscores (``rate_limit = "20/s"`` is ``--rate-limit 20/s``); a flag on the
command line always wins. The flags keep a sentinel default
(:func:`defer_to_settings`) so "not given" can be told from "given the
default value"; :func:`apply_serve_settings` then fills each one from the
settings or from its real default.

Settings live in the repository, which a pull request edits: a path in them
(the tokens file, the public key, the audit log) must resolve inside the
folder of the file that sets it, as ``config`` and ``project_dir`` must.

``toolsets`` names selections served side by side at ``/mcp/<name>``::

    [tool.tooldeck.toolsets.support]
    bundles = ["orders"]
    tags = ["support"]
    tools = ["lookup_customer"]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import UsageError

if TYPE_CHECKING:
    from ..manifest._settings import ProjectSettings
    from ..providers import Toolset

__all__ = [
    "SERVE_SETTINGS",
    "UNSET",
    "add_toolset_argument",
    "apply_serve_settings",
    "defer_to_settings",
    "named_toolset",
    "register_settings",
    "selectors_from_toolset",
    "toolsets_of",
]


class _Unset:
    """The default of a flag that settings may set: "not on the command line"."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()

Convert = Callable[[Any, "_Where"], Any]
SERVE_SETTINGS: dict[str, tuple[str, Convert]] = {}
"""Settings key -> (argparse dest, conversion of the TOML value). Filled by
:func:`register_settings` as each group of serve flags is added."""

_LISTS: set[str] = set()
"""Dests of repeatable flags (``action="append"``): their unset value is ``None``."""


class _Where:
    """Which file and key a value came from, for errors and for resolving paths."""

    def __init__(self, settings: ProjectSettings, key: str) -> None:
        self.settings = settings
        self.key = key

    def fail(self, what: str) -> UsageError:
        return UsageError(f"{self.settings.source}: [tool.tooldeck.serve] {self.key} {what}")


# ------------------------------------------------------------------ conversions
def as_str(value: Any, where: _Where) -> str:
    if not isinstance(value, str) or not value:
        raise where.fail("must be a non-empty string")
    return value


def as_bool(value: Any, where: _Where) -> bool:
    if not isinstance(value, bool):
        raise where.fail("must be true or false")
    return value


def as_int(value: Any, where: _Where) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.fail("must be a whole number")
    return value


def as_float(value: Any, where: _Where) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.fail("must be a number")
    return float(value)


def as_list(value: Any, where: _Where) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise where.fail("must be a list of strings")
    return list(value)


def as_path(value: Any, where: _Where) -> Path:
    """A path relative to the settings file's folder, which it must not leave."""
    text = as_str(value, where)
    root = where.settings.root
    path = root / text
    try:
        resolved, boundary = path.resolve(), root.resolve()
    except (OSError, RuntimeError) as exc:
        raise where.fail(f"{text!r} cannot be resolved: {exc}") from None
    if not resolved.is_relative_to(boundary):
        raise where.fail(
            f"{text!r} resolves to {resolved}, outside {boundary}; settings in a repository "
            f"cannot point outside it, pass --{where.key.replace('_', '-')} for that"
        )
    return path


def as_log_path(value: Any, where: _Where) -> str:
    """``-`` (standard error) or a path inside the project (:func:`as_path`)."""
    if value == "-":
        return "-"
    return str(as_path(value, where))


def parsed_by(parse: Callable[[str], Any]) -> Convert:
    """A string setting parsed as its flag's value is (``"20/s"``, ``"1MiB"``)."""

    def convert(value: Any, where: _Where) -> Any:
        text = value if isinstance(value, str) else str(value)
        try:
            return parse(text)
        except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
            raise where.fail(f"= {value!r}: {exc}") from None

    return convert


def one_of(*choices: str) -> Convert:
    def convert(value: Any, where: _Where) -> str:
        if value not in choices:
            raise where.fail(f"must be one of {', '.join(choices)}, not {value!r}")
        return str(value)

    return convert


# ------------------------------------------------------------------ the flags
def register_settings(settings: Mapping[str, tuple[str, Convert]]) -> None:
    """Let ``[tool.tooldeck.serve]`` set these flags (key -> (dest, conversion)); the
    flags are then deferred together, by :func:`defer_to_settings`."""
    SERVE_SETTINGS.update(settings)
    for dest, convert in settings.values():
        if convert is as_list:
            _LISTS.add(dest)


def defer_to_settings(parser: argparse.ArgumentParser) -> None:
    """Give every settable flag a sentinel default; remember the real one."""
    real: dict[str, Any] = {}
    unset: dict[str, Any] = {}
    for dest, _ in SERVE_SETTINGS.values():
        real[dest] = parser.get_default(dest)
        if dest not in _LISTS:  # an append action needs None (it copies the default)
            unset[dest] = UNSET
    parser.set_defaults(_serve_real_defaults=real, **unset)


def apply_serve_settings(args: argparse.Namespace, project: ProjectSettings | None) -> None:
    """Fill each flag not on the command line from the settings, else its real default.

    Runs once per ``args`` (``stdout_is_protocol`` needs the transport early).
    """
    real: dict[str, Any] | None = getattr(args, "_serve_real_defaults", None)
    if real is None:  # applied already, or a parser without deferred flags
        return
    table = project.serve if project is not None else {}
    if project is not None:
        if not isinstance(table, dict):
            raise UsageError(f"{project.source}: [tool.tooldeck.serve] must be a table")
        unknown = sorted(set(table) - set(SERVE_SETTINGS))
        if unknown:
            raise UsageError(
                f"{project.source}: [tool.tooldeck.serve] unknown setting(s) "
                f"{', '.join(unknown)}; known: {', '.join(sorted(SERVE_SETTINGS))}"
            )
    # Every value is checked, even one a flag overrides: a mistake in the file is one.
    values = {
        key: convert(table[key], _Where(project, key))
        for key, (_, convert) in SERVE_SETTINGS.items()
        if project is not None and key in table
    }
    for key, (dest, _) in SERVE_SETTINGS.items():
        given = getattr(args, dest, UNSET)
        if given is not UNSET and not (dest in _LISTS and given is None):
            continue  # on the command line: flags win
        setattr(args, dest, values[key] if key in values else real.get(dest))
    args._serve_real_defaults = None


def toolsets_of(project: ProjectSettings | None) -> dict[str, Toolset]:
    """``[tool.tooldeck.toolsets]``: name -> :class:`~tooldeck.providers.Toolset`."""
    from .._errors import ExportError
    from ..mcp import ServeOptionsError
    from ..mcp._http import check_toolset_name
    from ..providers import Toolset

    if project is None or not project.toolsets:
        return {}
    table = project.toolsets
    where = f"{project.source}: [tool.tooldeck.toolsets]"
    if not isinstance(table, dict):
        raise UsageError(f"{where} must be a table of name = {{bundles, tags, tools}}")
    found: dict[str, Toolset] = {}
    for name, entry in table.items():
        try:
            check_toolset_name(name)
        except ServeOptionsError as exc:
            raise UsageError(f"{where} {exc}") from None
        if not isinstance(entry, dict) or not entry:
            raise UsageError(f"{where} {name} must be a table with bundles, tags or tools")
        unknown = sorted(set(entry) - {"bundles", "tags", "tools"})
        if unknown:
            raise UsageError(
                f"{where} {name}: unknown key(s) {', '.join(unknown)}; known: bundles, tags, tools"
            )
        lists = {}
        for key in ("bundles", "tags", "tools"):
            value = entry.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise UsageError(f"{where} {name}.{key} must be a list of names")
            lists[key] = value
        try:
            found[name] = Toolset.of(
                bundles=lists["bundles"], tags=lists["tags"], names=lists["tools"], name=name
            )
        except ExportError as exc:
            raise UsageError(f"{where} {name}: {exc}") from None
    return found


def add_toolset_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--toolset NAME``: the selectors of a toolset of ``[tool.tooldeck.toolsets]``."""
    parser.add_argument(
        "--toolset",
        metavar="NAME",
        help=f"{what} the tools of this toolset of [tool.tooldeck.toolsets] "
        "(instead of --bundle/--tag/--tool)",
    )


def named_toolset(args: argparse.Namespace, named: Mapping[str, Toolset]) -> Toolset:
    """The toolset ``--toolset`` names (usage errors: combined with selectors, or unknown)."""
    if args.bundles or args.tags or args.names:
        raise UsageError("--toolset and --bundle/--tag/--tool cannot be combined")
    if args.toolset not in named:
        known = ", ".join(sorted(named)) or "none (add [tool.tooldeck.toolsets.NAME])"
        raise UsageError(f"unknown toolset {args.toolset!r}; the toolsets here are: {known}")
    return named[args.toolset]


def selectors_from_toolset(args: argparse.Namespace) -> None:
    """Replace ``--toolset NAME`` by its bundles, tags and tools (``export``, ``chat``).

    So ``export --toolset support`` gives exactly what ``serve`` serves at ``/mcp/support``.
    """
    if getattr(args, "toolset", None) is None:
        return
    from ._common import Resolved

    chosen = named_toolset(args, toolsets_of(Resolved(args, bundled=True).project))
    args.bundles = sorted(chosen.bundles) or None
    args.tags = sorted(chosen.tags) or None
    args.names = sorted(chosen.names) or None
