"""The file tools against hostile input: racing symlink swaps, FIFOs, devices, regexes, huge trees.

Everything a model sends is untrusted and the project's files may be hostile, changed by another
process while a tool runs. Each class of attack is tried in several variants, mostly by calling
the handlers directly with a temporary project, and a few times through the engine.
"""

import os
import random
import shutil
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tooldeck import ToolRegistry, load_manifests
from tooldeck._regex import compile_pattern
from tooldeck.handlers import _confined, files
from tooldeck.handlers.files import file_info, list_dir, read_file, search_text

ROOT = Path(__file__).resolve().parents[2]
FILES_MANIFEST = ROOT / "manifests" / "files.yaml"
SECRET = "TOP-SECRET-4711"
OUTSIDE_SIZE = 50 * (len(SECRET) + 1)
INSIDE = "inside content\n"
ZEROS_AND_ONES = bytes(ord("0") + byte % 2 for byte in range(256))
"""A bytes.translate table turning random bytes into random '0' and '1' digits."""
PROMPT = 10.0  # seconds within which every call on a FIFO or device must return (else: never)

Tool = Callable[[str, Path], object]
TOOLS: dict[str, Tool] = {
    "read_file": read_file,
    "file_info": file_info,
    "list_dir": lambda path, root: list_dir(root, path=path, recursive=True),
    "search_text": lambda path, root: search_text(SECRET, root, path=path),
}
"""Every tool, called on a path; search_text looks for the secret itself."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "data.txt").write_text(INSIDE)
    (root / "notes.txt").write_text("hello\n")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the project whose names mirror it, holding only secrets."""
    other = tmp_path / "outside"
    other.mkdir()
    (other / "data.txt").write_text(f"{SECRET}\n" * 50)  # OUTSIDE_SIZE, unlike the inside one
    (other / "only-outside.txt").write_text(f"{SECRET}\n")
    return other


