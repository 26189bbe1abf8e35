"""Finding, vetting and running git on a repository inside the project, for the git tools.

The tools are in :mod:`tooldeck.handlers.git`; this module keeps two promises for them:

**The repository is inside the project.** Git is started in a folder verified like the file
tools' paths, with ``GIT_CEILING_DIRECTORIES`` set to the project's parent, so discovery never
climbs above the project (a project that is a plain sub-folder of someone else's repository has no
repository). Then ``git rev-parse --show-toplevel --git-dir --git-common-dir`` (absolute paths)
must all be inside the project: a ``.git`` *file* pointing elsewhere, or ``core.worktree`` moving
the work tree out, is refused, and so are object alternates (``objects/info/alternates``) outside
the project, through which git would show another repository's contents, and any symlink in the
git directory that leads outside (``objects``, ``refs`` or ``logs`` linked elsewhere would let git
read another repository, or append a commit's reflog line to a file outside the project).

**A hostile repository cannot make git run a program.** A repository's own config
(``.git/config``, ``config.worktree``) can name programs that git runs while it works (a filter's
clean command runs on ``git status``, a pager or textconv on ``git diff``). Before anything else,
that config is *read* (``git config --list --show-scope``; reading runs nothing) and the call is
refused if the repository's own config sets any key that names a program or moves the work tree
(see :func:`dangerous_key`). Every git run also carries command-line overrides
(:data:`SAFE_OPTIONS`: no fsmonitor, hooks from ``/dev/null``, ``cat`` as pager, no transport at
all, submodules ignored, no automatic gc) and ``--no-ext-diff --no-textconv`` where a diff is
made. The user's global and the system config are the operator's and trusted (a filter defined
there, such as git-lfs, still runs), so ``GIT_CONFIG_NOSYSTEM`` is not set.

The environment is the minimal one of :mod:`tooldeck.handlers._process`, plus the git identity
variables (``GIT_AUTHOR_NAME`` ... ``GIT_COMMITTER_EMAIL``) and ``XDG_CONFIG_HOME`` when set, and
fixed values: no prompt (``GIT_TERMINAL_PROMPT=0``), no pager or editor, literal pathspecs.
"""

import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tooldeck import ToolFailed

from . import _process
from ._confined import Project
from ._settings import number, pack_settings, whole_number

__all__ = ["SAFE_OPTIONS", "Repo", "check_ref", "dangerous_key", "open_repo"]

SAFE_OPTIONS = (
    "--no-pager",
    *("-c", "core.fsmonitor=false"),
    *("-c", "core.hooksPath=/dev/null"),
    *("-c", "core.pager=cat"),
    *("-c", "protocol.allow=never"),
    *("-c", "credential.helper="),
    *("-c", "diff.ignoreSubmodules=all"),
    *("-c", "submodule.recurse=false"),
    *("-c", "status.submoduleSummary=false"),
    *("-c", "log.showSignature=false"),
    *("-c", "color.ui=false"),
    *("-c", "gc.auto=0"),
    *("-c", "maintenance.auto=false"),
)
"""Given to every git run, before the subcommand: command-line config wins over the repository's."""
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_OUTPUT_BYTES = 65536
_KEY = "tooldeck.git"
_IDENTITY = (
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "XDG_CONFIG_HOME",
)
_SECTIONS = frozenset({"include", "includeif", "filter", "pager", "credential"})
"""Sections of which every key is refused in a repository's own config."""
_KEYS = frozenset(
    {
        "core.fsmonitor",
        "core.hookspath",
        "core.pager",
        "core.editor",
        "core.sshcommand",
        "core.askpass",
        "core.gitproxy",
        "core.worktree",
        "core.alternaterefscommand",
        "core.excludesfile",  # files git reads: nothing runs, but they may lie outside
        "core.attributesfile",
        "diff.external",
        "sequence.editor",
        "uploadpack.packobjectshook",
        "gpg.program",
    }
)
_NAMES = frozenset({"textconv", "driver", "program", "uploadpack", "receivepack", "askpass"})
"""Variable names refused in any section (``diff.x.textconv``, ``merge.x.driver``,
``gpg.ssh.program``, ``remote.origin.uploadpack`` ...)."""
_SUFFIXES = ("command", "cmd", "editor", "pager", "hook")


