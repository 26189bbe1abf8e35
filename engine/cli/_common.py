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

    from .._calling import ApprovalCallback
    from .._registry import ToolRegistry
    from ..manifest._manifests import LoadResult

__all__ = [
    "EXIT_OK",
    "EXIT_PROBLEM",
    "EXIT_USAGE",
    "Loaded",
    "Refused",
    "Resolved",
    "UsageError",
    "add_allow_errors",
    "add_common",
    "add_media_cap",
    "bundled_manifests",
    "load",
    "refuse_broken",
    "report_errors",
]

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad invocation: printed as ``tooldeck: message`` with exit code 2."""


class Refused(Exception):
    """The manifests have errors or load nothing: printed as ``tooldeck: message``, exit 1.

    ``serve``, ``dev``, ``list``, ``call`` and ``export`` refuse to start on
    them (the located diagnostics are on stderr already) unless given
    ``--allow-errors``: a server that silently serves fewer tools than its
    manifests declare, or none, is never what a user wants.
    """


def add_allow_errors(parser: argparse.ArgumentParser) -> None:
    """``--allow-errors``, for the commands that refuse to start on broken manifests."""
    parser.add_argument(
        "--allow-errors",
        action="store_true",
        help="start even when the manifests have errors or load no tool (the errors are "
        "still printed; what loaded is used)",
    )


def _media_bytes(text: str) -> int:
    """``--max-media-bytes``'s value: checked as the setting is, a bad one is exit 2."""
    import argparse

    from ..manifest._settings import media_cap_problem

    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of bytes, not {text!r}") from None
    why = media_cap_problem(value)
    if why is not None:
        raise argparse.ArgumentTypeError(why)
    return value


def add_media_cap(parser: argparse.ArgumentParser) -> None:
    """``--max-media-bytes``, for the commands that run handlers: serve, dev, call, chat.

    Wins over the ``max_media_bytes`` setting, as every flag wins over its setting.
    """
    parser.add_argument(
        "--max-media-bytes",
        type=_media_bytes,
        metavar="N",
        default=None,
        help="most bytes of images, audio and files one result may carry (default: the "
        "max_media_bytes setting, else 10 MiB; at most 256 MiB); more fails the call with "
        "result_too_large",
    )


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
        help="application config: .yaml, .json or Java .properties",
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


def bundled_manifests() -> Path:
    """The manifests shipped with tooldeck (the repository's ``manifests/`` folder).

    ``list``, ``call`` and ``export`` fall back to them when no manifests are
    given, set or found, so they work in any directory right after
    installing; ``lint`` and ``dev`` do not, since linting tooldeck's own
    files instead of a project's that is missing would pass a CI job that
    should fail.
    """
    from .._resources import bundled_manifests as shipped

    return shipped()


class Loaded:
    """The registry a command built and what loading its manifests found."""

    __slots__ = ("registry", "resolved", "result")

    def __init__(self, registry: ToolRegistry, result: LoadResult, resolved: Resolved) -> None:
        self.registry = registry
        self.result = result
        self.resolved = resolved


