"""ResolveBackendOpLayouts: an op whose instruction needs row-major tiles (its row_major_layout) gets [N, 1]
columns reshaped to rows and other tiles moved to a row-major layout; a result computed row-major goes back to its
variable's layout; ops without the constraint are left alone. Each case also runs on the reference machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes

from .helpers import HEADER, printed, same_results

ROW_SUM = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 256], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
        tmp = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s = pl.tile.row_sum(t, tmp)
        m = pl.tile.muls(s, 2.0)
        n = pl.tile.neg(m)
        a = pl.tile.add(s, n)
        o = pl.store(a, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 256], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        r = self.k(x, o)
        return r
'''
ACC_IN_VEC = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        c = pl.matmul(ta, tb)
        v = pl.move(c, target_memory=pl.Mem.Vec)
        e = pl.tile.exp(v)
        o = pl.store(e, [0, 0], o)
        return o

    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.k(a, b, o)
        return r
'''


def resolve(src: str) -> tuple[ir.Program, ir.Program]:
    program = passes.convert_to_ssa()(pl.parse(HEADER + src))
    before = passes.infer_tile_memory_space()(passes.flatten_tile_nd_to_2d()(program))
    after = passes.resolve_backend_op_layouts()(before)
    same_results(before, after)
    return before, after


def body_lines(program: ir.Program) -> list[str]:
    return [line.strip() for line in printed(program, "k").splitlines()[2:]]


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_column_is_reshaped_to_a_row_for_muls_and_add_and_back_but_neg_is_left(backend, request):
    request.applymarker(pytest.mark.pypto_backend(backend))
    _, after = resolve(ROW_SUM)
    assert body_lines(after)[3:11] == [
        "m__rm_a0_tmp_v0: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(s__ssa_v0, [1, 16])",
        "m__row_major_tmp_v1: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.muls(m__rm_a0_tmp_v0, 2.0)",
        "m__ssa_v0: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(m__row_major_tmp_v1, [16, 1])",
        "n__ssa_v0: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.neg(m__ssa_v0)",
        "a__rm_a0_tmp_v2: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(s__ssa_v0, [1, 16])",
        "a__rm_a1_tmp_v3: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(n__ssa_v0, [1, 16])",
        "a__row_major_tmp_v4: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(a__rm_a0_tmp_v2, a__rm_a1_tmp_v3)",
        "a__ssa_v0: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(a__row_major_tmp_v4, [16, 1])",
    ]


def test_an_nz_tile_in_vec_is_moved_to_row_major_and_the_result_moved_back():
    _, after = resolve(ACC_IN_VEC)
    nz = "pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)"
    assert body_lines(after)[6:9] == [
        "e__rm_a0_tmp_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(v__ssa_v0, target_memory=pl.Mem.Vec, "
        "blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)",
        "e__row_major_tmp_v1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(e__rm_a0_tmp_v0)",
        f"e__ssa_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, {nz}] = pl.tile.move(e__row_major_tmp_v1, "
        "target_memory=pl.Mem.Vec, blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)",
    ]


def test_a_cast_of_a_column_fixes_its_operand_and_its_result():
    _, after = resolve('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 1], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP16]]) -> pl.Tensor[[16, 1], pl.FP16]:
        t = pl.load(x, [0, 0], [16, 1], target_memory=pl.Mem.Vec)
        h = pl.cast(t, pl.FP16)
        o = pl.store(h, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 1], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP16]]) -> pl.Tensor[[16, 1], pl.FP16]:
        r = self.k(x, o)
        return r
''')
    lines = body_lines(after)
    assert lines[1].endswith("pl.tile.reshape(t__ssa_v0, [1, 16])")
    assert lines[2].endswith("pl.tile.cast(h__rm_a0_tmp_v0, target_type=pl.FP16, mode='round')")
    assert lines[3].startswith("h__ssa_v0: pl.Tile[[16, 1], pl.FP16, pl.Mem.Vec")
    assert lines[3].endswith("pl.tile.reshape(h__row_major_tmp_v1, [16, 1])")


def test_row_major_tiles_and_unconstrained_ops_leave_the_program_as_it_is():
    before, after = resolve('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        e = pl.tile.exp(t)
        n = pl.tile.neg(e)
        a = pl.tile.add(e, n)
        o = pl.store(a, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = self.k(x, o)
        return r
''')
    assert after is before


DECLARED_NARROWER = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[31, 32])],
          o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[31, 32], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(v, v)
        o = pl.store(y, [0, 0], o)
        return o
'''


def test_a_result_brought_back_keeps_its_declared_valid_region_and_round_trips():
    from pypto_core.language.roundtrip import roundtrip

    before = pl.parse(HEADER + DECLARED_NARROWER)
    after = passes.resolve_backend_op_layouts()(before)
    assert after is not before
    k = after.get_function("k")
    (y,) = [s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "y"]
    # the call bringing the row-major sum back carries the variable's type, as the parser gives it
    ir.assert_structural_equal(y.value.type, y.var.type)
    roundtrip(after)