def dangerous_key(key: str) -> bool:
    """Whether a key of a repository's own config can name a program, move the work tree or
    make git read a file of its choosing (``core.excludesFile``, ``core.attributesFile``).

    Git prints section and variable names in lower case (a subsection keeps its case). Beyond
    the keys git is known to run (filters, diff textconv and external commands, merge drivers,
    pagers, editors, ssh, credential helpers, gpg programs, hooks, fsmonitor, includes), any
    variable whose name ends in command/cmd/editor/pager/hook is refused too: new versions of
    git add such keys, and refusing one too many is the safe mistake.
    """
    key = key.lower()
    section = key.split(".", 1)[0]
    name = key.rsplit(".", 1)[-1]
    return (
        section in _SECTIONS
        or key in _KEYS
        or name in _NAMES
        or name.endswith(_SUFFIXES)
        or (section == "gpg" and name.endswith("program"))
    )


def check_ref(ref: str, what: str = "ref") -> str:
    """A revision from the model: it must not be read as an option."""
    if not isinstance(ref, str) or not ref.strip():
        raise ToolFailed(f"{what} is empty; send a commit, branch or tag", kind="invalid_arguments")
    if ref.startswith("-"):
        raise ToolFailed(
            f"{what} {ref[:60]!r} starts with '-', which git would read as an option; send a "
            "commit hash, branch or tag name",
            kind="invalid_arguments",
        )
    if any(ch in ref for ch in "\0\n\r") or len(ref) > 1000:
        raise ToolFailed(
            f"{what} {ref[:60]!r} is not a revision (control characters or too long)",
            kind="invalid_arguments",
        )
    return ref


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _first_lines(text: str, limit: int = 600) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + " ..."


@dataclass
class Repo:
    """A vetted repository during one call: runs git in it and names paths for it."""

    git: str
    folder: _process.Folder
    root: str
    """The project's real path."""
    toplevel: str
    env: dict[str, str]
    timeout: float
    max_output_bytes: int

    @property
    def rel(self) -> str:
        """The repository's top folder, relative to the project."""
        return os.path.relpath(self.toplevel, self.root)

    def run(
        self, *args: str, ok: tuple[int, ...] = (0,), cap: int | None = None
    ) -> _process.Completed:
        """Run ``git <SAFE_OPTIONS> args``; a timeout or an exit code not in ``ok`` fails."""
        done = _process.run(
            [self.git, *SAFE_OPTIONS, *args],
            cwd=self.folder.cwd,
            env=self.env,
            timeout=self.timeout,
            max_output_bytes=cap or self.max_output_bytes,
        )
        if done.timed_out:
            raise ToolFailed(
                f"git {args[0]} did not finish within {self.timeout:g} s and was stopped; "
                "narrow the request (a path, a ref, fewer commits)",
                kind="timeout",
            )
        if done.exit_code not in ok:
            raise ToolFailed(
                f"git {args[0]} failed ({_process.describe_exit(done.exit_code)}): "
                f"{_first_lines(done.stderr or done.stdout)}",
                kind="git_error",
            )
        return done

    def pathspecs(self, paths: list[str] | None, what: str = "paths") -> list[str]:
        """Paths from the model (relative to the project) as absolute, literal pathspecs.

        The check is by name, without following symlinks: git itself never follows a symlink in
        a pathspec, and a tracked symlink must stay the path it names.
        """
        if paths is None:
            return []
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise ToolFailed(f"{what} must be a list of strings", kind="invalid_arguments")
        specs = []
        for path in paths:
            if not path or "\0" in path or path.startswith("~"):
                raise ToolFailed(
                    f"path {path!r} is not a usable path; send a path relative to the project",
                    kind="invalid_arguments",
                )
            full = os.path.normpath(os.path.join(self.root, path))
            if not _is_within(full, self.root):
                raise ToolFailed(
                    f"path {path!r} is outside the project directory; use a path relative to it",
                    kind="not_permitted",
                )
            if not _is_within(full, self.toplevel):
                raise ToolFailed(
                    f"path {path!r} is outside the repository at {self.rel!r}",
                    kind="invalid_arguments",
                )
            specs.append(full)
        return specs


def _settings(context: object) -> tuple[float, int]:
    settings = pack_settings(context, "git")
    timeout = number(settings, "timeout", f"{_KEY}.timeout", DEFAULT_TIMEOUT)
    cap = whole_number(
        settings, "max_output_bytes", f"{_KEY}.max_output_bytes", DEFAULT_MAX_OUTPUT_BYTES
    )
    return timeout, cap


