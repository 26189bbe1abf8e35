"""Values that must never be printed: env-sourced manifest values, tokens.

The manifest loader records every value it reads from the environment here;
everything tooldeck prints (``list``, ``export``, diagnostics in every lint
format, call results and errors, logs) passes through :meth:`Secrets.redact`,
which shows ``***`` instead.

Redaction is meant to run on structured data, before anything is serialised,
escaped or cut: reporters redact each :class:`~tooldeck._diagnostics.Diagnostic`
before JSON/SARIF/GitHub escaping, ``export`` and ``list`` redact their
dicts before ``json.dumps``. Some text is built before it reaches one of those
places (a message that quotes a value with ``repr()`` or ``json.dumps``, a
quoted value cut to 60 characters, a result cut at ``max_chars``), so
:meth:`Secrets.redact` also recognises a secret in the forms such code leaves:

* escaped, as ``json.dumps`` (with and without ``ensure_ascii``) and ``repr()``
  write it inside quotes, or with its whitespace folded into single spaces, as
  a message squeezed onto one line shows it;
* cut off, when a prefix of at least :data:`_MIN_SECRET` characters (of any of
  those forms) runs straight into a truncation marker (``...`` or ``…``,
  optionally after ``[`` or a space and ``[``, as in ``\\n[... truncated``). A cut
  that leaves no marker cannot be recognised: code that truncates must do so
  after redacting, or mark the cut.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._diagnostics import Diagnostic
    from ._model import McpServerSpec

__all__ = ["MASK", "Secrets", "mask_tokens", "server_credentials"]

MASK = "***"
"""What a secret is replaced with."""

_MIN_SECRET = 4
"""Values shorter than this are not recorded, and cut-off prefixes shorter than this stay.

Hiding ``"1"``, ``"yes"`` or ``"eu"`` everywhere would garble every message
and listing, and values that short are guessable anyway: treat them as
configuration, not credentials. The same floor applies to the visible part of
a secret that was cut before a truncation marker, so ``abc...`` is left alone
while ``abcd...`` becomes ``***...``.
"""

_CUT = re.compile(r"(?:\s?\[)?(?:\.\.\.|…)")
"""Truncation markers; the text right before one may end in a cut-off secret.

