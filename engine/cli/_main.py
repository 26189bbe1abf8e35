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

TYPE_CHECKING = False  # `typing` itself costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any

    from tooldeck._diagnostics import Diagnostic
    from tooldeck._policies import ApprovalCallback, ApprovalRequest, Decision
    from tooldeck._registry import ToolRegistry
    from tooldeck.manifest._manifests import LoadResult

__all__ = ["COMMAND_HELP", "build_parser", "main", "top_level_help"]

EXIT_OK, EXIT_PROBLEM, EXIT_USAGE = 0, 1, 2

DESCRIPTION = "Declare LLM tools in YAML manifests; lint, list, call and export them."
COMMAND_HELP: dict[str, str] = {
    "lint": "check manifests; exit 1 on errors",
    "list": "list tools, prompts and servers",
    "call": "call one tool and print its result",
    "export": "print provider tool definitions",
    "dev": "watch manifests and print each change",
    "schema": "print the manifest meta-schema (JSON Schema 2020-12)",
}
"""Command name -> its one-line help, in the order ``tooldeck --help`` lists them."""
_USAGE = "usage: tooldeck [-h] COMMAND ..."
_HELP_OPTION = ("-h, --help", "show this help message and exit")


class UsageError(Exception):
    """Bad invocation: printed as ``tooldeck: message`` with exit code 2."""


def top_level_help() -> str:
    """The text of ``tooldeck --help``, rendered from :data:`COMMAND_HELP`.

    The layout is argparse's on a terminal wide enough not to wrap (help
    column at the longest entry plus two, at most 24); it is fixed text, so
    printing it needs no argparse. The top-level parser prints the same text
    (``tooldeck -h lint`` too).
    """
    rows = [(4, name, text) for name, text in COMMAND_HELP.items()]
    rows.append((2, *_HELP_OPTION))
    column = min(max(indent + len(name) for indent, name, _ in rows) + 2, 24)

    def entry(indent: int, name: str, text: str) -> str:
        head = " " * indent + name
        if len(head) + 2 > column:  # too long to share a line with its help
            return f"{head}\n{' ' * column}{text}"
        return f"{head.ljust(column)}{text}"

    commands = "\n".join(entry(*row) for row in rows[:-1])
    return (
        f"{_USAGE}\n\n{DESCRIPTION}\n\n"
        f"positional arguments:\n  COMMAND\n{commands}\n\n"
        f"options:\n{entry(*rows[-1])}\n"
    )


def _add_common(parser: argparse.ArgumentParser) -> None:
    """The options every command that loads manifests takes."""
    from pathlib import Path

    parser.add_argument(
        "-m",
        "--manifests",
        action="append",
        type=Path,
        metavar="PATH",
        default=None,
        help="manifest file or folder (repeatable; default: ./manifests, else the bundled ones)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="application config: .yaml, .json or the seed's .properties",
    )
    parser.add_argument(
        "--project-dir",
        type=Path,
        metavar="DIR",
        help="directory file tools are confined to (default: current directory)",
    )
    parser.add_argument(
        "--allow-handlers",
        action="append",
        default=[],
        metavar="PREFIX",
        help="also allow handler modules under PREFIX (repeatable)",
    )


def _lint_arguments(lint: argparse.ArgumentParser) -> None:
    from pathlib import Path

    _add_common(lint)
    lint.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="manifest files or folders (default: ./manifests)",
    )
    lint.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text")
    lint.add_argument("--strict", action="store_true", help="warnings fail too")


def _list_arguments(list_cmd: argparse.ArgumentParser) -> None:
    _add_common(list_cmd)
    list_cmd.add_argument("--json", action="store_true", help="print JSON instead of text")


def _call_arguments(call: argparse.ArgumentParser) -> None:
    _add_common(call)
    call.add_argument("name", help="tool name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument(
        "--yes",
        action="store_true",
        help="approve a tool with side effects without asking (non-interactive use)",
    )


