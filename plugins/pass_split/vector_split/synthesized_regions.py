"""Wrapping an AUTO-lowered function's vector phase in a region (docs/passes/lower_auto_vector_split.md, what it does;
the `synthesize_regions` option of LowerAutoVectorSplit, off by default).

Only a single straight-line vector phase is wrapped: the function body has no control flow and its
vector statements (vector calls, the aiv_shard / aic_gather boundaries) stand together; SHARED calls
after the phase and before the next cube statement or the return join it. Compute order and the lane
variable are kept: the region binds the same `subblock_idx`, moved into the region when nothing
outside uses it. Interleaved cube / vector phases, control flow, a rebalanced boundary (lane_stride),
a boundary whose split axis a reshape moved, and anything the AivSplitLoweredValid verifier would not accept keep the flat lowered form.
"""

from __future__ import annotations

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.analysis.walk import op_calls
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.utils import flatten_to_stmts, free_vars_in_order, make_body
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of

_VECTORISH = (CoreAffinity.VECTOR, CoreAffinity.MIXED)


def _phase(s: S.Stmt) -> str | None:
    """'vector', 'cube', 'shared', or None for a statement a synthesised region cannot hold."""
    if isinstance(s, S.ReturnStmt):
        return "return"
    if not isinstance(s, (S.AssignStmt, S.EvalStmt)):
        return None
    calls = op_calls(s)
    if any(opdef_of(c) is not None and c.kwargs.get("lane_stride") is not None for c in calls):
        return None  # a rebalanced boundary keeps the flat form
    affinities = {classify_call_affinity(c) for c in calls}
    if affinities & {CoreAffinity.CUBE} and affinities & set(_VECTORISH):
        return None
    if CoreAffinity.CUBE in affinities:
        return "cube"
    if affinities & set(_VECTORISH):
        return "vector"
    return "shared"


def _migrated_boundary(call: E.Call, mode: SplitMode) -> bool:
    """A boundary moving the lanes' parts on another axis than the function's mode (a reshape moved the split
    axis): a region of `mode` cannot hold it (its printed form drops `split=`; docs/passes/lower_auto_vector_split.md, what it does: a boundary
    whose split axis a reshape moved keeps the flat form)."""
    opdef = opdef_of(call)
    if opdef is None or opdef.traits.split_boundary is None:
        return False
    return int(call.kwargs.get("split") or 0) not in (0, int(mode))


def synthesize_region(func: F.Function, mode: SplitMode) -> F.Function | None:
    """The function with its vector phase in a region, or None when the flat form must stay."""
    stmts = flatten_to_stmts(func.body)
    if not stmts or not isinstance(stmts[0], S.AssignStmt):
        return None
    lane_binding, rest = stmts[0], stmts[1:]
    phases = [_phase(s) for s in rest]
    if None in phases:
        return None
    vector_at = [i for i, p in enumerate(phases) if p == "vector"]
    if not vector_at:
        return None
    first, last = vector_at[0], vector_at[-1]
    if any(phases[i] == "cube" for i in range(first, last + 1)):
        return None  # interleaved cube / vector phases
    end = last + 1
    while end < len(rest) and phases[end] == "shared":
        end += 1  # SHARED calls after the vector phase join it
    head, phase, tail = rest[:first], rest[first:end], rest[end:]
    if any(_migrated_boundary(c, mode) for s in phase for c in op_calls(s)):
        return None
    if any(v is lane_binding.var for v in free_vars_in_order([*head, *tail])):
        return None  # the lane binding moves into the region (its aiv_id) only when nothing outside uses it
    region = S.SplitAivScopeStmt(mode, 2, body=make_body([lane_binding, *phase], func.body.span), span=phase[0].span)
    return func.with_fields(body=make_body([*head, region, *tail], func.body.span))  # type: ignore[return-value]


def with_synthesized_region(func: F.Function, mode: SplitMode) -> F.Function:
    """Keep a synthesised region only when the lowered-form verifier accepts it."""
    from pypto_plugins.pass_split.verifiers.aiv_split_valid import verify_aiv_split_lowered_valid

    candidate = synthesize_region(func, mode)
    if candidate is None or verify_aiv_split_lowered_valid(candidate):
        return func
    return candidate
