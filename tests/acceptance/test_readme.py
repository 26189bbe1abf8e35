"""The README's commands, and the examples the documentation's pages print, run as written.

The README keeps the two commands a newcomer copies; the guides under ``docs/`` hold the
examples (``tests/acceptance/doc_pages.py`` reads them; ``test_docs_site.py`` runs the rest).
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

from tests.acceptance.doc_pages import example, run_python, sources
from tests.conftest import ROOT, SCRIPTS

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return sources("README.md", language)


def _run_example(page: str, marker: str) -> str:
    """Run the Python example of ``page`` containing ``marker``; its standard output."""
    done = run_python(example(page, marker))
    assert done.returncode == 0, done.stderr
    return done.stdout


def _steps(command: str) -> list[list[str]]:
    return [shlex.split(step) for step in command.strip().split("&&")]


def test_readme_opens_with_the_two_commands():
    main_job, tests = _blocks("bash")[:2]
    assert README.index(main_job) < README.index("## ")
    assert README.index(tests) < README.index("## ")
    assert "pip install" in main_job
    assert "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command():
    test_command = _blocks("bash")[1].strip()
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci_lines


def test_main_job_steps_run_after_install():
    """Every step after the venv/pip set-up runs with the installed console script."""
    main_job = _blocks("bash")[0]
    ran = 0
    for argv in _steps(main_job):
        if argv[:3] == ["python3", "-m", "venv"] or "pip" in argv[0]:
            continue
        assert argv[0].startswith(".venv/bin/")
        argv[0] = str(SCRIPTS / argv[0].removeprefix(".venv/bin/"))
        done = subprocess.run(
            argv, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip()
        ran += 1
    assert ran >= 2


def test_programmatic_api_example_runs():
    lines = _run_example("guides/api.md", "def add_order").splitlines()
    assert lines[0] == '{"order_id": "O-20261122", "quantity": 3, "express": false}'
    assert lines[1] == "notes.txt.bak"
    assert lines[2] == "True"
    assert lines[3] == "invalid_arguments"


def test_resources_example_runs():
    lines = _run_example("guides/api.md", "docs://readme").splitlines()
    assert lines == ['{"id": 42, "status": "shipped"}', "invalid_arguments"]


def test_manifest_example_lints_clean(run_line, tmp_path):
    (manifest,) = [
        b
        for b in sources("guides/manifests.md", "yaml")
        if b.lstrip().startswith("# yaml-language-server") and "read_doc" in b
    ]
    (tmp_path / "docs.yaml").write_text(manifest, encoding="utf-8")
    (tmp_path / "app.yaml").write_text("features: {docs: true}\n", encoding="utf-8")
    # The example attaches mcp-server-time (a test dependency): lint checks it live.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    done = run_line(
        "lint",
        "--strict",
        "--config",
        str(tmp_path / "app.yaml"),
        str(tmp_path / "docs.yaml"),
        env={"PATH": path},
    )
    assert done.exit_code == 0, done.stdout
    listing = run_line(
        "list", "--config", str(tmp_path / "app.yaml"), "-m", str(tmp_path / "docs.yaml")
    )
    assert "read_doc(path, [start_line])" in listing.stdout
    assert "mcp server time via client" in listing.stdout


def test_lint_settings_example_is_valid_toml(tmp_path):
    import tomllib

    blocks = [tomllib.loads(b)["tool"]["tooldeck"] for b in sources("guides/lint-ci.md", "toml")]
    assert any(b.get("lint", {}).get("severity") == {"TD402": "off"} for b in blocks)


def test_project_settings_example_is_read_as_documented(tmp_path):
    """The [tool.tooldeck] example of the settings guide is what the CLI reads, keys and all."""
    from tooldeck.manifest._settings import find_project

    (block,) = [b for b in sources("guides/project-settings.md", "toml") if "allow_handlers" in b]
    (tmp_path / "pyproject.toml").write_text(block, encoding="utf-8")
    found = find_project(tmp_path)
    assert found is not None
    assert found.diagnostics == ()
    assert found.manifests == (tmp_path / "manifests",)
    assert found.allow_handlers == ("myapp.tools",)
    assert found.config == tmp_path / "config" / "app.yaml"
    assert found.max_media_bytes == 20 * 1024 * 1024


def test_execution_policies_example_runs():
    stdout = _run_example("guides/policies.md", "RetrySpec")
    assert "not approved: absolute paths are off limits" in stdout
    assert "[True, False]" in stdout
    assert stdout.strip().endswith("page text")


def test_hot_reload_example_runs():
    assert "+ read_file" in _run_example("guides/hot-reload.md", "Watcher(")


PAUSE_SETUP = """
import openai
from tooldeck import ToolRegistry

