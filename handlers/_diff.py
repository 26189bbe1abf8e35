"""Unified diffs of a file's change, bounded in time and size, for the write tools' answers.

:mod:`difflib` matches lines in time that can grow with the product of the two sides' lengths,
and the files may be megabytes. So the lines the two versions share at the start and the end are
set aside first (linear), only the changed middle is matched, and when that middle is too big to
match cheaply it is shown as removed and added whole (still a valid diff, just not minimal). The
text is cut at :data:`MAX_DIFF_CHARS` with a visible marker.
"""

import difflib
import re
from collections.abc import Iterator

__all__ = ["MAX_DIFF_CHARS", "diff_text"]

MAX_DIFF_CHARS = 20_000
"""The longest diff an answer carries; a longer one ends with a marker saying it was cut."""
CONTEXT = 3
_MATCH_LIMIT = 4_000_000  # changed old lines x changed new lines matched by difflib at most
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@$")
_LINES = re.compile(r"[^\n]*\n|[^\n]+")  # lines split at \n only, each keeping its end
_NO_NEWLINE = "\\ No newline at end of file\n"


def _shared_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many lines the two sides share at the start, and then at the end."""
    limit = min(len(a), len(b))
    start = 0
    while start < limit and a[start] == b[start]:
        start += 1
    end = 0
    while end < limit - start and a[-1 - end] == b[-1 - end]:
        end += 1
    return start, end


def _span(start: int, length: int) -> str:
    """A hunk range as unified diffs write it (``start,length``, 1-based; 0 lines: the line
    before)."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _hunks(a: list[str], b: list[str]) -> Iterator[str]:
    """The diff's lines after the two headers, with hunk line numbers for the whole files."""
    start, end = _shared_ends(a, b)
    lo = max(0, start - CONTEXT)
    tail = min(end, CONTEXT)
    a_part, b_part = a[lo : len(a) - end + tail], b[lo : len(b) - end + tail]
    changed_a, changed_b = len(a) - start - end, len(b) - start - end
    if changed_a * changed_b <= _MATCH_LIMIT:
        for line in list(difflib.unified_diff(a_part, b_part, n=CONTEXT, lineterm="\n"))[2:]:
            match = _HUNK.match(line.rstrip("\n"))
            if match is None:
                yield line
                continue
            old, old_len, new, new_len = match.groups()
            yield f"@@ -{int(old) + lo}{old_len or ''} +{int(new) + lo}{new_len or ''} @@\n"
        return
    yield f"@@ -{_span(lo, len(a_part))} +{_span(lo, len(b_part))} @@\n"
    head = start - lo
    yield from (" " + line for line in a_part[:head])
    yield from ("-" + line for line in a[start : len(a) - end])
    yield from ("+" + line for line in b[start : len(b) - end])
    yield from (" " + line for line in a[len(a) - end : len(a) - end + tail])


def diff_text(rel: str, old: str, new: str) -> str:
    """The unified diff from ``old`` to ``new`` labelled ``a/rel`` and ``b/rel``; "" if equal."""
    if old == new:
        return ""
    a, b = _LINES.findall(old), _LINES.findall(new)
    out = [f"--- a/{rel}\n", f"+++ b/{rel}\n"]
    size = len(out[0]) + len(out[1])
    for line in _hunks(a, b):
        piece = line if line.endswith("\n") else line + "\n" + _NO_NEWLINE
        size += len(piece)
        if size > MAX_DIFF_CHARS:
            out.append(f"[... diff cut at {MAX_DIFF_CHARS:,} characters]\n")
            break
        out.append(piece)
    return "".join(out)
