"""An MCP server's tools -> a manifest of ``use: SERVER/TOOL`` entries, ready to edit.

``tooldeck import mcp`` connects to one server (a command over stdio, or a url),
lists its tools and writes the server as an ``mcp_servers`` entry (``via:
client``, ``allowed_tools: []`` so only the entries below reach the model)
plus one ``tools`` entry per remote tool: ``name`` (provider-safe),
``use``, the server's description and each argument's description under
``args``, keyed by the remote argument name, for the user to edit.

Three parts, so the conversion stays pure and testable without a server:

- :func:`server_source` checks the command line's options and builds a
  :class:`ServerSource`: what to connect to (with secrets read from the
  environment) and how the manifest declares it (``${env:NAME}``
  placeholders, never the secret).
- :func:`list_server_tools` connects through
  :class:`tooldeck.mcp._attaching.connection.McpConnection`, imported when called (this
  module never imports ``mcp`` at import time), and returns the tools as
  plain JSON values.
- :func:`convert_tools` and :func:`render_mcp_manifest` turn those values
  into entries and the manifest's text.

=====  ==========================================================
TD501  a remote tool name no ``use:`` entry can hold; skipped
TD502  the server lists a tool name twice; the later one is skipped
TD504  a value a manifest cannot hold (a lone surrogate); skipped
TD513  the server cannot be started, reached or listed in time
TD514  a tool name providers reject got a provider-safe model name
TD515  the server gives a tool no description
=====  ==========================================================
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any
from urllib.parse import urlsplit

import yaml

from .._model import McpServerSpec
from .._names import is_provider_safe
from .._words import plural
from ._problems import ImportProblem, Severity
from ._result import ImportResult
from ._values import unwritable
from ._yaml_out import _comment, _Dumper, _Inline, bidi_escaped, modeline

__all__ = [
    "DEFAULT_TIMEOUT",
    "McpImport",
    "ServerSource",
    "ServerUnreachable",
    "SourceError",
    "UseTool",
    "convert_tools",
    "default_server_name",
    "import_mcp",
    "list_server_tools",
    "render_mcp_manifest",
    "server_source",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds to start (or reach) the server, run the handshake and list its tools."""

SECRET_HEADER = re.compile(
    r"auth|token|secret|key|passw|cookie|session|credential|signature", re.IGNORECASE
)
"""Header names whose values are secrets: only ``--header-env`` may set them."""

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
_STDERR_LINES = 5
"""Lines of a stdio server's standard error quoted when it cannot be listed."""

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


class ServerUnreachable(Exception):
    """The server could not be started, reached, or listed within the timeout."""


# ------------------------------------------------------------------- the server


@dataclass(frozen=True)
class ServerSource:
    """One MCP server as the command line names it.

    ``headers`` are written literally; ``header_env`` and ``env`` map a header
    (or a server variable) to the environment variable holding its value,
    which is read to connect now and written as ``${env:NAME}``.
    """

    name: str
    command: tuple[str, ...] | None = None
    url: str | None = None
    transport: str = "http"
    headers: tuple[tuple[str, str], ...] = ()
    header_env: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        """The command line or the url, for messages and the manifest's header."""
        return shlex.join(self.command) if self.command is not None else str(self.url)

    def spec(self, environ: Mapping[str, str] | None = None) -> McpServerSpec:
        """The server to connect to, secrets filled in from ``environ`` (``os.environ``)."""
        values = os.environ if environ is None else environ

        def read(variable: str, option: str) -> str:
            if variable not in values:
                raise SourceError(
                    f"{option}: environment variable {variable} is not set; set it to the "
                    "value to send (the manifest reads it from there too)"
                )
            return values[variable]

        if self.command is not None:
            env = {name: read(variable, f"--env {name}") for name, variable in self.env}
            return McpServerSpec(name=self.name, command=self.command, env=env, via="client")
        headers = dict(self.headers)
        authorization = None
        for header, variable in self.header_env:
            value = read(variable, f"--header-env {header}={variable}")
            if header.lower() == "authorization":
                authorization = value
            else:
                headers[header] = value
        return McpServerSpec(
            name=self.name,
            url=self.url,
            headers=headers,
            authorization=authorization,
            transport="sse" if self.transport == "sse" else "http",
            via="client",
        )

    def entry(self) -> dict[str, Any]:
        """The ``mcp_servers`` entry, values escaped for interpolation, secrets as references."""
        entry: dict[str, Any] = {"name": self.name}
        if self.command is not None:
            entry["command"] = _escaped(self.command[0])
            if len(self.command) > 1:
                entry["args"] = _list([_escaped(arg) for arg in self.command[1:]])
            if self.env:
                entry["env"] = {name: f"${{env:{variable}}}" for name, variable in self.env}
        else:
            entry["url"] = _escaped(str(self.url))
            if self.transport != "http":
                entry["transport"] = self.transport
            headers = {name: _escaped(value) for name, value in self.headers}
            authorization = None
            for header, variable in self.header_env:
                if header.lower() == "authorization":
                    authorization = f"${{env:{variable}}}"
                else:
                    headers[header] = f"${{env:{variable}}}"
            if headers:
                entry["headers"] = headers
            if authorization is not None:
                entry["authorization"] = authorization
        entry["via"] = "client"
        entry["allowed_tools"] = _Inline()
        return entry


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


