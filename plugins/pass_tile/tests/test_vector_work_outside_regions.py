"""Vector work written beside a pl.split_aiv region, and a gather of a parameter.

* A tensor op written outside every region of a scope that has one is the program's mistake once it shows
  itself as vector work (docs/passes/lower_auto_vector_split.md, outside the regions): ConvertTensorToTileOps
  rejects one whose tile form is a vector op, InferTileMemorySpace one it places in Vec, each with a located
  ValueError naming the op's line and the fix (pass_tile/vector_outside_regions.py) -- not a verifier
  failure after the pass, which would blame the pass.
* The same ops are accepted where they do not become vector work: a reshape only the cube reads stays on
  the cube side, and a region holding the op compiles and computes what the program as written does.
* `pl.aic_gather(x)` of a parameter the cube also reads gets a load of its own (in Vec), so the matmul's
  load can be in Mat (tensor_to_tile/function_lowering.py).
"""

from __future__ import annotations

import pytest

from pypto_core.ir.enums import FunctionType
from pypto_plugins.pass_tile.tests.helpers import BACKENDS, compiled, printed, rejected

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
_FIX = r"Move it into a region, or wrap it in `for _ in pl.split_aiv\(2, mode=pl.SplitMode.NONE\):`"

# -- ConvertTensorToTileOps: a tensor op lowered to a vector op outside every region ------------------------

DIV_IN_A_LOOP_BESIDE_A_REGION = HEAD + '''    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[64, 32], pl.FP32],
             o: pl.Out[pl.Tensor[[32, 64], pl.FP32]], p: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                blk = pl.slice(x, [8, 64], [i * 8, 0])
                o = pl.assemble(o, pl.div(blk, -1.5), [i * 8, 0])
                for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    s = pl.slice(y, [64, 16], [0, aiv * 16])
                    p = pl.assemble(p, pl.exp(s), [0, aiv * 16])
        return o, p
'''

EXP_AFTER_A_REGION = HEAD + '''    def main(self, x: pl.Tensor[[32, 32], pl.FP32], o: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
             p: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.slice(x, [16, 32], [aiv * 16, 0])
                o = pl.assemble(o, pl.neg(h), [aiv * 16, 0])
            e = pl.exp(x)
            p = pl.assemble(p, e, [0, 0])
        return o, p
'''

ADD_OF_TWO_PARAMETERS_BEFORE_A_REGION = HEAD + '''    def main(self, x: pl.Tensor[[32, 32], pl.FP32], y: pl.Tensor[[32, 32], pl.FP32],
             o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.add(x, y)
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                o = pl.assemble(o, pl.mul(t, t), [0, 0])
        return o
'''


