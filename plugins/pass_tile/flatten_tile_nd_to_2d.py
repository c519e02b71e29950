"""FlattenTileNdTo2D (docs/passes/flatten_tile_nd_to_2d.md): tiles of rank > 2 in InCore functions become 2-D.

The leading dims merge into rows, the last dim stays: a [2, 16, 64] tile becomes [32, 64]. Loads and
stores keep their N-D tensor coordinates, shapes and element indices inside tiles are rewritten — each
op's rule is its implementation of the flatten_2d op interface, which may bind helper statements (the pages
of a batched product or of an N-D transpose) and may fuse the store that follows. An op without a rule is
the same op on the flattened operands, accepted only when its result is the flattened result (a row-wise
op); otherwise, and whenever a window cannot be written in 2-D, a located ValueError says which op and why.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, MemorySpace
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.types import TileType, Type, dims_equal
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRVisitor
from pypto_core.language.printer import python_print_type
from pypto_core.ops.build import merged_2d, shape_text
from pypto_core.ops.registry import create_op_call, op_registry, opdef_of
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.interfaces import FLATTEN_2D

PASS = "FlattenTileNdTo2D"
KERNEL_TYPES = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)


def _nd(e: E.Expr) -> bool:
    return isinstance(e.type, TileType) and len(e.type.shape) > 2


class _UseCounter(IRVisitor):
    """How often each variable is read (a fused store must be its product's only reader)."""

    def __init__(self) -> None:
        super().__init__()
        self.uses: dict[int, int] = {}

    def visit_var(self, var: E.Var) -> None:
        self.uses[id(var)] = self.uses.get(id(var), 0) + 1

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self.visit_expr(s.value)  # the variable it binds is a definition, not a use


class _Flattener(BodyRewriter):
    """The walk, and the context a flatten_2d rule sees (plugins/ops_tile/common/flatten.py, Flatten2DContext)."""

    def __init__(self, func: F.Function, mat_capacity: int | None) -> None:
        super().__init__(func)
        self.mat_capacity = mat_capacity
        counter = _UseCounter()
        counter.visit_stmt(func.body)
        self._uses = counter.uses
        self._definitions: dict[int, E.Call] = {}
        self._original_types: dict[int, Type] = {}  # rewritten variable -> the type it had before the pass
        # Column-batched tiles (N-D transposed views, pages side by side once flattened): variable ids; the
        # statement being rewritten binds one when `_binds_column_batched` (plugins/ops_tile/common/flatten.py).
        self._column_batched: set[int] = set()
        self._binds_column_batched = False
        self._result: E.Var | None = None
        self._next: S.Stmt | None = None
        self._consumed: E.Var | None = None
        self.droppable: list[E.Var] = []

    # -- the rule context --------------------------------------------------------------------------------
    def definition(self, e: E.Expr) -> E.Call | None:
        """The (rewritten) call that defines a variable of the rewritten body."""
        return self._definitions.get(id(e))

    def column_batched(self, e: E.Expr) -> bool:
        return id(e) in self._column_batched

    def original_type(self, e: E.Expr) -> Type:
        """The type a variable of the rewritten body had before the pass (its N-D type)."""
        return self._original_types.get(id(e), e.type)

    def result_name(self, default: str) -> str:
        return self._result.name_hint if self._result is not None else default

    def following_call(self) -> E.Call | None:
        """The next statement's call, operands substituted, when it reads this call's result and nothing
        else does (a rule may then write both, e.g. a batched product and its store)."""
        s, result = self._next, self._result
        if result is None or not isinstance(s, S.AssignStmt) or not isinstance(s.value, E.Call):
            return None
        if self._uses.get(id(result), 0) != 1 or not any(a is result for a in s.value.args):
            return None
        return s.value.with_fields(args=tuple(result if a is result else self.exprs.visit_expr(a)
                                              for a in s.value.args))

    def is_result(self, e: E.Expr) -> bool:
        """Whether `e` is the variable the rewritten call is bound to."""
        return e is self._result

    def following_name(self) -> str:
        assert isinstance(self._next, S.AssignStmt)
        return self._next.var.name_hint

    def consume_following(self, value: E.Var) -> None:
        """The next statement (following_call's) is written by the rule: its variable now stands for `value`."""
        assert isinstance(self._next, S.AssignStmt)
        self._consumed = self._next.var
        self.subst[id(self._next.var)] = value

    def drop_if_unused(self, var: E.Expr) -> None:
        if isinstance(var, E.Var):
            self.droppable.append(var)

    # -- the walk ----------------------------------------------------------------------------------------
    def body(self, stmt: S.Stmt) -> S.Stmt:
        self.enter_block()
        stmts = flatten_to_stmts(stmt)
        out: list[S.Stmt] = []
        skip = False
        for i, s in enumerate(stmts):
            if skip:
                skip = False
                continue
            self._next = stmts[i + 1] if i + 1 < len(stmts) else None
            out.extend(self.stmt(s))
            skip = self._consumed is not None
            self._consumed = None
        self.exit_block()
        return make_body(out, stmt.span)

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if not isinstance(s, S.AssignStmt) or not isinstance(s.value, E.Call):
            self._result = None
            return super().stmt(s)
        self._result = s.var
        self._binds_column_batched = False
        value = self.expr(s.value, s.span, s.var)
        self._result = None
        if isinstance(value, E.Var):  # the rule wrote the statement as helpers: the variable is their last one
            self.subst[id(s.var)] = value
            self._original_types.setdefault(id(value), s.var.type)
            return self.take_pending()
        var = self.define(s.var, value.type)
        self._original_types[id(var)] = s.var.type
        if self._binds_column_batched:
            self._column_batched.add(id(var))
        if isinstance(value, E.Call):
            self._definitions[id(var)] = value
        if var is s.var and value is s.value:
            return [*self.take_pending(), s]
        return [*self.take_pending(), S.AssignStmt(var, value, s.span, s.leading_comments)]

    def bind_result(self, value: E.Expr) -> E.Var:
        if self._result is None:
            return self.bind(value, "result")
        name = self._result.name_hint  # the statement's own variable is replaced: its name is free again
        self.fresh.taken.add(name)
        var = E.Var(name, value.type, self.span)
        self.pending.append(S.AssignStmt(var, value, self.span))
        self._definitions[id(var)] = value  # type: ignore[assignment]
        return var

    def bind(self, value: E.Expr, name_hint: str) -> E.Var:
        var = super().bind(value, name_hint)
        if isinstance(value, E.Call):
            self._definitions[id(var)] = value
        return var

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        opdef = opdef_of(call)
        flatten_2d = op_registry().implementation(FLATTEN_2D.name, opdef.name) if opdef is not None else None
        touched = any(a is not b for a, b in zip(args, call.args)) or _nd(call) or \
            getattr(flatten_2d, "rewrites_2d", False)  # docs/passes/flatten_tile_nd_to_2d.md: 2-D forms too
        if not touched:
            return call
        if opdef is None:
            return call.with_fields(args=tuple(args))
        self._check_column_batching(call, args, flatten_2d)
        try:
            if flatten_2d is not None:
                new = flatten_2d(call, args, self)
            else:
                new = create_op_call(call.op.name, args, dict(call.kwargs), span=call.span)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{PASS}: {call.op.name} in InCore function '{self.func.name}' has no 2-D form: "
                            f"{exc}", call.span) from None
        if flatten_2d is None:  # an op's own rule states its 2-D form; the generic one must give the merged result
            self._check_result(call, new)
        return new.with_fields(attrs=dict(call.attrs)) if isinstance(new, E.Call) and call.attrs else new

    def _check_column_batching(self, call: E.Call, args: list[E.Expr], rule: Any) -> None:
        """A column-batched operand is read only by rules that say they read one; a rule producing one (or
        keeping one) marks the statement's variable (plugins/ops_tile/common/flatten.py, column_batching)."""
        kind = getattr(rule, "column_batching", None)
        read = [a for a in args if isinstance(a, E.Var) and self.column_batched(a)]
        if read and kind not in ("keeps", "reads"):
            name = read[0].name_hint
            raise UserError(f"{PASS}: {call.op.name} in InCore function '{self.func.name}' reads '{name}', an N-D "
                            f"transposed view (tile.transpose_view): flattened to 2-D its pages lie side by side, "
                            f"which only a batched matmul (or a batch-only reshape) reads; transpose after this op, "
                            f"or reshape the tile to 2-D before transposing it", call.span)
        nd_operand = bool(call.args) and isinstance(call.args[0].type, TileType) and len(call.args[0].type.shape) > 2
        self._binds_column_batched = (kind == "produces" and nd_operand) or (kind == "keeps" and bool(read))

    def _check_result(self, old: E.Call, new: E.Expr) -> None:
        t, n = old.type, new.type
        if not isinstance(t, TileType) or not isinstance(n, TileType):
            return
        want = merged_2d(t.shape)
        if not dims_equal(n.shape, want):
            raise UserError(f"{PASS}: {old.op.name} in InCore function '{self.func.name}' has no 2-D form: "
                            f"on the flattened operands it gives {shape_text(n.shape)}, not the flattened "
                            f"{shape_text(want)} of its {len(t.shape)}-D result {python_print_type(t)}; reshape "
                            f"its operand to 2-D first (pl.reshape) so that the op sees the axes it works on",
                            old.span)


