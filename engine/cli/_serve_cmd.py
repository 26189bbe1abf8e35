"""``tooldeck serve``: serve the tools and prompts over MCP, on stdio or Streamable HTTP.

On stdio, stdout carries nothing but the protocol: load errors and notes go
to stderr. A server has no terminal to ask at, so a tool with side effects
asks the client that called it, by elicitation, and runs only when the user
approves; clients without elicitation (and every client of a ``--stateless``
server) are denied, with a message saying why, unless ``--allow-side-effects``
runs them without asking (:mod:`tooldeck.mcp._serving.approval`).

What is served: every tool and prompt, or the ``--bundle/--tag/--tool``
selection (as ``export`` and ``chat`` select), or one named ``--toolset``; over
HTTP, each toolset of ``[tool.tooldeck.toolsets]`` is also served at
``/mcp/<name>``. Every flag can be set in ``[tool.tooldeck.serve]``
(:mod:`tooldeck.cli._serve_settings`); a flag on the command line wins.
"""

from __future__ import annotations

import sys

from .._words import plural
from ._common import (
    EXIT_OK,
    EXIT_USAGE,
    Resolved,
    UsageError,
    add_allow_errors,
    add_common,
    add_media_cap,
    load,
    refuse_broken,
)
from ._serve_settings import toolsets_of

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping

    from .._calling import ApprovalCallback, ApprovalRequest
    from .._registry import ToolRegistry
    from ..mcp import HttpOptions, Reload
    from ..providers import Toolset


__all__ = ["add_arguments", "run", "stdout_is_protocol"]


