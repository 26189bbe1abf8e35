"""No manifest and no handler module can stop hot reload.

Each hostile save must end as located diagnostics on that file, with the last good version
still registered and ``reload_status.ok`` false; the next good save must apply as usual.
Runs the real thread-backed watcher.
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_reload import Reloads, description
from tests.manifests import save, tools_yaml
from tooldeck import ToolRegistry
from tooldeck._reload import Watcher

CODE = re.compile(r"^TD\d{3}$")


def good(version: str) -> str:
    return tools_yaml("alpha", description=f"Describe a file in the project, version {version}.")


HOSTILE = {
    "recursive merge": "version: 1\nx: &a\n  <<: *a\n",
    "recursive merge through a list": "version: 1\nx: &a\n  <<: [*a, *a]\n",
    "huge integer": "version: 1\ntools:\n  - name: alpha\n    timeout: " + "9" * 5000 + "\n",
    "huge hex integer": "version: 1\nx: 0x" + "f" * 20000 + "\n",
    "nested groups pattern": textwrap.dedent(
        f"""\
        version: 1
        tools:
          - name: alpha
            handler: tooldeck.handlers.files:file_info
            description: Describe a file or directory in the project, with its size.
            params:
              - name: path
                type: string
                pattern: "{"(" * 3000 + "a" + ")" * 3000}"
                description: the path to describe
        """
    ),
    "merge bomb": "version: 1\n"
    + "a0: &a0 {}\n"
    + "".join(f"a{i}: &a{i} {{<<: [{', '.join([f'*a{i - 1}'] * 9)}]}}\n" for i in range(1, 12)),
    "deep flow nesting": "version: 1\nx: " + "[" * 50_000 + "]" * 50_000 + "\n",
    "deep block nesting": "version: 1\nx:\n" + "".join("  " * i + "- \n" for i in range(3000)),
    "binary garbage": "version: 1\n\x00\x01\x02",
}


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, ToolRegistry, Reloads]]:
    manifest = save(tmp_path / "tools.yaml", good("1"))
    registry, reloads = ToolRegistry(), Reloads()
    watcher = Watcher(registry, [tmp_path], on_reload=reloads).start()
    try:
        yield manifest, registry, reloads
    finally:
        watcher.stop()


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_hostile_save_is_reported_and_the_next_good_save_applies(watched, text: str):
    manifest, registry, reloads = watched
    mark = reloads.mark()
    save(manifest, text)
    events = reloads.wait(lambda es: any(not e.ok for e in es), mark, "the hostile save")
    problems = [d for e in events for d in e.diagnostics]
    assert problems
    for diagnostic in problems:
        assert CODE.match(diagnostic.code), diagnostic
        assert diagnostic.location is not None
        assert diagnostic.location.line >= 1
        assert diagnostic.location.column >= 1
        assert "Traceback" not in diagnostic.message
    assert description(registry, "alpha") == "Describe a file in the project, version 1."
    assert registry.reload_status.ok is False

    mark = reloads.mark()
    save(manifest, good("2"))
    reloads.wait(lambda es: any(e.ok and e.changes for e in es), mark, "the good save")
    assert description(registry, "alpha") == "Describe a file in the project, version 2."
    assert registry.reload_status.ok is True


@pytest.mark.parametrize("raised", ["SystemExit(3)", "KeyboardInterrupt()", "RecursionError()"])
def test_a_handler_module_that_raises_at_import_cannot_stop_the_watcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raised: str
):
    package = f"tdsec_reload_{abs(hash(raised))}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    module = tmp_path / package / "mod.py"
    module.write_text(f"raise {raised}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    manifests = tmp_path / "manifests"
    manifest = save(manifests / "tools.yaml", tools_yaml("alpha", handler=f"{package}.mod:run"))
    registry, reloads = ToolRegistry(), Reloads()
    watcher = Watcher(registry, [manifests], on_reload=reloads, allow_handlers=[package])
    try:
        watcher.start()
        assert registry.get_tool("alpha") is None
        assert registry.reload_status.ok is False
        codes = {d.code for e in reloads.events for d in e.diagnostics}
        assert codes
        assert codes <= {"TD311", "TD299"}

        module.write_text("def run(path: str) -> str:\n    return path\n")
        sys.modules.pop(f"{package}.mod", None)
        mark = reloads.mark()
        save(manifest, tools_yaml("alpha", handler=f"{package}.mod:run") + "# touched\n")
        reloads.wait(lambda es: any(e.ok and e.changes for e in es), mark, "the fixed module")
        assert registry.call("alpha", {"path": "x"}).text == "x"
    finally:
        watcher.stop()
        for name in [n for n in sys.modules if n.startswith(package)]:
            del sys.modules[name]


def test_failing_subscribers_cannot_stop_the_watcher(tmp_path: Path):
    manifest = save(tmp_path / "tools.yaml", good("1"))
    registry, reloads = ToolRegistry(), Reloads()

    def exits(*_args: object) -> None:
        raise SystemExit("a listener that exits")

    def records_then_exits(event: object) -> None:
        reloads(event)  # type: ignore[arg-type]
        raise SystemExit("a reload listener that exits")

    registry.subscribe(exits)
    with Watcher(registry, [tmp_path], on_reload=records_then_exits):
        for version in ("2", "3"):
            mark = reloads.mark()
            save(manifest, good(version))
            reloads.wait(lambda es: any(e.changes for e in es), mark, f"version {version}")
            assert description(registry, "alpha") == (
                f"Describe a file in the project, version {version}."
            )
    assert registry.reload_status.ok is True


def test_watcher_stop_never_raises(tmp_path: Path):
    save(tmp_path / "tools.yaml", good("1"))
    never_started = Watcher(ToolRegistry(), [tmp_path])
    never_started.stop()
    watcher = Watcher(ToolRegistry(), [tmp_path]).start()
    watcher.stop()
    watcher.stop()  # twice: the loop is gone by now
    with Watcher(ToolRegistry(), [tmp_path]) as inside:
        inside.stop()  # and once more by the context manager
