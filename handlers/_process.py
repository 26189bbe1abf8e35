"""Run one program for a tool call, bounded in time and output (for the commands and git packs).

Nothing here is a tool: :mod:`tooldeck.handlers.commands` and :mod:`tooldeck.handlers.git` decide
*what* may run; this module decides *how*, the same way for both:

* **No shell.** ``argv`` is a list handed to ``execve`` (``shell=False``): ``;``, ``$(...)``,
  backticks, quotes, globs and newlines in an argument reach the program as plain characters.
  An argument holding a NUL character is refused (``execve`` could not pass it).
* **A verified working directory.** The caller opens the folder through
  :class:`tooldeck.handlers._confined.Project`, which verifies the open descriptor is inside the
  project. On Linux the child changes into ``/proc/self/fd/N``, the verified descriptor itself
  (the child, forked from this process, holds a copy of it until ``exec``): no name is resolved
  again, so no rename or symlink swap can redirect it. Where there is no ``/proc`` (macOS) the
  child changes into the folder's verified real path; a folder swapped for a symlink between the
  verification and the child's ``chdir`` (a window of a few milliseconds, open only to a process
  that can already write inside the project) would move the program elsewhere. That residual race
  is accepted and documented.
* **Its own process group** (``start_new_session=True``), no terminal and ``stdin`` from
  ``/dev/null``: the program cannot read from the server's input nor signal its group.
* **Both pipes read concurrently** (``selectors``), each keeping its first ``max_output_bytes``
  bytes and counting the rest, so a chatty program never blocks on a full pipe and never fills
  memory.
* **The whole group is stopped**: at the timeout (SIGTERM, a short grace, then SIGKILL through
  ``os.killpg``), and also once the leader has exited, so a background child that kept the pipes
  open neither hangs the call nor outlives it. The leader is not reaped until the group has been
  signalled (``waitid(WNOWAIT)``): its zombie keeps the group id reserved, so the signals cannot
  reach a stranger that was given the same number.

What is not guarded: a descendant that calls ``setsid()`` (or ``setpgid``) leaves the group and
can outlive the call (if it still holds a pipe, the call stops waiting for it after a bounded
drain); what an allowed program itself may do (its own power) is the operator's choice.

POSIX only: on Windows (no process groups, no ``killpg``) :func:`run` refuses with
:data:`UNSUPPORTED`, in words for the model.
"""

import contextlib
import os
import selectors
import shutil
import signal
import stat
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from tooldeck import ToolFailed

from ._confined import Project

__all__ = [
    "GRACE_SECONDS",
    "INHERITED",
    "UNSUPPORTED",
    "Completed",
    "Folder",
    "base_environment",
    "describe_exit",
    "find_program",
    "run",
    "verified_folder",
]

GRACE_SECONDS = 0.5
"""How long a group told to stop (SIGTERM) has before it is killed (SIGKILL)."""
_DRAIN_SECONDS = 1.0
"""After SIGKILL, how long the pipes are still read; only a process that left the group (setsid)
can hold them longer, and the call does not wait for it."""
_POLL_SECONDS = 0.02  # how often the leader is checked while its pipes stay quiet
_CHUNK = 64 * 1024

UNSUPPORTED: str | None = (
    None
    if os.name == "posix" and hasattr(os, "killpg") and hasattr(os, "setsid")
    else "running programs (run_command and the git tools) needs a POSIX system (Linux, macOS, "
    "BSD or WSL) to stop a program and all its children at the timeout, and this one has no "
    "process groups; do not call these tools again: answer without running programs, or ask "
    "the user to run tooldeck on a POSIX system"
)
"""Why programs cannot be run on this system, in words for the model; None where they can."""


INHERITED = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")
"""The only variables a program inherits from tooldeck's environment: enough to find programs,
the user's home and the locale, and nothing else (API keys and tokens in the server's environment
never reach a program the model runs)."""
_PROC_FD = hasattr(os, "O_PATH") and os.path.isdir("/proc/self/fd")


