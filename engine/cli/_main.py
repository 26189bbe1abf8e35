"""``tooldeck`` subcommands: parse arguments, build the registry, execute, exit code.

Exit codes: 0 success, 1 the command ran and found a problem (an error
result, lint errors, manifests that did not load), 2 usage errors (bad
flags, no manifests to read).

Start-up: a CLI run by pre-commit pays its imports on every commit, so this
module imports only :mod:`sys` (``tooldeck --help`` costs about as much as
``import yaml``). The commands are plain data (:data:`COMMAND_HELP`);
``tooldeck --help`` prints text rendered from that table without importing
argparse, and a command's parser (argparse, :mod:`pathlib`) and its
implementation (the registry, the loader, jsonschema) are imported only
when that command runs.
"""

from __future__ import annotations

import sys

from ._common import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, Refused, UsageError

TYPE_CHECKING = False  # `typing` itself costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import Any


__all__ = ["COMMAND_HELP", "build_parser", "main", "top_level_help"]

DESCRIPTION = "Declare LLM tools in YAML manifests; lint, list, call and export them."
COMMAND_HELP: dict[str, str] = {
    "lint": "check manifests; exit 1 on errors",
    "list": "list tools, prompts and servers",
    "call": "call one tool and print its result",
    "chat": "talk to an OpenAI-compatible model that calls the tools",
    "export": "print provider tool definitions",
    "dev": "watch manifests and print each change",
    "schema": "print the manifest meta-schema (JSON Schema 2020-12)",
    "init": "create a starter project: a manifest, its handlers, settings",
    "import": "write a manifest from OpenAI-style definitions, a Python module or an MCP server",
    "serve": "serve the tools and prompts over MCP (stdio or HTTP)",
}
"""Command name -> its one-line help, in the order ``tooldeck --help`` lists them."""
_USAGE = "usage: tooldeck [-h] [--version] COMMAND ..."
_HELP_OPTION = ("-h, --help", "show this help message and exit")
_VERSION_OPTION = ("--version", "show program's version number and exit")


def top_level_help() -> str:
    """The text of ``tooldeck --help``, rendered from :data:`COMMAND_HELP`.

    The layout is argparse's on a terminal wide enough not to wrap (help
    column at the longest entry plus two, at most 24); it is fixed text, so
    printing it needs no argparse. The top-level parser prints the same text
    (``tooldeck -h lint`` too).
    """
    rows = [(4, name, text) for name, text in COMMAND_HELP.items()]
    options = [(2, *_HELP_OPTION), (2, *_VERSION_OPTION)]
    rows.extend(options)
    column = min(max(indent + len(name) for indent, name, _ in rows) + 2, 24)

    def entry(indent: int, name: str, text: str) -> str:
        head = " " * indent + name
        if len(head) + 2 > column:  # too long to share a line with its help
            return f"{head}\n{' ' * column}{text}"
        return f"{head.ljust(column)}{text}"

    commands = "\n".join(entry(*row) for row in rows[: -len(options)])
    flags = "\n".join(entry(*row) for row in options)
    return (
        f"{_USAGE}\n\n{DESCRIPTION}\n\n"
        f"positional arguments:\n  COMMAND\n{commands}\n\n"
        f"options:\n{flags}\n"
    )


_COMMAND_MODULES: dict[str, str] = {name: f"tooldeck.cli._{name}_cmd" for name in COMMAND_HELP}
"""Command name -> the module with its ``add_arguments(parser)`` and ``run(args) -> int``."""


def _command(name: str) -> Any:
    import importlib

    return importlib.import_module(_COMMAND_MODULES[name])


def build_parser(*, only: str | None = None) -> argparse.ArgumentParser:
    """The argparse parser of ``tooldeck``; ``only=NAME`` fills in that command alone.

    Every command is listed either way; with ``only``, the others are empty
    placeholders, which is all argparse needs while another command is
    chosen (:func:`main` passes the command word it sees, so a run builds
    one command's options instead of six).
    """
    import argparse

    class TopLevelParser(argparse.ArgumentParser):
        def format_help(self) -> str:
            return top_level_help()

    parser = TopLevelParser(prog="tooldeck", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=_version_line())
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        parser_class=argparse.ArgumentParser,  # commands print argparse's own help
    )
    for name, text in COMMAND_HELP.items():
        command = sub.add_parser(name, help=text)
        if only is None or only == name:
            _command(name).add_arguments(command)
    return parser


