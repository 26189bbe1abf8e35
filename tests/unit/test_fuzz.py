"""Untrusted input never escapes as an exception: mutated manifests, odd arguments."""

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import ToolRegistry, load_manifests

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = (ROOT / "manifests" / "files.yaml").read_text(encoding="utf-8")
SNIPPETS = [
    ":",
    "- ",
    "  ",
    "\t",
    "{",
    "}",
    "[",
    "]",
    "&a ",
    "*a",
    "!!binary ",
    "${env:X}",
    "${config:y}",
    "\n",
    "'",
    '"',
    "#",
    "version: 2\n",
    "handler: os:system\n",
    "~",
]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = MANIFEST
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:at] + draw(st.sampled_from(SNIPPETS) | st.text(max_size=3)) + text[at:]
        else:
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
    return text


@settings(
    max_examples=150,
    deadline=None,
    # added to the profile's (the ci profile suppresses too_slow), not instead of them
    suppress_health_check=[
        *settings.default.suppress_health_check,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(text=mutated())
def test_a_mutated_manifest_loads_or_reports_located_problems(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("m") / "files.yaml"
    path.write_text(text, encoding="utf-8")
    registry, result = load_manifests([path], environ={})
    for diagnostic in result.diagnostics:
        assert diagnostic.location is not None
        assert diagnostic.location.line >= 1
        assert diagnostic.code.startswith("TD")
        assert "\n" not in diagnostic.format()
    if result.ok:
        assert len(registry) >= 1


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(
    arguments=st.one_of(
        st.text(max_size=30),
        st.binary(max_size=30),
        JSON,
        JSON.map(json.dumps),
        st.dictionaries(
            st.sampled_from(["path", "start_line", "max_lines", "x"]), JSON, max_size=4
        ),
    )
)
def test_any_arguments_give_a_result(tmp_path_factory, arguments):
    registry = ToolRegistry(project_dir=tmp_path_factory.getbasetemp(), lenient=True)
    load_manifests([ROOT / "manifests"], registry=registry)
    result = registry.call("read_file", arguments)
    assert result.ok or result.error.kind in ("invalid_arguments", "execution_error")
    assert isinstance(result.text, str)
