"""``tooldeck import mcp``'s options: which server, how to reach it, what to write for it.

Kept apart from :mod:`tooldeck.cli._import_cmd` (which runs the import) so
each stays readable; like it, this imports only what building the parser
needs, so ``tooldeck --help`` stays fast.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["MCP_TIMEOUT", "add_mcp_parser", "seconds"]

MCP_TIMEOUT = 30.0
"""``import mcp --timeout`` default (tooldeck.mcp._attaching.probe.DEFAULT_TIMEOUT; not
imported here, so building the parser stays cheap)."""


def add_mcp_parser(sources: Any) -> argparse.ArgumentParser:
    """Register ``import mcp`` and its options on the ``import`` sub-command table."""
    mcp: argparse.ArgumentParser = sources.add_parser(
        "mcp",
        help="the tools of an MCP server (a command over stdio, or a url)",
        description="Connect to an MCP server, list its tools and write a manifest declaring "
        "the server (via: client) and one use: SERVER/TOOL entry per tool, with the server's "
        "descriptions copied for editing. Name a local server by its command after -- "
        "(tooldeck import mcp -- mcp-server-time --local-timezone UTC) or a remote one with "
        "--url. Secrets never go into the manifest: --header refuses Authorization, tokens "
        "and keys; --header-env HEADER=VARIABLE sends the variable's value now and writes "
        "${env:VARIABLE}. A server installed in this virtualenv is written by its full path, "
        "so it starts when tooldeck runs without the virtualenv activated.",
    )
    mcp.add_argument(
        "server_command",  # not "command": the top-level parser's dest for the command name
        nargs="*",
        metavar="COMMAND",
        help="the server's command line and its arguments, after -- (run over stdio)",
    )
    mcp.add_argument("--url", metavar="URL", help="a remote server's address (http or https)")
    mcp.add_argument(
        "--transport",
        choices=("http", "sse"),
        help="with --url: Streamable HTTP (default) or the legacy HTTP+SSE transport",
    )
    mcp.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME:VALUE",
        help="with --url: a header sent and written as is (not for secrets; repeatable)",
    )
    mcp.add_argument(
        "--header-env",
        action="append",
        default=[],
        metavar="HEADER=VARIABLE",
        help="with --url: send HEADER with the value of the environment variable, written as "
        "${env:VARIABLE} (Authorization becomes authorization:; repeatable)",
    )
    mcp.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME[=VARIABLE]",
        help="with a command: pass the environment variable to the server, written as "
        "${env:VARIABLE} (repeatable)",
    )
    mcp.add_argument(
        "--name",
        metavar="NAME",
        help="the server's name in the manifest (default: from the "
        "command or url, e.g. time for mcp-server-time)",
    )
    mcp.add_argument(
        "--timeout",
        type=seconds,
        default=MCP_TIMEOUT,
        metavar="SECONDS",
        help=f"give up when the server has not listed its tools by then (default "
        f"{MCP_TIMEOUT:g}; also 500ms, 1m)",
    )
    return mcp


def seconds(text: str) -> float:
    """``--timeout``'s value: a number of seconds, or a duration such as ``500ms`` or ``1m``."""
    import argparse

    from ...manifest._resolve import ResolveError, parse_duration

    try:
        return parse_duration(float(text) if text.replace(".", "", 1).isdigit() else text)
    except (ResolveError, ValueError):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a positive number of seconds (or like 500ms, 30s, 1m)"
        ) from None
