"""The located-diagnostics corpus: one bad manifest per mistake, one code per offending line.

Every file in ``tests/fixtures/manifests/bad`` is loaded alone (and linted with the
default settings). Its comments say what must be reported, and where:

- ``# expect: TD312`` at the end of a line: that code on that line (several codes may
  follow, separated by spaces; a code listed twice must be reported twice);
- ``# expect: TD210@5``: also require column 5;
- ``# expect-line 4: TD406`` in a header comment: for diagnostics on a line where a
  trailing comment cannot sit (a whole-file problem);
- ``# xfail: engine bug: ...``: the file documents an engine bug; the expectations say
  what should be reported, and the test is a strict xfail until the bug is fixed.

The reported ``(code, line)`` pairs must equal the expected ones exactly: nothing
missing, nothing extra. The files in ``good`` must load with no diagnostic at all,
lint clean, and validate against the meta-schema.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

from tooldeck import Diagnostic, load_manifests
from tooldeck._lint.runner import LintSettings, lint

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "schemas" / "manifest.schema.json"
CORPUS = ROOT / "tests" / "fixtures" / "manifests"
BAD = sorted((CORPUS / "bad").glob("*.yaml"))
GOOD = sorted((CORPUS / "good").glob("*.yaml"))
MODELINE = "# yaml-language-server: $schema="

GOOD_CONFIG = {"features": {"files": True}, "shop": {"name": "Example Shop"}}
"""The configuration the good manifests are loaded with (activation.yaml reads it)."""

_CODE = r"TD\d{3}(?:@\d+)?"
TRAILING = re.compile(rf"#\s*expect:\s*((?:{_CODE}\s*)+)$")
HEADER = re.compile(rf"^#\s*expect-line\s+(\d+):\s*((?:{_CODE}\s*)+)$")
XFAIL = re.compile(r"^#\s*xfail:\s*(.+?)\s*$")

# Every code a single manifest file can trigger. Not here, with the reason:
# TD101/TD102/TD115 (unknown type, nameless parameter, bad retry policy) are caught first
# by the meta-schema (TD213/TD211); TD112 is never reported for a file (name clashes are
# TD220); TD200 needs a missing path (tests/unit/test_loader.py); TD201 needs a file over
# 2 MiB (tests/unit/test_yamlsource.py uses a small max_bytes instead).
REQUIRED_CODES = {
    *(f"TD{n}" for n in (202, 203, 204, 205, 206, 207, 208, 209)),
    *(f"TD{n}" for n in (210, 211, 212, 213, 215, 220)),
    *(f"TD{n}" for n in (103, 104, 105, 106, 107, 108, 109, 110, 111, 113, 114, 120)),
    *(f"TD{n}" for n in (301, 302, 303, 310, 311, 312, 313, 314)),
    *(f"TD{n}" for n in range(401, 410)),
}


@dataclass
class Expected:
    """What one fixture's comments ask for."""

    pairs: Counter[tuple[str, int]]
    columns: list[tuple[str, int, int]]
    xfail: str | None


def read_expectations(path: Path) -> Expected:
    text = path.read_bytes().decode("utf-8", errors="replace")
    pairs: Counter[tuple[str, int]] = Counter()
    columns: list[tuple[str, int, int]] = []
    xfail = None

    def add(codes: str, line: int) -> None:
        for token in codes.split():
            code, _, column = token.partition("@")
            pairs[code, line] += 1
            if column:
                columns.append((code, line, int(column)))

    for number, line in enumerate(text.splitlines(), start=1):
        if header := HEADER.match(line):
            add(header.group(2), int(header.group(1)))
        elif trailing := TRAILING.search(line):
            add(trailing.group(1), number)
        elif reason := XFAIL.match(line):
            xfail = reason.group(1)
    return Expected(pairs, columns, xfail)


