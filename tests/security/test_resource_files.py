"""Manifest resources under attack: the files they name, and manifests built to be expensive.

A ``file:`` resource names a path a pull request controls: it can be a FIFO (opening it
for reading waits for a writer, forever), a symlink to ``/dev/zero`` (read without end)
or to a file outside the project. Loading never opens it, lint judges it without
blocking or reading (TD417), and a read refuses it. The commands run as real processes
under a time limit and an address-space limit, as in ``test_special_files``, so a
regression fails the test rather than hanging it.

And the manifest itself: 10,000 resources, a template of 100 variables, URIs in Unicode.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.manifests import save
from tests.security.test_special_files import clean, tooldeck
from tooldeck import ResourceError, load_manifests

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX special files")

HANDLERS = '''
def echo(**values: str) -> dict:
    """Every variable of the URI, as read."""
    return values
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# Read me\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    os.mkfifo(tmp_path / "docs" / "fifo.md")
    (tmp_path / "docs" / "zero.md").symlink_to("/dev/zero")
    (tmp_path / "docs" / "urandom.md").symlink_to("/dev/urandom")
    (tmp_path / "outside.txt").write_text("not the project's\n", encoding="utf-8")
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "away.md").symlink_to(tmp_path / "outside.txt")
    (tmp_path / "docs" / "to-fifo.md").symlink_to(tmp_path / "docs" / "fifo.md")
    return tmp_path


ATTACKS = """version: 1
resources:
  - {uri: "docs://readme", name: readme, description: The README., file: README.md}
  - {uri: "docs://fifo", name: fifo, file: docs/fifo.md}
  - {uri: "docs://to-fifo", name: to_fifo, file: docs/to-fifo.md}
  - {uri: "docs://zero", name: zero, file: docs/zero.md}
  - {uri: "docs://urandom", name: urandom, file: docs/urandom.md}
  - {uri: "docs://folder", name: folder, file: docs}
  - {uri: "docs://gone", name: gone, file: docs/gone.md}
