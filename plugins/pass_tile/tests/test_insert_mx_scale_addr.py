"""InsertMxScaleAddr: each MX matmul gets its scales bound to their data operands (tile.tget_scale_addr) right
before it, fresh bindings per matmul, inside branches too; programs without MX matmuls are returned as they are;
a backend without MX matmuls rejects them. Each accepted case also runs on the reference machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes

from .helpers import HEADER, printed, same_results

PARAMS = ("a: pl.Tensor[[32, 64], pl.FP8E4M3FN], sa: pl.Tensor[[32, 2], pl.FP8E8M0], "
          "b: pl.Tensor[[64, 32], pl.FP8E4M3FN], sb: pl.Tensor[[2, 32], pl.FP8E8M0], flag: pl.Scalar[pl.INDEX], "
          "o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]")
LOADS = '''        ta = pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        tsa = pl.load(sa, [0, 0], [32, 2], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        tsb = pl.load(sb, [0, 0], [2, 32], target_memory=pl.Mem.Mat)
'''
MAIN = f'''
    @pl.function
    def main(self, {PARAMS}) -> pl.Tensor[[32, 32], pl.FP32]:
        r = self.k(a, sa, b, sb, flag, o)
        return r
'''
BRANCHES = f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {PARAMS}) -> pl.Tensor[[32, 32], pl.FP32]:
{LOADS}        c = pl.matmul_mx(ta, tsa, tb, tsb)
        if flag > 0:
            d = pl.matmul_mx_acc(c, ta, tsa, tb, tsb)
        else:
            d = c
        o = pl.store(d, [0, 0], o)
        return o
{MAIN}'''


def placed(src: str) -> ir.Program:
    program = passes.convert_to_ssa()(pl.parse(HEADER + src))
    return passes.infer_tile_memory_space()(passes.normalize_stmt_structure()(program))


def bind(src: str) -> tuple[ir.Program, ir.Program]:
    before = placed(src)
    after = passes.insert_mx_scale_addr()(before)
    same_results(before, after)
    return before, after


@pytest.mark.pypto_backend("Ascend950")
def test_each_mx_matmul_binds_its_scales_before_it_lhs_first_also_in_a_branch():
    _, after = bind(BRANCHES)
    lines = [line.strip() for line in printed(after, "k").splitlines()]
    first = lines.index("c__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx(ta__ssa_v0_Left, "
                        "tsa__ssa_v0_LeftScale_bound, tb__ssa_v0_Right, tsb__ssa_v0_RightScale_bound)")
    assert lines[first - 2] == ("tsa__ssa_v0_LeftScale_bound: pl.Tile[[32, 2], pl.FP8E8M0, pl.Mem.LeftScale] = "
                                "pl.tile.tget_scale_addr(tsa__ssa_v0_LeftScale, ta__ssa_v0_Left)")
    assert lines[first - 1] == ("tsb__ssa_v0_RightScale_bound: pl.Tile[[2, 32], pl.FP8E8M0, pl.Mem.RightScale] = "
                                "pl.tile.tget_scale_addr(tsb__ssa_v0_RightScale, tb__ssa_v0_Right)")
    second = lines.index("d__ssa_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_mx_acc(c__ssa_v0, "
                         "ta__ssa_v0_Left, tsa__ssa_v0_LeftScale_bound_1, tb__ssa_v0_Right, "
                         "tsb__ssa_v0_RightScale_bound_1)")
    assert lines[second - 2].startswith("tsa__ssa_v0_LeftScale_bound_1: ")
    assert lines[second - 1].startswith("tsb__ssa_v0_RightScale_bound_1: ")
    assert printed(after, "k").count("pl.tile.tget_scale_addr(") == 4


@pytest.mark.pypto_backend("Ascend950")
def test_the_bias_form_pairs_like_the_plain_one_and_a_second_run_binds_the_bound_scales():
    _, after = bind(f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {PARAMS}, bias: pl.Tensor[[1, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
{LOADS}        tbias = pl.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat)
        c = pl.matmul_mx_bias(ta, tsa, tb, tsb, tbias)
        o = pl.store(c, [0, 0], o)
        return o

    @pl.function
    def main(self, {PARAMS}, bias: pl.Tensor[[1, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        r = self.k(a, sa, b, sb, flag, o, bias)
        return r
''')
    assert "pl.tile.matmul_mx_bias(ta__ssa_v0_Left, tsa__ssa_v0_LeftScale_bound, tb__ssa_v0_Right, " \
           "tsb__ssa_v0_RightScale_bound, " in printed(after, "k")
    again = passes.insert_mx_scale_addr()(after)
    assert "pl.tile.tget_scale_addr(tsa__ssa_v0_LeftScale_bound, ta__ssa_v0_Left)" in printed(again, "k")
    assert "tsa__ssa_v0_LeftScale_bound_bound" in printed(again, "k")


def test_a_program_without_mx_matmuls_is_returned_as_it_is():
    before, after = bind('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        c = pl.matmul(ta, tb)
        o = pl.store(c, [0, 0], o)
        return o

    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        r = self.k(a, b, o)
        return r
''')
    assert after is before


def test_on_a_backend_without_mx_matmuls_the_matmul_is_a_located_error():
    program = placed(BRANCHES)
    with pytest.raises(ValueError, match=r"tile.matmul_mx is only supported on the Ascend950 \('a5'\) backend, "
                                         r"but got 'a2a3'") as info:
        passes.insert_mx_scale_addr()(program)
    assert info.value.span.begin_line == 12  # type: ignore[attr-defined]
