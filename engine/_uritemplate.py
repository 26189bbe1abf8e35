"""Resource URI templates (RFC 6570, the two forms MCP servers use) matched in linear time.

``orders://{order_id}`` names one resource per order: a client reads
``orders://O-17`` and the handler receives ``order_id="O-17"``. Two
expressions are understood, as FastMCP and the reference servers use them:

- ``{name}`` (simple expansion): one or more characters other than ``/``,
  ``?`` and ``#``, percent-decoded;
- ``{+name}`` (reserved expansion): one or more characters, ``/`` included
  (a path such as ``docs://{+path}``), percent-decoded.

Anything else RFC 6570 allows (``{?q}``, ``{#f}``, ``{a,b}``, ``{name*}``,
``{name:3}``) is refused when the template is declared, with the reason,
rather than matched in a way the author did not mean. A URI being read is
untrusted text: it is matched with RE2 (linear time, no backtracking), after
a length cap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

import re2  # type: ignore[import-untyped]

__all__ = ["MAX_URI_LENGTH", "UriTemplate", "UriTemplateError", "is_uri"]

MAX_URI_LENGTH = 8192
"""Longer URIs are refused before matching: no resource needs more, and a cap bounds the work."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_SIMPLE = "[^/?#]+"
_RESERVED = ".+"


class UriTemplateError(ValueError):
    """A template that cannot be used, and why (for a declaration error)."""


def is_uri(text: str) -> bool:
    """Whether ``text`` looks like an absolute URI: a scheme, then something, no spaces."""
    return (
        bool(_SCHEME.match(text))
        and len(text) > text.index(":") + 1
        and not any(c.isspace() or ord(c) < 0x20 for c in text)
        and "{" not in text
        and "}" not in text
    )


@dataclass(frozen=True, slots=True)
class _Variable:
    name: str
    reserved: bool


class UriTemplate:
    """A parsed template: its variables in order, a matcher and an expander."""

    __slots__ = ("_matcher", "_parts", "template", "variables")

    def __init__(self, template: str) -> None:
        if not isinstance(template, str) or not template:
            raise UriTemplateError("a URI template must be a non-empty string")
        if not _SCHEME.match(template):
            raise UriTemplateError(
                f"{template!r} has no scheme; a resource URI template starts with one, such as "
                "'orders://{order_id}'"
            )
        if any(c.isspace() or ord(c) < 0x20 for c in template):
            raise UriTemplateError(f"{template!r} contains spaces or control characters")
        self.template = template
        parts: list[str | _Variable] = []
        pattern: list[str] = []
        at = 0
        for match in _EXPRESSION.finditer(template):
            literal = template[at : match.start()]
            _check_literal(template, literal)
            parts.append(literal)
            pattern.append(re.escape(literal))
            variable = _variable(template, match.group(1))
            if any(isinstance(p, _Variable) and p.name == variable.name for p in parts):
                raise UriTemplateError(f"{template!r} uses {{{variable.name}}} twice")
            if pattern and pattern[-1] == "" and parts[-2:-1] and isinstance(parts[-2], _Variable):
                raise UriTemplateError(
                    f"{template!r} puts two variables side by side; separate them with "
                    "a literal character, or where one ends is ambiguous"
                )
            parts.append(variable)
            pattern.append(f"({_RESERVED if variable.reserved else _SIMPLE})")
            at = match.end()
        tail = template[at:]
        _check_literal(template, tail)
        parts.append(tail)
        pattern.append(re.escape(tail))
        self._parts = tuple(parts)
        self.variables = tuple(p.name for p in parts if isinstance(p, _Variable))
        if not self.variables:
            raise UriTemplateError(
                f"{template!r} has no {{variable}}; declare it as a fixed resource (uri:)"
            )
        self._matcher = re2.compile("".join(pattern))

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables' decoded values if ``uri`` is an instance of this template, else None."""
        if len(uri) > MAX_URI_LENGTH:
            return None
        try:
            found = self._matcher.fullmatch(uri)
        except Exception:  # a lone surrogate and the like: not an instance of anything
            return None
        if found is None:
            return None
        values = {}
        for name, raw in zip(self.variables, found.groups(), strict=True):
            try:
                values[name] = unquote(raw, errors="strict") if "%" in raw else raw
            except UnicodeDecodeError:  # %-escapes that are not UTF-8: not a name of ours
                return None
        return values

    def expand(self, values: dict[str, object]) -> str:
        """The URI for ``values`` (percent-encoded as RFC 6570 says), e.g. to list examples."""
        out = []
        for part in self._parts:
            if isinstance(part, str):
                out.append(part)
            else:
                text = str(values[part.name])
                out.append(quote(text, safe=":/?#[]@!$&'()*+,;=" if part.reserved else ""))
        return "".join(out)

    def __repr__(self) -> str:
        return f"UriTemplate({self.template!r})"


def _variable(template: str, body: str) -> _Variable:
    reserved = body.startswith("+")
    name = body[1:] if reserved else body
    if not _NAME.match(name):
        raise UriTemplateError(
            f"{template!r}: {{{body}}} is not supported; use {{name}} for one path segment "
            "or {+name} for a value that may contain '/' (names: letters, digits and _)"
        )
    return _Variable(name, reserved)


def _check_literal(template: str, literal: str) -> None:
    if "{" in literal or "}" in literal:
        raise UriTemplateError(f"{template!r} has an unmatched brace")