def load_alone(path: Path) -> tuple[list[Diagnostic], list[str]]:
    """Every diagnostic (load + lint) for ``path`` loaded on its own, and what registered."""
    registry, result = load_manifests([path], register=True, environ={})
    return [*result.diagnostics, *lint(result, registry, LintSettings())], result.registered


def bad_params() -> list[object]:
    params: list[object] = []
    for path in BAD:
        reason = read_expectations(path).xfail
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def located(diagnostics: list[Diagnostic]) -> list[tuple[str, int, int]]:
    out = []
    for diagnostic in diagnostics:
        assert diagnostic.location is not None, diagnostic.format()
        out.append((diagnostic.code, diagnostic.location.line, diagnostic.location.column))
    return out


# ----------------------------------------------------------------------------- bad corpus
def test_the_corpus_is_large_and_every_file_expects_something() -> None:
    assert len(BAD) >= 30
    for path in BAD:
        assert read_expectations(path).pairs, f"{path.name} has no expectations"


def test_the_corpus_covers_every_code_a_manifest_file_can_trigger() -> None:
    covered = {code for path in BAD for code, _ in read_expectations(path).pairs}
    assert REQUIRED_CODES - covered == set()


@pytest.mark.parametrize("path", bad_params())
def test_each_mistake_is_reported_exactly_where_it_is(path: Path) -> None:
    expected = read_expectations(path)
    diagnostics, _ = load_alone(path)
    found = located(diagnostics)
    rendered = "\n".join(d.format() for d in diagnostics)
    assert Counter((code, line) for code, line, _ in found) == expected.pairs, rendered
    for code, line, column in expected.columns:
        assert (code, line, column) in found, f"{code} not at {line}:{column}\n{rendered}"


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_a_file_registers_only_without_errors(path: Path) -> None:
    registry, result = load_manifests([path], register=True, environ={})
    assert bool(result.registered) == result.ok
    if not result.ok:
        assert len(registry) == 0
        assert registry.prompts() == ()
        assert registry.mcp_servers() == ()


def schema_valid_bad() -> list[Path]:
    """Bad files whose mistakes all lie past the meta-schema (handlers, defaults, lint ...)."""

    def past_schema(code: str) -> bool:
        return not code.startswith("TD2") or code in {"TD215", "TD220"}

    return [
        path for path in BAD if all(past_schema(code) for code, _ in read_expectations(path).pairs)
    ]


@pytest.mark.parametrize("path", schema_valid_bad(), ids=lambda p: p.stem)
def test_mistakes_past_the_meta_schema_are_schema_valid(
    path: Path, validator: Draft202012Validator
) -> None:
    errors = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text("utf-8")))]
    assert errors == []


def test_the_fortieth_tool_is_located_by_line_and_json_path() -> None:
    path = CORPUS / "bad" / "fortieth_tool.yaml"
    data = yaml.safe_load(path.read_text("utf-8"))
    assert len(data["tools"]) == 45
    line = next(
        n
        for n, text in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if "type: integr " in text
    )
    (diagnostic,) = load_alone(path)[0]
    assert diagnostic.code == "TD213"
    assert diagnostic.location is not None
    assert diagnostic.location.line == line
    assert diagnostic.location.column == 15
    assert diagnostic.location.json_path == "$.tools[39].params[1].type"
    assert '"integr"' in diagnostic.message


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("norway", "quote the value"),
        ("unknown_key_typo", "did you mean 'description'?"),
        ("handler_missing_attribute", "did you mean 'read_file'?"),
        ("duplicate_key", "first defined on line 7"),
        ("handler_not_allowed", "allowed prefixes: tooldeck.handlers"),
        ("env_unset", "${env:UNSET_VAR:-value}"),
        ("placeholder_later_param", "a later parameter 'glob'"),
        ("placeholder_unknown_param", "an unknown parameter 'directory'"),
        ("not_utf8", "0xe9"),
        ("lint_dotted_name", "files_read"),
        ("version_2", "must be 1, got 2"),
        ("mcp_url_and_command", "needs exactly one of 'url' or 'command'; has both"),
        (
            "prompt_without_body",
            "needs exactly one of 'template' or 'handler' or 'use'; has neither",
        ),
        ("duplicate_tool_name", "declared twice in this file (first at line 5)"),
        ("param_declared_twice", "parameter 'path' is declared twice"),
    ],
)
def test_messages_say_how_to_fix_the_mistake(name: str, needle: str) -> None:
    diagnostics, _ = load_alone(CORPUS / "bad" / f"{name}.yaml")
    assert any(needle in d.message for d in diagnostics), [d.message for d in diagnostics]


