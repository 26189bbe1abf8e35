"""run_command: run one allow-listed program, without a shell, inside the project.

Off unless the operator lists programs in the application config::

    tooldeck:
      commands:
        allow: [pytest, ls]        # bare program names; missing or empty: every call refused
        timeout: 60                # seconds; the model's timeout may only lower it
        max_output_bytes: 65536    # per stream (stdout, stderr); the rest is counted, not kept
        env: {PYTHONDONTWRITEBYTECODE: "1"}   # extra variables for every program

What the model controls and what it cannot:

* ``command`` must *equal* one allowed name: no path (``/bin/ls``, ``../ls``, ``./ls``), no
  spaces, no shell syntax (``ls; rm -rf /`` is just a name that is not on the list). The name is
  looked up with :func:`shutil.which` on the ``PATH`` at call time, in its absolute folders only
  (a relative entry such as ``.`` would let a file planted in the project win the lookup).
* ``args`` are passed literally (no shell): ``;``, ``$(...)``, backticks, quotes, globs and
  newlines reach the program as plain characters. A NUL character is refused.
* ``cwd`` is a folder inside the project, verified like the file tools' paths.
* The program sees only ``PATH``, ``HOME``, ``USER``, ``LOGNAME``, ``LANG``, ``LC_ALL``,
  ``LC_CTYPE``, ``TZ`` and ``TMPDIR`` from the server's environment, plus ``PWD`` and the
  operator's ``env``: secrets in the server's environment are not handed to it.

How the program is run (own process group, both pipes read with a cap, the whole group stopped at
the timeout and after the leader exits) is :mod:`tooldeck.handlers._process`.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooldeck import ToolContext, ToolFailed

from . import _process
from ._confined import Project
from ._settings import number, pack_settings, string_list, string_map, whole_number

__all__ = ["DEFAULT_MAX_OUTPUT_BYTES", "DEFAULT_TIMEOUT", "run_command"]

DEFAULT_TIMEOUT = 60.0
"""Seconds a program may run when ``tooldeck.commands.timeout`` is not set."""
DEFAULT_MAX_OUTPUT_BYTES = 65536
"""Bytes kept per stream when ``tooldeck.commands.max_output_bytes`` is not set."""
_KEY = "tooldeck.commands"


def _allowed(settings: Mapping[str, Any]) -> list[str]:
    """The allow-list, checked: bare names only (a path in it is the operator's mistake)."""
    allow = string_list(settings, "allow", f"{_KEY}.allow")
    for name in allow:
        if not name or "/" in name or "\\" in name or "\0" in name or name != name.strip():
            raise ToolFailed(
                f"the application config lists {name!r} in {_KEY}.allow, but it takes bare "
                "program names such as 'pytest' (found on the PATH), not paths; this tool cannot "
                "run until the operator fixes the config",
                kind="invalid_config",
            )
    if not allow:
        raise ToolFailed(
            f"running commands is not enabled: the operator lists the programs the model may run "
            f"under {_KEY}.allow in the application config (tooldeck --config FILE); until then "
            "answer without running commands",
            kind="not_enabled",
        )
    return allow


def _executable(command: str, allow: list[str], env: Mapping[str, str]) -> str:
    """The absolute path of the allowed program ``command``, found on ``PATH`` now."""
    if command not in allow:
        raise ToolFailed(
            f"{command[:80]!r} is not an allowed program; send exactly one of "
            f"{', '.join(sorted(allow))} as command (a bare name, no path, no arguments: put "
            "those in args)",
            kind="not_permitted",
        )
    found = _process.find_program(command, env)
    if found is None:
        raise ToolFailed(
            f"{command!r} is allowed but not installed: it is not on the PATH of the tooldeck "
            "server; ask the user to install it, or use another allowed program",
            kind="not_found",
        )
    return found


def _timeout(settings: Mapping[str, Any], asked: float | None) -> float:
    limit = number(settings, "timeout", f"{_KEY}.timeout", DEFAULT_TIMEOUT)
    if asked is None:
        return limit
    if isinstance(asked, bool) or not isinstance(asked, int | float) or not asked > 0:
        raise ToolFailed(
            f"timeout must be a positive number of seconds, got {asked!r}",
            kind="invalid_arguments",
        )
    return min(float(asked), limit)


def run_command(
    command: str,
    args: list[str] | None = None,
    cwd: str = ".",
    timeout: float | None = None,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, Any]:
    """Run an allow-listed program with literal arguments in a folder of the project.

    Returns "exit_code" (negative: killed by that signal, explained in "exit"), "stdout",
    "stderr", "timed_out" and "truncated" (true when an output was cut; its text then ends with a
    marker saying how many bytes were left out). A program still running at the timeout is
    stopped with all its children.

    Args:
        command: The program's bare name, exactly as allowed, e.g. "pytest".
        args: Arguments, each passed to the program as is (no shell: quotes, $ and ; are plain
            characters).
        cwd: Folder to run in, relative to the project directory.
        timeout: Seconds to wait at most; can only lower the configured limit.
    """
    if _process.UNSUPPORTED is not None:
        raise ToolFailed(_process.UNSUPPORTED, kind="unsupported_platform")
    settings = pack_settings(context, "commands")
    allow = _allowed(settings)
    limit = _timeout(settings, timeout)
    cap = whole_number(
        settings, "max_output_bytes", f"{_KEY}.max_output_bytes", DEFAULT_MAX_OUTPUT_BYTES
    )
    env = _process.base_environment(string_map(settings, "env", f"{_KEY}.env"))
    if (
        not isinstance(command, str)
        or not isinstance(args, list | None)
        or not all(isinstance(a, str) for a in args or [])
    ):  # never list() a string (its characters) or a mapping (its keys)
        raise ToolFailed(
            "command must be a string and args a list of strings", kind="invalid_arguments"
        )
    args = list(args or [])
    argv = [_executable(command, allow, env), *args]
    with Project(project_dir) as project, _process.verified_folder(project, cwd) as folder:
        env["PWD"] = folder.real
        done = _process.run(argv, cwd=folder.cwd, env=env, timeout=limit, max_output_bytes=cap)
    answer: dict[str, Any] = {
        "exit_code": done.exit_code,
        "exit": _process.describe_exit(done.exit_code),
        "stdout": done.stdout,
        "stderr": done.stderr,
        "timed_out": done.timed_out,
        "truncated": done.truncated,
    }
    if done.timed_out:
        answer["exit"] = (
            f"stopped after {limit:g} s (the time limit), with its children; "
            f"{_process.describe_exit(done.exit_code)}"
        )
    if done.left_pipes_open:
        answer["note"] = (
            "a process that left the program's group still held its output; not waited for"
        )
    return answer
