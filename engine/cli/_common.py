"""What every ``tooldeck`` command shares: exit codes, options, loading the manifests.

Imports only :mod:`sys` at module level, like every command module: a
command's heavy imports happen when it runs.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path

    from tooldeck._policies import ApprovalCallback
    from tooldeck._registry import ToolRegistry
    from tooldeck.manifest._manifests import LoadResult

__all__ = [
    "EXIT_OK",
    "EXIT_PROBLEM",
    "EXIT_USAGE",
    "Loaded",
    "Resolved",
    "UsageError",
    "add_common",
    "default_manifests",
    "load",
    "report_errors",
]

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad invocation: printed as ``tooldeck: message`` with exit code 2."""


def add_common(parser: argparse.ArgumentParser) -> None:
    """The options every command that loads manifests takes."""
    from pathlib import Path

    parser.add_argument(
        "-m",
        "--manifests",
        action="append",
        type=Path,
        metavar="PATH",
        default=None,
        help="manifest file or folder (repeatable; default: ./manifests, else the bundled ones)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="application config: .yaml, .json or the seed's .properties",
    )
    parser.add_argument(
        "--project-dir",
        type=Path,
        metavar="DIR",
        help="directory file tools are confined to (default: current directory)",
    )
    parser.add_argument(
        "--allow-handlers",
        action="append",
        default=[],
        metavar="PREFIX",
        help="also allow handler modules under PREFIX (repeatable)",
    )


def default_manifests(*, bundled: bool) -> Path:
    """``./manifests`` when the project has one, else (``bundled``) those shipped with tooldeck.

    ``list``, ``call`` and ``export`` fall back to the bundled manifests, so
    they work in any directory right after installing; ``lint`` and ``dev``
    do not, since linting tooldeck's own files instead of a project's that is
    missing would pass a CI job that should fail.

    ``./manifests`` must resolve inside the current directory, as a
    ``manifests`` setting must (TD240): a pull request could otherwise make
    it a link to a folder on the CI machine and have its YAML files read
    and quoted in diagnostics. ``-m`` names any folder.
    """
    from pathlib import Path

    project = Path("manifests")
    if project.is_dir():
        here, target = Path.cwd().resolve(), project.resolve()
        if not target.is_relative_to(here):
            raise UsageError(
                f"./{project} is a link to {target}, outside {here}; not read "
                f"(pass -m {project} to read it anyway)"
            )
        return project
    if bundled:  # the repository's manifests/ folder, shipped inside the package
        return Path(__file__).resolve().parent.parent / "bundled"
    raise UsageError(f"no manifests given and no ./{project} folder in {Path.cwd()}; pass -m PATH")


class Loaded:
    """The registry a command built and what loading its manifests found."""

    __slots__ = ("registry", "resolved", "result")

    def __init__(self, registry: ToolRegistry, result: LoadResult, resolved: Resolved) -> None:
        self.registry = registry
        self.result = result
        self.resolved = resolved


class Resolved:
    """What a command works on: flags first, then the project's settings, then defaults."""

    __slots__ = ("allow_handlers", "config", "manifests", "project", "project_dir", "search_last")

    def __init__(self, args: argparse.Namespace, *, bundled: bool, static: bool = False) -> None:
        """``static``: nothing will be imported, so no folder is made importable.

        The project's folders become :attr:`search_last` instead, where static
        resolution looks for handler modules: a finder on ``sys.meta_path``
        would also answer the optional imports of tooldeck's own
        dependencies (``copy`` asks for ``org``, jsonschema for
        ``webcolors``), running a pull request's files of those names.
        """
        import os
        from pathlib import Path

        from tooldeck.cli._project import find_project

        project = find_project()
        if project is not None and project.diagnostics:
            raise UsageError(
                "the project settings have problems:\n"
                + "\n".join(d.format() for d in project.diagnostics)
            )
        self.project = project
        folders = [os.getcwd(), *([str(project.root)] if project is not None else [])]
        self.search_last: tuple[str, ...] = tuple(dict.fromkeys(map(os.path.abspath, folders)))
        if project is not None and not static:  # its handler modules import from its root
            from tooldeck.cli._importpath import project_importable_last

            project_importable_last(str(project.root))
        self.manifests: list[Path] = list(args.manifests or []) or (
            list(project.manifests) if project and project.manifests else []
        )
        if not self.manifests:
            self.manifests = [default_manifests(bundled=bundled)]
        self.allow_handlers: list[str] = list(args.allow_handlers or []) or (
            list(project.allow_handlers) if project else []
        )
        self.project_dir: Path = (
            args.project_dir
            or (project.project_dir if project else None)
            or (project.root if project else Path.cwd())
        )
        self.config: Path | None = args.config or (project.config if project else None)


def load(
    args: argparse.Namespace,
    paths: Sequence[Path] | None = None,
    approve: ApprovalCallback | None = None,
    *,
    bundled: bool = True,
    static: bool = False,
) -> Loaded:
    """Build the registry from the command's manifests, config and flags.

    ``static`` resolves handler references from source and imports nothing
    (``tooldeck lint --static``).
    """

    from tooldeck._config import load_config
    from tooldeck._registry import ToolRegistry
    from tooldeck.manifest._manifests import load_manifests

    if paths:
        args.manifests = list(paths)
    resolved = Resolved(args, bundled=bundled, static=static)
    config = load_config(resolved.config)
    registry = ToolRegistry(project_dir=resolved.project_dir, config=config.data, approve=approve)
    registry, result = load_manifests(
        resolved.manifests,
        registry=registry,
        config=config,
        allowed_handlers=resolved.allow_handlers,
        static=static,
        search_last=resolved.search_last if static else (),
    )
    return Loaded(registry, result, resolved)


def report_errors(loaded: Loaded) -> bool:
    """Print load errors to stderr (the command still runs); True when there were any."""
    from tooldeck._diagnostics import Severity
    from tooldeck.cli._reporters import get_reporter

    errors = [d for d in loaded.result.diagnostics if d.severity is Severity.ERROR]
    if errors:
        reporter = get_reporter("text", secrets=loaded.registry.secrets)
        text = reporter.render(errors, files_checked=len(loaded.result.files))
        sys.stderr.write(text)
    return bool(errors)
