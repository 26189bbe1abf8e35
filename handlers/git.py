"""Git tools: read a repository inside the project, and commit to it when the operator allows.

git_status, git_diff, git_log and git_show only read (they run with ``GIT_OPTIONAL_LOCKS=0``, so
even the index is not refreshed on disk) and need no setting. git_commit changes the repository
and refuses unless the application config says exactly::

    tooldeck:
      git:
        commit: true            # git_commit; anything else (absent, "yes", 1): refused
        timeout: 30             # seconds per git run
        max_output_bytes: 65536 # what one answer may hold; diffs and logs are cut with a marker

Every tool first vets the repository (:mod:`tooldeck.handlers._gitrepo`): it must lie wholly
inside the project, and its own config must not name a program git would run. What the model
sends never becomes an option: refs starting with '-' are refused and are put after
``--end-of-options``; paths are relative to the project, checked to stay inside it, and always
come after ``--`` as literal pathspecs. Submodules are never looked into
(``--ignore-submodules=all``) and never staged: git would run git inside them, with their own
config, which is not vetted.
"""

import re
from pathlib import Path
from typing import Any

from tooldeck import ToolContext, ToolFailed

from ._gitrepo import Repo, check_ref, open_repo
from ._settings import MISSING, pack_settings

__all__ = ["git_commit", "git_diff", "git_log", "git_show", "git_status"]

MAX_STATUS_ENTRIES = 1000
_SUBMODULES = "--ignore-submodules=all"
"""On the command line, since only that beats a ``submodule.<name>.ignore`` in ``.gitmodules`` or
the repository's config: otherwise git looks inside a changed submodule by running git there, with
the submodule's own config (never vetted), whose filters and other programs then run."""
_DIFF = ("--no-color", "--no-ext-diff", "--no-textconv", _SUBMODULES)
_HASH = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_PARSE_CAP = 4 * 1024 * 1024  # status and log output is parsed, then cut by entries
_LISTING_CAP = 16 * 1024 * 1024


def _text(done_text: str, omitted: int) -> dict[str, Any]:
    return {"text": done_text, "truncated": bool(omitted)}


def git_status(repo: str = ".", *, project_dir: Path, context: ToolContext) -> dict[str, Any]:
    """The state of the work tree and the index: branch, and each changed or untracked file.

    Returns "repository" (its top folder, relative to the project), "branch" (git's branch line,
    e.g. "main...origin/main [ahead 1]"), "clean", and "entries": each has "path" (relative to
    the repository), "status" (git's two letters: index then work tree, "??" untracked) and, for
    a rename, "from".

    Args:
        repo: A folder of the repository, relative to the project directory.
    """
    with open_repo(project_dir, context, repo, read_only=True) as git:
        done = git.run(
            "status",
            "--porcelain=v1",
            "-z",
            "--branch",
            "--untracked-files=normal",
            _SUBMODULES,
            cap=_PARSE_CAP,
        )
    records = done.raw_stdout.decode("utf-8", errors="replace").split("\0")
    if done.truncated:
        records = records[:-1]  # the last one may be cut
    branch = records[0][3:] if records and records[0].startswith("## ") else ""
    entries: list[dict[str, Any]] = []
    rest = iter(records[1:] if branch else records)
    omitted = 0
    for record in rest:
        if len(record) < 4:
            continue
        entry = {"path": record[3:], "status": record[:2]}
        if "R" in record[:2] or "C" in record[:2]:
            entry["from"] = next(rest, "")
        if len(entries) < MAX_STATUS_ENTRIES:
            entries.append(entry)
        else:
            omitted += 1
    answer = {"repository": git.rel, "branch": branch, "clean": not entries, "entries": entries}
    if omitted or done.truncated:
        answer["truncated"] = True
        answer["note"] = "more entries were left out; pass a narrower repo folder"
    return answer