def base_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The inherited variables of :data:`INHERITED` that are set, updated with ``extra``."""
    env = {name: os.environ[name] for name in INHERITED if name in os.environ}
    env.update(extra or {})
    return env


def find_program(name: str, env: Mapping[str, str]) -> str | None:
    """The absolute path of program ``name`` on ``env``'s PATH, searching absolute folders only.

    A relative entry (``.``, an empty one) would be searched from the server's current folder,
    and the program runs elsewhere: worse, a file planted in the project could win the lookup.
    """
    search = os.pathsep.join(
        entry for entry in env.get("PATH", "").split(os.pathsep) if os.path.isabs(entry)
    )
    found = shutil.which(name, path=search)
    return os.path.abspath(found) if found is not None else None


@dataclass(frozen=True)
class Folder:
    """A verified working folder: what the child changes into, and names for messages."""

    cwd: str
    """``/proc/self/fd/N`` (Linux) or the verified real path (elsewhere)."""
    real: str
    """The folder's real path (for ``PWD`` and comparisons)."""
    rel: str
    """The folder relative to the project, as the model names it."""


@contextmanager
def verified_folder(project: Project, path: str) -> Iterator[Folder]:
    """Open ``path`` (a folder inside the project) and keep its verified descriptor open.

    Failures become :class:`ToolFailed` with the file tools' words: outside the project
    (``not_permitted``), missing (``not_found``), not a folder or unusable (``invalid_arguments``).
    """
    try:
        with project.opened(path) as (fd, st, rel):
            if not stat.S_ISDIR(st.st_mode):
                raise ToolFailed(
                    f"{rel!r} is not a folder; send a folder of the project",
                    kind="invalid_arguments",
                )
            real = os.readlink(f"/proc/self/fd/{fd}") if _PROC_FD else ""
            if not real:
                root = project.real or str(project.root)
                real = root if rel == "." else os.path.join(root, rel)
            yield Folder(f"/proc/self/fd/{fd}" if _PROC_FD else real, real, rel)
    except PermissionError as exc:
        raise ToolFailed(str(exc), kind="not_permitted") from None
    except FileNotFoundError as exc:
        raise ToolFailed(str(exc), kind="not_found") from None
    except (ValueError, NotADirectoryError) as exc:
        raise ToolFailed(str(exc), kind="invalid_arguments") from None


@dataclass
class _Capture:
    """One output stream: its first ``cap`` bytes, and how many more were thrown away."""

    cap: int
    head: bytearray = field(default_factory=bytearray)
    omitted: int = 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
        self.omitted += max(0, len(chunk) - max(room, 0))

    def text(self, name: str) -> str:
        """The kept bytes as text (invalid UTF-8 replaced), with a marker if some were cut."""
        text = bytes(self.head).decode("utf-8", errors="replace")
        if self.omitted:
            text += f"\n[... {self.omitted:,} more bytes of {name} not shown]"
        return text


@dataclass(frozen=True)
class Completed:
    """How a run ended: exit code (negative: the signal that ended it) and the captured output."""

    exit_code: int
    stdout: str
    stderr: str
    raw_stdout: bytes
    """The kept bytes of stdout, without a marker (for callers that parse the output)."""
    timed_out: bool
    stdout_omitted: int
    stderr_omitted: int
    left_pipes_open: bool
    """Something outside the group (it called setsid) still held a pipe when the call ended."""

    @property
    def truncated(self) -> bool:
        return bool(self.stdout_omitted or self.stderr_omitted)


def describe_exit(code: int) -> str:
    """The exit code in words: ``exited with status 2``, ``killed by signal 9 (SIGKILL)``."""
    if code >= 0:
        return f"exited with status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = "unknown signal"
    return f"killed by signal {-code} ({name})"


def _check_argv(argv: Sequence[str]) -> None:
    for arg in argv:
        if "\0" in arg:
            raise ToolFailed(
                f"argument {arg[:60]!r} contains a NUL character, which no program can receive; "
                "remove it",
                kind="invalid_arguments",
            )


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    # ProcessLookupError: nobody left; PermissionError: macOS, for a group of zombies
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _leader_exited(proc: "subprocess.Popen[bytes]") -> bool:
    """Whether the leader has exited, without reaping it where the OS allows (its zombie keeps
    the group id from being reused while the group is signalled). Without ``os.waitid`` the
    leader is reaped here, leaving a tiny window in which its id could be reused."""
    if hasattr(os, "waitid"):
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None and info.si_pid == proc.pid
    return proc.poll() is not None