@pytest.mark.parametrize("src, op, line", [
    (DIV_IN_A_LOOP_BESIDE_A_REGION, "tile.divs", 11),
    (EXP_AFTER_A_REGION, "tile.exp", 12),
    (ADD_OF_TWO_PARAMETERS_BEFORE_A_REGION, "tile.add", 9),
], ids=["div-in-a-loop", "exp-after-a-region", "add-before-a-region"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tensor_op_lowered_to_vector_work_outside_the_regions_is_located(src: str, op: str, line: int,
                                                                            backend: str) -> None:
    rejected(src, backend, rf"^ConvertTensorToTileOps: the op written here is vector work outside every "
                           rf"pl.split_aiv region .*it is lowered to the vector op {op}.*{_FIX}")
    with pytest.raises(ValueError) as caught:
        compiled(src, backend)
    assert caught.value.span.begin_line == line  # type: ignore[attr-defined]


# -- InferTileMemorySpace: a space-polymorphic op placed in Vec outside every region ----------------------

RESHAPE_BEFORE_A_REGION = HEAD + '''    def main(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> tuple[pl.Tensor[[32, 128], pl.FP32], pl.Tensor[[32, 128], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.reshape(x, [32, 128])
            for _a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                o = pl.assemble(o, v, [0, 0])
        return o, v
'''

SLICE_READ_BY_A_REGION = HEAD + '''    def main(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.exp(x)
            top = pl.reshape(t, [128, 32])
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                o = pl.assemble(o, pl.slice(top, [32, 32], [0, 0]), [0, 0])
        return o
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_placed_in_vec_outside_the_regions_is_located(backend: str) -> None:
    rejected(RESHAPE_BEFORE_A_REGION, backend,
             rf"^(?:InferTileMemorySpace|ConvertTensorToTileOps): the op written here is vector work outside every "
             rf"pl.split_aiv region .*tile.reshape.*{_FIX}")
    with pytest.raises(ValueError) as caught:
        compiled(RESHAPE_BEFORE_A_REGION, backend)
    assert caught.value.span.begin_line == 8  # type: ignore[attr-defined]


def test_the_first_vector_op_in_program_order_is_the_one_named() -> None:
    rejected(SLICE_READ_BY_A_REGION, "Ascend910B", r"lowered to the vector op tile.exp")


# -- the same work where the rule allows it ----------------------------------------------------------------

RESHAPE_READ_BY_THE_CUBE = HEAD + '''    def main(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32],
             o: pl.Out[pl.Tensor[[64, 32], pl.FP32]], p: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[64, 32], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.reshape(x, [64, 32])
            c = pl.matmul(r, w)
            o = pl.assemble(o, c, [0, 0])
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(c)
                p = pl.assemble(p, pl.exp(h), [aiv * 32, 0])
        return o, p
'''

DIV_MOVED_INTO_A_NONE_REGION = HEAD + '''    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[64, 32], pl.FP32],
             o: pl.Out[pl.Tensor[[32, 64], pl.FP32]], p: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                blk = pl.slice(x, [8, 64], [i * 8, 0])
                for _n in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                    o = pl.assemble(o, pl.div(blk, -1.5), [i * 8, 0])
                for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    s = pl.slice(y, [64, 16], [0, aiv * 16])
                    p = pl.assemble(p, pl.exp(s), [0, aiv * 16])
        return o, p
'''


@pytest.mark.parametrize("src", [RESHAPE_READ_BY_THE_CUBE, DIV_MOVED_INTO_A_NONE_REGION],
                         ids=["reshape-read-by-the-cube", "div-in-a-none-region"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_work_where_the_rule_allows_it_compiles(src: str, backend: str) -> None:
    compiled(src, backend)


# -- a gather of a parameter the cube also reads --------------------------------------------------------------

GATHER_OF_A_PARAMETER_THE_MATMUL_READS = HEAD + '''    def main(self, x: pl.Tensor[[32, 32], pl.FP32], o: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                full = pl.aic_gather(x)
            c = pl.matmul(full, x)
            o = pl.assemble(o, c, [0, 0])
        return o
'''

GATHER_OF_A_PARAMETER_TWICE = HEAD + '''    def main(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32],
             o: pl.Out[pl.Tensor[[64, 32], pl.FP32]], q: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[64, 32], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                a = pl.aic_gather(x)
            for aiv2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                b = pl.aic_gather(x)
            o = pl.assemble(o, pl.matmul(a, w), [0, 0])
            q = pl.assemble(q, pl.matmul(b, x), [0, 0])
        return o, q
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_gathered_parameter_the_cube_also_reads_gets_a_vec_load_of_its_own(backend: str) -> None:
    after = compiled(GATHER_OF_A_PARAMETER_THE_MATMUL_READS, backend)
    aiv = "\n".join(printed(after, f.name) for f in after.functions.values() if f.func_type is FunctionType.AIV)
    aic = "\n".join(printed(after, f.name) for f in after.functions.values() if f.func_type is FunctionType.AIC)
    assert "pl.Mem.Vec] = pl.tile.load(x" in aiv, aiv  # the lanes load what they push
    assert "pl.Mem.Mat] = pl.tile.load(x" in aic, aic  # the matmul's operand, on the cube


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_gathers_of_one_parameter_in_two_regions(backend: str) -> None:
    compiled(GATHER_OF_A_PARAMETER_TWICE, backend)
