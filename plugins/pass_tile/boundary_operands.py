"""A region boundary whose operand sits where the boundary cannot take it is the program's mistake.

`pl.aiv_shard` hands the cube's accumulator to the AIV lanes and `pl.aic_gather` the lanes' Vec tiles to the
cube (docs/passes/lower_auto_vector_split.md); where the operand must be is the registry's answer
(pypto_core.analysis.affinity.boundary_operand_spaces). A shard of a vector op's result (known once ConvertTensorToTileOps lowers it)
or of a tensor loaded from GM (placed by InferTileMemorySpace) has no accumulator to hand over: each pass reports
it here, at the boundary, instead of by the AivSplitValid verifier after the pass as the pass's failure.
"""

from __future__ import annotations

from pypto_core.analysis.affinity import boundary_operand_spaces
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.types import TileType
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.registry import opdef_of


class _FirstMisplaced(IRVisitor):
    def __init__(self) -> None:
        self.found: tuple[E.Call, TileType, tuple] | None = None

    def visit_call(self, call: E.Call) -> None:
        if self.found is not None:
            return
        wanted = boundary_operand_spaces(call)
        operand = call.args[0].type if wanted and call.args else None
        if isinstance(operand, TileType) and operand.memory_space is not None and operand.memory_space not in wanted:
            self.found = (call, operand, wanted)
            return
        super().visit_node(call)


def reject_misplaced_boundary_operands(func: F.Function, pass_name: str) -> None:
    """Raise a located UserError at the first boundary whose operand is placed where it cannot be taken (a
    vector op's result is in Vec once ConvertTensorToTileOps lowers it; a load's space is InferTileMemorySpace's)."""
    finder = _FirstMisplaced()
    finder.visit_stmt(func.body)
    if finder.found is None:
        return
    call, operand, wanted = finder.found
    opdef = opdef_of(call)
    c2v = opdef is not None and opdef.traits.split_boundary == "c2v"
    what = (f"the operand '{call.args[0].name_hint}' of {call.op.name}" if isinstance(call.args[0], E.Var)
            else f"the operand of {call.op.name}")
    spaces = " or ".join(m.name for m in wanted)
    if c2v:
        fix = ("a shard hands the cube's result to the AIV lanes: shard the result of a cube op (pl.matmul) "
               "computed in the same kernel (the same pl.at(level=pl.Level.CORE_GROUP) scope), or give each "
               "lane its half of the tensor with pl.slice(x, [half, cols], [aiv_id * half, 0])")
    else:
        fix = "a gather hands the lanes' vector tiles to the cube: gather the Vec tile the region computed"
    raise UserError(f"{pass_name}: InCore function '{func.name}': {what} is in {operand.memory_space.name}, but this boundary takes it in "
                    f"{spaces}; {fix}", call.span)
