"""TD204 says what to change for the common YAML mistakes, at the line where they are."""

from __future__ import annotations

import pytest

from tooldeck._yaml.source import read_yaml

CASES = [
    (
        "a key indented one space less than its siblings",
        "version: 1\ntools:\n  - name: f\n   description: x\n",
        (
            4,
            "this key is indented 3 spaces, less than the keys of the item above (4): indent it "
            "by 1 to line up with them",
        ),
    ),
    (
        "a key indented as far as the '- ' of its item",
        "version: 1\ntools:\n  - name: f\n    params:\n      - name: a\n        type: string\n"
        "      description: x\n",
        (
            7,
            "this key is indented 6 spaces, less than the keys of the item above (8): indent it "
            "by 2 to line up with them",
        ),
    ),
    (
        "a key indented less than its siblings, between two levels",
        "version: 1\ntools:\n  - name: f\n    params:\n      - name: a\n        type: string\n"
        "     description: x\n",
        (7, "this key is indented 5 spaces, less than the key above it (8): indent it by 3"),
    ),
    (
        "a key indented one space more than the key above",
        "version: 1\ntools:\n  - name: f\n    description: ok\n     handler: x\n",
        (5, "more than the key above it (4), so YAML reads it as part of that key's value"),
    ),
    (
        "a missing '- ' before a list item",
        "version: 1\ntools:\n  - name: f\n    params:\n      - name: a\n        type: string\n"
        "      name: b\n",
        (7, "a list item must start with '- ' at column 7: the item above already has 'name'"),
    ),
    (
        "an unquoted ': ' inside a value",
        "version: 1\ntools:\n  - name: f\n    description: Note: reads files\n",
        (4, 'write description: "Note: reads files"'),
    ),
    (
        "an unclosed quote",
        'version: 1\ntools:\n  - name: "f\n    description: x\n',
        (5, "a quote opened on line 3 is never closed"),
    ),
    (
        "an unclosed brace",
        "version: 1\ntools: [\n  {name: f\n",
        (4, "a '{' opened on line 3 is not closed"),
    ),
    (
        "an unclosed bracket",
        "version: 1\ntags: [a, b\nother: 1\n",
        (3, "a '[' opened on line 2 is not closed"),
    ),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_common_mistakes_get_a_fix_in_words(tmp_path, text, expected):
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    (diagnostic,) = read_yaml(path).diagnostics
    line, words = expected
    assert diagnostic.code == "TD204"
    assert diagnostic.location.line == line
    assert words in diagnostic.message
    assert "(YAML parser: " in diagnostic.message  # the parser's words are kept


def test_an_unrecognised_error_keeps_the_parsers_words(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("version: 1\n? [a\n", encoding="utf-8")
    (diagnostic,) = read_yaml(path).diagnostics
    assert diagnostic.code == "TD204"
    assert diagnostic.message
