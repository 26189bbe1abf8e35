"""The CLI's one escaping rule (tooldeck.cli._terminal) and the name rule it shares (_names)."""

from __future__ import annotations

import io
import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tooldeck._names import CONTROL, name_problem, remote_name_problem
from tooldeck.cli._terminal import EscapingWriter, escape_streams, one_line, printable, quoted

ESCAPED = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)] + [
    chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
]
"""Every character the CLI never writes raw (tab and newline aside, which it keeps)."""


@pytest.mark.parametrize("char", ESCAPED, ids=lambda c: f"U+{ord(c):04X}")
def test_each_control_character_is_written_as_its_code_point(char):
    kept = {"\t", "\n"}
    assert printable(f"a{char}b") == (f"a{char}b" if char in kept else f"a\\u{ord(char):04x}b")
    assert one_line(f"a{char}b") == ("a\tb" if char == "\t" else f"a\\u{ord(char):04x}b")


def test_a_carriage_return_is_kept_only_as_the_end_of_a_line():
    assert printable("a\r\nb\rc") == "a\r\nb\\u000dc"
    assert one_line("a\r\nb") == "a\\u000d\\u000ab"


def test_ordinary_text_is_left_alone():
    text = "Ünïcödé, emoji 🙂, tabs\tand\nlines, \\u001b written out, quotes \"'"
    assert printable(text) is text
    assert quoted("read_file") == "'read_file'" == repr("read_file")


@given(st.text())
def test_escaping_is_idempotent_and_leaves_nothing_to_escape(text):
    once = printable(text)
    assert printable(once) == once
    assert not any(char in ESCAPED and char not in "\t\n\r" for char in once)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=10,
    )
)
def test_json_through_the_escaping_is_the_same_json(value):
    for indent in (None, 2):
        text = json.dumps(value, ensure_ascii=False, indent=indent)
        assert json.loads(printable(text)) == value


def test_the_writer_escapes_every_write_and_offers_no_byte_stream():
    target = io.StringIO()
    writer = EscapingWriter(target)
    print("clear\x1b[2J", file=writer)  # type: ignore[arg-type]
    writer.writelines(["\x9b", "\u202e\n"])
    writer.flush()
    assert target.getvalue() == "clear\\u001b[2J\n\\u009b\\u202e\n"
    assert not hasattr(writer, "buffer")
    assert writer.writable()
    assert not writer.isatty()


def test_escape_streams_wraps_and_restores(monkeypatch):
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    restore = escape_streams(stdout=False)
    assert sys.stdout is out
    assert isinstance(sys.stderr, EscapingWriter)
    again = escape_streams()  # nested: stderr is not wrapped twice
    assert isinstance(sys.stdout, EscapingWriter)
    assert sys.stderr.stream is err  # type: ignore[attr-defined]
    again()
    restore()
    assert (sys.stdout, sys.stderr) == (out, err)


@pytest.mark.parametrize("char", ESCAPED, ids=lambda c: f"U+{ord(c):04X}")
def test_names_refuse_the_same_class(char):
    assert char in "\t\n" or printable(char) != char
    assert name_problem(f"tool{char}") is not None
    assert remote_name_problem(f"tool{char}") is not None


def test_names_the_class_allows_and_the_stricter_remote_rule():
    assert name_problem("files.read") is None
    assert name_problem("my tool") is None  # a provider-unsafe name: TD120, not refused
    assert name_problem("") == "is empty"
    assert name_problem("a\x1bb") == "contains a control character (U+001B)"
    assert name_problem("a\u202eb") == "contains a bidirectional formatting character (U+202E)"
    assert remote_name_problem("get_time") is None
    assert remote_name_problem("my tool") == "contains a whitespace character (U+0020)"
    assert remote_name_problem("a\u200bb") == "contains an invisible character (U+200B)"
    assert remote_name_problem("a\u00a0b") == "contains a whitespace character (U+00A0)"


def test_the_meta_schema_refuses_names_with_the_same_class():
    import re

    from tooldeck.manifest._meta.check import manifest_schema

    defs = manifest_schema()["$defs"]
    patterns = {
        defs[kind]["properties"]["name"]["pattern"] for kind in ("Tool", "Prompt", "McpServer")
    }
    [pattern] = patterns
    for char in ESCAPED:
        assert re.search(pattern, f"tool{char}") is None
        assert re.search(pattern, f"tool{char}x") is None
    assert re.search(pattern, "files.read") is not None
    assert len(re.compile(f"[{CONTROL}]").pattern) > 2
