"""`tooldeck call` asks before running a tool with side effects.

Without a terminal the command runs in-process; on a terminal it is a real process on a pty.
"""

import os
import pty
import select
import subprocess
import textwrap
import time

from tests.conftest import ROOT, SCRIPTS

MANIFEST = textwrap.dedent(
    """\
    version: 1
    tools:
      - name: touch
        handler: tests.acceptance.side_handlers:touch
        description: Create an empty file with the given name in the project directory.
        side_effects: true
        effect: Creates a file in the project directory
        params:
          - {name: name, description: "File name to create"}
    """
)


def _args(tmp_path):
    manifest = tmp_path / "touch.yaml"
    manifest.write_text(MANIFEST, encoding="utf-8")
    return [
        "call",
        "touch",
        "--args",
        '{"name": "made.txt"}',
        "-m",
        str(manifest),
        "--allow-handlers",
        "tests.acceptance",
        "--project-dir",
        str(tmp_path),
    ]


def test_without_a_terminal_the_call_is_denied_and_says_how_to_approve(run_line, tmp_path):
    done = run_line(*_args(tmp_path), stdin="y\n")  # an answer waiting, but not a terminal
    assert done.exit_code == 1
    assert "Error (denied)" in done.stderr
    assert "--yes" in done.stderr
    assert not (tmp_path / "made.txt").exists()


def test_yes_approves_non_interactively(run_line, tmp_path):
    done = run_line(*_args(tmp_path), "--yes")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.strip() == "created made.txt"
    assert (tmp_path / "made.txt").exists()


def _run_on_terminal(argv, answer: bytes) -> tuple[int, str]:
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(SCRIPTS / "tooldeck"), *argv],
        cwd=ROOT,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    output = b""
    deadline = time.monotonic() + 30
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
            if not answered and b"[y/N]" in output:
                os.write(leader, answer)
                answered = True
        elif process.poll() is not None:
            break
    code = process.wait(timeout=30)
    os.close(leader)
    return code, output.decode("utf-8", "replace")


def test_on_a_terminal_it_shows_the_call_and_asks(tmp_path):
    code, output = _run_on_terminal(_args(tmp_path), b"y\n")
    assert "Tool 'touch' has side effects: Creates a file in the project directory." in output
    assert '"name": "made.txt"' in output
    assert code == 0, output
    assert (tmp_path / "made.txt").exists()


def test_on_a_terminal_anything_but_yes_declines(tmp_path):
    code, output = _run_on_terminal(_args(tmp_path), b"\n")
    assert code == 1
    assert "declined" in output
    assert not (tmp_path / "made.txt").exists()
