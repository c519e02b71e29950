"""Synchronisation and ordering ops of `system.*`: sync_set / sync_wait (events across cores), sync_src /
sync_dst (flags between two pipes of one core), set_ffts, syncall, the pipe barriers bar_all / bar_m / bar_v,
fence and cacheinvalid.

IR layouts (docs/reference/ops.md):
* `system.sync_set(event_id)` kwargs `pipe` (PipeType int), optional `ffts_mode` (0..2), `core_type`;
  `system.sync_wait(event_id)` kwargs `pipe`, optional `core_type`. The event id is always operand 0 (PyPTO
  carries a static one as the kwarg `event_id` and a runtime one as the optional operand `event_id_dyn`): a
  constant is 0..13, a runtime one any integer scalar (a Scalar[INDEX]).
* `system.sync_src(*, set_pipe, wait_pipe, event_id)` / `sync_dst(...)`: set / wait an event flag between two
  pipes of one core (set_flag / wait_flag); pipes are PipeType ints (the DSL takes the members or their names).
* `system.set_ffts(workspace)`: the FFTS base address, a 1-D INT64 tensor of static extent >= 256 (read only).
* `system.syncall([gm_workspace[, used_cores]])` kwargs `core_type` (mix / aic_only / aiv_only), `mode` (hard /
  soft; both recorded): a soft syncall synchronises through gm_workspace (required; it counts arrivals there:
  ReadWrite), a hard one only reads it.
* `system.bar_all()` / `bar_m()` / `bar_v()` (every pipe, the cube's M pipe, the vector pipe) and
  `system.fence()` (earlier memory accesses complete before later ones): no operands, no value.
* `system.cacheinvalid([t[, shapes, offsets]])`: invalidate cached global memory (optionally one window).

Lanes: a sync op's `core_type` ("aic" / "aiv"; syncall "aic_only" / "aiv_only") decides its affinity and is
its lane kwarg (a call that gives it states its lane); without it, and for the barriers, SHARED: ExpandMixedKernel
copies them to both cores, and inside a pl.split_aiv region they run on the AIV lanes.

They are ordering ops: values never see them, so no pass may delete or reorder them. What says so in the
registry: the statement ops return UnknownType, which the passes' side-effect test treats as a barrier / sync
(pass_split/mixed_kernel/dce.py, has_side_effect); no declared effects, because they touch no operand (a soft
syncall's workspace aside). Semantics: no-ops; the machine runs each core's ops in program order and orders
cores only through FIFOs and lane barriers, so they are no happens-before edges for the GM race check
(pypto_core/interp/gm_race.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PipeType
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import Type, UnknownType
from pypto_core.ops.build import (
    dsl_entry,
    require_rank,
    require_scalar,
    require_tensor,
    static_int,
    to_enum_int,
    to_expr,
    to_int,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, Effect, KwargSpec, OpDef
from pypto_core.ops.registry import create_op_call

family = OpFamily("sync")

PIPES = tuple(int(p) for p in PipeType)
EVENT_IDS = tuple(range(14))  # a static event id is 0..13
FFTS_WORKSPACE = 256  # the FFTS workspace holds at least 256 INT64 entries


# -- type rules ---------------------------------------------------------------------------------------------
def deduce_statement(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return UnknownType()


def event_deducer(op: str) -> Callable[..., Type]:
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
    """A soft syncall counts arrivals in gm_workspace (ReadWrite); a hard one only reads it."""
    return {0: Effect.READ_WRITE} if kwargs.get("mode", "hard") == "soft" else {}


def deduce_cacheinvalid(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    if len(args) == 2:
        raise TypeError("system.cacheinvalid: give shapes and offsets together")
    if len(args) == 3:
        rank = len(require_tensor("system.cacheinvalid", args[0], "tensor").shape)
        if not len(tuple_elements(args[1])) == len(tuple_elements(args[2])) == rank:
            raise TypeError(f"system.cacheinvalid: shapes and offsets must both have the tensor's rank {rank}")
    return UnknownType()


def classify_sync(call: Call) -> CoreAffinity:
    """`core_type="aic"` pins CUBE, `"aiv"` VECTOR; otherwise SHARED (docs/plugins.md, OpDef fields)."""
    return {"aic": CoreAffinity.CUBE, "aiv": CoreAffinity.VECTOR}.get(call.kwargs.get("core_type"),
                                                                      CoreAffinity.SHARED)


def classify_syncall(call: Call) -> CoreAffinity:
    return {"aic_only": CoreAffinity.CUBE, "aiv_only": CoreAffinity.VECTOR}.get(call.kwargs.get("core_type"),
                                                                               CoreAffinity.SHARED)


# -- ops ----------------------------------------------------------------------------------------------------
_CORE = KwargSpec("core_type", (str,), choices=("aic", "aiv"))
_PIPE = KwargSpec("pipe", (int,), required=True, choices=PIPES)
_FLAG_KWARGS = (KwargSpec("set_pipe", (int,), required=True, choices=PIPES, doc="The pipe that sets the flag."),
                KwargSpec("wait_pipe", (int,), required=True, choices=PIPES, doc="The pipe that waits for it."),
                KwargSpec("event_id", (int,), required=True, choices=EVENT_IDS, doc="The event flag (0..13)."))

family.op(OpDef("system.sync_set", event_deducer("system.sync_set"), args=(ArgSpec("event_id"),),
                kwargs=(_PIPE, KwargSpec("ffts_mode", (int,), choices=(0, 1, 2)), _CORE),
                affinity=classify_sync, lane_kwarg="core_type", doc="Signal an event after a pipe."))
family.op(OpDef("system.sync_wait", event_deducer("system.sync_wait"), args=(ArgSpec("event_id"),),
                kwargs=(_PIPE, _CORE), affinity=classify_sync, lane_kwarg="core_type",
                doc="Wait for an event before a pipe."))
family.op(OpDef("system.set_ffts", deduce_set_ffts, args=(ArgSpec("workspace"),),
                doc="Set the FFTS base address (the cross-core flag workspace)."), dsl="system.set_ffts")
family.op(OpDef("system.syncall", deduce_syncall,
                args=(ArgSpec("gm_workspace", optional=True), ArgSpec("used_cores", optional=True)),
                kwargs=(KwargSpec("core_type", (str,), "mix", choices=("mix", "aic_only", "aiv_only"), recorded=True),
                        KwargSpec("mode", (str,), "hard", choices=("hard", "soft"), recorded=True)),
                effects=syncall_effects, affinity=classify_syncall, lane_kwarg="core_type",
                doc="Barrier across cores."))
family.op(OpDef("system.cacheinvalid", deduce_cacheinvalid,
                args=(ArgSpec("tensor", optional=True), ArgSpec("shapes", optional=True),
                      ArgSpec("offsets", optional=True)),
                doc="Invalidate cached global memory (optionally one window of a tensor)."))
for _name, _doc in (("bar_all", "Barrier: every pipe of this core drains before the next op."),
                    ("bar_m", "Barrier on the cube's M (matrix) pipe."), ("bar_v", "Barrier on the vector pipe."),
                    ("fence", "Memory fence: earlier memory accesses complete before later ones.")):
    family.op(OpDef(f"system.{_name}", deduce_statement, doc=_doc), dsl=f"system.{_name}")
family.op(OpDef("system.sync_src", deduce_statement, kwargs=_FLAG_KWARGS,
                doc="Set event flag event_id from set_pipe to wait_pipe (set_flag)."))
family.op(OpDef("system.sync_dst", deduce_statement, kwargs=_FLAG_KWARGS,
                doc="Wait on wait_pipe for event flag event_id set by set_pipe (wait_flag)."))


@family.semantics("system.sync_set", "system.sync_wait", "system.set_ffts", "system.syncall", "system.cacheinvalid",
                  "system.bar_all", "system.bar_m", "system.bar_v", "system.fence", "system.sync_src",
                  "system.sync_dst")
def no_effect(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    """They order hardware pipes; the machine runs each core's ops in program order already."""
    return None


