"""YAML syntax errors in words that say what to change (TD204).

libyaml reports what its state machine expected ("did not find expected '-'
indicator while parsing a block collection"), which is true and of little
help to someone who indented a key one space too far. The common mistakes
have recognisable shapes, so each gets a sentence naming the fix, shown
where it happened; the parser's own words follow in parentheses, so nothing
is lost when a guess does not fit.

The mistakes covered: a key indented differently from its siblings, an item
without its ``- ``, an unquoted ``: `` inside a value, a quote or a bracket
that is never closed, a key without ``:``.
"""

from __future__ import annotations

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
                f"this line is indented {_indent(here)} spaces, more than the key above it "
                f"({_key_column(above)}), so YAML reads it as part of that key's value; "
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
            if _indent(here) > items:
                return (
                    f"this line is indented {_indent(here)} spaces, but the keys of the item "
                    f"above are at {items + 2}: align it with them (or, if it starts a new item, "
                    f"write '- ' at column {items + 1})"
                )
            return f"a list item must start with '- ' at column {items + 1}; add the '- '"
        return "this line is indented differently from the lines it belongs with; align it"
    if "block mapping" in context and "expected key" in problem:
        return (
            f"this line is indented {_indent(here)} spaces, which matches no key above it: "
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