def flatten_function(func: F.Function, mat_capacity: int | None = None) -> F.Function:
    for p in func.params:
        if _nd(p):
            raise UserError(f"{PASS}: InCore function '{func.name}' takes the {len(p.type.shape)}-D tile "  # type: ignore[attr-defined]
                            f"'{p.name_hint}'; pass a tensor (or a 2-D tile) instead", p.span)
    flattener = _Flattener(func, mat_capacity)
    body = flattener.body(func.body)
    if flattener.droppable:
        body = _drop_unused(body, {id(v) for v in flattener.droppable})
    return func if body is func.body else func.with_fields(body=body)  # type: ignore[return-value]


def _drop_unused(body: S.Stmt, droppable: set[int]) -> S.Stmt:
    """Remove the assignments of `droppable` variables nothing reads, until none is left (a transpose_view,
    then its load, then the load's tensor view)."""
    while True:
        counter = _UseCounter()
        counter.visit_stmt(body)
        dead = {v for v in droppable if not counter.uses.get(v)}
        if not dead:
            return body
        body = _without(body, dead)
        droppable -= dead


def _without(stmt: S.Stmt, dead: set[int]) -> S.Stmt:
    stmts = flatten_to_stmts(stmt)
    kept = [s for s in stmts if not (isinstance(s, S.AssignStmt) and id(s.var) in dead)]
    return stmt if len(kept) == len(stmts) else make_body(kept, stmt.span)


def _mat_capacity(ctx: Any) -> int | None:
    """The Mat (L1) size in bytes of the backend the pass context names, None without one."""
    if ctx is None or getattr(ctx, "backend_name", None) is None:
        return None
    return int(ctx.backend.capacity(MemorySpace.Mat))


class FlattenTileNdTo2D(Pass):
    """Make every tile of an InCore function 2-D."""

    name = "FlattenTileNdTo2D"
    factory_name = "flatten_tile_nd_to_2d"
    required = ("SSAForm", "IncoreTileOps")
    produced = ("SSAForm", "IncoreTileOps", "TileOps2D", "NormalizedStmtStructure")
    description = "Merge the leading dims of N-D tiles into rows; loads and stores keep N-D tensor coordinates."

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        capacity = _mat_capacity(ctx)
        funcs = [flatten_function(f, capacity) if f.func_type in KERNEL_TYPES else f
                 for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)
