"""Barriers, fences, pipe flags and task ids (OPS.md "Sync / barriers / cache", "Task ids").

* `system.bar_all()` / `bar_m()` / `bar_v()` (pipe barriers: every pipe, the cube's M pipe, the vector's
  V pipe) and `system.fence()` (memory fence): no operands, no value (UnknownType; used as statements).
* `system.sync_src(*, set_pipe, wait_pipe, event_id)` / `sync_dst(...)`: set / wait an event flag between
  two pipes of one core (set_flag / wait_flag); pipes are PipeType ints, event_id 0..13 (sync_set's range).
* `system.task_dummy()` -> Scalar[TASK_ID]: a task id that completes at once (PyPTO's parser construct
  `pl.system.task_dummy(deps=[...])`; the deps are the parser's business, the IR op takes none).
* `system.task_is_valid(task_id)` -> Scalar[BOOL]: whether a task id is not task_invalid's.

They are ordering ops: values never see them, so no pass may delete or reorder them. What says so in
the registry: the statement ops return UnknownType, which the passes' side-effect test treats as a
barrier / sync (pass_split/mixed_kernel/dce.py has_side_effect); no declared effects, because they touch
no operand. Affinity: none declared (OPS.md), so the classifier makes them SHARED and ExpandMixedKernel
copies them to both cores; inside a pl.split_aiv region they run on the AIV lanes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PipeType
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, Type, UnknownType
from pypto_core.ops.build import require_scalar
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef

PIPES = tuple(int(p) for p in PipeType)
EVENT_IDS = tuple(range(14))  # OPS.md: static event ids 0..13 (sync_set / sync_wait)


def deduce_statement(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return UnknownType()


def deduce_task_dummy(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.TASK_ID)


def deduce_task_is_valid(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    t = require_scalar("system.task_is_valid", args[0], "task_id")
    if t.dtype is not DataType.TASK_ID:
        raise TypeError(f"system.task_is_valid: task_id must be a Scalar[TASK_ID], got {args[0].type}")
    return ScalarType(DataType.BOOL)


_FLAG_KWARGS = (KwargSpec("set_pipe", (int,), required=True, choices=PIPES, doc="The pipe that sets the flag."),
                KwargSpec("wait_pipe", (int,), required=True, choices=PIPES, doc="The pipe that waits for it."),
                KwargSpec("event_id", (int,), required=True, choices=EVENT_IDS, doc="The event flag (0..13)."))

OPDEFS = [
    OpDef("system.bar_all", deduce_statement, doc="Barrier: every pipe of this core drains before the next op."),
    OpDef("system.bar_m", deduce_statement, doc="Barrier on the cube's M (matrix) pipe."),
    OpDef("system.bar_v", deduce_statement, doc="Barrier on the vector pipe."),
    OpDef("system.fence", deduce_statement, doc="Memory fence: earlier memory accesses complete before later ones."),
    OpDef("system.sync_src", deduce_statement, kwargs=_FLAG_KWARGS,
          doc="Set event flag event_id from set_pipe to wait_pipe (set_flag)."),
    OpDef("system.sync_dst", deduce_statement, kwargs=_FLAG_KWARGS,
          doc="Wait on wait_pipe for event flag event_id set by set_pipe (wait_flag)."),
    OpDef("system.task_dummy", deduce_task_dummy, doc="A task id that completes immediately (a dependency join)."),
    OpDef("system.task_is_valid", deduce_task_is_valid, args=(ArgSpec("task_id"),),
          doc="Whether task_id is a real task (not system.task_invalid's id)."),
]