@pytest.fixture(params=["located", "walked"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test both where the OS tells a descriptor's path (/proc/self/fd, F_GETPATH) and as
    on a system that cannot, where paths are opened one component at a time without following
    symlinks."""
    if request.param == "walked":
        monkeypatch.setattr(_confined, "_PROC_FD", False)
        monkeypatch.setattr(_confined, "_F_GETPATH", None)
        monkeypatch.setattr(_confined, "_PROBE_FLAGS", _confined._READ_FLAGS)
    return request.param


def leaks(value: object) -> bool:
    """Whether a tool result (or error) shows anything of the outside folder."""
    text = str(value)
    return any(sign in text for sign in (SECRET, "only-outside", f"'size': {OUTSIDE_SIZE}"))


def call(tool: Tool, path: str, root: Path) -> object:
    """A tool's result, or the exception it raised (as the engine would report it)."""
    try:
        return tool(path, root)
    except Exception as exc:
        return exc


def returns_promptly(fn: Callable[[], Any], unblock: Path | None = None) -> Any:
    """Run ``fn`` in a thread and fail unless it returns within PROMPT seconds.

    ``unblock`` names a FIFO that is opened for writing if the call hangs, so a failing test
    releases the blocked thread instead of hanging the run.
    """
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = fn()
        except Exception as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    started = time.perf_counter()
    worker.start()
    worker.join(PROMPT)
    if worker.is_alive():
        if unblock is not None:
            os.close(os.open(unblock, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(PROMPT)
        pytest.fail(f"the call blocked for more than {PROMPT} s")
    assert time.perf_counter() - started < PROMPT
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def swap_dir_for_link(folder: Path, target: Path) -> None:
    shutil.rmtree(folder)
    folder.symlink_to(target, target_is_directory=True)


@pytest.fixture
def swap_after_check(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], None]], None]:
    """Arrange for ``swap`` to run once, right after the by-name check and before the open.

    This is the race a hostile process would try to win, made deterministic: the name checked is
    inside, the object it names when opened is not.
    """

    def arrange(swap: Callable[[], None]) -> None:
        check = _confined._resolve_inside
        pending = [swap]

        def check_then_swap(root: Path, path: str) -> Path:
            resolved = check(root, path)
            if pending:
                pending.pop()()
            return resolved

        monkeypatch.setattr(_confined, "_resolve_inside", check_then_swap)

    return arrange


# --- the file opened is inside, whatever happens between check and open -------------------------


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_folder_swapped_for_a_symlink_out_after_the_check(
    project: Path, outside: Path, swap_after_check: Any, mode: str, tool: str
) -> None:
    swap_after_check(lambda: swap_dir_for_link(project / "sub", outside))
    path = "sub" if tool in {"list_dir", "search_text"} else "sub/data.txt"
    with pytest.raises(PermissionError, match=r"is outside the project directory") as info:
        TOOLS[tool](path, project)
    assert not leaks(info.value)


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_parent_folder_swapped_two_levels_up(
    project: Path, outside: Path, swap_after_check: Any, mode: str, tool: str
) -> None:
    deep = project / "a" / "b" / "sub"
    deep.mkdir(parents=True)
    (deep / "data.txt").write_text(INSIDE)
    (outside / "b" / "sub").mkdir(parents=True)
    (outside / "b" / "sub" / "data.txt").write_text(f"{SECRET}\n")
    swap_after_check(lambda: swap_dir_for_link(project / "a" / "b", outside / "b"))
    path = "a/b/sub" if tool in {"list_dir", "search_text"} else "a/b/sub/data.txt"
    with pytest.raises(PermissionError, match=r"is outside the project directory") as info:
        TOOLS[tool](path, project)
    assert not leaks(info.value)


@pytest.mark.parametrize("tool", ["read_file", "file_info", "search_text"])
def test_file_swapped_for_a_symlink_out_after_the_check(
    project: Path, outside: Path, swap_after_check: Any, mode: str, tool: str
) -> None:
    target = project / "sub" / "data.txt"

    def swap() -> None:
        target.unlink()
        target.symlink_to(outside / "data.txt")

    swap_after_check(swap)
    with pytest.raises(PermissionError, match=r"'sub/data\.txt' is outside") as info:
        TOOLS[tool]("sub/data.txt", project)
    assert not leaks(info.value)


@pytest.mark.parametrize("tool", ["read_file", "file_info", "search_text"])
def test_file_swapped_for_a_device_link_after_the_check(
    project: Path, swap_after_check: Any, mode: str, tool: str
) -> None:
    target = project / "sub" / "data.txt"

    def swap() -> None:
        target.unlink()
        target.symlink_to("/dev/zero")

    swap_after_check(swap)
    with pytest.raises(PermissionError, match="is outside the project directory"):
        returns_promptly(lambda: TOOLS[tool]("sub/data.txt", project))


def test_reading_goes_through_the_verified_descriptor_not_the_name(
    project: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Swapping the folder after the descriptor is verified changes nothing: it is reopened
    through the descriptor (/proc/self/fd), never by name."""
    reopen = _confined._reopen

    def swap_then_reopen(fd: int, directory: bool = False) -> int:
        if (project / "sub").is_dir() and not (project / "sub").is_symlink():
            swap_dir_for_link(project / "sub", outside)
        return reopen(fd, directory)

    monkeypatch.setattr(_confined, "_reopen", swap_then_reopen)
    assert read_file("sub/data.txt", project) == INSIDE.strip()


def test_walk_never_enters_a_folder_swapped_while_listed(
    project: Path, outside: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The folder is listed as a real one, then becomes a symlink out before it is entered."""
    scan = _confined._scan

    def scan_then_swap(*args: Any) -> list[Any]:
        entries = scan(*args)
        if (project / "sub").is_dir() and not (project / "sub").is_symlink():
            swap_dir_for_link(project / "sub", outside)
        return entries

    monkeypatch.setattr(_confined, "_scan", scan_then_swap)
    listed = list_dir(project, recursive=True)
    assert not leaks(listed)
    assert {"path": "sub", "type": "dir"} in listed
    assert search_text(SECRET, project) == []


def test_file_swapped_for_a_link_out_while_walking(
    project: Path, outside: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    scan = _confined._scan
    target = project / "sub" / "data.txt"

    def scan_then_swap(*args: Any) -> list[Any]:
        entries = scan(*args)
        if not target.is_symlink():
            target.unlink()
            target.symlink_to(outside / "data.txt")
        return entries

    monkeypatch.setattr(_confined, "_scan", scan_then_swap)
    assert search_text(SECRET, project) == []


class Flipper:
    """A thread that keeps swapping ``project/sub`` between a real folder and a symlink to the
    outside folder (two atomic renames each way) until stopped or 10,000 flips are done.

    A write tool may create ``sub`` while the real folder is away; it is then put back and the
    flipping goes on (the read tools never create anything).
    """

    def __init__(self, project: Path, outside: Path) -> None:
        self.sub, self.real, self.link = project / "sub", project / ".real", project / ".link"
        self.link.symlink_to(outside, target_is_directory=True)
        self.flips = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set() and self.flips < 10_000:
            try:
                os.rename(self.sub, self.real)
                os.rename(self.link, self.sub)
                os.rename(self.sub, self.link)
                os.rename(self.real, self.sub)
            except OSError:  # a tool created "sub" while it was briefly missing
                if not self._repair():
                    return
                continue
            self.flips += 1

    def _repair(self) -> bool:
        """Put the real folder back where a tool made a new ``sub`` (inside the project) while
        the real one was away, so flipping goes on; False if the tool keeps winning."""
        for _ in range(1000):
            try:
                if os.path.lexists(self.real):
                    if os.path.isdir(self.sub) and not os.path.islink(self.sub):
                        shutil.rmtree(self.sub, ignore_errors=True)
                    os.rename(self.real, self.sub)
                return True
            except OSError:
                continue
        return False

    def __enter__(self) -> "Flipper":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()


RACED: dict[str, tuple[Tool, str]] = {
    "read_file": (read_file, "sub/data.txt"),
    "file_info": (file_info, "sub/data.txt"),
    "list_dir": (TOOLS["list_dir"], "sub"),
    "search_text": (TOOLS["search_text"], "sub"),
}


@pytest.mark.slow
@pytest.mark.parametrize("tool", sorted(RACED))
def test_racing_symlink_flips_never_leak(project: Path, outside: Path, tool: str) -> None:
    handler, path = RACED[tool]
    seconds = 1.0 if tool == "read_file" else 0.3
    calls = inside = 0
    with Flipper(project, outside) as flipper:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            outcome = call(handler, path, project)
            calls += 1
            assert not leaks(outcome), f"call {calls} returned outside content: {outcome!r}"
            if isinstance(outcome, Exception):
                assert isinstance(outcome, (PermissionError, FileNotFoundError, ValueError))
            else:
                inside += 1
    assert flipper.flips > 10
    assert calls > 10
    assert inside > 0  # calls did get through between flips: the race was really run


@pytest.mark.parametrize(
    "route",
    [
        "a/link_out.txt",
        "a/b/link_out.txt",
        "a/b/c/link_out.txt",
        "a/dir_out/data.txt",
        "a/b/dir_out",
        "a/b/c/up/outside/data.txt",
        "a/b/../../../outside/data.txt",
        "a/b/c/../../../../outside",
        "{outside}/data.txt",
        "/proc/self/environ",
        "/dev/zero",
    ],
)
@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_static_escapes_at_several_depths(
    project: Path, outside: Path, mode: str, tool: str, route: str
) -> None:
    for depth in ("a", "a/b", "a/b/c"):
        (project / depth).mkdir(parents=True, exist_ok=True)
        (project / depth / "link_out.txt").symlink_to(outside / "data.txt")
        (project / depth / "dir_out").symlink_to(outside, target_is_directory=True)
    (project / "a/b/c/up").symlink_to("../../../..", target_is_directory=True)
    path = route.format(outside=outside)
    with pytest.raises(PermissionError, match=r"is outside the project directory") as info:
        TOOLS[tool](path, project)
    assert not leaks(info.value)
    assert not leaks(list_dir(project, recursive=True))
    assert search_text(SECRET, project) == []


def test_symlinks_that_stay_inside_keep_working(project: Path, mode: str) -> None:
    (project / "deep" / "er").mkdir(parents=True)
    (project / "deep" / "er" / "alias.txt").symlink_to("../../sub/data.txt")
    (project / "deep" / "sub_alias").symlink_to("../sub", target_is_directory=True)
    assert read_file("deep/er/alias.txt", project) == INSIDE.strip()
    assert read_file("deep/sub_alias/data.txt", project) == INSIDE.strip()
    assert file_info("deep/er/alias.txt", project)["path"] == "sub/data.txt"
    listed = list_dir(project, path="deep", recursive=True)
    assert {"path": "deep/er/alias.txt", "type": "file", "size": len(INSIDE)} in listed
    assert [hit["path"] for hit in search_text("inside", project, path="deep")] == [
        "deep/er/alias.txt"
    ]


def test_errors_never_show_where_things_really_are(project: Path, outside: Path, mode: str) -> None:
    (project / "link_out.txt").symlink_to(outside / "data.txt")
    (project / "sub" / "dir_out").symlink_to(outside, target_is_directory=True)
    for path in ("link_out.txt", "sub/dir_out/data.txt", "../outside/data.txt", "sub/nope.txt"):
        error = call(read_file, path, project)
        assert isinstance(error, OSError)
        assert str(project) not in str(error)
        assert str(outside) not in str(error)


# --- FIFOs and devices never block --------------------------------------------------------------


@pytest.fixture
def fifo(project: Path) -> Path:
    """A FIFO that nobody writes to: opening it for reading the usual way blocks forever."""
    path = project / "sub" / "pipe.txt"
    os.mkfifo(path)
    return path


def test_read_file_on_a_fifo(project: Path, fifo: Path, mode: str) -> None:
    with pytest.raises(ValueError, match=r"'sub/pipe\.txt' is not a regular file"):
        returns_promptly(lambda: read_file("sub/pipe.txt", project), unblock=fifo)


def test_file_info_on_a_fifo(project: Path, fifo: Path, mode: str) -> None:
    info = returns_promptly(lambda: file_info("sub/pipe.txt", project), unblock=fifo)
    assert info["type"] == "other"
    assert "lines" not in info


def test_search_text_on_a_fifo(project: Path, fifo: Path, mode: str) -> None:
    found = returns_promptly(lambda: search_text("x", project, path="sub/pipe.txt"), unblock=fifo)
    assert found == []


def test_search_text_walks_past_a_fifo(project: Path, fifo: Path, mode: str) -> None:
    found = returns_promptly(lambda: search_text("inside", project, glob="*.txt"), unblock=fifo)
    assert found == [{"path": "sub/data.txt", "line": 1, "text": "inside content"}]


def test_list_dir_skips_a_fifo(project: Path, fifo: Path, mode: str) -> None:
    listed = returns_promptly(lambda: list_dir(project, recursive=True), unblock=fifo)
    assert [e["path"] for e in listed] == ["notes.txt", "sub", "sub/data.txt"]
    with pytest.raises(NotADirectoryError, match="is not a directory"):
        returns_promptly(lambda: list_dir(project, path="sub/pipe.txt"), unblock=fifo)


def test_symlink_to_a_fifo(project: Path, fifo: Path, mode: str) -> None:
    (project / "pipe_alias.txt").symlink_to(fifo)
    with pytest.raises(ValueError, match="is not a regular file"):
        returns_promptly(lambda: read_file("pipe_alias.txt", project), unblock=fifo)
    assert returns_promptly(lambda: search_text("x", project), unblock=fifo) == []
    assert returns_promptly(lambda: file_info("pipe_alias.txt", project))["type"] == "other"


def test_file_swapped_for_a_fifo_while_walking(
    project: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Listed as a regular file, a FIFO by the time it is opened: skipped, without blocking."""
    scan = _confined._scan
    target = project / "sub" / "data.txt"

    def scan_then_swap(*args: Any) -> list[Any]:
        entries = scan(*args)
        if target.is_file():
            target.unlink()
            os.mkfifo(target)
        return entries

    monkeypatch.setattr(_confined, "_scan", scan_then_swap)
    assert returns_promptly(lambda: search_text("inside", project), unblock=target) == []


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/random", "/dev/tty"])
def test_device_links_are_outside(project: Path, device: str) -> None:
    (project / "dev.txt").symlink_to(device)
    for tool in ("read_file", "file_info", "search_text"):
        with pytest.raises(PermissionError, match="is outside"):
            returns_promptly(lambda tool=tool: TOOLS[tool]("dev.txt", project))
    assert "dev.txt" not in str(returns_promptly(lambda: list_dir(project)))
    assert returns_promptly(lambda: search_text("\0", project)) == []


def test_device_node_inside_the_project(project: Path) -> None:
    node = project / "zero.txt"
    try:
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # a copy of /dev/zero
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD")
    with pytest.raises(ValueError, match="is not a regular file"):
        returns_promptly(lambda: read_file("zero.txt", project))
    assert returns_promptly(lambda: file_info("zero.txt", project))["type"] == "other"
    assert "zero.txt" not in str(returns_promptly(lambda: list_dir(project)))
    assert returns_promptly(lambda: search_text("\0", project)) == []


def test_unix_socket_inside_the_project(project: Path) -> None:
    path = project / "sock.txt"
    if len(str(path)) > 100:
        pytest.skip("path too long for a unix socket")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        assert returns_promptly(lambda: file_info("sock.txt", project))["type"] == "other"
        with pytest.raises(ValueError, match="is not a regular file"):
            returns_promptly(lambda: read_file("sock.txt", project))
        assert "sock.txt" not in str(list_dir(project))
        assert search_text("x", project, path="sock.txt") == []


# --- regular expressions run in linear time -----------------------------------------------------


@pytest.fixture
def as_file(project: Path) -> Path:
    """Lines of 5,000 'a's ending in '!': exponential for backtracking engines."""
    (project / "as.txt").write_text(("a" * 5000 + "!\n") * 20)
    return project


@pytest.mark.parametrize(
    ("pattern", "hits"),
    [
        (r"(a+)+$", 0),
        (r"(a|aa)+$", 0),
        (r"(a|a?)+$", 20),  # matches the empty string at the end
        (r"(.*a){25}", 20),
        (r"(x+x+)+y", 0),
        (r"(\w+\s?)*$", 20),
        (r"^(a+)+b", 0),
        (r"(.*){1000}", 20),
    ],
)
def test_catastrophic_patterns_run_in_linear_time(as_file: Path, pattern: str, hits: int) -> None:
    started = time.perf_counter()
    found = search_text(pattern, as_file, path="as.txt", regex=True, max_results=100)
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert len(found) == hits


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a)\1",
        r"(?P<x>a)(?P=x)",
        r"a(?=b)",
        r"a(?!b)",
        r"(?<=a)b",
        r"(?<!a)b",
    ],
)
def test_unsupported_syntax_names_re2(project: Path, pattern: str) -> None:
    with pytest.raises(ValueError, match="RE2 syntax: no lookaround or backreferences") as info:
        search_text(pattern, project, regex=True)
    assert "regex=false" in str(info.value)


@pytest.mark.parametrize(
    "pattern",
    [
        "(" * 5000,
        "(" * 100_000,
        ")" * 5000,
        "[" * 5000,
        "a{1001}",
        "((a{1000}){1000}){1000}",
        "x" * 300_000,
        "(?:" * 50_000 + "a",
        "[a-z]{1,1000}" * 50,  # valid, but RE2 would spend seconds compiling it, GIL held
        r"\p{L}{1,1000}" * 20,
    ],
)
def test_unbuildable_patterns_fail_clearly_and_briefly(project: Path, pattern: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ValueError, match="RE2 syntax") as info:
        search_text(pattern, project, regex=True)
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert len(str(info.value)) < 600  # the pattern is clipped, never echoed whole


def test_deeply_nested_but_balanced_groups_work(project: Path) -> None:
    pattern = "(" * 5000 + "hello" + ")" * 5000
    assert search_text(pattern, project, regex=True) == [
        {"path": "notes.txt", "line": 1, "text": "hello"}
    ]


def test_lone_surrogate_pattern(project: Path) -> None:
    with pytest.raises(ValueError, match="lone surrogate"):
        search_text("\ud800", project, regex=True)
    assert search_text("\ud800", project) == []


def test_literal_search_uses_no_regex_engine(
    as_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("literal search compiled a regular expression")

    monkeypatch.setattr(files, "compile_pattern", refuse)
    (as_file / "meta.txt").write_text("x = (a+)+$ [unclosed\n")
    assert search_text("(a+)+$ [unclosed", as_file) == [
        {"path": "meta.txt", "line": 1, "text": "x = (a+)+$ [unclosed"}
    ]
    started = time.perf_counter()
    assert search_text("a" * 4999 + "b", as_file) == []
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target


def test_re2_matching_releases_the_gil() -> None:
    """Another thread runs while RE2 matches: the binding drops the GIL around the match, so a
    slow search never stalls the engine's other threads (compiling does hold it, briefly)."""
    compiled = compile_pattern(r"1[01]{200}x")
    line = random.Random(4711).randbytes(300_000).translate(ZEROS_AND_ONES).decode()
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks
        time.sleep(0.1)  # the counter runs alone: its full speed
        alone, before, started = (ticks - before) / 0.1, ticks, time.perf_counter()
        assert not compiled.search(line)  # about 0.3 s of matching
        beside = (ticks - before) / (time.perf_counter() - started)
    finally:
        done.set()
        counter.join()
    # Held, the GIL would let it run one 5 ms switch interval of the ~0.3 s match at most;
    # the bound is loose on purpose: a busy machine slows the counter, never to zero.
    assert beside > alone / 20


# --- a search does bounded work -----------------------------------------------------------------


def many_files(root: Path, count: int, text: str = "needle\n") -> None:
    for i in range(count):
        folder = root / f"d{i // 50:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i:04d}.txt").write_text(text)


def test_entry_cap_stops_a_huge_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_SEARCH_ENTRIES", 120)
    many_files(tmp_path, 400)
    found = search_text("needle", tmp_path, max_results=1000)
    *hits, marker = found
    assert marker["truncated"] is True
    assert "examined 120 directory entries" in str(marker["reason"])
    assert "narrow path or glob" in str(marker["reason"])
    assert 50 <= len(hits) < 120
    assert [hit["path"] for hit in hits] == sorted(hit["path"] for hit in hits)


def test_byte_cap_stops_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_SEARCH_BYTES", 5000)
    many_files(tmp_path, 100, text="needle\n" + "hay\n" * 100)
    *hits, marker = search_text("needle", tmp_path, max_results=1000)
    assert marker == {
        "truncated": True,
        "reason": "read 5,000 bytes, the most one call may; narrow path or glob to search the rest",
    }
    assert 5 <= len(hits) <= 15


def test_time_cap_stops_searching(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_SEARCH_SECONDS", 0.0)
    many_files(tmp_path, 20)
    [marker] = search_text("needle", tmp_path)
    assert marker["truncated"] is True
    assert "searched for 0 s" in str(marker["reason"])


def test_one_huge_file_is_read_only_up_to_the_cap(tmp_path: Path) -> None:
    """A 4 GiB file (sparse: text, then a hole of NUL bytes on one endless 'line')."""
    with (tmp_path / "huge.log").open("wb") as f:
        f.write(b"needle\n" * 2000)
        f.truncate(4 << 30)
    started = time.perf_counter()
    found = search_text("needle", tmp_path, max_results=5000)
    assert time.perf_counter() - started < 5.0
    assert len(found) == 2001
    assert found[-1]["truncated"] is True
    assert "bytes, the most one call may" in str(found[-1]["reason"])


def test_slow_pattern_over_much_text_is_cut_by_the_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random bits defeat RE2's DFA cache for this pattern: about 1 us per byte, 20 s in all."""
    monkeypatch.setattr(files, "MAX_SEARCH_SECONDS", 0.2)
    width = 60_000
    bits = random.Random(4711).randbytes(width * 400).translate(ZEROS_AND_ONES)
    lines = (bits[start : start + width] for start in range(0, len(bits), width))
    (tmp_path / "bits.txt").write_bytes(b"\n".join(lines))
    started = time.perf_counter()
    found = search_text(r"1[01]{200}x", tmp_path, regex=True)
    assert time.perf_counter() - started < 5.0  # a hang bound, not a speed target
    assert found[-1]["truncated"] is True


def test_deep_trees_neither_crash_nor_exhaust_descriptors(tmp_path: Path) -> None:
    deep = tmp_path
    for _ in range(300):
        deep = deep / "d"
        deep.mkdir()
    (deep / "bottom.txt").write_text("needle\n")
    (tmp_path / "top.txt").write_text("needle\n")
    found = search_text("needle", tmp_path)
    assert found[0] == {"path": "top.txt", "line": 1, "text": "needle"}
    assert "nested more than 64 deep" in str(found[-1]["reason"])
    listed = list_dir(tmp_path, recursive=True, max_entries=5000)
    assert len(listed) == 1 + _confined.MAX_DEPTH + 1  # top.txt, then d, d/d, ... 65 levels down
    assert read_file("/".join(["d"] * 300) + "/bottom.txt", tmp_path) == "needle"


def test_normal_trees_are_searched_whole(tmp_path: Path) -> None:
    many_files(tmp_path, 300)
    found = search_text("needle", tmp_path, max_results=1000)
    assert len(found) == 300
    assert not any("truncated" in hit for hit in found)
    assert len(search_text("needle", tmp_path, max_results=10)) == 10  # no marker: as before


# --- through the engine -------------------------------------------------------------------------


@pytest.fixture
def registry(project: Path) -> Iterator[ToolRegistry]:
    with ToolRegistry(project_dir=project) as registry:
        _, result = load_manifests([FILES_MANIFEST], registry=registry, environ={})
        assert result.ok
        yield registry


def test_engine_fifo_is_a_prompt_tool_error(registry: ToolRegistry, fifo: Path) -> None:
    started = time.perf_counter()
    read = registry.call("read_file", {"path": "sub/pipe.txt"})
    info = registry.call("file_info", {"path": "sub/pipe.txt"})
    listing = registry.call("list_dir", {"recursive": True})
    assert time.perf_counter() - started < PROMPT
    assert not read.ok
    assert "'sub/pipe.txt' is not a regular file" in read.text
    assert info.ok
    assert info.value["type"] == "other"
    assert "pipe" not in listing.text


def test_engine_regex_error_tells_the_model_the_syntax(registry: ToolRegistry) -> None:
    result = registry.call("search_text", {"pattern": "(?<=a)b", "regex": True})
    assert not result.ok
    assert result.error is not None
    assert result.error.kind == "execution_error"
    assert "RE2 syntax: no lookaround or backreferences" in result.text
    slow = registry.call("search_text", {"pattern": "(a+)+$", "regex": True})
    assert slow.ok


def test_engine_swap_after_check_is_refused(
    registry: ToolRegistry, project: Path, outside: Path, swap_after_check: Any
) -> None:
    swap_after_check(lambda: swap_dir_for_link(project / "sub", outside))
    result = registry.call("read_file", {"path": "sub/data.txt"})
    assert not result.ok
    assert "outside the project directory" in result.text
    assert not leaks(result.text)


def test_engine_truncated_search_is_a_plain_result(
    registry: ToolRegistry, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_SEARCH_ENTRIES", 1)
    result = registry.call("search_text", {"pattern": "hello"})
    assert result.ok
    assert result.value[-1]["truncated"] is True
