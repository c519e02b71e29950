"""Which hardware pipe touches a buffer (docs/passes/allocate_memory_addr.md, DSA_RP reuse penalties).

A call's pipe is the unit that moves or computes its result, decided by where the data comes from and goes to
(the operands' and the result's memory spaces, and the registry facts `gm_transfer` and `buffer_view`), never
by the op's name:

* a GM transfer (`gm_transfer`) into an on-chip tile: MTE2; out to a tensor: MTE3, or FIX from Acc;
* a result in Acc: M (the cube); in Left / Right / Bias / LeftScale / RightScale: MTE1 (fed from Mat);
* a result in Vec or Mat: FIX when an operand is in Acc (the fixpipe drains L0C); otherwise V in Vec,
  MTE1 in Mat;
* a view (`buffer_view`) moves nothing: no pipe; a scalar read of a tile: S.

Per allocation (base Ptr): the pipe of its first writer, and every pipe that writes or reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace, PipeType
from pypto_core.ir.types import ScalarType, TileType, Type
from pypto_core.ir.utils import flatten_to_stmts
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import opdef_of
from pypto_plugins.pass_memory.memrefs import on_chip_memref

_FED_FROM_MAT = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Bias, MemorySpace.LeftScale,
                 MemorySpace.RightScale)


def call_pipe(call: E.Expr, result: Type | None) -> PipeType | None:
    """The pipe that executes `call` producing `result` (None: a view, an allocation, an unknown op)."""
    opdef = opdef_of(call)
    if opdef is None or opdef.traits.buffer_view:
        return None
    assert isinstance(call, E.Call)
    sources = [a.type.memory_space for a in call.args if isinstance(getattr(a, "type", None), TileType)]
    from_acc = MemorySpace.Acc in sources
    if opdef.traits.gm_transfer:
        if isinstance(result, TileType):
            return PipeType.MTE2
        return PipeType.FIX if from_acc else PipeType.MTE3
    if isinstance(result, TileType):
        space = result.memory_space
        if space is MemorySpace.Acc:
            return PipeType.M
        if space in _FED_FROM_MAT:
            return PipeType.MTE1
        if from_acc:
            return PipeType.FIX
        if space is MemorySpace.Vec:
            return PipeType.V
        if space is MemorySpace.Mat:
            return PipeType.MTE1
        return None
    if isinstance(result, ScalarType) and sources:
        return PipeType.S
    return None


@dataclass
class BufferPipes:
    """The pipes of one allocation: of its first writer, and all that write or read it."""

    first_writer: PipeType | None = None
    touching: set[PipeType] = field(default_factory=set)


def buffer_pipes(func: F.Function) -> dict[int, BufferPipes]:
    """id(base Ptr) -> its pipes, from every call of the function in program order."""
    out: dict[int, BufferPipes] = {}

    def visit(stmt: S.Stmt | None) -> None:
        for s in flatten_to_stmts(stmt):
            if isinstance(s, S.AssignStmt):
                note(s.value, s.var)
            elif isinstance(s, S.EvalStmt):
                note(s.expr, None)
            for body in _bodies(s):
                visit(body)

    def note(value: E.Expr, target: E.Var | None) -> None:
        if not isinstance(value, E.Call):
            return
        pipe = call_pipe(value, target.type if target is not None else None)
        if pipe is None:
            return
        for arg in value.args:
            m = on_chip_memref(arg) if isinstance(arg, E.Var) else None
            if m is not None:
                out.setdefault(id(m.base), BufferPipes()).touching.add(pipe)
        m = on_chip_memref(target) if target is not None else None
        if m is not None:
            pipes = out.setdefault(id(m.base), BufferPipes())
            pipes.touching.add(pipe)
            if pipes.first_writer is None:
                pipes.first_writer = pipe

    visit(func.body)
    return out


def _bodies(s: S.Stmt) -> list[S.Stmt | None]:
    if isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
        return [s.body]
    if isinstance(s, S.IfStmt):
        return [s.then_body, s.else_body]
    return []
