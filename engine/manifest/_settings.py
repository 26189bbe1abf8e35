"""Project settings: ``[tool.tooldeck]`` in pyproject.toml, or a ``tooldeck.yaml``.

Found by walking up from the current directory to the nearest folder that
has either (as ruff and pytest find theirs), so ``tooldeck lint`` with no
arguments in any subfolder of a configured project lints that project's
manifests. Paths in the settings are relative to the file that declares
them. Flags always win: ``-m`` replaces ``manifests``, ``--allow-handlers``
replaces ``allow_handlers``, ``--project-dir`` and ``--config`` replace theirs.

    [tool.tooldeck]
    manifests = ["manifests"]
    allow_handlers = ["myapp.tools"]
    project_dir = "."
    config = "config/app.yaml"

    [tool.tooldeck.lint]            # read by the lint rules (see docs/guides/lint-ci.md)
    min_description_length = 20

    [tool.tooldeck.serve]           # tooldeck serve's flags (see docs/guides/serve.md)
    transport = "http"

    [tool.tooldeck.toolsets.support]  # served at /mcp/support
    bundles = ["orders"]

A problem in the settings is a located TD240 diagnostic; the command then
stops with exit code 2 rather than guess. Settings live in the repository,
which a pull request edits, so ``manifests``, ``project_dir`` and
``config`` must resolve (after symlinks) inside the folder of the file that
sets them: ``project_dir = "/"`` would otherwise open the whole disk to the
file tools, and a ``config`` symlinked to a file outside would be read and
echoed in diagnostics. A flag on the command line may still point anywhere.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._diagnostics import Diagnostic, SourceLocation
from .._readfile import Unreadable, read_bounded, read_text_lines

__all__ = [
    "MEDIA_CAP_CEILING",
    "PROJECT_FILES",
    "ProjectSettings",
    "find_project",
    "handler_prefix_problem",
    "locate_project",
    "media_cap_problem",
]

PROJECT_FILES = ("pyproject.toml", "tooldeck.yaml")
_KEYS = (
    "manifests",
    "allow_handlers",
    "project_dir",
    "config",
    "max_media_bytes",
    "lint",
    "serve",
    "toolsets",
)

MEDIA_CAP_CEILING = 256 * 1024 * 1024
"""The most ``max_media_bytes`` (setting or ``--max-media-bytes``) may raise the media cap to.

256 MiB, 25 times the 10 MiB default: a result's media are held whole in memory and sent
base64-encoded (a third more) in one JSON-RPC message, and the model loop sends them again
on every turn, so past this no MCP client or model API takes them (providers cap an image at
5-20 MB) and a value this large is a slip (a byte count for a kibibyte count, a digit too
many) or a pull request making a shared server buffer gigabytes. Code that truly needs more
passes ``ToolRegistry(max_media_bytes=...)``, which has no ceiling."""


@dataclass(frozen=True)
class ProjectSettings:
    """What a project declares for the CLI; paths already resolved against ``root``."""

    source: Path
    """The file the settings came from."""
    root: Path
    manifests: tuple[Path, ...] = ()
    allow_handlers: tuple[str, ...] = ()
    project_dir: Path | None = None
    config: Path | None = None
    max_media_bytes: int | None = None
    """The cap on one result's media in bytes; None: not set (the registry's 10 MiB)."""
    lint: Any = field(default_factory=dict)
    """The ``lint`` table as written (checked by the lint settings reader)."""
    serve: Any = field(default_factory=dict)
    """The ``serve`` table as written: ``tooldeck serve``'s flags, checked by the CLI."""
    toolsets: Any = field(default_factory=dict)
    """The ``toolsets`` table as written: name -> ``{bundles, tags, tools}``, checked by the CLI."""
    diagnostics: tuple[Diagnostic, ...] = field(default=())


