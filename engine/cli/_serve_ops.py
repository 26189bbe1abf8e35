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
    from typing import Any

__all__ = ["add_ops_arguments", "ops_options"]


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
