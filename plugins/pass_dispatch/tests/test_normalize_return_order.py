"""NormalizeReturnOrder (docs/passes/normalize_return_order.md): kernels return their Out / InOut parameters in
parameter order; callers' tuple items follow; the program computes the same."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import checked_pipeline, same_results

HEADER = "import pypto.language as pl\n\n"

# The reference's worked example (after ConvertToSSA): k stores u to o2 then t to o1 and returns them in that order.
BEFORE = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], o1: pl.Out[pl.Tensor[[16], pl.FP32]], o2: pl.Out[pl.Tensor[[16], pl.FP32]]) -> tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]]:
        t: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        s2: pl.Tensor[[16], pl.FP32] = pl.tile.store(u, [0], o2)
        s1: pl.Tensor[[16], pl.FP32] = pl.tile.store(t, [0], o1)
        return s2, s1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16], pl.FP32], o1: pl.Out[pl.Tensor[[16], pl.FP32]], o2: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        res: pl.Tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]] = self.k(x, o1, o2)
        first: pl.Tensor[[16], pl.FP32] = res[0]
        return first
'''
EXPECTED = BEFORE.replace("return s2, s1", "return o1, o2").replace("= res[0]", "= res[1]")


def parse(src: str) -> ir.Program:
    return pl.parse(HEADER + src)


def normalize(src: str) -> tuple[ir.Program, ir.Program]:
    before = parse(src)
    after = passes.normalize_return_order()(before)
    same_results(before, after)
    return before, after


def test_returns_become_the_out_params_in_parameter_order_and_callers_follow():
    _, after = normalize(BEFORE)
    ir.assert_structural_equal(after, parse(EXPECTED))


def test_returns_already_in_order_only_become_the_params():
    src = BEFORE.replace("return s2, s1", "return s1, s2")
    _, after = normalize(src)
    ir.assert_structural_equal(after, parse(src.replace("return s1, s2", "return o1, o2")))


def test_a_canonical_program_is_returned_as_it_is():
    before = parse(EXPECTED)
    assert passes.normalize_return_order()(before) is before


def _mixed_dtype_source() -> str:
    """BEFORE with o2 (and what is stored into it) in FP16: the two returns have different types."""
    src = BEFORE.replace("o2: pl.Out[pl.Tensor[[16], pl.FP32]]) -> tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]]",
                         "o2: pl.Out[pl.Tensor[[16], pl.FP16]]) -> tuple[pl.Tensor[[16], pl.FP16], pl.Tensor[[16], pl.FP32]]", 1)
    src = src.replace("u: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)",
                      "u0: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)\n"
                      "        u: pl.Tile[[16], pl.FP16, pl.Mem.Vec] = pl.tile.cast(u0, target_type=pl.FP16)")
    src = src.replace("s2: pl.Tensor[[16], pl.FP32]", "s2: pl.Tensor[[16], pl.FP16]")
    src = src.replace("o2: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:",
                      "o2: pl.Out[pl.Tensor[[16], pl.FP16]]) -> pl.Tensor[[16], pl.FP16]:")
    src = src.replace("res: pl.Tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]]",
                      "res: pl.Tuple[pl.Tensor[[16], pl.FP16], pl.Tensor[[16], pl.FP32]]")
    src = src.replace("first: pl.Tensor[[16], pl.FP32]", "first: pl.Tensor[[16], pl.FP16]")
    return src


def test_the_return_types_are_permuted_with_the_values():
    src = _mixed_dtype_source()
    _, after = normalize(src)
    k = after.get_function("k")
    assert [t.dtype for t in k.return_types] == [pl.FP32, pl.FP16]
    main = after.get_function("main")
    first = [s for s in ir.flatten_to_stmts(main.body) if isinstance(s, ir.AssignStmt)][1]
    assert first.value.index == 1 and first.var.type.dtype == pl.FP16


def test_a_loop_carried_out_param_is_returned_as_the_param():
    src = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(o,)):
            nxt: pl.Tensor[[64, 16], pl.FP32] = pl.tile.store(t, [i * 16, 0], acc)
            r = pl.yield_(nxt)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        y: pl.Tensor[[64, 16], pl.FP32] = self.k(x, o)
        return y
'''
    _, after = normalize(src)
    ret = ir.flatten_to_stmts(after.get_function("k").body)[-1]
    assert [v.name for v in ret.value] == ["o"]


def test_a_value_that_is_no_parameter_is_kept():
    src = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> tuple[pl.Tensor[[16], pl.FP32], pl.Scalar[pl.INDEX]]:
        t: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0], [16], [16], target_memory=pl.Mem.Vec)
        s: pl.Tensor[[16], pl.FP32] = pl.tile.store(t, [0], o)
        n: pl.Scalar[pl.INDEX] = 3
        return s, n
'''
    _, after = normalize(src)
    ret = ir.flatten_to_stmts(after.get_function("k").body)[-1]
    assert [v.name for v in ret.value] == ["o", "n"]


# The same kernel as a CORE_GROUP scope in an Opaque function, compiled by the default pipeline: the outlined
# kernel returns its Out parameters in the order it stores them.
SCOPED = '''@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o1: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [16, 16])
            o2 = pl.store(pl.exp(t), [0, 0], o2)
            o1 = pl.store(pl.add(t, t), [0, 0], o1)
        return o2, o1
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_after_the_default_pipeline_the_program_computes_the_same(backend: str):
    compiled = checked_pipeline(backend).run(parse(SCOPED))
    after = passes.normalize_return_order()(compiled)
    same_results(compiled, after)
    for func in after.functions.values():
        if func.func_type in (ir.FunctionType.InCore, ir.FunctionType.AIV, ir.FunctionType.AIC):
            outs = [p for p, d in zip(func.params, func.param_directions) if d is not ir.ParamDirection.In]
            ret = ir.flatten_to_stmts(func.body)[-1]
            if isinstance(ret, ir.ReturnStmt) and ret.value:
                assert list(ret.value) == outs[:len(ret.value)], func.name


def test_a_group_calling_a_permuted_kernel_as_a_statement_sees_its_new_result_type():
    src = _mixed_dtype_source().replace('''    @pl.function(type=pl.FunctionType.Orchestration)
    def main(''', '''    @pl.function(type=pl.FunctionType.Group)
    def group(self, x: pl.Tensor[[16], pl.FP32], o1: pl.Out[pl.Tensor[[16], pl.FP32]], o2: pl.Out[pl.Tensor[[16], pl.FP16]]) -> tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP16]]:
        self.k(x, o1, o2)
        return o1, o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(''')
    _, after = normalize(src)
    call = ir.flatten_to_stmts(after.get_function("group").body)[0].expr
    k = after.get_function("k")
    assert ir.structural_equal(call.type, ir.TupleType(list(k.return_types)))
