"""``resources:`` in manifests: real YAML files on disk, loaded and reloaded.

Each mistake comes back located (line:col) with its code: the meta-schema's
(TD211-TD213), the registry's own declaration checks (TD121, at the field its
path names) and TD220 for a URI declared twice (in a file, and across files).
A reload adds, changes and removes resources with the file's tools, and a
broken edit keeps the last good ones.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.manifests import save
from tooldeck import ResourceError, ToolRegistry, load_manifests
from tooldeck.manifest._live import LiveManifests

HEADER = "version: 1\n"
README = "# The project\n\nHello.\n"
GOOD = """version: 1
bundle: docs
auth: {scopes: ["docs:read"]}
tools:
  - handler: tooldeck.handlers.files:file_info
resources:
  - {uri: "docs://readme", name: readme, description: The project's README.,
     mime_type: text/markdown, file: README.md}
  - uri_template: "files://{+path}"
    name: info
    description: What is known about one file of the project.
    handler: tooldeck.handlers.files:file_info
    auth: {scopes: ["files:read", "docs:read"]}
  - uri_template: "lines://{path}/{start_line}"
    name: lines
    description: Lines of a file from a line on.
    handler: tooldeck.handlers.files:read_file
    params:
      - {name: path, description: A file of the project.}
      - {name: start_line, type: integer, minimum: 1, description: The first line.}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    (tmp_path / "manifests").mkdir()
    return tmp_path


def load(project: Path, text: str, name: str = "r.yaml") -> tuple[ToolRegistry, list[str]]:
    path = save(project / "manifests" / name, text)
    registry, result = load_manifests([path], project_dir=project, environ={})
    shown = [d.format().replace(str(path), name) for d in result.diagnostics]
    return registry, shown


# ------------------------------------------------------------------------------ loading
def test_a_manifest_declares_fixed_resources_and_templates(project: Path) -> None:
    registry, shown = load(project, GOOD)
    assert shown == []
    (readme,) = registry.resources()
    assert (readme.uri, readme.name, readme.mime_type, readme.file) == (
        "docs://readme",
        "readme",
        "text/markdown",
        "README.md",
    )
    assert readme.bundle == "docs"
    assert readme.scopes == ("docs:read",)  # the file's auth applies, as to its tools
    assert readme.origin is not None
    assert (readme.origin.line, readme.origin.column) == (7, 5)
    info, lines = registry.resource_templates()
    assert info.uri_template == "files://{+path}"
    assert [p.name for p in info.params] == ["path"]  # inferred from the handler
    assert info.scopes == ("docs:read", "files:read")  # the file's first, each once
    assert [p.name for p in lines.params] == ["path", "start_line"]
    assert registry.read_resource("docs://readme")[0].text == README
    assert '"type": "file"' in (registry.read_resource("files://README.md")[0].text or "")
    assert registry.read_resource("lines://README.md/3")[0].text is not None
    with pytest.raises(ResourceError) as caught:
        registry.read_resource("lines://README.md/zero")
    assert caught.value.kind == "invalid_arguments"


def test_interpolation_applies_to_resources(project: Path) -> None:
    text = (
        HEADER + "resources:\n"
        "  - {uri: '${config:docs.uri}', name: readme, file: README.md,\n"
        "     description: '${env:DOC_TEXT:-The README}'}\n"
    )
    path = save(project / "manifests" / "r.yaml", text)
    registry, result = load_manifests(
        [path], project_dir=project, config={"docs": {"uri": "docs://main"}}, environ={}
    )
    assert result.diagnostics == []
    (spec,) = registry.resources()
    assert (spec.uri, spec.description) == ("docs://main", "The README")


