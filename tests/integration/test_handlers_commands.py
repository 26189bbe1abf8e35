"""run_command with real programs: the allow-list, literal arguments, the whole group stopped.

Every program here really runs (sh, printf, python3, env from the PATH) in a project made in
tmp_path. Programs print their own pid (``$$``): with ``start_new_session`` it is also their
process group's id, so ``os.killpg(pgid, 0)`` raising ProcessLookupError afterwards proves that
nothing of the group is left.
"""

import json
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tests.packs import ctx
from tooldeck import ToolFailed, ToolRegistry, load_manifests
from tooldeck.handlers.commands import run_command

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def _config(*allow: str, **more: Any) -> dict[str, Any]:
    return {"tooldeck": {"commands": {"allow": list(allow), **more}}}


def _run(project: Path, command: str, args: list[str], **kw: Any) -> dict[str, Any]:
    config = kw.pop("config", None) or _config(command, timeout=20)
    return run_command(command, args, project_dir=project, context=ctx(config), **kw)


def _refusal(project: Path, command: str, config: Any, **kw: Any) -> ToolFailed:
    with pytest.raises(ToolFailed) as caught:
        run_command(command, kw.pop("args", []), project_dir=project, context=ctx(config), **kw)
    return caught.value


def _gone(pgid: int) -> bool:
    """Whether nothing of the group is left: ``os.killpg(pgid, 0)`` raises ProcessLookupError.

    The runner returns once every member was sent SIGKILL; the kernel finishes them, and init
    reaps the grandchildren re-parented to it, on their own schedule (this machine's init reaps
    every ~2 s), so the group id may still answer for a moment. The wait is bounded at 10 s:
    every program here would otherwise sleep for 60 s.
    """
    for _ in range(500):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    return root


# --- the gate and the allow-list --------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [{}, {"tooldeck": "on"}, {"tooldeck": {"commands": None}}, _config(), {"tooldeck": {}}],
)
def test_without_an_allow_list_every_call_is_refused(project: Path, config: Any) -> None:
    failed = _refusal(project, "ls", config)
    assert failed.kind == "not_enabled"
    assert "tooldeck.commands.allow" in failed.message


@pytest.mark.parametrize(
    "command", ["rm", "/bin/ls", "../ls", "./ls", "ls; rm -rf /", "ls ", "LS", "ls -la", ""]
)
def test_only_an_allowed_bare_name_runs(project: Path, command: str) -> None:
    failed = _refusal(project, command, _config("ls", "printf"))
    assert failed.kind == "not_permitted"
    assert "ls, printf" in failed.message


@pytest.mark.parametrize(
    ("commands", "key"),
    [
        ({"allow": "ls"}, "tooldeck.commands.allow"),
        ({"allow": ["/bin/ls"]}, "tooldeck.commands.allow"),
        ({"allow": ["ls"], "timeout": "soon"}, "tooldeck.commands.timeout"),
        ({"allow": ["ls"], "max_output_bytes": 0}, "tooldeck.commands.max_output_bytes"),
        ({"allow": ["ls"], "env": {"A": 1}}, "tooldeck.commands.env"),
    ],
)
def test_a_mistyped_key_is_named(project: Path, commands: dict[str, Any], key: str) -> None:
    failed = _refusal(project, "ls", {"tooldeck": {"commands": commands}})
    assert failed.kind == "invalid_config"
    assert key in failed.message


def test_an_allowed_program_that_is_not_installed(project: Path) -> None:
    failed = _refusal(project, "no-such-program-td23", _config("no-such-program-td23"))
    assert failed.kind == "not_found"
    assert "not installed" in failed.message


