"""Cross-core pipe setup: system.reserve_buffer / import_peer_buffer and system.aic_initialize_pipe /
aiv_initialize_pipe, the scaffolding the cube-vector FIFOs run on (cross-core role PIPE_SETUP).

IR layouts (docs/reference/ops.md):
* `system.reserve_buffer()` kwargs `name`, `size` (positive), `base` (an address or -1 = pl.AUTO; recorded)
  -> Scalar[INT32]: the consumer-side slot buffer's address.
* `system.import_peer_buffer()` kwargs `name`, `peer_func` -> Scalar[INT32]: the address of a buffer the peer
  function reserved (known statically, as to a linker).
* `system.aic_initialize_pipe(c2v_consumer_buf, v2c_consumer_buf)` / `aiv_...`: two integer buffer addresses (a
  literal becomes an INT32 constant; a missing one prints `pl.const(0, pl.INT32)`); kwargs `dir_mask` (1 C2V, 2
  V2C, 3 both), `slot_size` (positive), optional `slot_num`, `local_slot_num` (positive), `id`. The AIC form
  runs on the cube, the AIV form on a vector lane.

Semantics: the setups build the core group's buffers and pipe setups (pypto_core/interp/pipes.py), which every
push / pop is checked against; outside a core group there is nothing to set up. An AUTO buffer's address is
derived from its name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, Type, UnknownType
from pypto_core.ops.build import dsl_entry, require_scalar, to_expr, to_int
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, CrossCoreRole, KwargSpec, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.common.dsl import registered

family = OpFamily("pipes", semantics="pypto_plugins.ops_tile.semantics.pipes")


# -- type rules ---------------------------------------------------------------------------------------------
def deduce_reserve_buffer(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    if kwargs["size"] <= 0:
        raise ValueError(f"system.reserve_buffer: size must be positive, got {kwargs['size']}")
    if kwargs.get("base", -1) < -1:
        raise ValueError(f"system.reserve_buffer: base must be an address or -1 (pl.AUTO), got {kwargs['base']}")
    return ScalarType(DataType.INT32)


def deduce_address(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.INT32)


def init_pipe_deducer(op: str) -> Callable[..., Type]:
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


# -- ops ----------------------------------------------------------------------------------------------------
_PIPE_KWARGS = (KwargSpec("dir_mask", (int,), required=True, choices=(1, 2, 3)),
                KwargSpec("slot_size", (int,), required=True), KwargSpec("slot_num", (int,)),
                KwargSpec("local_slot_num", (int,)), KwargSpec("id", (int,)))
_BUFS = (ArgSpec("c2v_consumer_buf"), ArgSpec("v2c_consumer_buf"))

family.op(OpDef("system.reserve_buffer", deduce_reserve_buffer,
                kwargs=(KwargSpec("name", (str,), required=True), KwargSpec("size", (int,), required=True),
                        KwargSpec("base", (int,), -1, recorded=True)),
                cross_core_role=CrossCoreRole.PIPE_SETUP, traits=OpTraits(reserves_on_chip_window=True),
                doc="Reserve a consumer-side slot buffer; its address."),
          dsl="system.reserve_buffer")
family.op(OpDef("system.import_peer_buffer", deduce_address,
                kwargs=(KwargSpec("name", (str,), required=True), KwargSpec("peer_func", (str,), required=True)),
                cross_core_role=CrossCoreRole.PIPE_SETUP, doc="The address of a buffer the peer function reserved."),
          dsl="system.import_peer_buffer")
family.op(OpDef("system.aic_initialize_pipe", init_pipe_deducer("system.aic_initialize_pipe"), args=_BUFS,
                kwargs=_PIPE_KWARGS, affinity=CoreAffinity.CUBE, cross_core_role=CrossCoreRole.PIPE_SETUP,
                doc="Set up the cross-core pipes on the cube."))
family.op(OpDef("system.aiv_initialize_pipe", init_pipe_deducer("system.aiv_initialize_pipe"), args=_BUFS,
                kwargs=_PIPE_KWARGS, affinity=CoreAffinity.VECTOR, cross_core_role=CrossCoreRole.PIPE_SETUP,
                doc="Set up the cross-core pipes on a vector lane."))


# -- DSL ----------------------------------------------------------------------------------------------------
def _buffer(value: Any, span: Span | None) -> Expr:
    """A literal buffer address is an INT32 constant (a missing one prints `pl.const(0, pl.INT32)`)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return ConstInt(value, DataType.INT32, span)
    if isinstance(value, ConstInt) and value.type.dtype is DataType.INDEX:
        return ConstInt(value.value, DataType.INT32, value.span)
    return to_expr(value, span)


def _initialize_pipe(op: str, c2v: Any, v2c: Any, span: Span | None, **kwargs: Any) -> Call:
    kw = {k: to_int(v, k) for k, v in kwargs.items() if v is not None}
    return create_op_call(op, [_buffer(c2v, span), _buffer(v2c, span)], kw, span=span)


@family.dsl("system.aic_initialize_pipe")
@dsl_entry
def aic_initialize_pipe(c2v_consumer_buf: Any = 0, v2c_consumer_buf: Any = 0, *, dir_mask: Any, slot_size: Any,
                        slot_num: Any = None, local_slot_num: Any = None, id: Any = None,
                        span: Span | None = None) -> Call:
    return _initialize_pipe("system.aic_initialize_pipe", c2v_consumer_buf, v2c_consumer_buf, span,
                            dir_mask=dir_mask, slot_size=slot_size, slot_num=slot_num,
                            local_slot_num=local_slot_num, id=id)


@family.dsl("system.aiv_initialize_pipe")
@dsl_entry
def aiv_initialize_pipe(c2v_consumer_buf: Any = 0, v2c_consumer_buf: Any = 0, *, dir_mask: Any, slot_size: Any,
                        slot_num: Any = None, local_slot_num: Any = None, id: Any = None,
                        span: Span | None = None) -> Call:
    return _initialize_pipe("system.aiv_initialize_pipe", c2v_consumer_buf, v2c_consumer_buf, span,
                            dir_mask=dir_mask, slot_size=slot_size, slot_num=slot_num,
                            local_slot_num=local_slot_num, id=id)


# The pipe setup is also spelled at the top level (pl.reserve_buffer, ...).
for _name in ("reserve_buffer", "import_peer_buffer"):
    family.dsl_function(_name, registered(f"system.{_name}"))
family.dsl_function("aic_initialize_pipe", aic_initialize_pipe)
family.dsl_function("aiv_initialize_pipe", aiv_initialize_pipe)
