"""The core-group model the machine executes: AIV lanes per group and the default FIFO depth.

It comes from the active backend's `core_group` (pypto_core/backend/backend.py: `aiv_lanes`,
`default_fifo_depth`; docs/architecture.md, backends). Without a backend the Ascend shape is used: one AIC
and two AIV lanes per group, two slots per cross-core FIFO. A pipe setup op's `slot_num` overrides
the depth for its pipe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CoreGroupShape:
    aiv_lanes: int = 2
    fifo_depth: int = 2  # slots of a pipe whose setup op names no slot_num
    # The backend the shape was read from: a machine given this shape bounds its on-chip bytes by that
    # backend's capacities (docs/memory_planning.md, execution by address). Not part of the shape's identity.
    backend: str | None = field(default=None, compare=False)


DEFAULT_SHAPE = CoreGroupShape()


def shape_from_backend(backend: Any) -> CoreGroupShape:
    """The machine shape a backend (a Backend object or a registered name) declares."""
    if backend is None:
        return DEFAULT_SHAPE
    if isinstance(backend, str):
        from pypto_core.backend.registry import get_backend

        backend = get_backend(backend)
    group = getattr(backend, "core_group", None)
    if group is None:
        return DEFAULT_SHAPE
    return CoreGroupShape(aiv_lanes=int(getattr(group, "aiv_lanes", DEFAULT_SHAPE.aiv_lanes)),
                          fifo_depth=int(getattr(group, "default_fifo_depth", DEFAULT_SHAPE.fifo_depth)),
                          backend=getattr(backend, "name", None))


def active_shape() -> CoreGroupShape:
    """The shape of the active backend (the PassContext's, else the process-wide choice)."""
    try:
        from pypto_core.passes.context import PassContext

        ctx = PassContext.current()
        if ctx is not None:
            return shape_from_backend(ctx.backend)
        from pypto_core.backend.selection import active_backend

        return shape_from_backend(active_backend())
    except (ImportError, ValueError, KeyError):  # no backend plugin loaded: the Ascend shape
        return DEFAULT_SHAPE


def active_backend_object() -> Any:
    """The active Backend (the PassContext's, else the process-wide choice), or None without a backend plugin."""
    try:
        from pypto_core.passes.context import PassContext

        ctx = PassContext.current()
        if ctx is not None and ctx.backend is not None:
            backend = ctx.backend
        else:
            from pypto_core.backend.selection import active_backend

            backend = active_backend()
        if isinstance(backend, str):
            from pypto_core.backend.registry import get_backend

            backend = get_backend(backend)
        return backend
    except (ImportError, ValueError, KeyError):
        return None
