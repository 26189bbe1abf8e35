"""``tooldeck chat``: talk to an OpenAI-compatible model that calls the manifests' tools.

For trying manifests against a real endpoint: the ``openai`` client reads
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``, so vLLM, Ollama or LM Studio work
as well as OpenAI (without a key but with a base URL, a placeholder key is
sent: local servers take any). With a question it answers that one; without,
it reads one question per line from standard input until end of file, and
the conversation goes on from one question to the next.

Standard output carries only the answers, so they can be piped; each
answer is written as the model streams it (every request is streamed), a
secret in it still shown as ``***`` (:mod:`._answer`). Each tool call and its
result go to standard error as they come back (``-> name {arguments}``, then
``<- result``), with warnings and errors. Side effects
are approved at the terminal, or with ``--yes``; without a terminal they are
denied and the model is told so.

Exit code: 0 when every question got an answer, 1 when a request failed, a
conversation ran out of turns or a manifest had errors, 2 for usage errors.
"""

from __future__ import annotations

import sys

from ._common import (
    EXIT_OK,
    EXIT_PROBLEM,
    UsageError,
    add_common,
    add_media_cap,
    load,
    report_errors,
)

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterator
    from typing import Any

    from .._registry import ToolRegistry
    from ..providers import ExportWarning
    from ..providers._loop import LoopCall, LoopResult
    from ._answer import AnswerWriter


__all__ = ["add_arguments", "run"]

SHOWN_CHARS = 2000
"""Arguments or a result longer than this are cut on standard error (the model gets all)."""


def add_arguments(chat: argparse.ArgumentParser) -> None:
    from ._attached import add_connect_options

    add_common(chat)
    add_media_cap(chat)
    add_connect_options(chat)
    chat.add_argument(
        "question",
        nargs="?",
        help="what to ask; without it, one question per line is read from standard input",
    )
    chat.add_argument("--model", required=True, help="model name, as the server knows it")
    chat.add_argument(
        "--api",
        choices=("responses", "chat"),
        default="responses",
        help="Responses (default) or Chat Completions",
    )
    chat.add_argument(
        "--max-turns",
        type=int,
        default=10,
        metavar="N",
        help="model requests per question at most (default: 10)",
    )
    chat.add_argument(
        "--max-tool-calls",
        type=int,
        default=64,  # providers._loop.DEFAULT_MAX_TOOL_CALLS, not imported to parse arguments
        metavar="N",
        help="tool calls run per model reply at most; the rest are answered with an error "
        "(default: 64)",
    )
    for flag, dest, what in (
        ("--bundle", "bundles", "the tools of this bundle"),
        ("--tag", "tags", "the tools with this tag"),
        ("--tool", "names", "this tool (or hosted entry: web_search, an MCP server's name)"),
    ):
        chat.add_argument(
            flag,
            dest=dest,
            action="append",
            metavar=flag[2:].upper(),
            help=f"offer {what}; repeatable, and all selectors add up (default: everything)",
        )
    from ._serve_settings import add_toolset_argument

    add_toolset_argument(chat, "offer")
    chat.add_argument("--instructions", metavar="TEXT", help="system instructions for the model")
    chat.add_argument(
        "--yes",
        action="store_true",
        help="approve tools with side effects without asking (non-interactive use)",
    )


def run(args: argparse.Namespace) -> int:
    import os

    from ._attached import with_attached
    from ._call_cmd import TerminalApprover

    if args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if args.max_tool_calls < 1:
        raise UsageError("--max-tool-calls must be at least 1")
    from ._serve_settings import selectors_from_toolset

    selectors_from_toolset(args)
    terminal = TerminalApprover("chat")
    loaded = load(args, approve=(lambda _: True) if args.yes else terminal)
    registry = loaded.registry
    terminal.redact = registry.secrets.redact
    failed = report_errors(loaded)
    client = _client()
    if os.environ.get("OPENAI_API_KEY"):  # the environment's key: never printed, as any secret
        registry.secrets.add(client.api_key)
    with client, registry:  # connections and worker threads end with the command
        ok = with_attached(registry, args, lambda _: _converse(client, registry, args))
    return EXIT_OK if ok and not failed else EXIT_PROBLEM


def _client() -> Any:
    """``openai.OpenAI()`` from the environment; a base URL alone is enough (local servers)."""
    import os

    import openai

    options: dict[str, Any] = {}
    if not os.environ.get("OPENAI_API_KEY") and os.environ.get("OPENAI_BASE_URL"):
        options["api_key"] = "unused"  # Ollama, vLLM, LM Studio: any key is accepted
    try:
        return openai.OpenAI(**options)
    except openai.OpenAIError:
        raise UsageError(
            "set OPENAI_API_KEY (and OPENAI_BASE_URL for a server other than OpenAI's)"
        ) from None


