"""Staged full-tensor scalar updates (ConvertTensorToTileOps, rule 1 of docs/passes/convert_tensor_to_tile_ops.md).

`S = pl.tensor.full(...)`; `T = pl.assemble(D, S, [0, .., 0])` into a parameter `D`, then only scalar writes into
`T` (`pl.tensor.write(T, idx, v)`) and `return T`: on chip the assemble is an MTE3 store and the writes scalar
stores into the same GM tensor, which do not order (the mixed-store error). PyPTO writes into the staged tile
instead and stores it once at the end: the writes, at any depth, are retargeted to `S` and the assemble moves just
before the return (writes inside loops and ifs are then carried, tensor_to_tile/in_place_carries.py). What the ops are is the registry's: `S` is a pure generator's tensor, the assemble an op writing its
operand 0 into which it returns (`output_reuses_input`), a scalar write an op writing operand 0 whose tile form
addresses GM directly (`TileForm.gm_access`).
"""

from __future__ import annotations

from pypto_core.analysis.walk import statements, vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import flatten_to_stmts, substitute_stmt
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import op_registry, opdef_of
from pypto_plugins.pass_tile.interfaces import TILE_FORM


def is_scalar_write(call: E.Expr) -> bool:
    opdef = opdef_of(call)
    if opdef is None or not isinstance(call, E.Call) or len(call.args) != 3:
        return False
    form = op_registry().implementation(TILE_FORM.name, call.op.name)
    return bool(getattr(form, "gm_access", False)) and opdef.arg_effect(0, call.kwargs) is Effect.WRITE


def _zero_offsets(offset: E.Expr, rank: int) -> bool:
    return isinstance(offset, E.MakeTuple) and len(offset.elements) == rank and all(
        isinstance(v, E.ConstInt) and v.value == 0 for v in offset.elements)


def _staged_pair(a: S.Stmt, b: S.Stmt, params: set[int]) -> bool:
    if not (isinstance(a, S.AssignStmt) and isinstance(b, S.AssignStmt)):
        return False
    gen, asm = opdef_of(a.value), opdef_of(b.value)
    if gen is None or asm is None or not gen.traits.pure_generator or asm.traits.output_reuses_input != 0:
        return False
    call = b.value
    assert isinstance(call, E.Call)
    if len(call.args) != 3 or call.args[1] is not a.var or id(call.args[0]) not in params:
        return False
    types = [a.var.type, b.var.type, call.args[0].type]
    if not all(isinstance(t, TensorType) and t.tensor_view is None for t in types):
        return False
    first = types[0]
    return all(t.dtype is first.dtype and structural_equal(list(t.shape), list(first.shape))  # type: ignore[attr-defined]
               for t in types[1:]) and _zero_offsets(call.args[2], len(first.shape))  # type: ignore[attr-defined]


def stage_full_tensor_updates(func: F.Function) -> F.Function:
    """`func` with each staged pair's scalar writes retargeted to the staged tensor and its assemble moved to
    just before the final return (a pair at the top level of the body; its writes at any depth)."""
    stmts = flatten_to_stmts(func.body)
    if len(stmts) < 3 or not isinstance(stmts[-1], S.ReturnStmt):
        return func
    params = {id(p) for p in func.params}
    for k in range(len(stmts) - 2):
        a, b = stmts[k], stmts[k + 1]
        if not _staged_pair(a, b, params):
            continue
        staged, target = a.var, b.var  # type: ignore[attr-defined]
        ret = stmts[-1]
        rest = [x for i, x in enumerate(stmts[:-1]) if i not in (k, k + 1)]
        # Writes at any depth: inside loops and ifs the staged tile is then carried (in_place_carries.py).
        writes = [s for s in statements(S.SeqStmts(rest, func.body.span))
                  if isinstance(s, S.EvalStmt) and is_scalar_write(s.expr)
                  and (s.expr.args[0] is staged or s.expr.args[0] is target)]  # type: ignore[attr-defined]
        into_target = sum(1 for s in writes if s.expr.args[0] is target)  # type: ignore[attr-defined]
        reads = [v for v in vars_read(S.SeqStmts(rest, func.body.span)) if v is staged or v is target]
        if into_target == 0 or len(reads) != len(writes):
            continue  # read some other way: the staging would change what that read sees
        moved = [substitute_stmt(x, {target: staged}) for x in rest]
        body = S.SeqStmts([a, *moved, b, ret] if k == 0 else [*moved[:k], a, *moved[k:], b, ret], func.body.span)
        return func.with_fields(body=body)  # type: ignore[return-value]
    return func
