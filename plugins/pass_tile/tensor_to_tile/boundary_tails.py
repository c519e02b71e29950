"""The vector tail of a cube op's tile form, moved past a region's shard (seed 003, "区域外契约").

A tensor op computed on the cube can lower to the cube op and a vector op applied to its result: an FP16
`pl.matmul` is `tile.matmul` (the FP32 accumulator, Acc) and a `tile.cast` to FP16 (Vec). In a function
with `pl.split_aiv` regions that cast would stand outside every region (vector work the regions must
place, AivSplitValid (e)), and the region's `pl.aiv_shard` would receive a Vec tile instead of the
cube's accumulator ((d): a shard "要求操作数位于 Acc（cube 产出）"). So a shard of such a value shards the
accumulator itself and applies the tail to its result, inside the region: each lane converts its own
half. The tail is moved only when it is element-wise on the shard (its type rule keeps the shard's
shape); the full-width tail is dropped once no one uses it.

What the ops are is the registry's: the product is a call whose output memory is a cube space, the
tail a call whose first operand must be in a vector space, the shard the `c2v` split boundary.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType, dims_equal
from pypto_core.ir.visitor import IRMutator, IRVisitor
from pypto_core.ops.registry import create_op_call, opdef_of


def _lands_on_cube(call: E.Expr) -> bool:
    opdef = opdef_of(call) if isinstance(call, E.Call) else None
    if opdef is None or opdef.output_memory is None:
        return False
    space = opdef.output_memory.resolve(call.args, call.kwargs)  # type: ignore[union-attr]
    return space is not None and space.is_cube()


def _reads_vector(call: E.Call) -> bool:
    opdef = opdef_of(call)
    spaces = opdef.accepted_spaces(0) if opdef is not None else None
    return bool(spaces) and not any(m.is_cube() for m in spaces)  # type: ignore[union-attr]


def is_cube_tail(lowered: E.Expr, helpers: Sequence[S.Stmt]) -> bool:
    """`lowered` is a vector op whose only tile operand is a cube result the tile form bound (`helpers`)."""
    if not isinstance(lowered, E.Call) or not lowered.args or not _reads_vector(lowered):
        return False
    source = lowered.args[0]
    if any(isinstance(a.type, TileType) for a in lowered.args[1:]):
        return False
    return any(isinstance(h, S.AssignStmt) and h.var is source and _lands_on_cube(h.value) for h in helpers)


def is_shard(call: E.Call) -> bool:
    opdef = opdef_of(call)
    return opdef is not None and opdef.traits.split_boundary == "c2v"


def tail_on(tail: E.Call, half: E.Expr) -> E.Call | None:
    """The tail applied to one lane's half, when it is element-wise there (keeps the half's shape)."""
    try:
        moved = create_op_call(tail.op.name, [half, *tail.args[1:]], dict(tail.kwargs), span=tail.span)
    except (TypeError, ValueError):
        return None
    shape = getattr(half.type, "shape", None)
    if not isinstance(moved.type, TileType) or shape is None or not dims_equal(moved.type.shape, shape):
        return None
    return moved.with_fields(attrs=dict(tail.attrs)) if tail.attrs else moved


class _Uses(IRVisitor):
    def __init__(self) -> None:
        self.used: set[int] = set()

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self.visit_expr(s.value)  # not the variable it defines

    def visit_var_like(self, var: E.Var) -> None:
        self.used.add(id(var))


class _DropDefs(IRMutator):
    def __init__(self, dead: set[int]) -> None:
        self.dead = dead

    def visit_seq_stmts(self, s: S.SeqStmts) -> S.Stmt:
        kept = [x for x in s.stmts if not (isinstance(x, S.AssignStmt) and id(x.var) in self.dead)]
        stmts = [self.visit_stmt(x) for x in kept]
        if len(stmts) == len(s.stmts) and all(a is b for a, b in zip(stmts, s.stmts)):
            return s
        return s.with_fields(stmts=tuple(stmts))


def drop_unused(body: S.Stmt, candidates: set[int]) -> S.Stmt:
    """The definitions of `candidates` (variable ids) that nothing uses any more, removed."""
    uses = _Uses()
    uses.visit_stmt(body)
    dead = candidates - uses.used
    return _DropDefs(dead).visit_stmt(body) if dead else body