MISTAKES = {
    "no name": (
        "resources:\n  - {uri: 'docs://a', file: README.md}\n",
        "r.yaml:3:5: TD211 missing required key 'name'",
    ),
    "uri and template": (
        "resources:\n  - {name: a, uri: 'docs://a', uri_template: 'docs://{x}', file: a.md}\n",
        "r.yaml:3:5: TD213 needs exactly one of 'uri' or 'uri_template'; has both 'uri' and "
        "'uri_template'",
    ),
    "neither file nor handler": (
        "resources:\n  - {name: a, uri: 'docs://a'}\n",
        "r.yaml:3:5: TD213 needs exactly one of 'file' or 'handler'; has neither",
    ),
    "wrong type": (
        "resources:\n  - {name: a, uri: 'docs://a', file: README.md, tags: docs}\n",
        'r.yaml:3:55: TD212 expected array, got string "docs"',
    ),
    "variable without a parameter": (
        "resources:\n  - name: order\n    uri_template: 'orders://{order_id}'\n"
        "    handler: tooldeck.handlers.files:file_info\n    params: [{name: path}]\n",
        "r.yaml:4:19: TD121 uri_template uses {order_id} but declares no parameter "
        "'order_id'; add it to params",
    ),
    "parameter without a variable": (
        "resources:\n  - name: info\n    uri_template: 'files://{path}'\n"
        "    handler: tooldeck.handlers.files:read_file\n"
        "    params: [{name: path}, {name: start_line, type: integer}]\n",
        "r.yaml:6:35: TD121 parameter 'start_line' is not a variable of uri_template "
        "'files://{path}'; a URI can only carry the template's variables",
    ),
    "unsupported expression": (
        "resources:\n  - name: search\n    uri_template: 'search://{?q}'\n"
        "    handler: tooldeck.handlers.files:file_info\n",
        "r.yaml:4:19: TD121 'search://{?q}': {?q} is not supported; use {name} for one path "
        "segment or {+name} for a value that may contain '/'",
    ),
    "file outside": (
        "resources:\n  - {name: secrets, uri: 'docs://x', file: ../secrets.txt}\n",
        "r.yaml:3:44: TD121 file '../secrets.txt' is outside the project directory; name a "
        "file inside it, relative to it (such as README.md)",
    ),
    "absolute file": (
        "resources:\n  - {name: pw, uri: 'docs://x', file: /etc/passwd}\n",
        "r.yaml:3:39: TD121 file '/etc/passwd' is outside the project directory",
    ),
    "file on a template": (
        "resources:\n  - {name: t, uri_template: 'docs://{p}', file: README.md,\n"
        "     params: [{name: p}]}\n",
        "r.yaml:3:49: TD121 file: serves one fixed resource; use uri:, not uri_template",
    ),
    "not a uri": (
        "resources:\n  - {name: r, uri: 'README.md', file: README.md}\n",
        "r.yaml:3:20: TD121 uri 'README.md' is not an absolute URI",
    ),
    "not a media type": (
        "resources:\n  - {name: r, uri: 'docs://r', file: README.md, mime_type: markdown}\n",
        "r.yaml:3:60: TD121 mime_type 'markdown' is not a media type such as text/markdown",
    ),
    "handler not allowed": (
        "resources:\n  - {name: r, uri: 'docs://r', handler: 'os:getcwd'}\n",
        "r.yaml:3:41: TD310 handler module 'os' is not allowed",
    ),
    "same uri twice": (
        "resources:\n  - {name: a, uri: 'docs://r', file: README.md}\n"
        "  - {name: b, uri: 'docs://r', file: README.md}\n",
        "r.yaml:4:20: TD220 resource 'docs://r' is declared twice in this file (first at line 3)",
    ),
}


@pytest.mark.parametrize("body", MISTAKES.values(), ids=list(MISTAKES))
def test_every_mistake_is_located_with_its_code(project: Path, body: tuple[str, str]) -> None:
    text, expected = body
    registry, shown = load(project, HEADER + text)
    assert len(shown) == 1, shown
    assert shown[0].startswith(expected), shown
    assert registry.resources() == ()
    assert registry.resource_templates() == ()


def test_one_bad_entry_does_not_hide_the_others_mistakes(project: Path) -> None:
    text = (
        HEADER + "resources:\n"
        "  - {name: a, uri: 'docs://a', file: ../x}\n"
        "  - {name: b, uri: 'docs://b', file: README.md}\n"
        "  - {name: c, uri: 'not a uri', file: README.md}\n"
    )
    _, shown = load(project, text)
    assert [line.split(" ", 2)[:2] for line in shown] == [
        ["r.yaml:3:38:", "TD121"],
        ["r.yaml:5:20:", "TD121"],
    ]


def test_a_uri_in_two_files_is_reported_at_both(project: Path) -> None:
    one = save(project / "manifests" / "a.yaml", GOOD)
    two = save(
        project / "manifests" / "b.yaml",
        HEADER + "resources:\n  - {name: other, uri: 'docs://readme', file: README.md}\n",
    )
    registry, result = load_manifests([project / "manifests"], project_dir=project, environ={})
    shown = sorted(d.format() for d in result.diagnostics)
    assert shown == [
        f"{one}:7:11: TD220 resource 'docs://readme' is also declared at {two}:3:24",
        f"{two}:3:24: TD220 resource 'docs://readme' is also declared at {one}:7:11",
    ]
    assert result.registered == [str(one)]
    assert registry.get_resource("docs://readme") is not None


