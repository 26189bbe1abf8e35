"""``tooldeck import mcp``'s options -> the server to list, and the one the manifest declares.

:func:`server_source` checks the command line's options and builds a
:class:`~tooldeck._importers.ServerSource`: what to connect to and how the
manifest declares it (``${env:NAME}`` placeholders, never the secret);
:func:`server_spec` reads the secrets it names from the environment to
connect now. Every mistake is a :class:`SourceError`, a usage error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from ..._importers import ServerSource
from ..._model import McpServerSpec

__all__ = ["SECRET_HEADER", "SourceError", "default_server_name", "server_source", "server_spec"]

SECRET_HEADER = re.compile(
    r"auth|token|secret|key|passw|cookie|session|credential|signature", re.IGNORECASE
)
"""Header names whose values are secrets: only ``--header-env`` may set them."""

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")

# Launchers whose first real argument names the server (python -m X, npx -y X, uvx X ...).
_LAUNCHERS = re.compile(
    r"(python[0-9.]*|pypy[0-9.]*|uv|uvx|pipx|npx|bunx|pnpm|yarn|npm|node|deno|bun|docker|"
    r"podman)(\.exe)?",
    re.IGNORECASE,
)
_SUBCOMMANDS = frozenset({"run", "tool", "dlx", "exec", "x", "--"})
_VALUE_OPTIONS = frozenset(
    {"--from", "--with", "--python", "-p", "--package", "-e", "--env", "-v", "--volume",
     "--name", "-w", "--workdir", "--network", "--spec", "--allow-net", "--allow-read",
     "--entrypoint", "--directory"}
)  # fmt: skip
_AFFIXES = re.compile(
    r"^(?:mcp[-_]server[-_]|server[-_]|mcp[-_])|(?:[-_]mcp[-_]server|[-_]server|[-_]mcp)$"
)


class SourceError(ValueError):
    """The options do not describe a server tooldeck can import from (a usage error)."""


def server_spec(source: ServerSource, environ: Mapping[str, str] | None = None) -> McpServerSpec:
    """The server to connect to, secrets filled in from ``environ`` (``os.environ``).

    :class:`SourceError` when an environment variable the source names is unset.
    """
    values = os.environ if environ is None else environ

    def read(variable: str, option: str) -> str:
        if variable not in values:
            raise SourceError(
                f"{option}: environment variable {variable} is not set; set it to the "
                "value to send (the manifest reads it from there too)"
            )
        return values[variable]

    if source.command is not None:
        env = {name: read(variable, f"--env {name}") for name, variable in source.env}
        return McpServerSpec(name=source.name, command=source.command, env=env, via="client")
    headers = dict(source.headers)
    authorization = None
    for header, variable in source.header_env:
        value = read(variable, f"--header-env {header}={variable}")
        if header.lower() == "authorization":
            authorization = value
        else:
            headers[header] = value
    return McpServerSpec(
        name=source.name,
        url=source.url,
        headers=headers,
        authorization=authorization,
        transport="sse" if source.transport == "sse" else "http",
        via="client",
    )


def server_source(
    *,
    command: Sequence[str] = (),
    url: str | None = None,
    headers: Sequence[str] = (),
    header_env: Sequence[str] = (),
    env: Sequence[str] = (),
    transport: str | None = None,
    name: str | None = None,
) -> ServerSource:
    """Check the command line's options; :class:`SourceError` says what is wrong.

    ``headers`` are ``NAME:VALUE``, ``header_env`` ``NAME=VARIABLE``, ``env``
    ``NAME`` or ``NAME=VARIABLE``. A literal header whose name looks secret
    (Authorization, tokens, keys, cookies) is refused: the manifest would
    hold the secret.
    """
    if command and url is not None:
        raise SourceError("name one server: a command after -- or --url URL, not both")
    if not command and url is None:
        raise SourceError(
            "name the server: its command after -- (tooldeck import mcp -- mcp-server-time) "
            "or --url URL"
        )
    if command:
        for option, given in (("--header", headers), ("--header-env", header_env)):
            if given:
                raise SourceError(f"{option} applies to --url; a command is reached over stdio")
        if transport is not None:
            raise SourceError("--transport applies to --url; a command is reached over stdio")
        if not command[0]:
            raise SourceError("the command is empty")
        server_env = tuple(_env_option(item) for item in env)
        _unique([n for n, _ in server_env], "--env sets {} twice")
        return ServerSource(
            name=_server_name(name, default_server_name(command=command)),
            command=tuple(command),
            env=server_env,
        )
    assert url is not None
    if env:
        raise SourceError("--env applies to a command; send values to a url with --header-env")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SourceError(f"--url {url!r} is not an http:// or https:// address")
    if parts.password:
        raise SourceError(
            "--url holds a password; the manifest would keep it. Drop it from the url and "
            "pass --header-env Authorization=VARIABLE instead"
        )
    literal = tuple(_header_option(item) for item in headers)
    from_env = tuple(_header_env_option(item) for item in header_env)
    _unique([h.lower() for h, _ in (*literal, *from_env)], "the header {} is given twice")
    return ServerSource(
        name=_server_name(name, default_server_name(url=url)),
        url=url,
        transport=transport or "http",
        headers=literal,
        header_env=from_env,
    )


def _header_option(item: str) -> tuple[str, str]:
    header, colon, value = item.partition(":")
    header, value = header.strip(), value.strip()
    if not colon or not _HEADER_NAME.fullmatch(header):
        raise SourceError(f"--header {item!r} is not NAME:VALUE, e.g. X-Team:search")
    if SECRET_HEADER.search(header):
        variable = re.sub(r"[^A-Za-z0-9]+", "_", header).strip("_").upper()
        if header.lower() == "authorization":
            variable = "MCP_TOKEN"
        raise SourceError(
            f"--header {header}:... would write a secret into the manifest; put the value "
            f"in an environment variable and pass --header-env {header}={variable} (the "
            f"manifest then reads ${{env:{variable}}})"
        )
    if _CONTROL.search(value):
        raise SourceError(f"--header {header}: the value holds a control character")
    return header, value


def _header_env_option(item: str) -> tuple[str, str]:
    header, equals, variable = item.partition("=")
    header, variable = header.strip(), variable.strip()
    if not equals or not _HEADER_NAME.fullmatch(header) or not _ENV_NAME.fullmatch(variable):
        raise SourceError(
            f"--header-env {item!r} is not HEADER=VARIABLE, e.g. Authorization=MCP_TOKEN"
        )
    return header, variable


def _env_option(item: str) -> tuple[str, str]:
    name, equals, variable = item.partition("=")
    variable = variable if equals else name
    if not _ENV_NAME.fullmatch(name) or not _ENV_NAME.fullmatch(variable):
        raise SourceError(f"--env {item!r} is not NAME or NAME=VARIABLE, e.g. GITHUB_TOKEN")
    return name, variable


def _unique(names: Sequence[str], message: str) -> None:
    seen: set[str] = set()
    for item in names:
        if item in seen:
            raise SourceError(message.format(item))
        seen.add(item)


def _server_name(given: str | None, default: str) -> str:
    if given is None:
        return default
    if not _SERVER_NAME.fullmatch(given):
        raise SourceError(
            f"--name {given!r}: a server name is 1-64 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit"
        )
    return given


def default_server_name(*, command: Sequence[str] = (), url: str | None = None) -> str:
    """A short server name from a command (``mcp-server-time`` -> ``time``) or a url.

    For a launcher (``python -m X``, ``uvx X``, ``npx -y @scope/X``, ``docker
    run ... image``) the name comes from what it launches; ``mcp``/``server``
    affixes are dropped, and the result is made of ``[a-z0-9_-]``.
    """
    if url is not None:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        labels = [part for part in host.split(".") if part]
        if host in ("localhost",) or host.replace(".", "").isdigit() or ":" in host:
            words = [p for p in parts.path.split("/") if p and p.lower() not in ("mcp", "sse")]
            stem = words[-1] if words else "local"
        else:
            if len(labels) > 1:
                labels = labels[:-1]  # the top-level domain
            kept = [x for x in labels if x not in ("www", "mcp", "api", "server")]
            stem = kept[-1] if kept else labels[-1] if labels else "server"
        return _tidy(stem)
    return _tidy(_launched(list(command)))


def _launched(argv: list[str]) -> str:
    """The token of a command line that names the server."""
    if not argv:
        return "server"
    program = os.path.basename(argv[0])
    if not _LAUNCHERS.fullmatch(program) or len(argv) == 1:
        return program
    rest = argv[1:]
    index = 0
    while index < len(rest):
        word = rest[index]
        if word == "-m" and index + 1 < len(rest):
            return rest[index + 1]
        if word in _VALUE_OPTIONS:
            index += 2
            continue
        if word.startswith("-") or word in _SUBCOMMANDS:
            index += 1
            continue
        return word
    return program


def _tidy(token: str) -> str:
    """``@scope/mcp-server-time@1.2`` -> ``time``; ``server.py`` -> ``server``."""
    token = re.sub(r"(?<=.)(?:@|==|:)[^/]*$", "", token.rstrip("/"))  # versions, image tags
    token = re.sub(r"\.(?:py|js|mjs|cjs|ts|exe)$", "", token.rsplit("/", 1)[-1], flags=re.I)
    stem = token.lower()
    for _ in range(2):
        stem = _AFFIXES.sub("", stem)
    stem = re.sub(r"[^a-z0-9_-]+", "_", stem).strip("_-")
    return stem[:64] or "server"
