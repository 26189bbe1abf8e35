"""The Responses API's side of the loop: ``client.responses.create`` and its items.

The whole input is sent on every turn, the model's output items included
(``previous_response_id`` would need a server that stores responses, which
most OpenAI-compatible ones do not): the reply's items are dumped as the
server sent them (``to_dict()``: its own keys, nothing the SDK filled in)
and appended, then one ``function_call_output`` per call, keyed by the
model's ``call_id``; a result with images or files sends them as
``input_image`` / ``input_file`` items of that output (audio, which the API
does not take there, as its text notice). Hosted entries (web search, ``via: hosted`` MCP servers)
are sent as the exporter gives them; a hosted server's
``mcp_approval_request`` is answered with an ``mcp_approval_response``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._media import responses_output
from .records import HostedApproval, LoopCall, ModelCall, Reply, Usage

if TYPE_CHECKING:
    from ..._calling import Decision

__all__ = ["RESPONSES", "ResponsesApi"]


class ResponsesApi:
    """:class:`~tooldeck.providers._loop.loop.Api` for ``client.responses``."""

    name = "responses"
    provider = "openai-responses"
    takes_hosted = True
    reserved = frozenset({"model", "input", "tools", "stream", "previous_response_id"})

    transcript_key = "input"

    def create(self, client: Any) -> Callable[..., Any]:
        return client.responses.create  # type: ignore[no-any-return]

    def parse(self, response: Any) -> Reply:
        items: list[dict[str, Any]] = []
        calls: list[ModelCall] = []
        approvals: list[HostedApproval] = []
        for item in getattr(response, "output", None) or ():
            items.append(_dumped(item))
            kind = getattr(item, "type", None)
            if kind == "function_call":
                calls.append(
                    ModelCall(str(item.call_id or item.id or ""), item.name, item.arguments or "")
                )
            elif kind == "mcp_approval_request":
                approvals.append(
                    HostedApproval(item.id, item.server_label, item.name, item.arguments or "")
                )
        return Reply(_text(response), items, calls, approvals, _usage(response))

    def outputs(self, calls: Sequence[LoopCall]) -> list[dict[str, Any]]:
        return [
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": responses_output(call.result),
            }
            for call in calls
        ]

    def approval_items(
        self, answered: Sequence[tuple[HostedApproval, Decision]]
    ) -> list[dict[str, Any]]:
        out = []
        for approval, decision in answered:
            item: dict[str, Any] = {
                "type": "mcp_approval_response",
                "approval_request_id": approval.id,
                "approve": decision.approved,
            }
            if not decision.approved and decision.reason:
                item["reason"] = decision.reason
            out.append(item)
        return out

    def answer(self, text: str) -> dict[str, Any]:
        return {"role": "assistant", "content": text}


RESPONSES = ResponsesApi()


def _dumped(item: Any) -> dict[str, Any]:
    """An output item as an input item: the keys the server sent, under their API names."""
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return to_dict(mode="json")  # type: ignore[no-any-return]
    return dict(item)


def _text(response: Any) -> str:
    """``response.output_text``: every ``output_text`` part of the reply's messages, joined."""
    text = getattr(response, "output_text", None)
    return text if isinstance(text, str) else ""


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    taken = _count(usage, "input_tokens")
    given = _count(usage, "output_tokens")
    total = _count(usage, "total_tokens") or taken + given
    return Usage(taken, given, total, 1)


def _count(usage: Any, key: str) -> int:
    value = getattr(usage, key, None)
    return value if isinstance(value, int) else 0
