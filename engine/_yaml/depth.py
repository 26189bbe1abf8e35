"""The nesting-depth proof: no document reaches PyYAML's recursive composer too deep.

PyYAML's composer recurses once per nesting level (in C with libyaml) and a
few kilobytes of brackets overflow the C stack: a segfault, not an exception.
So the composer only runs on text proven shallow, by the cheap bound of
:func:`_shallow` for ordinary files, otherwise by :func:`_first_too_deep`, an
exact scan of libyaml's (iterative) event stream that stops at the first node
deeper than :data:`MAX_DEPTH` (TD206).

Separate because it is a proof about text, made before any node exists, with
its own argument (below) and its own fuzz test (tests/security/test_yaml_fuzz.py);
the conversion enforces the same :data:`MAX_DEPTH` on the composed nodes.
"""

from __future__ import annotations

import re
from functools import cache

import yaml

from .loader import _BaseLoader, _Loader

__all__ = [
    "MAX_DEPTH",
    "_DEEP_MESSAGE",
    "_first_too_deep",
    "_is_scanner_depth_limit",
    "_shallow",
]

MAX_DEPTH = 100
"""Nesting depth before a document is refused (TD206)."""

_COMPOSE_DEPTH = 1000 if _BaseLoader is not yaml.SafeLoader else 0
"""Nesting PyYAML's composer may safely recurse through.

The C composer recurses once per level with no limit of its own; measured at
about 370 bytes of C stack per level, 1,000 levels need ~0.4 MB, well inside
the 8 MB main thread and the default stacks of worker threads, while ~22,000
levels overflow an 8 MB stack (a segfault, not an exception). The pure-Python
fallback composer recurses in Python, so without libyaml every document is
first scanned.
"""
_INDENT_COLUMNS = 100
"""Line-start width (indentation plus ``- ``/``? ``/``: `` indicators) the quick bound accepts."""

_DEEP_MESSAGE = f"nesting deeper than {MAX_DEPTH} levels"


_LINE_START = " \t?:\ufeff-"
"""What may come before a block collection's first token on its line (libyaml skips a
byte order mark at column 0, so it counts as a column)."""
_RARE_BREAKS = "\x85\u2028\u2029"
"""Line breaks to libyaml besides ``\\n`` and ``\\r`` (NEL, line and paragraph separators)."""


@cache
def _wide_line_start(columns: int) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Patterns finding a line that starts with ``columns`` characters of :data:`_LINE_START`.

    In order: the first line; any other line when ``\\n`` is the only line
    break (a literal first character lets ``re`` skip ahead, ~5x faster);
    any other line after any break libyaml knows.
    """
    run = f"[{re.escape(_LINE_START)}]{{{columns}}}"
    breaks = re.escape("\n\r" + _RARE_BREAKS)
    return re.compile(run), re.compile(f"\n{run}"), re.compile(f"[{breaks}]{run}")


def _shallow(text: str, depth: int = _COMPOSE_DEPTH, columns: int = _INDENT_COLUMNS) -> bool:
    """Whether no node of ``text`` can nest deeper than ``depth``; cheap and never wrong.

    ``False`` only means "not proven": the caller then scans the events.
    The bound holds for every event libyaml produces, also before a syntax
    error (the composer recurses before it sees the error):

    - Flow collections open with ``[`` or ``{``; a flow sequence entry may
      also be a ``key: value`` pair, a mapping without a bracket of its own.
      So flow nesting is at most ``2 * count("[") + count("{")``, whatever
      quotes or comments hide brackets.
    - A block collection opens only at a column greater than its parent's
      (libyaml's indentation stack), except a sequence written at its
      mapping key's column, whose items open a deeper column again. So block
      nesting is at most twice the number of distinct opening columns.
    - A block collection's first token is preceded on its line only by
      spaces and ``-``/``?``/``:`` indicators (libyaml allows a block
      collection nowhere else), so if no line starts with ``columns`` such
      characters, every opening column is below ``columns``.

    Block collections cannot sit inside flow ones, so the sum bounds every
    chain: ``2 * columns + 2 * count("[") + count("{") <= depth`` proves it.
    tests/security/test_yaml_fuzz.py checks the bound against libyaml.
    """
    flow = 2 * text.count("[") + text.count("{")
    if flow + 2 * columns > depth:
        return False
    first_line, after_newline, after_any_break = _wide_line_start(columns)
    if first_line.match(text) is not None:
        return False
    newline_only = not any(c in text for c in _RARE_BREAKS) and (
        "\r" not in text or text.count("\r") == text.count("\r\n")
    )
    other_lines = after_newline if newline_only else after_any_break
    return other_lines.search(text) is None


def _first_too_deep(text: str) -> yaml.Event | None:
    """The first node nested deeper than ``MAX_DEPTH``, from libyaml's event stream.

    The parser is a state machine with its own stack, so this is exact at any
    depth without recursing; it stops at the first node too deep. Syntax
    errors raise as they would from ``yaml.compose``, except libyaml's own
    nesting cap, which is never reached before our smaller one.
    """
    try:
        return _scan_events(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        if mark is None or not _is_scanner_depth_limit(exc):
            raise
        # libyaml 0.2.5 as bundled with PyYAML >= 6.0.4 stops flow nesting past 1,000
        # levels in its scanner, which reads up to 1,024 characters ahead of the events.
        # The first node too deep lies before that point, so the text up to it has it.
        try:
            event = _scan_events(text[: mark.index])
        except yaml.YAMLError:
            event = None
        return event if event is not None else yaml.Event(mark, mark)


def _is_scanner_depth_limit(exc: yaml.MarkedYAMLError) -> bool:
    """Whether ``exc`` is libyaml's own nesting cap ("exceeded maximum nesting depth")."""
    return "nesting depth" in (exc.problem or "")


def _scan_events(text: str) -> yaml.Event | None:
    loader = _Loader(text)
    try:
        depth = 0
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return None
            if isinstance(event, yaml.NodeEvent) and depth > MAX_DEPTH:
                return event
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        loader.dispose()
