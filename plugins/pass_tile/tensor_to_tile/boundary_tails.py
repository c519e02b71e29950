"""The vector tail of a cube op's tile form, moved past a region's shard (docs/passes/lower_auto_vector_split.md, outside the regions).

A tensor op computed on the cube can lower to the cube op and a vector op applied to its result: an FP16
`pl.matmul` is `tile.matmul` (the FP32 accumulator, Acc) and a `tile.cast` to FP16 (Vec). In a function
with `pl.split_aiv` regions that cast would stand outside every region (vector work the regions must
place, AivSplitValid (e)), and the region's `pl.aiv_shard` would receive a Vec tile instead of the
cube's accumulator ((d): a shard takes its operand in Acc, the cube's output). So a shard of such a value shards the
accumulator itself and applies the tail to its result, inside the region: each lane converts its own
half. The tail is moved only when it is element-wise on the shard (its type rule keeps the shard's
shape); the full-width tail is dropped once no one uses it.

What the ops are is the registry's: the product is a call whose output memory is a cube space, the
tail a call whose first operand must be in a vector space, the shard the `c2v` split boundary.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType, dims_equal
from pypto_core.ir.utils import has_split_aiv_region, rebuilt_seq
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
        return rebuilt_seq(s, [self.visit_stmt(x) for x in kept])


def drop_unused(body: S.Stmt, candidates: set[int]) -> S.Stmt:
    """The definitions of `candidates` (variable ids) that nothing uses any more, removed."""
    uses = _Uses()
    uses.visit_stmt(body)
    dead = candidates - uses.used
    return _DropDefs(dead).visit_stmt(body) if dead else body


# -- outside every region: the cube converts its accumulator on the way to GM ---------------------------------
#
# docs/passes/lower_auto_vector_split.md, outside the regions: once a function has a pl.split_aiv region, the regions place its vector work, and
# what stays outside them is cube work, tile.load / tile.store and scalars. A cube op written outside every
# region (`c = pl.matmul(full, b)` on a gathered tile) is cube work as a whole, so the tail its tile form
# appends (the cast of the FP32 accumulator to the tensor op's FP16 / BF16) must not become vector work
# there. A tail that only converts the dtype (it keeps the accumulator's shape) is what the cube's output
# path does on a store straight from the cube space (the fixpipe, AccToGmStoreValid): when every use of the
# tail is such a GM transfer, the transfer takes the accumulator and the tail goes. Any other use has no
# cube-side form, and is a located error rather than vector work outside the regions.


class _TailUses(IRVisitor):
    """Where the tail variables outside every region are used: as an operand of an op call, or otherwise."""

    def __init__(self, tails: dict[int, tuple[E.Var, E.Call]]) -> None:
        self.tails = tails
        self.region_depth = 0
        self.outside: dict[int, S.AssignStmt] = {}  # tail variable id -> its definition, outside every region
        self.calls: dict[int, list[tuple[E.Call, int]]] = {}
        self.other: dict[int, E.Var] = {}

    def visit_split_aiv_scope_stmt(self, s: S.SplitAivScopeStmt) -> None:
        self.region_depth += 1
        self.visit_node(s)
        self.region_depth -= 1

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        if id(s.var) in self.tails and self.region_depth == 0:
            self.outside[id(s.var)] = s
        self.visit_expr(s.value)  # not the variable it defines

    def visit_call(self, call: E.Call) -> None:
        for i, a in enumerate(call.args):
            if isinstance(a, E.Var) and id(a) in self.tails and opdef_of(call) is not None:
                self.calls.setdefault(id(a), []).append((call, i))
            else:
                self.visit_expr(a)

    def visit_var_like(self, var: E.Var) -> None:
        if id(var) in self.tails:
            self.other[id(var)] = var
        super().visit_var_like(var)


def _converts_only(tail: E.Call, product: E.Expr) -> bool:
    """The tail changes the dtype of the product and nothing else (its shape, its only tile operand)."""
    t, p = tail.type, product.type
    return (isinstance(t, TileType) and isinstance(p, TileType) and dims_equal(t.shape, p.shape)
            and t.dtype is not p.dtype and not any(isinstance(a.type, TileType) for a in tail.args[1:]))


def _transfer_from_cube(call: E.Call, index: int, product: E.Expr) -> E.Call | None:
    """`call` (a GM transfer) taking the cube's tile itself at `index`, when its registry entry allows it."""
    opdef = opdef_of(call)
    space = getattr(product.type, "memory_space", None)
    if opdef is None or not opdef.traits.gm_transfer or space is None:
        return None
    accepted = opdef.accepted_spaces(index)
    if accepted is not None and space not in accepted:
        return None
    args = list(call.args)
    args[index] = product
    try:
        rebuilt = create_op_call(call.op.name, args, dict(call.kwargs), span=call.span)
    except (TypeError, ValueError):
        return None  # its type rule does not convert from that space
    return rebuilt.with_fields(attrs=dict(call.attrs)) if call.attrs else rebuilt


class _Replace(IRMutator):
    def __init__(self, calls: dict[int, E.Call]) -> None:
        self.calls = calls

    def visit_call(self, call: E.Call) -> E.Expr:
        new = self.calls.get(id(call))
        return new if new is not None else super().visit_call(call)


def fold_tails_outside_regions(body: S.Stmt, tails: dict[int, tuple[E.Var, E.Call]], func_name: str,
                               pass_name: str) -> S.Stmt:
    """In a function with regions, the conversion tails outside every region folded into the stores of
    their values (the store takes the accumulator); a tail used otherwise is a located UserError."""
    if not tails or not has_split_aiv_region(body):
        return body
    uses = _TailUses(tails)
    uses.visit_stmt(body)
    replaced: dict[int, E.Call] = {}
    for key, definition in uses.outside.items():
        var, tail = tails[key]
        product = tail.args[0]
        sites = uses.calls.get(key, [])
        if not sites and key not in uses.other:
            continue  # unused: dropped below
        converts = _converts_only(tail, product)
        rebuilt = [_transfer_from_cube(c, i, product) if converts else None for c, i in sites]
        if key in uses.other or any(r is None for r in rebuilt):
            user = next((c.op.name for (c, _), r in zip(sites, rebuilt) if r is None), "a carry, merge or tuple")
            raise UserError(f"{pass_name}: in InCore function '{func_name}', '{var.name_hint}' is computed on the "
                            f"cube outside every pl.split_aiv region, and its tile form ends in {tail.op.name} of "
                            f"the cube's {product.type.dtype.name} result: vector work, which the regions place "  # type: ignore[attr-defined]
                            f"(docs/passes/lower_auto_vector_split.md); the cube converts its result only on the way to GM, but {user} uses "
                            f"it: store it (pl.assemble into an output), or hand it to a region with pl.aiv_shard "
                            f"and compute with it there", definition.span)
        for (call, _), new in zip(sites, rebuilt):
            replaced[id(call)] = new  # type: ignore[assignment]
    if replaced:
        body = _Replace(replaced).visit_stmt(body)
    return drop_unused(body, set(uses.outside))
