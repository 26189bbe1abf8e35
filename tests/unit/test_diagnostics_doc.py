"""docs/diagnostics.md documents every diagnostic code the engine can emit, and nothing else.

A new ``TDnnn`` in ``engine/`` without a ``### TDnnn: short-name`` section fails here, as does
a section for a code the engine no longer has. Reads files only (plus the lint rule table),
so it stays fast.
"""

import re
from collections import Counter
from itertools import pairwise

import yaml

from tests.conftest import ROOT
from tooldeck._lint.runner import RULES

DOC_PATH = ROOT / "docs" / "diagnostics.md"
DOC = DOC_PATH.read_text(encoding="utf-8")

CODE = re.compile(r"\bTD\d{3}\b")
HEADING = re.compile(r"^### (TD\d{3}): ([a-z0-9]+(?:-[a-z0-9]+)*)$", re.MULTILINE)
ANY_HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
TABLE_ROW = re.compile(
    r"^\| \[(TD\d{3})\]\(#([^)]+)\) \| (error|warning|info) \| .+ \|$", re.MULTILINE
)
COMPLETE_MARK = "<!-- complete -->"
COMPLETE_BLOCK = re.compile(r"<!-- complete -->\n```yaml\n(.*?)^```", re.MULTILINE | re.DOTALL)
SECTION_PARTS = ("**What it catches", "**Why it matters", "**Bad", "**Good", "**Message")


def _engine_codes() -> dict[str, list[str]]:
    """Every code token in engine/**/*.py -> the files it occurs in."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for code in sorted(set(CODE.findall(text))):
            found.setdefault(code, []).append(str(path.relative_to(ROOT)))
    return found


def _prose() -> str:
    """The document with fenced code blocks blanked out (a ``# comment`` is no heading).

    Blanked characters become spaces, so offsets into it are offsets into the document.
    """
    lines = DOC.splitlines(keepends=True)
    fenced = False
    for index, line in enumerate(lines):
        fence = line.startswith("```")
        if fence or fenced:
            lines[index] = re.sub(r"[^\n]", " ", line)
        if fence:
            fenced = not fenced
    return "".join(lines)


PROSE = _prose()


def _headings() -> list[tuple[str, str]]:
    return HEADING.findall(PROSE)


def _sections() -> dict[str, str]:
    """Code -> the text of its section, up to the next heading of any level."""
    bounds = [m.start() for m in ANY_HEADING.finditer(PROSE)] + [len(DOC)]
    sections = {}
    for start, end in pairwise(bounds):
        match = HEADING.match(PROSE, start)
        if match:
            sections[match.group(1)] = DOC[start:end]
    return sections


def _slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_engine_code_is_documented():
    engine = _engine_codes()
    assert len(engine) > 10, "the scan of engine/ found almost no codes; is the pattern broken?"
    documented = {code for code, _ in _headings()}
    missing = {code: files for code, files in engine.items() if code not in documented}
    assert not missing, (
        "codes emitted by the engine without a '### TDnnn: short-name' section in "
        f"docs/diagnostics.md: {missing}"
    )


def test_every_documented_code_exists_in_the_engine():
    engine = _engine_codes()
    stale = sorted(code for code, _ in _headings() if code not in engine)
    assert not stale, f"docs/diagnostics.md documents codes the engine never emits: {stale}"


def test_headings_are_unique_and_well_formed():
    codes = [code for code, _ in _headings()]
    duplicates = sorted(code for code, n in Counter(codes).items() if n > 1)
    assert not duplicates, f"codes with more than one section: {duplicates}"
    assert codes == sorted(codes), "sections should be in code order"
    loose = [
        line
        for line in PROSE.splitlines()
        if line.startswith("### TD") and not HEADING.fullmatch(line)
    ]
    assert not loose, f"headings not of the form '### TDnnn: short-name': {loose}"


def test_lint_rule_sections_use_the_rule_names():
    names = dict(_headings())
    for rule in RULES:
        assert names.get(rule.code) == rule.name, (
            f"{rule.code} is the lint rule {rule.name!r}; its heading should be "
            f"'### {rule.code}: {rule.name}'"
        )


def test_every_section_has_what_why_bad_good_and_a_message():
    for code, text in _sections().items():
        missing = [part for part in SECTION_PARTS if part not in text]
        assert not missing, f"{code}: section lacks {missing}"
        message = text.split("**Message", 1)[1]
        assert code in message, f"{code}: the example message does not show the code"


def test_complete_yaml_blocks_parse():
    blocks = COMPLETE_BLOCK.findall(DOC)
    assert blocks, "no <!-- complete --> yaml blocks found"
    assert len(blocks) == DOC.count(COMPLETE_MARK), (
        f"every {COMPLETE_MARK} must sit on the line right before a ```yaml block"
    )
    for block in blocks:
        try:
            yaml.safe_load(block)
        except yaml.YAMLError as exc:
            raise AssertionError(f"complete manifest does not parse:\n{block}\n{exc}") from exc


def test_table_lists_every_documented_code_once():
    rows = TABLE_ROW.findall(PROSE)
    listed = Counter(code for code, _, _ in rows)
    twice = sorted(code for code, n in listed.items() if n > 1)
    assert not twice, f"codes listed more than once in the table: {twice}"
    headings = dict(_headings())
    assert set(listed) == set(headings), (
        f"table and sections differ: only in the table {sorted(set(listed) - set(headings))}, "
        f"only as sections {sorted(set(headings) - set(listed))}"
    )
    for code, anchor, _ in rows:
        assert anchor == _slug(f"{code}: {headings[code]}"), f"{code}: link #{anchor} is broken"


def test_table_severities_of_lint_rules_match_their_defaults():
    severity = {code: level for code, _, level in TABLE_ROW.findall(PROSE)}
    for rule in RULES:
        assert severity.get(rule.code) == rule.severity.value, (
            f"{rule.code} defaults to {rule.severity.value}, the table says "
            f"{severity.get(rule.code)}"
        )


def test_internal_links_resolve():
    anchors = {_slug(title) for title in ANY_HEADING.findall(PROSE)}
    broken = sorted(set(re.findall(r"\]\(#([^)]+)\)", DOC)) - anchors)
    assert not broken, f"links to headings that do not exist: {broken}"
