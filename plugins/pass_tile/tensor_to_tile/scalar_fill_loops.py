"""Constant scalar-fill loops become one fill (ConvertTensorToTileOps, rule 2 of
docs/passes/convert_tensor_to_tile_ops.md; the first half of PyPTO's example 4).

    for i in pl.range(32):
        pl.tensor.write(o, [0, i], 7)

writes one element per iteration with a scalar store. PyPTO replaces such a loop by a tensor filled with the
constant and assembled into the target once (one MTE3 store instead of 32 scalar ones, and no mix of the two):

    o__scalar_fill_storage = pl.tensor.full([1, 32], dtype=pl.INT32, value=7)
    o__scalar_fill = pl.tensor.reshape(o__scalar_fill_storage, [1, 32])   # 32 at the varying axis, 1 elsewhere
    pl.tensor.assemble(o, o__scalar_fill, [0, 0])                         # the varying index -> 0 (or `e`)

The loop qualifies when it is a plain counted loop (sequential, `0 .. stop` by 1 with a constant stop, no carries,
no attrs) whose body is only scalar writes of constants, every write with the same index tuple in which exactly
one index depends on the loop variable and is `i`, `i + e` or `e + i`, every dim after that axis is a constant 1
indexed by constant 0, and the filled run is a whole number of 32-byte blocks (`stop * bits(dtype) % 256 == 0`).
Every write of the body gets its own three statements, in body order. What a scalar write is, is the registry's:
an op writing its operand 0 whose tile form addresses GM directly (`TileForm.gm_access`).
"""

from __future__ import annotations

from pypto_core.analysis.walk import vars_read
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ForKind
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import flatten_to_stmts, rebuilt_seq
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.build import static_int
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_tile.tensor_to_tile.staged_updates import is_scalar_write

_BLOCK_BITS = 256  # one 32-byte block: the fill must cover whole blocks


def _const(e: E.Expr) -> int | None:
    return static_int(e) if isinstance(e, E.ConstInt) else None


def _counted_loop(loop: S.ForStmt) -> int | None:
    """The trip count of `for i in range(0, stop, 1)` with a constant stop > 0 and nothing else, else None."""
    if loop.kind is not ForKind.Sequential or loop.iter_args or loop.return_vars or loop.attrs:
        return None
    stop = _const(loop.stop)
    if _const(loop.start) != 0 or _const(loop.step) != 1 or stop is None or stop <= 0:
        return None
    return stop


def _depends_on(e: E.Expr, var: E.Var) -> bool:
    return isinstance(e, E.Var) and e is var or any(v is var for v in vars_read(e))


def _run_start(index: E.Expr, var: E.Var) -> E.Expr | None:
    """`e` for an index `i + e` / `e + i` (0 for `i`), when `e` does not depend on `i`; else None."""
    if index is var:
        return E.ConstInt(0, index.type.dtype, index.span)  # type: ignore[attr-defined]
    if isinstance(index, E.Add):
        for a, b in ((index.left, index.right), (index.right, index.left)):
            if a is var and not _depends_on(b, var):
                return b
    return None


def _fill_plan(loop: S.ForStmt) -> tuple[int, int, E.Expr, list[E.Call]] | None:
    """(trip count, varying axis, run start, the writes) when `loop` is a constant scalar-fill loop."""
    stop = _counted_loop(loop)
    if stop is None:
        return None
    body = flatten_to_stmts(loop.body)
    if not body or not all(isinstance(s, S.EvalStmt) and is_scalar_write(s.expr) for s in body):
        return None
    writes: list[E.Call] = [s.expr for s in body]  # type: ignore[attr-defined, misc]
    first = writes[0].args[0].type
    if not isinstance(first, TensorType) or first.tensor_view is not None:
        return None
    indices = writes[0].args[1]
    for w in writes:
        t = w.args[0].type
        if not (isinstance(t, TensorType) and t.tensor_view is None and t.dtype is first.dtype
                and structural_equal(list(t.shape), list(first.shape))
                and isinstance(w.args[2], (E.ConstInt, E.ConstFloat))
                and isinstance(w.args[1], E.MakeTuple) and structural_equal(w.args[1], indices)):
            return None
    assert isinstance(indices, E.MakeTuple)
    varying = [k for k, ix in enumerate(indices.elements) if _depends_on(ix, loop.loop_var)]
    if len(varying) != 1:
        return None
    axis = varying[0]
    start = _run_start(indices.elements[axis], loop.loop_var)
    if start is None or stop * first.dtype.get_bit() % _BLOCK_BITS:
        return None
    trailing = zip(first.shape[axis + 1:], indices.elements[axis + 1:])
    if not all(_const(dim) == 1 and _const(ix) == 0 for dim, ix in trailing):
        return None
    return stop, axis, start, writes


def _one_fill(write: E.Call, stop: int, axis: int, start: E.Expr) -> list[S.Stmt]:
    """The three statements replacing one constant write of the loop."""
    target, indices, value = write.args
    dtype = target.type.dtype  # type: ignore[attr-defined]
    rank = len(target.type.shape)  # type: ignore[attr-defined]
    base = user_base(target)
    full = create_op_call("tensor.full", [E.MakeTuple([E.ConstInt(1), E.ConstInt(stop)]), value],
                          {"dtype": dtype}, span=write.span)
    storage = E.Var(f"{base}__scalar_fill_storage", full.type, write.span)
    shape = E.MakeTuple([E.ConstInt(stop if k == axis else 1) for k in range(rank)])
    reshape = create_op_call("tensor.reshape", [storage, shape], span=write.span)
    filled = E.Var(f"{base}__scalar_fill", reshape.type, write.span)
    offsets = E.MakeTuple([start if k == axis else ix for k, ix in enumerate(indices.elements)])  # type: ignore[attr-defined]
    assemble = create_op_call("tensor.assemble", [target, filled, offsets], span=write.span)
    return [S.AssignStmt(storage, full, write.span), S.AssignStmt(filled, reshape, write.span),
            S.EvalStmt(assemble, write.span)]


class _ScalarFillLoops(IRMutator):
    def visit_for_stmt(self, loop: S.ForStmt) -> S.Stmt:
        plan = _fill_plan(loop)
        if plan is None:
            return self.visit_node(loop)  # type: ignore[no-any-return]
        stop, axis, start, writes = plan
        try:
            fills = [s for w in writes for s in _one_fill(w, stop, axis, start)]
        except (TypeError, ValueError) as exc:  # e.g. the run leaves the tensor: the loop wrote out of bounds
            target = writes[0].args[0]
            raise UserError(f"ConvertTensorToTileOps: this loop writes the constant into '{user_base(target)}' at "
                            f"{stop} consecutive positions of dimension {axis}, which do not fit it ({exc}); "
                            f"write within the tensor's extent", loop.span) from None
        return S.SeqStmts(fills, loop.span)

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        out: list[S.Stmt] = []
        for child in seq.stmts:
            out.extend(flatten_to_stmts(self.visit_stmt(child)))
        return rebuilt_seq(seq, out)


def fill_constant_scalar_loops(func: F.Function) -> F.Function:
    """`func` with every constant scalar-fill loop replaced by one fill per write (any nesting depth)."""
    return _ScalarFillLoops().visit_function(func)
