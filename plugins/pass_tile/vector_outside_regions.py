"""Vector work the program left outside its `pl.split_aiv` regions is the program's mistake.

Once a function has a region, the regions place its vector work; only GM loads / stores and cube work stay
outside (docs/passes/lower_auto_vector_split.md, outside the regions). A tensor op written outside every
region shows what it is only once it is lowered: ConvertTensorToTileOps gives it a vector tile form
(`pl.div(x, 2.0)` -> tile.divs), or InferTileMemorySpace places a space-polymorphic one in Vec
(`pl.reshape` read by a vector consumer). Each pass rejects that here, naming the op the user wrote and
the fix, instead of leaving the AivSplitValid verifier to report it after the pass as the pass's failure.
Which calls count is the registry's answer (pypto_core.analysis.affinity.needs_a_region).
"""

from __future__ import annotations

from pypto_core.analysis.affinity import needs_a_region
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import has_split_aiv_region
from pypto_core.ir.visitor import IRVisitor


class _FirstOutside(IRVisitor):
    """The first call outside every region that a region must hold (regions are not entered)."""

    def __init__(self) -> None:
        self.found: E.Call | None = None

    def visit_split_aiv_scope_stmt(self, s: S.SplitAivScopeStmt) -> None:
        return None

    def visit_call(self, call: E.Call) -> None:
        if self.found is not None:
            return
        super().visit_node(call)
        if self.found is None and needs_a_region(call):
            self.found = call


def reject_vector_work_outside_regions(func: F.Function, pass_name: str, why: str) -> None:
    """Raise a located UserError when `func` has a region and vector work outside every region.

    `why` says how the op became vector work in this pass, with `{op}` for the tile op."""
    if not has_split_aiv_region(func.body):
        return
    finder = _FirstOutside()
    finder.visit_stmt(func.body)
    call = finder.found
    if call is None:
        return
    raise UserError(f"{pass_name}: the op written here is vector work outside every pl.split_aiv region of "
                    f"InCore function '{func.name}' ({why.format(op=call.op.name)}); once a function has a region, "
                    f"the regions place its vector work and only loads, stores and cube work stay outside. "
                    f"Move it into a region, or wrap it in "
                    f"`for _ in pl.split_aiv(2, mode=pl.SplitMode.NONE):` to run it full width on both AIV "
                    f"lanes", call.span)
