"""Cube work the program wrote inside a `pl.split_aiv` region is the program's mistake
(docs/passes/convert_tensor_to_tile_ops.md, errors).

A region's body is AIV work: each lane holds its part of the tiles, the cube needs them whole, so a cube op
(`pl.matmul`) belongs outside the region, fed by `pl.aic_gather` or handing its result in with `pl.aiv_shard`
(docs/passes/lower_auto_vector_split.md). A tensor op shows it is cube work only once ConvertTensorToTileOps
lowers it (`pl.matmul` -> tile.matmul), and that pass never moves an op into a region: it rejects the op here,
where the user wrote it, instead of leaving the AivSplitValid verifier to report it after the pass as the
pass's failure. Which calls are cube work is the registry's answer (pypto_core.analysis.affinity.is_cube_work, shared with AivSplitValid).
"""

from __future__ import annotations

from pypto_core.analysis.affinity import is_cube_work
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.utils import has_split_aiv_region
from pypto_core.ir.visitor import IRVisitor


class _FirstCubeInside(IRVisitor):
    """The first cube call inside a region, with the region."""

    def __init__(self) -> None:
        self.region: S.SplitAivScopeStmt | None = None
        self.found: tuple[E.Call, S.SplitAivScopeStmt] | None = None

    def visit_split_aiv_scope_stmt(self, s: S.SplitAivScopeStmt) -> None:
        outer, self.region = self.region, s
        super().visit_node(s)
        self.region = outer

    def visit_call(self, call: E.Call) -> None:
        if self.found is not None:
            return
        super().visit_node(call)
        if self.found is None and self.region is not None and is_cube_work(call):
            self.found = (call, self.region)


def reject_cube_work_inside_regions(func: F.Function, pass_name: str) -> None:
    """Raise a located UserError at the first cube op inside a pl.split_aiv region of `func`."""
    if not has_split_aiv_region(func.body):
        return
    finder = _FirstCubeInside()
    finder.visit_stmt(func.body)
    if finder.found is None:
        return
    call, region = finder.found
    mode = region.split
    whole = "" if mode is SplitMode.NONE else f" (under {mode.name} each lane holds half of each tile)"
    raise UserError(f"{pass_name}: the op written here is cube work ({call.op.name}) inside a pl.split_aiv region "
                    f"of InCore function '{func.name}'; a region's body is AIV work{whole} and the cube needs "
                    f"its operands whole. Move it out of the region: gather the region's vector result with "
                    f"pl.aic_gather and multiply after the region, or multiply before it and hand the result "
                    f"in with pl.aiv_shard", call.span)
