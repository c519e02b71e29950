"""An if merge of a placed and an unplaced tile.

ConvertTensorToTileOps loads a tensor yielded by one branch as a tile whose memory space InferTileMemorySpace
decides later (`target_memory=None`), while the other branch yields an op's Vec result; the merged name is
typed with the known space. A single merged name prints with that annotation, which the parser applies; two or
more print as a tuple yield with no annotation, and the parser rejected the branches as yielding different
types. Rule: tile types equal but for a memory space only one of them has merge to the placed type, in either
branch order; two different spaces merge to the then branch's type (PyPTO's rule); any other difference
(shapes, dtypes) stays a located error.
"""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_core.ir import types as T
from pypto_core.ir.enums import MemorySpace
from pypto_core.language.api import parse

PLACED = "pl.tile.neg(t)"
UNPLACED = "pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=None)"

KERNEL = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]) -> pl.Tensor[[16, 32], pl.FP16]:
        t: pl.Tile[[16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], [16, 32])
        if n < 5:
            a = THEN
            m, o = pl.yield_(a, out)
        else:
            b = ELSE
            m, o = pl.yield_(b, out)
        o2: pl.Tensor[[16, 32], pl.FP16] = pl.tile.store(m, [0, 0], o)
        return o2
'''


def merged_type(program: ir.Program) -> T.Type:
    func = program.get_function("main")
    if_stmt = next(s for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.IfStmt))
    return if_stmt.return_vars[0].type


@pytest.mark.parametrize(("then", "orelse"), [(PLACED, UNPLACED), (UNPLACED, PLACED)])
def test_a_placed_and_an_unplaced_tile_merge_to_the_placed_type(then: str, orelse: str):
    program = parse(KERNEL.replace("THEN", then).replace("ELSE", orelse), "prog.py")
    t = merged_type(program)
    assert isinstance(t, T.TileType) and t.memory_space is MemorySpace.Vec
    again = parse(ir.python_print(program), "printed.py")
    ir.assert_structural_equal(again, program)


def test_two_different_spaces_merge_to_the_then_branchs_type():
    # PyPTO's if-phi rule (docs/dsl.md, if and yield): the then branch's type; another space is accepted.
    mat = "pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Mat)"
    program = parse(KERNEL.replace("THEN", PLACED).replace("ELSE", mat), "prog.py")
    assert merged_type(program).memory_space is MemorySpace.Vec
    program = parse(KERNEL.replace("THEN", mat).replace("ELSE", PLACED), "prog.py")
    assert merged_type(program).memory_space is MemorySpace.Mat
    ir.assert_structural_equal(parse(ir.python_print(program), "printed.py"), program)


def test_an_unplaced_tile_of_another_shape_stays_an_error():
    other = "pl.tile.load(x, [0, 0], [8, 32], [8, 32], target_memory=None)"
    with pytest.raises(ValueError, match="this branch yields pl.Tile\\[\\[8, 32\\]"):
        parse(KERNEL.replace("THEN", PLACED).replace("ELSE", other), "prog.py")
