"""YAML syntax errors in words that say what to change (TD204).

libyaml reports what its state machine expected ("did not find expected '-'
indicator while parsing a block collection"), which is true and of little
help to someone who indented a key one space too far. The common mistakes
have recognisable shapes, so each gets a sentence naming the fix, shown
where it happened; the parser's own words follow in parentheses, so nothing
is lost when a guess does not fit.

The mistakes covered: a key indented differently from its siblings (one
indented less is to be indented to line up with them; one the item above
already has starts a new item and needs its ``- ``), an item without its
``- ``, an unquoted ``: `` inside a value, a quote or a bracket that is never
closed, a key without ``:``.
"""

from __future__ import annotations

from .._words import plural

__all__ = ["explain_syntax_error"]


def explain_syntax_error(  # noqa: PLR0917 - the parser error's parts, as it gives them
    problem: str,
    context: str | None,
    text: str,
    line: int,
    column: int,
    context_line: int | None,
) -> str:
    """The TD204 message for a parser error at ``line``:``column`` (1-based)."""
    raw = problem + (f" ({context})" if context and context not in problem else "")
    hint = _hint(problem, context or "", _lines(text), line, column, context_line)
    return f"{hint} (YAML parser: {raw})" if hint else raw


def _hint(  # noqa: PLR0917 - one return per recognised mistake reads best
    problem: str,
    context: str,
    lines: list[str],
    line: int,
    column: int,
    context_line: int | None,
) -> str | None:
    here = _line(lines, line)
    if "mapping values are not allowed" in problem:
        key, _, value = here.strip().partition(": ")
        if ": " in value:
            return (
                f"a value that contains ': ' must be quoted: write {key.lstrip('- ')}: "
                f'"{_escape(value)}"'
            )
        above = _previous(lines, line)
        if above is not None and _indent(here) > _key_column(above) and ": " in above:
            return (
                f"this line is indented {plural(_indent(here), 'space')}, more than the key "
                f"above it ({_key_column(above)}), so YAML reads it as part of that key's value; "
                "align it with the key above"
            )
        return "a ': ' here starts a key where none may start; quote the value it belongs to"
    if "while scanning a quoted scalar" in context or (
        "unexpected end of stream" in problem and "quoted" in context
    ):
        opened = f" opened on line {context_line}" if context_line else ""
        return f"a quote{opened} is never closed; close it on the same line as it opens"
    if "flow mapping" in context or "flow sequence" in context:
        bracket = "{" if "mapping" in context else "["
        closing = "}" if bracket == "{" else "]"
        opened = f" on line {context_line}" if context_line else ""
        return (
            f"a '{bracket}' opened{opened} is not closed before this point, or two of its "
            f"items have no ',' between them; close it with '{closing}' or use block style"
        )
    if "expected '-' indicator" in problem or (
        "block collection" in context and "expected" in problem
    ):
        items = _list_column(lines, line)
        if items is not None and not here.lstrip().startswith("- "):
            repeated = _key(here)
            if repeated is not None and repeated in _item_keys(lines, line, items):
                return (  # the item above has this key already: this line starts the next one
                    f"a list item must start with '- ' at column {items + 1}: the item above "
                    f"already has {repeated!r}; add the '- '"
                )
            return (
                f"{_this(here)} is indented {plural(_indent(here), 'space')}, less than the keys "
                f"of the item above ({items + 2}): indent it by {items + 2 - _indent(here)} to "
                "line up with them"
            )
        return "this line is indented differently from the lines it belongs with; align it"
    if "block mapping" in context and "expected key" in problem:
        above = _previous(lines, line)
        if above is not None and _indent(here) < _key_column(above):
            return (
                f"{_this(here)} is indented {plural(_indent(here), 'space')}, less than the key "
                f"above it ({_key_column(above)}): indent it by "
                f"{_key_column(above) - _indent(here)} to line up with it (keys of one mapping "
                "share their indentation, spaces only)"
            )
        return (
            f"this line is indented {plural(_indent(here), 'space')}, which matches no key above "
            "it: "
            "keys of one mapping share their indentation (spaces only)"
        )
    if "could not find expected ':'" in problem:
        return "a key needs ':' after it (key: value), or this line continues a value: quote it"
    if "found undefined alias" in problem:
        return "'*name' refers to an anchor '&name' that is not defined above; quote a literal '*'"
    if "found character that cannot start any token" in problem:
        character = here[column - 1 : column] if 0 < column <= len(here) else ""
        if character in ("`", "@", "%"):
            return f"a value cannot start with {character!r} in YAML; quote it"
    return None


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _line(lines: list[str], line: int) -> str:
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _previous(lines: list[str], line: int) -> str | None:
    """The nearest line above ``line`` with content (comments skipped)."""
    for number in range(line - 2, -1, -1):
        stripped = lines[number].strip()
        if stripped and not stripped.startswith("#"):
            return lines[number]
    return None


def _key_column(text: str) -> int:
    """Where the key of a line starts: after a list item's '- ' marker."""
    indent = _indent(text)
    return indent + 2 if text[indent:].startswith("- ") else indent


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _this(text: str) -> str:
    return "this key" if _key(text) is not None else "this line"


def _key(text: str) -> str | None:
    """The key a ``key: value`` (or ``key:``) line starts with, if it is one."""
    stripped = text.strip()
    if stripped.startswith("- "):
        stripped = stripped[2:].lstrip()
    key, colon, _ = stripped.partition(":")
    return key.strip().strip("\"'") if colon and key.strip() else None


def _item_keys(lines: list[str], line: int, items: int) -> set[str]:
    """The keys of the list item (its '- ' at column ``items``) that ends above ``line``."""
    keys: set[str] = set()
    for number in range(line - 2, -1, -1):
        text = lines[number]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if _indent(text) == items + 2 or (_indent(text) == items and text.lstrip()[:2] == "- "):
            key = _key(text)
            if key is not None:
                keys.add(key)
        if _indent(text) <= items:
            break
    return keys


def _list_column(lines: list[str], line: int) -> int | None:
    """The column of the nearest '- ' list marker above ``line`` (0-based), if any."""
    for number in range(line - 2, -1, -1):
        stripped = lines[number].lstrip(" ")
        if stripped.startswith("- "):
            return _indent(lines[number])
        if stripped and not stripped.startswith("#") and _indent(lines[number]) == 0:
            return None
    return None


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
