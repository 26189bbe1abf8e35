"""The Chat Completions side of the loop: ``client.chat.completions.create`` and its messages.

Each reply's first choice becomes an assistant message in the transcript,
spelled explicitly (``content`` when there is some, ``tool_calls`` with id,
name and arguments) rather than dumped, so what goes back is what every
OpenAI-compatible server takes, whatever extra fields its replies carry.
Each output is a ``role: tool`` message with the call's ``tool_call_id``;
tool messages take text only, so a result with images, audio or files sends
its text, where each of them is a notice (``[image: image/png, 12.3 KB]``).
Chat Completions has no hosted tools: the exporter's hosted entries are
left out with a warning (by :mod:`.conversation`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .records import HostedApproval, LoopCall, ModelCall, Reply, Usage

if TYPE_CHECKING:
    from ..._calling import Decision

__all__ = ["CHAT", "ChatApi"]


class ChatApi:
    """:class:`~tooldeck.providers._loop.loop.Api` for ``client.chat.completions``."""

    name = "chat"
    provider = "openai-chat"
    takes_hosted = False
    reserved = frozenset({"model", "messages", "tools", "stream"})

    transcript_key = "messages"

    def create(self, client: Any) -> Callable[..., Any]:
        return client.chat.completions.create  # type: ignore[no-any-return]

    def parse(self, response: Any) -> Reply:
        choices = getattr(response, "choices", None) or ()
        message = getattr(choices[0], "message", None) if choices else None
        usage = _usage(response)
        if message is None:
            return Reply("", [], usage=usage)
        text = message.content or getattr(message, "refusal", None) or ""
        assistant: dict[str, Any] = {"role": "assistant"}
        if message.content is not None:
            assistant["content"] = message.content
        calls: list[ModelCall] = []
        sent: list[dict[str, Any]] = []
        for index, tool_call in enumerate(getattr(message, "tool_calls", None) or ()):
            call_id = tool_call.id or f"call_{index}"
            function = getattr(tool_call, "function", None)
            if function is not None:  # the only kind the loop offers
                name, arguments = function.name, function.arguments or ""
                sent.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                )
            else:  # a custom tool call: answered as a call to an unknown tool
                custom = getattr(tool_call, "custom", None)
                name = getattr(custom, "name", "") or ""
                arguments = getattr(custom, "input", "") or ""
                sent.append(tool_call.to_dict(mode="json"))
            calls.append(ModelCall(call_id, name, arguments))
        if sent:
            assistant["tool_calls"] = sent
        elif "content" not in assistant:
            assistant["content"] = text
        return Reply(text, [assistant], calls, [], usage)

    def outputs(self, calls: Sequence[LoopCall]) -> list[dict[str, Any]]:
        return [
            {"role": "tool", "tool_call_id": call.call_id, "content": call.result.text}
            for call in calls
        ]

    def approval_items(
        self, answered: Sequence[tuple[HostedApproval, Decision]]
    ) -> list[dict[str, Any]]:
        return []  # no hosted tools here, so never asked

    def answer(self, text: str) -> dict[str, Any]:
        return {"role": "assistant", "content": text}


CHAT = ChatApi()


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    taken = _count(usage, "prompt_tokens")
    given = _count(usage, "completion_tokens")
    total = _count(usage, "total_tokens") or taken + given
    return Usage(taken, given, total, 1)


def _count(usage: Any, key: str) -> int:
    value = getattr(usage, key, None)
    return value if isinstance(value, int) else 0