def git_diff(
    repo: str = ".",
    staged: bool = False,
    ref: str | None = None,
    paths: list[str] | None = None,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, Any]:
    """Show changes as a unified diff, with a summary of changed files first.

    By default the work tree against the index (what is not staged yet); staged=true shows the
    index against HEAD (what would be committed). With ref, the comparison is against that commit
    instead (e.g. "HEAD~3", "main"). Returns "text" and "truncated" (long diffs are cut; the
    text then ends with a marker: narrow it with paths).

    Args:
        repo: A folder of the repository, relative to the project directory.
        staged: Compare the index instead of the work tree.
        ref: Commit to compare against.
        paths: Only these files or folders, relative to the project directory.
    """
    revision = [] if ref is None else ["--end-of-options", check_ref(ref)]
    cached = ["--cached"] if _flag(staged, "staged") else []
    with open_repo(project_dir, context, repo, read_only=True) as git:
        specs = git.pathspecs(paths)
        done = git.run("diff", *_DIFF, "--stat", "--patch", *cached, *revision, "--", *specs)
    return _text(done.stdout, done.stdout_omitted)


def _bounded(max_count: int) -> int:
    if isinstance(max_count, bool) or not isinstance(max_count, int) or not 1 <= max_count <= 1000:
        raise ToolFailed(
            f"max_count must be a whole number from 1 to 1000, got {max_count!r}",
            kind="invalid_arguments",
        )
    return max_count


def _has_commits(git: Repo) -> bool:
    done = git.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1, 128))
    return done.exit_code == 0


def git_log(
    repo: str = ".",
    max_count: int = 20,
    ref: str | None = None,
    path: str | None = None,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, Any]:
    """List commits, newest first: each has "hash", "author", "email", "date" (ISO 8601), "subject".

    Args:
        repo: A folder of the repository, relative to the project directory.
        max_count: How many commits at most (1 to 1000).
        ref: Start from this commit, branch or range (e.g. "main..feature"); default HEAD.
        path: Only commits that touch this file or folder, relative to the project directory.
    """
    count = _bounded(max_count)
    revision = [] if ref is None else ["--end-of-options", check_ref(ref)]
    with open_repo(project_dir, context, repo, read_only=True) as git:
        specs = git.pathspecs(None if path is None else [path], "path")
        if ref is None and not _has_commits(git):
            return {"repository": git.rel, "commits": [], "note": "the repository has no commits"}
        done = git.run(
            "log",
            "--no-color",
            "--no-decorate",
            f"--max-count={count}",
            "-z",
            "--format=%H%x00%aI%x00%an%x00%ae%x00%s",
            *revision,
            "--",
            *specs,
            cap=_PARSE_CAP,
        )
    fields = done.raw_stdout.decode("utf-8", errors="replace").split("\0")
    commits = []
    for start in range(0, len(fields) - 4, 5):
        commit, date, author, email, subject = fields[start : start + 5]
        commit = commit.lstrip("\n")
        if not _HASH.match(commit):
            break  # a field held an unexpected separator: stop rather than misreport
        commits.append(
            {"hash": commit, "author": author, "email": email, "date": date, "subject": subject}
        )
    answer: dict[str, Any] = {"repository": git.rel, "commits": commits}
    if done.truncated:
        answer["truncated"] = True
    return answer


def git_show(
    ref: str = "HEAD",
    repo: str = ".",
    path: str | None = None,
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, Any]:
    """Show a commit (author, date, message, changed files and the patch) as text.

    A ref such as "HEAD~2:src/app.py" shows that file as it was in that commit. Returns "text"
    and "truncated" (a long patch is cut, ending with a marker: narrow it with path).

    Args:
        ref: Commit, branch, tag, or "commit:path" for a file as it was.
        repo: A folder of the repository, relative to the project directory.
        path: Only the changes to this file or folder, relative to the project directory.
    """
    revision = check_ref(ref)
    with open_repo(project_dir, context, repo, read_only=True) as git:
        specs = git.pathspecs(None if path is None else [path], "path")
        done = git.run(
            "show", *_DIFF, "--pretty=fuller", "--stat", "--patch", "--end-of-options", revision,
            "--", *specs,
        )  # fmt: skip
    return _text(done.stdout, done.stdout_omitted)


