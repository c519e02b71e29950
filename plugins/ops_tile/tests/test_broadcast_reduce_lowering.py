"""Tile forms of the tensor broadcasts / reductions (axis, keep_dim) and of batched tensor.matmul, and the
FlattenTileNdTo2D rule of tile.batch_matmul (the broadcasts, reductions and matmul families)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.errors import UserError
from pypto_plugins.ops_tile.families import flatten_rules as FLATTEN_RULES
from pypto_plugins.ops_tile.families import tile_forms as TILE_FORMS
from pypto_plugins.ops_tile.families.matmul import flatten_batch_matmul


def _lowered(body: str, params: str, out: str) -> str:
    """The program after the `tile` preset (ConvertTensorToTileOps ... FlattenTileNdTo2D), printed."""
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.manager import PassManager

    text = (f"import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def main(self, {params}, "
            f"out: pl.Out[{out}]) -> {out}:\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
            + "".join(f"            {line}\n" for line in body.strip().splitlines()) + "        return out\n")
    loaded = parse_config_text('backend = "Ascend910B"\n[pipeline]\npasses = ["tile"]\n', "<test>")
    resolved = resolve_config(loaded)
    program = PassManager(resolved.passes, backend=resolved.backend).run(pl.parse(text))
    return ir.python_print(program)


def test_the_family_overrides_the_base_tile_forms():
    for name in ("tensor.row_sum", "tensor.col_max", "tensor.row_prod", "tensor.col_argmin", "tensor.row_expand",
                 "tensor.col_expand_expdif", "tensor.matmul", "tensor.matmul_acc"):
        assert TILE_FORMS()[name].lower is not None or TILE_FORMS()[name].op == f"tile.{name[7:]}", name
    assert FLATTEN_RULES()["tile.batch_matmul"] is flatten_batch_matmul


def test_axis_0_of_a_row_reduction_is_the_column_op():
    text = _lowered("y = pl.tensor.row_sum(x, axis=0)\nout = pl.assemble(out, y, [0, 0])",
                    "x: pl.Tensor[[16, 64], pl.FP32]", "pl.Tensor[[1, 64], pl.FP32]")
    assert "pl.tile.col_sum(x__tile)" in text and "row_sum" not in text


def test_keep_dim_false_reshapes_the_tile_result():
    text = _lowered("y = pl.tensor.row_argmin(x, keep_dim=False)\nout = pl.assemble(out, y, [0])",
                    "x: pl.Tensor[[16, 64], pl.FP32]", "pl.Tensor[[16], pl.INT32]")
    assert "pl.tile.row_argmin(x__tile, tmp_tile)" in text and "pl.tile.reshape(reduced, [16])" in text


def test_col_arg_reductions_get_a_scratch_tile():
    text = _lowered("y = pl.col_argmax(x)\nout = pl.assemble(out, y, [0, 0])",
                    "x: pl.Tensor[[16, 64], pl.FP16]", "pl.Tensor[[1, 64], pl.INT32]")
    assert "tmp_tile: pl.Tile[[16, 64], pl.FP16" in text and "pl.tile.col_argmax(x__tile, tmp_tile)" in text


def test_a_middle_axis_has_no_tile_form():
    with pytest.raises(UserError, match=r"ConvertTensorToTileOps: cannot lower tensor.row_sum.*a reduction of axis 1 "
                                        r"of a 3-D tensor has no tile form"):
        _lowered("y = pl.tensor.row_sum(x, axis=1)\nout = pl.assemble(out, y, [0, 0, 0])",
                 "x: pl.Tensor[[2, 16, 64], pl.FP32]", "pl.Tensor[[2, 1, 64], pl.FP32]")


def test_batched_matmul_lowers_to_batch_matmul_then_one_matmul_and_store_per_batch():
    text = _lowered("c = pl.matmul(a, b)\nout = pl.assemble(out, c, [0, 0, 0])",
                    "a: pl.Tensor[[2, 16, 32], pl.FP32], b: pl.Tensor[[2, 32, 8], pl.FP32]",
                    "pl.Tensor[[2, 16, 8], pl.FP32]")
    # After FlattenTileNdTo2D: one tile.matmul of the row pages per batch element, stored into its window
    # (the dynamic-dims error and the other forms: plugins/pass_tile/tests/test_flatten_batched_products.py).
    assert "batch_matmul" not in text and text.count("pl.tile.matmul(") == 2
    assert "pl.tile.slice(a__ssa_v0_mat, [16, 32], [16, 0])" in text and "pl.tile.slice(b__ssa_v0_mat, [32, 8], [32, 0])" in text
    assert text.count("pl.tile.store(matmul_") == 2 and ", [1, 16, 8])" in text
