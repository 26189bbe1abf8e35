"""``tooldeck dev``: the real console script watching a folder while its manifests are edited.

Nothing here sleeps: every step waits for the line the process prints when it is done
(``watching ...`` once the watcher is armed, then one block per reload), and the edit or
the Ctrl-C comes only after it. The time limits are deadlines, not delays: they cost
nothing while the process answers and are sized for a busy CI machine, where starting
the interpreter and loading alone has taken over ten seconds.
"""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.conftest import SCRIPTS

STARTUP = 120.0
"""Interpreter start, imports and the first load: ~0.5 s idle, 5-15 s on a loaded 2-CPU box."""
TIMEOUT = 60.0
"""For each further line: a reload prints in tens of milliseconds when the machine is idle."""
EXIT = 60.0
"""From Ctrl-C to the end of the process: ~0.2 s idle, over 5 s seen on a loaded machine."""
STAMP = r"\[\d\d:\d\d:\d\d\]"
INFO = "Describe a file or directory in the project, with its size and lines."


def tools_yaml(*names: str) -> str:
    lines = ["version: 1", "tools:"]
    for name in names:
        lines += [
            f"  - name: {name}",
            "    handler: tooldeck.handlers.files:file_info",
            f"    description: {INFO}",
        ]
    return "\n".join(lines) + "\n"


class Output:
    """The lines a subprocess prints, read by a thread so that waiting can time out."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        self._stream = proc.stdout
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._thread = threading.Thread(target=self._read, name="dev-output", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self._stream:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def expect(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        """Read lines until one matches ``pattern`` entirely; fail on timeout or EOF."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0))
            except queue.Empty:
                raise AssertionError(
                    f"no line matching {pattern!r} within {timeout}s; output so far: {self.seen}"
                ) from None
            if line is None:
                raise AssertionError(f"output ended before {pattern!r}; output: {self.seen}")
            self.seen.append(line)
            match = re.fullmatch(pattern, line)
            if match:
                return match

    def expect_all(self, *lines: str, timeout: float = TIMEOUT) -> None:
        """Read until every one of ``lines`` (literal, any order) has been printed."""
        missing = set(lines)
        deadline = time.monotonic() + timeout
        while missing:
            left = deadline - time.monotonic()
            self.expect("|".join(re.escape(line) for line in missing), timeout=left)
            missing.discard(self.seen[-1])

    def rest(self, timeout: float = EXIT) -> list[str]:
        """Every line left once the process has ended."""
        self._thread.join(timeout)
        out = []
        while not self._lines.empty():
            line = self._lines.get_nowait()
            if line is not None:
                out.append(line)
        self.seen.extend(out)
        return out

    def close(self) -> None:
        self._thread.join(EXIT)
        self._stream.close()


def test_dev_prints_each_change_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    a = folder / "a.yaml"
    a.write_text(tools_yaml("alpha"), encoding="utf-8")
    proc = subprocess.Popen(
        [str(SCRIPTS / "tooldeck"), "dev", "-m", str(folder)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    output = Output(proc)
    try:
        output.expect(rf"{STAMP} loaded 1 tool from 1 file", timeout=STARTUP)
        # armed: edits from now on are seen, and Ctrl-C reaches the watch loop's handler
        output.expect(re.escape(f"watching {folder} (Ctrl-C to stop)"))

        # an edit: a tool renamed, another added
        a.write_text(tools_yaml("beta", "gamma"), encoding="utf-8")
        output.expect(rf"{STAMP} a\.yaml in \d+ ms")
        output.expect_all(f"  + beta  ({a})", f"  + gamma  ({a})", f"  - alpha  ({a})")

        # a new file, then its deletion
        b = folder / "b.yaml"
        b.write_text(tools_yaml("delta"), encoding="utf-8")
        output.expect(rf"{STAMP} b\.yaml in \d+ ms")
        output.expect(re.escape(f"  + delta  ({b})"))
        b.unlink()
        output.expect(rf"{STAMP} b\.yaml in \d+ ms")
        output.expect(re.escape(f"  - delta  ({b})"))

        # a broken save: the diagnostic, then the file is kept at its last good version
        a.write_text("version: 1\ntools: [\n", encoding="utf-8")
        output.expect(rf"{STAMP} a\.yaml")
        output.expect(rf"  {re.escape(str(a))}:3:1: TD204 .+")
        output.expect(re.escape(f"  kept the last good version of {a}"))

        # the fix
        a.write_text(tools_yaml("beta"), encoding="utf-8")
        output.expect(rf"{STAMP} a\.yaml in \d+ ms")
        output.expect(re.escape(f"  - gamma  ({a})"))

        proc.send_signal(signal.SIGINT)  # only after the last reload printed all it had to
        assert proc.wait(timeout=EXIT) == 0
        assert "stopped" in output.rest()
        assert not any("Traceback" in line for line in output.seen), output.seen
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(EXIT)
        output.close()


def test_dev_attaches_the_servers_and_says_what_a_use_entry_lost(tmp_path: Path) -> None:
    """Its tool count has the use: tools, and a typo in use: is not "no change"."""
    import json
    import sys

    manifest = tmp_path / "tools.yaml"
    command = json.dumps([sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"])
    text = (
        "version: 1\nmcp_servers:\n  - name: time\n    via: client\n"
        f"    command: {command}\n    allowed_tools: []\n"
        "tools:\n  - name: now\n    use: time/get_current_time\n"
        "    description: The current time in a time zone.\n"
    )
    manifest.write_text(text, encoding="utf-8")
    proc = subprocess.Popen(
        [str(SCRIPTS / "tooldeck"), "dev", "-m", str(manifest)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    output = Output(proc)
    try:
        output.expect(re.escape(f"watching {manifest} (Ctrl-C to stop)"), timeout=STARTUP)
        output.expect(rf"{STAMP} loaded 1 tool from 1 file", timeout=STARTUP)  # the use: tool
        manifest.write_text(text.replace("get_current_time", "get_current_tmie"), "utf-8")
        output.expect(rf"{STAMP} tools\.yaml in \d+ ms")
        output.expect(r"  ! MCP server 'time': left out now: .*'get_current_tmie'.*")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(EXIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        output.close()
