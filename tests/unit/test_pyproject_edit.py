"""``allow_handler``: one module added to ``allow_handlers`` in pyproject.toml text, nothing else.

Each accepted edit is the exact text a person would have typed (comments,
quotes, indentation and line endings kept); each refused one raises
:class:`Uneditable`, and the caller prints the line instead.
"""

from __future__ import annotations

import tomllib

import pytest

from tooldeck.cli._pyproject_edit import Uneditable, allow_handler, setting_line

TABLE = "[tool.tooldeck]\n"

EDITS = [
    ("", '[tool.tooldeck]\nallow_handlers = ["m.t"]\n'),
    (
        '[project]\nname = "x"',
        '[project]\nname = "x"\n\n[tool.tooldeck]\nallow_handlers = ["m.t"]\n',
    ),
    (
        '[tool.tooldeck]  # ours\n  manifests = ["m"]\n\n[tool.ruff]\nx = 1\n',
        '[tool.tooldeck]  # ours\n  allow_handlers = ["m.t"]\n  manifests = ["m"]\n\n'
        "[tool.ruff]\nx = 1\n",
    ),
    (
        TABLE + 'allow_handlers = ["a"]     # prefixes\n',
        TABLE + 'allow_handlers = ["a", "m.t"]     # prefixes\n',
    ),
    (TABLE + "allow_handlers = []\n", TABLE + 'allow_handlers = ["m.t"]\n'),
    (TABLE + "allow_handlers = ['a', ]\n", TABLE + "allow_handlers = ['a', 'm.t' ]\n"),
    (
        TABLE + 'allow_handlers = [\n    "a",  # why\n    "b"  # no comma\n]\n',
        TABLE + 'allow_handlers = [\n    "a",  # why\n    "b",  # no comma\n    "m.t"\n]\n',
    ),
    (
        TABLE + 'allow_handlers = [\n    "a",\n]\n',
        TABLE + 'allow_handlers = [\n    "a",\n    "m.t",\n]\n',
    ),
    (
        TABLE + 'allow_handlers = ["a",\n                  "b"]\n',
        TABLE + 'allow_handlers = ["a",\n                  "b", "m.t"]\n',
    ),
    (TABLE + 'allow_handlers = ["a",\n]\n', TABLE + 'allow_handlers = ["a",\n    "m.t",\n]\n'),
    (
        '[tool.tooldeck]\r\nallow_handlers = [\r\n  "a"\r\n]\r\n',
        '[tool.tooldeck]\r\nallow_handlers = [\r\n  "a",\r\n  "m.t"\r\n]\r\n',
    ),
    (
        TABLE + 'allow_handlers = ["a#b", "c]"] # ]\n',
        TABLE + 'allow_handlers = ["a#b", "c]", "m.t"] # ]\n',
    ),
    (
        "[tool.tooldeck.lint]\nmin_description_length = 20\n",
        "[tool.tooldeck.lint]\nmin_description_length = 20\n\n"
        '[tool.tooldeck]\nallow_handlers = ["m.t"]\n',
    ),
    (  # a header look-alike inside a string is not the table
        'x = """\n[tool.tooldeck]\n"""\n[tool.tooldeck]\nmanifests = []\n',
        'x = """\n[tool.tooldeck]\n"""\n'
        '[tool.tooldeck]\nallow_handlers = ["m.t"]\nmanifests = []\n',
    ),
]


@pytest.mark.parametrize(("before", "after"), EDITS)
def test_the_edit_is_what_a_person_would_type(before: str, after: str) -> None:
    assert allow_handler(before, "m.t") == after
    expected = tomllib.loads(before)
    table = expected.setdefault("tool", {}).setdefault("tooldeck", {})
    table["allow_handlers"] = [*table.get("allow_handlers", []), "m.t"]
    assert tomllib.loads(after) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (TABLE + 'allow_handlers = "a"\n', "not written as a list of strings"),
        ('[tool]\ntooldeck.allow_handlers = ["a"]\n', "form this edit does not handle"),
        ('tool = {tooldeck = {allow_handlers = ["a"]}}\n', "form this edit does not handle"),
        (TABLE + 'allow_handlers = [\n"""a"""]\n', "form this edit does not handle"),
        ("bad = \n", "not valid TOML"),
    ],
)
def test_what_it_cannot_edit_safely_is_refused(text: str, reason: str) -> None:
    with pytest.raises(Uneditable, match=reason):
        allow_handler(text, "m.t")


def test_the_line_to_add_is_valid_toml_and_yaml() -> None:
    import yaml

    assert setting_line(["a", "yes"]) == 'allow_handlers = ["a", "yes"]'
    assert tomllib.loads(setting_line(["a", "yes"]))["allow_handlers"] == ["a", "yes"]
    line = setting_line(["a", "yes"], yaml=True)
    assert yaml.safe_load(line) == {"allow_handlers": ["a", "yes"]}
