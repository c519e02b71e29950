"""MixedKernelExpanded (docs/architecture.md, properties and verifiers;
docs/passes/expand_mixed_kernel.md): after ExpandMixedKernel

* no InCore function mixes cube and vector work, and no AIC (AIV) function holds vector (cube) work;
* every cross-core push / pop / free has a pipe setup (`*_initialize_pipe`) in its function whose
  dir_mask covers its direction;
* the AIC and AIV functions a Group launches together set their pipes up alike (dir_mask, slot_size,
  slot_num, per pipe id);
* every pop has its tfree (a warning: a hand-written kernel may free later, the machine reports a slot never
  released), and lands where a transfer can write: a C2V pop in Vec, a V2C pop in Mat, Left
  or Right (the cube buffers a V2C DMA fills, docs/architecture.md, backends BuildCrossCoreTransferView);
* a function reserves each slot buffer once, and no more buffers than it sets pipes up.

Which ops are cross-core, and which side they run on, comes from the registry (cross-core role, affinity).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_core.analysis.affinity import classify_call_affinity, combine_all
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import KERNEL_TYPES, FunctionType, MemorySpace
from pypto_core.ir.function import Function, Program
from pypto_core.ir.span import Span
from pypto_core.ir.types import TileType
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity, CrossCoreRole
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error, warning

RULE = "MixedKernelExpanded"
V2C_POP_SPACES = (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right)
DIR_BITS = {"C2V": 1, "V2C": 2}
_CORE_OF = {FunctionType.AIC: CoreAffinity.CUBE, FunctionType.AIV: CoreAffinity.VECTOR}


@dataclass
class _Facts:
    calls: list[E.Call] = field(default_factory=list)
    pops: list[tuple[E.Var, E.Call, Span]] = field(default_factory=list)
    freed: set[int] = field(default_factory=set)
    setups: list[E.Call] = field(default_factory=list)
    reserves: list[E.Call] = field(default_factory=list)


class _Walk(IRVisitor):
    def __init__(self) -> None:
        self.facts = _Facts()

    def visit_call(self, call: E.Call) -> None:
        if not isinstance(call.op, E.GlobalVar):
            self.facts.calls.append(call)
            opdef = opdef_of(call)
            role = opdef.cross_core_role if opdef is not None else None
            if role is CrossCoreRole.FREE:
                self.facts.freed.update(id(a) for a in call.args if isinstance(a, E.Var))
            elif role is CrossCoreRole.PIPE_SETUP:
                if "dir_mask" in call.kwargs:
                    self.facts.setups.append(call)
                elif "size" in call.kwargs:
                    self.facts.reserves.append(call)
        super().visit_call(call)

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        opdef = opdef_of(s.value) if isinstance(s.value, E.Call) and type(s.value.op) is E.Op else None
        if opdef is not None and opdef.cross_core_role is CrossCoreRole.POP:
            self.facts.pops.append((s.var, s.value, s.span))  # type: ignore[arg-type]
        super().visit_assign_stmt(s)


def facts_of(func: Function) -> _Facts:
    walker = _Walk()
    walker.visit_stmt(func.body)
    return walker.facts


def direction(call: E.Call) -> str | None:
    """C2V / V2C of a push, pop or free: the cube pushes C2V and pops V2C (registry affinity)."""
    opdef = opdef_of(call)
    role = opdef.cross_core_role if opdef is not None else None
    if role not in (CrossCoreRole.PUSH, CrossCoreRole.POP, CrossCoreRole.FREE):
        return None
    cube = classify_call_affinity(call) is CoreAffinity.CUBE
    return ("C2V" if cube else "V2C") if role is CrossCoreRole.PUSH else ("V2C" if cube else "C2V")


def _pipe(call: E.Call) -> int:
    return int(call.kwargs.get("id") or 0)


def check_function(func: Function, facts: _Facts) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    where = f"{func.func_type.name} function '{func.name}'"
    if func.func_type is FunctionType.InCore:
        if combine_all(classify_call_affinity(c) for c in facts.calls) is CoreAffinity.MIXED:
            out.append(error(RULE, f"{where} still mixes cube and vector work: run ExpandMixedKernel, which splits "
                                   f"it into an AIC and an AIV function", func.span))
        return out
    core = _CORE_OF[func.func_type]
    for call in facts.calls:
        a = classify_call_affinity(call)
        if a is CoreAffinity.MIXED or (a is not core and a is not CoreAffinity.SHARED):
            out.append(error(RULE, f"{where} holds {a.name.lower()} work ({call.op.name}), which belongs on the "
                                   f"other core: a cube <-> vector hand-over must be a tpush / tpop pair", call.span))
    covered: dict[int, int] = {}
    for setup in facts.setups:
        covered[_pipe(setup)] = covered.get(_pipe(setup), 0) | int(setup.kwargs.get("dir_mask") or 0)
    for call in facts.calls:
        d = direction(call)
        if d is not None and not covered.get(_pipe(call), 0) & DIR_BITS[d]:
            out.append(error(RULE, f"{where}: {call.op.name} uses the {d} direction of pipe {_pipe(call)}, which no "
                                   f"initialize_pipe of this function sets up (dir_mask bit {DIR_BITS[d]})", call.span))
    for var, pop, span in facts.pops:
        if id(var) not in facts.freed:  # a warning: the machine reports the slot that is never released
            out.append(warning(RULE, f"{where}: the tile popped into '{var.name_hint}' is never released: its FIFO slot "
                                   f"needs a tfree after the tile's last use", span))
        space = var.type.memory_space if isinstance(var.type, TileType) else None
        allowed = (MemorySpace.Vec,) if direction(pop) == "C2V" else V2C_POP_SPACES
        if space not in allowed:
            names = " or ".join(s.name for s in allowed)
            out.append(error(RULE, f"{where}: {pop.op.name} pops '{var.name_hint}' into "
                                   f"{space.name if space else 'no memory space'}, but a {direction(pop)} transfer "
                                   f"lands in {names}", span))
    names = [str(r.kwargs.get("name")) for r in facts.reserves]
    for name in sorted({n for n in names if names.count(n) > 1}):
        out.append(error(RULE, f"{where} reserves the slot buffer '{name}' {names.count(name)} times: one "
                               f"reserve_buffer per direction", func.span))
    if len(facts.reserves) > len(facts.setups):
        out.append(error(RULE, f"{where} reserves {len(facts.reserves)} slot buffers for {len(facts.setups)} pipe "
                               f"setup(s): one reserve_buffer per direction it consumes", func.span))
    return out


def _setup_key(call: E.Call) -> tuple[int, int, int | None]:
    return (int(call.kwargs.get("dir_mask") or 0), int(call.kwargs.get("slot_size") or 0),
            call.kwargs.get("slot_num"))


class _Launches(IRVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_call(self, call: E.Call) -> None:
        if isinstance(call.op, E.GlobalVar):
            self.names.append(call.op.name)
        super().visit_call(call)


def check_groups(program: Program, facts: dict[str, _Facts]) -> list[Diagnostic]:
    """Each Group's AIC / AIV pair declares the same pipes (also used by ExpandMixedKernel on hand-written Groups)."""
    out: list[Diagnostic] = []
    funcs = {f.name: f for f in program.functions.values()}
    for group in funcs.values():
        if group.func_type is not FunctionType.Group:
            continue
        walker = _Launches()
        walker.visit_stmt(group.body)
        launched = [funcs[n] for n in walker.names if n in funcs]
        aics = [f for f in launched if f.func_type is FunctionType.AIC]
        aivs = [f for f in launched if f.func_type is FunctionType.AIV]
        for aic, aiv in zip(aics, aivs):
            sides = {}
            for f in (aic, aiv):
                sides[f.name] = {_pipe(s): _setup_key(s) for s in facts[f.name].setups}
            a, v = sides[aic.name], sides[aiv.name]
            for pipe in sorted(set(a) | set(v)):
                if a.get(pipe) != v.get(pipe):
                    out.append(error(RULE, f"Group '{group.name}': pipe {pipe} is set up as (dir_mask, slot_size, "
                                           f"slot_num) {a.get(pipe)} by '{aic.name}' but {v.get(pipe)} by "
                                           f"'{aiv.name}': both cores must declare the same pipe", group.span))
    return out


def verify_mixed_kernel_expanded(program: Program | Function) -> list[Diagnostic]:
    funcs = [program] if isinstance(program, Function) else list(program.functions.values())
    facts = {f.name: facts_of(f) for f in funcs if f.func_type in KERNEL_TYPES}
    out: list[Diagnostic] = []
    for f in funcs:
        if f.name in facts:
            out += check_function(f, facts[f.name])
    if isinstance(program, Program):
        out += check_groups(program, facts)
    return out
