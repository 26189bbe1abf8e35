"""Regular expressions over untrusted text: RE2, linear time, one error type.

Patterns come from manifests and schemas; the text they run on comes from a
model. Python's ``re`` backtracks, so ``^(a+)+$`` against ``"a" * 40 + "!"``
runs for minutes while holding the GIL. Every pattern tooldeck evaluates
(``pattern``, ``patternProperties``, the asserted string formats) goes
through here instead, to google-re2: matching time is linear in the text,
compiled programs are capped by RE2's memory budget, and the match itself
runs with the GIL released.

The price is RE2's syntax: no backreferences, no lookahead or lookbehind, no
possessive quantifiers or atomic groups. Such a pattern fails to compile,
which is reported when the tool is declared (TD107), never at call time.
Compiling is bounded too: RE2 compiles in time that grows with the square of
a pattern's optional elements, so patterns over :data:`MAX_EXPANSION` of them
(or :data:`MAX_LENGTH` characters) are refused before RE2 sees them; declared
patterns also may not nest groups past :data:`MAX_NESTING`.
Matching follows JSON Schema's ``pattern``: a search (not anchored), over
Unicode text, where ``$`` means the end of the text and ``\\d``/``\\w`` are
ASCII as in ECMA-262.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import re2  # type: ignore[import-untyped]

__all__ = [
    "MAX_EXPANSION",
    "MAX_LENGTH",
    "MAX_NESTING",
    "PatternError",
    "Regex",
    "check_declared",
    "clip",
    "compile_pattern",
    "expansion",
    "nesting",
    "search",
]

_CACHE_SIZE = 256
"""Distinct patterns kept compiled for reuse (registered tools hold their own)."""

_SHOWN = 80
"""Characters of a pattern quoted in an error message."""

_NO_MATCH = (-1, -1)

MAX_EXPANSION = 5_000
"""Largest :func:`expansion` compiled. RE2's compile time grows with the square of
it (``[a-z]{1,1000}`` repeated 200 times takes ~50 s, holding the GIL); at this
size the worst shapes compile in ~50 ms, and real patterns such as
``^\\w{1,1000}$`` or ``^[\\p{L}\\p{N} _.-]{1,200}$`` stay far below it."""

MAX_LENGTH = 100_000
"""Longest pattern compiled, in characters. Plain text compiles in linear time,
but RE2 takes ~0.4 s per MB before its memory budget stops it; no real pattern
is this long."""

MAX_NESTING = 100
"""Deepest group nesting a *declared* pattern may have (:func:`check_declared`).
RE2 copes with thousands, but a declared pattern travels with the schema to
engines that recurse (Python's re, providers' and editors' validators), and no
real pattern needs more than a few levels."""

_COUNT = re.compile(r"\{([0-9]{1,9})(,([0-9]{0,9}))?\}", re.ASCII)

_UNSUPPORTED = (
    ("invalid perl operator: (?=", "lookahead (?=...) is not supported"),
    ("invalid perl operator: (?!", "negative lookahead (?!...) is not supported"),
    ("invalid perl operator: (?<=", "lookbehind (?<=...) is not supported"),
    ("invalid perl operator: (?<!", "negative lookbehind (?<!...) is not supported"),
    ("invalid perl operator: (?>", "atomic groups (?>...) are not supported"),
    ("invalid escape sequence: \\Z", "\\Z is not supported; use \\z or $"),
    ("bad repetition operator: ++", "possessive quantifiers are not supported"),
    ("bad repetition operator: *+", "possessive quantifiers are not supported"),
    ("bad repetition operator: ?+", "possessive quantifiers are not supported"),
    ("invalid repetition size", "repetition counts are limited to 1000"),
    ("pattern too large", "the compiled pattern exceeds RE2's memory limit"),
)
_BACKREFERENCE = "invalid escape sequence: \\"
_RE2_NOTE = (
    "tooldeck matches patterns with RE2, which runs in linear time and has no "
    "backreferences or lookaround"
)


class PatternError(ValueError):
    """A pattern RE2 cannot compile; ``reason`` says why in one line."""

    def __init__(self, pattern: object, reason: str) -> None:
        super().__init__(reason)
        self.pattern = pattern
        self.reason = reason


class Regex:
    """A compiled pattern: ``search`` and ``fullmatch`` answer yes or no, never raise.

    Both are plain function attributes (no bound-method creation per call):
    they sit on the argument-validation path.
    """

    __slots__ = ("fullmatch", "pattern", "search")

    def __init__(self, pattern: str, search: Callable[[str], bool], full: Callable[[str], bool]):
        self.pattern = pattern
        self.search = search
        self.fullmatch = full

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every rejected pattern to stderr
    options.never_capture = True  # yes/no answers only: no submatch bookkeeping
    return options


_OPTIONS = _options()


def compile_pattern(pattern: str) -> Regex:
    """``pattern`` compiled with RE2 (cached), or :class:`PatternError` saying why not."""
    if not isinstance(pattern, str):
        raise PatternError(pattern, f"a pattern must be a string, got {type(pattern).__name__}")
    return _compile(pattern)


def check_declared(pattern: str) -> Regex:
    """A pattern declared in a tool's schema: :func:`compile_pattern`, and portable.

    Declared patterns are exported to providers and editors with the schema,
    so on top of what RE2 needs they must not nest groups past
    :data:`MAX_NESTING` (a ``search_text``-style argument need not care).
    """
    regex = compile_pattern(pattern)
    depth = nesting(pattern)
    if depth > MAX_NESTING:
        raise PatternError(
            pattern,
            f"the pattern nests groups {depth:,} deep, more than {MAX_NESTING}; flatten it "
            "(schemas travel to engines that recurse, and no real pattern needs that depth)",
        )
    return regex


def search(pattern: str, text: str) -> bool:
    """Whether ``text`` contains a match of ``pattern`` (JSON Schema ``pattern``)."""
    return compile_pattern(pattern).search(text)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compile(pattern: str) -> Regex:
    if len(pattern) > MAX_LENGTH:
        raise PatternError(
            pattern, f"the pattern is {len(pattern):,} characters long, more than {MAX_LENGTH:,}"
        )
    size = expansion(pattern)
    if size > MAX_EXPANSION:
        raise PatternError(
            pattern,
            f"the pattern is too complex: its repetitions expand to about {size:,} optional "
            f"elements, more than the {MAX_EXPANSION:,} RE2 compiles quickly; use fewer or "
            "smaller {n,m} repetitions and ?",
        )
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except UnicodeEncodeError:
        raise PatternError(
            pattern, "the pattern contains a lone surrogate (such as \\ud800), which is not text"
        ) from None
    except re2.error as exc:
        raise PatternError(pattern, _reason(exc)) from None
    except Exception as exc:  # RecursionError, MemoryError, ValueError...: never escape
        raise PatternError(pattern, f"RE2 cannot compile it ({type(exc).__name__})") from None
    return Regex(pattern, _matcher(compiled, full=False), _matcher(compiled, full=True))


def expansion(pattern: str) -> int:
    """About how many optional elements RE2 expands ``pattern`` into: an upper bound.

    That is what RE2's compile time grows with the square of (``a?`` 40,000
    times takes 1.8 s, ``[a-z]{1,1000}`` is 999 nested optionals); plain text,
    ``*`` and ``+`` compile in linear time, bounded by RE2's memory budget.
    Counted: ``x?`` adds one, ``x{n,m}`` repeats x's own m times and adds
    m - n, ``x{n,}`` is n + 1 copies and a loop; ``(?:a{1,10}){1,100}`` is 1,000.
    """
    return _measure(pattern)[0]


def nesting(pattern: str) -> int:
    """How deeply ``pattern`` nests its groups (``((a))`` is 2)."""
    return _measure(pattern)[1]


def _measure(pattern: str) -> tuple[int, int]:
    """(expansion, nesting) in one left-to-right pass; syntax errors are left to RE2."""
    groups = [0]  # optional elements in each open group so far
    last = 0  # optional elements in the atom a following quantifier repeats
    deepest = 0
    i, end = 0, len(pattern)
    while i < end:
        char = pattern[i]
        step, atom = 1, 0
        if char == "\\":
            step = _escape_length(pattern, i)
        elif char == "[":
            step = _class_length(pattern, i)
        elif char == "(":
            groups.append(0)
            deepest = max(deepest, len(groups) - 1)
            i, last = i + 1, 0
            continue
        elif char == ")" and len(groups) > 1:
            atom = groups.pop()
        elif char == "|":
            i, last = i + 1, 0
            continue
        elif char in "?*+" or (char == "{" and _COUNT.match(pattern, i)):
            repeated, step = _repeat(pattern, i, last)
            groups[-1] += repeated - last
            last = repeated
            i += step + (pattern[i + step : i + step + 1] == "?")  # lazy: a{1,3}?
            continue
        groups[-1] += atom
        last = atom
        i += step
    return sum(groups), deepest


def _repeat(pattern: str, at: int, inner: int) -> tuple[int, int]:
    """(optional elements once the quantifier at ``at`` repeats ``inner``, its length)."""
    char = pattern[at]
    if char == "*":
        return inner, 1
    if char == "+":
        return 2 * inner, 1
    if char == "?":
        return inner + 1, 1
    found = _COUNT.match(pattern, at)
    if found is None:  # not a counted repetition after all: a literal "{"
        return inner, 1
    low, comma, high = int(found.group(1)), found.group(2), found.group(3)
    length = found.end() - at
    if not comma:
        return low * inner, length
    if not high:
        return (low + 1) * inner + 1, length
    high_count = max(int(high), low)
    return high_count * inner + (high_count - low), length


def _escape_length(pattern: str, at: int) -> int:
    """Length of the escape at ``at``: ``\\d``, ``\\x{..}``, ``\\p{..}``, ``\\Q...\\E``."""
    kind = pattern[at + 1 : at + 2]
    if kind == "Q":
        close = pattern.find("\\E", at + 2)
        return (len(pattern) if close < 0 else close + 2) - at
    if kind in ("x", "p", "P") and pattern[at + 2 : at + 3] == "{":
        close = pattern.find("}", at + 3)
        return (len(pattern) if close < 0 else close + 1) - at
    if kind in ("p", "P"):
        return 3
    return 2


def _class_length(pattern: str, at: int) -> int:
    """Length of the character class at ``at`` (``[]a]``, ``[^]]``, ``[[:alpha:]]``...)."""
    i = at + 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":
        i += 1
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += _escape_length(pattern, i)
        elif char == "[" and pattern[i + 1 : i + 2] == ":":
            close = pattern.find(":]", i + 2)
            i = i + 1 if close < 0 else close + 2
        elif char == "]":
            return i + 1 - at
        else:
            i += 1
    return len(pattern) - at


def _reason(exc: BaseException) -> str:
    """RE2's own words (it gives bytes), plus what to do when a feature is unsupported."""
    raw = exc.args[0] if exc.args else ""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    for prefix, hint in _UNSUPPORTED:
        if text.startswith(prefix):
            return f"{text} ({hint}; {_RE2_NOTE})"
    if text.startswith(_BACKREFERENCE) and text[len(_BACKREFERENCE) :][:1].isdigit():
        return f"{text} (backreferences are not supported; {_RE2_NOTE})"
    return text or "RE2 cannot compile it"


_ANCHORS: Any = getattr(re2, "_Anchor", None)


def _matcher(compiled: Any, *, full: bool) -> Callable[[str], bool]:
    """A yes/no match on str; the low-level call when available (6x cheaper).

    ``re2``'s public ``search`` builds a generator, maps byte offsets back to
    characters and allocates a match object; a yes/no answer needs none of it.
    """
    low = getattr(getattr(compiled, "_regexp", None), "Match", None)
    if low is None or _ANCHORS is None:  # a google-re2 without the private handle
        public = compiled.fullmatch if full else compiled.search

        def slow(text: str) -> bool:
            try:
                return public(text) is not None
            except UnicodeEncodeError:
                return False

        return slow

    anchor = _ANCHORS.ANCHOR_BOTH if full else _ANCHORS.UNANCHORED

    def test(text: str) -> bool:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return False  # a lone surrogate: not text, so nothing can match it
        return bool(low(anchor, data, 0, len(data))[0] != _NO_MATCH)

    return test


def clip(text: str, limit: int = _SHOWN) -> str:
    """``text`` (a pattern, a message line) cut to ``limit`` characters, ending in "..."."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
