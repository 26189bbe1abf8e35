"""The assemblers put a streamed reply together from what other servers send too.

The scripted server (tests/integration/test_openai_stream.py) streams as OpenAI does; these
are the variations seen elsewhere: no ``index`` on tool-call pieces, the name repeated in every
piece, a stream that breaks off, an ``error`` event.
"""

from __future__ import annotations

from types import SimpleNamespace as N

import pytest

from tooldeck import ToolDeckError
from tooldeck.providers._loop.assembly import ChatAssembler, ResponsesAssembler
from tooldeck.providers._loop.chat import CHAT
from tooldeck.providers.openai import TextDelta, ToolCallDelta


def chunk(tool_calls=None, content=None, finish=None, usage=None):
    delta = N(content=content, refusal=None, tool_calls=tool_calls)
    choice = N(index=0, finish_reason=finish, delta=delta)
    return N(id="c", model="m", created=1, usage=usage, choices=[choice])


def piece(index, call_id, name, arguments):
    return N(index=index, id=call_id, function=N(name=name, arguments=arguments))


def test_pieces_without_an_index_start_a_call_at_each_new_id():
    made = ChatAssembler(3)
    made.feed(chunk([piece(None, "a", "f", '{"x"')]))
    made.feed(chunk([piece(None, None, None, ": 1}")]))
    assert made.feed(chunk([piece(None, "b", "g", "{}")])) == [ToolCallDelta(3, "b", "g", "{}")]
    made.feed(chunk(finish="tool_calls"))
    reply = CHAT.parse(made.finish())
    assert [(c.call_id, c.name, c.arguments) for c in reply.calls] == [
        ("a", "f", '{"x": 1}'),
        ("b", "g", "{}"),
    ]


def test_a_name_repeated_in_every_piece_is_kept_once_and_text_is_joined():
    made = ChatAssembler(1)
    assert made.feed(chunk(content="Hel")) == [TextDelta(1, "Hel")]
    made.feed(chunk(content="lo"))
    made.feed(chunk([piece(0, "a", "f", "{")]))
    made.feed(chunk([piece(0, "a", "f", "}")]))
    made.feed(chunk(finish="tool_calls", usage=N(prompt_tokens=4, completion_tokens=2)))
    reply = CHAT.parse(made.finish())
    assert reply.text == "Hello"
    assert [(c.name, c.arguments) for c in reply.calls] == [("f", "{}")]
    assert (reply.usage.input_tokens, reply.usage.total_tokens) == (4, 6)


def test_a_stream_that_breaks_off_or_reports_an_error_raises():
    chat = ChatAssembler(1)
    chat.feed(chunk(content="Hel"))
    with pytest.raises(ToolDeckError, match="finish_reason"):
        chat.finish()
    responses = ResponsesAssembler(1)
    responses.feed(N(type="response.output_text.delta", delta="Hi"))
    with pytest.raises(ToolDeckError, match=r"response\.completed"):
        responses.finish()
    with pytest.raises(ToolDeckError, match="overloaded"):
        responses.feed(N(type="error", message="overloaded", code=None))
