"""``tooldeck serve`` as a child process for tests: started, waited for, always stopped.

One helper for every test that runs the real CLI over HTTP on 127.0.0.1: it
starts the process with its output in a log file, waits until the port
accepts connections (failing with the log when the process exits first or
never listens), and terminates it afterwards, killing it if it does not end.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["free_port", "serve_process"]


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on (the OS picked it a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve_process(
    argv: Sequence[str], *, cwd: Path, port: int, log: Path, deadline: float = 30.0
) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``argv`` in ``cwd`` until the ``with`` ends, once ``port`` accepts connections."""
    with log.open("w") as out:
        process = subprocess.Popen(list(argv), cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        try:
            give_up = time.monotonic() + deadline
            while True:
                if process.poll() is not None:
                    raise AssertionError(f"server exited: {log.read_text()}")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > give_up:
                        raise AssertionError(f"server never listened: {log.read_text()}") from None
                    time.sleep(0.1)
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=deadline)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
