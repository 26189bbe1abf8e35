"""Manifests loaded once: :func:`load_manifests` (diagnostics as values) and :func:`from_manifests`.

Both are :class:`~tooldeck.manifest._live.LiveManifests` loading once, so
the rules are the same whether manifests load once or live. Problems are
collected as values in :class:`LoadResult`; :meth:`LoadResult.raise_for_errors`
turns them into a :class:`ManifestError` for callers that want an exception.
This is the manifest layer's entry point for building a registry: the
registry itself never imports upward into it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._config import Config, load_config
from .._diagnostics import Diagnostic, Severity
from .._errors import ManifestError
from .._registry import ToolRegistry
from .._yaml import YamlDocument
from ._build import Bundle
from ._live import LiveManifests

__all__ = ["LoadResult", "from_manifests", "load_manifests"]


@dataclass
class LoadResult:
    """What a load found: per-file bundles and every diagnostic, in file order."""

    files: list[str] = field(default_factory=list)
    bundles: dict[str, Bundle] = field(default_factory=dict)
    documents: dict[str, YamlDocument] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)
    """Files whose entries are now in the registry."""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_for_errors(self) -> None:
        """Raise :class:`ManifestError` carrying every error, if there are any."""
        if self.errors:
            raise ManifestError(self.errors)


def load_manifests(
    paths: Iterable[str | Path],
    *,
    registry: ToolRegistry | None = None,
    config: Config | Mapping[str, Any] | str | Path | None = None,
    allow_handlers: Iterable[str] | None = None,
    app_class: type | None = None,
    register: bool = True,
    environ: Mapping[str, str] | None = None,
    project_dir: str | Path | None = None,
    static: bool = False,
    search_last: Iterable[str | Path] = (),
) -> tuple[ToolRegistry, LoadResult]:
    """Load manifests into ``registry`` (a new one when None) and report what happened.

    ``allow_handlers`` extends the default handler prefix ``tooldeck.handlers``;
    None (the default) takes the project's: the ``allow_handlers`` setting of
    the nearest ``[tool.tooldeck]`` above the manifests (or the current
    directory), whose folder then becomes importable, as for the CLI;
    ``app_class`` decides ``supported_for``; ``register=False`` only checks.
    ``project_dir`` is for the new registry (as :func:`from_manifests` takes
    it); passing it with a ``registry`` of another project dir is an error.
    ``static=True`` imports no handler module: references are resolved from
    the modules' source (what ``tooldeck lint --static`` does), the tools get
    stand-ins that cannot be called, and what only an import could tell is
    reported as TD316/TD317. ``search_last`` (with ``static``) are folders
    searched for top-level handler modules after the import path, without
    putting them on it (the CLI passes the project's root and the current
    directory).
    This is :meth:`LiveManifests.load` once, with the outcome as a
    :class:`LoadResult`: the same rules whether manifests load once or live.
    """
    paths = list(paths)
    settings_problems: list[Diagnostic] = []
    if allow_handlers is None:
        allow_handlers, settings_problems = _project_handlers(paths)
    cfg = config if isinstance(config, Config) else load_config(config)
    if registry is None:
        registry = ToolRegistry(config=cfg.data, project_dir=project_dir)
    elif project_dir is not None and Path(project_dir).resolve() != registry.project_dir:
        raise ValueError(
            f"project_dir={str(project_dir)!r} differs from the registry's "
            f"{str(registry.project_dir)!r}; pass one of them"
        )
    target = registry
    if not register:  # check against a scratch registry; secrets still land in the real one
        target = ToolRegistry(config=cfg.data, project_dir=registry.project_dir)
        target.secrets = registry.secrets
    live = LiveManifests(
        target,
        paths,
        config=cfg,
        allow_handlers=allow_handlers,
        app_class=app_class,
        environ=environ,
        static=static,
        search_last=search_last,
    )
    event = live.load()  # the collector is left alone: a library call changes no process state
    result = LoadResult(
        files=list(live.documents),
        bundles=dict(live.bundles),
        documents=dict(live.documents),
        diagnostics=[*settings_problems, *event.diagnostics],
        registered=live.registered() if register else [],
    )
    return registry, result


def from_manifests(
    paths: Iterable[str | Path],
    *,
    config: Config | Mapping[str, Any] | str | Path | None = None,
    allow_handlers: Iterable[str] | None = None,
    app_class: type | None = None,
    **options: Any,
) -> ToolRegistry:
    """A new registry holding the tools of ``paths``; raises ManifestError if any has errors.

    ``options`` are :class:`ToolRegistry`'s (``project_dir``, ``lenient``,
    ``approve`` ...). ``allow_handlers=None`` takes the project's setting,
    as :func:`load_manifests` does; :func:`~tooldeck.load_project` also
    takes the project's manifests, ``project_dir`` and ``config``. Use
    :func:`load_manifests` to get the diagnostics as values instead.
    """
    paths = list(paths)
    if allow_handlers is None:
        allow_handlers, problems = _project_handlers(paths)
        if problems:
            raise ManifestError(problems)
    loaded = config if isinstance(config, Config) else load_config(config)
    registry = ToolRegistry(config=loaded.data, **options)
    _, result = load_manifests(
        paths,
        registry=registry,
        config=loaded,
        allow_handlers=allow_handlers,
        app_class=app_class,
    )
    result.raise_for_errors()
    return registry


def _project_handlers(paths: list[str | Path]) -> tuple[tuple[str, ...], list[Diagnostic]]:
    """The ``allow_handlers`` of the project above ``paths`` (or the cwd); its root importable.

    Settings with problems come back as their TD240 diagnostics, and allow
    nothing beyond ``tooldeck.handlers`` rather than a guessed allow-list.
    """
    from .._importpath import project_importable_last
    from ._settings import locate_project

    settings = locate_project(paths)
    if settings is None:
        return (), []
    if settings.diagnostics:
        return (), list(settings.diagnostics)
    project_importable_last(str(settings.root))
    return settings.allow_handlers, []
