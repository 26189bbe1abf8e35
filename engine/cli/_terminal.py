"""Text from outside tooldeck, shown as text: control characters escaped at the CLI's edge.

Tool names, descriptions, results, arguments, model answers and server errors
come from manifests, attached MCP servers and models. Written as they are, a
control character in them is an instruction to the terminal: ESC starts the
sequences that clear the screen (``ESC [2J``), set the window title
(``ESC ]0;...``), write the clipboard (OSC 52) or hide text; a C1 character
is such a sequence in one code point (U+009B is CSI to terminals that read
C1); a carriage return goes back over the line; a bidi override (U+202A-U+202E,
U+2066-U+2069) reorders what is displayed, so text can hide other text.

**The convention**: each such character is written as ``\\uXXXX``, its code
point in four hex digits (ESC is ``\\u001b``, CSI ``\\u009b``, a right-to-left
override ``\\u202e``). That is JSON's own spelling, so a JSON document (``list
--json``, ``export``, ``lint --format json``, a tool result that is JSON) that
passes through stays valid and parses to the same data: JSON already escapes
C0 itself and can hold DEL, C1 and bidi characters only inside strings, where
``\\u009b`` means the same character. YAML double-quoted strings read it the
same way (``tooldeck import`` writes such strings double-quoted). Backslashes
are not doubled: the output is for reading, and an escape only has to be
visible and inert.

**What is escaped** (:data:`tooldeck._names.CONTROL`, the characters a name may
not hold, minus newline and tab): C0 but ``\\n``, ``\\t`` and the ``\\r`` of a
``\\r\\n``, DEL, C1, U+2028/U+2029, the bidi embeddings, overrides and
isolates. Newlines and tabs stay: they are the CLI's own layout, and a result
or description that has lines keeps them, each escaped; a carriage return
right before a newline ends a line as the newline would, while one alone
would go back over the line and hide what it holds. A field that must stay on
one line (a name a model sent, a diagnostic message) goes through
:func:`one_line`, which also escapes ``\\n``; a name the CLI quotes in its
own messages goes through :func:`quoted`.

**Where**: :func:`escape_streams` puts :class:`EscapingWriter` in front of
standard output and error for the whole of a command
(:func:`tooldeck.cli._main.main`), so everything any module writes there,
``print`` and ``sys.stderr.write``, log records and warnings included, is
escaped in this one place. The exception is an MCP server speaking the protocol
on standard output (``tooldeck serve`` over stdio): that stream is not for
reading. A stdio MCP server that tooldeck starts inherits the terminal's own
descriptor for its standard error: it is a program you chose to run, like a
handler, and its output does not pass through here.

Imports only :mod:`sys` at module level, like every CLI module.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # `typing` costs ~3 ms to import; mypy treats this name as True
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable
    from typing import TextIO

__all__ = ["EscapingWriter", "escape_streams", "one_line", "printable", "quoted"]

_patterns: dict[bool, re.Pattern[str]] = {}


def _pattern(keep_newlines: bool) -> re.Pattern[str]:
    """The class of characters to escape, compiled on first use."""
    found = _patterns.get(keep_newlines)
    if found is None:
        import re

        from .._names import CONTROL

        kept = r"\t|\n|\r\n" if keep_newlines else r"\t"  # CR LF is a line end, not an overwrite
        found = _patterns[keep_newlines] = re.compile(f"(?!{kept})[{CONTROL}]")
    return found


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def printable(text: str) -> str:
    """``text`` with every control, C1 and bidi character written as ``\\uXXXX``.

    Newlines and tabs are kept (see the module docstring); idempotent, since
    escapes are plain ASCII.
    """
    pattern = _pattern(True)
    return text if pattern.search(text) is None else pattern.sub(_escape, text)


def one_line(text: str) -> str:
    """:func:`printable`, with newlines escaped too: for a field that is one line of output."""
    pattern = _pattern(False)
    return text if pattern.search(text) is None else pattern.sub(_escape, text)


def quoted(text: str) -> str:
    """``text`` in single quotes on one line, as the CLI's messages quote a name.

    For a name anyone may choose (an attached server's, a model's): the same
    escapes as everything else, where ``repr()`` would write ``\\x1b``.
    """
    return f"'{one_line(text)}'"


class EscapingWriter:
    """A text stream that writes :func:`printable` text to the stream it wraps.

    Only what a text stream is asked for when writing is offered; ``buffer``
    is not, so nothing can write bytes past the escaping. ``fileno`` is, for
    what needs a real descriptor (a child process's stderr, ``os.dup2``).
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(printable(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.stream.flush()

    def fileno(self) -> int:
        return self.stream.fileno()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    @property
    def closed(self) -> bool:
        return self.stream.closed

    @property
    def encoding(self) -> str:
        return self.stream.encoding

    @property
    def errors(self) -> str | None:
        return self.stream.errors

    @property
    def name(self) -> str:
        return str(getattr(self.stream, "name", "<escaped>"))


def escape_streams(*, stdout: bool = True) -> Callable[[], None]:
    """Put :class:`EscapingWriter` in front of ``sys.stderr`` (and ``sys.stdout``); returns undo.

    ``stdout=False`` leaves standard output as it is, for a command whose
    standard output carries a protocol. Wrapping twice is harmless (an
    escaped text has nothing left to escape) but is not done.
    """
    saved = sys.stdout, sys.stderr
    if stdout and not isinstance(sys.stdout, EscapingWriter):
        sys.stdout = EscapingWriter(sys.stdout)
    if not isinstance(sys.stderr, EscapingWriter):
        sys.stderr = EscapingWriter(sys.stderr)

    def restore() -> None:
        sys.stdout, sys.stderr = saved

    return restore
