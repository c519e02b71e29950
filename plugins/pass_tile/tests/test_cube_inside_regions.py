"""Cube work written inside a pl.split_aiv region is a located error at ConvertTensorToTileOps
(docs/passes/convert_tensor_to_tile_ops.md, errors).

A tensor `pl.matmul` inside a region (after a `pl.aic_gather`, say) is cube work once it is lowered; the region's
body is AIV work, so the pass rejects it where it is written, naming the fix, instead of the AivSplitValid
verifier failing after the pass and blaming it (pass_tile/cube_inside_regions.py). The same computation with the
matmul after the region compiles and computes what the program as written does.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.testing import same_results
from pypto_plugins.pass_tile.tests.helpers import BACKENDS, compiled, rejected

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
_FIX = (r"a region's body is AIV work.*Move it out of the region: gather the region's vector result with "
        r"pl.aic_gather and multiply after the region, or multiply before it and hand the result in with "
        r"pl.aiv_shard")


def _gather_then_matmul(mode: str, inside: bool, op: str = "pl.matmul(full, b)") -> str:
    slicing = ("pl.slice(a, [8, 32], [aiv * 8, 0])" if mode == "UP_DOWN"
               else "pl.slice(a, [16, 16], [0, aiv * 16])" if mode == "LEFT_RIGHT" else "pl.slice(a, [16, 32], [0, 0])")
    indent = "                " if inside else "            "
    return HEAD + f'''    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.{mode}):
                e = pl.exp({slicing})
                full = pl.aic_gather(e)
{indent}c = {op}
            out = pl.assemble(out, c, [0, 0])
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["UP_DOWN", "LEFT_RIGHT"])
def test_a_matmul_inside_the_region_after_its_gather_is_located(mode: str, backend: str) -> None:
    src = _gather_then_matmul(mode, inside=True)
    rejected(src, backend, rf"^ConvertTensorToTileOps: the op written here is cube work \(tile.matmul\) inside a "
                           rf"pl.split_aiv region of InCore function 'main_incore_0'; {_FIX}")
    with pytest.raises(ValueError) as info:
        passes.convert_tensor_to_tile_ops()(passes.outline_incore_scopes()(passes.convert_to_ssa()(
            pl.parse(src, "k.py"))))
    assert f"(under {mode} each lane holds half of each tile)" in str(info.value)
    assert "--> k.py:12:" in str(info.value), str(info.value)


def test_a_matmul_inside_a_none_mode_region_is_located_too() -> None:
    src = HEAD + '''    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                c = pl.matmul(pl.exp(a), b)
            out = pl.assemble(out, c, [0, 0])
        return out
'''
    with pytest.raises(ValueError) as info:
        passes.convert_tensor_to_tile_ops()(passes.outline_incore_scopes()(passes.convert_to_ssa()(
            pl.parse(src, "k.py"))))
    message = str(info.value)
    assert "cube work (tile.matmul) inside a pl.split_aiv region" in message and "under" not in message
    assert "--> k.py:10:" in message, message


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["UP_DOWN", "LEFT_RIGHT"])
def test_the_matmul_after_the_region_compiles_and_computes_the_same(mode: str, backend: str) -> None:
    src = _gather_then_matmul(mode, inside=False)
    after = compiled(src, backend)
    same_results(pl.parse(src), after)