def test_the_alias_bomb_fails_fast() -> None:
    started = time.perf_counter()
    diagnostics, _ = load_alone(CORPUS / "bad" / "alias_bomb.yaml")
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert [d.code for d in diagnostics] == ["TD206"]


# ---------------------------------------------------------------------------- good corpus
@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_there_are_enough_good_manifests() -> None:
    assert len(GOOD) >= 5


@pytest.mark.parametrize("path", [*GOOD, *BAD], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_fixture_points_editors_at_the_meta_schema(path: Path) -> None:
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8")
    assert first.startswith(MODELINE)
    target = (path.parent / first.removeprefix(MODELINE)).resolve()
    assert target == SCHEMA_PATH


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_manifests_validate_against_the_meta_schema(
    path: Path, validator: Draft202012Validator
) -> None:
    errors = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text("utf-8")))]
    assert errors == []


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_manifests_load_and_lint_clean(path: Path) -> None:
    registry, result = load_manifests([path], config=GOOD_CONFIG, environ={})
    diagnostics = [*result.diagnostics, *lint(result, registry, LintSettings())]
    assert [d.format() for d in diagnostics] == []
    assert result.registered == [str(path)]
    bundle = result.bundles[str(path)]
    assert bundle.active
    assert bundle.tools or bundle.prompts or bundle.servers or bundle.web_search


def test_good_manifests_load_together() -> None:
    registry, result = load_manifests([CORPUS / "good"], config=GOOD_CONFIG, environ={})
    assert [d.format() for d in result.diagnostics] == []
    assert result.registered == [str(p) for p in GOOD]
    assert len(registry.tools()) == sum(len(b.tools) for b in result.bundles.values())
    assert registry.web_search() is not None
    assert {s.name for s in registry.mcp_servers()} == {"docs", "git"}


def test_good_manifests_use_every_feature() -> None:
    """Guard the good corpus against losing coverage when someone trims a file."""
    text = "\n".join(p.read_text("utf-8") for p in GOOD)
    docs = [yaml.safe_load(p.read_text("utf-8")) for p in GOOD]
    tools = [t for d in docs for t in d.get("tools", [])]
    prompts = [p for d in docs for p in d.get("prompts", [])]
    servers = [s for d in docs for s in d.get("mcp_servers", [])]
    params = [p for entry in [*tools, *prompts] for p in entry.get("params", [])]
    assert any("params" not in t for t in tools)  # inferred
    assert any("properties" in p for p in params)  # nested objects
    assert any(p.get("type") in ("array", "list") and "items" in p for p in params)
    assert any("schema" in p for p in params)  # raw fragments
    assert any(isinstance(p.get("default"), str) and "${" in p["default"] for p in params)
    assert any("result" in t for t in tools)
    assert any("retry" in t for t in tools)
    assert any(t.get("substitute_result") for t in tools)
    assert any("template" in p for p in prompts)
    assert any("handler" in p for p in prompts)
    assert any("web_search" in d for d in docs)
    assert any("url" in s for s in servers)
    assert any("command" in s for s in servers)
    assert all(key in text for key in ("defaults:", "supported_for:", "enabled_when:"))
    assert re.search(r"\$\{env:[A-Z_]+:-", text)
    assert "${config:" in text
