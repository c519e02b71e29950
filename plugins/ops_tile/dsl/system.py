"""DSL / builders of the system ops: pipe scaffolding, synchronisation, task_invalid (docs/reference/ops.md)."""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PipeType
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import to_enum_int, to_expr, to_int, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import dsl_entry

AUTO = -1  # `pl.AUTO`: let the allocator place the buffer


@dsl_entry
def reserve_buffer(span: Span | None = None, *, name: str, size: Any, base: Any = AUTO) -> Call:
    kwargs = {"name": name, "size": to_int(size, "size"), "base": to_int(base, "base")}
    return create_op_call("system.reserve_buffer", [], kwargs, span=span)


@dsl_entry
def import_peer_buffer(span: Span | None = None, *, name: str, peer_func: str) -> Call:
    return create_op_call("system.import_peer_buffer", [], {"name": name, "peer_func": peer_func}, span=span)


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


@dsl_entry
def aic_initialize_pipe(c2v_consumer_buf: Any = 0, v2c_consumer_buf: Any = 0, *, dir_mask: Any, slot_size: Any,
                        slot_num: Any = None, local_slot_num: Any = None, id: Any = None,
                        span: Span | None = None) -> Call:
    return _initialize_pipe("system.aic_initialize_pipe", c2v_consumer_buf, v2c_consumer_buf, span,
                            dir_mask=dir_mask, slot_size=slot_size, slot_num=slot_num,
                            local_slot_num=local_slot_num, id=id)


@dsl_entry
def aiv_initialize_pipe(c2v_consumer_buf: Any = 0, v2c_consumer_buf: Any = 0, *, dir_mask: Any, slot_size: Any,
                        slot_num: Any = None, local_slot_num: Any = None, id: Any = None,
                        span: Span | None = None) -> Call:
    return _initialize_pipe("system.aiv_initialize_pipe", c2v_consumer_buf, v2c_consumer_buf, span,
                            dir_mask=dir_mask, slot_size=slot_size, slot_num=slot_num,
                            local_slot_num=local_slot_num, id=id)


@dsl_entry
def sync_set(event_id: Any, span: Span | None = None, *, pipe: Any, ffts_mode: Any = None,
             core_type: str | None = None) -> Call:
    kwargs: dict[str, Any] = {"pipe": to_enum_int(pipe, PipeType, "pipe")}
    if ffts_mode is not None:
        kwargs["ffts_mode"] = to_int(ffts_mode, "ffts_mode")
    if core_type is not None:
        kwargs["core_type"] = core_type
    return create_op_call("system.sync_set", [to_expr(event_id, span)], kwargs, span=span)


@dsl_entry
def sync_wait(event_id: Any, span: Span | None = None, *, pipe: Any, core_type: str | None = None) -> Call:
    kwargs: dict[str, Any] = {"pipe": to_enum_int(pipe, PipeType, "pipe")}
    if core_type is not None:
        kwargs["core_type"] = core_type
    return create_op_call("system.sync_wait", [to_expr(event_id, span)], kwargs, span=span)


@dsl_entry
def set_ffts(ws: Any, span: Span | None = None) -> Call:
    return create_op_call("system.set_ffts", [to_expr(ws, span)], span=span)


@dsl_entry
def syncall(gm_workspace: Expr | None = None, used_cores: Any = None, span: Span | None = None, *,
            core_type: str = "mix", mode: str = "hard") -> Call:
    """The soft form synchronises through `gm_workspace` (optionally over `used_cores` cores)."""
    if used_cores is not None and gm_workspace is None:
        raise TypeError("used_cores= needs gm_workspace=")
    args = [a if isinstance(a, Expr) else to_expr(a, span) for a in (gm_workspace, used_cores) if a is not None]
    return create_op_call("system.syncall", args, {"core_type": core_type, "mode": mode}, span=span)


@dsl_entry
def cacheinvalid(t: Expr | None = None, shapes: Any = None, offsets: Any = None, span: Span | None = None) -> Call:
    if (shapes is None) != (offsets is None) or (shapes is not None and t is None):
        raise TypeError("give a tensor alone, or a tensor with both shapes and offsets")
    args = [] if t is None else [t]
    if shapes is not None:
        args += [to_tuple(shapes, span), to_tuple(offsets, span)]
    return create_op_call("system.cacheinvalid", args, span=span)


@dsl_entry
def task_invalid(span: Span | None = None) -> Call:
    return create_op_call("system.task_invalid", [], span=span)


PIPE_SETUP = {"reserve_buffer": reserve_buffer, "import_peer_buffer": import_peer_buffer,
              "aic_initialize_pipe": aic_initialize_pipe, "aiv_initialize_pipe": aiv_initialize_pipe}
SYSTEM = {**PIPE_SETUP, "sync_set": sync_set, "sync_wait": sync_wait, "set_ffts": set_ffts, "syncall": syncall,
          "cacheinvalid": cacheinvalid, "task_invalid": task_invalid}