def find_project(start: Path | None = None) -> ProjectSettings | None:
    """The settings of the nearest configured project at or above ``start`` (cwd)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in PROJECT_FILES:
            linked = _linked_out(folder / name)
            if linked is not None:
                return ProjectSettings(source=folder / name, root=folder, diagnostics=(linked,))
        # exists(), not is_file(): a FIFO or device there is reported, not walked past
        pyproject = folder / "pyproject.toml"
        if pyproject.exists():
            table = _pyproject_table(pyproject)
            if table is not None:
                return _settings(pyproject, table)
        standalone = folder / "tooldeck.yaml"
        if standalone.exists():
            return _settings(standalone, _yaml_table(standalone))
    return None


def locate_project(
    places: Iterable[str | os.PathLike[str] | None], *, start: Path | None = None
) -> ProjectSettings | None:
    """The settings of the nearest project above any of ``places``, else above ``start``.

    ``places`` are the paths the caller named (the project directory first,
    then the manifests); a file stands for its folder. ``start`` is the
    current directory unless given.
    """
    seen: set[Path] = set()
    for place in (*places, start or Path.cwd()):
        if place is None:
            continue
        path = Path(place)
        folder = path if path.is_dir() or not path.suffix else path.parent
        try:
            folder = folder.resolve()
        except (OSError, RuntimeError):  # a symlink loop: nothing to find above it
            continue
        if folder in seen:
            continue
        seen.add(folder)
        found = find_project(folder)
        if found is not None:
            return found
    return None


def _linked_out(path: Path) -> Diagnostic | None:
    """TD240 for a settings file that is a link to a file outside its folder.

    Such a file is not read: its keys would come back in TD240 messages
    ("unknown setting(s) ...") and its values in others, and a pull request
    can make ``pyproject.toml`` a link to any file on the CI machine.
    """
    if not path.is_symlink():
        return None
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return _problem(path, f"{path.name} is a link that cannot be resolved")
    if target.is_relative_to(path.parent.resolve()):
        return None
    return Diagnostic(
        code="TD240",
        message=f"{path.name} is a link to {target}, outside {path.parent}; not read",
        location=SourceLocation(file=str(path)),
    )


def _pyproject_table(path: Path) -> dict[str, Any] | Diagnostic | None:
    import tomllib

    raw = read_bounded(path)  # never blocks, never reads past the cap
    if isinstance(raw, Unreadable):
        return _problem(path, f"cannot read {path.name}: {raw}")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return _problem(path, f"cannot read {path.name}: {exc}")
    except RecursionError:  # tomllib recurses per nesting level
        return _problem(path, f"cannot read {path.name}: nested too deep")
    tool = data.get("tool")
    table = tool.get("tooldeck") if isinstance(tool, dict) else None
    if table is None:
        return None  # a pyproject of a project that does not use tooldeck: keep looking
    if not isinstance(table, dict):
        return _problem(path, "[tool.tooldeck] must be a table")
    return table


def _yaml_table(path: Path) -> dict[str, Any] | Diagnostic:
    from .._yaml import read_yaml

    doc = read_yaml(path)
    if doc.diagnostics:
        return doc.diagnostics[0]
    if doc.data is None:
        return {}
    if not isinstance(doc.data, dict):
        return _problem(path, "tooldeck.yaml must be a mapping of settings")
    return dict(doc.data)


def _settings(path: Path, table: dict[str, Any] | Diagnostic | None) -> ProjectSettings:
    root = path.parent
    if isinstance(table, Diagnostic):
        return ProjectSettings(source=path, root=root, diagnostics=(table,))
    table = table or {}
    problems: list[Diagnostic] = []
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        problems.append(
            _problem(
                path,
                f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(_KEYS)}",
                unknown[0],
            )
        )

    def inside(key: str, value: str) -> Path | None:
        """``root / value``, unless it resolves (after symlinks) outside ``root``."""
        where = root / value
        try:
            resolved, boundary = where.resolve(), root.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop
            problems.append(_problem(path, f"{key} {value!r} cannot be resolved: {exc}", key))
            return None
        if not resolved.is_relative_to(boundary):
            problems.append(
                _problem(
                    path,
                    f"{key} {value!r} resolves to {resolved}, outside {boundary} (the folder "
                    f"of {path.name}); settings in a repository cannot point outside it, pass "
                    f"--{key.replace('_', '-')} on the command line for that",
                    key,
                )
            )
            return None
        return where

    def paths(key: str) -> tuple[Path, ...]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            problems.append(_problem(path, f"{key} must be a list of paths", key))
            return ()
        found = [inside(key, v) for v in value]
        return tuple(p for p in found if p is not None)

    def one_path(key: str) -> Path | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            problems.append(_problem(path, f"{key} must be a path", key))
            return None
        return inside(key, value)

    def media_cap() -> int | None:
        value = table.get("max_media_bytes")
        if value is None:
            return None
        why = media_cap_problem(value)
        if why is not None:
            problems.append(_problem(path, f"max_media_bytes {why}", "max_media_bytes"))
            return None
        return int(value)

    handlers = table.get("allow_handlers", [])
    if isinstance(handlers, str):
        handlers = [handlers]
    if not isinstance(handlers, list) or not all(isinstance(h, str) and h for h in handlers):
        problems.append(
            _problem(path, "allow_handlers must be a list of module prefixes", "allow_handlers")
        )
        handlers = []
    for prefix in handlers:
        why = handler_prefix_problem(prefix)
        if why is not None:
            problems.append(_problem(path, why, "allow_handlers"))
    handlers = [h for h in handlers if handler_prefix_problem(h) is None]
    return ProjectSettings(
        source=path,
        root=root,
        manifests=paths("manifests"),
        allow_handlers=tuple(handlers),
        project_dir=one_path("project_dir"),
        config=one_path("config"),
        max_media_bytes=media_cap(),
        lint=table.get("lint", {}),
        serve=table.get("serve", {}),
        toolsets=table.get("toolsets", {}),
        diagnostics=tuple(problems),
    )


def handler_prefix_problem(prefix: str) -> str | None:
    """Why repository settings may not allow ``prefix`` (None: they may).

    The standard library and tooldeck's own modules are not written as tools:
    ``allow_handlers = ["subprocess"]`` in a pull request would make
    ``subprocess:run`` a tool that lint (static or not) accepts. The command
    line (``--allow-handlers``) and code (``allow_handlers=``) may still.
    """
    top = prefix.partition(".")[0]
    if top in sys.stdlib_module_names or top == "__main__":
        return (
            f"allow_handlers {prefix!r} names the standard library; its functions are not "
            "tools, and settings in a repository cannot allow them (use --allow-handlers on "
            "the command line if you mean it)"
        )
    if top == "tooldeck" and not (prefix + ".").startswith("tooldeck.handlers."):
        return (
            f"allow_handlers {prefix!r} names tooldeck itself; only tooldeck.handlers holds "
            "tools (allowed already)"
        )
    return None


def media_cap_problem(value: object) -> str | None:
    """Why ``value`` cannot be a ``max_media_bytes`` setting or flag (None: it can).

    A whole number of bytes from 0 (no media at all) to :data:`MEDIA_CAP_CEILING`;
    not a boolean (TOML ``true`` is no size) and not a float or "10MiB" (one
    spelling, the one ``ToolRegistry(max_media_bytes=...)`` takes).
    """
    if type(value) is not int:
        return f"must be a whole number of bytes, not {value!r}"
    if value < 0:
        return f"must be 0 or more, not {value}"
    if value > MEDIA_CAP_CEILING:
        return (
            f"must be at most {MEDIA_CAP_CEILING} (256 MiB), not {value}: no MCP client or "
            "model API takes media that large; pass ToolRegistry(max_media_bytes=...) in "
            "code if you mean it"
        )
    return None


def _problem(path: Path, message: str, key: str | None = None) -> Diagnostic:
    """A TD240 at the line that sets ``key`` (found in the text), else at the file."""
    line, column = 1, 1
    if key is not None:
        lines = read_text_lines(path)
        for number, text in enumerate(lines, start=1):
            stripped = text.lstrip()
            if stripped.startswith(key) and stripped[len(key) :].lstrip()[:1] in ("=", ":"):
                line, column = number, len(text) - len(stripped) + 1
                break
    location = SourceLocation(file=str(path), line=line, column=column)
    return Diagnostic(code="TD240", message=message, location=location)