def _ours(finder: object) -> bool:
    from .._importpath import ProjectFinder

    return isinstance(finder, ProjectFinder)


def _version_line() -> str:
    from .._version import __version__

    return f"tooldeck {__version__}"


def _command_word(argv: Sequence[str]) -> str | None:
    """The command argparse will dispatch to: the first word that is not an option.

    The top level has no option that takes a value, so this is exact for
    every command line that names a valid command; for others argparse
    reports the error before any command's parser runs.
    """
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments in (["-h"], ["--help"]):  # what argparse would print, without argparse
        sys.stdout.write(top_level_help())
        raise SystemExit(EXIT_OK)  # as argparse's help action does
    if arguments == ["--version"]:
        sys.stdout.write(_version_line() + "\n")
        raise SystemExit(EXIT_OK)
    args = build_parser(only=_command_word(arguments)).parse_args(arguments)
    from .._importpath import project_importable_last
    from ._terminal import escape_streams

    finders_before = list(sys.meta_path)
    if not getattr(args, "static", False):  # lint --static imports nothing (see Resolved)
        project_importable_last()
    module = _command(args.command)
    command = module.run
    protocol = getattr(module, "stdout_is_protocol", None)
    # Everything the command prints shows outside text as text (tooldeck.cli._terminal).
    # A process keeps the escaping to its end: a traceback at exit is escaped too.
    unescape = escape_streams(stdout=not (protocol is not None and protocol(args)))
    # Whether this process is tooldeck (the console script, python -m tooldeck) rather than
    # an application calling main(): process-wide changes (signals, the collector) only then.
    args.whole_process = argv is None
    if argv is None:  # this process is tooldeck: SIGTERM and SIGHUP end it as Ctrl-C does
        from ._signals import end_cleanly_on_signals

        end_cleanly_on_signals()
    try:
        if args.command in ONE_SHOT:
            return _run_once(command, args, process=argv is None)
        return command(args)  # type: ignore[no-any-return]
    except UsageError as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Refused as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    except KeyboardInterrupt:
        from ._signals import terminated_by

        signum = terminated_by()
        return 128 + signum if signum is not None else 130
    except BrokenPipeError:  # `tooldeck schema | head`: the reader has what it wanted
        if argv is None:  # the process ends: nothing may write to the closed pipe at exit
            import os

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    finally:
        if argv is not None:  # called from Python: take out the project finders it added
            sys.meta_path[:] = [f for f in sys.meta_path if f in finders_before or not _ours(f)]
            unescape()


ONE_SHOT = frozenset({"lint", "list", "export", "schema"})
"""Commands that load, report and end, running no tool: the collector can rest."""


def _run_once(
    command: Callable[[argparse.Namespace], int], args: argparse.Namespace, *, process: bool
) -> int:
    """Run a :data:`ONE_SHOT` command with the cyclic garbage collector paused.

    Such a run allocates a few hundred thousand objects (modules, every
    spec, schema and checker of the catalogue) that live until the command
    ends, so each collection re-scans them and frees next to nothing: with
    the collector on, ``tooldeck lint`` of 1,000 tools spends about a fifth
    of its CPU time there, half of it in the collections Python runs when it
    exits. Reference counting still frees everything else.

    ``process``: main() was called without arguments, as the console script
    and ``python -m tooldeck`` do, so the process ends with the command. The
    collector then stays paused, and an ``atexit`` hook freezes what is
    still alive (``gc.freeze``) so the shutdown collection skips it (Python
    does not promise finalizers for objects alive at exit anyway). Called
    with arguments (from Python), the collector is restored afterwards and
    the process is left as it was. ``call`` and ``dev`` run tools and keep
    the collector as it is.
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    if process:
        import atexit

        atexit.unregister(gc.freeze)  # once, however often main() runs
        atexit.register(gc.freeze)
    try:
        return command(args)
    finally:
        if enabled and not process:
            gc.enable()
