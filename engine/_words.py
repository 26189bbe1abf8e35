"""Counts in words that agree: ``1 file``, ``2 files``, ``1 note``, ``0 errors``.

One helper for every message that prints a count with its noun (the lint
summary, the import summary, YAML hints, limits), so none of them says
"1 files" or "1 spaces".
"""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, word: str, many: str | None = None, *, grouped: bool = False) -> str:
    """``count`` and ``word``, the noun in the plural unless the count is exactly one.

    ``many`` is the plural when adding ``s`` is wrong (``entry``, ``entries``);
    ``grouped`` writes thousands apart (``1,000 tools``), as limits in messages are.
    """
    noun = word if count == 1 else many if many is not None else f"{word}s"
    return f"{count:,} {noun}" if grouped else f"{count} {noun}"
