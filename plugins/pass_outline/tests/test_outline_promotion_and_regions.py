"""Promotion with parameter dim folding, and pl.split_aiv regions through outlining (docs/dsl.md, splitting vector work)."""

from __future__ import annotations

from pypto import ir

from .helpers import expect, function, outline

HEADER = "import pypto.language as pl\n\n"

DIM_SRC = HEADER + '''M = pl.dynamic("M")


@pl.program
class Dyn:
    @pl.function
    def main(self, a: pl.Tensor[[M, 128], pl.FP32], out: pl.Out[pl.Tensor[[M, 128], pl.FP32]]) -> pl.Tensor[[M, 128], pl.FP32]:
        m = pl.tensor.dim(a, 0)
        rows = pl.tensor.dim(a, 1)
        for i in pl.range(m // 64):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 64, 0], [64, 128])
                out = pl.store(t, [i * 64, 0], out)
        return out
'''


def test_promotion_folds_dim_reads_of_dynamic_axes_only():
    after = outline(DIM_SRC)
    main = function(after, "main")
    assert main.func_type is ir.FunctionType.Orchestration
    text = ir.python_print(after)
    assert "pl.tensor.dim(a__ssa_v0, 0)" not in text  # folded onto M, binding gone
    assert "rows__ssa_v0: pl.Scalar[pl.INDEX] = pl.tensor.dim(a__ssa_v0, 1)" in text  # constant extent stays, typed INDEX
    assert "in pl.range(M // 64, init_values=" in text
    # The folded program is exactly what the parser builds for an Orchestration function using M.
    expect(after, HEADER + '''M = pl.dynamic("M")


@pl.program
class Dyn:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(a: pl.Tensor[[M, 128], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[M, 128], pl.FP32]]) -> pl.Tensor[[M, 128], pl.FP32]:
        t = pl.load(a, [i * 64, 0], [64, 128])
        out2 = pl.store(t, [i * 64, 0], out)
        out__store = out2
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 128], pl.FP32], out: pl.Out[pl.Tensor[[M, 128], pl.FP32]]) -> pl.Tensor[[M, 128], pl.FP32]:
        rows = pl.tensor.dim(a, 1)
        for i, (o_it,) in pl.range(M // 64, init_values=(out,)):
            o1 = self.main_incore_0(a, i, o_it)
            o_rv = pl.yield_(o1)
        return o_rv
''')


def test_orchestration_functions_are_not_refolded():
    src = DIM_SRC.replace("    @pl.function\n    def main", "    @pl.function(type=pl.FunctionType.Orchestration)\n    def main")
    after = outline(src)
    # The parser already folded `m` in the Orchestration body; the pass leaves that body as parsed.
    assert "pl.tensor.dim(a__ssa_v0, 0)" not in ir.python_print(after)


A3_SOURCE = HEADER + '''@pl.program
class Region:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_exp", optimizations=[pl.cross_core_slot(slot_num=4)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base = aiv_id * 64
                t = pl.load(a, [base, 0], [64, 64])
                out = pl.store(pl.exp(t), [base, 0], out)
        return out
'''

A3_AFTER = '''# pypto.program: Region
import pypto.language as pl

@pl.program
class Region:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def half_exp(a__ssa_v0: pl.Tensor[[128, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        pl.func_attr({"slot_num": 4, "split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        for aiv_id__ssa_v0 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            base__ssa_v0: pl.Scalar[pl.INDEX] = aiv_id__ssa_v0 * 64
            t__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [base__ssa_v0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
            out__ssa_v1: pl.Tensor[[128, 64], pl.FP32] = pl.tile.store(pl.tile.exp(t__ssa_v0), [base__ssa_v0, 0], out__ssa_v0)
            out__store: pl.Tensor[[128, 64], pl.FP32] = out__ssa_v1
        return out__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 64], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        out__ssa_v2: pl.Tensor[[128, 64], pl.FP32] = self.half_exp(a__ssa_v0, out__ssa_v0)
        return out__ssa_v2'''


def test_region_scope_outlines_to_the_expected_text():
    after = outline(A3_SOURCE)
    assert ir.python_print(after, format=False) == A3_AFTER
    expect(after, A3_AFTER)


def test_parser_wrapped_region_outlines_like_an_explicit_scope():
    after = outline(HEADER + '''@pl.program
class W:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            t = pl.load(a, [aiv_id * 64, 0], [64, 64])
            out = pl.store(t, [aiv_id * 64, 0], out)
        return out
''')
    k = function(after, "main_incore_0")
    assert dict(k.attrs) == {"split_aiv": True}
    assert isinstance(ir.flatten_to_stmts(k.body)[0], ir.SplitAivScopeStmt)
