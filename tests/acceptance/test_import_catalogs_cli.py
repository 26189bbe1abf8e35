"""Hostile catalogue shapes through the real CLI: import, lint, export for Gemini.

``tests/fixtures/catalogs/hostile/mcp_tools_list.json`` holds the shapes real catalogues
publish that tooldeck once changed without a word (its README lists them). What a user runs
is what is tested: ``tooldeck import openai FILE --stubs ... -o out.yaml``, then
``tooldeck lint``, then ``tooldeck export --provider gemini``; every change is on standard
error, named by tool and place.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.conftest import RunLine

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "catalogs" / "hostile"
CATALOGUE = HOSTILE / "mcp_tools_list.json"


def _imported(run_line: RunLine, tmp_path: Path) -> Path:
    out = tmp_path / "out.yaml"
    done = run_line(
        "import", "openai", CATALOGUE, "--stubs", "stubs/hostile.py", "-o", out, cwd=tmp_path
    )
    assert done.exit_code == 0, done.output
    return out


def test_every_definition_imports_and_each_change_is_said(
    run_line: RunLine, tmp_path: Path
) -> None:
    out = tmp_path / "out.yaml"
    done = run_line(
        "import", "openai", CATALOGUE, "--stubs", "stubs/hostile.py", "-o", out, cwd=tmp_path
    )
    assert done.exit_code == 0, done.output
    assert "imported 9 of 9 definitions" in done.stderr
    lines = [line for line in done.stderr.splitlines() if " TD" in line]
    assert [re.search(r" (TD\d+) ", line).group(1) for line in lines] == [  # type: ignore[union-attr]
        "TD515",
        "TD515",
        "TD516",
    ]
    assert "definition 3 (log_note): TD515 [warning] the definition has no description" in lines[0]
    assert (
        "definition 4 (blank): TD515 [warning] the definition has an empty description"
        in (lines[1])
    )
    assert "TD516 [warning] 3 of 9 tools accept undeclared arguments" in lines[2]
    assert "(log_note, plot_point, set_metadata)" in lines[2]
    assert "4 notes about renames and rewrites" in done.stderr


def test_lint_needs_only_the_missing_descriptions(run_line: RunLine, tmp_path: Path) -> None:
    out = _imported(run_line, tmp_path)
    done = run_line("lint", out, "--allow-handlers", "stubs", "--format", "json", cwd=tmp_path)
    assert done.exit_code == 1, done.output
    found = json.loads(done.stdout)
    diagnostics = found["diagnostics"] if isinstance(found, dict) else found
    errors = {(d["code"], d["tool"]) for d in diagnostics if d["severity"] == "error"}
    assert errors == {("TD401", "log_note"), ("TD401", "blank")}


def _nodes(schema: dict[str, Any], where: str = "#") -> list[tuple[str, dict[str, Any]]]:
    found = [(where, schema)]
    for key, value in schema.get("properties", {}).items():
        found += _nodes(value, f"{where}/properties/{key}")
    if "items" in schema:
        found += _nodes(schema["items"], f"{where}/items")
    for index, branch in enumerate(schema.get("anyOf", ())):
        found += _nodes(branch, f"{where}/anyOf/{index}")
    return found


def test_the_gemini_export_stays_inside_gemini_or_says_where(
    run_line: RunLine, tmp_path: Path
) -> None:
    out = _imported(run_line, tmp_path)
    done = run_line(
        "export", "--provider", "gemini", "-m", out, "--allow-handlers", "stubs", cwd=tmp_path
    )
    assert done.exit_code == 0, done.output
    declarations = {d["name"]: d for d in json.loads(done.stdout)}
    assert len(declarations) == 9
    warned = {
        (m.group(1), m.group(2))
        for m in re.finditer(r"warning: tool '(\w+)' \(gemini\): (#\S*):", done.stderr)
    }
    assert warned == {
        (
            "store_tree",
            "#/properties/data/properties/children/items/properties/children/items"
            "/properties/children/items",
        ),
        ("plot_point", "#/properties/point"),
        ("contact", "#/properties/when"),
        ("set_metadata", "#/properties/metadata"),
        ("set_metadata", "#/properties/labels"),
    }
    for name, declaration in declarations.items():
        for where, node in _nodes(declaration.get("parameters", {"type": "object"})):
            if (name, where) == ("set_metadata", "#/properties/labels"):
                continue  # required and free-form: sent as it is, with the warning above
            assert "type" in node or "anyOf" in node, (name, where)
            if node.get("type") == "object" and where != "#":
                assert node.get("properties"), (name, where)
            if node.get("type") == "array":
                assert "items" in node, (name, where)
    properties = {
        name: d["parameters"]["properties"] for name, d in declarations.items() if "parameters" in d
    }
    # exact where an exact form exists: no branch that matches anything, no silent tuple drop
    assert properties["pick_label"] == {"label": {"type": "string", "description": "The label"}}
    assert properties["contact"]["to"] == {"type": "string", "description": "Where to send it"}
    assert properties["plot_point"]["point"]["items"] == {"type": "number"}
    assert properties["plot_point"]["point"]["maxItems"] == 2
    assert properties["harmless"]["count"]["minimum"] == 1
