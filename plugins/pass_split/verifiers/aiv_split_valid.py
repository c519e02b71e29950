"""AivSplitValid: what a `pl.split_aiv` region may hold and how tiles cross its boundary.

Checks (a)-(h) are what a region may hold (docs/dsl.md, splitting vector work). The contract outside the regions of a function
that has at least one (manual mode) is docs/passes/lower_auto_vector_split.md, outside the regions: vector work goes in a region,
tile.load / tile.store may stay outside, cube work stays outside, the boundary ops are the region's
own. Checks (i) and (j) exist because LowerAutoVectorSplit's forward scan of an
explicit-boundary region only sees the shards made in that region, so a shard reaching it from a
sibling region or through a loop carry is rejected here, long before that scan would misreport it.
Check (i) also rejects any other per-lane value (computed from a region's lane index: a lane-addressed
load, a lane scalar, a loop bound) used in another region: the reference machine lets a region's values
out as lane 0's, the outlined kernel keeps each lane's, so the program means two things. Check (k) rejects
a loop or if of a data-parallel region steered by its lane index: lane references are trusted only on the
read offsets of address-carrying ops, and a body distributing its work by aiv_id is task parallel
(pl.SplitMode.NONE). Both hold on the source stage only (the lowering's subblock_idx is per lane by design).

Every op fact comes from the registry: core affinity, effects, reduction axes, and the traits
`split_boundary` (the region boundary ops) and `gm_transfer` (the loads and stores the compiler
materialises outside regions). Where a boundary's operand must be is its `input_memory` when declared,
else the producing side's space (`boundary_operand_spaces`).

The definitions, uses and lane dependence come from the shared scan (pypto_core/analysis/lane_dependence.py,
also asked by OutlineIncoreScopes and ConvertTensorToTileOps): each use sees the definition that reaches it
in program order, so a name the DSL assigns twice before ConvertToSSA is two values.

The checks run on every kernel body: an InCore / AIC / AIV function, and, before OutlineIncoreScopes,
each `pl.at(level=pl.Level.CORE_GROUP)` scope of an Opaque or Orchestration function (the kernel it
will become: its live-in values are the parameters, and the outliner marks it split_aiv). So a
program that breaks a check is reported on the program as written, where the pipeline's input
verification makes it the program's fault, not a pass's (docs/passes/lower_auto_vector_split.md: AivSplitValid rejects these
programs passes before LowerAutoVectorSplit).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.affinity import (
    boundary_operand_spaces,
    is_cube_work,
    is_gm_transfer,
    landing_side,
    needs_a_region,
)
from pypto_core.analysis.lane_dependence import CallSite, Carry, Definition, Region, base, lane_regions, scan
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import KERNEL_TYPES, FunctionType, MemorySpace, SplitMode
from pypto_core.ir.function import Function, Program
from pypto_core.ir.span import Span
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import collect_def_vars, free_vars_in_order
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_plugins.pass_split.split_axis.modes import split_dimension

RULE = "AivSplitValid"

# Functions whose bodies may hold regions: InCore kernels, and the AIC / AIV halves of a split one.
# Functions whose InCore scopes OutlineIncoreScopes outlines into kernels (docs/passes/outline_incore_scopes.md).
_OUTLINED_TYPES = (FunctionType.Opaque, FunctionType.Orchestration)


# -- registry questions --------------------------------------------------------------------------------

class Crossing(enum.Enum):
    C2V = "cube -> vector"  # pl.aiv_shard: a cube tile into the AIV lanes, each lane its half
    V2C = "vector -> cube"  # pl.aic_gather: the lanes' halves back to the cube, whole


def boundary_crossing(call: E.Expr) -> Crossing | None:
    """The region boundary a call is (the registry's `traits.split_boundary`), or None."""
    opdef = opdef_of(call)
    if opdef is None or opdef.traits.split_boundary is None:
        return None
    return Crossing.C2V if opdef.traits.split_boundary == "c2v" else Crossing.V2C


def side(call: E.Call) -> CoreAffinity:
    """The core a call runs on (pypto_core.analysis.affinity.landing_side)."""
    return landing_side(call)


# -- the pre-scan: definitions, calls and uses, each with its region (pypto_core/analysis/lane_dependence.py) --------

def producer(d: Definition, seen: set[int] | None = None) -> E.Call | None:
    """The op call computing a value, through aliases and loop carries (their initial value)."""
    d = base(d)
    seen = seen if seen is not None else set()
    if id(d) in seen:
        return None
    seen.add(id(d))
    if isinstance(d.value, E.Call):
        return d.value if opdef_of(d.value) is not None else None
    if d.carry is not None and d.carry.init is not None:
        return producer(d.carry.init, seen)
    return None


def shard_of(d: Definition) -> Definition | None:
    """The definition bound to a pl.aiv_shard call, when `d` is (an alias of) one."""
    d = base(d)
    if isinstance(d.value, E.Call) and boundary_crossing(d.value) is Crossing.C2V:
        return d
    return None


def carried_shards(carry: Carry, seen: set[int] | None = None) -> Iterator[tuple[Definition, str]]:
    """The shards a loop carry holds: (the shard's definition, how it enters the loop)."""
    seen = seen if seen is not None else set()
    if id(carry) in seen:
        return
    seen.add(id(carry))
    for d, via in ((carry.init, "initial value"), (carry.yielded, "back edge (pl.yield_)")):
        if d is None:
            continue
        found = shard_of(d)
        if found is not None:
            yield found, via
        elif base(d).carry is not None:
            for inner, _ in carried_shards(base(d).carry, seen):  # type: ignore[arg-type]
                yield inner, via


# -- the checks ---------------------------------------------------------------------------------------------

def _mode(region: Region) -> SplitMode:
    return SplitMode(int(region.split))


def _is_data_parallel(region: Region | None) -> bool:
    return region is not None and _mode(region) is not SplitMode.NONE


def _name(e: E.Expr) -> str:
    return e.name_hint if isinstance(e, E.Var) else f"{e.op.name}(...)" if isinstance(e, E.Call) else "..."


def _space_name(spaces: tuple[MemorySpace, ...]) -> str:
    return " or ".join(s.name for s in spaces)


@dataclass(frozen=True)
class Kernel:
    """The body one kernel runs, with what the checks ask about it."""

    where: str  # how messages name it
    func_type: FunctionType
    params: tuple[E.Var, ...]
    body: S.Stmt
    attrs: Mapping[str, Any]

    @staticmethod
    def of_function(func: Function) -> Kernel:
        return Kernel(f"{func.func_type.name} function '{func.name}'", func.func_type, tuple(func.params),
                      func.body, func.attrs)

    @staticmethod
    def of_scope(func: Function, scope: S.InCoreScopeStmt) -> Kernel:
        """The kernel OutlineIncoreScopes makes of the scope: InCore, marked split_aiv when it has a
        region, its live-in values as parameters."""
        inside = {id(v) for v in collect_def_vars(scope.body)}
        live_in = tuple(v for v in free_vars_in_order([scope.body]) if id(v) not in inside)
        name = f" '{scope.name_hint}'" if scope.name_hint else ""
        where = f"the pl.at(level=pl.Level.CORE_GROUP) scope{name} of {func.func_type.name} function '{func.name}'"
        return Kernel(where, FunctionType.InCore, live_in, scope.body, {"split_aiv": True})


class _IncoreScopes(IRVisitor):
    def __init__(self) -> None:
        self.found: list[S.InCoreScopeStmt] = []

    def visit_in_core_scope_stmt(self, s: S.InCoreScopeStmt) -> None:
        self.found.append(s)  # a nested one is NoNestedInCore's finding: not entered


def kernels_of(func: Function) -> list[Kernel]:
    if func.func_type in KERNEL_TYPES:
        return [Kernel.of_function(func)]
    if func.func_type not in _OUTLINED_TYPES:
        return []
    scopes = _IncoreScopes()
    scopes.visit_stmt(func.body)
    return [Kernel.of_scope(func, s) for s in scopes.found]


class _Checker:
    def __init__(self, kernel: Kernel, out: list[Diagnostic], rule: str = RULE) -> None:
        self.kernel = kernel
        self.out = out
        self.rule = rule
        # After LowerAutoVectorSplit (AivSplitLoweredValid): a split_aiv function with no region is the
        # flat lowered form, whose boundary ops stand in the body itself (docs/passes/lower_auto_vector_split.md, outside the regions).
        self.flat_lowered = rule != RULE and bool(kernel.attrs.get("split_aiv"))
        self.facts = scan(kernel.params, kernel.body)
        self.where = kernel.where
        self.manual = bool(self.facts.regions)

    def report(self, message: str, span: Span) -> None:
        self.out.append(error(self.rule, f"{self.where}: {message}", span))

    def run(self) -> None:
        self.check_declared_incore()
        for site in self.facts.calls:
            self.check_call(site)
        self.check_region_uses()
        if self.rule == RULE:  # the lowered forms guard an empty lane's store with a lane-derived if
            self.check_lane_steering()

    # (k)
    def check_lane_steering(self) -> None:
        """A data-parallel region splits its work by its mode; a loop or if steered by the lane index
        distributes the work itself, which is the task-parallel form (docs/passes/lower_auto_vector_split.md: a lane reference is trusted
        only on the read offset of an address-carrying op; NONE is where the author dispatches the lanes by
        aiv_id, e.g. a loop strided by aiv_id)."""
        for steering in self.facts.steering:
            stmt, region, reads = steering.stmt, steering.region, steering.reads
            if not _is_data_parallel(region):
                continue
            lane = next((d for d in reads if any(r is region for r in lane_regions(d))), None)
            if lane is None:
                continue
            kind = "loop's bounds" if isinstance(stmt, S.ForStmt) else "condition"
            mode = _mode(region).name
            self.report(f"this {kind} use{'s' if kind == 'condition' else ''} the lane index (through "
                        f"'{lane.var.name_hint}') of a {mode} pl.split_aiv region: the lanes would run "
                        f"different work that the region then splits again by its mode, so each lane would "
                        f"compute only part of the part it picked; a body that distributes its work over the "
                        f"lanes itself is task parallel: write the region as "
                        f"`pl.split_aiv(2, mode=pl.SplitMode.NONE)`, or drop the lane index from the control "
                        f"flow and address the lane's part by its read offsets (aiv_id * HALF)", stmt.span)

    # (h)
    def check_declared_incore(self) -> None:
        if self.kernel.func_type is not FunctionType.InCore or self.kernel.attrs.get("split_aiv"):
            return
        for region in self.facts.regions:
            self.report("a pl.split_aiv region in a kernel declared pl.FunctionType.InCore that is not marked "
                        "split_aiv: a region is a CORE_GROUP-level region, which OutlineIncoreScopes outlines "
                        "into a split_aiv kernel; write it inside `with pl.at(level=pl.Level.CORE_GROUP):` of a "
                        "plain @pl.function (and drop any pl.at scope around it here), or mark this kernel "
                        "with pl.func_attr({\"split_aiv\": True})", region.span)

    def check_call(self, site: CallSite) -> None:
        call, region = site.call, site.region
        op = call.op.name
        crossing = boundary_crossing(call)
        if crossing is not None:
            self.check_boundary(site, crossing)
            return
        if _is_data_parallel(region):
            self.check_split_axis_reduction(call, region)  # type: ignore[arg-type]
        if is_gm_transfer(call):
            return  # a DMA runs on the core its tile is on, in a region or not (docs/passes/lower_auto_vector_split.md, outside the regions)
        call_side = side(call)
        if region is not None and is_cube_work(call):
            self.check_cube_in_region(call, region)
        if region is None and self.manual:
            if needs_a_region(call):
                self.report(f"vector op {op} is outside every pl.split_aiv region: once a function has a "
                            f"region, the regions place its vector work (only tile.load / tile.store stay "
                            f"outside); move it into a region, or wrap it in "
                            f"`for _ in pl.split_aiv(2, mode=pl.SplitMode.NONE):` to run it full width on "
                            f"both AIV lanes", call.span)
            if call_side is CoreAffinity.CUBE:
                self.check_cube_operands(site)
        if region is not None and call_side is CoreAffinity.VECTOR:
            self.check_vector_operands(site)

    # (a)
    def check_cube_in_region(self, call: E.Call, region: Region) -> None:
        op = call.op.name
        mode = _mode(region)
        half = ""
        if mode is not SplitMode.NONE:
            half = (f" (under {mode.name} each AIV lane holds half the tile along dim {split_dimension(mode)}, "
                    f"the cube needs it whole)")
        self.report(f"cube op {op} inside a pl.split_aiv region: the region body is AIV work{half}; move {op} "
                    f"out of the region, handing its result in with pl.aiv_shard or taking the region's "
                    f"vector result out with pl.aic_gather", call.span)

    # (b)
    def check_split_axis_reduction(self, call: E.Call, region: Region) -> None:
        opdef = opdef_of(call)
        mode = _mode(region)
        axis = split_dimension(mode)
        if opdef is None or axis not in opdef.traits.reduction_axes:
            return
        other = SplitMode.LEFT_RIGHT if mode is SplitMode.UP_DOWN else SplitMode.UP_DOWN
        self.report(f"{call.op.name} reduces over the split axis (dim {axis}) of this {mode.name} pl.split_aiv "
                    f"region: each AIV lane holds half the tile along that axis and would reduce only its "
                    f"half; reduce in a pl.split_aiv(2, mode=pl.SplitMode.NONE) region, where each lane sees "
                    f"the whole tile, or split the region {other.name}", call.span)

    # (c), (d)
    def check_boundary(self, site: CallSite, crossing: Crossing) -> None:
        call = site.call
        op = call.op.name
        if site.region is None:
            # Outside every region only (c) applies: the memory contract (d) is the region's (a boundary op
            # there is misplaced whatever its operand), and the flat lowered form of a split_aiv function,
            # whose boundary ops stand in the body (docs/passes/lower_auto_vector_split.md), has neither.
            if not (self.flat_lowered and not self.manual):
                role = ("hands a cube tile to the region's AIV lanes" if crossing is Crossing.C2V
                        else "hands the region's vector tile to the cube")
                self.report(f"{op} must appear inside a pl.split_aiv region: it is the region's {crossing.value} "
                            f"boundary (it {role}) and splits by the region's mode; move it into the region "
                            f"whose vector work {'consumes' if crossing is Crossing.C2V else 'produces'} the tile",
                            call.span)
            return
        opdef = opdef_of(call)
        operand = call.args[0].type if call.args else None
        if opdef is None or not isinstance(operand, TileType):
            return
        wanted = boundary_operand_spaces(call)
        if self.rule != RULE and crossing is Crossing.C2V:
            # Lowered forms: the AUTO path turns any cube -> vector move into a shard (the example of docs/passes/lower_auto_vector_split.md shards
            # a Mat tile), in a region it synthesised.
            wanted = tuple(m for m in MemorySpace if m.is_cube())
        if operand.memory_space is not None and operand.memory_space not in wanted:
            why = ("a shard hands the cube's accumulator to the AIV lanes, so shard the cube result itself"
                   if crossing is Crossing.C2V else
                   "a gather hands the lanes' vector tiles to the cube, so gather the Vec tile the region computed")
            self.report(f"{op} operand is in {operand.memory_space.name} but the {crossing.value} boundary "
                        f"requires {_space_name(wanted)}: {why}", call.span)
        result_space = opdef.output_memory.fixed if opdef.output_memory is not None else None
        result = site.bound.type if site.bound is not None else call.type
        space = getattr(result, "memory_space", None)
        if result_space is not None and space is not None and space is not result_space:
            lands = "the cube pops the gathered tile into L1" if crossing is Crossing.V2C else \
                "each lane pops its half into UB"
            self.report(f"{op} result is in {space.name} but must be {result_space.name} ({lands}); drop the "
                        f"memory annotation and move the result with pl.tile.move after the boundary", call.span)

    # (f)
    def check_cube_operands(self, site: CallSite) -> None:
        call = site.call
        for i, d in _distinct_operands(site):
            if not isinstance(d.var.type, TileType) or base(d).region is None:
                continue
            made = producer(d)
            if made is not None and (boundary_crossing(made) is Crossing.V2C or is_gm_transfer(made)):
                continue
            v = call.args[i].name_hint  # type: ignore[attr-defined]
            self.report(f"'{v}' is computed in a pl.split_aiv region and consumed by the cube op {call.op.name} "
                        f"outside it: a tile crosses from the AIV lanes to the cube only through pl.aic_gather; "
                        f"write `{v}_mat = pl.aic_gather({v})` at the end of the region and pass that to "
                        f"{call.op.name}", call.span)

    # (g)
    def check_vector_operands(self, site: CallSite) -> None:
        call = site.call
        for i, d in _distinct_operands(site):
            if not isinstance(d.var.type, TileType) or base(d).region is not None:
                continue
            made = producer(d)
            if made is None or is_gm_transfer(made) or side(made) is not CoreAffinity.CUBE:
                continue
            v = call.args[i].name_hint  # type: ignore[attr-defined]
            self.report(f"'{v}' is produced by the cube ({made.op.name}) outside every pl.split_aiv region "
                        f"and consumed by the vector op {call.op.name} inside one: a tile crosses from the cube "
                        f"to the AIV lanes only through pl.aiv_shard; write `{v}_half = pl.aiv_shard({v})` in "
                        f"the region and give {call.op.name} that", call.span)

    # (i), (j)
    def check_region_uses(self) -> None:
        reported: set[tuple[int, int]] = set()
        for use in self.facts.uses:
            if use.region is None:
                continue
            key = (id(base(use.definition)), id(use.region))
            if key in reported:
                continue
            message = self.shard_from_elsewhere(use.definition, use.region)
            if message is not None:
                reported.add(key)
                self.report(message, use.span)

    def shard_from_elsewhere(self, d: Definition, region: Region) -> str | None:
        name = d.var.name_hint
        shard = shard_of(d)
        if shard is not None:
            if shard.region is region or shard.region is None:
                return None  # a shard outside every region is check (c)'s
            call = shard.value
            source = _name(call.args[0]) if isinstance(call, E.Call) and call.args else "..."
            return (f"'{name}' is the pl.aiv_shard result of another pl.split_aiv region (line "
                    f"{shard.region.span.begin_line}) and is used in this one: a shard belongs to the region "
                    f"that made it; shard the cube tile again in the region that uses it (`pl.aiv_shard({source})`)")
        carry = base(d).carry
        if carry is not None:
            for found, via in carried_shards(carry):
                if found.region is region and carry.region is region:
                    continue  # a loop inside the region that made the shard: one region, one lane's half
                return (f"'{name}' carries the pl.aiv_shard result '{found.var.name_hint}' into a "
                        f"pl.split_aiv region through a loop's {via}: a shard belongs to the region and the "
                        f"iteration that made it; carry the cube tile instead and shard it with pl.aiv_shard in "
                        f"the region that uses it, or keep the whole loop inside that region")
        if self.rule != RULE:
            return None  # lowered: a halved value is per lane by the lowering's subblock_idx, and meant to flow on
        other = next((r for r in lane_regions(d) if r is not region), None)
        if other is None:
            return None
        # (i) for any per-lane value: each lane of the region that made it holds its own, which no other
        # region sees (the region's values leave it as one lane's; the lowered kernel keeps each lane's).
        return (f"'{name}' is computed per lane in another pl.split_aiv region (line {other.span.begin_line}: it "
                f"depends on that region's lane index) and is used in this one: a per-lane value belongs to the "
                f"region that made it; compute it again in the region that uses it, or do both parts of the "
                f"work in one region")


def _distinct_operands(site: CallSite) -> list[tuple[int, Definition]]:
    """The call's operand definitions, each value once (at its first position): (f) and (g) report once
    per consuming call and value."""
    seen: set[int] = set()
    out = []
    for i, d in site.operands.items():
        if id(d) not in seen:
            seen.add(id(d))
            out.append((i, d))
    return out


def _verify(program: Program | Function, rule: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    funcs = [program] if isinstance(program, Function) else list(program.functions.values())
    for func in funcs:
        for kernel in kernels_of(func):
            _Checker(kernel, out, rule).run()
    return out


def verify_aiv_split_valid(program: Program | Function) -> list[Diagnostic]:
    return _verify(program, RULE)


# A contract on the program as written (pypto_core/passes/manager.py): the pipeline verifies its input
# for it, so a region the program got wrong is reported on the program, not after the pass that outlined
# its kernel (docs/passes/lower_auto_vector_split.md: AivSplitValid enforces the region contract long before LowerAutoVectorSplit).
verify_aiv_split_valid.source_contract = True  # type: ignore[attr-defined]


def verify_aiv_split_lowered_valid(program: Program | Function) -> list[Diagnostic]:
    """AivSplitLoweredValid (docs/passes/lower_auto_vector_split.md): the same checks after LowerAutoVectorSplit, which keeps the regions
    it lowers in place and leaves AUTO functions in the flat lowered form (boundary ops outside regions)."""
    return _verify(program, "AivSplitLoweredValid")
