"""A streamed reply, read event by event: the deltas to show, and the whole reply at the end.

``create(..., stream=True)`` gives server-sent events instead of one
response object. An assembler reads them in order, says which pieces of
text and call arguments each one carries (:class:`~.events.TextDelta`,
:class:`~.events.ToolCallDelta`), and once the stream ends hands over an
object the API adapter's ``parse()`` reads exactly as it reads a reply
that was not streamed, so the turn logic never knows the difference.

* Responses: the ``response.completed`` event (or ``response.incomplete`` /
  ``response.failed``) carries the whole response object; the deltas only
  feed the events. A function call's argument deltas name its output item,
  so the item's ``call_id`` and ``name`` are remembered from
  ``response.output_item.added``.
* Chat Completions: nothing carries the whole reply, so the first choice's
  ``content``, ``refusal`` and ``tool_calls`` (by ``index``: the first piece
  has the id and name, the others argument text) are put together, and the
  usage comes from the last chunk (``stream_options.include_usage``), into a
  :class:`StreamedCompletion` shaped like a ``ChatCompletion``.

Like the adapters, nothing here imports ``openai``: events are read by attribute.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from ..._errors import ToolDeckError
from .events import TextDelta, ToolCallDelta

__all__ = [
    "Assembler",
    "ChatAssembler",
    "ResponsesAssembler",
    "StreamedCompletion",
    "assembler_for",
]

Delta = TextDelta | ToolCallDelta


class Assembler(Protocol):
    """Reads one streamed reply."""

    def feed(self, event: Any) -> list[Delta]:
        """The deltas ``event`` carries (often none), in order."""
        ...

    def finish(self) -> Any:
        """The whole reply, for the adapter's ``parse()``; raises if the stream broke off."""
        ...


def assembler_for(api: str, turn: int) -> Assembler:
    """A fresh assembler for one reply of ``api`` (``responses`` or ``chat``)."""
    return ChatAssembler(turn) if api == "chat" else ResponsesAssembler(turn)


# ------------------------------------------------------------------- Responses
_FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


class ResponsesAssembler:
    """The Responses API's events; the final one holds the response object."""

    def __init__(self, turn: int) -> None:
        self.turn = turn
        self._calls: dict[str, tuple[str, str]] = {}
        """Output item id -> (call_id, name) of each function call seen so far."""
        self._final: Any = None

    def feed(self, event: Any) -> list[Delta]:
        kind = getattr(event, "type", None)
        if kind == "response.output_text.delta":
            return [TextDelta(self.turn, event.delta)] if event.delta else []
        if kind == "response.function_call_arguments.delta":
            call_id, name = self._calls.get(event.item_id, (event.item_id, ""))
            return [ToolCallDelta(self.turn, call_id, name, event.delta)] if event.delta else []
        if kind == "response.output_item.added":
            item = event.item
            if getattr(item, "type", None) == "function_call":
                key = str(getattr(item, "id", None) or item.call_id)
                self._calls[key] = (str(item.call_id or key), item.name)
        elif kind in _FINAL:
            self._final = event.response
        elif kind == "error":
            message = getattr(event, "message", None) or "no message"
            raise ToolDeckError(f"the model's response stream reported an error: {message}")
        return []

    def finish(self) -> Any:
        if self._final is None:
            raise ToolDeckError("the model's response stream ended before response.completed")
        return self._final


# ------------------------------------------------------------ Chat Completions
@dataclass(slots=True)
class StreamedFunction:
    name: str
    arguments: str


@dataclass(slots=True)
class StreamedToolCall:
    id: str
    function: StreamedFunction
    type: str = "function"


@dataclass(slots=True)
class StreamedMessage:
    content: str | None
    refusal: str | None
    tool_calls: list[StreamedToolCall] | None
    role: str = "assistant"


@dataclass(slots=True)
class StreamedChoice:
    message: StreamedMessage
    finish_reason: str | None
    index: int = 0


