"""``tooldeck call``: call one tool; side effects are approved at the terminal or with --yes."""

from __future__ import annotations

import sys

from ._common import (
    EXIT_OK,
    EXIT_PROBLEM,
    add_allow_errors,
    add_common,
    add_media_cap,
    load,
    refuse_broken,
)

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from .._calling import ApprovalRequest, Decision
    from .._registry import ToolRegistry


__all__ = ["add_arguments", "run"]


def add_arguments(call: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options

    add_common(call)
    add_media_cap(call)
    add_allow_errors(call)
    add_connect_options(call)
    call.add_argument("name", help="tool name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument(
        "--yes",
        action="store_true",
        help="approve a tool with side effects without asking (non-interactive use)",
    )


class TerminalApprover:
    """Shows the exact call and asks y/N; without a terminal, denies and says how to approve.

    ``redact`` is set once the registry exists, so the arguments shown never
    include a secret from the environment (a default filled from ``${env:...}``).
    ``command`` is the one the denial's hint names (``tooldeck chat`` reuses this).
    """

    def __init__(self, command: str = "call") -> None:
        self.redact: Callable[[str], str] = str
        self.command = command

    def __call__(self, request: ApprovalRequest) -> Decision:
        import json

        from .._calling import Decision
        from ._terminal import quoted

        if not sys.stdin.isatty():
            return Decision.deny(
                f"approval is required; run `tooldeck {self.command}` with --yes to approve"
            )
        effect = request.tool.effect or "it changes something outside tooldeck"
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False, default=str)
        sys.stderr.write(
            self.redact(
                f"Tool {quoted(request.tool.name)} has side effects: {effect}.\n"
                f"  arguments: {arguments}\n"
            )
            + "Run it? [y/N] "
        )
        sys.stderr.flush()
        answer = sys.stdin.readline().strip().lower()
        if answer in ("y", "yes"):
            return Decision.approve()
        return Decision.deny("the user declined at the terminal")


def _servers_needed(registry: ToolRegistry, name: str) -> list[str] | None:
    """The attached servers a call of ``name`` needs: none for a local tool, the owner of
    a ``use:`` entry, all of them (None) for a name only a server's listing can have.

    A local tool keeps its name whatever the servers list (tooldeck._shadowing),
    so calling one starts no server: 0.3 s instead of seconds per server.
    """
    use = registry.tool_use(name)
    if use is not None:
        return [use.server]
    if registry.get_tool(name) is not None:
        return []
    return None


def run(args: argparse.Namespace) -> int:
    terminal = TerminalApprover()
    loaded = load(args, approve=(lambda _: True) if args.yes else terminal)
    terminal.redact = loaded.registry.secrets.redact
    refuse_broken(loaded, args)
    from ._attached import with_attached

    registry = loaded.registry
    with registry:  # its worker threads end with the command, in-process too
        result = with_attached(
            registry,
            args,
            lambda _: registry.call(args.name, args.args),
            only=_servers_needed(registry, args.name),
        )
    if result.ok:
        print(result.text)
        return EXIT_OK
    print(result.text, file=sys.stderr)
    return EXIT_PROBLEM