def test_a_resource_that_code_holds_is_refused_located(project: Path) -> None:
    registry = ToolRegistry(project_dir=project)
    registry.add_resource("docs://readme", file="README.md", name="readme")
    path = save(project / "manifests" / "r.yaml", GOOD)
    _, result = load_manifests([path], registry=registry, environ={})
    (clash,) = result.diagnostics
    assert clash.format() == (
        f"{path}:7:11: TD220 resource 'docs://readme' is already registered by code; rename it"
    )


def test_a_manifest_of_resources_only_is_listed_not_refused(project: Path, run_line) -> None:
    save(
        project / "manifests" / "r.yaml",
        HEADER + "resources:\n  - {name: readme, uri: 'docs://readme', file: README.md}\n",
    )
    run = run_line("list", "-m", "manifests", "--offline", cwd=project)
    assert run.exit_code == 0, run.output
    assert "resource docs://readme" in run.stdout


# ------------------------------------------------------------------------------ reloading
def test_reload_adds_changes_and_removes_resources_with_the_files_tools(project: Path) -> None:
    registry = ToolRegistry(project_dir=project)
    path = project / "manifests" / "r.yaml"
    save(path, GOOD.split("resources:", maxsplit=1)[0])  # the same tool, no resources yet
    live = LiveManifests(registry, [project / "manifests"], environ={})
    assert live.load().ok
    seen = []
    registry.subscribe(lambda group, change: seen.append(change))

    save(path, GOOD)
    event = live.apply([path])
    change = event.changes[str(path)]
    assert change.resources_added == (
        "docs://readme",
        "files://{+path}",
        "lines://{path}/{start_line}",
    )
    assert change.resources_list_changed
    assert not change.tools_changed
    assert f"+ resource docs://readme  ({path})" in event.lines()
    assert any(c.resources_added for c in seen)

    save(path, GOOD.replace("The project's README.", "The README in Markdown."))
    change = live.apply([path]).changes[str(path)]
    assert change.resources_changed == ("docs://readme",)
    assert registry.get_resource("docs://readme").description == "The README in Markdown."

    save(path, GOOD.replace('"docs://readme"', '"docs://main"'))
    change = live.apply([path]).changes[str(path)]
    assert (change.resources_added, change.resources_removed) == (
        ("docs://main",),
        ("docs://readme",),
    )
    path.unlink()
    change = live.apply([path]).changes[str(path)]
    assert set(change.resources_removed) == {
        "docs://main",
        "files://{+path}",
        "lines://{path}/{start_line}",
    }
    assert change.removed == ("file_info",)
    assert registry.resources() == ()
    assert registry.resource_templates() == ()


def test_a_broken_edit_keeps_the_last_good_resources(project: Path) -> None:
    registry = ToolRegistry(project_dir=project)
    path = save(project / "manifests" / "r.yaml", GOOD)
    live = LiveManifests(registry, [project / "manifests"], environ={})
    assert live.load().ok
    before = (registry.resources(), registry.resource_templates())
    for broken in (
        GOOD.replace("file: README.md", "file: ../README.md"),  # TD121
        GOOD.replace("name: lines", "nom: lines"),  # TD210 + TD211
        GOOD.replace("{+path}", "{?path}"),  # TD121, an unsupported expression
        GOOD + "  - {name: again, uri: 'docs://readme', file: README.md}\n",  # TD220
    ):
        save(path, broken)
        event = live.apply([path])
        assert not event.ok, event.lines()
        assert event.kept == (str(path),)
        assert all(d.location and d.location.line for d in event.diagnostics)
        assert (registry.resources(), registry.resource_templates()) == before
        assert registry.read_resource("docs://readme")[0].text == README
    save(path, GOOD)
    assert live.apply([path]).ok


