"""``tooldeck import``: write a manifest from tool definitions people already have.

    tooldeck import openai tools.json --stubs myapp/tools.py -o manifests/tools.yaml
    tooldeck import openai tools.jsonl --handler-module myapp.tools
    tooldeck import python myapp.tools -o manifests/tools.yaml
    tooldeck import mcp -o manifests/time.yaml -- mcp-server-time --local-timezone UTC
    tooldeck import mcp --url https://mcp.example.com/mcp --header-env Authorization=MCP_TOKEN

``openai FILE`` reads OpenAI-style function definitions (Chat Completions,
Responses, bare ``{name, description, parameters}``, MCP tool lists; JSON,
JSONL, ``-`` for standard input); a manifest tool needs a handler, so one of
``--handler``, ``--handler-module`` or ``--stubs`` says which functions run
them. ``python MODULE`` writes one tool per public function of a module
(the current directory is importable, after the installed packages). ``mcp``
connects to an MCP server (a command after ``--``, run over stdio, or
``--url``), lists its tools and writes the server (``via: client``) with one
``use: SERVER/TOOL`` entry per tool, descriptions copied for editing; secret
headers are written as ``${env:NAME}`` (``--header-env``), never literally, and
a server installed in this virtualenv by its full path (it must start when an
MCP client runs tooldeck without activating the virtualenv).

A manifest written into a project (``-o``) also gets what ``tooldeck lint``
needs there (:mod:`._importing.project`): its handler module in ``allow_handlers``
and the project's copy of the meta-schema for its ``$schema`` line.

Exit codes: 0 everything imported (warnings allowed), 1 some definitions
were skipped (the manifest holds the others), 2 usage errors, unreadable
input and servers that cannot be started, reached or listed (nothing
written). Problems go to standard error as ``file:line:col: ...`` or
``file: definition N (name): CODE message``.

Like every command module this imports only :mod:`sys` until it runs;
``add_arguments``/``run`` (the CLI's command protocol) or
``add_parser(subparsers)`` register it (``import mcp``'s options are in
:mod:`._importing.mcp_args`, its other helpers in :mod:`._importing`).
"""

from __future__ import annotations

import contextlib
import sys

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import IO, Any

    from .._importers import ImportResult, McpImport, ServerSource

__all__ = ["HELP", "add_arguments", "add_parser", "run"]

HELP = "write a manifest from OpenAI-style definitions, a Python module or an MCP server"
"""The command's one-line help, for the CLI's command table."""

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2
_MAX_BYTES = 16 * 1024 * 1024
_HANDLER_CHOICES = (
    "say which Python functions run the imported tools: --handler MODULE:FUNCTION (one "
    "function for every tool, taking **arguments), --handler-module MODULE (MODULE:<tool name> "
    "for each tool), or --stubs FILE.py (write a typed stub per tool and use them)"
)


