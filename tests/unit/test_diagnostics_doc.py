"""The diagnostics pages document every diagnostic code the engine can emit, and nothing else.

``docs/diagnostics.md`` is the overview (grouping, severities, the table of every code, the
example application) and ``docs/diagnostics/td1xx.md`` ... ``td5xx.md`` hold one section per
code. A new ``TDnnn`` in ``engine/`` without a ``## TDnnn: short-name`` section on its group's
page fails here, as does a section for a code the engine no longer has. Reads files only (plus
the lint rule table), so it stays fast.
"""

import re
from collections import Counter
from itertools import pairwise
from pathlib import Path

import yaml

from tests.conftest import ROOT
from tooldeck._lint.runner import RULES

INDEX_PATH = ROOT / "docs" / "diagnostics.md"
GROUP_PATHS = sorted((ROOT / "docs" / "diagnostics").glob("td*.md"))
INDEX = INDEX_PATH.read_text(encoding="utf-8")
GROUPS = {path: path.read_text(encoding="utf-8") for path in GROUP_PATHS}

CODE = re.compile(r"\bTD\d{3}\b")
HEADING = re.compile(r"^## (TD\d{3}): ([a-z0-9]+(?:-[a-z0-9]+)*)$", re.MULTILINE)
ANY_HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
# The overview's table: each row keeps the anchors the one-page document had (#td101 and
# #td101-short-name) and links to the code's section on its group's page.
TABLE_ROW = re.compile(
    r'^\| <span id="(td\d{3})"></span><span id="([^"]+)"></span>'
    r"\[(TD\d{3})\]\(diagnostics/(td\dxx)\.md#([^)]+)\) \| (error|warning|info) \| .+ \|$",
    re.MULTILINE,
)
COMPLETE_MARK = "<!-- complete -->"
COMPLETE_BLOCK = re.compile(r"<!-- complete -->\n```yaml\n(.*?)^```", re.MULTILINE | re.DOTALL)
SECTION_PARTS = ("**What it catches", "**Why it matters", "**Bad", "**Good", "**Message")
LINK = re.compile(r"\]\(([^)#\s]*)#([^)]+)\)")