def _environment(root: str, read_only: bool) -> dict[str, str]:
    env = _process.base_environment({n: os.environ[n] for n in _IDENTITY if n in os.environ})
    env.update(
        GIT_CEILING_DIRECTORIES=os.path.dirname(root.rstrip("/")) or "/",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_EDITOR="true",
        GIT_SEQUENCE_EDITOR="true",
        GIT_LITERAL_PATHSPECS="1",
    )
    if read_only:
        env["GIT_OPTIONAL_LOCKS"] = "0"  # status must not rewrite the index
    return env


_WHERE = ("--show-toplevel", "--git-dir", "--git-common-dir")
_OUTSIDE = (
    "git tools only work in a repository inside the project: the repository at {where} reaches "
    "outside it ({what}); use the file tools instead"
)


def _locate(repo: Repo) -> None:
    """Ask git where the repository is, and refuse one that reaches outside the project."""
    done = _process.run(
        [repo.git, *SAFE_OPTIONS, "rev-parse", "--path-format=absolute", *_WHERE],
        cwd=repo.folder.cwd,
        env=repo.env,
        timeout=repo.timeout,
        max_output_bytes=64 * 1024,
    )
    if done.exit_code != 0 or done.timed_out:
        reason = _first_lines(done.stderr, 300) or _process.describe_exit(done.exit_code)
        raise ToolFailed(
            f"no usable git repository at {repo.folder.rel!r} inside the project ({reason}); "
            "the git tools need a repository with a work tree inside the project",
            kind="not_found",
        )
    lines = done.stdout.splitlines()
    if len(lines) != 3:
        raise ToolFailed(f"git rev-parse answered {done.stdout[:200]!r}", kind="git_error")
    names = ("its work tree", "its git directory", "its common git directory")
    for name, path in zip(names, lines, strict=True):
        real = os.path.realpath(path)
        if not _is_within(real, repo.root):
            message = _OUTSIDE.format(where=repr(repo.folder.rel), what=name)
            raise ToolFailed(message, kind="not_permitted")
    repo.toplevel = os.path.realpath(lines[0])
    common = os.path.realpath(lines[2])
    for folder in dict.fromkeys((common, os.path.realpath(lines[1]))):
        _check_links(repo, folder)
    _check_alternates(repo, os.path.join(common, "objects"))


MAX_GIT_ENTRIES = 200_000
"""Entries of a git directory looked at for links, at most (loose objects are not counted)."""
_LOOSE = re.compile(r"^[0-9a-f]{2}$")


def _check_links(repo: Repo, git_dir: str) -> None:
    """Refuse a git directory holding a symlink that leads outside the project.

    Git follows links inside its own directory: ``objects`` and ``refs`` linked to another
    repository's would let the tools show that repository, and a linked ``logs`` folder makes a
    commit append its reflog line (with the model's message) to a file outside the project.
    Git never makes such links itself. The folders of loose objects (``objects/ab``) are checked
    but not entered: git only reads their files, by a hash it already knows.
    """
    objects = os.path.join(git_dir, "objects")
    pending, count = [git_dir], 0
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        count += len(entries)
        if count > MAX_GIT_ENTRIES:
            raise ToolFailed(
                f"the git directory of the repository at {repo.folder.rel!r} holds more than "
                f"{MAX_GIT_ENTRIES:,} entries besides loose objects, too many to check; the git "
                "tools refuse to run in it (git gc may pack it)",
                kind="not_permitted",
            )
        for entry in entries:
            if entry.is_symlink():
                if not _is_within(os.path.realpath(entry.path), repo.root):
                    inside = os.path.relpath(entry.path, repo.root)
                    what = f"{inside} is a link to {os.path.realpath(entry.path)}"
                    message = _OUTSIDE.format(where=repr(repo.folder.rel), what=what)
                    raise ToolFailed(message, kind="not_permitted")
            elif entry.is_dir(follow_symlinks=False) and not (
                folder == objects and _LOOSE.match(entry.name)
            ):
                pending.append(entry.path)


_MAX_ALTERNATES = 100
"""Object folders followed through alternates at most (git itself stops nesting at depth 5)."""