def _export_arguments(export: argparse.ArgumentParser) -> None:
    _add_common(export)
    export.add_argument(
        "--provider",
        required=True,
        choices=(
            "openai-responses",
            "openai-chat",
            "anthropic",
            "gemini",
            "mcp",
        ),
    )
    export.add_argument("--strict", action="store_true", help="provider strict mode (OpenAI)")


def _dev_arguments(dev: argparse.ArgumentParser) -> None:
    _add_common(dev)
    dev.add_argument(
        "--reload-handlers",
        action="store_true",
        help="also re-import edited handler modules (see README for the limits)",
    )


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    """``schema`` takes no options beyond ``-h``."""


_ARGUMENTS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "lint": _lint_arguments,
    "list": _list_arguments,
    "call": _call_arguments,
    "export": _export_arguments,
    "dev": _dev_arguments,
    "schema": _no_arguments,
}


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
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        parser_class=argparse.ArgumentParser,  # commands print argparse's own help
    )
    for name, text in COMMAND_HELP.items():
        command = sub.add_parser(name, help=text)
        if only is None or only == name:
            _ARGUMENTS[name](command)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The command argparse will dispatch to: the first word that is not an option.

    The top level has no option that takes a value, so this is exact for
    every command line that names a valid command; for others argparse
    reports the error before any command's parser runs.
    """
    return next((word for word in argv if not word.startswith("-")), None)


def default_manifests(*, bundled: bool) -> Path:
    """``./manifests`` when the project has one, else (``bundled``) those shipped with tooldeck.

    ``list``, ``call`` and ``export`` fall back to the bundled manifests, so
    they work in any directory right after installing; ``lint`` and ``dev``
    do not, since linting tooldeck's own files instead of a project's that is
    missing would pass a CI job that should fail.
    """
    from pathlib import Path

    project = Path("manifests")
    if project.is_dir():
        return project
    if bundled:  # the repository's manifests/ folder, shipped inside the package
        return Path(__file__).resolve().parent.parent / "bundled"
    raise UsageError(f"no manifests given and no ./{project} folder in {Path.cwd()}; pass -m PATH")


class Loaded:
    """The registry a command built and what loading its manifests found."""

    __slots__ = ("registry", "result")

    def __init__(self, registry: ToolRegistry, result: LoadResult) -> None:
        self.registry = registry
        self.result = result


def load(
    args: argparse.Namespace,
    paths: Sequence[Path] | None = None,
    approve: ApprovalCallback | None = None,
    *,
    bundled: bool = True,
) -> Loaded:
    """Build the registry from the command's manifests, config and flags."""
    from pathlib import Path

    from tooldeck._config import load_config
    from tooldeck._registry import ToolRegistry
    from tooldeck.manifest._manifests import load_manifests

    chosen = list(paths or args.manifests or []) or [default_manifests(bundled=bundled)]
    config = load_config(args.config)
    registry = ToolRegistry(
        project_dir=args.project_dir or Path.cwd(), config=config.data, approve=approve
    )
    registry, result = load_manifests(
        chosen,
        registry=registry,
        config=config,
        allowed_handlers=args.allow_handlers,
    )
    return Loaded(registry, result)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments in (["-h"], ["--help"]):  # what argparse would print, without argparse
        sys.stdout.write(top_level_help())
        raise SystemExit(EXIT_OK)  # as argparse's help action does
    args = build_parser(only=_command_word(arguments)).parse_args(arguments)
    from tooldeck.cli._importpath import project_importable_last

    project_importable_last()
    command = COMMANDS[args.command]
    try:
        if args.command in ONE_SHOT:
            return _run_once(command, args, process=argv is None)
        return command(args)
    except UsageError as exc:
        print(f"tooldeck: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


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


def _report_errors(loaded: Loaded) -> bool:
    """Print load errors to stderr (the command still runs); True when there were any."""
    from tooldeck._diagnostics import Severity
    from tooldeck.cli._reporters import get_reporter

    errors = [d for d in loaded.result.diagnostics if d.severity is Severity.ERROR]
    if errors:
        reporter = get_reporter("text", secrets=loaded.registry.secrets)
        text = reporter.render(errors, files_checked=len(loaded.result.files))
        sys.stderr.write(text)
    return bool(errors)


def cmd_lint(args: argparse.Namespace) -> int:
    from tooldeck._diagnostics import Severity
    from tooldeck.cli._reporters import get_reporter
    from tooldeck.manifest._lint import lint, load_settings

    loaded = load(args, args.paths or None, bundled=False)
    settings, setting_problems = load_settings()
    found: list[Diagnostic] = [*setting_problems]
    found.extend(loaded.result.diagnostics)
    found.extend(lint(loaded.result, loaded.registry, settings))
    reporter = get_reporter(args.format, secrets=loaded.registry.secrets)
    sys.stdout.write(reporter.render(found, files_checked=len(loaded.result.files)))
    failing = {Severity.ERROR, Severity.WARNING} if args.strict else {Severity.ERROR}
    return EXIT_PROBLEM if any(d.severity in failing for d in found) else EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    import json

    from tooldeck.providers import definition_tokens, export_tools

    loaded = load(args)
    failed = _report_errors(loaded)
    registry = loaded.registry
    tokens = {
        d["name"]: definition_tokens(d)
        for d in export_tools(registry, "anthropic", include_hosted=False)
    }
    rows = [
        _tool_row(registry, spec, tokens[registry.safe_name(spec.name)])
        for spec in registry.tools()
    ]
    prompts = [
        {
            "name": p.name,
            "role": p.role,
            "description": p.description,
            "bundle": p.bundle,
            "params": [x.name for x in p.params],
            "source": _source(p.origin),
        }
        for p in registry.prompts()
    ]
    servers = [
        {
            "name": s.name,
            "via": s.via,
            "url": s.url,
            "command": list(s.command or []),
            "description": s.description,
            "source": _source(s.origin),
        }
        for s in registry.mcp_servers()
    ]
    search = registry.web_search()
    listing = {
        "tools": rows,
        "prompts": prompts,
        "mcp_servers": servers,
        "web_search": None
        if search is None
        else {
            "type": search.type,
            "city": search.city,
            "country": search.country,
            "region": search.region,
        },
    }
    listing = registry.secrets.redact_data(listing)
    if args.json:
        print(json.dumps(listing, indent=2, ensure_ascii=False))
    else:
        _print_listing(listing)
    return EXIT_PROBLEM if failed else EXIT_OK


def _tool_row(registry: ToolRegistry, spec: Any, tokens: int) -> dict[str, Any]:
    schema = registry.input_schema(spec.name)
    required = set(schema.get("required", []))
    params = [
        {
            "name": name,
            "type": prop.get("type", "any"),
            "required": name in required,
            "description": prop.get("description", ""),
        }
        for name, prop in schema.get("properties", {}).items()
    ]
    return {
        "name": spec.name,
        "bundle": spec.bundle,
        "description": spec.description,
        "params": params,
        "source": _source(spec.origin),
        "tokens": tokens,
        "side_effects": spec.side_effects,
        "return_direct": spec.return_direct,
    }


def _source(origin: Any) -> str | None:
    return None if origin is None else str(origin)


def _print_listing(listing: dict[str, Any]) -> None:
    for row in listing["tools"]:
        params = ", ".join(p["name"] if p["required"] else f"[{p['name']}]" for p in row["params"])
        summary = row["description"].splitlines()[0] if row["description"] else "(no description)"
        where = f"  {row['source']}" if row["source"] else ""
        print(f"{row['name']}({params})  [{row['bundle'] or '-'}]  ~{row['tokens']} tokens{where}")
        print(f"    {summary}")
    for prompt in listing["prompts"]:
        print(f"prompt {prompt['name']} ({prompt['role']})  {prompt['description']}")
    for server in listing["mcp_servers"]:
        target = server["url"] or " ".join(server["command"])
        print(f"mcp server {server['name']} via {server['via']}: {target}")
    if listing["web_search"]:
        print(f"web search: {listing['web_search']['type']}")
    if not listing["tools"]:
        print("no tools", file=sys.stderr)


class TerminalApprover:
    """Shows the exact call and asks y/N; without a terminal, denies and says how to approve.

    ``redact`` is set once the registry exists, so the arguments shown never
    include a secret from the environment (a default filled from ``${env:...}``).
    """

    def __init__(self) -> None:
        self.redact: Callable[[str], str] = str

    def __call__(self, request: ApprovalRequest) -> Decision:
        import json

        from tooldeck._policies import Decision

        if not sys.stdin.isatty():
            return Decision.deny("approval is required; run `tooldeck call` with --yes to approve")
        effect = request.tool.effect or "it changes something outside tooldeck"
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False, default=str)
        sys.stderr.write(
            self.redact(
                f"Tool {request.tool.name!r} has side effects: {effect}.\n"
                f"  arguments: {arguments}\n"
            )
            + "Run it? [y/N] "
        )
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer in ("y", "yes"):
            return Decision.approve()
        return Decision.deny("the user declined at the terminal")


