"""What an import changes in its project: ``allow_handlers`` and the schema copy, so lint passes.

Driven through the real CLI (``run_line``) in a fresh project folder: after
``tooldeck import ... -o manifests/x.yaml`` a bare ``tooldeck lint`` passes, the
settings file changes by exactly the one module (comments and layout kept),
and the manifest's ``$schema`` line is a path inside the project. Where the
settings cannot be edited safely the file is left byte for byte and the import
prints the line to add. ``tooldeck schema --write`` and ``tooldeck init`` write
the schema copy the lines point at.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city, in the unit the user prefers.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city, e.g. Prague"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
MODELINE = "# yaml-language-server: $schema="
SCHEMA = Path("schemas") / "tooldeck.schema.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with ``tools.json`` (one definition) and nothing else."""
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "tools.json").write_text(json.dumps([WEATHER]), encoding="utf-8")
    return folder


def stubs_import(run_line: Any, cwd: Path, *extra: str) -> Any:
    return run_line(
        "import", "openai", "tools.json", "--stubs", "myapp/tools.py",
        "-o", "manifests/tools.yaml", *extra, cwd=cwd,
    )  # fmt: skip


def first_line(path: Path) -> str:
    return path.read_text(encoding="utf-8").splitlines()[0]


def lint_passes(run_line: Any, cwd: Path) -> None:
    done = run_line("lint", cwd=cwd)
    assert done.exit_code == 0, done.output
    assert done.stdout == "no problems in 1 file\n"


# ---------------------------------------------------------------- allow_handlers
def test_a_folder_without_settings_gets_a_table_and_lint_passes_at_once(
    project: Path, run_line: Any
) -> None:
    done = stubs_import(run_line, project)
    assert done.exit_code == 0, done.output
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == (
        '[tool.tooldeck]\nallow_handlers = ["myapp.tools"]\n'
    )
    assert (
        "tooldeck import: added myapp.tools to allow_handlers in pyproject.toml (a new "
        "[tool.tooldeck] table); pyproject.toml was created"
    ) in done.stderr
    assert "check it with: tooldeck lint manifests/tools.yaml\n" in done.stderr
    lint_passes(run_line, project)


def test_an_existing_list_gets_the_module_and_keeps_its_comments(
    project: Path, run_line: Any
) -> None:
    settings = (
        '[project]\nname = "app"  # the app\n\n'
        "[tool.tooldeck]\n"
        'manifests = ["manifests"]   # where they are\n'
        "allow_handlers = [\n"
        '    "app.handlers",  # ours\n'
        '    "vendor.tools"   # theirs\n'
        "]\n\n"
        "[tool.ruff]\nline-length = 100\n"
    )
    (project / "pyproject.toml").write_text(settings, encoding="utf-8")
    done = stubs_import(run_line, project)
    assert done.exit_code == 0, done.output
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == settings.replace(
        '    "vendor.tools"   # theirs\n', '    "vendor.tools",   # theirs\n    "myapp.tools"\n'
    )
    assert "added myapp.tools to allow_handlers in pyproject.toml\n" in done.stderr
    lint_passes(run_line, project)


def test_a_table_without_the_key_gets_one_line_under_its_header(
    project: Path, run_line: Any
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck]\nmanifests = ["manifests"]\n', encoding="utf-8"
    )
    sub = project / "src"
    sub.mkdir()
    (sub / "tools.json").write_text(json.dumps([WEATHER]), encoding="utf-8")
    done = run_line(
        "import", "openai", "tools.json", "--handler-module", "myapp.tools",
        "-o", "../manifests/tools.yaml", cwd=sub,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == (
        '[tool.tooldeck]\nallow_handlers = ["myapp.tools"]\nmanifests = ["manifests"]\n'
    )
    assert "pyproject.toml" not in os.listdir(sub)


def test_a_module_already_allowed_by_a_prefix_changes_nothing(project: Path, run_line: Any) -> None:
    settings = '[tool.tooldeck]\nallow_handlers = ["myapp"]\n'
    (project / "pyproject.toml").write_text(settings, encoding="utf-8")
    done = stubs_import(run_line, project)
    assert done.exit_code == 0, done.output
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == settings
    assert "allow_handlers" not in done.stderr
    assert "check it with: tooldeck lint manifests/tools.yaml\n" in done.stderr


def test_import_python_and_handler_are_allowed_too(project: Path, run_line: Any) -> None:
    (project / "shop_tools.py").write_text(
        'def find(query: str) -> list[str]:\n    """Find products by name."""\n    return []\n',
        encoding="utf-8",
    )
    done = run_line("import", "python", "shop_tools", "-o", "manifests/shop.yaml", cwd=project)
    assert done.exit_code == 0, done.output
    done = run_line(
        "import", "openai", "tools.json", "--handler", "disp.atch:run",
        "-o", "manifests/other.yaml", cwd=project,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    settings = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert settings["tool"]["tooldeck"]["allow_handlers"] == ["shop_tools", "disp.atch"]


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ('[tool.tooldeck]\nallow_handlers = "app.handlers"\n', "not written as a list"),
        ('[tool]\ntooldeck.allow_handlers = ["app.handlers"]\n', "form this edit does not handle"),
    ],
    ids=["one string", "dotted key"],
)
def test_settings_it_cannot_edit_safely_are_kept_and_the_line_printed(
    project: Path, run_line: Any, settings: str, reason: str
) -> None:
    (project / "pyproject.toml").write_text(settings, encoding="utf-8")
    done = stubs_import(run_line, project)
    assert done.exit_code == 0, done.output
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == settings
    assert reason in done.stderr
    assert (
        "to allow it, set in pyproject.toml, under [tool.tooldeck]:\n"
        '  allow_handlers = ["app.handlers", "myapp.tools"]\n'
    ) in done.stderr
    assert "--allow-handlers myapp.tools" in done.stderr