class _Usage(Exception):
    """A bad invocation or an unreadable input: reported, nothing written, exit 2."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``import`` on a parser's ``add_subparsers()`` object."""
    parser: argparse.ArgumentParser = subparsers.add_parser("import", help=HELP)
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``openai``, ``python`` and ``mcp`` sub-commands and their options."""
    from pathlib import Path

    sources = parser.add_subparsers(dest="source", required=True, metavar="SOURCE")
    openai = sources.add_parser(
        "openai",
        help="OpenAI-style function definitions (JSON or JSONL)",
        description="Import Chat Completions, Responses or bare function definitions, or an "
        "MCP tool list. " + _HANDLER_CHOICES[0].upper() + _HANDLER_CHOICES[1:] + ".",
    )
    openai.add_argument("file", metavar="FILE", help="JSON or JSONL file; - reads standard input")
    handlers = openai.add_argument_group("handlers (one of them is needed)")
    handlers.add_argument(
        "--handler", metavar="MODULE:FUNCTION", help="one handler for every tool (**arguments)"
    )
    handlers.add_argument(
        "--handler-module", metavar="MODULE", help="MODULE:<tool name> for each tool"
    )
    handlers.add_argument(
        "--stubs",
        type=Path,
        metavar="FILE.py",
        help="write a typed stub per tool; its module is the handler module unless "
        "--handler-module names it",
    )
    python = sources.add_parser(
        "python",
        help="the public functions of a Python module",
        description="Import one tool per public function defined in MODULE (its __all__ "
        "when it has one), with parameters inferred as ToolRegistry.add_tool infers them.",
    )
    python.add_argument("module", metavar="MODULE", help="dotted module name, e.g. myapp.tools")
    from ._importing import add_mcp_parser

    mcp = add_mcp_parser(sources)
    for sub in (openai, python, mcp):
        sub.add_argument(
            "-o",
            "--output",
            type=Path,
            metavar="FILE",
            help="write the manifest here (default: standard output)",
        )
        sub.add_argument(
            "--force", action="store_true", help="overwrite an existing output or stub file"
        )
        sub.add_argument(
            "-v", "--verbose", action="store_true", help="also print notes (renames, rewrites)"
        )


def run(args: argparse.Namespace) -> int:
    """Run ``tooldeck import``; 0 ok, 1 definitions skipped, 2 usage or unreadable input."""
    try:
        if args.source == "python":
            return _python(args)
        if args.source == "mcp":
            return _mcp(args)
        return _openai(args)
    except _Usage as exc:
        print(f"tooldeck import: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _openai(args: argparse.Namespace) -> int:
    from .._importers import (
        HANDLER_REFERENCE,
        assign_handlers,
        import_openai,
        module_for_path,
        render_stubs,
        valid_module,
    )

    handler, module, stubs = args.handler, args.handler_module, args.stubs
    if handler is None and module is None and stubs is None:
        raise _Usage(_HANDLER_CHOICES)
    if handler is not None and (module is not None or stubs is not None):
        raise _Usage(
            "--handler names one function for every tool; use it without --handler-module "
            "and --stubs"
        )
    if handler is not None and not HANDLER_REFERENCE.match(handler):
        raise _Usage(f"--handler {handler!r} is not MODULE:FUNCTION, e.g. myapp.tools:dispatch")
    if stubs is not None:
        if stubs.suffix != ".py":
            raise _Usage(f"--stubs {stubs} must name a .py file")
        module = module or module_for_path(stubs)
    if module is not None and not valid_module(module):
        hint = " (name it with --handler-module)" if args.handler_module is None else ""
        raise _Usage(f"{module!r} is not a module name handlers can live in{hint}")
    _refuse_overwrite(args.output, args.force)
    _refuse_overwrite(stubs, args.force)
    text, source = _read(args.file)
    result = import_openai(text, source=source)
    if not result.readable:
        return _report(result, args.verbose)
    assign_handlers(result, handler=handler, handler_module=module)
    if stubs is not None:
        _write(stubs, render_stubs(result))
    where = f"handlers: {module or handler}" + (f" (stubs in {stubs})" if stubs else "")
    return _finish(result, args, where, module or handler.split(":")[0])


def _python(args: argparse.Namespace) -> int:
    from .._importers import import_python
    from .._importpath import project_importable_last

    _refuse_overwrite(args.output, args.force)
    finder = project_importable_last()
    try:
        result = import_python(args.module)
    finally:
        if finder is not None and finder in sys.meta_path:
            sys.meta_path.remove(finder)
    if not result.readable:
        return _report(result, args.verbose)
    return _finish(result, args, f"handlers: functions of {args.module}", args.module)


def _mcp(args: argparse.Namespace) -> int:
    from .._importers import render_mcp_manifest
    from .._words import plural
    from ._importing import ImportProject, SourceError, server_source

    try:
        source = server_source(
            command=args.server_command,
            url=args.url,
            headers=args.header,
            header_env=args.header_env,
            env=args.env,
            transport=args.transport,
            name=args.name,
        )
        _refuse_overwrite(args.output, args.force)
        source, resolved = _runnable(source)
        imported = _list_tools(source, args.timeout, sys.stderr if args.verbose else None)
    except SourceError as exc:
        raise _Usage(str(exc)) from None
    result = imported.result
    if not result.readable:
        return _report(result, args.verbose)
    project = ImportProject.locate(args.output)
    text = render_mcp_manifest(imported, schema=project.schema_reference())
    _check_size(result, text)
    if args.output is None:
        sys.stdout.write(text)
    else:
        _write(args.output, text)
    code = _report(result, args.verbose)
    schema = project.write_schema()
    target = "standard output" if args.output is None else str(args.output)
    listed = result.definitions
    summary = (
        f"imported {len(imported.tools)} of {plural(listed, 'tool')} of MCP server "
        f"{source.name!r} into {target}"
    )
    if result.skipped:
        summary += f"; {result.skipped} skipped (see above)"
    if not listed:
        summary += " (the server lists no tools)"
    if resolved is not None:
        print(f"tooldeck import: {resolved}", file=sys.stderr)
    print(summary, file=sys.stderr)
    _print_lines([schema])
    if args.output is not None:
        print(f"check it with: tooldeck lint {args.output}", file=sys.stderr)
    return code


def _list_tools(source: ServerSource, timeout: float, errlog: IO[str] | None) -> McpImport:
    """Connect, list and convert; an unreachable server is a TD513 result, never an exception.

    ``errlog`` receives a stdio server's standard error as it was written.
    :class:`SourceError` when an environment variable the source names is unset.
    """
    import asyncio

    from .._importers import convert_tools, unreachable
    from ..mcp._attaching import ServerUnreachable, list_server_tools
    from ._importing import server_spec

    spec = server_spec(source)
    try:
        tools = asyncio.run(list_server_tools(spec, timeout=timeout, errlog=errlog))
    except ServerUnreachable as exc:
        return unreachable(source, str(exc))
    return convert_tools(tools, source)


def _runnable(source: ServerSource) -> tuple[ServerSource, str | None]:
    """``source`` with its command word as a manifest should hold it, and why it changed.

    A server installed in this virtualenv is written as the absolute path of its
    script, so the manifest works when an MCP client starts tooldeck without
    activating the virtualenv (:func:`tooldeck._importers.resolve_command`).
    """
    import dataclasses

    from .._importers import resolve_command

    if not source.command:
        return source, None
    word, *rest = source.command
    resolved = resolve_command(word)
    if resolved.note is None:
        return source, None
    return dataclasses.replace(source, command=(resolved.command, *rest)), resolved.note


def _finish(result: ImportResult, args: argparse.Namespace, where: str, allow: str) -> int:
    """Write the manifest, then what the project needs for it: the schema, ``allow`` allowed."""
    from .._importers import render_manifest
    from .._words import plural
    from ._importing import ImportProject

    project = ImportProject.locate(args.output)
    text = render_manifest(result, schema=project.schema_reference(), handlers=where)
    _check_size(result, text)
    if args.output is None:
        sys.stdout.write(text)
    else:
        _write(args.output, text)
    code = _report(result, args.verbose)
    schema = project.write_schema()
    allowed, lines = project.allow(allow)
    target = "standard output" if args.output is None else str(args.output)
    summary = (
        f"imported {len(result.tools)} of {plural(result.definitions, 'definition')} into {target}"
    )
    if result.skipped:
        summary += f"; {result.skipped} skipped (see above)"
    print(summary, file=sys.stderr)
    _print_lines([schema, *lines])
    if args.output is not None:
        check = f"tooldeck lint {args.output}" + ("" if allowed else f" --allow-handlers {allow}")
        print(f"check it with: {check}", file=sys.stderr)
    return code


def _print_lines(lines: list[str | None]) -> None:
    for line in lines:
        if line is not None:
            print(f"tooldeck import: {line}", file=sys.stderr)


def _check_size(result: ImportResult, text: str) -> None:
    """A manifest the loader would refuse as too large is still written, with a warning."""
    from .._importers import ImportProblem, Severity
    from .._yaml import MAX_BYTES

    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        message = (
            f"the manifest is {size:,} bytes and tooldeck loads at most {MAX_BYTES:,} per file "
            "(TD201); split the input and import the parts into separate manifests"
        )
        result.problems.append(
            ImportProblem(code="TD512", message=message, severity=Severity.WARNING)
        )


def _report(result: ImportResult, verbose: bool) -> int:
    from .._importers import Severity
    from .._words import plural

    notes = 0
    for problem in result.problems:
        if problem.severity is Severity.INFO and not verbose:
            notes += 1
            continue
        print(problem.format(result.source), file=sys.stderr)
    if notes:
        about = f"{plural(notes, 'note')} about renames and rewrites (--verbose shows them)"
        print(about, file=sys.stderr)
    return result.exit_code()


def _read(file: str) -> tuple[str, str]:
    """The input's text and the name messages use for it; unreadable input is a usage error."""
    from .._readfile import Unreadable, read_bounded

    too_large = f"TD500 the input is larger than {_MAX_BYTES // (1024 * 1024)} MiB"
    if file == "-":
        buffer = getattr(sys.stdin, "buffer", None)  # a StringIO stand-in has none
        raw = buffer.read(_MAX_BYTES + 1) if buffer else sys.stdin.read().encode("utf-8")
        source = "<stdin>"
        if len(raw) > _MAX_BYTES:
            raise _Usage(f"{source}: {too_large}")
    else:
        source = file
        read = read_bounded(file, _MAX_BYTES)  # never blocks, never reads past the cap
        if isinstance(read, Unreadable):
            reason = (
                too_large if read.reason == "too_large" else f"TD500 cannot read the input: {read}"
            )
            raise _Usage(f"{file}: {reason}")
        raw = read
    try:
        return raw.decode("utf-8-sig"), source
    except UnicodeDecodeError as exc:
        raise _Usage(f"{source}: TD500 the input is not UTF-8 (byte {exc.start})") from None


def _refuse_overwrite(path: Path | None, force: bool) -> None:
    import os

    # lexists: a symlink (dangling or not) is something there too
    if path is not None and os.path.lexists(path) and not force:
        raise _Usage(f"{path} exists; pass --force to overwrite it")


def _write(path: Path, text: str) -> None:
    """Write ``text`` whole or not at all (a crash never leaves half a manifest)."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    # A fresh name made with O_EXCL: nothing planted beside the target is written through.
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