class Resolved:
    """What a command works on: flags first, then the project's settings, then defaults.

    A view of :func:`tooldeck.manifest._project.plan_project`, which the
    Python API's ``load_project`` uses too: the project is found above
    ``--project-dir``, above each ``-m`` path, then above the current
    directory, so ``cd / && tooldeck serve -m /app/manifests`` (how MCP
    clients start servers) configures the same registry as in ``/app``.
    """

    __slots__ = (
        "allow_handlers",
        "config",
        "manifests",
        "max_media_bytes",
        "project",
        "project_dir",
        "search_last",
    )

    def __init__(self, args: argparse.Namespace, *, bundled: bool, static: bool = False) -> None:
        """``static``: nothing will be imported, so no folder is made importable.

        The project's folders become :attr:`search_last` instead, where static
        resolution looks for handler modules: a finder on ``sys.meta_path``
        would also answer the optional imports of tooldeck's own
        dependencies (``copy`` asks for ``org``, jsonschema for
        ``webcolors``), running a pull request's files of those names.
        """
        from pathlib import Path

        from ..manifest._project import plan_project

        plan = plan_project(
            manifests=args.manifests or None,
            allow_handlers=args.allow_handlers or None,
            project_dir=args.project_dir,
            config=args.config,
            max_media_bytes=getattr(args, "max_media_bytes", None),
        )
        if plan.diagnostics:
            where = plan.settings.source if plan.settings is not None else "the project"
            raise UsageError(
                f"cannot use the settings of {where}:\n"
                + "\n".join(d.format() for d in plan.diagnostics)
            )
        self.project = plan.settings
        self.search_last: tuple[str, ...] = plan.import_folders
        if not static:  # its handler modules import from its root
            from .._importpath import project_importable_last

            for folder in plan.import_folders:
                project_importable_last(folder)
        self.manifests: list[Path] = list(plan.manifests)
        if not self.manifests:
            if not bundled:
                where = plan.settings.root if plan.settings is not None else Path.cwd()
                raise UsageError(
                    f"no manifests given, none set in [tool.tooldeck] and no ./manifests "
                    f"folder in {where}; pass -m PATH"
                )
            self.manifests = [bundled_manifests()]
        self.allow_handlers: list[str] = list(plan.allow_handlers)
        self.project_dir: Path = plan.project_dir
        self.config: Path | None = plan.config
        self.max_media_bytes: int | None = plan.max_media_bytes
        """``--max-media-bytes``, else the setting; None: the registry's default."""


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

    from .._config import load_config
    from .._registry import ToolRegistry
    from ..manifest._manifests import load_manifests

    if paths:
        args.manifests = list(paths)
    resolved = Resolved(args, bundled=bundled, static=static)
    config = load_config(resolved.config)
    registry = ToolRegistry(
        project_dir=resolved.project_dir,
        config=config.data,
        approve=approve,
        max_media_bytes=resolved.max_media_bytes,
    )
    registry, result = load_manifests(
        resolved.manifests,
        registry=registry,
        config=config,
        allow_handlers=resolved.allow_handlers,
        static=static,
        search_last=resolved.search_last if static else (),
    )
    return Loaded(registry, result, resolved)


def refuse_broken(loaded: Loaded, args: argparse.Namespace) -> None:
    """Print the load errors; raise :class:`Refused` on errors or an empty load.

    With ``--allow-errors`` the errors are printed and the command goes on
    with what loaded. "Empty" means no tool, no prompt and no MCP server
    that could bring tools (an attached server's tools arrive later), and no resource.
    """
    failed = report_errors(loaded)
    if getattr(args, "allow_errors", False):
        return
    files = ", ".join(str(p) for p in loaded.resolved.manifests)
    if failed:
        from .._words import plural

        errors = plural(len(loaded.result.errors), "error")
        raise Refused(
            f"not started: {errors} in {files} (above); fix "
            "them, or pass --allow-errors to start with what loaded"
        )
    registry = loaded.registry
    if not (
        len(registry)
        or registry.prompts()
        or registry.resources()
        or registry.resource_templates()
        or registry.mcp_servers()
        or registry.web_search()
    ):
        inactive = [
            f"bundle {bundle.name} is not active: {bundle.inactive_reason}"
            for bundle in loaded.result.bundles.values()
            if not bundle.active
        ]
        why = (
            "; ".join(inactive)
            if inactive
            else "check the paths (tooldeck list -v says which settings and manifests were used)"
        )
        raise Refused(
            f"not started: no tool loaded from {files}: {why}; or pass --allow-errors "
            "to start anyway"
        )


def report_errors(loaded: Loaded) -> bool:
    """Print load errors to stderr (the command still runs); True when there were any."""
    from .._diagnostics import Severity
    from ._reporters import get_reporter

    errors = [d for d in loaded.result.diagnostics if d.severity is Severity.ERROR]
    if errors:
        reporter = get_reporter("text", secrets=loaded.registry.secrets)
        text = reporter.render(errors, files_checked=len(loaded.result.files))
        sys.stderr.write(text)
    return bool(errors)