@dataclass(slots=True)
class StreamedCompletion:
    """A streamed Chat Completions reply put together: read like a ``ChatCompletion``.

    ``LoopResult.response`` of a streamed Chat Completions conversation; the
    ``usage`` is the SDK's own object from the last chunk (None when the
    server sent none). ``to_dict()`` gives it as plain data.
    """

    id: str
    model: str
    created: int
    choices: list[StreamedChoice]
    usage: Any = None
    object: str = "chat.completion"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        dump = getattr(self.usage, "to_dict", None)
        out["usage"] = dump() if callable(dump) else None
        return out


@dataclass(slots=True)
class _Slot:
    """One tool call being put together, by its ``index``."""

    position: int
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    @property
    def call_id(self) -> str:
        return self.id or f"call_{self.position}"  # as chat.parse() names a call without id


class ChatAssembler:
    """Chat Completions chunks; only the first choice counts, as in ``parse()``."""

    def __init__(self, turn: int) -> None:
        self.turn = turn
        self._content: list[str] | None = None
        self._refusal: list[str] | None = None
        self._slots: dict[int, _Slot] = {}
        """By the chunks' ``index`` (negative: a server that sent none)."""
        self._finish: str | None = None
        self._usage: Any = None
        self._head: tuple[str, str, int] | None = None
        self._done = False

    def feed(self, event: Any) -> list[Delta]:
        if self._head is None:
            self._head = (str(event.id or ""), str(event.model or ""), int(event.created or 0))
        if getattr(event, "usage", None) is not None:
            self._usage = event.usage
        out: list[Delta] = []
        for choice in getattr(event, "choices", None) or ():
            if choice.index != 0:
                continue
            if choice.finish_reason:
                self._finish = choice.finish_reason
                self._done = True
            delta = choice.delta
            if delta is None:
                continue
            if delta.content is not None:
                self._content = self._content if self._content is not None else []
                self._content.append(delta.content)
                if delta.content:
                    out.append(TextDelta(self.turn, delta.content))
            if getattr(delta, "refusal", None) is not None:
                self._refusal = self._refusal if self._refusal is not None else []
                self._refusal.append(delta.refusal)
                if delta.refusal:
                    out.append(TextDelta(self.turn, delta.refusal))
            for piece in delta.tool_calls or ():
                out.extend(self._tool_call(piece))
        return out

    def _tool_call(self, piece: Any) -> list[Delta]:
        key = getattr(piece, "index", None)
        if key is None:  # a server that leaves index out: a new id is a new call
            last = list(self._slots)[-1] if self._slots else None
            fresh = piece.id and (last is None or self._slots[last].id not in ("", piece.id))
            key = -len(self._slots) - 1 if fresh or last is None else last
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(len(self._slots))
        if piece.id and not slot.id:
            slot.id = piece.id
        function = piece.function
        if function is None:
            return []
        if function.name and not slot.name:  # some servers repeat the name in every piece
            slot.name = function.name
        if not function.arguments:
            return []
        slot.arguments.append(function.arguments)
        return [ToolCallDelta(self.turn, slot.call_id, slot.name, function.arguments)]

    def finish(self) -> StreamedCompletion:
        if self._head is None or not self._done:
            raise ToolDeckError("the model's response stream ended before its finish_reason")
        calls = [
            StreamedToolCall(s.call_id, StreamedFunction(s.name, "".join(s.arguments)))
            for s in sorted(self._slots.values(), key=lambda s: s.position)
        ]
        content = None if self._content is None else "".join(self._content)
        if calls and not content:
            content = None  # a calls-only reply: no content, as a whole reply spells it
        refusal = None if self._refusal is None else "".join(self._refusal)
        message = StreamedMessage(content, refusal, calls or None)
        return StreamedCompletion(
            *self._head, [StreamedChoice(message, self._finish)], usage=self._usage
        )
