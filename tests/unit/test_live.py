"""LiveManifests without a watcher: edit real files, call ``apply`` and look at the outcome.

Each test writes manifests into its own ``tmp_path`` and feeds the changed paths to
:meth:`LiveManifests.apply` directly, the way :mod:`tooldeck._reload` does for watchfiles.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.manifests import INFO, names, save, tools_yaml
from tooldeck import Severity, ToolRegistry
from tooldeck._diagnostics import Diagnostic, SourceLocation
from tooldeck._registry import RegistryChange
from tooldeck.manifest._events import ReloadEvent, ReloadStatus
from tooldeck.manifest._live import LiveManifests
from tooldeck.manifest._loader import GROUP_PREFIX

MODULE = "tests.manifests"  # where payload() lives
SECRET = "s3cr3t-token-4711"


def code_handler() -> str:
    """A tool registered in code, never touched by a manifest reload."""
    return "from code"


# ------------------------------------------------------------------------------ helpers


def description(registry: ToolRegistry, name: str) -> str:
    spec = registry.get_tool(name)
    assert spec is not None, f"{name} is not registered"
    return spec.description


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """Two one-tool manifests, a.yaml (alpha) and b.yaml (beta)."""
    return (
        save(tmp_path / "a.yaml", tools_yaml("alpha")),
        save(tmp_path / "b.yaml", tools_yaml("beta")),
    )


@pytest.fixture
def live(tmp_path: Path, files: tuple[Path, Path]) -> LiveManifests:
    registry = ToolRegistry()
    manifests = LiveManifests(registry, [tmp_path], environ={})
    first = manifests.load()
    assert first.ok, first.lines()
    return manifests


# ------------------------------------------------------------------------- first load
def test_the_first_load_adds_every_file(tmp_path: Path, files: tuple[Path, Path]) -> None:
    a, b = files
    registry = ToolRegistry()
    live = LiveManifests(registry, [tmp_path], environ={})
    event = live.load()
    assert event.ok
    assert event.files == (str(a), str(b))
    assert event.lines() == [f"+ alpha  ({a})", f"+ beta  ({b})"]
    assert event.kept == ()
    assert names(registry) == {"alpha", "beta"}
    assert registry.group_of("alpha") == GROUP_PREFIX + str(a)
    assert registry.group_of("beta") == GROUP_PREFIX + str(b)
    assert [Path(f) for f in live.files()] == [a, b]


def test_applying_an_unchanged_file_changes_nothing(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, _ = files
    event = live.apply([a])
    assert event.ok
    assert event.files == (str(a),)
    assert event.changes == {}
    assert event.lines() == []


# ----------------------------------------------------------------- edit / add / delete
def test_an_edit_changes_the_tool(live: LiveManifests, files: tuple[Path, Path]) -> None:
    a, _ = files
    new = "Describe one file or directory of the project - type, size and line count."
    save(a, tools_yaml("alpha", description=new))
    event = live.apply([a])
    assert event.ok
    assert event.lines() == [f"~ alpha  ({a})"]
    assert event.changes[str(a)] == RegistryChange(changed=("alpha",))
    assert description(live.registry, "alpha") == new
    assert names(live.registry) == {"alpha", "beta"}


def test_renaming_a_tool_is_an_add_and_a_remove(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, _ = files
    save(a, tools_yaml("alpha_two"))
    event = live.apply([a])
    assert event.lines() == [f"+ alpha_two  ({a})", f"- alpha  ({a})"]
    assert names(live.registry) == {"alpha_two", "beta"}


def test_a_new_file_adds_its_tools(live: LiveManifests, tmp_path: Path) -> None:
    c = save(tmp_path / "c.yaml", tools_yaml("gamma", "delta"))
    event = live.apply([c])
    assert event.ok
    assert event.lines() == [f"+ delta  ({c})", f"+ gamma  ({c})"]
    assert names(live.registry) == {"alpha", "beta", "gamma", "delta"}
    assert [Path(f) for f in live.files()] == [tmp_path / n for n in ("a.yaml", "b.yaml", "c.yaml")]


def test_a_deleted_file_removes_its_tools_and_is_not_an_error(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, _ = files
    a.unlink()
    event = live.apply([a])
    assert event.ok
    assert event.diagnostics == ()
    assert event.kept == ()
    assert event.lines() == [f"- alpha  ({a})"]
    assert names(live.registry) == {"beta"}
    assert live.registry.reload_status.ok
    # a second notice about the same deletion is a no-op
    assert live.apply([a]).changes == {}


def test_paths_that_are_not_manifests_are_ignored(live: LiveManifests, tmp_path: Path) -> None:
    notes = save(tmp_path / "notes.txt", tools_yaml("nope"))
    hidden = save(tmp_path / ".hidden" / "h.yaml", tools_yaml("hidden"))
    temp = save(tmp_path / "a.yaml.tmp", tools_yaml("temp"))
    event = live.apply([notes, hidden, temp])
    assert event.files == ()
    assert event.changes == {}
    assert names(live.registry) == {"alpha", "beta"}


# --------------------------------------------------------------------- broken edits
BROKEN = {
    "syntax": ("version: 1\ntools: [\n", "TD204"),
    "schema": (
        "version: 1\ntools:\n  - name: alpha\n    handler: tooldeck.handlers.files:file_info\n"
        f"    descripton: {INFO}\n",
        "TD210",
    ),
    "handler": (tools_yaml("alpha", handler="tooldeck.handlers.files:no_such_function"), "TD312"),
    "module": (tools_yaml("alpha", handler="tooldeck.handlers.no_such_module:f"), "TD311"),
    "empty": ("", "TD205"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_edit_keeps_that_files_last_good_version_while_others_apply(
    live: LiveManifests, files: tuple[Path, Path], kind: str
) -> None:
    a, b = files
    text, code = BROKEN[kind]
    save(a, text)
    new_beta = "Describe a file or directory - the edited copy in the second file."
    save(b, tools_yaml("beta", "beta_extra", description=new_beta))
    event = live.apply([a, b])

    assert not event.ok
    assert event.kept == (str(a),)
    errors = [d for d in event.diagnostics if d.severity is Severity.ERROR]
    assert [d.code for d in errors] == [code]
    assert errors[0].location is not None
    assert errors[0].location.file == str(a)
    # a keeps its previous version, b's good edit lands in the same apply
    assert description(live.registry, "alpha") == INFO
    assert live.registry.group_of("alpha") == GROUP_PREFIX + str(a)
    assert description(live.registry, "beta") == new_beta
    assert names(live.registry) == {"alpha", "beta", "beta_extra"}
    assert event.lines() == [
        f"+ beta_extra  ({b})",
        f"~ beta  ({b})",
        errors[0].format(),
        f"kept the last good version of {a}",
    ]
    status = live.registry.reload_status
    assert not status.ok
    assert set(status.errors) == {str(a)}
    assert [d.code for d in status.errors[str(a)]] == [code]


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_fix_after_a_break_restores(
    live: LiveManifests, files: tuple[Path, Path], kind: str
) -> None:
    a, _ = files
    save(a, BROKEN[kind][0])
    assert not live.apply([a]).ok
    fixed = "Describe a file or directory in the project - fixed after the break."
    save(a, tools_yaml("alpha", description=fixed))
    event = live.apply([a])
    assert event.ok
    assert event.kept == ()
    assert event.lines() == [f"~ alpha  ({a})"]
    assert description(live.registry, "alpha") == fixed
    assert live.registry.reload_status.ok
    assert live.registry.reload_status.errors == {}


def test_a_broken_file_that_never_loaded_is_reported_but_not_kept(
    live: LiveManifests, tmp_path: Path
) -> None:
    c = save(tmp_path / "c.yaml", BROKEN["syntax"][0])
    event = live.apply([c])
    assert not event.ok
    assert event.kept == ()  # there is no previous version to keep
    assert [d.code for d in event.diagnostics] == ["TD204"]
    assert live.registry.reload_status.errors.keys() == {str(c)}
    save(c, tools_yaml("gamma"))
    event = live.apply([c])
    assert event.lines() == [f"+ gamma  ({c})"]
    assert live.registry.reload_status.ok


def test_deleting_a_broken_file_clears_its_errors(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, _ = files
    save(a, BROKEN["syntax"][0])
    live.apply([a])
    assert not live.registry.reload_status.ok
    a.unlink()
    event = live.apply([a])
    assert event.ok
    assert event.lines() == [f"- alpha  ({a})"]
    assert live.registry.reload_status.ok
    assert live.registry.reload_status.errors == {}
    assert names(live.registry) == {"beta"}


# ------------------------------------------------------------------ name conflicts
def test_a_cross_file_duplicate_keeps_the_new_files_previous_version(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, b = files
    save(b, tools_yaml("beta", "alpha", "beta_two"))  # alpha's name is on line 6
    event = live.apply([b])

    assert not event.ok
    assert event.kept == (str(b),)
    duplicates = [d for d in event.diagnostics if d.code == "TD220"]
    places = {(d.location.file, d.location.line, d.location.column) for d in duplicates}
    assert places == {(str(a), 3, 11), (str(b), 6, 11)}
    assert all(d.tool_name == "alpha" and d.severity is Severity.ERROR for d in duplicates)
    by_file = {d.location.file: d.message for d in duplicates}
    assert f"{a}:3:11" in by_file[str(b)]
    assert f"{b}:6:11" in by_file[str(a)]
    assert event.lines()[-1] == f"kept the last good version of {b}"
    # b's previous version stays (no beta_two), alpha stays a's
    assert names(live.registry) == {"alpha", "beta"}
    assert live.registry.group_of("alpha") == GROUP_PREFIX + str(a)
    assert live.registry.group_of("beta") == GROUP_PREFIX + str(b)
    assert list(live.registry.reload_status.errors) == [str(b)]


def test_a_file_held_back_by_a_clash_loads_once_the_other_file_gives_the_name_up(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, b = files
    save(b, tools_yaml("beta", "alpha", "beta_two"))
    assert live.apply([b]).kept == (str(b),)
    save(a, tools_yaml("alpha_renamed"))  # the clash goes away; b was not saved again
    event = live.apply([a])
    assert event.ok
    assert names(live.registry) == {"alpha", "alpha_renamed", "beta", "beta_two"}
    assert live.registry.group_of("alpha") == GROUP_PREFIX + str(b)
    assert live.registry.reload_status.ok
    assert live.registry.reload_status.errors == {}


def test_a_standing_clash_is_not_reported_again_on_unrelated_saves(
    live: LiveManifests, files: tuple[Path, Path], tmp_path: Path
) -> None:
    _, b = files
    save(b, tools_yaml("beta", "alpha"))
    live.apply([b])
    c = save(tmp_path / "c.yaml", tools_yaml("gamma"))
    event = live.apply([c])
    assert event.lines() == [f"+ gamma  ({c})"]
    assert list(live.registry.reload_status.errors) == [str(b)]  # still held, still listed


def test_a_duplicate_added_by_a_new_file_is_reported_and_the_file_not_loaded(
    live: LiveManifests, files: tuple[Path, Path], tmp_path: Path
) -> None:
    a, _ = files
    c = save(tmp_path / "c.yaml", tools_yaml("gamma", "alpha"))
    event = live.apply([c])
    assert [d.code for d in event.diagnostics] == ["TD220", "TD220"]
    assert event.kept == ()
    assert names(live.registry) == {"alpha", "beta"}
    assert live.registry.group_of("alpha") == GROUP_PREFIX + str(a)


def test_moving_a_tool_between_files_in_one_apply_is_not_a_conflict(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, b = files
    save(a, tools_yaml("alpha_two"))
    save(b, tools_yaml("beta", "alpha"))
    event = live.apply([a, b])
    assert event.ok, event.lines()
    assert live.registry.group_of("alpha") == GROUP_PREFIX + str(b)
    assert names(live.registry) == {"alpha", "alpha_two", "beta"}


def test_a_tool_registered_in_code_is_never_touched_by_reloads(tmp_path: Path) -> None:
    registry = ToolRegistry()
    registry.add_tool("shared", "A tool registered in code, never replaced.", code_handler)
    a = save(tmp_path / "a.yaml", tools_yaml("alpha"))
    b = save(tmp_path / "b.yaml", tools_yaml("beta"))
    live = LiveManifests(registry, [tmp_path], environ={})
    assert live.load().ok

    def untouched() -> None:
        spec = registry.get_tool("shared")
        assert spec is not None
        assert spec.handler is code_handler
        assert registry.group_of("shared") is None
        assert registry.call("shared").text == "from code"

    # a manifest claiming the code tool's name: a located conflict, its previous version kept
    save(a, tools_yaml("alpha", "shared"))
    save(b, tools_yaml("beta", "beta_two"))
    event = live.apply([a, b])
    (conflict,) = event.diagnostics
    assert conflict.code == "TD220"
    assert conflict.tool_name == "shared"
    assert "already registered by code" in conflict.message
    assert conflict.location is not None
    assert (conflict.location.file, conflict.location.line) == (str(a), 6)
    assert event.kept == (str(a),)
    assert event.lines() == [
        f"+ beta_two  ({b})",
        conflict.format(),
        f"kept the last good version of {a}",
    ]
    assert names(registry) == {"shared", "alpha", "beta", "beta_two"}
    assert list(registry.reload_status.errors) == [str(a)]
    untouched()

    # a new file claiming it is not loaded either
    c = save(tmp_path / "c.yaml", tools_yaml("shared"))
    assert [d.code for d in live.apply([c]).diagnostics] == ["TD220"]
    untouched()

    # deletions, full reloads and fixes never remove it
    c.unlink()
    b.unlink()
    live.apply([b, c])
    untouched()
    save(a, tools_yaml("alpha"))
    assert live.apply([a]).ok
    live.load()
    untouched()
    a.unlink()
    live.apply([a])
    assert names(registry) == {"shared"}
    untouched()


# -------------------------------------------------------------- status and subscribers
def test_reload_status_describes_the_last_reload(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, b = files
    status = live.registry.reload_status
    assert isinstance(status, ReloadStatus)
    assert status.ok
    assert status.reloads == 1
    assert status.errors == {}
    before = time.time()
    save(a, BROKEN["syntax"][0])
    event = live.apply([a])
    status = live.registry.reload_status
    assert status.last is event
    assert status.reloads == 2
    assert not status.ok
    assert before <= status.at <= time.time()
    assert status.errors == {str(a): tuple(d for d in event.diagnostics)}

    # a good reload of another file: the broken one is still held back
    save(b, tools_yaml("beta", "beta_two"))
    event = live.apply([b])
    assert event.ok
    status = live.registry.reload_status
    assert status.last is event
    assert status.reloads == 3
    assert not status.ok  # a.yaml is still at its older version
    assert list(status.errors) == [str(a)]

    save(a, tools_yaml("alpha"))
    live.apply([a])
    status = live.registry.reload_status
    assert (status.ok, status.reloads, status.errors) == (True, 4, {})


def test_subscribers_get_every_reload_event(live: LiveManifests, files: tuple[Path, Path]) -> None:
    a, _ = files
    seen: list[ReloadEvent] = []
    unsubscribe = live.subscribe(seen.append)
    save(a, tools_yaml("alpha_two"))
    first = live.apply([a])
    save(a, BROKEN["syntax"][0])
    second = live.apply([a])
    unchanged = live.apply([a])
    assert seen == [first, second, unchanged]
    assert seen[0] is first
    unsubscribe()
    live.load()
    assert len(seen) == 3


def test_reload_event_lines_text() -> None:
    change = RegistryChange(
        added=("new_tool",),
        removed=("old_tool",),
        changed=("edited_tool",),
        prompts_added=("intro",),
        prompts_removed=("outro",),
        prompts_changed=("middle",),
        servers_added=("docs",),
        servers_removed=("wiki",),
        servers_changed=("search",),
    )
    problem = Diagnostic(
        code="TD204",
        message="did not find expected node content",
        location=SourceLocation(file="m/b.yaml", line=3, column=1),
    )
    event = ReloadEvent(
        changes={"m/a.yaml": change},
        diagnostics=(problem,),
        kept=("m/b.yaml",),
        files=("m/a.yaml", "m/b.yaml"),
    )
    assert not event.ok
    assert event.lines() == [
        "+ new_tool  (m/a.yaml)",
        "~ edited_tool  (m/a.yaml)",
        "- old_tool  (m/a.yaml)",
        "+ prompt intro  (m/a.yaml)",
        "~ prompt middle  (m/a.yaml)",
        "- prompt outro  (m/a.yaml)",
        "+ mcp server docs  (m/a.yaml)",
        "~ mcp server search  (m/a.yaml)",
        "- mcp server wiki  (m/a.yaml)",
        "m/b.yaml:3:1: TD204 did not find expected node content",
        "kept the last good version of m/b.yaml",
    ]
    assert ReloadEvent().lines() == []
    assert ReloadEvent().ok
    warning = Diagnostic(code="TD401", message="short", severity=Severity.WARNING)
    assert ReloadEvent(diagnostics=(warning,)).ok


def test_prompt_changes_are_reported(live: LiveManifests, tmp_path: Path) -> None:
    c = tmp_path / "c.yaml"
    prompt = (
        "version: 1\nprompts:\n  - name: intro\n    role: user\n"
        "    description: Ask the model to introduce the project to a new reader.\n"
        "    template: {text}\n"
    )
    save(c, prompt.format(text="Introduce the project."))
    assert live.apply([c]).lines() == [f"+ prompt intro  ({c})"]
    save(c, prompt.format(text="Introduce the project in two sentences."))
    assert live.apply([c]).lines() == [f"~ prompt intro  ({c})"]
    c.unlink()
    assert live.apply([c]).lines() == [f"- prompt intro  ({c})"]


# ------------------------------------------------------------------ one atomic swap
def test_several_files_in_one_apply_are_swapped_at_once(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, b = files
    registry = live.registry
    notices: list[tuple[str | None, RegistryChange, set[str]]] = []

    def record(group: str | None, change: RegistryChange) -> None:
        # what a reader sees at the moment each file's change is published
        notices.append((group, change, names(registry)))

    registry.subscribe(record)
    events: list[ReloadEvent] = []
    live.subscribe(events.append)
    save(a, tools_yaml("alpha", "alpha_new"))
    save(b, tools_yaml("beta", "beta_new"))
    live.apply([a, b])

    assert len(events) == 1
    assert [(group, change) for group, change, _ in notices] == [
        (GROUP_PREFIX + str(a), RegistryChange(added=("alpha_new",))),
        (GROUP_PREFIX + str(b), RegistryChange(added=("beta_new",))),
    ]
    # both notices come after the one swap: each already sees both files' new tools
    for _, _, seen in notices:
        assert seen == {"alpha", "alpha_new", "beta", "beta_new"}


def test_readers_never_see_half_of_a_multi_file_apply(
    live: LiveManifests, files: tuple[Path, Path]
) -> None:
    a, b = files
    registry = live.registry
    versions = [
        (tools_yaml("alpha", "alpha_v1"), tools_yaml("beta", "beta_v1")),
        (tools_yaml("alpha", "alpha_v2"), tools_yaml("beta", "beta_v2")),
    ]
    stop = threading.Event()
    torn: list[set[str]] = []
    reads = 0

    def reader() -> None:
        nonlocal reads
        while not stop.is_set():
            seen = names(registry)  # one snapshot
            reads += 1
            if ("alpha_v1" in seen) != ("beta_v1" in seen) or ("alpha_v2" in seen) != (
                "beta_v2" in seen
            ):
                torn.append(seen)

    # switch threads very often, so that the reader gets to look in the middle of applies
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for i in range(40):
            text_a, text_b = versions[i % 2]
            save(a, text_a)
            save(b, text_b)
            assert live.apply([a, b]).ok
    finally:
        stop.set()
        thread.join(10)
        sys.setswitchinterval(interval)
    assert not thread.is_alive()
    assert reads > 0
    assert torn == []
    assert names(registry) == {"alpha", "alpha_v2", "beta", "beta_v2"}


# ------------------------------------------------------------------ result shaping
def test_an_edit_of_result_shaping_changes_what_calls_return(tmp_path: Path) -> None:
    shaped = (
        "version: 1\ntools:\n  - name: word\n    handler: {module}:payload\n"
        "    description: Return one word picked from the payload by the result select.\n"
        "    result: {{select: {select}}}\n"
    )
    m = save(tmp_path / "m.yaml", shaped.format(module=MODULE, select="old"))
    registry = ToolRegistry()
    live = LiveManifests(registry, [m], allow_handlers=["tests.manifests"], environ={})
    assert live.load().ok
    assert registry.call("word").text == "v1"
    save(m, shaped.format(module=MODULE, select="new"))
    assert live.apply([m]).lines() == [f"~ word  ({m})"]
    assert registry.call("word").text == "v2"


# ------------------------------------------------------ secrets, subscribers, handlers
def test_reload_status_errors_are_redacted(tmp_path: Path) -> None:
    m = save(
        tmp_path / "m.yaml",
        "version: 1\ntools:\n  - name: read_file\n    handler: tooldeck.handlers.files:read_file\n"
        "    description: Read part of a text file in the project as plain lines.\n"
        "    params:\n"
        '      - {name: path, description: "File path relative to the project directory"}\n'
        '      - {name: max_lines, type: integer, default: "${env:TD_TOKEN}", description: "n"}\n',
    )
    registry = ToolRegistry()
    live = LiveManifests(registry, [m], environ={"TD_TOKEN": SECRET})
    event = live.load()
    assert [d.code for d in event.diagnostics] == ["TD108"]
    assert SECRET not in event.diagnostics[0].message
    assert '"***"' in event.diagnostics[0].message
    (errors,) = registry.reload_status.errors.values()
    assert [d.code for d in errors] == ["TD108"]
    assert all(SECRET not in d.message for d in errors)
    assert all(SECRET not in line for line in event.lines())


def test_a_failing_subscriber_does_not_break_the_reload(
    live: LiveManifests, files: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    a, _ = files
    seen: list[ReloadEvent] = []

    def broken(event: ReloadEvent) -> None:
        raise RuntimeError("subscriber bug")

    live.subscribe(broken)
    live.subscribe(seen.append)
    save(a, tools_yaml("alpha_two"))
    event = live.apply([a])  # does not raise
    assert seen == [event]
    assert names(live.registry) == {"alpha_two", "beta"}
    assert live.registry.reload_status.last is event
    assert any("subscriber bug" in record.getMessage() for record in caplog.records)


def test_a_handler_module_edit_break_and_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module_name = f"td_live_unit_{uuid.uuid4().hex[:12]}"
    source = tmp_path / "src" / f"{module_name}.py"
    handler = "def word() -> str:\n    '''Return a fixed word.'''\n    return {value!r}\n"
    save(source, handler.format(value="first"))
    monkeypatch.syspath_prepend(str(source.parent))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.delitem(sys.modules, module_name, raising=False)  # removed again at teardown
    m = save(
        tmp_path / "m" / "m.yaml",
        "version: 1\ntools:\n  - name: word\n"
        f"    handler: {module_name}:word\n"
        "    description: Return a fixed word from a module that is edited by the test.\n",
    )
    registry = ToolRegistry()
    live = LiveManifests(
        registry, [m.parent], allow_handlers=[module_name], reload_handlers=True, environ={}
    )
    assert live.load().ok
    assert live.handler_files() == {str(source.resolve()): module_name}
    assert registry.call("word").text == "first"

    save(source, handler.format(value="second value"))
    edited = live.apply([source])
    assert edited.files == (str(m),)
    assert edited.lines() == [f"~ word  ({m})"]
    assert registry.call("word").text == "second value"

    # a module that no longer imports: the tools using it keep their previous version
    save(source, "def word() -> str:\n    return (\n")
    broken = live.apply([source])
    (problem,) = broken.diagnostics
    assert problem.code == "TD311"
    assert module_name in problem.message
    assert "SyntaxError" in problem.message
    assert problem.location is not None
    assert (problem.location.file, problem.location.line) == (str(m), 4)
    assert broken.kept == (str(m),)
    assert registry.call("word").text == "second value"
    assert list(registry.reload_status.errors) == [str(m)]

    # the module is still known, so its fix is picked up
    assert live.handler_files() == {str(source.resolve()): module_name}
    save(source, handler.format(value="third, fixed"))
    fixed = live.apply([source])
    assert fixed.ok
    assert fixed.lines() == [f"~ word  ({m})"]
    assert registry.call("word").text == "third, fixed"
    assert registry.reload_status.ok


def test_without_reload_handlers_a_module_edit_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module_name = f"td_live_unit_{uuid.uuid4().hex[:12]}"
    source = save(tmp_path / "src" / f"{module_name}.py", "def word() -> str:\n    return 'a'\n")
    monkeypatch.syspath_prepend(str(source.parent))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.delitem(sys.modules, module_name, raising=False)
    m = save(
        tmp_path / "m" / "m.yaml",
        "version: 1\ntools:\n  - name: word\n"
        f"    handler: {module_name}:word\n"
        "    description: Return a fixed word from a module that is edited by the test.\n",
    )
    registry = ToolRegistry()
    live = LiveManifests(registry, [m.parent], allow_handlers=[module_name], environ={})
    assert live.load().ok
    assert live.handler_files() == {str(source.resolve()): module_name}
    save(source, "def word() -> str:\n    return 'changed'\n")
    event = live.apply([source])
    assert event.files == ()
    assert registry.call("word").text == "a"


def test_reload_errors_are_logged_with_their_location(
    live: LiveManifests, files: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    a, _ = files
    save(a, "version: 1\ntools: 5\n")
    with caplog.at_level(logging.INFO, logger="tooldeck.reload"):
        live.apply([a])
        save(a, tools_yaml("alpha", "alpha_two"))
        live.apply([a])
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith(f"{a}:2:8: TD212") for m in messages), messages
    assert f"kept the last good version of {a}" in messages
    assert f"reloaded {a}: +1 ~0 -0 tools" in messages


def test_a_clash_with_code_blames_the_file_that_tried_and_its_kind(tmp_path: Path) -> None:
    """The registry says which group and kind clashed: a prompt of the same name is no clash."""
    registry = ToolRegistry()
    registry.add_tool("shared", "A tool registered in code, never replaced.", code_handler)
    a = save(
        tmp_path / "a.yaml",
        "version: 1\nprompts:\n  - name: shared\n    description: A prompt.\n    template: Hi\n",
    )
    b = save(tmp_path / "b.yaml", tools_yaml("beta", "shared"))
    live = LiveManifests(registry, [tmp_path], environ={})
    event = live.load()
    (conflict,) = event.diagnostics
    assert (conflict.code, conflict.tool_name) == ("TD220", "shared")
    assert conflict.message == "tool 'shared' is already registered by code; rename it"
    assert conflict.location is not None
    assert (conflict.location.file, conflict.location.json_path) == (str(b), "$.tools[1].name")
    assert live.registered() == [str(a)]
    assert registry.get_prompt("shared") is not None


# ------------------------------------------------------------------ who owns the status
def test_the_status_belongs_to_the_manifests_and_the_registry_only_reads_it(
    tmp_path: Path, files: tuple[Path, Path]
) -> None:
    import gc
    import weakref

    registry = ToolRegistry()
    assert registry.reload_status is None
    with pytest.raises(AttributeError):
        registry.reload_status = None  # type: ignore[misc]  # read-only: not the registry's
    live = LiveManifests(registry, [tmp_path], environ={})
    assert live.status is None
    live.load()
    status = live.status
    assert isinstance(status, ReloadStatus)
    assert registry.reload_status is status
    # a one-shot load leaves its status, not its documents, with the registry
    gone = weakref.ref(live)
    del live
    gc.collect()
    assert gone() is None
    assert registry.reload_status is status


def test_the_registry_follows_the_manifests_that_reloaded_last(
    tmp_path: Path, files: tuple[Path, Path]
) -> None:
    a, b = files
    registry = ToolRegistry()
    first = LiveManifests(registry, [a], environ={})
    second = LiveManifests(registry, [b], environ={})
    first.load()
    second.load()
    assert registry.reload_status is second.status
    first.apply([a])
    assert registry.reload_status is first.status
    assert first.status is not None
    assert first.status.reloads == 2


def test_any_typed_status_source_can_answer_for_the_registry() -> None:
    from tooldeck._lastreload import ReloadStatusHolder, ReloadStatusSource

    holder = ReloadStatusHolder()
    source: ReloadStatusSource = holder
    registry = ToolRegistry()
    registry.follow_reloads(source)
    assert registry.reload_status is None
    holder.status = ReloadStatus(ok=True, last=ReloadEvent(), reloads=1, at=0.0)
    assert registry.reload_status is holder.status