def _check_alternates(repo: Repo, objects: str) -> None:
    """Refuse object alternates outside the project, following them as git does: an alternate's
    own ``info/alternates`` is read too, so an inside folder cannot chain to an outside one."""
    pending, seen = [objects], set()
    while pending:
        folder = pending.pop()
        if folder in seen:
            continue
        seen.add(folder)
        for alternate in _alternates(repo, folder):
            target = os.path.realpath(os.path.join(folder, alternate))
            if not _is_within(target, repo.root) or len(seen) > _MAX_ALTERNATES:
                what = "its object alternates"
                message = _OUTSIDE.format(where=repr(repo.folder.rel), what=what)
                raise ToolFailed(message, kind="not_permitted")
            pending.append(target)


def _alternates(repo: Repo, objects: str) -> list[str]:
    """The object folders listed in ``objects/info/alternates``: git reads objects from them,
    so one outside the project would let the tools show another repository's contents.

    Opened without blocking and read only when it is a regular file: a FIFO there would
    otherwise hang the call for good (and git itself on it), so it is refused.
    """
    path = os.path.join(objects, "info", "alternates")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return []
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ToolFailed(
                f"the repository at {repo.folder.rel!r} has a special file (not a regular file) "
                "as objects/info/alternates, on which git would hang; the git tools refuse to "
                "run in it: use the file tools instead",
                kind="not_permitted",
            )
        text = f.read(64 * 1024).decode("utf-8", errors="replace")
    lines = (line.strip() for line in text.splitlines())
    return [line.strip('"') for line in lines if line and not line.startswith("#")]


_SIGNING = frozenset({"commit.gpgsign", "tag.gpgsign", "user.signingkey"})
"""Keys with which a repository's own config would have a commit signed, and choose the key: the
user's key (an ssh private key file outside the project, the default gpg key) would sign what the
model wrote. Refused for committing only (reading never signs); the ``gpg`` section is refused
too. Signing set up in the user's global config is the operator's and still happens."""


def _signing_key(key: str) -> bool:
    key = key.lower()
    return key in _SIGNING or key.startswith("gpg.")


def _vet_config(repo: Repo, *, read_only: bool) -> None:
    """Refuse a repository whose own config names a program or moves the work tree, or, for a
    commit, turns signing on or chooses the signing key (:data:`_SIGNING`)."""
    done = repo.run("config", "--list", "--show-scope", "--no-includes", "-z", cap=1024 * 1024)
    if done.truncated:
        raise ToolFailed("this repository's config is over 1 MiB; not used", kind="not_permitted")
    fields = done.raw_stdout.decode("utf-8", errors="replace").split("\0")
    for scope, entry in zip(fields[0::2], fields[1::2], strict=False):
        if scope not in {"local", "worktree"}:
            continue
        key = entry.split("\n", 1)[0]
        if dangerous_key(key):
            raise ToolFailed(
                f"this repository's own config sets {key!r}, which can make git run a program "
                "or work outside the repository, so the git tools refuse to run in it; ask the "
                f"user to check it and remove it if unwanted (git config --unset {key})",
                kind="not_permitted",
            )
        if not read_only and _signing_key(key):
            raise ToolFailed(
                f"this repository's own config sets {key!r}, which would have git sign the commit "
                "with a key the repository chooses (the user's own key), so git_commit refuses "
                "to commit in it; ask the user to commit, or to remove it if unwanted (git config "
                f"--unset {key})",
                kind="not_permitted",
            )


@contextmanager
def open_repo(project_dir: Path, context: object, repo: str, *, read_only: bool) -> Iterator[Repo]:
    """The vetted repository at ``repo`` (a folder of the project) for the duration of a call."""
    if _process.UNSUPPORTED is not None:
        raise ToolFailed(_process.UNSUPPORTED, kind="unsupported_platform")
    timeout, cap = _settings(context)
    with Project(project_dir) as project, _process.verified_folder(project, repo) as folder:
        root = project.real or str(project.root)
        env = _environment(root, read_only)
        env["PWD"] = folder.real
        git = _process.find_program("git", env)
        if git is None:
            raise ToolFailed(
                "git is not installed on the tooldeck server (not on its PATH); the git tools "
                "cannot run: use the file tools instead",
                kind="not_found",
            )
        vetted = Repo(git, folder, root, folder.real, env, timeout, cap)
        _locate(vetted)
        _vet_config(vetted, read_only=read_only)
        yield vetted