At most one whitespace character before the ``[``: ``\\s*`` would rescan a
long run of spaces from every position in it (quadratic on large results).

``json_preview`` in explain and the meta-schema checks ends a cut quote with
``...``; result shaping ends a cut result with ``\\n[... truncated N characters``,
``read_file`` a cut line with `` [... line truncated]``.
"""


@dataclass(frozen=True)
class _Compiled:
    """Every printable form of every secret, built once per :meth:`Secrets.add`."""

    forms: tuple[str, ...]
    """Longest first, so a secret containing another one is replaced whole."""
    pattern: re.Pattern[str]


def _forms(value: str) -> set[str]:
    """The ways ``value`` appears in text built by ``json.dumps``, ``repr()`` or folding.

    ``repr`` escapes ``'`` only when the whole string also holds a ``"``, so
    both quotings are included; JSON writes non-ASCII either as is or as
    ``\\uXXXX`` depending on ``ensure_ascii``; ``" ".join(text.split())``
    (one-line messages) turns every run of whitespace into one space.
    """
    forms = {
        value,
        json.dumps(value, ensure_ascii=False)[1:-1],
        json.dumps(value)[1:-1],
        repr(value + '"')[1:-2],
        repr(value + "'")[1:-2],
        " ".join(value.split()),
    }
    return {form for form in forms if len(form) >= _MIN_SECRET}


class Secrets:
    """Values that must never be printed; thread-safe, shared by a registry's loads."""

    def __init__(self) -> None:
        self._values: frozenset[str] = frozenset()
        self._compiled: _Compiled | None = None
        self._lock = threading.Lock()
        self.generation = 0
        """Counts the values added: what was redacted with one generation may differ from
        the next (the model loop's cache of exported definitions keys on it)."""

    def add(self, value: str) -> None:
        """Record ``value`` (an environment value); shorter than 4 characters is ignored."""
        if len(value) < _MIN_SECRET or value in self._values:
            return
        with self._lock:
            values = self._values | {value}
            forms = sorted({form for v in values for form in _forms(v)}, key=len, reverse=True)
            pattern = re.compile("|".join(map(re.escape, forms)))
            # One reference swap: redact() never sees new values with an old pattern.
            self._compiled = _Compiled(tuple(forms), pattern)
            self._values = values
            self.generation += 1

    def __bool__(self) -> bool:
        return bool(self._values)

    def __contains__(self, value: object) -> bool:
        return value in self._values

    @property
    def longest(self) -> int:
        """Characters in the longest form :meth:`redact` recognises (0: no secrets).

        Text that arrives in pieces (a streamed answer) can only be shown
        once this much more of it has come: a secret may still be completing.
        """
        compiled = self._compiled
        return len(compiled.forms[0]) if compiled is not None else 0

    def redact(self, text: str) -> str:
        """``text`` with every secret, escaped or cut off before a marker, shown as ``***``."""
        compiled = self._compiled
        if compiled is None:
            return text
        text = compiled.pattern.sub(MASK, text)
        if "..." in text or "…" in text:
            text = _redact_cuts(text, compiled.forms)
        return text

    def redact_data(self, value: Any) -> Any:
        """Redact every string inside nested lists, tuples and dict values.

        Keys are left alone: interpolation only ever fills values, and
        renaming keys could merge two of them.
        """
        if self._compiled is None:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list | tuple):
            return [self.redact_data(v) for v in value]
        if isinstance(value, dict):
            return {k: self.redact_data(v) for k, v in value.items()}
        return value

    def redact_diagnostic(self, diagnostic: Diagnostic) -> Diagnostic:
        """``diagnostic`` with its message and tool name redacted (the same object if clean).

        The location is left alone: file paths come from the caller and JSON
        paths from mapping keys, which interpolation never fills.
        """
        if self._compiled is None:
            return diagnostic
        message = self.redact(diagnostic.message)
        tool = None if diagnostic.tool_name is None else self.redact(diagnostic.tool_name)
        if message == diagnostic.message and tool == diagnostic.tool_name:
            return diagnostic
        return replace(diagnostic, message=message, tool_name=tool)


def _redact_cuts(text: str, forms: tuple[str, ...]) -> str:
    """Mask the cut-off start of a secret wherever one runs into a truncation marker."""
    pieces: list[str] = []
    done = 0
    for marker in _CUT.finditer(text):
        end = marker.start()
        start = _cut_start(text, done, end, forms)
        pieces.append(text[done:start])
        if start < end:
            pieces.append(MASK)
        pieces.append(marker.group())
        done = marker.end()
    pieces.append(text[done:])
    return "".join(pieces)


def _cut_start(text: str, floor: int, end: int, forms: tuple[str, ...]) -> int:
    """Where the longest proper prefix of a form ending at ``end`` starts (``end``: none).

    Only prefixes of at least :data:`_MIN_SECRET` characters, starting at or
    after ``floor`` (the end of the previous marker), count.
    """
    start = end
    last = end - _MIN_SECRET + 1
    for form in forms:
        pos = text.find(form[0], max(floor, end - len(form) + 1), last)
        while -1 < pos < start:
            if form.startswith(text[pos:end]):
                start = pos
                break
            pos = text.find(form[0], pos + 1, last)
    return start


def server_credentials(spec: McpServerSpec) -> Secrets:
    """An MCP server's credentials: authorization, header values, url password and query values.

    Whether or not they came from the environment: a manifest may write a
    token in its url or headers, and what is printed for people (errors,
    logs, ``tooldeck list``) shows each as ``***``. Every header value counts:
    headers are where API keys go, and hiding a harmless one only costs a
    ``***`` in a message. What goes to the server or a provider keeps them.
    """
    from urllib.parse import parse_qsl, urlsplit

    secrets = Secrets()
    values = list(spec.headers.values())
    if spec.authorization:
        values += [spec.authorization, spec.authorization.split(" ", 1)[-1]]
    if spec.url:
        try:
            parts = urlsplit(spec.url)
            values += [parts.password or "", *(v for _, v in parse_qsl(parts.query))]
        except ValueError:  # not a url urllib can split (a bad port): the whole of it is hidden
            values.append(spec.url)
    for value in values:
        secrets.add(value)
    return secrets


_TOKEN = re.compile(
    r"\b(bearer|basic)(\s+)(?=[A-Za-z0-9._~+/=-]*[0-9._~+/=-])([A-Za-z0-9._~+/=-]{8,})",
    re.IGNORECASE,
)
"""An ``Authorization`` scheme and its credentials, as an error body may echo them.

A credential is 8 or more token characters with at least one digit or
symbol, so prose (``bearer token``, ``basic authentication``) stays as it is.
"""


def mask_tokens(text: str) -> str:
    """``text`` with the credentials after ``Bearer`` or ``Basic`` shown as ``***``.

    For what a server sends back, where the token is not one tooldeck knows
    (a proxy's, another key in the environment): an error body that echoes
    the request's ``Authorization`` header.
    """
    return _TOKEN.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