class _Reader:
    """Reads both pipes of one child until they close or a deadline passes."""

    def __init__(self, proc: "subprocess.Popen[bytes]", cap: int) -> None:
        self.proc = proc
        self.captures = {"stdout": _Capture(cap), "stderr": _Capture(cap)}
        self.selector = selectors.DefaultSelector()
        assert proc.stdout is not None
        assert proc.stderr is not None
        for name, pipe in (("stdout", proc.stdout), ("stderr", proc.stderr)):
            self.selector.register(pipe, selectors.EVENT_READ, name)

    @property
    def open(self) -> bool:
        return bool(self.selector.get_map())

    def pump(self, wait: float) -> None:
        """Read what arrives within ``wait`` seconds (returns at once when something came)."""
        if not self.open:
            time.sleep(max(0.0, wait))
            return
        for key, _ in self.selector.select(max(0.0, wait)):
            chunk = os.read(key.fd, _CHUNK)
            if chunk:
                self.captures[key.data].add(chunk)
            else:
                self.selector.unregister(key.fileobj)

    def drain(self, seconds: float) -> None:
        """Read until both pipes close or ``seconds`` pass."""
        deadline = time.monotonic() + seconds
        while self.open and (now := time.monotonic()) < deadline:
            self.pump(deadline - now)

    def close(self) -> None:
        self.selector.close()


def _stop_group(reader: _Reader, proc: "subprocess.Popen[bytes]") -> None:
    """SIGTERM the group, give it a short grace while reading, then SIGKILL what is left.

    The grace ends early once the leader has exited and the pipes are closed. Members that hold
    no pipe cannot be seen while the leader's zombie is kept, so they get SIGKILL then: after a
    normal exit they are leftovers of a finished program.
    """
    _signal_group(proc.pid, signal.SIGTERM)
    grace_end = time.monotonic() + GRACE_SECONDS
    while (now := time.monotonic()) < grace_end:
        if not reader.open and _leader_exited(proc):
            break
        reader.pump(min(grace_end - now, _POLL_SECONDS))
    _signal_group(proc.pid, signal.SIGKILL)
    reader.drain(_DRAIN_SECONDS)


def run(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    max_output_bytes: int,
) -> Completed:
    """Run ``argv`` (``argv[0]`` an absolute executable path) in ``cwd`` and wait for the end.

    ``cwd`` is the path the child changes into: ``/proc/self/fd/N`` of a verified descriptor the
    caller keeps open for the duration of the call, or a verified real path (see the module's
    docstring). ``env`` is the program's whole environment (nothing else is inherited).
    """
    if UNSUPPORTED is not None:
        raise ToolFailed(UNSUPPORTED, kind="unsupported_platform")
    _check_argv(argv)
    try:
        proc = subprocess.Popen(  # argv is a list, never a shell line
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        raise ToolFailed(
            f"{os.path.basename(argv[0])} could not be started ({exc.strerror})", kind="not_found"
        ) from None
    reader: _Reader | None = None
    timed_out = False
    try:  # an exception in here (the registry's own timeout interrupts the thread) kills the group
        reader = _Reader(proc, max_output_bytes)
        deadline = time.monotonic() + timeout
        while not _leader_exited(proc):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            reader.pump(min(remaining, _POLL_SECONDS))
        _stop_group(reader, proc)
        code = proc.wait()
        left_open = reader.open
    finally:
        if reader is not None:
            reader.close()
        if proc.returncode is None:  # an exception above: never leave the group running
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert reader is not None  # set before anything that can return normally
    out, err = reader.captures["stdout"], reader.captures["stderr"]
    return Completed(
        exit_code=code,
        stdout=out.text("stdout"),
        stderr=err.text("stderr"),
        raw_stdout=bytes(out.head),
        timed_out=timed_out,
        stdout_omitted=out.omitted,
        stderr_omitted=err.omitted,
        left_pipes_open=left_open,
    )
