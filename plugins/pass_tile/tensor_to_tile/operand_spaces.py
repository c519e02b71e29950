"""Operands a tile op needs in a given space, and the loads that feed them (ConvertTensorToTileOps, rules 3 and 5
of docs/passes/convert_tensor_to_tile_ops.md).

A tile form declares the spaces of some operands (`TileForm.operand_spaces`: a matmul's lhs and rhs in Mat,
transposed by `a_trans` / `b_trans`). Before the body is lowered, those demands are collected on the variables
passed there and carried back through copies (`y = x`) and tensor views (ops whose result lives in their
first operand's buffer, the registry's `buffer_view`), so that a `pl.slice` feeding a matmul is loaded straight
into Mat. While a call is lowered, each such operand is bridged: a GM tensor is loaded into the space
(`<name>_mat`, Mat loads marked `__compiler_tensor_to_tile_mat_bridge` for InferTileMemorySpace and
AutoTileMatmulL0), a transposed one viewed (`<load>_t = tile.transpose_view(...)`), a transposed tile outside
Mat moved there first (`<v>_mat`).
"""

from __future__ import annotations

from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ops.registry import op_registry, opdef_of
from pypto_plugins.pass_tile.interfaces import TILE_FORM

MAT_BRIDGE_MARKER = "__compiler_tensor_to_tile_mat_bridge"


def declared_spaces(call: E.Expr) -> tuple[tuple[int, MemorySpace, str | None], ...]:
    if not isinstance(call, E.Call) or isinstance(call.op, E.GlobalVar):
        return ()
    form = op_registry().implementation(TILE_FORM.name, call.op.name)
    return tuple(getattr(form, "operand_spaces", ()) or ())


def _record(demands: dict[int, MemorySpace], var: E.Expr, space: MemorySpace) -> bool:
    """A non-Vec demand overrides Vec (PyPTO's rule); True when the demand changed."""
    if not isinstance(var, E.Var):
        return False
    old = demands.get(id(var))
    if old is space or (old is not None and space is MemorySpace.Vec):
        return False
    demands[id(var)] = space
    return True


def operand_demands(body: S.Stmt) -> tuple[dict[int, MemorySpace], dict[int, MemorySpace | None]]:
    """(variable id -> the space a declared operand slot needs it in, carried back through copies and views;
    the part of it that only copies and views carried: what reaches a parameter's entry load)."""
    demands: dict[int, MemorySpace] = {}
    carried: dict[int, MemorySpace | None] = {}  # None: the slot leaves the space to InferTileMemorySpace
    stmts = list(statements(body))
    for s in stmts:
        call = s.value if isinstance(s, S.AssignStmt) else s.expr if isinstance(s, S.EvalStmt) else None
        for index, space, _ in declared_spaces(call):
            if index >= len(call.args):  # type: ignore[union-attr]
                continue
            if space is None:  # left to InferTileMemorySpace (a matmul_acc accumulator)
                if isinstance(call.args[index], E.Var):  # type: ignore[union-attr]
                    carried[id(call.args[index])] = None  # type: ignore[union-attr, assignment]
                continue
            _record(demands, call.args[index], space)  # type: ignore[union-attr]
    changed = True
    while changed:
        changed = False
        for s in reversed(stmts):
            if not isinstance(s, S.AssignStmt) or id(s.var) not in demands:
                continue
            source = s.value if isinstance(s.value, E.Var) else _viewed(s.value)
            if source is not None:
                changed |= _record(demands, source, demands[id(s.var)])
                _record(carried, source, demands[id(s.var)])  # type: ignore[arg-type]
    return demands, carried


def _viewed(value: E.Expr) -> E.Expr | None:
    """The operand a view op's result lives in (its first argument), else None."""
    opdef = opdef_of(value)
    if opdef is None or not opdef.traits.buffer_view or not value.args:  # type: ignore[union-attr]
        return None
    return value.args[0]  # type: ignore[union-attr]