def test_a_tooldeck_yaml_is_not_rewritten(project: Path, run_line: Any) -> None:
    settings = "# settings\nallow_handlers: [app.handlers]\n"
    (project / "tooldeck.yaml").write_text(settings, encoding="utf-8")
    done = stubs_import(run_line, project)
    assert done.exit_code == 0, done.output
    assert (project / "tooldeck.yaml").read_text(encoding="utf-8") == settings
    assert not (project / "pyproject.toml").exists()
    assert (
        "myapp.tools is not in allow_handlers (YAML is not rewritten); to allow it, set in "
        'tooldeck.yaml:\n  allow_handlers: ["app.handlers", "myapp.tools"]\n'
    ) in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="links")
@pytest.mark.parametrize("link", ["hard", "symbolic"])
def test_a_linked_pyproject_is_never_written(
    project: Path, run_line: Any, tmp_path: Path, link: str
) -> None:
    settings = '[tool.tooldeck]\nallow_handlers = ["app"]\n'
    real = project / "config" / "pyproject.toml"
    real.parent.mkdir()
    real.write_text(settings, encoding="utf-8")
    if link == "hard":
        os.link(real, project / "pyproject.toml")
    else:
        (project / "pyproject.toml").symlink_to(real)
    done = stubs_import(run_line, project)
    assert done.exit_code == 0, done.output
    assert real.read_text(encoding="utf-8") == settings
    assert (project / "pyproject.toml").is_symlink() == (link == "symbolic")
    why = "hard links" if link == "hard" else "is a symlink; not writing through it"
    assert why in done.stderr
    assert '  allow_handlers = ["app", "myapp.tools"]\n' in done.stderr


