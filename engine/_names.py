"""Tool names: which characters a name may hold, and a safe form for providers.

Two rules, for two reasons:

* :func:`name_problem`: a registered name never holds a control character
  (C0, line breaks included, DEL, C1), a Unicode line or paragraph
  separator, or a bidirectional embedding, override or isolate
  (:data:`CONTROL`). A name is printed on one line, quoted in messages,
  matched in ``use: SERVER/TOOL`` and sent to models; such a character
  would move the cursor, start a terminal escape sequence, fake an output
  line or reorder what a reader sees. The meta-schema's name ``pattern``
  refuses the same class, so a manifest gets a located TD213 first; in code,
  registering such a name raises :class:`~tooldeck.RegistrationError`.
  :func:`remote_name_problem` is stricter for the names an attached MCP
  server lists: no whitespace, and every character visible.
* :func:`safe_name`: OpenAI (and Anthropic, Gemini) accept
  ``^[a-zA-Z0-9_-]{1,64}$``. A name outside that is still registered
  (manifests may use dots or long names), with a warning, and exports show
  a safe name instead; the registry keeps it as an alias so calls coming
  back under it find the tool. The safe name is the shortest one that is
  free (``github.get_issue`` -> ``github_get_issue``): a model reads names,
  so a hash is added only to break a real clash, with a registered name or
  with another name of the same safe form (:func:`provider_names`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable

__all__ = [
    "CONTROL",
    "PROVIDER_NAME",
    "is_provider_safe",
    "name_problem",
    "provider_names",
    "remote_name_problem",
    "safe_name",
]

PROVIDER_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
_LONGEST = 64

CONTROL = "\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""The characters no name may hold, as the body of a regular-expression class.

C0 (U+0000-U+001F, line breaks and tabs included), DEL, C1 (U+0080-U+009F:
U+009B is a one-character CSI to terminals that read C1), U+2028/U+2029,
and the bidi embeddings and overrides (U+202A-U+202E) and isolates
(U+2066-U+2069) that reorder how text is displayed. The CLI escapes the
same class, minus newline and tab, in everything it prints
(:mod:`tooldeck.cli._terminal`).
"""
_CONTROL = re.compile(f"[{CONTROL}]")


def _character(char: str) -> str:
    code = ord(char)
    if char in "\n\r\x85\u2028\u2029":
        kind = "line break"
    elif 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
        kind = "bidirectional formatting character"
    elif char.isspace():
        kind = "whitespace character"
    elif code < 0x20 or 0x7F <= code <= 0x9F:
        kind = "control character"
    else:
        return f"an invisible character (U+{code:04X})"
    return f"a {kind} (U+{code:04X})"


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be registered, or None: empty, or holding a :data:`CONTROL` character."""
    if not name:
        return "is empty"
    found = _CONTROL.search(name)
    return None if found is None else f"contains {_character(found.group())}"


def remote_name_problem(name: str) -> str | None:
    """:func:`name_problem`, and no whitespace or other invisible character.

    An attached server chooses its tool names; a name with a space, a
    zero-width character or a non-breaking space reads like another tool's
    in a listing or an approval prompt, so such a tool is left out.
    """
    problem = name_problem(name)
    if problem is not None:
        return problem
    for char in name:
        if char.isspace() or not char.isprintable():
            return f"contains {_character(char)}"
    return None


def is_provider_safe(name: str) -> bool:
    """True when every major provider accepts ``name`` as a function name."""
    return PROVIDER_NAME.fullmatch(name) is not None


def safe_name(name: str, taken: Collection[str] = ()) -> str:
    """``name`` itself when safe, else its safe form: other characters -> ``_``, 64 at most.

    When that form is in ``taken`` (names already used), a short stable hash
    of ``name`` is added, so two different unsafe names (``a.b`` and ``a b``)
    never share one.
    """
    if is_provider_safe(name):
        return name
    stem = _UNSAFE.sub("_", name).strip("_") or "tool"
    if stem[:_LONGEST] not in taken:
        return stem[:_LONGEST]
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return f"{stem[: _LONGEST - 9]}_{digest}"


def provider_names(names: Iterable[str]) -> dict[str, str]:
    """The safe name of each unsafe name in ``names`` (a registry's tools), clashes broken.

    A name's plain safe form is used when no registered name has it and no
    other unsafe name shares it; otherwise the hash is added to every name
    that shares it, so the result does not depend on the order of ``names``.
    """
    every = set(names)
    unsafe = sorted(n for n in every if not is_provider_safe(n))
    forms: dict[str, list[str]] = {}
    for name in unsafe:
        forms.setdefault(safe_name(name), []).append(name)
    out: dict[str, str] = {}
    for form, owners in forms.items():
        clash = len(owners) > 1 or form in every
        for name in owners:
            out[name] = safe_name(name, taken=every | {form}) if clash else form
    return out
