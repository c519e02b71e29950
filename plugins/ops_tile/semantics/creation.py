"""The numpy semantics of the creation family's ops (../families/creation.py), imported when the reference
machine first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.interp.dtypes import poisoned
from pypto_core.interp.limits import check_allocation
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.semantics import as_ints, result_np_dtype, wide

semantics = Semantics()


@semantics("tile.create", "tensor.create")
def create(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """Uninitialised (poison) unless `init_value` is given."""
    dt = result_np_dtype(call)
    shape = as_ints(args[0]) if args else ctx.shape(call.type)
    check_allocation(shape, dt, call.op.name, call.span)
    init = kwargs.get("init_value")
    if init is not None:
        return np.full(shape, init, dtype=dt)
    return poisoned(shape, dt)


@semantics("tensor.create_l1")
def create_l1(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    return create(ctx, call, [args[0]], {})  # uninitialised: poison


@semantics("tile.full", "tensor.full")
def full(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    value = args[1] if len(args) > 1 else kwargs.get("value", 0)
    shape, dt = as_ints(args[0]), result_np_dtype(call)
    check_allocation(shape, dt, call.op.name, call.span)
    return np.full(shape, value, dtype=dt)


@semantics("tile.expands", "tensor.expands")
def expands(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    dt = result_np_dtype(call)
    return np.full(ctx.shape(call.type), np.asarray(wide(args[1])).astype(dt), dtype=dt)


@semantics("tile.alloc", "tensor.alloc")
def alloc(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    """The Ptr token: the tiles naming it hold the bytes (docs/memory_planning.md, address-accurate execution)."""
    return np.int64(0)
