"""How many BLAS threads the machine's products use while it runs (threadpoolctl; nothing global is set).

The machine multiplies tiles: many small products (128 x 128 x 128 is typical), one after the other.
For those a second BLAS thread mostly costs thread hand-offs, and on a busy machine it is far worse:
each product waits for a worker thread that another process holds (benchmarks/interp.py measured
1 thread as fast or faster in every round, and several times faster in the median under load). So
`Machine(..., blas_threads=1)` (the default) limits BLAS to one thread for the duration of a run
and restores the previous limit afterwards; `blas_threads=None` leaves BLAS alone.

The limit is process-wide while it holds (BLAS has no per-thread setting): runs that overlap in
time share one limit, taken by the first and restored by the last.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_depth = 0
_limiter: Any = None
_controller: Any = None


def _threadpool_controller() -> Any:
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController

        _controller = ThreadpoolController()  # scans the loaded libraries once (about a millisecond)
    return _controller


@contextmanager
def blas_threads(count: int | None) -> Iterator[None]:
    """Run the body with at most `count` BLAS threads (None: as configured outside)."""
    global _depth, _limiter
    if count is None:
        yield
        return
    with _lock:
        if _depth == 0:
            _limiter = _threadpool_controller().limit(limits=count, user_api="blas")
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                limiter, _limiter = _limiter, None
                limiter.restore_original_limits()