def test_a_relative_path_entry_cannot_find_a_planted_program(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = project / "planted-td23"
    planted.write_text("#!/bin/sh\ntouch pwned\n")
    planted.chmod(0o755)
    monkeypatch.chdir(project)
    monkeypatch.setenv("PATH", "." + os.pathsep + os.environ["PATH"])
    failed = _refusal(project, "planted-td23", _config("planted-td23"))
    assert failed.kind == "not_found"
    assert not (project / "pwned").exists()


# --- arguments are literal --------------------------------------------------------------------

INJECTIONS = [
    "; touch pwned1",
    "$(touch pwned2)",
    "`touch pwned3`",
    "'single' \"double\" \\back",
    "line one\nline two; touch pwned4",
    "*",
    "&& touch pwned5 || true | cat > pwned6",
    "--help",
]


def test_arguments_reach_the_program_literally(project: Path) -> None:
    (project / "a.txt").write_text("x")
    script = "import json, sys; print(json.dumps(sys.argv[1:]))"
    done = _run(project, "python3", ["-c", script, *INJECTIONS])
    assert done["exit_code"] == 0, done
    assert json.loads(done["stdout"]) == INJECTIONS
    assert sorted(p.name for p in project.iterdir()) == ["a.txt", "sub"]


def test_printf_prints_shell_syntax_as_text(project: Path) -> None:
    done = _run(project, "printf", ["%s|", *INJECTIONS])
    assert done["stdout"] == "|".join(INJECTIONS) + "|"
    assert not list(project.glob("pwned*"))


def test_a_nul_character_is_refused(project: Path) -> None:
    failed = _refusal(project, "printf", _config("printf"), args=["a\0b"])
    assert failed.kind == "invalid_arguments"


def test_exit_codes_and_signals_are_explained(project: Path) -> None:
    done = _run(project, "sh", ["-c", "echo out; echo err >&2; exit 3"])
    assert (done["exit_code"], done["stdout"], done["stderr"]) == (3, "out\n", "err\n")
    assert done["exit"] == "exited with status 3"
    killed = _run(project, "sh", ["-c", "kill -9 $$"])
    assert killed["exit_code"] == -9
    assert killed["exit"] == "killed by signal 9 (SIGKILL)"


def test_the_program_sees_a_minimal_environment(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TD23_SECRET_TOKEN", "do-not-leak")
    config = _config("env", env={"TD23_EXTRA": "given"})
    done = run_command("env", [], project_dir=project, context=ctx(config))
    assert "TD23_EXTRA=given" in done["stdout"]
    assert "do-not-leak" not in done["stdout"]
    assert f"PWD={project.resolve()}\n" in done["stdout"]


# --- the working folder -----------------------------------------------------------------------


def test_cwd_is_a_folder_inside_the_project(project: Path) -> None:
    done = _run(project, "python3", ["-c", "import os; print(os.getcwd())"], cwd="sub")
    assert done["stdout"].strip() == str((project / "sub").resolve())


@pytest.mark.parametrize(
    ("cwd", "kind"),
    [
        ("..", "not_permitted"),
        ("/", "not_permitted"),
        ("~", "not_permitted"),
        ("out-link", "not_permitted"),
        ("missing", "not_found"),
        ("file.txt", "invalid_arguments"),
    ],
)
def test_cwd_outside_or_unusable_is_refused(project: Path, cwd: str, kind: str) -> None:
    (project / "out-link").symlink_to(project.parent)
    (project / "file.txt").write_text("x")
    failed = _refusal(project, "printf", _config("printf"), args=["x"], cwd=cwd)
    assert failed.kind == kind


# --- time and output bounds -------------------------------------------------------------------


def test_the_timeout_stops_the_whole_group(project: Path) -> None:
    config = _config("sh", timeout=1)
    done = run_command(
        "sh",
        ["-c", "echo $$; sleep 60 & sleep 60"],
        timeout=30,
        project_dir=project,
        context=ctx(config),
    )
    assert done["timed_out"] is True
    assert done["exit"].startswith("stopped after 1 s")
    assert _gone(int(done["stdout"].split()[0]))


def test_the_model_may_lower_the_timeout(project: Path) -> None:
    done = run_command(
        "sh",
        ["-c", "echo $$; sleep 60"],
        timeout=0.5,
        project_dir=project,
        context=ctx(_config("sh")),
    )
    assert done["timed_out"] is True
    assert done["exit"].startswith("stopped after 0.5 s")
    assert _gone(int(done["stdout"].split()[0]))


def test_a_child_holding_the_pipes_after_the_leader_exits_is_stopped(project: Path) -> None:
    done = _run(project, "sh", ["-c", "echo $$; sleep 60 & echo leader done"])
    assert done["timed_out"] is False
    assert done["exit_code"] == 0
    assert done["stdout"].endswith("leader done\n")
    assert _gone(int(done["stdout"].split()[0]))


def test_a_quiet_child_left_behind_is_stopped_too(project: Path) -> None:
    script = "echo $$; trap '' TERM; sleep 60 >/dev/null 2>&1 </dev/null &"
    done = _run(project, "sh", ["-c", script])
    assert done["timed_out"] is False
    assert _gone(int(done["stdout"].split()[0]))


def test_ten_megabytes_of_output_are_capped(project: Path) -> None:
    script = (
        "import sys\n"
        "for _ in range(160):\n"
        "    sys.stdout.write('o' * 65536); sys.stderr.write('e' * 65536)\n"
    )
    config = _config("python3", max_output_bytes=1000, timeout=30)
    done = run_command("python3", ["-c", script], project_dir=project, context=ctx(config))
    assert done["exit_code"] == 0
    assert done["truncated"] is True
    total = 160 * 65536
    assert done["stdout"].startswith("o" * 1000 + "\n[... ")
    assert done["stdout"].endswith(f"{total - 1000:,} more bytes of stdout not shown]")
    assert done["stderr"].endswith(f"{total - 1000:,} more bytes of stderr not shown]")


# --- through a real registry ------------------------------------------------------------------

MANIFEST = """\
version: 1
bundle: commands-test
tools:
  - name: run_command
    handler: tooldeck.handlers.commands:run_command
    description: Run an allowed program.
    side_effects: true
    effect: runs a program in the project
    timeout: 30s
    params:
      - {name: command, type: string}
      - {name: args, type: array, items: string, default: []}
      - {name: cwd, type: string, default: "."}
      - {name: timeout, type: number, required: false}
"""


def test_the_registrys_own_timeout_also_stops_the_group(project: Path, tmp_path: Path) -> None:
    """The manifest's timeout (1 s) is shorter than the pack's (60 s): the registry answers at
    once and interrupts the handler's thread, whose cleanup kills the group on the way out."""
    manifest = tmp_path / "commands.yaml"
    manifest.write_text(MANIFEST.replace("timeout: 30s", "timeout: 1s"))
    registry = ToolRegistry(project_dir=project, config=_config("sh"), allow_side_effects=True)
    load_manifests([manifest], registry=registry)
    script = "echo $$ > pgid; sleep 60 & sleep 60"
    result = registry.call("run_command", {"command": "sh", "args": ["-c", script]})
    assert result.error is not None
    assert result.error.kind == "timeout"
    assert _gone(int((project / "pgid").read_text()))


def test_a_system_without_process_groups_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooldeck.handlers import _process

    monkeypatch.setattr(_process, "UNSUPPORTED", "needs a POSIX system; do not call again")
    failed = _refusal(project, "printf", _config("printf"), args=["x"])
    assert failed.kind == "unsupported_platform"


def test_through_a_registry(project: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "commands.yaml"
    manifest.write_text(textwrap.dedent(MANIFEST))
    registry = ToolRegistry(
        project_dir=project, config=_config("printf", "sh"), allow_side_effects=True
    )
    _, loaded = load_manifests([manifest], registry=registry)
    assert loaded.ok, loaded
    result = registry.call("run_command", {"command": "printf", "args": ["%s", "$(id)"]})
    assert result.ok, result.text
    assert result.value["stdout"] == "$(id)"
    refused = registry.call("run_command", {"command": "/bin/sh", "args": ["-c", "id"]})
    assert not refused.ok
    assert refused.error is not None
    assert refused.error.kind == "not_permitted"
    outside = registry.call("run_command", {"command": "printf", "args": ["x"], "cwd": ".."})
    assert outside.error is not None
    assert outside.error.kind == "not_permitted"
