"""`system.*` ops: cross-core pipe scaffolding, synchronisation and the invalid task id.

IR layouts (docs/reference/ops.md):
* `system.reserve_buffer()` kwargs `name`, `size`, `base` (-1 = AUTO) -> Scalar[INT32].
* `system.import_peer_buffer()` kwargs `name`, `peer_func` -> Scalar[INT32].
* `system.aic_initialize_pipe(c2v_buf, v2c_buf)` / `aiv_...` - two INT32 scalar operands (a literal
  becomes ConstInt(v, INT32)); kwargs `dir_mask` (1 C2V, 2 V2C, 3 both), `slot_size`, opt. `slot_num`,
  `local_slot_num`, `id`.
* `system.sync_set(event_id)` kwargs `pipe` (PipeType int), opt. `ffts_mode`, `core_type`;
  `system.sync_wait(event_id)` kwargs `pipe`, opt. `core_type`; `system.set_ffts(ws)`;
  `system.syncall([gm_workspace[, used_cores]])` kwargs `core_type`, `mode`;
  `system.cacheinvalid([t[, shapes, offsets]])`; `system.task_invalid()` -> Scalar[TASK_ID].

Choices of pypto's own, where PyPTO's documents are silent: the buffer / pipe ops have cross-core role PIPE_SETUP; sync ops'
`core_type` is "aic" / "aiv" (syncall: "mix" / "aic_only" / "aiv_only") and decides their affinity
(their `lane_kwarg`: a call that gives it states its lane);
soft syncall needs a gm_workspace operand; event ids are integer scalars.

Against OPS.md (issue 14 audit): PyPTO's sync_set / sync_wait carry a static event id as the kwarg
`event_id` and a runtime one as the optional operand `event_id_dyn`; here (docs/reference/ops.md) the event id is
always operand 0, a constant for the static form. The checks follow OPS.md: a constant event id is 0..13,
a runtime one a Scalar[INDEX] (any integer scalar); ffts_mode 0..2. set_ffts's operand is `workspace`: a
1-D INT64 tensor of static extent >= 256, read only (OPS.md "declared no writes").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PipeType
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.types import ScalarType, Type, UnknownType
from pypto_core.ops.build import require_rank, require_scalar, require_tensor, static_int, tuple_elements
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, CrossCoreRole, Effect, KwargSpec, OpDef

_PIPES = tuple(int(p) for p in PipeType)


def _int32(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.INT32)


def deduce_reserve_buffer(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    if kwargs["size"] <= 0:
        raise ValueError(f"system.reserve_buffer: size must be positive, got {kwargs['size']}")
    if kwargs.get("base", -1) < -1:
        raise ValueError(f"system.reserve_buffer: base must be an address or -1 (pl.AUTO), got {kwargs['base']}")
    return ScalarType(DataType.INT32)


def _init_pipe(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        for e, what in zip(args, ("c2v_consumer_buf", "v2c_consumer_buf")):
            if not require_scalar(op, e, what).dtype.is_int():
                raise TypeError(f"{op}: {what} must be an integer buffer address, got {e.type}")
        if kwargs["slot_size"] <= 0:
            raise ValueError(f"{op}: slot_size must be positive, got {kwargs['slot_size']}")
        for key in ("slot_num", "local_slot_num"):
            if kwargs.get(key) is not None and kwargs[key] <= 0:
                raise ValueError(f"{op}: {key} must be positive, got {kwargs[key]}")
        return UnknownType()

    return deduce


EVENT_IDS = range(14)  # OPS.md: a static event id is 0..13
FFTS_WORKSPACE = 256  # OPS.md: the FFTS workspace holds at least 256 INT64 entries


def _event(op: str):
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        if not require_scalar(op, args[0], "event_id").dtype.is_int():
            raise TypeError(f"{op}: event_id must be an integer, got {args[0].type}")
        if isinstance(args[0], ConstInt) and args[0].value not in EVENT_IDS:
            raise ValueError(f"{op}: event_id must be 0..13, got {args[0].value}")
        return UnknownType()

    return deduce


def deduce_set_ffts(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    ws = require_tensor("system.set_ffts", args[0], "workspace")
    require_rank("system.set_ffts", ws.shape, 1, "workspace")
    extent = static_int(ws.shape[0])
    if ws.dtype is not DataType.INT64 or extent is None or extent < FFTS_WORKSPACE:
        raise TypeError(f"system.set_ffts: workspace must be a 1-D INT64 tensor of static extent >= "
                        f"{FFTS_WORKSPACE}, got {ws}")
    return UnknownType()


def deduce_syncall(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    if kwargs.get("mode", "hard") == "soft" and not args:
        raise ValueError("system.syncall: mode='soft' synchronises through global memory; pass gm_workspace=")
    if len(args) > 1 and not require_scalar("system.syncall", args[1], "used_cores").dtype.is_int():
        raise TypeError("system.syncall: used_cores must be an integer")
    return UnknownType()


def syncall_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    """OPS.md: a soft syncall counts arrivals in gm_workspace (ReadWrite); a hard one only reads it."""
    return {0: Effect.READ_WRITE} if kwargs.get("mode", "hard") == "soft" else {}


def deduce_cacheinvalid(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    if len(args) == 2:
        raise TypeError("system.cacheinvalid: give shapes and offsets together")
    if len(args) == 3:
        rank = len(require_tensor("system.cacheinvalid", args[0], "tensor").shape)
        if not len(tuple_elements(args[1])) == len(tuple_elements(args[2])) == rank:
            raise TypeError(f"system.cacheinvalid: shapes and offsets must both have the tensor's rank {rank}")
    return UnknownType()


def deduce_task_invalid(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.TASK_ID)


def classify_sync(call: Call) -> CoreAffinity:
    """`core_type="aic"` pins CUBE, `"aiv"` VECTOR; otherwise SHARED (docs/plugins.md, OpDef fields)."""
    return {"aic": CoreAffinity.CUBE, "aiv": CoreAffinity.VECTOR}.get(call.kwargs.get("core_type"),
                                                                      CoreAffinity.SHARED)


def classify_syncall(call: Call) -> CoreAffinity:
    return {"aic_only": CoreAffinity.CUBE, "aiv_only": CoreAffinity.VECTOR}.get(call.kwargs.get("core_type"),
                                                                               CoreAffinity.SHARED)


_PIPE_KWARGS = (KwargSpec("dir_mask", (int,), required=True, choices=(1, 2, 3)),
                KwargSpec("slot_size", (int,), required=True), KwargSpec("slot_num", (int,)),
                KwargSpec("local_slot_num", (int,)), KwargSpec("id", (int,)))
_BUFS = (ArgSpec("c2v_consumer_buf"), ArgSpec("v2c_consumer_buf"))
_CORE = KwargSpec("core_type", (str,), choices=("aic", "aiv"))

OPDEFS = [
    OpDef("system.reserve_buffer", deduce_reserve_buffer,
          kwargs=(KwargSpec("name", (str,), required=True), KwargSpec("size", (int,), required=True),
                  KwargSpec("base", (int,), -1, recorded=True)),
          cross_core_role=CrossCoreRole.PIPE_SETUP, doc="Reserve a consumer-side slot buffer; its address."),
    OpDef("system.import_peer_buffer", _int32,
          kwargs=(KwargSpec("name", (str,), required=True), KwargSpec("peer_func", (str,), required=True)),
          cross_core_role=CrossCoreRole.PIPE_SETUP, doc="The address of a buffer the peer function reserved."),
    OpDef("system.aic_initialize_pipe", _init_pipe("system.aic_initialize_pipe"), args=_BUFS, kwargs=_PIPE_KWARGS,
          affinity=CoreAffinity.CUBE, cross_core_role=CrossCoreRole.PIPE_SETUP,
          doc="Set up the cross-core pipes on the cube."),
    OpDef("system.aiv_initialize_pipe", _init_pipe("system.aiv_initialize_pipe"), args=_BUFS, kwargs=_PIPE_KWARGS,
          affinity=CoreAffinity.VECTOR, cross_core_role=CrossCoreRole.PIPE_SETUP,
          doc="Set up the cross-core pipes on a vector lane."),
    OpDef("system.sync_set", _event("system.sync_set"), args=(ArgSpec("event_id"),),
          kwargs=(KwargSpec("pipe", (int,), required=True, choices=_PIPES), KwargSpec("ffts_mode", (int,), choices=(0, 1, 2)), _CORE),
          affinity=classify_sync, lane_kwarg="core_type", doc="Signal an event after a pipe."),
    OpDef("system.sync_wait", _event("system.sync_wait"), args=(ArgSpec("event_id"),),
          kwargs=(KwargSpec("pipe", (int,), required=True, choices=_PIPES), _CORE),
          affinity=classify_sync, lane_kwarg="core_type", doc="Wait for an event before a pipe."),
    OpDef("system.set_ffts", deduce_set_ffts, args=(ArgSpec("workspace"),),
          doc="Set the FFTS base address (the cross-core flag workspace)."),
    OpDef("system.syncall", deduce_syncall,
          args=(ArgSpec("gm_workspace", optional=True), ArgSpec("used_cores", optional=True)),
          kwargs=(KwargSpec("core_type", (str,), "mix", choices=("mix", "aic_only", "aiv_only"), recorded=True),
                  KwargSpec("mode", (str,), "hard", choices=("hard", "soft"), recorded=True)),
          effects=syncall_effects, affinity=classify_syncall, lane_kwarg="core_type", doc="Barrier across cores."),
    OpDef("system.cacheinvalid", deduce_cacheinvalid,
          args=(ArgSpec("tensor", optional=True), ArgSpec("shapes", optional=True), ArgSpec("offsets", optional=True)),
          doc="Invalidate cached global memory (optionally one window of a tensor)."),
    OpDef("system.task_invalid", deduce_task_invalid, doc="The invalid task id (a literal None in the DSL)."),
]
