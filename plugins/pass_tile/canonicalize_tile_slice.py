"""CanonicalizeTileSlice (docs/passes/canonicalize_tile_slice.md): the consumers of plain 2-D tile windows get
forms the backend can use, and windows nothing reads any more are dropped.

Phase 1 (tile_prep/slice_windows.py) resolves every window `tile.slice(src, shape, [r, c])` to the tile it
reads; tile_prep/acc_windows.py rejects row windows of accumulators. Phase 2 rewrites, per call, the first
rule that applies:

1. a copy of a window (tile.extract of a slice) copies from the window's base instead;
2. a cube operand (an operand the op takes in Left or Right, its OpDef's input_memory) that is a window of a
   Mat tile becomes a copy of that window straight into Left / Right;
3. an op that reads its operands in place (`contiguous_window_operands`: tile.col_expand_*) gets a Vec copy
   of each window operand with a dynamic origin or that is not one run of memory;
4. any other op gets a Vec copy of each Vec (or not yet placed) window operand whose start is not provably
   32-byte aligned; so do an alias of such a window, a loop init and a yielded value.

Phase 3 drops the window statements whose variable nothing reads, until none is left. Which ops are windows
and copies is the `tile_window` / `window_copy` op interfaces (docs/plugins.md, op interfaces).
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.walk import vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import CORE_KERNEL_TYPES, FunctionType, MemorySpace
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ops.registry import create_op_call, op_registry, opdef_of
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.interfaces import CONTIGUOUS_WINDOW_OPERANDS, WINDOW_COPY
from pypto_plugins.pass_tile.tile_prep.acc_windows import reject_row_windows_of_accumulators
from pypto_plugins.pass_tile.tile_prep.slice_windows import SliceWindow, SliceWindows, _add, window_form

CUBE_OPERAND_SPACES = (MemorySpace.Left, MemorySpace.Right)


def _implementation(interface: str, call: E.Call) -> Any:
    return op_registry().implementation(interface, call.op.name) if type(call.op) is E.Op else None


class _Canonicalizer(BodyRewriter):
    def __init__(self, func: F.Function, windows: SliceWindows) -> None:
        super().__init__(func)
        self.windows = windows
        self.changed = False

    # -- helpers -------------------------------------------------------------------------------------------
    def copy_of(self, w: SliceWindow, memory: MemorySpace, span: Any) -> E.Var:
        """`<window>_textract = <copy of the window into memory>`, bound before the statement."""
        value = w.copy(w.base, w.row, w.col, w.shape, memory, span)
        var = E.Var(self.fresh(f"{w.var.name_hint}_textract"), value.type, span)
        self.pending.append(S.AssignStmt(var, value, span))
        self.changed = True
        return var

    def unaligned(self, e: E.Expr) -> SliceWindow | None:
        w = self.windows.of(e)
        return w if w is not None and w.vector_or_unplaced and not self.windows.aligned(w) else None

    # -- phase 2: calls -----------------------------------------------------------------------------------
    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        if type(call.op) is not E.Op or window_form(call) is not None:
            return super().rewrite_call(call, args, result)
        copy = _implementation(WINDOW_COPY.name, call)
        if copy is not None:
            return self.read_through_window(call, args, copy)
        operands = list(args)
        cube = self.cube_operands(call)
        for i, e in enumerate(args):
            w = self.windows.of(e)
            if w is None:
                continue
            if cube:
                if i in cube and w.in_mat:
                    operands[i] = self.copy_of(w, cube[i], call.span)
            elif _implementation(CONTIGUOUS_WINDOW_OPERANDS.name, call):
                if w.vector_or_unplaced and not self.windows.contiguous_constant(w):
                    operands[i] = self.copy_of(w, MemorySpace.Vec, call.span)
            elif self.unaligned(e) is not None:
                operands[i] = self.copy_of(w, MemorySpace.Vec, call.span)
        if all(a is b for a, b in zip(operands, call.args)):
            return call
        new = create_op_call(call.op.name, operands, dict(call.kwargs), span=call.span)
        return new.with_fields(attrs=dict(call.attrs)) if call.attrs else new

    def read_through_window(self, call: E.Call, args: list[E.Expr], copy: Any) -> E.Expr:
        """Rule 1: a copy of a window copies from the window's base, at the sum of the origins."""
        call = super().rewrite_call(call, args, None)  # type: ignore[assignment]
        source, row, col = copy["window"](call)
        w = self.windows.of(source)
        if w is None:
            return call
        self.changed = True
        return copy["rebase"](call, w.base, _add(row, w.row), _add(col, w.col))

    @staticmethod
    def cube_operands(call: E.Call) -> dict[int, MemorySpace]:
        """The operands the op takes in Left or Right (its input_memory), with that space."""
        opdef = opdef_of(call)
        if opdef is None:
            return {}
        return {i: spaces[0] for i, spaces in opdef.input_memory.items()
                if len(spaces) == 1 and spaces[0] in CUBE_OPERAND_SPACES}

    # -- phase 2: aliases, loop inits, yields -------------------------------------------------------------
    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, S.AssignStmt) and isinstance(s.value, (E.Var, E.IterArg)):
            w = self.unaligned(s.value)
            if w is not None:  # rule 5: the alias is the copy
                self.changed = True
                value = w.copy(w.base, w.row, w.col, w.shape, MemorySpace.Vec, s.span)
                return [S.AssignStmt(self.define(s.var, value.type), value, s.span, s.leading_comments)]
        if isinstance(s, S.YieldStmt):
            values = [self.copy_of(w, MemorySpace.Vec, s.span) if (w := self.unaligned(v)) is not None else v
                      for v in s.value]
            if any(a is not b for a, b in zip(values, s.value)):
                s = S.YieldStmt(values, s.span, s.leading_comments)
        return super().stmt(s)

    def loop_init(self, ia: E.IterArg, span: Any) -> E.Expr:
        init = super().loop_init(ia, span)
        w = self.unaligned(init)
        return self.copy_of(w, MemorySpace.Vec, span) if w is not None else init


