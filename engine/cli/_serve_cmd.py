"""``tooldeck serve``: serve the tools and prompts over MCP, on stdio or Streamable HTTP.

On stdio, stdout carries nothing but the protocol: load errors and notes go
to stderr. A server has no terminal to ask at, so a tool with side effects
asks the client that called it, by elicitation, and runs only when the user
approves; clients without elicitation (and every client of a ``--stateless``
server) are denied, with a message saying why, unless ``--allow-side-effects``
runs them without asking (:mod:`tooldeck.mcp._serving.approval`).
"""

from __future__ import annotations

import sys

from ._common import (
    EXIT_OK,
    EXIT_USAGE,
    Resolved,
    add_allow_errors,
    add_common,
    load,
    refuse_broken,
)

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse

    from .._calling import ApprovalCallback, ApprovalRequest
    from .._registry import ToolRegistry
    from ..mcp import Reload


__all__ = ["add_arguments", "run", "stdout_is_protocol"]


def add_arguments(serve: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options
    from ._serve_ops import add_ops_arguments

    add_common(serve)
    add_allow_errors(serve)
    add_connect_options(serve)
    serve.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default; for a client that starts the server) or Streamable HTTP at /mcp",
    )
    serve.add_argument("--host", default="127.0.0.1", help="HTTP: address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="HTTP: port to listen on")
    serve.add_argument(
        "--reload",
        action="store_true",
        help="watch the manifests; clients are told when the tool or prompt list changes",
    )
    serve.add_argument(
        "--allow-side-effects",
        action="store_true",
        help=(
            "run tools with side effects without asking (otherwise the client is asked "
            "by elicitation, and clients that cannot be asked are denied)"
        ),
    )
    serve.add_argument(
        "--approval-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long a client has to answer an approval request (default: 300)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help=(
            "HTTP: no sessions, every request stands alone (no change notifications; "
            "no approval requests either, so side effects need --allow-side-effects)"
        ),
    )
    add_ops_arguments(serve)


def stdout_is_protocol(args: argparse.Namespace) -> bool:
    """Over stdio, standard output is the MCP stream: the CLI leaves it as it is."""
    return bool(args.transport == "stdio")


def _allow(request: ApprovalRequest) -> bool:
    return True


def _ask_client() -> ApprovalCallback:
    from ..mcp._serving import elicit_approval

    return elicit_approval


def run(args: argparse.Namespace) -> int:
    import asyncio

    if args.stateless and args.transport != "http":
        print("tooldeck: --stateless applies to --transport http only", file=sys.stderr)
        return EXIT_USAGE
    if not args.approval_timeout > 0:
        print("tooldeck: --approval-timeout must be a positive number", file=sys.stderr)
        return EXIT_USAGE
    from ._serve_ops import ops_options, ops_usage_error, serve_in_workers

    if (problem := ops_usage_error(args)) is not None:
        print(f"tooldeck: {problem}", file=sys.stderr)
        return EXIT_USAGE
    registry, reload = _registry(args)
    from ..mcp import HttpOptions, ServeOptionsError, serve_http, serve_stdio

    try:
        with registry:
            if args.transport == "http":
                options = HttpOptions(
                    host=args.host, port=args.port, stateless=args.stateless, **ops_options(args)
                )
                print(
                    f"serving MCP at http://{args.host}:{args.port}/mcp (Ctrl-C to stop)",
                    file=sys.stderr,
                    flush=True,
                )
                if options.workers > 1:
                    serve_in_workers(args, options)
                    return EXIT_OK
                asyncio.run(
                    serve_http(
                        registry,
                        options=options,
                        reload=reload,
                        approval_timeout=args.approval_timeout,
                        attach=not args.offline,
                        connect_timeout=args.connect_timeout,
                    )
                )
            else:
                asyncio.run(
                    serve_stdio(
                        registry,
                        reload=reload,
                        approval_timeout=args.approval_timeout,
                        attach=not args.offline,
                        connect_timeout=args.connect_timeout,
                    )
                )
    except KeyboardInterrupt:
        pass
    except ServeOptionsError as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _registry(args: argparse.Namespace) -> tuple[ToolRegistry, Reload | None]:
    """The registry to serve: loaded once, or empty for the watcher to fill (``--reload``)."""
    allow = bool(args.allow_side_effects)
    if not args.reload:
        loaded = load(args, approve=_allow if allow else _ask_client())
        refuse_broken(loaded, args)
        return loaded.registry, None
    from .._config import load_config
    from .._registry import ToolRegistry
    from ..mcp import Reload

    refuse_broken(load(args), args)  # the first state is judged as without --reload
    resolved = Resolved(args, bundled=True)
    config = load_config(resolved.config)
    registry = ToolRegistry(
        project_dir=resolved.project_dir,
        config=config.data,
        approve=None if allow else _ask_client(),
        allow_side_effects=allow,
    )
    return registry, Reload(
        resolved.manifests, config=config, allow_handlers=resolved.allow_handlers
    )