def cmd_call(args: argparse.Namespace) -> int:
    terminal = TerminalApprover()
    loaded = load(args, approve=(lambda _: True) if args.yes else terminal)
    terminal.redact = loaded.registry.secrets.redact
    _report_errors(loaded)
    result = loaded.registry.call(args.name, args.args)
    if result.ok:
        print(result.text)
        return EXIT_OK
    print(result.text, file=sys.stderr)
    return EXIT_PROBLEM


def cmd_export(args: argparse.Namespace) -> int:
    import json

    from tooldeck.providers import export_tools

    loaded = load(args)
    failed = _report_errors(loaded)
    try:
        definitions = export_tools(
            loaded.registry,
            args.provider,
            strict=True if args.strict else None,
            redact=loaded.registry.secrets.redact,
        )
    except ValueError as exc:  # strict mode refuses a schema; the message is already redacted
        print(f"tooldeck: cannot export for {args.provider}: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    print(json.dumps(definitions, indent=2, ensure_ascii=False))
    return EXIT_PROBLEM if failed else EXIT_OK


def cmd_dev(args: argparse.Namespace) -> int:
    """The edit loop: every save prints what changed, or the errors that kept the last good."""
    import asyncio
    import time
    from pathlib import Path

    from tooldeck._config import load_config
    from tooldeck._registry import ToolRegistry
    from tooldeck._reload import watch
    from tooldeck.manifest._events import ReloadEvent

    paths = list(args.manifests or []) or [default_manifests(bundled=False)]
    config = load_config(args.config)
    registry = ToolRegistry(project_dir=args.project_dir or Path.cwd(), config=config.data)
    first = True

    def show(event: ReloadEvent) -> None:
        nonlocal first
        stamp = time.strftime("%H:%M:%S")
        if first:
            first = False
            print(f"[{stamp}] loaded {len(registry)} tools from {len(event.files)} files")
            for line in event.lines():
                if not line.startswith("+ "):
                    print(f"  {line}")
        else:
            lines = event.lines() or ["no change"]
            took = f" in {event.duration * 1000:.0f} ms" if event.ok else ""
            print(f"[{stamp}] {', '.join(Path(f).name for f in event.files)}{took}")
            for line in lines:
                print(f"  {line}")
        sys.stdout.flush()

    def armed() -> None:
        print(f"watching {', '.join(map(str, paths))} (Ctrl-C to stop)", flush=True)

    try:
        asyncio.run(
            watch(
                registry,
                paths,
                config=config,
                allowed_handlers=args.allow_handlers,
                reload_handlers=args.reload_handlers,
                on_reload=show,
                ready=armed,
            )
        )
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    import json

    from tooldeck.manifest._metaschema import manifest_schema

    print(json.dumps(manifest_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK


COMMANDS = {
    "lint": cmd_lint,
    "list": cmd_list,
    "call": cmd_call,
    "export": cmd_export,
    "dev": cmd_dev,
    "schema": cmd_schema,
}
