"""ExpandMixedKernel (docs/passes/expand_mixed_kernel.md): every InCore function that mixes cube
and vector work becomes an AIC function, an AIV function and a Group calling both, connected by cross-core
transfers; an InCore function with no tile work of its own that calls a mixed kernel (a CORE_GROUP scope
around a kernel call) becomes a Group launching the pair; every other InCore function
becomes an AIC or an AIV function.

The machinery lives in mixed_kernel/ (placement, split codes, one core's body, dead code and loop repair,
tfree, pipe setup, GM fences, the Group). Backend differences come from capabilities, never from the
backend's name: `requires_no_split_dual_aiv_dispatch` (dual_aiv_dispatch on the AIV half of an unsplit
kernel) and `requires_vtoc_fractal_adapt` (an NZ move before every V->C push).
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import CORE_KERNEL_TYPES, FunctionType
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.passes.pass_base import Pass
from pypto_core.passes.verifier_registry import errors_only
from pypto_plugins.pass_split.lower_auto_vector_split import rollup_affinity
from pypto_plugins.pass_split.mixed_kernel.adapters import adapt_vtoc_pushes
from pypto_plugins.pass_split.mixed_kernel.declared_returns import check_declared_returns
from pypto_plugins.pass_split.mixed_kernel.expand import expand_mixed, retyped_single_core
from pypto_plugins.pass_split.mixed_kernel.group import call_pair_in_place, callers_by_callee, group_function
from pypto_plugins.pass_split.mixed_kernel.hand_groups import mark_dual_dispatch, rebuild_hand_written_groups
from pypto_plugins.pass_split.mixed_kernel.kernel_calls import as_launcher, launcher_names
from pypto_plugins.pass_split.split_axis.transfer_modes import transfer_modes
from pypto_plugins.pass_split.verifiers.mixed_kernel_expanded import check_groups, facts_of, misplaced_work

PASS = "ExpandMixedKernel"
PLACEMENT = "core_placement"  # a call attr: "aiv" places the call on the vector core


class ExpandMixedKernel(Pass):
    """Split mixed InCore kernels into AIC + AIV + Group with cross-core transfers."""

    name = PASS
    factory_name = "expand_mixed_kernel"
    required = ("SSAForm", "IncoreTileOps", "SplitIncoreOrch", "TileOps2D", "TileMemoryInferred",
                "NormalizedStmtStructure", "AivSplitLoweredValid")
    produced = ("SSAForm", "MixedKernelExpanded", "NormalizedStmtStructure", "HardSyncallOccupancyValid")
    invalidated = ("AivSplitLoweredValid",)
    description = ("Split each mixed InCore kernel into an AIC function, an AIV function and a Group calling "
                   "both, with tpush/tpop transfers, pipe setup and GM fences.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        backend = ctx.backend
        reject_misplaced_hand_written_work(program)
        funcs = {f.name: f for f in program.functions.values()}
        rebuilt = rebuild_hand_written_groups(funcs)  # Groups you wrote: members take the Group's parameters
        rebuilt = mark_dual_dispatch(funcs, backend) or rebuilt
        if rebuilt:
            program = program.with_functions(funcs.values())
        callers = callers_by_callee(program)  # one walk: rewriting must not rescan every function per kernel
        rollups = {f.name: rollup_affinity(f) for f in funcs.values() if f.func_type is FunctionType.InCore}
        launchers = launcher_names(funcs, rollups)
        for name in launchers:  # first, so that the kernels they call see Group callers
            funcs[name] = as_launcher(funcs[name])
        changed = rebuilt or bool(launchers) or (backend.requires_vtoc_fractal_adapt and any(
            f.func_type is FunctionType.AIV for f in funcs.values()))
        for func in list(funcs.values()):
            if func.func_type is not FunctionType.InCore:
                continue
            changed = True
            affinity = rollups[func.name]
            if affinity is not CoreAffinity.MIXED:
                funcs[func.name] = retyped_single_core(func, affinity)
                continue
            check_declared_returns(func, self.name)
            expanded = expand_mixed(func, backend)
            del funcs[func.name]
            group_callers = [n for n in callers.get(func.name, ()) if funcs[n].func_type is FunctionType.Group]
            for name in group_callers:
                funcs[name] = call_pair_in_place(funcs[name], func, expanded.aic, expanded.aiv)
            funcs[expanded.aic.name] = expanded.aic
            funcs[expanded.aiv.name] = expanded.aiv
            if len(group_callers) < len(callers.get(func.name, ())) or not group_callers:
                funcs[func.name] = group_function(func, expanded.aic, expanded.aiv)
        if not changed:
            return program
        if backend.requires_vtoc_fractal_adapt:
            for name, func in funcs.items():
                if func.func_type is FunctionType.AIV:
                    funcs[name] = adapt_vtoc_pushes(func)
        return program.with_functions(strip_placement(f) for f in funcs.values())


class _StripPlacement(IRMutator):
    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_call(call)  # type: ignore[assignment]
        if isinstance(call, E.Call) and PLACEMENT in call.attrs:
            return call.with_fields(attrs={k: v for k, v in call.attrs.items() if k != PLACEMENT})
        return call


def strip_placement(func: F.Function) -> F.Function:
    """Every call of an emitted function without its `core_placement` stamp: the split placed it
    (docs/passes/expand_mixed_kernel.md, placement)."""
    body = _StripPlacement().visit_stmt(func.body)
    return func if body is func.body else func.with_fields(body=body)  # type: ignore[return-value]


def reject_misplaced_hand_written_work(program: F.Program) -> None:
    """An AIC / AIV function the user wrote runs on one core as written: work of the other core in it is the
    program's mistake, reported here rather than as this pass breaking MixedKernelExpanded afterwards."""
    for func in program.functions.values():
        if func.func_type not in CORE_KERNEL_TYPES:
            continue
        errors = errors_only(misplaced_work(func, facts_of(func), strict=True))  # its pipe setup: the verifier's
        if errors:
            other = "a vector (AIV) core" if func.func_type is FunctionType.AIC else "the cube (AIC) core"
            raise UserError(f"ExpandMixedKernel: {errors[0].message}. Move that work to {other} function "
                            f"(or write an InCore function and let this pass split it)", errors[0].span)
        _reject_undeclared_split(func)
    # A Group the user wrote launches its AIC / AIV pair as written (docs/passes/expand_mixed_kernel.md, errors: a
    # pipe set up without slot_num on one core only is the program's error, not this pass breaking MixedKernelExpanded).
    written = {f.name: facts_of(f) for f in program.functions.values()
               if f.func_type in CORE_KERNEL_TYPES}
    errors = errors_only(check_groups(program, written))
    if errors:
        raise UserError(f"ExpandMixedKernel: {errors[0].message}: write the same initialize_pipe (dir_mask, "
                        f"slot_size, slot_num) on both cores", errors[0].span)


def _reject_undeclared_split(func: F.Function) -> None:
    """A split_aiv function you wrote whose transfers split the tile between the lanes (split codes of one mode)
    declares that mode: without it the kernel's dispatch does not split while each lane pops only its part
    (docs/passes/split_vector_kernel.md, errors)."""
    if not func.attrs.get("split_aiv") or func.split is not None or func.is_external:
        return
    mode, transfer = transfer_modes(func)
    if mode is None or transfer is None:
        return
    code = int(transfer.kwargs.get("split") or 0)
    raise UserError(f"ExpandMixedKernel: {func.func_type.name} function '{func.name}' is split_aiv and its "
                    f"{transfer.op.name}(split={code}) splits the tile {mode.name}, but the function declares no "
                    f"split mode: declare it (pl.func_attr({{\"split\": pl.SplitMode.{mode.name}}})), or move whole "
                    f"tiles (split=0)", transfer.span if transfer.span.is_valid() else func.span)