# -------------------------------------------------------------------- listing


def import_mcp(
    source: ServerSource,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    environ: Mapping[str, str] | None = None,
    errlog: IO[str] | None = None,
) -> McpImport:
    """Connect, list and convert; an unreachable server is a TD513 result, never an exception.

    ``errlog`` receives a stdio server's standard error as it was written.
    :class:`SourceError` when an environment variable the source names is unset.
    """
    import asyncio

    spec = source.spec(environ)
    try:
        tools = asyncio.run(list_server_tools(spec, timeout=timeout, errlog=errlog))
    except ServerUnreachable as exc:
        result = ImportResult(source=source.label, kind="mcp", readable=False)
        result.problems.append(ImportProblem(code="TD513", message=str(exc)))
        return McpImport(source=source, result=result)
    return convert_tools(tools, source)


async def list_server_tools(
    spec: McpServerSpec, *, timeout: float = DEFAULT_TIMEOUT, errlog: IO[str] | None = None
) -> list[dict[str, Any]]:
    """The server's ``tools/list`` as JSON values (camelCase keys, as the protocol has them).

    Starting, the handshake and the listing share ``timeout`` seconds;
    :class:`ServerUnreachable` says what failed, quoting the last lines a
    stdio server wrote to its standard error.
    """
    import asyncio
    import tempfile
    import time

    from ..mcp._attaching import ConnectionLost, McpConnection, describe_error

    what = "start" if spec.command is not None else "reach"
    deadline = time.monotonic() + timeout
    with (
        _quiet_mcp_logs(),
        tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr,
    ):
        connection = McpConnection(
            spec, connect_timeout=timeout, errlog=stderr if spec.command is not None else None
        )
        try:
            try:
                await connection.start()
                async with asyncio.timeout(max(deadline - time.monotonic(), 0.001)):
                    tools = await connection.list_tools()
            finally:
                await connection.aclose()
        except ConnectionLost as exc:
            reason = _reason(exc, spec)
            raise ServerUnreachable(
                f"cannot {what} the MCP server: {reason}{_tail(stderr, errlog)}"
            ) from None
        except TimeoutError:
            raise ServerUnreachable(
                f"the MCP server did not list its tools within {timeout:g}s (--timeout)"
                f"{_tail(stderr, errlog)}"
            ) from None
        except Exception as exc:  # a protocol error answering tools/list, a broken stream
            raise ServerUnreachable(
                f"cannot list the MCP server's tools: {describe_error(exc)}{_tail(stderr, errlog)}"
            ) from None
        _tail(stderr, errlog)
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def _reason(exc: BaseException, spec: McpServerSpec) -> str:
    cause = exc.__cause__
    while isinstance(cause, BaseExceptionGroup) and cause.exceptions:
        cause = cause.exceptions[0]
    if spec.command is not None and isinstance(cause, FileNotFoundError):
        return f"no command {spec.command[0]!r} (not on PATH, or no such file)"
    if spec.command is not None and isinstance(cause, PermissionError):
        return f"{spec.command[0]!r} cannot be run ({cause.strerror or 'permission denied'})"
    text = str(exc)
    if text.startswith("no MCP handshake within"):
        return f"{text} (--timeout); is it an MCP server?"
    if text == "MCPError: Connection closed":
        return "it closed the connection before the handshake (did it exit?)"
    return text


def _tail(stderr: IO[str], errlog: IO[str] | None) -> str:
    """The server's last lines of standard error, as ``; it said: ...`` (copied to errlog)."""
    try:
        stderr.flush()
        stderr.seek(0)
        text = stderr.read()
    except (OSError, ValueError, UnicodeDecodeError):
        return ""
    if errlog is not None and text:
        errlog.write(text if text.endswith("\n") else text + "\n")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    quoted = "\n  ".join(_comment(line)[:300] for line in lines[-_STDERR_LINES:])
    return f"; its standard error ends with:\n  {quoted}"


