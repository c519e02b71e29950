"""Ragged windows through the default pipeline (the program generator writes `valid_shape=`).

A window whose valid region is narrower than its box (a static extent, or a scalar read at run time), element-
wise work on it and an assemble / store of the result: in a plain scope, in a scope split UP_DOWN / LEFT_RIGHT
(LowerAutoVectorSplit halves the valid extent per lane), in a pl.split_aiv region's per-lane window, and in an
InCore function's tile load. Only the valid region is written (tensor.assemble and tile.store write the valid region of
the value they store), so an Out written before keeps the rest. A tensor binary op keeps the valid region its
operands share when both have the same shape and provably the same valid region; dropping it, the
tensor-level program would write the whole sum and ConvertTensorToTileOps would change what it computes.
"""

from __future__ import annotations

import pytest

from .emk_helpers import BACKENDS
from .pipeline_checks import compile_and_compare

HEADER = "import pypto.language as pl\n\n@pl.program\nclass P:\n"

SCOPE = HEADER + '''\
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.neg(x), [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP OPTIONS):
            rag = pl.slice(x, [32, 64], [0, 0], valid_shape=[VALID])
            out = pl.assemble(out, CHAIN, [0, 0])
        return out
'''

CHAINS = ("pl.add(rag, rag)", "pl.mul(pl.exp(pl.neg(pl.abs(rag))), rag)", "pl.maximum(pl.add(rag, 2.0), rag)")
VALIDS = ("32, 33", "17, 64", "1, 64", "n, 64", "32, n")
OPTIONS = ("", ", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]", ", optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("options", OPTIONS, ids=("plain", "up_down", "left_right"))
@pytest.mark.parametrize("valid", VALIDS)
def test_a_ragged_window_writes_its_valid_region_only(valid: str, options: str, backend: str) -> None:
    for chain in CHAINS:
        text = SCOPE.replace("OPTIONS", options).replace("VALID", valid).replace("CHAIN", chain)
        compile_and_compare(text, backend)


REGION = HEADER + '''\
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP16], out: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.MODE):
                s = pl.slice(x, WINDOW, OFFSET, valid_shape=VALID)
                out = pl.assemble(out, pl.sqrt(pl.abs(pl.add(s, s))), OFFSET)
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("mode", "window", "offset", "valid"), [
    ("UP_DOWN", "[32, 64]", "[aiv * 32, 0]", "[15, 64]"),
    ("UP_DOWN", "[32, 64]", "[aiv * 32, 0]", "[32, 3]"),
    ("LEFT_RIGHT", "[64, 32]", "[0, aiv * 32]", "[64, 31]"),
    ("LEFT_RIGHT", "[64, 32]", "[0, aiv * 32]", "[1, 32]"),
])
def test_each_lane_window_of_a_region_may_be_ragged(mode: str, window: str, offset: str, valid: str,
                                                    backend: str) -> None:
    text = (REGION.replace("MODE", mode).replace("WINDOW", window).replace("OFFSET", offset)
            .replace("VALID", valid))
    compile_and_compare(text, backend)


INCORE = HEADER + '''\
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.BF16]]) -> pl.Tensor[[32, 64], pl.BF16]:
        t = pl.load(a, [0, 0], [32, 64], VALID)
        res = pl.tile.add(pl.tile.exp(pl.tile.neg(pl.tile.abs(t))), t)
        out = pl.store(res, [0, 0], out)
        return out

    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.BF16], out: pl.Out[pl.Tensor[[32, 64], pl.BF16]]) -> pl.Tensor[[32, 64], pl.BF16]:
        out = self.kern(a, out)
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("valid", ["[31, 64]", "[32, 1]", "[16, 33]"])
def test_an_incore_load_may_be_ragged(valid: str, backend: str) -> None:
    compile_and_compare(INCORE.replace("VALID", valid), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("valid", ["32, 0", "0, 64"])
def test_an_assemble_of_an_empty_valid_region_is_located(valid: str, backend: str) -> None:
    # A static valid extent of 0 would reach the tile.store the assemble becomes, which the machine (like the
    # hardware's TSTORE) refuses; ConvertTensorToTileOps reports it at the assemble.
    text = SCOPE.replace("OPTIONS", "").replace("VALID", valid).replace("CHAIN", "pl.add(rag, rag)")
    with pytest.raises(ValueError, match=r"tensor.assemble: the value written here has an empty valid region "
                                         r"\(a valid extent of 0 on axis \d\)") as info:
        compile_and_compare(text, backend)
    assert "--> fuzz_regression.py:11:" in str(info.value)
