"""Deterministic cooperative scheduling of the coroutines of a core group (or of two AIV lanes).

Each coroutine is a greenlet; the scheduler hands control to one task and gets it back when that task
blocks (a pop on an empty FIFO, a push on a full one, a lane barrier) or finishes. The next task is the
first one, in round-robin order after the one that stopped, that can make progress; so a run is a pure
function of the program and its inputs. When no task can make progress the run is a deadlock, reported
with what every task waits for.

Coroutines rather than generators: a blocking op may sit deep inside nested calls and loops, and making
every statement a generator would slow down the common, single-task case. Greenlets (the `greenlet`
package) rather than threads: a switch costs about a microsecond instead of two semaphore handoffs
through the GIL, which dominated cross-core programs (benchmarks/interp_small_ops.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from greenlet import greenlet

from pypto_core.interp.errors import DeadlockError


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
        self.coroutine: greenlet | None = None

    def can_run(self) -> bool:
        if self.state == "new":
            return True
        return self.state == "blocked" and self.waiting_for is not None and self.waiting_for()


class Scheduler:
    def __init__(self, what: str) -> None:
        self.what = what  # "core group 'k'" for messages
        self.tasks: list[Task] = []
        self._home: greenlet | None = None  # the greenlet running run(): where a blocked task switches to
        self._current: Task | None = None
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
        task = self._current
        if task is None or task.coroutine is not greenlet.getcurrent():
            raise DeadlockError(f"{describe()}, and nothing else runs that could make it ready")
        while not ready():
            task.state, task.waiting_for, task.describe_wait = "blocked", ready, describe
            assert self._home is not None
            self._home.switch()
            if self._aborting:
                raise _Abort()
        task.state, task.waiting_for = "running", None

    # -- called by the launching code -------------------------------------------------------------
    def run(self) -> list[Any]:
        """Run every task to completion; the results in task order. Re-raises the first error."""
        self._home = greenlet.getcurrent()
        for task in self.tasks:
            task.coroutine = greenlet(lambda t=task: self._body(t), parent=self._home)
        current = len(self.tasks) - 1
        try:
            while True:
                if all(t.state == "done" for t in self.tasks):
                    break
                chosen = self._next_runnable(current)
                if chosen is None:
                    raise DeadlockError(self._deadlock_message())
                current = chosen
                task = self.tasks[chosen]
                task.state = "running"
                self._resume(task)
                if task.state == "failed":
                    assert task.error is not None
                    raise task.error
        finally:
            self._teardown()
        for hook in self._after:
            hook()
        return [t.result for t in self.tasks]

    def _resume(self, task: Task) -> None:
        """Switch to the task until it blocks or ends (tasks of a nested scheduler run inside it)."""
        outer, self._current = self._current, task
        try:
            task.coroutine.switch()  # type: ignore[union-attr]
        finally:
            self._current = outer

    def _next_runnable(self, after: int) -> int | None:
        n = len(self.tasks)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self.tasks[i].can_run():
                return i
        return None

    def _body(self, task: Task) -> None:
        try:
            if self._aborting:
                raise _Abort()
            with np.errstate(all="ignore"):
                task.result = task.fn()
            task.state = "done"
        except _Abort:
            task.state = "aborted"
        except BaseException as exc:  # noqa: BLE001 - handed to the launching code
            task.error, task.state = exc, "failed"

    def _teardown(self) -> None:
        """Resume every unfinished task once so that it unwinds (wait() raises _Abort)."""
        self._aborting = True
        for task in self.tasks:
            if task.state == "blocked" or (task.state == "new" and task.coroutine is not None):
                self._resume(task)

    def _deadlock_message(self) -> str:
        lines = [f"deadlock in {self.what}: every coroutine is blocked"]
        for task in self.tasks:
            if task.state == "blocked" and task.describe_wait is not None:
                lines.append(f"  {task.name}: {task.describe_wait()}")
        return "\n".join(lines)
