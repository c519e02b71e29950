"""DSL spellings (OPS.md `py:` lines) of the system_matmul ops (issue 14).

Launch queries: `pl.tile.get_block_num()`, `pl.tensor.get_block_idx()` / `get_block_num()` /
`get_subblock_idx()` (also `pl.get_block_idx()` & co., the tensor forms), `pl.system.available_aiv_count()`,
`available_cluster_count()`. Ordering ops: `pl.system.bar_all()` / `bar_m()` / `bar_v()` / `fence()`,
`pl.system.sync_src(*, set_pipe, wait_pipe, event_id)` / `sync_dst(...)`. Task ids:
`pl.system.task_dummy(*, deps=None)` (the deps must be task ids; the IR op takes none: the machine has
no task graph) and `pl.system.task_is_valid(task_id)` (OPS.md: built by passes; spelled here so printed
text re-parses). `pl.system.set_ffts(workspace)` replaces system.py's spelling (OPS.md's parameter
name). The matmul spellings are in system_matmul_mm.py.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import PipeType
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType
from pypto_core.ops.build import to_enum_int, to_expr, to_int
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl import system_matmul_mm as mm
from pypto_plugins.ops_tile.dsl.common import dsl_entry


def _nullary(op: str) -> Any:
    name = op.rsplit(".", 1)[1]

    def build(span: Span | None = None) -> Call:
        return create_op_call(op, [], span=span)

    build.__name__ = name
    return dsl_entry(build)


def _flag(op: str) -> Any:
    def build(span: Span | None = None, *, set_pipe: Any, wait_pipe: Any, event_id: Any) -> Call:
        kwargs = {"set_pipe": to_enum_int(set_pipe, PipeType, "set_pipe"),
                  "wait_pipe": to_enum_int(wait_pipe, PipeType, "wait_pipe"), "event_id": to_int(event_id, "event_id")}
        return create_op_call(op, [], kwargs, span=span)

    build.__name__ = op.rsplit(".", 1)[1]
    return dsl_entry(build)


@dsl_entry
def task_dummy(span: Span | None = None, *, deps: Any = None) -> Call:
    for dep in deps or ():
        e = to_expr(dep, span)
        if not (isinstance(e.type, ScalarType) and e.type.dtype is DataType.TASK_ID):
            raise TypeError(f"deps= must hold task ids (Scalar[TASK_ID]), got {e.type}")
    return create_op_call("system.task_dummy", [], span=span)


@dsl_entry
def task_is_valid(task_id: Expr, span: Span | None = None) -> Call:
    return create_op_call("system.task_is_valid", [to_expr(task_id, span)], span=span)


@dsl_entry
def set_ffts(workspace: Expr, span: Span | None = None) -> Call:
    return create_op_call("system.set_ffts", [workspace], span=span)


_TENSOR_QUERIES = {n: _nullary(f"tensor.{n}") for n in ("get_block_idx", "get_block_num", "get_subblock_idx")}

TILE: dict[str, Any] = {"get_block_num": _nullary("tile.get_block_num"), **mm.TILE}
TENSOR: dict[str, Any] = {**_TENSOR_QUERIES, **mm.TENSOR_FORMS}
SYSTEM: dict[str, Any] = {
    **{n: _nullary(f"system.{n}") for n in ("available_aiv_count", "available_cluster_count", "bar_all", "bar_m",
                                            "bar_v", "fence")},
    "sync_src": _flag("system.sync_src"), "sync_dst": _flag("system.sync_dst"),
    "task_dummy": task_dummy, "task_is_valid": task_is_valid, "set_ffts": set_ffts,
}
UNIFIED: dict[str, Any] = {**_TENSOR_QUERIES, **mm.UNIFIED}  # they override the base dispatchers of the same name
