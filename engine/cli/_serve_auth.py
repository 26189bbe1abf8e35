"""``tooldeck serve`` flags for who may call an HTTP server: ``--auth``, tokens, keys, Hosts.

:func:`add_auth_arguments` adds them; :func:`auth_options` turns them into
:class:`~tooldeck.mcp.HttpOptions` fields; :func:`auth_banner` is what the
server says about them at start, on stderr (loudly with ``--insecure-no-auth``);
:func:`hash_token_command` is ``--hash-token``, which prints the tokens-file
entry for a token so that the file never holds one in clear.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from ..mcp._http import HttpOptions

__all__ = ["add_auth_arguments", "auth_banner", "auth_options", "hash_token_command"]


def add_auth_arguments(serve: argparse.ArgumentParser) -> None:
    group = serve.add_argument_group("HTTP authentication (--transport http)")
    group.add_argument(
        "--auth",
        choices=("none", "bearer", "jwt"),
        default="none",
        help=(
            "who may call: none (loopback only unless --insecure-no-auth), bearer (static "
            "tokens from --tokens) or jwt (tokens signed by an authorization server)"
        ),
    )
    group.add_argument(
        "--tokens",
        type=Path,
        metavar="FILE",
        help="bearer: YAML list of {sha256, subject, scopes, claims} (see --hash-token)",
    )
    group.add_argument(
        "--hash-token",
        action="store_true",
        help=(
            "print the --tokens entry for the token read from stdin (from a terminal: for "
            "a new random token, shown once) and exit"
        ),
    )
    group.add_argument("--jwt-public-key", type=Path, metavar="FILE", help="jwt: PEM public key")
    group.add_argument(
        "--jwks-url", metavar="URL", help="jwt: where the signing keys are published"
    )
    group.add_argument("--issuer", metavar="ISS", help="jwt: the iss every token must carry")
    group.add_argument(
        "--audience",
        metavar="URL",
        help="this server's resource URL (https://host/mcp); a token's aud must name it",
    )
    group.add_argument(
        "--authorization-server",
        metavar="URL",
        help="named in /.well-known/oauth-protected-resource for clients to get tokens from",
    )
    group.add_argument(
        "--jwt-algorithm",
        action="append",
        metavar="ALG",
        help="jwt: an accepted signature algorithm (repeatable; default RS*, PS256, ES*, EdDSA)",
    )
    group.add_argument(
        "--side-effects-scope",
        default="tooldeck:side-effects",
        metavar="SCOPE",
        help="with --auth: tools with side effects run only for tokens carrying this scope",
    )
    group.add_argument(
        "--insecure-no-auth",
        action="store_true",
        help="allow --auth none on a public address (a proxy in front must authenticate)",
    )
    group.add_argument(
        "--allowed-host",
        action="append",
        metavar="HOST",
        help="a Host header accepted besides the loopback names (repeatable; needed off loopback)",
    )
    group.add_argument(
        "--allowed-origin",
        action="append",
        metavar="ORIGIN",
        help="a browser Origin accepted besides loopback ones (repeatable)",
    )


def auth_options(args: argparse.Namespace | None) -> dict[str, Any]:
    """The :class:`~tooldeck.mcp.HttpOptions` fields the flags set (``None``: the defaults)."""
    from ..mcp._http import AuthOptions

    if args is None:
        return {
            "auth": AuthOptions(),
            "insecure_no_auth": False,
            "allowed_hosts": (),
            "allowed_origins": (),
        }
    auth: dict[str, Any] = {
        "mode": args.auth,
        "tokens_file": args.tokens,
        "jwt_public_key": args.jwt_public_key,
        "jwks_url": args.jwks_url,
        "issuer": args.issuer,
        "audience": args.audience,
        "authorization_server": args.authorization_server,
        "side_effects_scope": args.side_effects_scope,
    }
    if args.jwt_algorithm:
        auth["algorithms"] = tuple(args.jwt_algorithm)
    return {
        "auth": AuthOptions(**auth),
        "insecure_no_auth": bool(args.insecure_no_auth),
        "allowed_hosts": tuple(args.allowed_host or ()),
        "allowed_origins": tuple(args.allowed_origin or ()),
    }


def auth_banner(options: HttpOptions) -> list[str]:
    """What the server says at start about who may call it."""
    auth = options.auth
    if auth.mode == "bearer":
        lines = [f"authentication: bearer tokens from {auth.tokens_file}"]
    elif auth.mode == "jwt":
        keys = f"JWKS {auth.jwks_url}" if auth.jwks_url else f"public key {auth.jwt_public_key}"
        issuer = f", issuer {auth.issuer}" if auth.issuer else ""
        lines = [f"authentication: jwt ({keys}{issuer}, audience {auth.audience})"]
    elif options.insecure_no_auth:
        return [
            "WARNING: --insecure-no-auth: NOTHING IS AUTHENTICATED. Anyone who reaches "
            f"{options.host}:{options.port} can list and run every tool; only a proxy in "
            "front that authenticates every request makes this safe."
        ]
    else:
        return ["authentication: none (loopback only: any local process can call)"]
    lines.append(f"tools with side effects need the scope {auth.side_effects_scope}")
    return lines


def hash_token_command() -> int:
    """``--hash-token``: print the tokens-file entry for a token.

    Piped in: the token on stdin (one line, surrounding whitespace dropped). From a
    terminal: a new random token, printed once on stderr (the entry goes to stdout,
    so ``tooldeck serve --hash-token >> tokens.yaml`` keeps the token out of the file).
    Empty input is refused rather than replaced: a pipe that failed upstream must
    not silently become another token.
    """
    from ..mcp._http import MIN_TOKEN_LENGTH, new_token, token_entry_yaml
    from ._common import EXIT_OK, EXIT_USAGE

    if sys.stdin is None or sys.stdin.isatty():
        token = new_token()
        print(
            f"new token (shown once; give it to the client, keep it out of files):\n{token}",
            file=sys.stderr,
        )
    else:
        token = sys.stdin.read().strip()
        if not token:
            print(
                "tooldeck: --hash-token: stdin is empty; pipe the token in, or run from a "
                "terminal for a new random token",
                file=sys.stderr,
            )
            return EXIT_USAGE
        if len(token) < MIN_TOKEN_LENGTH or any(char.isspace() for char in token):
            print(
                f"tooldeck: --hash-token: a token is one word of at least {MIN_TOKEN_LENGTH} "
                "characters (run from a terminal for a random one)",
                file=sys.stderr,
            )
            return EXIT_USAGE
    sys.stdout.write(token_entry_yaml(token))
    return EXIT_OK
