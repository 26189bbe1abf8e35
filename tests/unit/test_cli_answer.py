"""``AnswerWriter``: a streamed answer written piece by piece, never showing a secret.

Every way of cutting the text into pieces must give the same output as
redacting the whole answer at once, and each write is flushed at once.
"""

from __future__ import annotations

import io
import itertools

from tooldeck._secrets import MASK, Secrets, mask_tokens
from tooldeck.cli._answer import AnswerWriter

SECRET = "hunter2-very-secret"


class Recorder(io.StringIO):
    """Standard output that remembers each write and whether a flush followed it."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[str] = []

    def write(self, text: str) -> int:
        self.log.append(text)
        return super().write(text)

    def flush(self) -> None:
        self.log.append("<flush>")
        super().flush()


def writer(out: io.StringIO) -> tuple[AnswerWriter, Secrets]:
    secrets = Secrets()
    secrets.add(SECRET)
    return AnswerWriter(out, lambda t: mask_tokens(secrets.redact(t)), secrets.longest), secrets


def cuts(text: str, n: int):
    """``text`` cut into ``n`` pieces at every combination of places (some pieces empty)."""
    for places in itertools.combinations_with_replacement(range(len(text) + 1), n - 1):
        bounds = (0, *places, len(text))
        yield [text[a:b] for a, b in itertools.pairwise(bounds)]


def test_a_secret_or_a_token_split_anywhere_is_masked_as_in_the_whole_text():
    text = f"key {SECRET} and Bearer abcdefgh123 done"
    _, secrets = writer(io.StringIO())
    expected = mask_tokens(secrets.redact(text)) + "\n"
    assert SECRET not in expected
    assert "abcdefgh123" not in expected
    for pieces in itertools.chain(cuts(text, 2), cuts(text, 3)):
        out = Recorder()
        answer, _ = writer(out)
        for piece in pieces:
            answer.write(piece)
            assert SECRET[:6] not in out.getvalue()  # not even its start, while it arrives
            assert "abcdefgh" not in out.getvalue()
        assert answer.end()
        assert out.getvalue() == expected
        assert expected.count(MASK) == 2


def test_each_write_is_flushed_and_text_shows_before_the_reply_ends():
    out = Recorder()
    answer, _ = writer(out)
    for word in ["The ", "weather ", "is ", "fine ", "today ", "in ", "Paris."]:
        answer.write(word)
    shown = out.getvalue()
    assert shown.startswith("The weather is")  # written while the reply still arrives
    assert not shown.endswith("Paris.")
    assert answer.end()
    assert out.getvalue() == "The weather is fine today in Paris.\n"
    writes = [i for i, entry in enumerate(out.log) if entry != "<flush>"]
    assert all(out.log[i + 1] == "<flush>" for i in writes)
    assert len(writes) > 2


def test_a_carriage_return_waits_for_what_follows_and_an_empty_reply_writes_nothing():
    out = io.StringIO()
    answer, _ = writer(out)
    assert not answer.end()
    for piece in ["one two three four five six seven\r", "\nnext line here"]:
        answer.write(piece)
        assert not out.getvalue().endswith("\r")
    answer.end()
    assert out.getvalue() == "one two three four five six seven\r\nnext line here\n"


def test_a_long_answer_lets_its_written_start_go_and_still_masks_everything():
    text = "".join(
        f"line {n}: {SECRET if n % 3 else 'Bearer abcdefgh' + str(n)} then words\n"
        for n in range(200)
    )
    _, secrets = writer(io.StringIO())
    expected = mask_tokens(secrets.redact(text)) + "\n"
    for size in (1, 7, 64):
        out = io.StringIO()
        answer, _ = writer(out)
        for start in range(0, len(text), size):
            answer.write(text[start : start + size])
            assert SECRET[:6] not in out.getvalue()
        assert len(answer._text) < len(text) // 4  # the start was let go
        answer.end()
        assert out.getvalue() == expected
