"""Worker threads for sync handlers: bounded, never blocking exit, stoppable past a timeout.

Three promises that :class:`concurrent.futures.ThreadPoolExecutor` cannot keep:

- **Bounded, refusing instead of queueing.** At most ``max_workers`` calls
  run at once (abandoned, timed-out ones included); one more is refused with
  :class:`PoolSaturated` straight away, so callers get a clear error rather
  than an unbounded queue.
- **Exit is never delayed.** Workers are daemon threads: a handler still
  running after its caller timed out does not hold the process open
  (``ThreadPoolExecutor`` joins its threads at interpreter exit).
- **Work stops at the time limit where Python can stop it.** :meth:`interrupt`
  raises :class:`HandlerTimedOut` inside a handler that is still running
  Python code, so a CPU-bound loop ends instead of burning a core. It is
  delivered at the next bytecode boundary: C code that holds the GIL, or a
  blocking system call, finishes first (the caller is answered on time
  either way, unless C code holds the GIL; see the README's security model).
"""

from __future__ import annotations

import ctypes
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

__all__ = ["HandlerTimedOut", "PoolSaturated", "WorkerPool"]

_IDLE_SECONDS = 60.0
"""A worker with nothing to do for this long ends; the next call starts a fresh one."""

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
"""``(thread id, exception class)`` schedules it in that thread; ``(id, None)`` withdraws it."""


class PoolSaturated(RuntimeError):
    """Every worker thread is busy (some possibly with abandoned, timed-out calls)."""


class HandlerTimedOut(BaseException):
    """Raised inside a handler that outlived its timeout.

    A ``BaseException`` so that a handler's ``except Exception`` does not
    swallow it and keep running.
    """


_Task = tuple[Future[Any], Callable[[], Any]]


class _Worker:
    """One daemon thread and what it is running now (guarded by the pool's lock)."""

    def __init__(self) -> None:
        self.ident = 0
        self.current: Future[Any] | None = None


class WorkerPool:
    """A bounded pool of daemon threads that refuses work instead of queueing without end."""

    def __init__(self, max_workers: int = 32) -> None:
        self.max_workers = max_workers
        self._slots = threading.BoundedSemaphore(max_workers)
        self._tasks: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._workers: set[_Worker] = set()
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        """Run ``fn`` on a worker thread, or raise :class:`PoolSaturated` at once."""
        if not self._slots.acquire(blocking=False):
            raise PoolSaturated(
                f"all {self.max_workers} tool worker threads are busy (slow or timed-out "
                "calls still running); try again shortly"
            )
        future: Future[Any] = Future()
        future.add_done_callback(lambda _: self._slots.release())
        with self._lock:
            self._closed = False
            self._tasks.put((future, fn))
            if self._idle:
                self._idle -= 1  # an idle worker is promised this task
            else:
                self._start_worker()
        return future

    def interrupt(self, future: Future[Any]) -> bool:
        """Stop the handler behind ``future`` if it is still running Python code.

        Returns whether an interruption was sent. Safe at any moment: the
        exception is only ever aimed at the thread while it runs this task,
        and a pending one is withdrawn when the task ends.
        """
        with self._lock:
            for worker in self._workers:
                if worker.current is future and worker.ident:
                    sent = _set_async_exc(
                        ctypes.c_ulong(worker.ident), ctypes.py_object(HandlerTimedOut)
                    )
                    return bool(sent == 1)
        return False

    def shutdown(self) -> None:
        """Let idle workers end; running calls finish on their own (daemon threads)."""
        with self._lock:
            self._closed = True
            for _ in range(self._idle):
                self._tasks.put(None)
            self._idle = 0

    def _start_worker(self) -> None:
        worker = _Worker()
        self._workers.add(worker)
        thread = threading.Thread(
            target=self._run, args=(worker,), name="tooldeck-tool", daemon=True
        )
        thread.start()

    def _run(self, worker: _Worker) -> None:
        worker.ident = threading.get_ident()
        while (task := self._next_task(worker)) is not None:
            future, fn = task
            if not future.set_running_or_notify_cancel():
                outcome: tuple[bool, Any] | None = (False, None)
            else:
                outcome = None
            while True:  # an interruption may land anywhere until _settle withdraws it
                try:
                    if outcome is None:
                        outcome = self._call(worker, future, fn)
                    keep = self._settle(worker)
                    break
                except HandlerTimedOut as exc:
                    outcome = outcome or (False, exc)
            if future.running():
                ok, value = outcome
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)
            if not keep:
                return

    def _call(
        self, worker: _Worker, future: Future[Any], fn: Callable[[], Any]
    ) -> tuple[bool, Any]:
        with self._lock:
            worker.current = future
        try:
            try:
                return True, fn()
            except BaseException as exc:  # handed to the caller, as ThreadPoolExecutor does
                return False, exc
        except HandlerTimedOut as exc:  # delivered just as the handler returned
            return False, exc

    def _settle(self, worker: _Worker) -> bool:
        """Forget the finished task (withdrawing a pending interruption); False: end now."""
        with self._lock:
            if worker.current is not None:
                worker.current = None
                _set_async_exc(ctypes.c_ulong(worker.ident), None)
            if self._closed:
                self._workers.discard(worker)
                return False
            self._idle += 1
            return True

    def _next_task(self, worker: _Worker) -> _Task | None:
        """The next task, or None when this worker should end (idle too long, or shut down)."""
        while True:
            try:
                return self._tasks.get(timeout=_IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0 and self._tasks.empty():
                        self._idle -= 1
                        self._workers.discard(worker)
                        return None
