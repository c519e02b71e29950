"""Deterministic cooperative scheduling of the coroutines of a core group (or of two AIV lanes).

Each coroutine runs in its own thread, but only one thread runs at a time: the scheduler hands a
baton to one task and waits until that task blocks (a pop on an empty FIFO, a push on a full one, a
lane barrier) or finishes. The next task is the first one, in round-robin order after the one that
stopped, that can make progress; so a run is a pure function of the program and its inputs. When no
task can make progress the run is a deadlock, reported with what every task waits for.

Threads rather than generators: a blocking op may sit deep inside nested calls and loops, and
making every statement a generator would slow down the common, single-threaded case.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.errors import DeadlockError

_LOCAL = threading.local()


class _Abort(BaseException):  # noqa: N818 - a control-flow signal, not an error
    """Unwinds a blocked task when its core group is torn down after an error elsewhere."""


class Task:
    """One coroutine: an AIC function, or one lane of an AIV function or of a split region."""

    def __init__(self, name: str, fn: Callable[[], Any]) -> None:
        self.name = name
        self.fn = fn
        self.state = "new"  # new | blocked | running | done | failed | aborted
        self.waiting_for: Callable[[], bool] | None = None
        self.describe_wait: Callable[[], str] | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.baton = threading.Semaphore(0)
        self.thread: threading.Thread | None = None

    def can_run(self) -> bool:
        if self.state == "new":
            return True
        return self.state == "blocked" and self.waiting_for is not None and self.waiting_for()


class Scheduler:
    def __init__(self, what: str) -> None:
        self.what = what  # "core group 'k'" for messages
        self.tasks: list[Task] = []
        self._back = threading.Semaphore(0)
        self._aborting = False
        self._after: list[Callable[[], None]] = []

    def after_run(self, hook: Callable[[], None]) -> None:
        """Call `hook` once every task has finished without error (end-of-run checks), once per hook."""
        if hook not in self._after:
            self._after.append(hook)

    def add(self, name: str, fn: Callable[[], Any]) -> Task:
        task = Task(name, fn)
        self.tasks.append(task)
        return task

    # -- called from inside a task ---------------------------------------------------------------
    def wait(self, ready: Callable[[], bool], describe: Callable[[], str]) -> None:
        """Block the calling task until `ready()` holds; `describe()` explains the wait."""
        task: Task | None = getattr(_LOCAL, "task", None)
        if task is None or task not in self.tasks:
            raise DeadlockError(f"{describe()}, and nothing else runs that could make it ready")
        while not ready():
            task.state, task.waiting_for, task.describe_wait = "blocked", ready, describe
            self._back.release()
            task.baton.acquire()
            if self._aborting:
                raise _Abort()
        task.state, task.waiting_for = "running", None

    # -- called by the launching thread -----------------------------------------------------------
    def run(self) -> list[Any]:
        """Run every task to completion; the results in task order. Re-raises the first error."""
        for task in self.tasks:
            task.thread = threading.Thread(target=self._body, args=(task,), name=task.name, daemon=True)
            task.thread.start()
        current = len(self.tasks) - 1
        try:
            while True:
                live = [t for t in self.tasks if t.state not in ("done",)]
                if not live:
                    break
                chosen = self._next_runnable(current)
                if chosen is None:
                    raise DeadlockError(self._deadlock_message())
                current = chosen
                task = self.tasks[chosen]
                task.state = "running"
                task.baton.release()
                self._back.acquire()
                if task.state == "failed":
                    assert task.error is not None
                    raise task.error
        finally:
            self._teardown()
        for hook in self._after:
            hook()
        return [t.result for t in self.tasks]

    def _next_runnable(self, after: int) -> int | None:
        n = len(self.tasks)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self.tasks[i].can_run():
                return i
        return None

    def _body(self, task: Task) -> None:
        _LOCAL.task = task
        task.baton.acquire()
        try:
            if self._aborting:
                raise _Abort()
            with np.errstate(all="ignore"):
                task.result = task.fn()
            task.state = "done"
        except _Abort:
            task.state = "aborted"
        except BaseException as exc:  # noqa: BLE001 - handed to the launching thread
            task.error, task.state = exc, "failed"
        finally:
            self._back.release()

    def _teardown(self) -> None:
        """Wake every unfinished task so that it unwinds, then join all threads."""
        self._aborting = True
        for task in self.tasks:
            if task.state in ("blocked", "new"):
                task.baton.release()
                self._back.acquire()
        for task in self.tasks:
            if task.thread is not None:
                task.thread.join()

    def _deadlock_message(self) -> str:
        lines = [f"deadlock in {self.what}: every coroutine is blocked"]
        for task in self.tasks:
            if task.state == "blocked" and task.describe_wait is not None:
                lines.append(f"  {task.name}: {task.describe_wait()}")
        return "\n".join(lines)
