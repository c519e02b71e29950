"""A pl.aiv_shard of something that is not the kernel's cube result.

The shard hands the cube's accumulator to the AIV lanes (docs/passes/lower_auto_vector_split.md); its operand
must be where the registry says (pypto_core.analysis.affinity.boundary_operand_spaces: Acc). A shard of a tensor
computed outside the kernel (the matmul left in a `pl.at(level=pl.Level.AIC)` scope around the region, or a
parameter) or of a vector result is placed in Vec, and the AivSplitValid verifier would then fail after
InferTileMemorySpace, blaming the pass. Rule: the first pass that sees the operand's space reports it at the shard with the fix
(pass_tile/boundary_operands.py); the same shard of the kernel's own matmul compiles.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto_plugins.pass_tile.tests.helpers import BACKENDS, compiled, default_pipeline

PROGRAM = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.BF16], b: pl.Tensor[[32, 64], pl.BF16], t: pl.Tensor[[64, 64], pl.BF16],
             out: pl.Out[pl.Tensor[[64, 64], pl.BF16]]) -> pl.Tensor[[64, 64], pl.BF16]:
        with pl.at(level=pl.Level.LEVEL):
            c = VALUE
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                h = pl.aiv_shard(c)
                out = pl.assemble(out, pl.exp(h), [0, aiv * 32])
        return out
'''

# The parameter's entry load states Vec (PyPTO's form), so ConvertTensorToTileOps already sees the misplaced
# operand; a space left to inference is reported by InferTileMemorySpace.
_MESSAGE = (r"(?:InferTileMemorySpace|ConvertTensorToTileOps): InCore function '\w+': the operand 'c\w*' of tile.aiv_shard is in Vec, but "
            r"this boundary takes it in Acc; a shard hands the cube's result to the AIV lanes: shard the result "
            r"of a cube op \(pl.matmul\) computed in the same kernel")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("level", "value"), [
    ("AIC", "pl.matmul(a, b)"),  # the matmul stays outside the kernel the parser wraps around the region
    ("CORE_GROUP", "t"),  # a parameter
])
def test_a_shard_of_no_cube_result_is_located(level: str, value: str, backend: str) -> None:
    with pytest.raises(ValueError, match=_MESSAGE) as info:
        default_pipeline(backend).run(pl.parse(PROGRAM.replace("LEVEL", level).replace("VALUE", value)))
    assert "h = pl.aiv_shard(c)" in str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_shard_of_a_vector_result_is_located(backend: str) -> None:
    text = PROGRAM.replace("LEVEL", "CORE_GROUP").replace("VALUE", "t").replace(
        "h = pl.aiv_shard(c)", "h = pl.aiv_shard(pl.add(c, c))")
    # flatten_call_expr names the nested add (`t__tmp_v0`), ConvertTensorToTileOps its tile (`t__tile`)
    with pytest.raises(ValueError, match=_MESSAGE.replace("'c\\w*'", "'t__tile'").replace(
            "InferTileMemorySpace", "ConvertTensorToTileOps")):
        default_pipeline(backend).run(pl.parse(text))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_shard_of_the_kernels_own_matmul_compiles(backend: str) -> None:
    compiled(PROGRAM.replace("LEVEL", "CORE_GROUP").replace("VALUE", "pl.matmul(a, b)"), backend)
