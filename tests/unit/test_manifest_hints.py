"""Meta-schema errors for the mistakes people make often say what to write instead."""

from __future__ import annotations

import textwrap

from tooldeck import load_manifests

HEAD = """\
version: 1
tools:
  - name: f
    description: A tool for trying out manifest errors.
    handler: tooldeck.handlers.files:file_info
    params:
"""


def errors(tmp_path, params: str) -> list[str]:
    path = tmp_path / "m.yaml"
    path.write_text(HEAD + textwrap.indent(textwrap.dedent(params), "      "), encoding="utf-8")
    _, result = load_manifests([path], register=False)
    return [str(d) for d in result.errors]


def test_an_unknown_type_lists_the_allowed_ones_with_a_did_you_mean(tmp_path):
    (message,) = errors(tmp_path, "- {name: path, type: strng, required: true}\n")
    assert ":7:28: TD213 unknown type \"strng\"; did you mean 'string'?" in message
    assert "Allowed: string, integer, number, boolean, array, object, null, any" in message
    assert "aliases bool" in message


def test_an_alias_typo_suggests_the_canonical_name(tmp_path):
    (message,) = errors(tmp_path, "- {name: path, type: [integr, null]}\n")
    assert "did you mean 'integer'?" in message


def test_json_schema_style_properties_get_the_list_form_shown(tmp_path):
    (message,) = errors(
        tmp_path,
        """\
        - name: path
          type: object
          description: Where
          properties:
            a: {type: string, description: First}
            b: {type: integer}
        """,
    )
    assert "TD212 properties is a list of parameters here" in message
    assert (
        "write properties: [{name: a, type: string, description: First}, "
        "{name: b, type: integer}]" in message
    )
    assert "under schema:" in message
