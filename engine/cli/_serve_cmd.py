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
    from ..mcp._http import HttpOptions


__all__ = ["add_arguments", "run", "stdout_is_protocol"]


def add_arguments(serve: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options
    from ._serve_auth import add_auth_arguments

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
    add_auth_arguments(serve)


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

    from ._serve_auth import hash_token_command

    if args.hash_token:
        return hash_token_command()
    if args.stateless and args.transport != "http":
        print("tooldeck: --stateless applies to --transport http only", file=sys.stderr)
        return EXIT_USAGE
    if not args.approval_timeout > 0:
        print("tooldeck: --approval-timeout must be a positive number", file=sys.stderr)
        return EXIT_USAGE
    options = _http_options(args)
    if options is None:
        return EXIT_USAGE
    registry, reload = _registry(args)
    from ..mcp import serve_http, serve_stdio

    try:
        with registry:
            if args.transport == "http":
                print(
                    f"serving MCP at http://{args.host}:{args.port}/mcp (Ctrl-C to stop)",
                    file=sys.stderr,
                    flush=True,
                )
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
    return EXIT_OK


def _http_options(args: argparse.Namespace) -> HttpOptions | None:
    """The HTTP server's options, checked (and announced on stderr); ``None`` after a
    usage error, said on stderr. Over stdio: the defaults, unused."""
    from ..mcp._http import HttpOptions, ServeOptionsError, check_auth, check_options
    from ._serve_auth import auth_banner, auth_options

    options = HttpOptions(
        host=args.host, port=args.port, stateless=args.stateless, **auth_options(args)
    )
    if args.transport != "http":
        if options != HttpOptions(stateless=args.stateless, host=args.host, port=args.port):
            print("tooldeck: --auth and its flags apply to --transport http only", file=sys.stderr)
            return None
        return options
    try:
        check_options(options)
        check_auth(options.auth)
    except ServeOptionsError as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        return None
    for line in auth_banner(options):
        print(line, file=sys.stderr)
    return options


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