def test_the_standard_library_is_never_added(project: Path, run_line: Any) -> None:
    done = run_line(
        "import", "openai", "tools.json", "--handler-module", "json.tools",
        "-o", "manifests/tools.yaml", cwd=project,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert not (project / "pyproject.toml").exists()
    assert (
        "json.tools is not added to the project's settings: allow_handlers 'json.tools' "
        "names the standard library"
    ) in done.stderr
    assert "check it with: tooldeck lint manifests/tools.yaml --allow-handlers json.tools" in (
        done.stderr
    )


def test_standard_output_and_a_manifest_outside_change_no_settings(
    project: Path, run_line: Any, tmp_path: Path
) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "app"\n', encoding="utf-8")
    printed = run_line(
        "import", "openai", "tools.json", "--handler-module", "myapp.tools", cwd=project
    )
    assert printed.exit_code == 0, printed.output
    assert printed.stdout.splitlines()[0] == f"{MODELINE}schemas/tooldeck.schema.json"
    assert (
        "tooldeck import: the $schema line points at schemas/tooldeck.schema.json, which does "
        "not exist yet: tooldeck schema --write creates it"
    ) in printed.stderr
    assert '  allow_handlers = ["myapp.tools"]\n' in printed.stderr
    outside = tmp_path / "elsewhere" / "tools.yaml"
    done = run_line(
        "import", "openai", "tools.json", "--handler-module", "myapp.tools", "-o", outside,
        cwd=project,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert not outside.read_text(encoding="utf-8").startswith(MODELINE)
    assert f"no $schema line: {outside} is outside the project" in done.stderr
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == '[project]\nname = "app"\n'
    assert not (project / "schemas").exists()


# ---------------------------------------------------------------------- $schema
def test_import_points_at_the_projects_schema_copy_and_writes_it(
    project: Path, run_line: Any
) -> None:
    done = run_line(
        "import", "openai", "tools.json", "--handler-module", "myapp.tools",
        "-o", "manifests/deep/tools.yaml", cwd=project,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    manifest = project / "manifests" / "deep" / "tools.yaml"
    assert first_line(manifest) == f"{MODELINE}../../schemas/tooldeck.schema.json"
    copy = (project / SCHEMA).read_text(encoding="utf-8")
    assert copy == run_line("schema").stdout
    assert "wrote the manifest schema for editors to schemas/tooldeck.schema.json" in done.stderr
    # A second import keeps the copy as it is (tooldeck schema --write refreshes it).
    (project / SCHEMA).write_text('{"$id": "urn:tooldeck:schema:manifest:0"}', encoding="utf-8")
    again = stubs_import(run_line, project)
    assert again.exit_code == 0, again.output
    assert first_line(project / "manifests" / "tools.yaml") == (
        f"{MODELINE}../schemas/tooldeck.schema.json"
    )
    assert (project / SCHEMA).read_text(encoding="utf-8").endswith(':0"}')
    assert "wrote the manifest schema" not in again.stderr


def test_import_mcp_points_at_the_projects_schema_copy(project: Path, run_line: Any) -> None:
    server = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
    done = run_line("import", "mcp", "-o", "manifests/time.yaml", "--", *server, cwd=project)
    assert done.exit_code == 0, done.output
    manifest = project / "manifests" / "time.yaml"
    assert first_line(manifest) == f"{MODELINE}../schemas/tooldeck.schema.json"
    assert (project / SCHEMA).is_file()
    assert not (project / "pyproject.toml").exists()  # no handlers, no settings needed
    assert yaml.safe_load(manifest.read_text(encoding="utf-8"))["version"] == 1


def test_the_schema_line_never_names_an_installed_file(project: Path, run_line: Any) -> None:
    stubs_import(run_line, project)
    line = first_line(project / "manifests" / "tools.yaml")
    target = (project / "manifests" / line.removeprefix(MODELINE)).resolve()
    assert target == (project / SCHEMA).resolve()
    for place in (sys.prefix, Path(run_line("schema", "--path").stdout.strip()).parent):
        assert str(place) not in line


def test_schema_write_from_a_subfolder_writes_at_the_project_root(
    project: Path, run_line: Any
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.tooldeck]\nmanifests = ["tools"]\n', encoding="utf-8"
    )
    (project / "tools").mkdir()
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    done = run_line("schema", "--write", cwd=sub)
    assert done.exit_code == 0, done.output
    assert (project / SCHEMA).read_text(encoding="utf-8") == run_line("schema").stdout
    assert done.stdout.splitlines() == [
        f"wrote {project / SCHEMA}",
        f"first line of a manifest in {project / 'tools'}/: "
        f"{MODELINE}../schemas/tooldeck.schema.json",
    ]
    again = run_line("schema", "--write", cwd=sub)
    assert again.stdout.startswith(f"up to date: {project / SCHEMA}\n")


def test_schema_write_refreshes_an_old_copy_and_keeps_other_files(
    project: Path, run_line: Any
) -> None:
    target = project / SCHEMA
    target.parent.mkdir()
    target.write_text('{"$id": "urn:tooldeck:schema:manifest:0"}', encoding="utf-8")
    target.chmod(0o640)
    done = run_line("schema", "--write", cwd=project)
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("refreshed ")
    assert target.read_text(encoding="utf-8") == run_line("schema").stdout
    assert target.stat().st_mode & 0o777 == 0o640
    mine = project / "mine.json"
    mine.write_text('{"title": "my own schema"}', encoding="utf-8")
    refused = run_line("schema", "--write", "mine.json", cwd=project)
    assert refused.exit_code == 2
    assert "is not a tooldeck schema; not replacing it (--force does)" in refused.stderr
    assert mine.read_text(encoding="utf-8") == '{"title": "my own schema"}'
    forced = run_line("schema", "--write", "mine.json", "--force", cwd=project)
    assert forced.exit_code == 0, forced.output
    assert json.loads(mine.read_text(encoding="utf-8"))["$id"].startswith("urn:tooldeck:")
    assert list(project.rglob("*.partial")) == []


@pytest.mark.skipif(sys.platform == "win32", reason="links")
def test_schema_write_never_writes_through_a_link(
    project: Path, run_line: Any, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "schemas").symlink_to(elsewhere, target_is_directory=True)
    done = run_line("schema", "--write", cwd=project)
    assert done.exit_code == 2
    assert "is a symlink; not writing through it" in done.stderr
    assert list(elsewhere.iterdir()) == []
    linked = project / "linked.json"
    linked.symlink_to(elsewhere / "x.json")
    done = run_line("schema", "--write", "linked.json", "--force", cwd=project)
    assert done.exit_code == 2
    assert not (elsewhere / "x.json").exists()
    imported = stubs_import(run_line, project)
    assert imported.exit_code == 0, imported.output
    assert "the schema was not written (schemas/tooldeck.schema.json)" in imported.stderr
    assert list(elsewhere.iterdir()) == []


def test_schema_options_are_exclusive_and_force_needs_write(run_line: Any) -> None:
    assert run_line("schema", "--write", "--path").exit_code == 2
    done = run_line("schema", "--force")
    assert done.exit_code == 2
    assert "--force applies to --write" in done.stderr