@contextlib.contextmanager
def _quiet_mcp_logs() -> Iterator[None]:
    """The ``mcp`` package logs tracebacks for a misbehaving server; the message says enough.

    Without a handler of their own, Python's last-resort handler would print
    those records (with tracebacks) on standard error.
    """
    import logging

    handler = logging.NullHandler()
    loggers = [logging.getLogger(name) for name in ("mcp", "httpx", "tooldeck.mcp")]
    saved = [(logger, logger.propagate) for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, propagate in saved:
            logger.removeHandler(handler)
            logger.propagate = propagate


# ----------------------------------------------------------------- conversion


@dataclass
class UseTool:
    """One remote tool as a ``use:`` entry."""

    index: int
    """1-based position in the server's ``tools/list``."""
    name: str
    """The name the model sees (provider-safe)."""
    remote: str
    """The tool's name on the server."""
    description: str | None
    """The server's description (or title); None when it gives neither."""
    args: dict[str, str] = field(default_factory=dict)
    """Remote argument name -> the server's description of it."""
    undescribed: list[str] = field(default_factory=list)
    """Remote arguments the server does not describe."""
    side_effects: bool = False
    """The server marks it destructive (``destructiveHint``, not read-only)."""
    idempotent: bool = False


@dataclass
class McpImport:
    """What one ``tooldeck import mcp`` found: the server, its tools, the problems."""

    source: ServerSource
    result: ImportResult
    """Problems, the count of listed tools (``definitions``), ``readable``."""
    tools: list[UseTool] = field(default_factory=list)


def convert_tools(tools: Sequence[Mapping[str, Any]], source: ServerSource) -> McpImport:
    """``tools/list`` entries (JSON values) -> ``use:`` entries, with located problems."""
    result = ImportResult(source=source.label, kind="mcp", definitions=len(tools))
    converted: list[UseTool] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(tools, start=1):
        tool = _convert(index, raw, result.problems)
        if tool is None:
            continue
        if tool.remote in seen:
            result.problems.append(
                ImportProblem(
                    code="TD502",
                    message=f"the server lists this name already as tool {seen[tool.remote]}; "
                    "this one is skipped",
                    index=index,
                    name=tool.remote,
                )
            )
            continue
        seen[tool.remote] = index
        converted.append(tool)
    _name_for_providers(converted, result.problems)
    result.problems.sort(key=lambda problem: problem.index or 0)  # in the server's order
    return McpImport(source=source, result=result, tools=converted)


def _convert(index: int, raw: Mapping[str, Any], problems: list[ImportProblem]) -> UseTool | None:
    remote = raw.get("name")
    if not isinstance(remote, str) or not remote or remote[0].isspace() or _CONTROL.search(remote):
        shown = remote if isinstance(remote, str) else None
        problems.append(
            ImportProblem(
                code="TD501",
                message="the tool's name cannot be written as use: SERVER/TOOL (it is empty, "
                "starts with a space or holds a control character); skipped",
                index=index,
                name=_comment(shown)[:80] if shown else None,
            )
        )
        return None
    description = _text(raw.get("description")) or _text(raw.get("title"))
    hints = raw.get("annotations")
    hints = hints if isinstance(hints, Mapping) else {}
    description = description or _text(hints.get("title"))
    schema = raw.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    args: dict[str, str] = {}
    undescribed: list[str] = []
    for argument, subschema in (properties if isinstance(properties, Mapping) else {}).items():
        text = _text(subschema.get("description")) if isinstance(subschema, Mapping) else None
        if text:
            args[argument] = text
        else:
            undescribed.append(argument)
    why = unwritable([remote, description, args, undescribed])
    if why is not None:
        problems.append(
            ImportProblem(code="TD504", message=f"{why}; skipped", index=index, name=None)
        )
        return None
    if description is None:
        problems.append(
            ImportProblem(
                code="TD515",
                message="the server gives the tool no description, so the model sees only its "
                "name; write one in the manifest",
                severity=Severity.WARNING,
                index=index,
                name=remote,
            )
        )
    return UseTool(
        index=index,
        name=remote,
        remote=remote,
        description=description,
        args=args,
        undescribed=undescribed,
        side_effects=hints.get("destructiveHint") is True and hints.get("readOnlyHint") is not True,
        idempotent=hints.get("idempotentHint") is True,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _name_for_providers(tools: list[UseTool], problems: list[ImportProblem]) -> None:
    """Give each tool a name providers accept; the safe names are kept, the others made."""
    taken = {tool.remote for tool in tools if is_provider_safe(tool.remote)}
    for tool in tools:
        if is_provider_safe(tool.remote):
            continue
        stem = _UNSAFE.sub("_", tool.remote).strip("_")[:64] or "tool"
        name, number = stem, 2
        while name in taken:
            suffix = f"_{number}"
            name, number = stem[: 64 - len(suffix)] + suffix, number + 1
        taken.add(name)
        tool.name = name
        problems.append(
            ImportProblem(
                code="TD514",
                message="the name is not one providers accept (^[a-zA-Z0-9_-]{1,64}$); the "
                f"model sees it as {name!r}, and use: keeps the server's name",
                severity=Severity.INFO,
                index=tool.index,
                name=_comment(tool.remote)[:80],
            )
        )


# ------------------------------------------------------------------ rendering

_KNOBS = """\
# Each entry under tools: is one of the server's tools (use: SERVER/TOOL) as the model sees it.
# Edit freely; delete an entry to keep that tool from the model.
#   name          the name the model sees (use: keeps the server's own)
#   description   the server's description, copied for editing
#   args          keyed by the server's argument name; arguments not listed pass through as
#                 the server declares them. Under each one:
#                   description: ...   what the model reads (copied from the server)
#                   name: tz           show the argument under another name
#                   default: UTC       make it optional; sent when the model leaves it out
#                   value: UTC         hide it from the model and always send this value"""

_ALLOWED_COMMENT = (
    "  # only the tools below; delete this line to expose every tool the server offers as is"
)
_DESTRUCTIVE_COMMENT = "  # the server marks it destructive: calls wait for approval"


def render_mcp_manifest(imported: McpImport, *, schema: str | None = None) -> str:
    """The manifest text: a header, the server, one ``use:`` entry per tool.

    ``schema`` is the ``$schema`` an editor line points at (none without it).
    """
    lines: list[str] = [] if schema is None else [modeline(schema)]
    count = len(imported.tools)
    summary = plural(count, "tool")
    skipped = imported.result.skipped
    if skipped:
        summary += f" ({skipped} skipped, see the import's messages)"
    source = _comment(imported.source.label)
    lines.append(f"# Imported by `tooldeck import mcp` from {source}: {summary}.")
    lines.append(_KNOBS)
    lines.append("version: 1")
    lines.append("mcp_servers:")
    server = _dump([imported.source.entry()])
    lines.extend(
        f"  {text}{_ALLOWED_COMMENT if text == '  allowed_tools: []' else ''}"
        for text in server.splitlines()
    )
    lines.append("")
    if not imported.tools:
        lines.append("tools: []")
    else:
        lines.append("tools:")
    for number, tool in enumerate(imported.tools):
        if number:
            lines.append("")
        lines.extend(_tool_lines(tool, imported.source.name))
    return "\n".join(lines) + "\n"


def _tool_lines(tool: UseTool, server: str) -> list[str]:
    entry: dict[str, Any] = {"name": tool.name, "use": _escaped(f"{server}/{tool.remote}")}
    if tool.description is not None:
        entry["description"] = _escaped(tool.description)
    if tool.side_effects:
        entry["side_effects"] = True
    if tool.idempotent:
        entry["idempotent"] = True
    if tool.args:
        entry["args"] = {
            argument: {"description": _escaped(text)} for argument, text in tool.args.items()
        }
    out = []
    for text in _dump([entry]).splitlines():
        comment = _DESTRUCTIVE_COMMENT if text == "  side_effects: true" else ""
        out.append(f"  {text}{comment}")
    if tool.description is None:
        out.append("    # description: (none from the server) what the tool does, when to use it")
    if tool.undescribed:
        names = ", ".join(_comment(name) for name in tool.undescribed)
        out.append(f"    # arguments the server does not describe: {names}")
    return out


def _dump(value: Any) -> str:
    return bidi_escaped(
        yaml.dump(
            value,
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=True,
            width=100,
            default_flow_style=False,
        )
    )


def _escaped(text: str) -> str:
    """A literal string value: ``${`` is the loader's reference syntax, ``$${`` its escape."""
    return text.replace("${", "$${")


def _list(items: list[str]) -> list[str]:
    """Inline (``[a, b]``) when short and plain, as the other importers write lists."""
    plain = all(not _CONTROL.search(item) for item in items)
    if plain and sum(len(item) + 2 for item in items) <= 72:
        return _Inline(items)
    return items