def _converse(client: Any, registry: ToolRegistry, args: argparse.Namespace) -> bool:
    """Ask each question in turn, the conversation carried over; False if one failed."""
    import openai

    from .._errors import ExportError, ToolDeckError
    from .._secrets import mask_tokens
    from ..providers._loop import MaxTurnsExceeded
    from ._answer import AnswerWriter

    options: dict[str, Any] = {}
    transcript: list[dict[str, Any]] = []
    if args.instructions and args.api == "responses":
        options["instructions"] = args.instructions
    elif args.instructions:
        transcript.append({"role": "system", "content": args.instructions})
    warned: set[str] = set()

    def warn(warning: ExportWarning) -> None:
        message = str(warning)
        if message not in warned:  # once per command, not once per question
            warned.add(message)
            sys.stderr.write(f"tooldeck: warning: {message}\n")

    def redact(text: str) -> str:
        return mask_tokens(registry.secrets.redact(text))

    show = _shower(redact)
    ok = True
    questions = [args.question] if args.question is not None else _questions()
    for question in questions:
        answer = AnswerWriter(sys.stdout, redact, registry.secrets.longest)
        try:
            result = _ask(
                client,
                registry,
                args,
                [*transcript, {"role": "user", "content": question}],
                answer=answer,
                show=show,
                warn=warn,
                options=options,
            )
        except MaxTurnsExceeded as exc:
            answer.end()
            sys.stderr.write(f"tooldeck: {exc}\n")
            transcript = exc.transcript  # the calls were made: the model may sum up next time
            ok = False
            continue
        except ExportError as exc:
            if exc.tool_name is None:  # a selector that matches nothing: the command line
                raise UsageError(f"chat: {exc}") from None
            sys.stderr.write(f"tooldeck: cannot send the tools: {exc}\n")
            return False
        except (openai.OpenAIError, ToolDeckError) as exc:  # may quote the Authorization
            answer.end()  # what came of a reply that broke off stays on its own line
            sys.stderr.write(redact(f"tooldeck: the model request failed: {exc}") + "\n")
            ok = False
            continue
        transcript = result.transcript
    return ok


def _ask(
    client: Any,
    registry: ToolRegistry,
    args: argparse.Namespace,
    conversation: list[dict[str, Any]],
    *,
    answer: AnswerWriter,
    show: Callable[[LoopCall], None],
    warn: Callable[[ExportWarning], None],
    options: dict[str, Any],
) -> LoopResult:
    """One question: the answer written as it streams in, each call shown once its result is in.

    Each reply's text goes to standard output as it arrives and ends its
    line when the reply ends, so text the model writes beside its calls shows
    too; an answer that is not streamed text (a ``return_direct`` tool's
    result, or an empty reply) is written whole at the end, as before.
    """
    from contextlib import closing

    from ..providers._loop import Finished, TextDelta, ToolCallFinished, TurnFinished, stream

    events = stream(
        client,
        model=args.model,
        input=conversation,
        registry=registry,
        api=args.api,
        max_turns=args.max_turns,
        max_tool_calls_per_turn=args.max_tool_calls,
        tools=args.names,
        bundles=args.bundles,
        tags=args.tags,
        on_warning=warn,
        **options,
    )
    streamed = False  # whether the last reply's text was written as it came
    with closing(events):
        for event in events:
            if isinstance(event, TextDelta):
                answer.write(event.text)
            elif isinstance(event, TurnFinished):
                streamed = answer.end()
            elif isinstance(event, ToolCallFinished):
                show(event.call)
            elif isinstance(event, Finished):
                result = event.result
                if result.return_direct or not streamed:
                    sys.stdout.write(answer.redact(result.text) + "\n")
                    sys.stdout.flush()
                return result
    raise AssertionError("the loop's events end with Finished")  # pragma: no cover


def _questions() -> Iterator[str]:
    """Lines of standard input, blank ones skipped; a ``> `` prompt on a terminal."""
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            sys.stderr.write("> ")
            sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            return
        if line.strip():
            yield line.rstrip("\n")


def _shower(redact: Callable[[str], str]) -> Callable[[LoopCall], None]:
    """What prints each call and its result on standard error.

    ``-> name arguments`` then ``<- result``: the arguments and the result are
    redacted, then cut at :data:`SHOWN_CHARS` and their further lines
    indented, so neither can pass for a line of its own; the name the model
    sent is kept to one line.
    """
    from ._terminal import one_line

    def show(call: LoopCall) -> None:
        name = one_line(redact(call.name))
        arguments = _shown(redact(call.arguments))
        result = _shown(redact(call.result.text))
        sys.stderr.write(f"-> {name} {arguments}\n<- {result}\n")
        sys.stderr.flush()

    return show


def _shown(text: str) -> str:
    """``text`` cut at :data:`SHOWN_CHARS` (saying how much more there was), lines indented."""
    from .._words import plural

    if len(text) > SHOWN_CHARS:
        more = plural(len(text) - SHOWN_CHARS, "more character", "more characters")
        text = f"{text[:SHOWN_CHARS]}... ({more})"
    return text.replace("\n", "\n   ")
