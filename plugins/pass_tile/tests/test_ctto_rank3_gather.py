"""A rank-3 `tensor.gather` (torch.gather) in a kernel: ConvertTensorToTileOps reshapes the operand to 2-D, builds
INT32 flat indices from a `tile.ci` ramp and reads them with one `tile.gather` (plugins/ops_tile/common/
gather_rank3.py). Checked against np.take_along_axis (an independent formula) through the whole default pipeline
on both backends, for every dim, with index extents smaller than the operand's where torch allows it."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.interp import Machine, run_program, shape_from_backend

from .ctto_forms import HEADER, body, prepared
from .helpers import BACKENDS


def _compiled(src: str, backend: str) -> object:
    """The default pipeline (verified, round-tripped; not check-run: its generated inputs index out of bounds)."""
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
    from pypto_core.passes.manager import PassManager

    resolved = resolve_config(parse_config_text(f'backend = "{backend}"\n[pipeline]\npreset = "default"\n', "<t>"))
    manager = PassManager(resolved.passes, backend=resolved.backend, instruments=[make_roundtrip_instrument()])
    return manager.run(pl.parse(src))

SOURCE = '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[XSHAPE, DTYPE], i: pl.Tensor[ISHAPE, pl.INT32]) -> pl.Tensor[ISHAPE, DTYPE]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.gather(x, DIM, i)
        return y
'''


def _source(xshape: list[int], ishape: list[int], dim: int, dtype: str = "pl.FP32") -> str:
    return (SOURCE.replace("XSHAPE", str(xshape)).replace("ISHAPE", str(ishape)).replace("DIM", str(dim))
            .replace("DTYPE", dtype))


CASES = [
    ([2, 4, 16], [2, 4, 8], 2),
    ([2, 4, 8], [2, 3, 8], 1),  # the index covers fewer rows than the operand has
    ([3, 4, 8], [2, 4, 8], 0),
    ([2, 5, 8], [2, 3, 8], -1),  # a negative dim counts from the end
    ([4, 2, 8], [3, 2, 8], -3),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("xshape", "ishape", "dim"), CASES)
def test_rank3_gather_is_take_along_axis(xshape: list[int], ishape: list[int], dim: int, backend: str) -> None:
    src = HEADER + _source(xshape, ishape, dim)
    after = _compiled(src, backend)
    rng = np.random.default_rng(7)
    x = rng.standard_normal(xshape).astype(np.float32)
    axis = dim % 3
    i = rng.integers(0, xshape[axis], size=ishape).astype(np.int32)
    entry = next(iter(Machine(pl.parse(src)).roots()))
    got = run_program(after, {"x": x, "i": i}, entry.name, shape_from_backend(backend))["return"]
    as_written = run_program(pl.parse(src), {"x": x, "i": i}, entry.name)["return"]
    part = x[tuple(slice(0, n) if a != axis else slice(None) for a, n in enumerate(ishape))]
    want = np.take_along_axis(part, i, axis=axis)
    np.testing.assert_array_equal(np.asarray(as_written), want)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_the_dim_2_form_is_one_flat_index_gather() -> None:
    after = passes.convert_tensor_to_tile_ops()(prepared(_source([2, 4, 16], [2, 4, 8], 2)))
    text = body(after)
    assert "gather_lin: pl.Tile[[1, 64], pl.INT32, pl.Mem.Vec] = pl.tile.ci(pl.const(0, pl.INT32), [1, 64]" in text
    assert text.count("pl.tile.gather(gather_inp, gather_flat_idx, gather_tmp)") == 1, text
    assert "y__tile: pl.Tile[[2, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(gather, [2, 4, 8])" in text, text


@pytest.mark.parametrize("dim", [0, 1])
def test_dims_0_and_1_need_a_32_bit_element(dim: int) -> None:
    with pytest.raises(ValueError, match=rf"rank-3 gather on dim {dim} uses an INT32 flat index and needs FP32 or "
                                         rf"INT32 input, got FP16"):
        passes.convert_tensor_to_tile_ops()(prepared(_source([2, 4, 8], [2, 4, 8], dim, "pl.FP16")))