# -- phase 3 -----------------------------------------------------------------------------------------------
def _without(stmt: S.Stmt, dead: set[int]) -> S.Stmt:
    """`stmt` with the window statements binding a variable in `dead` removed, at any depth."""
    if isinstance(stmt, S.SeqStmts):
        kept = [_without(s, dead) for s in flatten_to_stmts(stmt)
                if not (isinstance(s, S.AssignStmt) and id(s.var) in dead)]
        return make_body(kept, stmt.span)
    fields = {name: _without(getattr(stmt, name), dead) for name in ("body", "then_body", "else_body")
              if isinstance(getattr(stmt, name, None), S.Stmt)}
    return stmt.with_fields(**fields) if fields else stmt  # type: ignore[return-value]


def drop_dead_windows(body: S.Stmt) -> tuple[S.Stmt, bool]:
    dropped = False
    while True:
        read = {id(v) for v in vars_read(body)}
        dead = {id(s.var) for s in _statements(body)
                if isinstance(s, S.AssignStmt) and window_form(s.value) is not None and id(s.var) not in read}
        if not dead:
            return body, dropped
        body, dropped = _without(body, dead), True


def _statements(body: S.Stmt) -> list[S.Stmt]:
    from pypto_core.analysis.walk import statements

    return list(statements(body))


def canonicalize_function(func: F.Function) -> F.Function:
    reject_row_windows_of_accumulators(func)
    windows = SliceWindows(func)
    if not windows.windows:
        return func
    canonicalizer = _Canonicalizer(func, windows)
    body = canonicalizer.body(func.body)
    body, dropped = drop_dead_windows(body)
    if not canonicalizer.changed and not dropped:
        return func
    return func.with_fields(body=body)  # type: ignore[return-value]


class CanonicalizeTileSlice(Pass):
    """Give the consumers of plain 2-D tile windows forms the backend can use; drop windows left unread."""

    name = "CanonicalizeTileSlice"
    factory_name = "canonicalize_tile_slice"
    required = ("SSAForm", "NormalizedStmtStructure", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D")
    produced = required
    description = ("Fold tile.slice windows into tile.extract and cube operands, copy Vec windows a consumer cannot "
                   "read in place (unaligned, or non-contiguous for col_expand), drop slices left unread.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = [canonicalize_function(f) if f.func_type is FunctionType.InCore or f.func_type in CORE_KERNEL_TYPES
                 else f for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)