def add_arguments(serve: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options
    from ._serve_auth import add_auth_arguments
    from ._serve_limits import add_limit_arguments
    from ._serve_ops import add_ops_arguments

    add_common(serve)
    add_media_cap(serve)
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
    for flag, dest, what in (
        ("--bundle", "bundles", "the tools and prompts of this bundle"),
        ("--tag", "tags", "the tools and prompts with this tag"),
        ("--tool", "names", "this tool or prompt"),
    ):
        serve.add_argument(
            flag,
            dest=dest,
            action="append",
            metavar=flag[2:].upper(),
            help=f"serve {what}; repeatable, and all selectors add up (a union)",
        )
    serve.add_argument(
        "--toolset",
        metavar="NAME",
        help="serve this toolset of [tool.tooldeck.toolsets] (at /mcp over HTTP)",
    )
    add_auth_arguments(serve)
    add_limit_arguments(serve)
    add_ops_arguments(serve)
    _settable(serve)


def _settable(serve: argparse.ArgumentParser) -> None:
    """The flags ``[tool.tooldeck.serve]`` may set, by settings key."""
    from ._serve_limits import parse_count, parse_rate, parse_seconds, parse_size
    from ._serve_settings import (
        as_bool,
        as_float,
        as_int,
        as_list,
        as_log_path,
        as_path,
        as_str,
        defer_to_settings,
        one_of,
        parsed_by,
        register_settings,
    )

    register_settings(
        {
            "transport": ("transport", one_of("stdio", "http")),
            "host": ("host", as_str),
            "port": ("port", as_int),
            "reload": ("reload", as_bool),
            "approval_timeout": ("approval_timeout", as_float),
            "stateless": ("stateless", as_bool),
            "offline": ("offline", as_bool),
            "connect_timeout": ("connect_timeout", as_float),
            "bundles": ("bundles", as_list),
            "tags": ("tags", as_list),
            "tools": ("names", as_list),
            "toolset": ("toolset", as_str),
            # authentication (tooldeck.cli._serve_auth); --insecure-no-auth and
            # --allow-side-effects turn a protection off: the command line only.
            "auth": ("auth", one_of("none", "bearer", "jwt")),
            "tokens": ("tokens", as_path),
            "jwt_public_key": ("jwt_public_key", as_path),
            "jwks_url": ("jwks_url", as_str),
            "issuer": ("issuer", as_str),
            "audience": ("audience", as_str),
            "authorization_server": ("authorization_server", as_str),
            "jwt_algorithms": ("jwt_algorithm", as_list),
            "side_effects_scope": ("side_effects_scope", as_str),
            "allowed_hosts": ("allowed_host", as_list),
            "allowed_origins": ("allowed_origin", as_list),
            # HTTP limits (tooldeck.cli._serve_limits)
            "max_body": ("max_body", parsed_by(parse_size)),
            "session_idle_timeout": ("session_idle_timeout", parsed_by(parse_seconds)),
            "max_sessions": ("max_sessions", parsed_by(parse_count)),
            "max_sessions_per_client": ("max_sessions_per_client", parsed_by(parse_count)),
            "rate_limit": ("rate_limit", parsed_by(parse_rate)),
            "max_concurrent": ("max_concurrent", parsed_by(parse_count)),
            "max_connections_per_client": ("max_connections_per_client", parsed_by(parse_count)),
            "header_timeout": ("header_timeout", parsed_by(parse_seconds)),
            "body_timeout": ("body_timeout", parsed_by(parse_seconds)),
            "drain_timeout": ("drain_timeout", parsed_by(parse_seconds)),
            # operations (tooldeck.cli._serve_ops)
            "metrics": ("metrics", as_bool),
            "audit_log": ("audit_log", as_log_path),
            "audit_arguments": ("audit_arguments", as_bool),
            "workers": ("workers", as_int),
        },
    )
    defer_to_settings(serve)


def stdout_is_protocol(args: argparse.Namespace) -> bool:
    """Over stdio, standard output is the MCP stream: the CLI leaves it as it is.

    The transport may come from the settings: they are read here, before the
    command runs. Settings that cannot be read leave stdout alone (the command
    then reports them on stderr).
    """
    try:
        _apply_settings(args)
    except Exception:  # reported by run(); only the choice of stream is made here
        transport = getattr(args, "transport", None)
        return not isinstance(transport, str) or transport == "stdio"
    return bool(args.transport == "stdio")


def _apply_settings(args: argparse.Namespace) -> Resolved:
    from ._serve_settings import apply_serve_settings

    resolved = Resolved(args, bundled=True)
    apply_serve_settings(args, resolved.project)
    return resolved


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
    resolved = _apply_settings(args)
    if args.stateless and args.transport != "http":
        print("tooldeck: --stateless applies to --transport http only", file=sys.stderr)
        return EXIT_USAGE
    if not args.approval_timeout > 0:
        print("tooldeck: --approval-timeout must be a positive number", file=sys.stderr)
        return EXIT_USAGE
    from ..mcp import ServeOptionsError, serve_http, serve_stdio
    from ._serve_ops import ops_usage_error, serve_in_workers

    if (problem := ops_usage_error(args)) is not None:
        print(f"tooldeck: {problem}", file=sys.stderr)
        return EXIT_USAGE

    options = _http_options(args)
    named = toolsets_of(resolved.project)
    toolset = _selected(args, named)
    registry, reload, first = _registry(args)
    _check_toolsets(first, toolset, named if options is not None else {})
    _warn_unenforced_scopes(first, options)
    try:
        with registry:
            if options is not None:
                for line in _http_banner(options, named):
                    print(line, file=sys.stderr, flush=True)
                if options.workers > 1:
                    serve_in_workers(args, options, toolset, named)
                    return EXIT_OK
                asyncio.run(
                    serve_http(
                        registry,
                        options=options,
                        reload=reload,
                        approval_timeout=args.approval_timeout,
                        attach=not args.offline,
                        connect_timeout=args.connect_timeout,
                        toolset=toolset,
                        toolsets=named,
                        tune_gc=_whole_process(args),  # it only serves: see with_reload
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
                        toolset=toolset,
                        tune_gc=_whole_process(args),
                    )
                )
    except KeyboardInterrupt:
        pass
    except ServeOptionsError as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _whole_process(args: argparse.Namespace) -> bool:
    """Run as the console script (not ``main([...])`` from an application's process)."""
    return bool(getattr(args, "whole_process", False))


def _http_options(args: argparse.Namespace) -> HttpOptions | None:
    """The HTTP server's options from every group of flags (and settings), checked.

    ``None`` over stdio, where an HTTP-only flag is a usage error.
    """
    from ..mcp._http import HttpOptions, ServeOptionsError, check_auth, check_options
    from ._serve_auth import auth_options
    from ._serve_limits import limit_options
    from ._serve_ops import ops_options

    auth = auth_options(args)
    if args.transport != "http":
        if auth != auth_options(None):
            raise UsageError("--auth and its flags apply to --transport http only")
        return None
    options = HttpOptions(
        host=args.host,
        port=args.port,
        stateless=args.stateless,
        **auth,
        **limit_options(args),
        **ops_options(args),
    )
    try:
        check_options(options)
        check_auth(options.auth)
    except ServeOptionsError as exc:
        raise UsageError(str(exc)) from None
    return options


def _http_banner(options: HttpOptions, named: Mapping[str, Toolset]) -> list[str]:
    from ..mcp._http import mcp_path
    from ._serve_auth import auth_banner

    base = f"http://{options.host}:{options.port}"
    lines = [f"serving MCP at {base}/mcp (Ctrl-C to stop)"]
    lines += [f"serving toolset {name!r} at {base}{mcp_path(name)}" for name in named]
    return lines + auth_banner(options)


def _warn_unenforced_scopes(registry: ToolRegistry, options: HttpOptions | None) -> None:
    """Say so when tools need an identity that no token will provide (stdio, --auth none).

    Scopes are then not checked (every client may call the tool), and a ``from_auth:``
    parameter has nothing to be filled from (every call of the tool is refused).
    """
    if options is not None and options.auth.mode != "none":
        return
    tools = registry.tools()
    scoped = [spec.name for spec in tools if spec.scopes]
    bound = [spec.name for spec in tools if any(p.from_auth for p in spec.params)]
    how = "over stdio" if options is None else "with --auth none"
    fix = "serve over HTTP with --auth bearer or --auth jwt"
    for names, what, consequence in (
        (scoped, "scopes", "which are not checked {how}: every client may call them"),
        (bound, "from_auth parameters", "which {how} have no token to come from: every call fails"),
    ):
        if names:
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            verb = "declares" if len(names) == 1 else "declare"
            print(
                f"tooldeck: warning: {plural(len(names), 'tool')} {verb} {what} ({shown}), "
                f"{consequence.format(how=how)} ({fix})",
                file=sys.stderr,
                flush=True,
            )


def _selected(args: argparse.Namespace, named: Mapping[str, Toolset]) -> Toolset | None:
    """What ``/mcp`` (or stdio) serves: a named toolset, the selectors, or everything."""
    from .._errors import ExportError
    from ..providers import Toolset
    from ._serve_settings import named_toolset

    if args.toolset is not None:
        return named_toolset(args, named)
    if not (args.bundles or args.tags or args.names):
        return None
    try:
        return Toolset.of(bundles=args.bundles, tags=args.tags, names=args.names)
    except ExportError as exc:
        raise UsageError(str(exc)) from None


def _check_toolsets(
    registry: ToolRegistry, toolset: Toolset | None, named: Mapping[str, Toolset]
) -> None:
    """A selector that matches nothing is a mistake: refuse to start, as ``export`` does."""
    from .._errors import ExportError

    for label, selected in (("", toolset), *((f"toolset {k!r}: ", v) for k, v in named.items())):
        if selected is None:
            continue
        try:
            selected.check(registry)
        except ExportError as exc:
            raise UsageError(f"serve: {label}{exc}") from None


def _registry(args: argparse.Namespace) -> tuple[ToolRegistry, Reload | None, ToolRegistry]:
    """The registry to serve: loaded once, or empty for the watcher to fill (``--reload``).

    The third item is the first load, which the toolsets are checked against.
    """
    allow = bool(args.allow_side_effects)
    if not args.reload:
        loaded = load(args, approve=_allow if allow else _ask_client())
        refuse_broken(loaded, args)
        return loaded.registry, None, loaded.registry
    from .._config import load_config
    from .._registry import ToolRegistry
    from ..mcp import Reload

    first = load(args)
    refuse_broken(first, args)  # the first state is judged as without --reload
    resolved = Resolved(args, bundled=True)
    config = load_config(resolved.config)
    registry = ToolRegistry(
        project_dir=resolved.project_dir,
        config=config.data,
        approve=None if allow else _ask_client(),
        allow_side_effects=allow,
        max_media_bytes=resolved.max_media_bytes,
    )
    return (
        registry,
        Reload(resolved.manifests, config=config, allow_handlers=resolved.allow_handlers),
        first.registry,
    )