def test_a_handler_module_edit_that_breaks_is_located_at_the_resource(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = project / "resmod_pkg"
    package.mkdir()
    module = package / "resmod_handlers.py"
    module.write_text("def doc(name: str) -> str:\n    return 'v1 ' + name\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(package))
    registry = ToolRegistry(project_dir=project)
    path = save(
        project / "manifests" / "r.yaml",
        HEADER + "resources:\n  - name: doc\n    uri_template: 'doc://{name}'\n"
        "    handler: resmod_handlers:doc\n",
    )
    live = LiveManifests(
        registry,
        [project / "manifests"],
        environ={},
        allow_handlers=["resmod_handlers"],
        reload_handlers=True,
    )
    assert live.load().ok, live.status
    assert registry.read_resource("doc://x")[0].text == "v1 x"
    module.write_text("def doc(name: str) -> str:\n    return (\n", encoding="utf-8")
    os.utime(module, (1, 1))
    event = live.apply([module])
    (problem,) = event.diagnostics
    assert problem.code == "TD311"
    assert problem.location is not None
    assert (problem.location.file, problem.location.line) == (str(path), 5)
    assert registry.read_resource("doc://x")[0].text == "v1 x"


# ------------------------------------------------------------------------------ the CLI
def test_list_shows_resources_and_templates(project: Path, run_line) -> None:
    save(project / "manifests" / "r.yaml", GOOD)
    run = run_line("list", "-m", "manifests", "--offline", cwd=project)
    assert run.exit_code == 0, run.output
    lines = run.stdout.splitlines()
    assert (
        "resource docs://readme  readme  [docs]  text/markdown  file README.md  "
        "manifests/r.yaml:7:5"
    ) in lines
    assert (
        "resource template files://{+path}  info  [docs]  -  "
        "tooldeck.handlers.files:file_info  manifests/r.yaml:9:5"
    ) in lines
    assert "    needs scopes: docs:read, files:read" in lines
    run = run_line("list", "-m", "manifests", "--offline", "--json", cwd=project)
    listing = json.loads(run.stdout)
    (readme,) = listing["resources"]
    assert readme == {
        "uri": "docs://readme",
        "uri_template": None,
        "name": "readme",
        "title": None,
        "description": "The project's README.",
        "mime_type": "text/markdown",
        "file": "README.md",
        "handler": None,
        "params": [],
        "bundle": "docs",
        "tags": [],
        "scopes": ["docs:read"],
        "source": "manifests/r.yaml:7:5",
    }
    assert [t["uri_template"] for t in listing["resource_templates"]] == [
        "files://{+path}",
        "lines://{path}/{start_line}",
    ]
    assert listing["resource_templates"][1]["params"] == ["path", "start_line"]
    assert [t["name"] for t in listing["tools"]] == ["file_info"]


def test_a_file_resource_without_a_declared_type_lists_the_guessed_one(
    project: Path, run_line
) -> None:
    save(
        project / "manifests" / "r.yaml",
        HEADER + "resources:\n  - {uri: 'docs://readme', name: readme, file: README.md}\n",
    )
    run = run_line("list", "-m", "manifests", "--offline", "--json", cwd=project)
    assert json.loads(run.stdout)["resources"][0]["mime_type"] == "text/markdown"


def test_lint_reports_resource_files_and_scopes_located(project: Path, run_line) -> None:
    save(
        project / "manifests" / "r.yaml",
        GOOD + "  - {uri: 'docs://guide', name: guide, file: GUIDE.md}\n",
    )
    run = run_line("lint", "--project-dir", ".", "manifests", cwd=project)
    assert run.exit_code == 0, run.output  # warnings only
    assert run.stdout.splitlines() == [
        "manifests/r.yaml:3:1: TD415 [warning] every tool and resource of bundle 'docs' "
        "declares scopes, but authentication is off: without it every caller may call or "
        'read them; set [tool.tooldeck.serve] auth (e.g. auth = "jwt") or pass auth= where '
        "the tools run",
        "manifests/r.yaml:13:5: TD415 [warning] resource 'files://{+path}' declares scopes, "
        "but authentication is off: without it every client may read it; set "
        '[tool.tooldeck.serve] auth (e.g. auth = "jwt") or pass auth= where the tools run',
        "manifests/r.yaml:21:46: TD416 [warning] resource 'docs://guide': 'GUIDE.md' does "
        "not exist in the project directory; every read fails until it does",
        "0 errors, 3 warnings in 1 file",
    ]
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck.serve]\nauth = "jwt"\n[tool.tooldeck.lint.severity]\nTD416 = "error"\n',
        encoding="utf-8",
    )
    run = run_line("lint", "--project-dir", ".", "manifests", cwd=project)
    assert run.exit_code == 1
    assert run.stdout.splitlines()[0].startswith("manifests/r.yaml:21:46: TD416 resource")


def test_export_is_unaffected_by_resources(project: Path, run_line) -> None:
    save(project / "manifests" / "r.yaml", GOOD)
    run = run_line("export", "-m", "manifests", "--provider", "anthropic", cwd=project)
    assert run.exit_code == 0, run.output
    assert [d["name"] for d in json.loads(run.stdout)] == ["file_info"]
