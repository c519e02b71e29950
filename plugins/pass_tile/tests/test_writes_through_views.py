"""A write into a tensor view inside a kernel is a located error at ConvertTensorToTileOps
(docs/passes/convert_tensor_to_tile_ops.md, errors).

On the reference machine a tensor view (`pl.slice`, `pl.reshape`, `pl.tensor.view`, ...) shares its tensor's
memory, so `pl.assemble(view, y, ...)` changes the viewed tensor; in a kernel the view is a tile copied from its
window and the write would never reach it (the program would compute another result after the pass). The
pass rejects the write where it is written (pass_tile/writes_through_views.py); writing the tensor itself at
the window's offsets compiles and computes the same, and reading through a view stays fine.
"""

from __future__ import annotations

import pytest

from pypto_plugins.pass_tile.tests.helpers import BACKENDS, compiled, rejected

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"

VIEWS = {
    "slice": ("pl.slice(out, [32, 64], [0, 0])", "[32, 64]", "tensor.slice"),
    "reshape": ("pl.reshape(out, [32, 128])", "[32, 128]", "tensor.reshape"),
    "set_validshape": ("pl.tensor.set_validshape(out, 32, 64)", "[64, 64]", "tensor.set_validshape"),
    "view": ("pl.tensor.view(out, [32, 128])", "[32, 128]", "tensor.view"),
    "transpose": ("pl.tensor.transpose(out, 0, 1)", "[64, 64]", "tensor.transpose"),
}


def _program(view: str, shape: str, write: str) -> str:
    return HEAD + f'''    def main(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Tensor[{shape}, pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, x, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            v = {view}
            {write}
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", list(VIEWS))
def test_an_assemble_into_a_tensor_view_in_a_kernel_is_located(kind: str, backend: str):
    view, shape, op = VIEWS[kind]
    rejected(_program(view, shape, "w = pl.assemble(v, y, [0, 0])"), backend,
             rf"tensor.assemble writes into 'v', a view \({op}\) of 'out', in InCore function 'main_incore_1'; a "
             rf"kernel computes a tensor view as a copy of its window, so the write would not reach 'out'\. Write "
             rf"into 'out' itself at the window's offsets")


@pytest.mark.parametrize("write", [
    "t = pl.load(y, [0, 0], [32, 64])\n            w = pl.store(t, [0, 0], v)",
    "w = pl.tensor.write(v, [0, 0], 1.0)",
], ids=["store", "write"])
def test_any_write_the_registry_declares_into_a_view_is_located(write: str):
    view, shape, _ = VIEWS["slice"]
    rejected(_program(view, shape, write), "Ascend950", r"writes into 'v', a view \(tensor.slice\) of 'out'")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_write_into_the_tensor_at_the_windows_offset_compiles_and_computes_the_same(backend: str):
    compiled(_program("pl.slice(out, [32, 64], [0, 0])", "[32, 64]",
                      "out = pl.assemble(out, pl.add(y, v), [32, 0])"), backend)


@pytest.mark.parametrize("kind", list(VIEWS))
def test_reading_through_a_view_is_fine(kind: str):
    view, shape, _ = VIEWS[kind]
    view = view.replace("set_validshape(out, 32, 64)", "set_validshape(out, 64, 64)")  # read valid data only
    read = ("out = pl.assemble(out, pl.add(v, y), [32, 0])" if kind == "slice"
            else "out = pl.assemble(out, pl.reshape(pl.add(v, y), [64, 64]), [0, 0])")
    compiled(_program(view, shape, read), "Ascend950")
