"""One project, found the same way from every entry point.

An MCP client starts ``tooldeck serve -m /abs/app/manifests`` from whatever
folder it runs in (Claude Desktop: ``/``), a CI job runs ``tooldeck lint``
from the repository root, and an application calls :func:`load_project`
from its own code. All three must configure the same registry, so the
project is located from what the caller names, not only from the current
directory: the nearest ``pyproject.toml`` with ``[tool.tooldeck]`` (or
``tooldeck.yaml``) at or above the project directory, then above each
manifest path, then above the current directory. The first found is *the*
project: its settings fill every value no flag or argument gave, and its
folder becomes importable (last, after every installed package) so handler
modules named in ``allow_handlers`` import wherever the process started.

The command line and :func:`load_project` both go through
:func:`plan_project`; ``Resolved`` in the CLI is a thin view of the plan.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._diagnostics import Diagnostic, SourceLocation
from ._settings import ProjectSettings, find_project, locate_project

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = ["ProjectPlan", "load_project", "plan_project"]


@dataclass(frozen=True)
class ProjectPlan:
    """What to load and how, once flags (or arguments), settings and defaults are merged."""

    settings: ProjectSettings | None
    """The project settings used (``settings.source`` is the file), or None."""
    manifests: tuple[Path, ...]
    allow_handlers: tuple[str, ...]
    project_dir: Path
    config: Path | None
    import_folders: tuple[str, ...]
    """Folders handler modules import from, after every installed package: the start
    folder (the current directory), then the project root."""
    max_media_bytes: int | None = None
    """The cap on one result's media (``ToolRegistry(max_media_bytes=...)``); None: its default."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """TD240 problems of the settings, or of a default ``manifests`` folder linked outside."""


def plan_project(
    *,
    manifests: Sequence[str | os.PathLike[str]] | None = None,
    allow_handlers: Iterable[str] | None = None,
    project_dir: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    max_media_bytes: int | None = None,
    start: Path | None = None,
    settings: ProjectSettings | None = None,
    search: bool = True,
) -> ProjectPlan:
    """Merge what the caller gave with the project's settings; nothing is read but settings.

    A value given here wins over the settings, which win over the defaults:
    manifests ``<root>/manifests`` (``./manifests`` without a project),
    allow-list empty (``tooldeck.handlers`` is always allowed), project
    directory the project root (the start folder without a project), no
    config, the registry's media cap (10 MiB). ``manifests`` may come back
    empty when there is nothing to load: the caller decides (the CLI falls
    back to the bundled manifests).
    ``settings`` skips the search (``search=False`` skips it too, with none).
    """
    here = (start or Path.cwd()).absolute()
    if settings is None and search:
        settings = locate_project([project_dir, *(manifests or ())], start=here)
    root = settings.root if settings is not None else None
    chosen: tuple[Path, ...] = tuple(Path(m) for m in manifests or ())
    if not chosen and settings is not None:
        chosen = settings.manifests
    problems = list(settings.diagnostics) if settings is not None else []
    if not chosen:
        chosen, linked = _default_manifests(root or here)
        problems.extend(linked)
    handlers = (
        tuple(allow_handlers)
        if allow_handlers is not None
        else (settings.allow_handlers if settings is not None else ())
    )
    directory = Path(project_dir) if project_dir is not None else None
    if directory is None and settings is not None:
        directory = settings.project_dir or settings.root
    folders = [str(here), *([str(root)] if root is not None else [])]
    return ProjectPlan(
        settings=settings,
        manifests=chosen,
        allow_handlers=handlers,
        project_dir=directory or here,
        config=Path(config) if config is not None else (settings.config if settings else None),
        import_folders=tuple(dict.fromkeys(os.path.abspath(f) for f in folders)),
        max_media_bytes=(
            max_media_bytes
            if max_media_bytes is not None
            else (settings.max_media_bytes if settings else None)
        ),
        diagnostics=tuple(problems),
    )


def _as_given(path: Path) -> Path:
    """``path`` relative to the current directory when below it, as a user would write it.

    Diagnostics name files by these paths, and CI annotations (GitHub's
    ``file=``) need them relative to the checkout.
    """
    here = Path.cwd()
    return path.relative_to(here) if path.is_relative_to(here) else path


def _default_manifests(base: Path) -> tuple[tuple[Path, ...], list[Diagnostic]]:
    """``base/manifests`` when it is a folder that stays inside ``base``.

    A pull request could otherwise make it a link to a folder on the CI
    machine and have its YAML files read and quoted in diagnostics, as a
    ``manifests`` setting cannot (TD240). ``-m`` and ``manifests=`` name any folder.
    """
    folder = base / "manifests"
    if not folder.is_dir():
        return (), []
    try:
        target, inside = folder.resolve(), base.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return (), []
    if target.is_relative_to(inside):
        return (_as_given(folder),), []
    message = (
        f"{folder} is a link to {target}, outside {inside}; not read "
        "(name it with -m or manifests= to read it anyway)"
    )
    return (), [
        Diagnostic(code="TD240", message=message, location=SourceLocation(file=str(folder)))
    ]


def load_project(
    path: str | os.PathLike[str] = ".",
    *,
    manifests: Sequence[str | os.PathLike[str]] | None = None,
    allow_handlers: Iterable[str] | None = None,
    project_dir: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    max_media_bytes: int | None = None,
    **options: Any,
) -> ToolRegistry:
    """The registry ``tooldeck`` commands would build for the project at or above ``path``.

    Reads ``[tool.tooldeck]`` in the nearest ``pyproject.toml`` (or
    ``tooldeck.yaml``) at or above ``path`` exactly as the CLI does:
    ``manifests``, ``allow_handlers``, ``project_dir``, ``config`` and
    ``max_media_bytes``, each replaced by the argument of the same name when
    given. The project folder becomes importable (after every installed
    package), so its handler modules load wherever the application runs from. ``options`` are
    :class:`~tooldeck.ToolRegistry`'s (``lenient``, ``approve`` ...).

    Raises :class:`~tooldeck.ManifestError` carrying every located
    diagnostic when the settings or a manifest have errors, or when there is
    no manifest to load; use :func:`plan_project` and
    :func:`~tooldeck.load_manifests` to get them as values instead.
    """
    from .._errors import ManifestError
    from .._importpath import project_importable_last
    from ._manifests import from_manifests

    start = Path(path)
    if not start.exists():
        where = SourceLocation(file=str(start))
        raise ManifestError(
            [Diagnostic(code="TD240", message=f"{start} does not exist", location=where)]
        )
    folder = start if start.is_dir() else start.parent
    settings = find_project(folder)
    plan = plan_project(
        manifests=manifests,
        allow_handlers=allow_handlers,
        project_dir=project_dir,
        config=config,
        max_media_bytes=max_media_bytes,
        start=folder.absolute(),
        settings=settings,
        search=False,
    )
    if plan.diagnostics:
        raise ManifestError(list(plan.diagnostics))
    if not plan.manifests:
        where = SourceLocation(file=str(settings.source if settings else folder))
        message = (
            f"no manifests to load: {folder.absolute()} has no manifests/ folder and no "
            "[tool.tooldeck] manifests setting; pass manifests=[...]"
        )
        raise ManifestError([Diagnostic(code="TD200", message=message, location=where)])
    for folder_name in plan.import_folders:
        project_importable_last(folder_name)
    return from_manifests(
        plan.manifests,
        config=plan.config,
        allow_handlers=plan.allow_handlers,
        project_dir=plan.project_dir,
        max_media_bytes=plan.max_media_bytes,
        **options,
    )