def _commit_enabled(context: object) -> None:
    value = pack_settings(context, "git").get("commit", MISSING)
    if value is True:
        return
    if value is MISSING or value is False or value is None:
        raise ToolFailed(
            "committing is not enabled: the operator allows it with tooldeck.git.commit: true in "
            "the application config (tooldeck --config FILE); until then, tell the user what to "
            "commit instead",
            kind="not_enabled",
        )
    raise ToolFailed(
        f"the application config sets tooldeck.git.commit to {value!r}, but only true enables "
        "committing; committing stays off until the operator fixes it",
        kind="not_enabled",
    )


def _flag(value: object, name: str) -> bool:
    """A true/false argument, never coerced (the text "false" is not true)."""
    if not isinstance(value, bool):
        raise ToolFailed(f"{name} must be true or false, got {value!r}", kind="invalid_arguments")
    return value


def _nothing_to_commit(rel: str) -> ToolFailed:
    return ToolFailed(
        f"nothing to commit in the repository at {rel!r}: no change is staged; pass the changed "
        "files in paths (git_status lists them), or all=true to commit every tracked change",
        kind="nothing_to_commit",
    )


def _refuse_submodules(git: Repo, specs: list[str]) -> None:
    """Refuse to stage a submodule: ``git add`` checks a submodule it stages by running ``git
    status`` inside it, with the submodule's own config (never vetted) and whatever programs
    that names, and no option turns the check off."""
    done = git.run("ls-files", "--stage", "-z", "--", *specs, cap=_LISTING_CAP)
    if done.truncated:
        raise ToolFailed(
            "these paths hold too many tracked files to check before staging; name fewer paths",
            kind="too_large",
        )
    for record in done.raw_stdout.split(b"\0"):
        if record.startswith(b"160000 "):
            path = record.split(b"\t", 1)[-1].decode("utf-8", errors="replace")
            raise ToolFailed(
                f"paths include the submodule {path!r}, which the git tools do not stage (git "
                "would run the submodule's own config); leave it out of paths and ask the user "
                "to commit it",
                kind="not_permitted",
            )


def git_commit(
    message: str,
    paths: list[str] | None = None,
    all: bool = False,  # the tool's parameter: shadows the builtin, which is not used here
    repo: str = ".",
    *,
    project_dir: Path,
    context: ToolContext,
) -> dict[str, Any]:
    """Record a commit: stage the given paths, then commit what is staged (no hooks are run).

    Returns "commit" (the new commit's hash), "summary" (git's one-line report) and "files" (the
    changed files with their line counts).

    Args:
        message: The commit message.
        paths: Files or folders to stage first (git add), relative to the project directory.
        all: Also stage every change to tracked files (git commit -a).
        repo: A folder of the repository, relative to the project directory.
    """
    _commit_enabled(context)
    _flag(all, "all")
    if not isinstance(message, str) or not message.strip() or "\0" in message:
        raise ToolFailed("message must be a non-empty text without NUL", kind="invalid_arguments")
    with open_repo(project_dir, context, repo, read_only=False) as git:
        specs = git.pathspecs(paths)
        if specs:
            _refuse_submodules(git, specs)
            git.run("add", "--", *specs)
        if not all and git.run("diff", "--cached", "--quiet", *_DIFF, ok=(0, 1)).exit_code == 0:
            raise _nothing_to_commit(git.rel)
        done = git.run("commit", "--no-verify", "-m", message, *(["-a"] if all else []), ok=(0, 1))
        if done.exit_code == 1:
            unstaged = git.run("diff", "--quiet", *_DIFF, ok=(0, 1)).exit_code
            staged = git.run("diff", "--cached", "--quiet", *_DIFF, ok=(0, 1)).exit_code
            if unstaged == 0 and staged == 0:
                raise _nothing_to_commit(git.rel)
            raise ToolFailed(
                f"git commit failed: {(done.stderr or done.stdout).strip()[:600]}",
                kind="git_error",
            )
        head = git.run("rev-parse", "--verify", "HEAD").stdout.strip()
        files = git.run("show", "--format=", "--stat", *_DIFF, head).stdout
    return {
        "commit": head,
        "summary": done.stdout.strip().splitlines()[0] if done.stdout.strip() else "",
        "files": files,
    }
