"""ExpandMixedKernel and a function-level split (docs/passes/expand_mixed_kernel.md, transpose hazard and
non-mixed kernels): a mixed kernel's transpose swapping the split axis is rejected with PyPTO's wording unless
the source is 1 wide on that axis or the regions were validated; a non-mixed kernel loses its split."""

from __future__ import annotations

import pytest

from pypto import ir

from .emk_helpers import BACKENDS, emk
from .helpers import function

MIXED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat], a: pl.Tensor[[ROWS, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], out2: pl.Out[pl.Tensor[[16, ROWS], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, ROWS], pl.FP32]]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(v, [0, 0], out)
        x: pl.Tile[[ROWS, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [ROWS, 16], [ROWS, 16], target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, ROWS], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(x, 0, 1)
        o2: pl.Tensor[[16, ROWS], pl.FP32] = pl.tile.store(t, [0, 0], out2)
        return o, o2
'''

MESSAGE = ("ExpandMixedKernel: kernel 'k' requests pl.split(UP_DOWN) but contains a tile.transpose (result 't') that "
           "swaps the split axis (dim 0). SplitVectorKernel halves the split axis while the transpose moves that data "
           "to the other dimension, so the split cannot be applied correctly. Fix it one of two ways: (1) drop the "
           "split \u2014 set attrs={\"split\": pl.SplitMode.NONE} (or remove the pl.split optimization); or (2) "
           "eliminate this transpose, e.g. replace a transpose-then-row-index with a direct column slice such as "
           "pre[:, h:h+1].")


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_mixed_kernels_transpose_of_the_split_axis_is_rejected_with_the_fix(backend_name: str):
    with pytest.raises(ValueError) as err:
        emk(MIXED.replace("ROWS", "8"), backend_name, run=False)
    assert str(err.value).startswith(MESSAGE) and "--> <string>:12:52" in str(err.value)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_source_one_wide_on_the_split_axis_is_fine(backend_name: str):
    emk(MIXED.replace("ROWS", "1"), backend_name)


def test_validated_regions_skip_the_check():
    src = MIXED.replace("ROWS", "8").replace('{"split": pl.SplitMode.UP_DOWN}',
                                             '{"split": pl.SplitMode.UP_DOWN, "split_aiv_region_validated": True}')
    emk(src, run=False)


def test_the_transpose_of_the_other_axis_is_fine_and_nested_calls_are_seen():
    src = MIXED.replace("ROWS", "8").replace("pl.SplitMode.UP_DOWN", "pl.SplitMode.LEFT_RIGHT")
    with pytest.raises(ValueError, match=r"requests pl.split\(LEFT_RIGHT\) but contains a tile.transpose \(result "
                                         r"'t'\) that swaps the split axis \(dim 1\)"):
        emk(src, run=False)  # (0, 1) swaps both axes
    nested = MIXED.replace("ROWS", "8").replace(
        "        t: pl.Tile[[16, ROWS], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(x, 0, 1)\n".replace("ROWS", "8"), "").replace(
        "pl.tile.store(t, [0, 0], out2)", "pl.tile.store(pl.tile.transpose(x, 0, 1), [0, 0], out2)")
    with pytest.raises(ValueError, match=r"contains a tile.transpose that swaps the split axis"):
        emk(nested, run=False)  # not bound to a variable: no "(result ...)"


PURE_CUBE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        a_m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(pl.tile.move(a_m, target_memory=pl.Mem.Left), pl.tile.move(a_m, target_memory=pl.Mem.Right))
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_pure_cube_kernel_loses_its_split(backend_name: str):
    k = function(emk(PURE_CUBE, backend_name), "k")
    assert k.func_type is ir.FunctionType.AIC and "split" not in k.attrs