def refund(order: str) -> str:
    \"\"\"Refund an order.

    Args:
        order: The order number.
    \"\"\"
    print("REFUNDED", order)
    return f"refunded {order}"

registry = ToolRegistry()  # no approver: side effects wait for a person
registry.add_tool(None, None, refund, side_effects=True)
client = openai.OpenAI()
"""


def test_model_loop_pause_example_runs(tmp_path):
    """The pause-and-resume example: it pauses, prints the waiting call, resumes approved."""
    from tests.integration.openai_server import ScriptedServer, Turn, call, say

    with ScriptedServer() as server:
        server.script(
            Turn(calls=(call("refund", {"order": "A1"}, "call_1"),)),
            say("Refunded A1."),
        )
        done = run_python(
            PAUSE_SETUP + example("guides/model-loop.md", "decisions={waiting.call_id"),
            cwd=tmp_path,
            env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test"},
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "call_1 refund {'order': 'A1'}",
        "REFUNDED A1",
        "Refunded A1.",
    ]
    assert len(server.requests) == 2


def test_model_loop_streaming_example_runs(tmp_path):
    """The streaming example, against the scripted server streaming as the real API does."""
    import shutil

    from tests.integration.openai_server import ScriptedServer, Turn, call, say

    shutil.copytree(ROOT / "manifests", tmp_path / "manifests")
    (tmp_path / "notes.txt").write_text("buy milk\n", encoding="utf-8")
    with ScriptedServer() as server:
        server.script(
            Turn(calls=(call("read_file", {"path": "notes.txt"}, "call_1"),)),
            say("It says: buy milk."),
        )
        done = run_python(
            example("guides/model-loop.md", "TextDelta"),
            cwd=tmp_path,
            env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test"},
        )
        assert all(body["stream"] is True for body in server.bodies())
    assert done.returncode == 0, done.stderr
    called, answer, usage = done.stdout.splitlines()
    assert called == "[read_file -> True]"
    assert answer == "It says: buy milk."
    assert "requests=2" in usage


def test_model_loop_example_runs(tmp_path):
    """The conversation example, against the scripted OpenAI-compatible server on loopback."""
    import shutil

    from tests.integration.openai_server import ScriptedServer, Turn, call, say

    shutil.copytree(ROOT / "manifests", tmp_path / "manifests")
    (tmp_path / "notes.txt").write_text("buy milk\n", encoding="utf-8")
    with ScriptedServer() as server:
        server.script(
            Turn(calls=(call("read_file", {"path": "notes.txt"}, "call_1"),)),
            say("It says: buy milk."),
            say("There is no todo.md."),
        )
        done = run_python(
            example("guides/model-loop.md", "MaxTurnsExceeded"),
            cwd=tmp_path,
            env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test"},
        )
    assert done.returncode == 0, done.stderr
    answer, called, usage = done.stdout.splitlines()
    assert answer == "It says: buy milk."
    assert called.split()[1:] == ["read_file", '{"path":', '"notes.txt"}', "True"]
    assert "requests=2" in usage
    again = server.bodies()[-1]
    assert again["instructions"] == "Answer in one sentence."
    assert "And in todo.md?" in str(again["input"])


def test_tool_packs_config_turns_on_the_packs_it_names(tmp_path):
    """The README's config block, saved as the application config, turns on the writing, HTTP,
    command and commit tools; without it only the read-only ones load."""
    import yaml

    from tooldeck import bundled_manifests, load_manifests

    (block,) = [b for b in _blocks("yaml") if "allow_hosts" in b]
    config = yaml.safe_load(block)
    plain, _ = load_manifests([bundled_manifests()], project_dir=tmp_path)
    enabled, result = load_manifests([bundled_manifests()], project_dir=tmp_path, config=config)
    assert result.diagnostics == []
    added = {t.name for t in enabled.tools()} - {t.name for t in plain.tools()}
    assert {"write_file", "edit_file", "http_get", "http_request", "run_command"} <= added
    assert "git_commit" in added
    assert {t.name for t in plain.tools()} >= {"read_file", "git_status"}


def test_tool_packs_python_example_runs():
    stdout = _run_example("guides/tool-packs.md", "bundled_manifests")
    assert stdout.split() == ["True", "True"]
