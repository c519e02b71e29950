"""Operand panels larger than what Mat has left are streamed from GM slab by slab
(docs/passes/auto_tile_matmul_l0.md, operand panels that do not fit Mat).

A tiled matmul normally extracts its L0 slabs from whole Mat panels of its operands. When the panels, with the
Mat tiles live across the matmul (and the Mat scratch its grid assembles into), need more than Mat holds, an
operand loaded from a GM window (the `l0_operand_load` op interface: a bridge load, or a `tile.load` of a
tensor into Mat) is not kept whole: each L0 slab is loaded from its own GM window into Mat where the rewrite
would have extracted it, and extracted whole into Left / Right from there,

    B_l0_a_mat = pl.tile.load(a, [r + row, c + ko], [m, k], [m, k], target_memory=pl.Mem.Mat)
    B_l0_a = pl.tile.extract(B_l0_a_mat, 0, 0, [m, k], target_memory=pl.Mem.Left)

(`<slab name>_mat`, as a bias window's reload is named); the whole panel load is dropped when nothing else
reads it. The largest panel is streamed first, until the rest fits. PyPTO keeps whole panels and refuses such
a kernel for Mat capacity; pypto compiles it (a deliberate deviation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.memory import static_dims, tile_bytes
from pypto_core.analysis.walk import walk
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ops.registry import create_op_call, op_registry
from pypto_plugins.pass_matmul.interfaces import L0_OPERAND_LOAD
from pypto_plugins.pass_matmul.l0_rewrite.build import Emitter, index, offset_by


@dataclass(frozen=True)
class StreamedOperand:
    """An operand panel read slab by slab from the GM window its load `load` reads."""

    panel: E.Var
    load: S.AssignStmt

    def slab(self, em: Emitter, name: str, row: E.Expr, col: E.Expr, shape: list[int],
             space: MemorySpace) -> E.Var:
        """`<name>_mat`: the slab's GM window loaded into Mat; `<name>`: it extracted whole into `space`."""
        call = self.load.value
        assert isinstance(call, E.Call)
        form = op_registry().implementation(L0_OPERAND_LOAD.name, call.op.name)
        offsets = call.args[form.offsets]
        assert isinstance(offsets, E.MakeTuple)
        dims = E.MakeTuple([index(d) for d in shape])
        args = list(call.args)
        args[form.offsets] = E.MakeTuple([offset_by(offsets.elements[0], _folded(row)),
                                          offset_by(offsets.elements[1], _folded(col))])
        args[form.shape] = dims
        if len(args) > form.valid_shape:
            args[form.valid_shape] = dims
        else:
            args.append(dims)
        mat = em.bind(f"{name}_mat", create_op_call(call.op.name, args, kwargs=dict(call.kwargs), span=em.span))
        return em.extract(name, mat, index(0), index(0), shape, space)


Operand = E.Expr | StreamedOperand


def _folded(at: E.Expr) -> E.Expr | int:
    return at.value if isinstance(at, E.ConstInt) else at  # a constant offset folds into the window's


def extract_from(em: Emitter, name: str, source: Operand, row: E.Expr, col: E.Expr, shape: list[int],
                 space: MemorySpace) -> E.Var:
    """An L0 slab of `source`: extracted from its Mat panel, or loaded from GM when it is streamed."""
    if isinstance(source, StreamedOperand):
        return source.slab(em, name, row, col, shape, space)
    return em.extract(name, source, row, col, shape, space)


def panel_load(operand: E.Var, definition: S.Stmt | None) -> S.AssignStmt | None:
    """The load defining `operand` when it reads a static 2-D GM window of a tensor into Mat, the whole tile
    valid (so any sub-window of it can be loaded again), else None."""
    t = operand.type
    if not isinstance(definition, S.AssignStmt) or not isinstance(definition.value, E.Call) or \
            type(definition.value.op) is not E.Op or not isinstance(t, TileType) or \
            t.memory_space is not MemorySpace.Mat:
        return None
    call = definition.value
    form = op_registry().implementation(L0_OPERAND_LOAD.name, call.op.name)
    if form is None or not isinstance(call.args[form.tensor].type, TensorType):
        return None
    offsets = call.args[form.offsets]
    dims = static_dims(t)
    if not isinstance(offsets, E.MakeTuple) or len(offsets.elements) != 2 or dims is None or len(dims) != 2:
        return None
    valid = t.tile_view.valid_shape if t.tile_view is not None else None
    if valid and [getattr(v, "value", None) for v in valid] != list(dims):
        return None
    return definition