# -- DSL ----------------------------------------------------------------------------------------------------
@family.dsl("system.sync_set")
@dsl_entry
def sync_set(event_id: Any, span: Span | None = None, *, pipe: Any, ffts_mode: Any = None,
             core_type: str | None = None) -> Call:
    """pipe: a PipeType member, its name or its int."""
    kwargs: dict[str, Any] = {"pipe": to_enum_int(pipe, PipeType, "pipe")}
    if ffts_mode is not None:
        kwargs["ffts_mode"] = to_int(ffts_mode, "ffts_mode")
    if core_type is not None:
        kwargs["core_type"] = core_type
    return create_op_call("system.sync_set", [to_expr(event_id, span)], kwargs, span=span)


@family.dsl("system.sync_wait")
@dsl_entry
def sync_wait(event_id: Any, span: Span | None = None, *, pipe: Any, core_type: str | None = None) -> Call:
    kwargs: dict[str, Any] = {"pipe": to_enum_int(pipe, PipeType, "pipe")}
    if core_type is not None:
        kwargs["core_type"] = core_type
    return create_op_call("system.sync_wait", [to_expr(event_id, span)], kwargs, span=span)


@family.dsl("system.syncall")
@dsl_entry
def syncall(gm_workspace: Expr | None = None, used_cores: Any = None, span: Span | None = None, *,
            core_type: str = "mix", mode: str = "hard") -> Call:
    """The soft form synchronises through `gm_workspace` (optionally over `used_cores` cores)."""
    if used_cores is not None and gm_workspace is None:
        raise TypeError("used_cores= needs gm_workspace=")
    args = [a if isinstance(a, Expr) else to_expr(a, span) for a in (gm_workspace, used_cores) if a is not None]
    return create_op_call("system.syncall", args, {"core_type": core_type, "mode": mode}, span=span)


@family.dsl("system.cacheinvalid")
@dsl_entry
def cacheinvalid(t: Expr | None = None, shapes: Any = None, offsets: Any = None, span: Span | None = None) -> Call:
    if (shapes is None) != (offsets is None) or (shapes is not None and t is None):
        raise TypeError("give a tensor alone, or a tensor with both shapes and offsets")
    args = [] if t is None else [t]
    if shapes is not None:
        args += [to_tuple(shapes, span), to_tuple(offsets, span)]
    return create_op_call("system.cacheinvalid", args, span=span)


def flag_builder(op: str) -> Any:
    """`pl.system.sync_src(*, set_pipe, wait_pipe, event_id)`: the pipes as PipeType members, names or ints."""

    def build(span: Span | None = None, *, set_pipe: Any, wait_pipe: Any, event_id: Any) -> Call:
        kwargs = {"set_pipe": to_enum_int(set_pipe, PipeType, "set_pipe"),
                  "wait_pipe": to_enum_int(wait_pipe, PipeType, "wait_pipe"), "event_id": to_int(event_id, "event_id")}
        return create_op_call(op, [], kwargs, span=span)

    build.__name__ = op.rsplit(".", 1)[1]
    return dsl_entry(build)


family.dsl_function("system.sync_src", flag_builder("system.sync_src"))
family.dsl_function("system.sync_dst", flag_builder("system.sync_dst"))