def _engine_codes() -> dict[str, list[str]]:
    """Every code token in engine/**/*.py -> the files it occurs in."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for code in sorted(set(CODE.findall(text))):
            found.setdefault(code, []).append(str(path.relative_to(ROOT)))
    return found


def _prose(text: str) -> str:
    """A page with fenced code blocks blanked out (a ``# comment`` is no heading).

    Blanked characters become spaces, so offsets into it are offsets into the page.
    """
    lines = text.splitlines(keepends=True)
    fenced = False
    for index, line in enumerate(lines):
        fence = line.startswith("```")
        if fence or fenced:
            lines[index] = re.sub(r"[^\n]", " ", line)
        if fence:
            fenced = not fenced
    return "".join(lines)


PROSE = {path: _prose(text) for path, text in GROUPS.items()}
INDEX_PROSE = _prose(INDEX)


def _headings() -> list[tuple[str, str]]:
    return [h for path in GROUP_PATHS for h in HEADING.findall(PROSE[path])]


def _sections() -> dict[str, str]:
    """Code -> the text of its section, up to the next heading of any level."""
    sections = {}
    for path, text in GROUPS.items():
        prose = PROSE[path]
        bounds = [m.start() for m in ANY_HEADING.finditer(prose)] + [len(text)]
        for start, end in pairwise(bounds):
            match = HEADING.match(prose, start)
            if match:
                sections[match.group(1)] = text[start:end]
    return sections


def _slug(heading: str) -> str:
    """The anchor GitHub (and MkDocs' toc) gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    prose = INDEX_PROSE if path == INDEX_PATH else PROSE[path]
    ids = set(re.findall(r'<span id="([^"]+)"></span>', prose))
    return {_slug(title) for title in ANY_HEADING.findall(prose)} | ids


def test_every_engine_code_is_documented():
    engine = _engine_codes()
    assert len(engine) > 10, "the scan of engine/ found almost no codes; is the pattern broken?"
    documented = {code for code, _ in _headings()}
    missing = {code: files for code, files in engine.items() if code not in documented}
    assert not missing, (
        "codes emitted by the engine without a '## TDnnn: short-name' section in "
        f"docs/diagnostics/tdNxx.md: {missing}"
    )


def test_every_documented_code_exists_in_the_engine():
    engine = _engine_codes()
    stale = sorted(code for code, _ in _headings() if code not in engine)
    assert not stale, f"the diagnostics pages document codes the engine never emits: {stale}"


def test_one_page_per_group_and_each_code_on_its_groups_page():
    assert [path.name for path in GROUP_PATHS] == [f"td{n}xx.md" for n in range(1, 6)]
    for path in GROUP_PATHS:
        wrong = [code for code, _ in HEADING.findall(PROSE[path]) if code[2] != path.name[2]]
        assert not wrong, f"{path.name} holds codes of another group: {wrong}"


def test_headings_are_unique_and_well_formed():
    codes = [code for code, _ in _headings()]
    duplicates = sorted(code for code, n in Counter(codes).items() if n > 1)
    assert not duplicates, f"codes with more than one section: {duplicates}"
    assert codes == sorted(codes), "sections should be in code order"
    loose = [
        line
        for path in GROUP_PATHS
        for line in PROSE[path].splitlines()
        if line.startswith("## TD") and not HEADING.fullmatch(line)
    ]
    assert not loose, f"headings not of the form '## TDnnn: short-name': {loose}"


def test_lint_rule_sections_use_the_rule_names():
    names = dict(_headings())
    for rule in RULES:
        assert names.get(rule.code) == rule.name, (
            f"{rule.code} is the lint rule {rule.name!r}; its heading should be "
            f"'## {rule.code}: {rule.name}'"
        )


def test_every_section_has_what_why_bad_good_and_a_message():
    for code, text in _sections().items():
        missing = [part for part in SECTION_PARTS if part not in text]
        assert not missing, f"{code}: section lacks {missing}"
        message = text.split("**Message", 1)[1]
        assert code in message, f"{code}: the example message does not show the code"


def test_complete_yaml_blocks_parse():
    pages = [INDEX, *GROUPS.values()]
    blocks = [block for text in pages for block in COMPLETE_BLOCK.findall(text)]
    assert blocks, "no <!-- complete --> yaml blocks found"
    assert len(blocks) == sum(text.count(COMPLETE_MARK) for text in pages), (
        f"every {COMPLETE_MARK} must sit on the line right before a ```yaml block"
    )
    for block in blocks:
        try:
            yaml.safe_load(block)
        except yaml.YAMLError as exc:
            raise AssertionError(f"complete manifest does not parse:\n{block}\n{exc}") from exc


def test_table_lists_every_documented_code_once():
    rows = TABLE_ROW.findall(INDEX_PROSE)
    listed = Counter(code for _, _, code, _, _, _ in rows)
    twice = sorted(code for code, n in listed.items() if n > 1)
    assert not twice, f"codes listed more than once in the table: {twice}"
    headings = dict(_headings())
    assert set(listed) == set(headings), (
        f"table and sections differ: only in the table {sorted(set(listed) - set(headings))}, "
        f"only as sections {sorted(set(headings) - set(listed))}"
    )
    for short, long, code, page, anchor, _ in rows:
        slug = _slug(f"{code}: {headings[code]}")
        assert (short, long, anchor) == (code.lower(), slug, slug), f"{code}: anchors differ"
        assert page == f"td{code[2]}xx", f"{code}: the row links to {page}.md"


def test_table_severities_of_lint_rules_match_their_defaults():
    severity = {code: level for _, _, code, _, _, level in TABLE_ROW.findall(INDEX_PROSE)}
    for rule in RULES:
        assert severity.get(rule.code) == rule.severity.value, (
            f"{rule.code} defaults to {rule.severity.value}, the table says "
            f"{severity.get(rule.code)}"
        )


def test_the_sarif_help_anchor_of_every_code_is_on_the_overview():
    """``tooldeck lint --format sarif`` points each rule at docs/diagnostics.md#tdnnn."""
    anchors = _anchors(INDEX_PATH)
    missing = sorted(code for code, _ in _headings() if code.lower() not in anchors)
    assert not missing, f"docs/diagnostics.md has no #tdnnn anchor for {missing}"


def test_links_between_the_pages_resolve():
    broken = []
    for path in [INDEX_PATH, *GROUP_PATHS]:
        text = INDEX if path == INDEX_PATH else GROUPS[path]
        for target, anchor in LINK.findall(text):
            if target.startswith("http"):
                continue
            resolved = (path.parent / target).resolve() if target else path
            if not resolved.is_file() or anchor not in _anchors(resolved):
                broken.append(f"{path.name}: {target}#{anchor}")
    assert not broken, f"links to headings that do not exist: {broken}"
