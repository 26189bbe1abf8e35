"""The git tools on real repositories made in tmp_path, with the real git.

HOME and XDG_CONFIG_HOME point into tmp_path (the user's global config is never read) and the
identity comes from GIT_AUTHOR_* / GIT_COMMITTER_* variables. The hostile repositories set config
keys whose program would create a marker file *outside* the repository; for the main ones the test
first shows that plain git really runs it, then that no git tool does.
"""

import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.packs import ctx, git, git_identity
from tooldeck import ToolFailed, ToolRegistry, load_manifests
from tooldeck.handlers import _gitrepo
from tooldeck.handlers.git import git_commit, git_diff, git_log, git_show, git_status

__all__ = ["git_identity"]  # an autouse fixture: git runs with the test's own identity

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")

COMMIT_ON = {"tooldeck": {"git": {"commit": True}}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\n")
    (root / "src").mkdir()
    (root / "src" / "b.py").write_text("print('b')\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


def _refused(call: Any, *args: Any, **kw: Any) -> ToolFailed:
    with pytest.raises(ToolFailed) as caught:
        call(*args, **kw)
    return caught.value


ALL_TOOLS = [
    pytest.param(lambda p: git_status(project_dir=p, context=ctx({})), id="status"),
    pytest.param(lambda p: git_diff(project_dir=p, context=ctx({})), id="diff"),
    pytest.param(lambda p: git_diff(staged=True, project_dir=p, context=ctx({})), id="diff-staged"),
    pytest.param(lambda p: git_log(project_dir=p, context=ctx({})), id="log"),
    pytest.param(lambda p: git_show(project_dir=p, context=ctx({})), id="show"),
    pytest.param(
        lambda p: git_commit("x", paths=["a.txt"], project_dir=p, context=ctx(COMMIT_ON)),
        id="commit",
    ),
]


# --- the tools on a plain repository ----------------------------------------------------------


def test_status_lists_changes(project: Path) -> None:
    assert git_status(project_dir=project, context=ctx({}))["clean"] is True
    (project / "a.txt").write_text("two\n")
    (project / "new file.txt").write_text("n\n")
    git(project, "mv", "src/b.py", "src/c.py")
    status = git_status(project_dir=project, context=ctx({}))
    assert status["branch"] == "main"
    assert status["repository"] == "."
    assert status["entries"] == [
        {"path": "a.txt", "status": " M"},
        {"path": "src/c.py", "status": "R ", "from": "src/b.py"},
        {"path": "new file.txt", "status": "??"},
    ]


def test_diff_unstaged_staged_and_against_a_ref(project: Path) -> None:
    (project / "a.txt").write_text("two\n")
    (project / "src" / "b.py").write_text("print('c')\n")
    git(project, "add", "src/b.py")
    unstaged = git_diff(project_dir=project, context=ctx({}))["text"]
    assert "+two" in unstaged
    assert "b.py" not in unstaged
    staged = git_diff(staged=True, project_dir=project, context=ctx({}))["text"]
    assert "+print('c')" in staged
    assert "a.txt" not in staged
    both = git_diff(ref="HEAD", paths=["src"], project_dir=project, context=ctx({}))["text"]
    assert "+print('c')" in both
    assert "a.txt" not in both


def test_a_long_diff_is_cut_with_a_marker(project: Path) -> None:
    (project / "a.txt").write_text("".join(f"line {i}\n" for i in range(20_000)))
    config = {"tooldeck": {"git": {"max_output_bytes": 2000}}}
    diff = git_diff(project_dir=project, context=ctx(config))
    assert diff["truncated"] is True
    assert len(diff["text"]) < 2200
    assert diff["text"].endswith("more bytes of stdout not shown]")


def test_log_returns_structured_entries(project: Path) -> None:
    (project / "a.txt").write_text("two\n")
    git(project, "commit", "-q", "-am", "second: tab\there | bars, ünïcode")
    log = git_log(project_dir=project, context=ctx({}))["commits"]
    assert [c["subject"] for c in log] == ["second: tab\there | bars, ünïcode", "first"]
    assert log[0]["author"] == "Test Person"
    assert log[0]["email"] == "test@example.com"
    assert len(log[0]["hash"]) == 40
    assert log[0]["date"][:4].isdigit()
    assert len(git_log(max_count=1, project_dir=project, context=ctx({}))["commits"]) == 1
    only_src = git_log(path="src", project_dir=project, context=ctx({}))["commits"]
    assert [c["subject"] for c in only_src] == ["first"]


def test_log_of_an_empty_repository(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert git_log(project_dir=empty, context=ctx({}))["commits"] == []


@pytest.mark.parametrize("max_count", [0, 1001, -1])
def test_max_count_is_bounded(project: Path, max_count: int) -> None:
    failed = _refused(git_log, max_count=max_count, project_dir=project, context=ctx({}))
    assert failed.kind == "invalid_arguments"


def test_show_a_commit_and_a_file_as_it_was(project: Path) -> None:
    (project / "a.txt").write_text("two\n")
    git(project, "commit", "-q", "-am", "second")
    shown = git_show(project_dir=project, context=ctx({}))["text"]
    assert "second" in shown
    assert "+two" in shown
    old = git_show(ref="HEAD~1:a.txt", project_dir=project, context=ctx({}))["text"]
    assert old == "one\n"


def test_repo_may_be_a_sub_folder(project: Path) -> None:
    assert git_status(repo="src", project_dir=project, context=ctx({}))["repository"] == "."


@pytest.mark.parametrize(
    ("git_settings", "key"),
    [({"timeout": "long"}, "tooldeck.git.timeout"), ({"max_output_bytes": -1}, "max_output_bytes")],
)
def test_a_mistyped_key_is_named(project: Path, git_settings: Any, key: str) -> None:
    failed = _refused(
        git_status, project_dir=project, context=ctx({"tooldeck": {"git": git_settings}})
    )
    assert failed.kind == "invalid_config"
    assert key in failed.message


# --- committing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"tooldeck": {"git": {}}},
        {"tooldeck": {"git": {"commit": "yes"}}},
        {"tooldeck": {"git": {"commit": 1}}},
        {"tooldeck": "git"},
    ],
)
def test_commit_is_refused_unless_exactly_true(project: Path, config: Any) -> None:
    (project / "a.txt").write_text("two\n")
    failed = _refused(git_commit, "msg", paths=["a.txt"], project_dir=project, context=ctx(config))
    assert failed.kind == "not_enabled"
    assert "tooldeck.git.commit" in failed.message
    assert git(project, "rev-list", "--count", "HEAD").strip() == "1"


def test_commit_given_paths_all_and_nothing(project: Path) -> None:
    (project / "a.txt").write_text("two\n")
    (project / "src" / "b.py").write_text("print('c')\n")
    done = git_commit("--amend", paths=["a.txt"], project_dir=project, context=ctx(COMMIT_ON))
    assert done["commit"] == git(project, "rev-parse", "HEAD").strip()
    assert "a.txt" in done["files"]
    assert git(project, "log", "-1", "--format=%s").strip() == "--amend"
    assert git(project, "rev-list", "--count", "HEAD").strip() == "2"
    nothing = _refused(git_commit, "again", project_dir=project, context=ctx(COMMIT_ON))
    assert nothing.kind == "nothing_to_commit"
    everything = git_commit("all of it", all=True, project_dir=project, context=ctx(COMMIT_ON))
    assert "b.py" in everything["files"]
    nothing_at_all = _refused(
        git_commit, "x", all=True, project_dir=project, context=ctx(COMMIT_ON)
    )
    assert nothing_at_all.kind == "nothing_to_commit"


def test_commit_runs_no_hook(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    for hook in ("pre-commit", "commit-msg", "post-commit", "reference-transaction"):
        path = project / ".git" / "hooks" / hook
        path.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
        path.chmod(0o755)
    (project / "a.txt").write_text("two\n")
    git_commit("no hooks", paths=["a.txt"], project_dir=project, context=ctx(COMMIT_ON))
    assert not marker.exists()


# --- staying inside the project ---------------------------------------------------------------


def test_a_parent_repository_is_not_used(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    (outer / "proj").mkdir(parents=True)
    git(outer, "init", "-q")
    (outer / "proj" / "f.txt").write_text("x\n")
    for tool in (git_status, git_log, git_diff):
        failed = _refused(tool, project_dir=outer / "proj", context=ctx({}))
        assert failed.kind == "not_found"
        assert "no usable git repository" in failed.message


def test_a_folder_without_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    failed = _refused(git_status, project_dir=plain, context=ctx({}))
    assert failed.kind == "not_found"


def test_a_git_file_pointing_elsewhere_is_refused(tmp_path: Path, project: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / ".git").write_text(f"gitdir: {project / '.git'}\n")
    failed = _refused(git_status, project_dir=inner, context=ctx({}))
    assert failed.kind == "not_permitted"
    assert "git tools only work in a repository inside the project" in failed.message


def test_a_git_symlink_pointing_elsewhere_is_refused(tmp_path: Path, project: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / ".git").symlink_to(project / ".git")
    failed = _refused(git_log, project_dir=inner, context=ctx({}))
    assert failed.kind == "not_permitted"
    assert "git tools only work in a repository inside the project" in failed.message


def test_object_alternates_outside_are_refused(tmp_path: Path, project: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    alternates = project / ".git" / "objects" / "info" / "alternates"
    alternates.write_text(f"{other / '.git' / 'objects'}\n")
    failed = _refused(git_show, ref="HEAD", project_dir=project, context=ctx({}))
    assert "git tools only work in a repository inside the project" in failed.message
    alternates.write_text("# none\n")
    assert git_show(project_dir=project, context=ctx({}))["text"].startswith("commit ")


def test_a_work_tree_moved_out_is_refused(tmp_path: Path, project: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(project, "config", "core.worktree", str(elsewhere))
    failed = _refused(git_status, project_dir=project, context=ctx({}))
    assert failed.kind == "not_permitted"
    assert "git tools only work in a repository inside the project" in failed.message


def test_a_work_tree_moved_inside_is_refused_by_the_config_check(project: Path) -> None:
    git(project, "config", "core.worktree", str(project / "src"))
    failed = _refused(git_status, project_dir=project, context=ctx({}))
    assert "core.worktree" in failed.message


@pytest.mark.parametrize("repo", ["..", "/", "~"])
def test_repo_outside_the_project_is_refused(project: Path, repo: str) -> None:
    assert (
        _refused(git_status, repo=repo, project_dir=project, context=ctx({})).kind
        == "not_permitted"
    )


@pytest.mark.parametrize("ref", ["-p", "--output=OUT", "--exec=touch OUT", "", "a\nb"])
def test_refs_never_become_options(project: Path, tmp_path: Path, ref: str) -> None:
    ref = ref.replace("OUT", str(tmp_path / "out"))
    for call in (
        lambda: git_log(ref=ref, project_dir=project, context=ctx({})),
        lambda: git_diff(ref=ref, project_dir=project, context=ctx({})),
        lambda: git_show(ref=ref, project_dir=project, context=ctx({})),
    ):
        assert _refused(call).kind == "invalid_arguments"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("path", ["../outside.txt", "src/../../x", "/etc/passwd", "~/x"])
def test_paths_stay_in_the_project(project: Path, path: str) -> None:
    for call in (
        lambda: git_diff(paths=[path], project_dir=project, context=ctx({})),
        lambda: git_log(path=path, project_dir=project, context=ctx({})),
        lambda: git_show(path=path, project_dir=project, context=ctx({})),
        lambda: git_commit("m", paths=[path], project_dir=project, context=ctx(COMMIT_ON)),
    ):
        assert _refused(call).kind in {"not_permitted", "invalid_arguments"}


def test_paths_are_literal_pathspecs(project: Path) -> None:
    (project / "a.txt").write_text("two\n")
    assert git_diff(paths=["*.txt"], project_dir=project, context=ctx({}))["text"] == ""
    assert git_diff(paths=[":(top)a.txt"], project_dir=project, context=ctx({}))["text"] == ""
    assert "+two" in git_diff(paths=["a.txt"], project_dir=project, context=ctx({}))["text"]


# --- a hostile repository's own config --------------------------------------------------------


def _plant(project: Path, marker: Path, key: str) -> None:
    """Set ``key`` in the repository's config to a program that creates ``marker``."""
    touch = f"touch '{marker}'"
    values = {
        "filter.evil.clean": f'sh -c "{touch}; cat"',
        "filter.evil.process": touch,
        "core.fsmonitor": str(_script(project.parent, "fsmonitor.sh", touch)),
        "diff.evil.textconv": f'sh -c "{touch}; cat" --',
        "diff.external": str(_script(project.parent, "external.sh", touch)),
        "core.pager": f"{touch}; cat",
        "pager.diff": f"{touch}; cat",
        "core.hooksPath": str(_hooks(project.parent, touch)),
        "merge.evil.driver": touch,
        "core.sshCommand": touch,
        "credential.helper": f"!{touch}",
        "gpg.program": touch,
        "gpg.ssh.defaultKeyCommand": touch,
        "uploadpack.packObjectsHook": touch,
        "remote.origin.uploadpack": touch,
        "core.editor": touch,
        "sequence.editor": touch,
        "difftool.evil.cmd": touch,
        "core.excludesFile": str(project.parent / "outside-excludes"),  # read, never run
        "core.attributesFile": str(project.parent / "outside-attributes"),
    }
    git(project, "config", key, values[key])
    (project / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (project / "a.txt").write_text("changed\n")


def _script(folder: Path, name: str, body: str) -> Path:
    script = folder / name
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return script


def _hooks(folder: Path, body: str) -> Path:
    hooks = folder / "evil-hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("pre-commit", "post-commit", "reference-transaction", "post-index-change"):
        _script(hooks, hook, body)
    return hooks


@pytest.mark.parametrize(
    ("key", "plain_git"),
    [
        ("filter.evil.clean", ["status"]),
        ("core.fsmonitor", ["status"]),
        ("diff.evil.textconv", ["diff"]),
        ("core.hooksPath", ["commit", "-q", "-am", "hooked"]),
    ],
)
def test_plain_git_runs_the_program_but_no_tool_does(
    project: Path, tmp_path: Path, key: str, plain_git: list[str]
) -> None:
    marker = tmp_path / "marker"
    _plant(project, marker, key)
    git(project, *plain_git)
    assert marker.exists(), "the hostile config is not hostile: the test proves nothing"
    marker.unlink()
    (project / "a.txt").write_text("changed again\n")
    for param in ALL_TOOLS:
        (call,) = param.values
        failed = _refused(call, project)
        assert failed.kind == "not_permitted"
        assert key.lower() in failed.message.lower()
        assert not marker.exists(), param.id


@pytest.mark.parametrize(
    "key",
    [
        "filter.evil.process",
        "diff.external",
        "core.pager",
        "pager.diff",
        "merge.evil.driver",
        "core.sshCommand",
        "credential.helper",
        "gpg.program",
        "gpg.ssh.defaultKeyCommand",
        "uploadpack.packObjectsHook",
        "remote.origin.uploadpack",
        "core.editor",
        "sequence.editor",
        "difftool.evil.cmd",
        "core.excludesFile",
        "core.attributesFile",
    ],
)
def test_every_key_that_names_a_program_is_refused(project: Path, tmp_path: Path, key: str) -> None:
    marker = tmp_path / "marker"
    _plant(project, marker, key)
    for param in ALL_TOOLS:
        (call,) = param.values
        failed = _refused(call, project)
        assert failed.kind == "not_permitted"
        assert key.lower() in failed.message.lower()
    assert not marker.exists()


def test_includes_are_refused(project: Path, tmp_path: Path) -> None:
    included = tmp_path / "included.cfg"
    included.write_text(
        f'[filter "evil"]\n\tclean = sh -c "touch \'{tmp_path / "marker"}\'; cat"\n'
    )
    git(project, "config", "include.path", str(included))
    (project / ".gitattributes").write_text("* filter=evil\n")
    (project / "a.txt").write_text("changed\n")
    failed = _refused(git_status, project_dir=project, context=ctx({}))
    assert "include.path" in failed.message
    git(project, "config", "--unset", "include.path")
    git(project, "config", f"includeIf.gitdir:{project}/.path", str(included))
    assert "includeif" in _refused(git_status, project_dir=project, context=ctx({})).message.lower()
    assert not (tmp_path / "marker").exists()


@pytest.mark.parametrize("key", ["core.fsmonitor", "core.pager", "core.hooksPath", "diff.external"])
def test_the_command_line_overrides_hold_even_without_the_config_check(
    project: Path, tmp_path: Path, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: with the refusal switched off, SAFE_OPTIONS and --no-ext-diff still
    keep these programs from running."""
    monkeypatch.setattr(_gitrepo, "dangerous_key", lambda key: False)
    marker = tmp_path / "marker"
    _plant(project, marker, key)
    (project / ".gitattributes").unlink()
    for param in ALL_TOOLS:
        (call,) = param.values
        call(project)
        (project / "a.txt").write_text(f"changed for {param.id}\n")
    assert not marker.exists()


# --- through a real registry ------------------------------------------------------------------

MANIFEST = """\
version: 1
bundle: git-test
defaults:
  timeout: 30s
tools:
  - name: git_status
    handler: tooldeck.handlers.git:git_status
    description: Show the repository state.
    params:
      - {name: repo, type: string, default: "."}
  - name: git_log
    handler: tooldeck.handlers.git:git_log
    description: List commits.
    params:
      - {name: repo, type: string, default: "."}
      - {name: max_count, type: integer, default: 20, minimum: 1, maximum: 1000}
      - {name: ref, type: string, required: false}
      - {name: path, type: string, required: false}
  - name: git_commit
    handler: tooldeck.handlers.git:git_commit
    description: Commit.
    side_effects: true
    effect: records a commit in the repository
    params:
      - {name: message, type: string}
      - {name: paths, type: array, items: string, required: false}
      - {name: all, type: boolean, default: false}
      - {name: repo, type: string, default: "."}
"""


def test_through_a_registry(project: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "git.yaml"
    manifest.write_text(textwrap.dedent(MANIFEST))
    registry = ToolRegistry(project_dir=project, config=COMMIT_ON, allow_side_effects=True)
    _, loaded = load_manifests([manifest], registry=registry)
    assert loaded.ok, loaded
    (project / "a.txt").write_text("two\n")
    status = registry.call("git_status", {})
    assert status.ok, status.text
    assert status.value["entries"] == [{"path": "a.txt", "status": " M"}]
    committed = registry.call("git_commit", {"message": "via registry", "paths": ["a.txt"]})
    assert committed.ok, committed.text
    log = registry.call("git_log", {"max_count": 1})
    assert log.value["commits"][0]["subject"] == "via registry"
    bad = registry.call("git_log", {"ref": "--output=/tmp/td23-x"})
    assert bad.error is not None
    assert bad.error.kind == "invalid_arguments"
    assert not os.path.exists("/tmp/td23-x")