"""


def test_lint_judges_special_files_without_blocking(project: Path) -> None:
    manifest = save(
        project / "inner" / "manifests" / "r.yaml",
        'version: 1\nresources:\n  - {uri: "docs://away", name: away, file: away.md}\n',
    )
    done = tooldeck("lint", "--project-dir", "inner", str(manifest), cwd=project)
    output = clean(done)
    assert "TD417 resource 'docs://away' cannot be read: 'away.md' leads outside" in output
    for static in ((), ("--static",)):
        at_root = save(project / "manifests" / "r.yaml", ATTACKS)
        assert at_root.relative_to(project) == Path("manifests/r.yaml")
        done = tooldeck("lint", *static, "--project-dir", ".", "manifests/r.yaml", cwd=project)
        output = clean(done)
        assert done.returncode == 1, output
        lines = {line.split(": ", 1)[0]: line for line in output.splitlines() if ".yaml:" in line}
        assert lines.keys() == {
            f"manifests/r.yaml:{n}:{c}"
            for n, c in (
                (4, 44),
                (5, 50),
                (6, 44),
                (7, 50),
                (8, 48),
                (9, 44),
            )
        }, output
        assert "'docs/fifo.md' is a FIFO, not a regular file" in output
        assert "'docs://to-fifo' cannot be read: 'docs/fifo.md' is a FIFO" in output
        assert "'docs/zero.md' leads outside the project directory" in output
        assert "'docs/urandom.md' leads outside the project directory" in output
        assert "'docs' is a folder, not a regular file" in output
        assert "TD416 [warning] resource 'docs://gone': 'docs/gone.md' does not exist" in output
        assert "docs://readme" not in output


def test_loading_and_listing_never_open_the_files(project: Path) -> None:
    save(project / "manifests" / "r.yaml", ATTACKS)
    done = tooldeck("list", "--json", "--offline", "-m", "manifests", cwd=project)
    clean(done)
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    assert [r["file"] for r in listing["resources"]] == [
        "README.md",
        "docs/fifo.md",
        "docs/to-fifo.md",
        "docs/zero.md",
        "docs/urandom.md",
        "docs",
        "docs/gone.md",
    ]


def test_a_read_refuses_each_special_file(project: Path) -> None:
    path = save(project / "manifests" / "r.yaml", ATTACKS)
    registry, result = load_manifests([path], project_dir=project, environ={})
    assert result.ok, result.diagnostics
    assert registry.read_resource("docs://readme")[0].text == "# Read me\n"
    for uri in ("fifo", "to-fifo", "zero", "urandom", "folder", "gone"):
        with pytest.raises(ResourceError) as caught:
            registry.read_resource(f"docs://{uri}")
        assert caught.value.kind == "execution_error", uri


# ---------------------------------------------------------------- expensive manifests
def test_ten_thousand_resources_load_list_and_lint(project: Path) -> None:
    entries = "".join(
        f"  - {{uri: 'docs://page/{i}', name: page_{i}, file: README.md}}\n" for i in range(10_000)
    )
    save(project / "manifests" / "many.yaml", "version: 1\nresources:\n" + entries)
    registry, result = load_manifests([project / "manifests"], project_dir=project, environ={})
    assert result.ok
    assert len(registry.resources()) == 10_000
    assert registry.read_resource("docs://page/9999")[0].text == "# Read me\n"
    done = tooldeck("list", "--json", "--offline", "-m", "manifests", cwd=project)
    assert len(json.loads(done.stdout)["resources"]) == 10_000
    done = tooldeck("lint", "--project-dir", ".", "manifests", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ten_thousand_broken_resources_are_each_reported_once(project: Path) -> None:
    entries = "".join(
        f"  - {{uri: 'docs://{i}/{{x}}', name: p{i}, file: README.md}}\n" for i in range(10_000)
    )
    path = save(project / "manifests" / "many.yaml", "version: 1\nresources:\n" + entries)
    registry, result = load_manifests([path], project_dir=project, environ={})
    assert len(result.errors) == 10_000  # TD121 (a uri with braces), one per entry
    assert {d.code for d in result.errors} == {"TD121"}
    assert registry.resources() == ()


def test_a_template_of_a_hundred_variables(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "reshandlers.py").write_text(HANDLERS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(project))
    names = [f"v{i}" for i in range(100)]
    template = "many://" + "/".join(f"{{{n}}}" for n in names)
    params = ", ".join(f"{{name: {n}}}" for n in names)
    path = save(
        project / "manifests" / "r.yaml",
        f"version: 1\nresources:\n  - uri_template: '{template}'\n    name: many\n"
        f"    handler: reshandlers:echo\n    params: [{params}]\n",
    )
    registry, result = load_manifests(
        [path], project_dir=project, environ={}, allow_handlers=["reshandlers"]
    )
    assert result.ok, result.diagnostics
    uri = "many://" + "/".join(f"a{i}" for i in range(100))
    assert json.loads(registry.read_resource(uri)[0].text or "") == {
        n: f"a{i}" for i, n in enumerate(names)
    }
    with pytest.raises(ResourceError):  # one segment short matches nothing
        registry.read_resource(uri.rsplit("/", 1)[0])


def test_unicode_in_uris(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "reshandlers.py").write_text(HANDLERS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(project))
    path = save(
        project / "manifests" / "r.yaml",
        "version: 1\nresources:\n"
        "  - {uri: 'docs://café/ñandú', name: café, file: README.md}\n"
        "  - {uri_template: 'docs://\u03c3/{page}', name: sigma, handler: reshandlers:echo,\n"
        "     params: [{name: page}]}\n",
    )
    registry, result = load_manifests(
        [path], project_dir=project, environ={}, allow_handlers=["reshandlers"]
    )
    assert result.ok, result.diagnostics
    assert registry.read_resource("docs://café/ñandú")[0].text == "# Read me\n"
    assert json.loads(registry.read_resource("docs://\u03c3/ключ")[0].text or "") == {
        "page": "ключ"
    }
    # A scheme is ASCII (RFC 3986), and so are variable names: refused, located.
    save(
        path,
        "version: 1\nresources:\n  - {uri: '\u03c3://x', name: s, file: README.md}\n"
        "  - {uri_template: 'docs://{ключ}', name: k, handler: reshandlers:echo}\n",
    )
    _, result = load_manifests(
        [path], project_dir=project, environ={}, allow_handlers=["reshandlers"]
    )
    assert [(d.code, d.location.line if d.location else 0) for d in result.errors] == [
        ("TD121", 3),
        ("TD121", 4),
    ]