class MatBudget:
    """Which operand panels of a matmul Mat cannot keep: the Mat tiles live across each statement, by the
    function's program order (a tile is live from its definition to its last read)."""

    def __init__(self, func: F.Function, backend: Any) -> None:
        self.backend = backend
        self.capacity = int(backend.capacity(MemorySpace.Mat) or 0)
        self.position: dict[int, int] = {}
        self.defined: dict[int, tuple[int, E.Var]] = {}
        self.last_read: dict[int, int] = {}
        at = -1
        for node in walk(func.body, defs=False):
            if isinstance(node, S.Stmt):
                at = len(self.position)
                self.position[id(node)] = at
                if isinstance(node, S.AssignStmt):
                    self.defined[id(node.var)] = (at, node.var)
            elif isinstance(node, E.Var):
                self.last_read[id(node)] = at

    def live_across(self, result: E.Var, excluded: set[int]) -> int:
        """Bytes of the Mat tiles defined before the statement defining `result` and read after it (not those
        of `excluded`)."""
        at = self.defined.get(id(result), (-1, result))[0]
        total = 0
        for key, (defined_at, var) in self.defined.items():
            if key in excluded or not defined_at < at < self.last_read.get(key, -1):
                continue
            t = var.type
            if isinstance(t, TileType) and t.memory_space is MemorySpace.Mat:
                total += tile_bytes(t, self.backend) or 0
        return total

    def streamed(self, result: E.Var, operands: list[tuple[E.Var, S.AssignStmt | None]], slabs: dict[int, int],
                 extra: int = 0) -> set[int]:
        """id() of the operands to stream: the largest streamable panels first, each then holding only its
        L0 slab (`slabs`: bytes by id()) in Mat, until the panels kept, the slabs, the live Mat tiles and
        `extra` bytes fit Mat. Nothing when they fit, or when the backend declares no Mat capacity."""
        if not self.capacity:
            return set()
        sizes = {id(v): tile_bytes(v.type, self.backend) or 0 for v, _ in operands}
        need = sum(sizes.values()) + extra + self.live_across(result, set(sizes))
        chosen: set[int] = set()
        for var, load in sorted(operands, key=lambda o: -sizes[id(o[0])]):
            if need <= self.capacity:
                break
            if load is not None:
                chosen.add(id(var))
                need += slabs.get(id(var), 0) - sizes[id(var)]
        return chosen


def drop_unread(body: S.Stmt, loads: list[S.AssignStmt]) -> S.Stmt:
    """`body` without the panel loads nothing reads any more (their slabs are loaded from GM instead)."""
    read = {id(n) for n in walk(body, defs=False) if isinstance(n, E.Var)}
    dead = {id(s) for s in loads if id(s.var) not in read}
    return _without(body, dead) if dead else body


def _without(stmt: S.Stmt, dead: set[int]) -> S.Stmt:
    if isinstance(stmt, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
        return stmt.with_fields(body=_without(stmt.body, dead))  # type: ignore[return-value]
    if isinstance(stmt, S.IfStmt):
        else_body = _without(stmt.else_body, dead) if stmt.else_body is not None else None
        return stmt.with_fields(then_body=_without(stmt.then_body, dead), else_body=else_body)  # type: ignore[return-value]
    if not isinstance(stmt, S.SeqStmts):
        return stmt
    kept = [_without(s, dead) for s in flatten_to_stmts(stmt) if id(s) not in dead]
    return make_body(kept, stmt.span)
