"""Tests for tooldeck._docstrings: Google, NumPy and Sphinx docstrings, and garbage."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tooldeck._docstrings import Docstring, parse_docstring

# --- no docstring / prose only -------------------------------------------------------


@pytest.mark.parametrize("doc", [None, "", "   ", "\n\n  \n"])
def test_missing_or_blank_docstring_is_empty(doc: str | None) -> None:
    assert parse_docstring(doc) == Docstring(summary="", description="", params={}, returns=None)


def test_summary_only() -> None:
    parsed = parse_docstring("Return the sum of two numbers.")
    assert parsed.summary == "Return the sum of two numbers."
    assert parsed.description == "Return the sum of two numbers."
    assert parsed.params == {}
    assert parsed.returns is None


def test_summary_spanning_lines_is_joined_into_one_line() -> None:
    doc = """Return the sum
    of two   numbers.
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Return the sum of two numbers."
    assert parsed.description == parsed.summary


def test_description_keeps_paragraphs_and_stops_at_first_section() -> None:
    doc = """Search the catalogue.

    Matches are ranked by relevance;
    ties keep insertion order.

    - first bullet
    - second bullet

    Args:
        query: What to look for.

    This trailing prose comes after a section and is ignored.
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Search the catalogue."
    assert parsed.description == (
        "Search the catalogue.\n\n"
        "Matches are ranked by relevance;\nties keep insertion order.\n\n"
        "- first bullet\n- second bullet"
    )
    assert parsed.params == {"query": "What to look for."}


def test_prose_resembling_a_header_is_not_a_header() -> None:
    doc = """Do a thing.

    Args are cool and Returns are fine.
    Parameters
    Returns values: sometimes.
    """
    parsed = parse_docstring(doc)
    assert parsed.params == {}
    assert parsed.returns is None
    assert "Args are cool" in parsed.description
    assert "Returns values: sometimes." in parsed.description


def test_docstring_starting_with_a_section_has_no_summary() -> None:
    parsed = parse_docstring("Args:\n    x: The x.")
    assert parsed.summary == ""
    assert parsed.description == ""
    assert parsed.params == {"x": "The x."}


# --- Google ----------------------------------------------------------------------------


GOOGLE = """Fetch a page of results.

    Pages are 1-based.

    Args:
        url (str): The endpoint to call,
            e.g. https://example.com/api.
        page (int, optional): Which page; defaults to 1.
        headers (dict[str, str] | None): Extra headers.
        timeout: Seconds to wait (0 = forever).
        mapping (dict(str, int)): Nested parens in the type.
        *args: Positional extras.
        **kwargs (Any): Keyword extras.

    Returns:
        list[dict]: The decoded
            rows.

    Raises:
        ValueError: If page < 1.

    Example:
        fetch("https://example.com", page=2)
    """


def test_google_params_with_types_and_continuations() -> None:
    parsed = parse_docstring(GOOGLE)
    assert parsed.summary == "Fetch a page of results."
    assert parsed.description == "Fetch a page of results.\n\nPages are 1-based."
    assert dict(parsed.params) == {
        "url": "The endpoint to call, e.g. https://example.com/api.",
        "page": "Which page; defaults to 1.",
        "headers": "Extra headers.",
        "timeout": "Seconds to wait (0 = forever).",
        "mapping": "Nested parens in the type.",
        "args": "Positional extras.",
        "kwargs": "Keyword extras.",
    }
    assert list(parsed.params) == [
        "url",
        "page",
        "headers",
        "timeout",
        "mapping",
        "args",
        "kwargs",
    ]
    assert parsed.returns == "The decoded rows."


@pytest.mark.parametrize("header", ["Args:", "Arguments:", "Parameters:", "Params:"])
def test_google_param_header_aliases(header: str) -> None:
    parsed = parse_docstring(f"Summary.\n\n{header}\n    x: The x.\n")
    assert parsed.params == {"x": "The x."}


@pytest.mark.parametrize("header", ["Returns:", "Return:"])
def test_google_returns_header_aliases(header: str) -> None:
    parsed = parse_docstring(f"Summary.\n\n{header}\n    The total.\n")
    assert parsed.returns == "The total."


def test_google_sections_after_params_end_them() -> None:
    doc = """Summary.

    Args:
        x: The x.
    Raises:
        y: Not a parameter.
    Note:
        z: Not a parameter either.
    Yields:
        Items.
    Examples:
        >>> f(1)
    """
    parsed = parse_docstring(doc)
    assert parsed.params == {"x": "The x."}
    assert parsed.returns is None


def test_google_description_on_following_lines_and_lazy_wrap() -> None:
    doc = """Summary.

    Args:
        x:
            Described below the name.
        y: Wrapped at the same indent
        by a careless author.
    """
    parsed = parse_docstring(doc)
    assert parsed.params == {
        "x": "Described below the name.",
        "y": "Wrapped at the same indent by a careless author.",
    }


def test_google_returns_keeps_prose_with_colon() -> None:
    doc = "Summary.\n\nReturns:\n    True when it worked: otherwise False.\n"
    assert parse_docstring(doc).returns == "True when it worked: otherwise False."


# --- NumPy -----------------------------------------------------------------------------


NUMPY = """Compute a distance.

    Uses the Euclidean metric.

    Parameters
    ----------
    x, y : float
        Coordinates of the point,
        in metres.
    scale : float, optional
        Multiplier (default: 1.0).
    *args
        Ignored.
    **kwargs : dict
        Passed through.

    Returns
    -------
    float
        The distance
        from the origin.

    Raises
    ------
    ValueError
        If scale is negative.

    Examples
    --------
    >>> dist(3, 4)
    5.0
    """


def test_numpy_params_with_shared_names_and_continuations() -> None:
    parsed = parse_docstring(NUMPY)
    assert parsed.summary == "Compute a distance."
    assert parsed.description == "Compute a distance.\n\nUses the Euclidean metric."
    assert list(parsed.params.items()) == [
        ("x", "Coordinates of the point, in metres."),
        ("y", "Coordinates of the point, in metres."),
        ("scale", "Multiplier (default: 1.0)."),
        ("args", "Ignored."),
        ("kwargs", "Passed through."),
    ]
    assert parsed.returns == "The distance from the origin."


def test_numpy_returns_with_only_a_type_line_uses_it() -> None:
    doc = """Summary.

    Returns
    -------
    numpy.ndarray
    """
    assert parse_docstring(doc).returns == "numpy.ndarray"


def test_numpy_named_return_skips_the_type_line() -> None:
    doc = """Summary.

    Returns
    -------
    total : int
        The total count.
    """
    assert parse_docstring(doc).returns == "The total count."


def test_numpy_header_needs_its_underline() -> None:
    doc = """Summary.

    Parameters
    x : int
        The x.
    """
    parsed = parse_docstring(doc)
    assert parsed.params == {}
    assert "Parameters" in parsed.description


# --- Sphinx / reST ---------------------------------------------------------------------


SPHINX = """Send a message.

    The message is queued, not sent at once.

    :param recipient: Who gets it;
        an e-mail address.
    :param int retries: How often to retry.
    :type retries: int
    :arg subject: The subject line.
    :parameter body: The text: plain, no HTML.
    :param *attachments: Files to attach.
    :returns: The message id,
        as a string.
    :rtype: str
    :raises ValueError: If the recipient is empty.
    """


def test_sphinx_fields() -> None:
    parsed = parse_docstring(SPHINX)
    assert parsed.summary == "Send a message."
    assert parsed.description == "Send a message.\n\nThe message is queued, not sent at once."
    assert list(parsed.params.items()) == [
        ("recipient", "Who gets it; an e-mail address."),
        ("retries", "How often to retry."),
        ("subject", "The subject line."),
        ("body", "The text: plain, no HTML."),
        ("attachments", "Files to attach."),
    ]
    assert parsed.returns == "The message id, as a string."


def test_sphinx_return_alias_and_unknown_role_in_prose() -> None:
    doc = """Summary.

    :class:`Foo` is mentioned in prose and is no field.

    :return: Nothing much.
    """
    parsed = parse_docstring(doc)
    assert ":class:`Foo` is mentioned" in parsed.description
    assert parsed.returns == "Nothing much."


# --- mixed / edge cases ----------------------------------------------------------------


def test_first_entry_for_a_name_wins() -> None:
    doc = """Summary.

    Args:
        x: From Google.

    :param x: From Sphinx.
    :param y: Only here.
    """
    assert list(parse_docstring(doc).params.items()) == [("x", "From Google."), ("y", "Only here.")]


def test_empty_returns_section_is_none() -> None:
    assert parse_docstring("Summary.\n\nReturns:\n\n:rtype: int\n").returns is None


def test_windows_line_endings() -> None:
    doc = "Summary.\r\n\r\nArgs:\r\n    x: The x.\r\n"
    parsed = parse_docstring(doc)
    assert parsed.summary == "Summary."
    assert parsed.params == {"x": "The x."}


def test_result_is_immutable() -> None:
    parsed = parse_docstring("Summary.\n\nArgs:\n    x: The x.\n")
    with pytest.raises(TypeError):
        parsed.params["y"] = "nope"  # type: ignore[index]


# --- never raises ----------------------------------------------------------------------


def _check_invariants(parsed: Docstring) -> None:
    assert "\n" not in parsed.summary
    assert parsed.description.startswith(parsed.summary)
    for name, text in parsed.params.items():
        assert name
        assert not name.startswith("*")
        assert text == text.strip()
    assert parsed.returns is None or parsed.returns == parsed.returns.strip()


@given(st.text())
def test_never_raises_on_arbitrary_text(doc: str) -> None:
    _check_invariants(parse_docstring(doc))


_PIECES = st.sampled_from(
    [
        "Args:",
        "Returns:",
        "Raises:",
        "Parameters",
        "Returns",
        "----------",
        ":param x:",
        ":param int y: text",
        ":returns:",
        ":rtype: int",
        "x (int): desc",
        "x, y : int",
        "*args: more",
        "**kw",
        "name (dict(str, int)):",
        "(",
        ")",
        ":",
        "\\",
        "word",
        "    ",
        "\t",
        "\n",
        "\r\n",
        " ",
    ]
)


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_never_raises_on_docstring_shaped_text(doc: str) -> None:
    _check_invariants(parse_docstring(doc))


def test_long_whitespace_runs_parse_quickly() -> None:
    # Regexes with adjacent overlapping \s runs once made these take seconds (quadratic).
    gap = " " * 20_000
    doc = (
        f"Summary.\n\nArgs:\n    x{gap}y\n    z (int){gap}: Zed.\n\n:param{gap}\n:param w{gap}: W."
    )
    assert parse_docstring(doc).params == {"z": "Zed.", "w": "W."}
