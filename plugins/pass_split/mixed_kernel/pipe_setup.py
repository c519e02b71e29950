"""Pipe setup of an expanded kernel (docs/passes/expand_mixed_kernel.md, pipe setup, and its example).

For each direction the kernel uses, its consumer reserves the slot buffer and its producer imports it:

* C2V: AIV `F_c2v_slot_buffer = system.reserve_buffer(name='F_c2v_slot_buffer', size=slot_num*slot_size,
  base=-1)`, AIC `F_c2v_slot_buffer_import = system.import_peer_buffer(name='F_c2v_slot_buffer',
  peer_func='F_aiv')`;
* V2C: the same with the roles swapped (`F_v2c_slot_buffer`, peer `F_aic`);

the V2C statement before the C2V one on both sides; then each side declares the pipe: `system.aic_initialize_pipe(c2v, v2c, dir_mask=1|2|3, slot_size=S,
slot_num=N)` (`aiv_` on the AIV), `pl.const(0, pl.INT32)` standing for a direction not used. S is the
largest tile pushed or popped (bytes of its physical shape); N is the function's `slot_num` attr
(pl.cross_core_slot), else 2. On the AIV the setup follows a leading `tile.get_subblock_idx()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TileType, Type
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.build import static_dims
from pypto_core.ops.opdef import CoreAffinity, CrossCoreRole
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_plugins.pass_split.mixed_kernel.sides import Side

PASS = "ExpandMixedKernel"
DEFAULT_SLOT_NUM = 2
DIR_BITS = {"c2v": 1, "v2c": 2}


@dataclass
class PipeUse:
    directions: set[str]
    slot_size: int  # bytes

    @property
    def dir_mask(self) -> int:
        return sum(DIR_BITS[d] for d in self.directions)


def tile_bytes(t: Type, func_name: str, span: Span) -> int:
    dims = static_dims(t.shape) if isinstance(t, TileType) else None
    if dims is None:
        raise UserError(f"{PASS}: InCore function '{func_name}': a cross-core transfer moves a tile of type {t}, "
                        f"whose physical shape is not static, so no slot size can be chosen; give the tile a "
                        f"static shape (a runtime extent belongs in its valid_shape)", span)
    elements = 1
    for d in dims:
        elements *= d
    return (elements * t.dtype.get_bit() + 7) // 8  # type: ignore[union-attr]


class _Transfers(IRVisitor):
    def __init__(self, func_name: str) -> None:
        self.func_name = func_name
        self.use = PipeUse(set(), 0)

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self._see(s.value, s.var.type, s.span)
        super().visit_assign_stmt(s)

    def visit_eval_stmt(self, s: S.EvalStmt) -> None:
        self._see(s.expr, None, s.span)
        super().visit_eval_stmt(s)

    def _see(self, value: E.Expr, result: Type | None, span: Span) -> None:
        opdef = opdef_of(value) if isinstance(value, E.Call) and type(value.op) is E.Op else None
        if opdef is None or opdef.cross_core_role not in (CrossCoreRole.PUSH, CrossCoreRole.POP):
            return
        cube = classify_call_affinity(value) is CoreAffinity.CUBE
        if opdef.cross_core_role is CrossCoreRole.PUSH:
            self.use.directions.add("c2v" if cube else "v2c")
            t = value.args[0].type  # type: ignore[union-attr]
        else:
            self.use.directions.add("v2c" if cube else "c2v")
            t = result if result is not None else value.type
        self.use.slot_size = max(self.use.slot_size, tile_bytes(t, self.func_name, span))


def pipe_use(func_name: str, *bodies: list[S.Stmt]) -> PipeUse:
    walker = _Transfers(func_name)
    for body in bodies:
        for s in body:
            walker.visit_stmt(s)
    return walker.use


def _int32_var(name: str) -> E.Var:
    return E.Var(name, ScalarType(DataType.INT32))


def setup_stmts(side: Side, func_name: str, use: PipeUse, slot_num: int, fresh: FreshNames) -> list[S.Stmt]:
    """The side's buffer reservations / imports and its initialize_pipe."""
    stmts: list[S.Stmt] = []
    args: dict[str, E.Expr] = {}
    for direction in ("v2c", "c2v"):  # V2C's buffer statement first, on both sides
        if direction not in use.directions:
            continue
        buffer = f"{func_name}_{direction}_slot_buffer"
        consumer = Side.AIV if direction == "c2v" else Side.AIC
        if side is consumer:
            call = create_op_call("system.reserve_buffer", [],
                                  {"name": buffer, "size": slot_num * use.slot_size, "base": -1})
            var = _int32_var(fresh(buffer))
        else:
            peer = f"{func_name}_{consumer.value}"
            call = create_op_call("system.import_peer_buffer", [], {"name": buffer, "peer_func": peer})
            var = _int32_var(fresh(f"{buffer}_import"))
        stmts.append(S.AssignStmt(var, call))
        args[direction] = var
    unused = E.ConstInt(0, DataType.INT32)
    init = create_op_call(f"system.{side.value}_initialize_pipe", [args.get("c2v", unused), args.get("v2c", unused)],
                          {"dir_mask": use.dir_mask, "slot_size": use.slot_size, "slot_num": slot_num})
    stmts.append(S.EvalStmt(init))
    return stmts


def with_setup(side: Side, stmts: list[S.Stmt], setup: list[S.Stmt]) -> list[S.Stmt]:
    """The setup at the top; on the AIV after a leading tile.get_subblock_idx() (docs/passes/expand_mixed_kernel.md, example)."""
    at = 0
    if side is Side.AIV and stmts and isinstance(stmts[0], S.AssignStmt) and isinstance(stmts[0].value, E.Call):
        opdef = opdef_of(stmts[0].value)
        if opdef is not None and opdef.traits.lane_index:
            at = 1
    return stmts[:at] + setup + stmts[at:]
