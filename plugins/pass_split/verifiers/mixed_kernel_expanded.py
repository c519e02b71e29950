"""MixedKernelExpanded (docs/architecture.md, properties and verifiers; docs/passes/expand_mixed_kernel.md, the
verifier): after ExpandMixedKernel, all Error:

* no InCore function mixes cube and vector work; no AIC / AIV function holds a boundary or the other core's
  transfer op (a carry's init chain may run on both cores);
* pops land where a transfer writes: an AIC `tile.tpop_from_aiv` in Mat only, an AIV `tile.tpop_from_aic` in
  Vec only;
* setup presence: a function using cross-core ops calls its `*_initialize_pipe`, and the buffer op of each
  direction it uses (AIC: V2C -> reserve_buffer, C2V -> import_peer_buffer; AIV the other way round), among
  its top-level statements before the first one holding a push or pop; each direction used is in some
  initialize_pipe's dir_mask (by direction, whatever the pipe id);
* buffer counts: as many reserve_buffer / import_peer_buffer calls as the initialize_pipes' directions need
  (one per direction bit), no fewer, no more; a slot buffer name reserved once;
* each initialize_pipe has 2 operands, dir_mask 1, 2 or 3, slot_size > 0, the `pl.const(0, pl.INT32)`
  placeholder exactly for an inactive direction;
* tpop / tfree pairing per block: each tfree frees a pop still outstanding (of its block, or of a block around
  it) on the same variable with the matching op, and no pop of a block is outstanding at its end;
* the AIC and AIV functions a Group launches together set their pipes up alike.

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
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity, CrossCoreRole
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "MixedKernelExpanded"
DIR_BITS = {"C2V": 1, "V2C": 2}
_CORE_OF = {FunctionType.AIC: CoreAffinity.CUBE, FunctionType.AIV: CoreAffinity.VECTOR}
_POP_SPACE = {FunctionType.AIC: MemorySpace.Mat, FunctionType.AIV: MemorySpace.Vec}
# (side, direction) -> the buffer op the side needs for it: the consumer reserves, the producer imports
_BUFFER_OP = {(FunctionType.AIC, "V2C"): "system.reserve_buffer", (FunctionType.AIC, "C2V"): "system.import_peer_buffer",
              (FunctionType.AIV, "C2V"): "system.reserve_buffer", (FunctionType.AIV, "V2C"): "system.import_peer_buffer"}
_INIT_OP = {FunctionType.AIC: "system.aic_initialize_pipe", FunctionType.AIV: "system.aiv_initialize_pipe"}
_FREE_OP = {"tile.tpop_from_aiv": "system.tfree_to_aiv", "tile.tpop_from_aic": "system.tfree_to_aic"}


def _role(call: E.Expr) -> CrossCoreRole | None:
    opdef = opdef_of(call) if isinstance(call, E.Call) and type(call.op) is E.Op else None
    return opdef.cross_core_role if opdef is not None else None


@dataclass
class _Facts:
    calls: list[E.Call] = field(default_factory=list)
    pops: list[tuple[E.Var, E.Call, Span]] = field(default_factory=list)
    setups: list[E.Call] = field(default_factory=list)
    reserves: list[E.Call] = field(default_factory=list)
    imports: list[E.Call] = field(default_factory=list)


class _Walk(IRVisitor):
    def __init__(self) -> None:
        self.facts = _Facts()

    def visit_call(self, call: E.Call) -> None:
        if not isinstance(call.op, E.GlobalVar):
            self.facts.calls.append(call)
            if _role(call) is CrossCoreRole.PIPE_SETUP:
                if "dir_mask" in call.kwargs:
                    self.facts.setups.append(call)
                elif "size" in call.kwargs:
                    self.facts.reserves.append(call)
                elif "peer_func" in call.kwargs:
                    self.facts.imports.append(call)
        super().visit_call(call)

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        if _role(s.value) is CrossCoreRole.POP:
            self.facts.pops.append((s.var, s.value, s.span))  # type: ignore[arg-type]
        super().visit_assign_stmt(s)


def facts_of(func: Function) -> _Facts:
    walker = _Walk()
    walker.visit_stmt(func.body)
    return walker.facts


def direction(call: E.Call) -> str | None:
    """C2V / V2C of a push, pop or free: the cube pushes C2V and pops V2C (registry affinity)."""
    role = _role(call)
    if role not in (CrossCoreRole.PUSH, CrossCoreRole.POP, CrossCoreRole.FREE):
        return None
    cube = classify_call_affinity(call) is CoreAffinity.CUBE
    return ("C2V" if cube else "V2C") if role is CrossCoreRole.PUSH else ("V2C" if cube else "C2V")


def _pipe(call: E.Call) -> int:
    return int(call.kwargs.get("id") or 0)


def misplaced_work(func: Function, facts: _Facts, strict: bool = False) -> list[Diagnostic]:
    """An InCore function still mixing both cores; a boundary or the other core's transfer op in an AIC / AIV
    function. `strict` (ExpandMixedKernel's check of the functions you wrote): any work of the other core. The
    verifier is not strict: a loop carry's init chain may run on both cores (docs/passes/expand_mixed_kernel.md,
    placement)."""
    where = f"{func.func_type.name} function '{func.name}'"
    if func.func_type is FunctionType.InCore:
        if combine_all(classify_call_affinity(c) for c in facts.calls) is CoreAffinity.MIXED:
            return [error(RULE, f"{where} still mixes cube and vector work: run ExpandMixedKernel, which splits "
                                f"it into an AIC and an AIV function", func.span)]
        return []
    core = _CORE_OF[func.func_type]
    out: list[Diagnostic] = []
    for call in facts.calls:
        a = classify_call_affinity(call)
        other = a is not core and a is not CoreAffinity.SHARED and (strict or _role(call) is not None)
        if a is CoreAffinity.MIXED or other:
            out.append(error(RULE, f"{where} holds {a.name.lower()} work ({call.op.name}), which belongs on the "
                                   f"other core: a cube <-> vector hand-over must be a tpush / tpop pair", call.span))
    return out


def check_function(func: Function, facts: _Facts) -> list[Diagnostic]:
    out = misplaced_work(func, facts)
    if func.func_type not in _CORE_OF:
        return out
    where = f"{func.func_type.name} function '{func.name}'"
    out += _pop_spaces(func, facts, where)
    out += _setup_presence(func, where)
    out += _buffer_counts(func, facts)
    out += _setup_operands(func, facts, where)
    out += _Pairing(where).check(func.body)
    names = [str(r.kwargs.get("name")) for r in facts.reserves]
    for name in sorted({n for n in names if names.count(n) > 1}):
        out.append(error(RULE, f"{where} reserves the slot buffer '{name}' {names.count(name)} times: one "
                               f"reserve_buffer per direction", func.span))
    return out


def _pop_spaces(func: Function, facts: _Facts, where: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    want = _POP_SPACE[func.func_type]
    for var, pop, span in facts.pops:
        if classify_call_affinity(pop) is not _CORE_OF[func.func_type]:
            continue  # a pop of the other core: misplaced work
        space = var.type.memory_space if isinstance(var.type, TileType) else None
        if space is not want:
            got = f"MemorySpace::{space.name}" if space is not None else "no memory space"
            out.append(error(RULE, f"{where} requires {pop.op.name} result in MemorySpace::{want.name}, got {got}",
                             span))
    return out


class _HasTransfer(IRVisitor):
    def __init__(self) -> None:
        self.directions: set[str] = set()

    def visit_call(self, call: E.Call) -> None:
        if _role(call) in (CrossCoreRole.PUSH, CrossCoreRole.POP):
            d = direction(call)
            if d is not None:
                self.directions.add(d)
        super().visit_call(call)


def _transfers(node: S.Stmt) -> set[str]:
    walker = _HasTransfer()
    walker.visit_stmt(node)
    return walker.directions


def _setup_presence(func: Function, where: str) -> list[Diagnostic]:
    """The setup must come before the first top-level statement holding a push or pop."""
    used = _transfers(func.body)
    if not used:
        return []
    stmts = flatten_to_stmts(func.body)
    first = next(i for i, s in enumerate(stmts) if _transfers(s))
    early = _Walk()
    for s in stmts[:first]:
        early.visit_stmt(s)
    facts = early.facts
    init_op = _INIT_OP[func.func_type]
    out: list[Diagnostic] = []
    span = stmts[first].span
    if not any(c.op.name == init_op for c in facts.setups):
        out.append(error(RULE, f"{where} uses cross-core tile ops but has no '{init_op}' call", span))
    for d in sorted(used):
        op = _BUFFER_OP[(func.func_type, d)]
        have = facts.reserves if op == "system.reserve_buffer" else facts.imports
        if not have:
            out.append(error(RULE, f"{where} uses {d} cross-core ops but has no '{op}'", span))
    covered = 0
    for setup in facts_of(func).setups:
        covered |= _mask(setup)
    for d in sorted(used):
        if any(c.op.name == init_op for c in facts.setups) and not covered & DIR_BITS[d]:
            out.append(error(RULE, f"{where} uses {d} cross-core ops but no '{init_op}' sets that direction up "
                                   f"(dir_mask bit {DIR_BITS[d]})", span))
    return out


def _mask(setup: E.Call) -> int:
    try:
        return int(setup.kwargs.get("dir_mask") or 0)
    except (TypeError, ValueError):
        return 0


def _buffer_counts(func: Function, facts: _Facts) -> list[Diagnostic]:
    need = {"system.reserve_buffer": 0, "system.import_peer_buffer": 0}
    for setup in facts.setups:
        for d, bit in DIR_BITS.items():
            if _mask(setup) & bit:
                need[_BUFFER_OP[(func.func_type, d)]] += 1
    have = {"system.reserve_buffer": len(facts.reserves), "system.import_peer_buffer": len(facts.imports)}
    out: list[Diagnostic] = []
    for op, n in need.items():
        if have[op] != n:
            which = "fewer" if have[op] < n else "more"
            out.append(error(RULE, f"Function '{func.name}' has {which} '{op}' calls than initialized pipe "
                                   f"directions require", func.span))
    return out


def _is_placeholder(e: E.Expr) -> bool:
    return isinstance(e, E.ConstInt) and e.value == 0


def _setup_operands(func: Function, facts: _Facts, where: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for setup in facts.setups:
        op = setup.op.name
        if len(setup.args) != 2:
            out.append(error(RULE, f"{where}: {op} takes 2 operands (the C2V and the V2C buffer), got "
                                   f"{len(setup.args)}", setup.span))
            continue
        mask = setup.kwargs.get("dir_mask")
        if mask not in (1, 2, 3):
            out.append(error(RULE, f"{where}: {op} dir_mask must be 1 (C2V), 2 (V2C) or 3 (both), got {mask}",
                             setup.span))
            continue
        size = setup.kwargs.get("slot_size")
        if not isinstance(size, int) or size <= 0:
            out.append(error(RULE, f"{where}: {op} slot_size must be positive, got {size}", setup.span))
        for (d, bit), arg in zip(DIR_BITS.items(), setup.args):
            if mask & bit and _is_placeholder(arg):
                out.append(error(RULE, f"{where}: {op} sets the {d} direction up (dir_mask={mask}) but its {d} "
                                       f"operand is the placeholder 0: pass that direction's buffer", setup.span))
            elif not mask & bit and not _is_placeholder(arg):
                out.append(error(RULE, f"{where}: {op} does not set the {d} direction up (dir_mask={mask}), so its "
                                       f"{d} operand must be the placeholder pl.const(0, pl.INT32)", setup.span))
    return out


class _Pairing:
    """tpop / tfree pairing per block: a tfree frees an outstanding pop (of its block or of an enclosing one)
    of the same variable with the matching op; a block's pops are all freed by its end."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.out: list[Diagnostic] = []

    def check(self, body: S.Stmt) -> list[Diagnostic]:
        self.block(body, {})
        return self.out

    def block(self, body: S.Stmt | None, outer: dict[int, tuple[str, Span]]) -> None:
        if body is None:
            return
        own: dict[int, tuple[str, Span]] = {}
        for s in flatten_to_stmts(body):
            if isinstance(s, S.AssignStmt) and _role(s.value) is CrossCoreRole.POP:
                own[id(s.var)] = (s.value.op.name, s.span)  # type: ignore[union-attr]
            elif isinstance(s, S.EvalStmt) and _role(s.expr) is CrossCoreRole.FREE:
                self.free(s.expr, own, outer)  # type: ignore[arg-type]
            elif isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
                self.block(s.body, {**outer, **own})
            elif isinstance(s, S.IfStmt):
                self.block(s.then_body, {**outer, **own})
                self.block(s.else_body, {**outer, **own})
        for pop, span in own.values():
            self.out.append(error(RULE, f"{self.where} uses {pop} but has no matching '{_FREE_OP[pop]}' call",
                                  span))

    def free(self, call: E.Call, own: dict[int, tuple[str, Span]], outer: dict[int, tuple[str, Span]]) -> None:
        tile = call.args[0] if call.args else None
        key = id(tile) if isinstance(tile, E.Var) else None
        found = own.get(key) if key is not None else None
        nested = outer.get(key) if key is not None and found is None else None
        pop = found or nested
        if pop is None:
            self.out.append(error(RULE, f"{self.where} has '{call.op.name}' without a matching outstanding tpop on "
                                        f"the same tile value", call.span))
            return
        if _FREE_OP[pop[0]] != call.op.name:
            self.out.append(error(RULE, f"{self.where} must match {pop[0]} with '{_FREE_OP[pop[0]]}' on the same "
                                        f"tile value, got '{call.op.name}'", call.span))
        if found is not None:
            del own[key]  # type: ignore[arg-type]


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
