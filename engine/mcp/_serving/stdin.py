"""This process's stdin, line by line, for ``serve_stdio``: read by a daemon thread.

The SDK's ``stdio_server`` reads stdin in an anyio worker thread, which
cancellation waits for and which the interpreter joins at exit: a server told
to stop (SIGTERM, Ctrl-C) while its client keeps stdin open would hang until
the client writes or closes it. Here a daemon thread reads, so stopping never
waits for a read that may not return, and the process can exit.

As the SDK does, fd 0 points at the null device while serving, so handlers
and the processes they start read end-of-file rather than protocol bytes;
lines come from a private duplicate of the original descriptor, which is
never closed (the thread may still be blocked on it) and is put back on exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from typing import IO

import anyio

__all__ = ["daemon_stdin"]


class _Lines(anyio.AsyncFile[str]):
    """The lines of a text stream, handed from a daemon thread to the event loop."""

    def __init__(self, fp: IO[str]) -> None:
        super().__init__(fp)
        self._queue: asyncio.Queue[str] = asyncio.Queue(maxsize=1)
        self._loop = asyncio.get_running_loop()
        self._thread: threading.Thread | None = None

    async def readline(self) -> str:
        if self._thread is None:
            self._thread = threading.Thread(target=self._pump, name="tooldeck-stdin", daemon=True)
            self._thread.start()
        return await self._queue.get()

    async def __aiter__(self) -> AsyncIterator[str]:
        while line := await self.readline():
            yield line

    def _pump(self) -> None:
        """Read lines until end-of-file ("" ends the iteration) or until nobody listens."""
        while True:
            try:
                line = self.wrapped.readline()
            except (OSError, ValueError):
                line = ""
            try:
                asyncio.run_coroutine_threadsafe(self._queue.put(line), self._loop).result()
            except RuntimeError:  # the loop is closed: the server has stopped
                return
            if not line:
                return


@contextlib.asynccontextmanager
async def daemon_stdin() -> AsyncIterator[anyio.AsyncFile[str]]:
    """stdin as the ``stdin=`` of ``mcp.server.stdio.stdio_server``, for the duration."""
    with _claimed_stdin() as fp:
        yield _Lines(fp)


@contextlib.contextmanager
def _claimed_stdin() -> Iterator[IO[str]]:
    try:
        fd = sys.stdin.fileno()
        private = os.dup(fd)
        os.set_inheritable(private, False)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        yield io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)
    try:
        raw = os.fdopen(private, "rb", buffering=0, closefd=False)
        yield io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors="replace")
    finally:
        os.dup2(private, fd)
