"""A model's answer written as it arrives, with every secret still shown as ``***``.

``tooldeck chat`` writes each piece of text the model streams at once, but
redaction needs whole values: a secret (or a ``Bearer`` token) may arrive
split over several pieces, and a piece written before the rest came would
show its start. So :class:`AnswerWriter` redacts the whole text of the turn
so far each time, and writes what is sure not to change any more: all but the
last ``longest`` characters (the registry's longest secret form, so one still
completing is never shown), and never the last two words (``Bearer`` and a
token still arriving). The rest follows with the next pieces, and all of it
when the reply ends. The pieces are written to standard output, whose
:class:`~tooldeck.cli._terminal.EscapingWriter` escapes control characters
as for any other text; a ``\\r`` is held until what follows it is known (a
``\\r\\n`` is a line end, a lone ``\\r`` is escaped).

Imports only :mod:`sys` at module level, like every CLI module.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

__all__ = ["AnswerWriter"]


_SETTLED = 512
"""Written characters past which the start of the text is let go (see :meth:`_settle`)."""


class AnswerWriter:
    """Writes one turn's text at a time to ``out`` as it comes, redacted, flushed per piece."""

    def __init__(self, out: TextIO, redact: Callable[[str], str], longest: int) -> None:
        self.out = out
        self.redact = redact
        self.longest = longest
        self._text = ""
        """The reply's text, less a start already written that no later piece can change."""
        self._written = 0
        """Characters of ``redact(self._text)`` already written."""
        self._any = False

    def write(self, piece: str) -> None:
        """Take the next piece of the answer; write what is now safe to show."""
        if not piece:
            return
        self._any = True
        self._text += piece
        shown = self.redact(self._text)
        end = _safe_end(shown, self.longest)
        if end > self._written:
            self.out.write(shown[self._written : end])
            self.out.flush()
            self._written = end
        if self._written > _SETTLED + self.longest:
            self._settle(shown)

    def end(self) -> bool:
        """The reply is over: write the rest and end the line; False if it had no text."""
        if not self._any:
            return False
        shown = self.redact(self._text)
        self.out.write(shown[self._written :] + "\n")
        self.out.flush()
        self._text, self._written, self._any = "", 0, False
        return True

    def _settle(self, shown: str) -> None:
        """Let go of the first half of the text if it redacts alone as it does in the whole.

        So each piece redacts a bounded text, not the whole answer again (a long
        answer would cost time quadratic in its length). The cut is at a
        whitespace, more than ``longest`` characters from the end (a secret
        still arriving starts after it), and is only made when redacting the
        two halves apart gives exactly what redacting them together gave (no
        secret or ``Bearer`` token spans it) and the first half is all written.
        """
        text = self._text
        cut = min(len(text) // 2, len(text) - self.longest - 1)
        while cut > 0 and not text[cut - 1].isspace():
            cut -= 1
        if cut <= 0:
            return
        head, rest = self.redact(text[:cut]), self.redact(text[cut:])
        if len(head) <= self._written and head + rest == shown:
            self._text = text[cut:]
            self._written -= len(head)


def _safe_end(shown: str, longest: int) -> int:
    """Where the part of ``shown`` that later pieces cannot change ends."""
    end = len(shown) - longest
    words = 0
    at = len(shown)
    while at > 0 and shown[at - 1].isspace():  # trailing whitespace
        at -= 1
    while at > 0 and words < 2:
        while at > 0 and not shown[at - 1].isspace():  # a word
            at -= 1
        words += 1
        if words < 2:
            while at > 0 and shown[at - 1].isspace():
                at -= 1
    end = max(0, min(end, at))
    if end > 0 and shown[end - 1] == "\r":  # maybe half of a \r\n
        end -= 1
    return end
