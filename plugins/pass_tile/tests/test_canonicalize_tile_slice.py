"""CanonicalizeTileSlice: extracts read through slices, Mat slices feeding the cube become Left / Right
extracts, col_expand and unaligned Vec windows get Vec copies (also aliases, loop inits, yields), slices left
unread are dropped, row windows of accumulators are rejected. Each accepted case also runs on the machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes

from .helpers import HEADER, printed, same_results

VEC_WINDOWS = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        gt = pl.load(g, [0, 0], [1, 64], target_memory=pl.Mem.Vec)
        head = pl.tile.slice(t, [16, 1], [0, 1])
        h2 = pl.tile.muls(head, 0.5)
        al = pl.tile.slice(t, [16, 64], [0, 8])
        a2 = pl.tile.exp(al)
        hi = pl.tile.slice(t, [16, 64], [0, 64])
        sc = pl.tile.col_expand_mul(hi, gt)
        row = pl.tile.slice(t, [1, 64], [r, 0])
        rs = pl.tile.col_expand_mul(row, gt)
        sub = pl.tile.slice(hi, [8, 64], [8, 0])
        s2 = pl.tile.neg(sub)
        o = pl.store(sc, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        res = self.k(x, g, r, o)
        return res
'''
VEC_EXPECTED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.tile.load(x, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        gt = pl.tile.load(g, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        head_x = pl.tile.extract(t, 0, 1, [16, 1], target_memory=pl.Mem.Vec)
        h2 = pl.tile.muls(head_x, 0.5)
        al = pl.tile.slice(t, [16, 64], [0, 8])
        a2 = pl.tile.exp(al)
        hi = pl.tile.slice(t, [16, 64], [0, 64])
        hi_x = pl.tile.extract(t, 0, 64, [16, 64], target_memory=pl.Mem.Vec)
        sc = pl.tile.col_expand_mul(hi_x, gt)
        row_x = pl.tile.extract(t, r, 0, [1, 64], target_memory=pl.Mem.Vec)
        rs = pl.tile.col_expand_mul(row_x, gt)
        sub = pl.tile.slice(hi, [8, 64], [8, 0])
        s2 = pl.tile.neg(sub)
        o_1 = pl.tile.store(sc, [0, 0], o)
        return o_1

    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        res = self.k(x, g, r, o)
        return res
'''


def canonicalize(src: str, run: bool = True) -> tuple[ir.Program, ir.Program]:
    program = passes.convert_to_ssa()(pl.parse(HEADER + src))
    before = passes.flatten_tile_nd_to_2d()(program)
    after = passes.canonicalize_tile_slice()(before)
    if run:
        same_results(before, after)
    return before, after


def expect_ssa(after: ir.Program, expected_src: str) -> None:
    ir.assert_structural_equal(after, passes.convert_to_ssa()(pl.parse(HEADER + expected_src)))


def test_unaligned_and_col_expand_windows_get_vec_copies_and_aligned_ones_stay():
    _, after = canonicalize(VEC_WINDOWS, run=False)  # row's dynamic r: checked with r in range below
    expect_ssa(after, VEC_EXPECTED)
    assert "head__ssa_v0_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(" in printed(after, "k")


def test_the_copies_compute_what_the_windows_did_and_a_constant_row_stays_for_col_expand():
    before, after = canonicalize(VEC_WINDOWS.replace("[r, 0]", "[3, 0]"))
    text = printed(after, "k")
    assert "pl.tile.col_expand_mul(row__ssa_v0, gt__ssa_v0)" in text
    assert "pl.tile.slice(t__ssa_v0, [1, 64], [3, 0])" in text
    assert text.count("pl.tile.extract(") == 2


def test_an_extract_of_a_mat_slice_reads_the_base_and_the_slice_is_dropped():
    _, after = canonicalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[64, 64], pl.BF16], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta = pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        la = pl.tile.slice(ta, [16, 64], [16, 0])
        e = pl.tile.extract(la, 0, 0, [16, 64], target_memory=pl.Mem.Left)
        rb = pl.tile.extract(tb, 0, 0, [64, 64], target_memory=pl.Mem.Right)
        c = pl.tile.matmul(e, rb)
        o = pl.store(c, [0, 0], o)
        return o

    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[64, 64], pl.BF16], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = self.k(a, b, o)
        return r
''')
    text = printed(after, "k")
    assert "pl.tile.extract(ta__ssa_v0, 16, 0, [16, 64], target_memory=pl.Mem.Left)" in text
    assert "pl.tile.slice(" not in text


def test_mat_slices_feeding_the_cube_become_left_and_right_extracts_before_the_matmul():
    _, after = canonicalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[128, 32], pl.BF16], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        am = pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [128, 32], target_memory=pl.Mem.Mat)
        lhs_0 = pl.tile.slice(am, [16, 64], [0, 0])
        rhs_0 = pl.tile.slice(bm, [64, 32], [0, 0])
        m0 = pl.tile.matmul(lhs_0, rhs_0)
        o = pl.store(m0, [0, 0], o)
        lhs_1 = pl.tile.slice(am, [16, 64], [16, 0])
        rhs_1 = pl.tile.slice(bm, [64, 32], [64, 0])
        m1 = pl.tile.matmul(lhs_1, rhs_1)
        o = pl.store(m1, [16, 0], o)
        return o

    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[128, 32], pl.BF16], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        r = self.k(a, b, o)
        return r
''')
    lines = [line.strip() for line in printed(after, "k").splitlines()[4:]]
    assert [line.split(" = ")[1] for line in lines[:3]] == [
        "pl.tile.extract(am__ssa_v0, 0, 0, [16, 64], target_memory=pl.Mem.Left)",
        "pl.tile.extract(bm__ssa_v0, 0, 0, [64, 32], target_memory=pl.Mem.Right)",
        "pl.tile.matmul(lhs_0__ssa_v0_textract, rhs_0__ssa_v0_textract)"]
    assert lines[4].split(" = ")[1] == "pl.tile.extract(am__ssa_v0, 16, 0, [16, 64], target_memory=pl.Mem.Left)"
    assert lines[5].split(" = ")[1] == "pl.tile.extract(bm__ssa_v0, 64, 0, [64, 32], target_memory=pl.Mem.Right)"
    assert "pl.tile.slice(" not in printed(after, "k")


def test_an_alias_of_an_unaligned_window_becomes_the_copy():
    _, after = canonicalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        h = pl.tile.slice(t, [16, 1], [0, 3])
        acc = h
        for i in pl.range(2):
            acc = pl.tile.muls(acc, 2.0)
        o = pl.store(acc, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        r = self.k(x, o)
        return r
''')
    text = printed(after, "k")
    assert "acc__ssa_v0: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t__ssa_v0, 0, 3, [16, 1], " \
           "target_memory=pl.Mem.Vec)" in text
    assert "pl.tile.slice(" not in text


def test_a_dynamic_offset_known_to_be_a_multiple_of_eight_columns_is_aligned():
    before, after = canonicalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        for i in pl.range(4):
            w = pl.tile.slice(t, [16, 8], [0, i * 8])
            e = pl.tile.exp(w)
            o = pl.store(e, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        r = self.k(x, o)
        return r
''')
    assert after is before
    _, unaligned = canonicalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 4], pl.FP32]]) -> pl.Tensor[[16, 4], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        for i in pl.range(4):
            w = pl.tile.slice(t, [16, 4], [0, i * 4])
            e = pl.tile.exp(w)
            o = pl.store(e, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 4], pl.FP32]]) -> pl.Tensor[[16, 4], pl.FP32]:
        r = self.k(x, o)
        return r
''')
    assert "w__ssa_v0_textract" in printed(unaligned, "k")


def test_a_row_window_of_an_accumulator_is_rejected_with_the_column_fix():
    program = passes.convert_to_ssa()(pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[64, 64], pl.BF16], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        l0 = pl.move(pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        l1 = pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r0 = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        c = pl.tile.matmul(l0, r0)
        cs = pl.tile.slice(c, [16, 64], [0, 0])
        d = pl.tile.matmul_acc(cs, l1, r0)
        o = pl.store(d, [0, 0], o)
        return o
'''))
    with pytest.raises(ValueError, match=r"tile.matmul_acc: the accumulator is a 16x64 row window of a 32x64 Acc "
                                         r"\(L0C\) tile.*allocate 16x128 and use tile.slice\(acc, \[16, 64\], "
                                         r"\[0, i \* 64\]\)"):
        passes.canonicalize_tile_slice()(program)


def test_a_function_without_windows_is_returned_as_it_is():
    before, after = canonicalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        o = pl.store(pl.tile.exp(t), [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        r = self.k(x, o)
        return r
''')
    assert after is before


def test_an_unaligned_window_as_a_loop_init_gets_a_copy_before_the_loop():
    _, after = canonicalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        h = pl.tile.slice(t, [16, 1], [0, 5])
        for i, (acc,) in pl.range(2, init_values=(h,)):
            nxt = pl.tile.muls(acc, 2.0)
            acc_out = pl.yield_(nxt)
        o = pl.store(acc_out, [0, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        r = self.k(x, o)
        return r
''')
    text = printed(after, "k")
    assert "h__ssa_v0_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t__ssa_v0, 0, 5, [16, 1], " \
           "target_memory=pl.Mem.Vec)" in text
    assert "init_values=(h__ssa_v0_textract,)" in text
    assert "pl.tile.slice(" not in text
