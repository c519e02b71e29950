"""The cyclic garbage collector paused while the compile chain builds and walks IR (docs/architecture.md,
performance).

Every generation-2 collection walks every live object, and the IR a parse, a pass pipeline, a print or a
machine run holds grows with the program: with the collector running, those steps grow faster than the
program does. IR is a tree of immutable nodes that makes few reference cycles, so the chain runs with the
collector paused; when the outermost paused step ends the collector is resumed and the young generation
(what the step allocated and let go) is collected at once, so no cycle outlives the step by more than that.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_depth = 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off (nested blocks: only the outermost one toggles it); a
    collector the caller disabled stays disabled."""
    global _depth
    if _depth or not gc.isenabled():
        _depth += 1
        try:
            yield
        finally:
            _depth -= 1
        return
    _depth = 1
    gc.disable()
    try:
        yield
    finally:
        _depth = 0
        gc.enable()
        gc.collect(0)


def pauses_collector(fn: F) -> F:
    """`fn` runs inside collector_paused()."""

    @functools.wraps(fn)
    def paused(*args: Any, **kwargs: Any) -> Any:
        with collector_paused():
            return fn(*args, **kwargs)

    return paused  # type: ignore[return-value]
