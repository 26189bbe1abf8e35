"""``tooldeck serve`` flags for operators: metrics, the audit log, worker processes.

:func:`add_ops_arguments` adds them; :func:`ops_options` turns them into
:class:`~tooldeck.mcp.HttpOptions` fields, which ``_serve_cmd`` passes on
(``HttpOptions(..., **ops_options(args))``). ``/healthz`` and ``/readyz`` need
no flag: they are always served over HTTP.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping
    from typing import Any

    from ..mcp import HttpOptions
    from ..providers import Toolset

__all__ = ["add_ops_arguments", "ops_options", "ops_usage_error", "serve_in_workers"]


def _positive_int(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_ops_arguments(parser: argparse.ArgumentParser) -> None:
    """``--no-metrics``, ``--audit-log``, ``--audit-arguments``, ``--workers``."""
    parser.add_argument(
        "--no-metrics",
        dest="metrics",
        action="store_false",
        help="HTTP: do not serve /metrics (served by default, unauthenticated: keep the port "
        "on a private network or behind a proxy that guards /metrics)",
    )
    parser.add_argument(
        "--audit-log",
        metavar="FILE",
        default=None,
        help="HTTP: append one JSON line per tool call to FILE (- for standard error): time, "
        "caller, tool, outcome, duration, request and session ids",
    )
    parser.add_argument(
        "--audit-arguments",
        action="store_true",
        help="HTTP: also write each call's arguments into the audit log (secrets masked)",
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        metavar="N",
        help="HTTP: serve from N processes (needs --stateless; each loads the manifests)",
    )


def ops_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`~tooldeck.mcp.HttpOptions` fields the flags set."""
    return {
        "metrics": bool(args.metrics),
        "audit_log": args.audit_log,
        "audit_arguments": bool(args.audit_arguments),
        "workers": int(args.workers),
    }


def ops_usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the flags as combined, if anything (exit 2)."""
    if args.transport != "http":
        given = [
            flag
            for flag, value in (
                ("--no-metrics", not args.metrics),
                ("--audit-log", args.audit_log is not None),
                ("--audit-arguments", args.audit_arguments),
                ("--workers", args.workers != 1),
            )
            if value
        ]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            return f"{', '.join(given)} {verb} to --transport http only"
    if args.audit_arguments and args.audit_log is None:
        return "--audit-arguments needs --audit-log FILE (or - for standard error)"
    return None


def serve_in_workers(
    args: argparse.Namespace,
    options: HttpOptions,
    toolset: Toolset | None = None,
    toolsets: Mapping[str, Toolset] | None = None,
) -> None:
    """Serve from ``options.workers`` processes, each loading what this command resolved."""
    from ..mcp._http import WorkerPlan, selectors_of, serve_workers
    from ._common import Resolved

    resolved = Resolved(args, bundled=True)
    plan = WorkerPlan(
        manifests=tuple(str(path.resolve()) for path in resolved.manifests),
        config=str(resolved.config.resolve()) if resolved.config is not None else None,
        project_dir=str(resolved.project_dir.resolve()),
        allow_handlers=tuple(resolved.allow_handlers),
        import_folders=tuple(str(folder) for folder in resolved.search_last),
        allow_side_effects=bool(args.allow_side_effects),
        reload=bool(args.reload),
        max_media_bytes=resolved.max_media_bytes,
        approval_timeout=float(args.approval_timeout),
        attach=not args.offline,
        connect_timeout=float(args.connect_timeout),
        options=options,
        toolset=selectors_of(toolset),
        toolsets={
            name: selected
            for name, t in (toolsets or {}).items()
            if (selected := selectors_of(t)) is not None
        },
    )
    serve_workers(plan)
