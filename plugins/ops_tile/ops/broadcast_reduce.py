"""OpDefs PyPTO adds to the broadcast and reduction families (issue 14; OPS.md "Broadcast (row/col
expand)" and "Reduction" of tile and tensor).

Tile ops (Vec in, Vec out): `tile.row_expand(target, row_vec)` / `tile.col_expand(target, col_tile)`
broadcast the vector to target's shape (target only gives the shape and view);
`tile.row_expand_{max,min,expdif}(tile, row_vec)` / `tile.col_expand_{max,min,expdif}(target, col_tile)`;
`tile.row_prod(tile, tmp_tile)`, `tile.row_argmin(tile, tmp_tile)` (INT32, tmp exactly the operand's
shape), `tile.col_prod(tile)`, `tile.col_argmax/col_argmin(tile, tmp_tile)` (INT32, tmp required).
Tensor ops: the same names with tensor operands; reductions take `axis` / `keep_dim` like row_sum.

Choices where OPS.md is silent: `*_expand_expdif` computes exp(x - v) (pto-isa TROWEXPANDEXPDIF /
TCOLEXPANDEXPDIF: the exponent of the difference, softmax's shifted exponent); arg-reductions return the
first index of the extreme on ties (numpy and pto-isa TROWARGMAX scan order); products of low-precision
floats accumulate in FP32. The col_arg* tmp has no shape rule (OPS.md gives none): it is Scratch.
"""

from __future__ import annotations

from pypto_core.ir.dtypes import DataType
from pypto_core.ops.opdef import ArgSpec, LaneCategory, OpDef, OpTraits
from pypto_plugins.ops_tile.ops import tensor_compute as tc
from pypto_plugins.ops_tile.ops import tile_reduce as red

# Broadcasts of a per-row / per-column vector, by op suffix ("" = the plain broadcast).
EXPAND_NEW = ("", "max", "min", "expdif")
_EXPAND_DOC = {"": "{v}", "max": "max({x}, {v})", "min": "min({x}, {v})", "expdif": "exp({x} - {v})"}


def expand_name(d: str, n: str) -> str:
    return f"{d}_expand_{n}" if n else f"{d}_expand"


def _tile_expand(d: str, n: str) -> OpDef:
    name = expand_name(d, n)
    x, v = ("tile[i, j]", "row_vec[i, 0]") if d == "row" else ("target[i, j]", "col_tile[0, j]")
    args = (ArgSpec("target" if d == "col" or not n else "tile"), ArgSpec("row_vec" if d == "row" else "col_tile"))
    what = "broadcast to the target's shape" if not n else "promoted dtype"
    return red._op(name, red.expand_deducer(f"tile.{name}", 0 if d == "row" else 1), args,
                   f"{_EXPAND_DOC[n].format(x=x, v=v)} ({what}).")


def _tensor_expand(d: str, n: str) -> OpDef:
    name = expand_name(d, n)
    x, v = ("tensor[..., i, j]", "row_vec[..., i, 0]") if d == "row" else ("tensor[..., i, j]", "col_vec[..., 0, j]")
    first = "target" if d == "row" and not n else "tensor"  # OPS.md: tensor.row_expand(target, ...)
    return OpDef(f"tensor.{name}", tc.expand_deducer(f"tensor.{name}", 0 if d == "row" else 1),
                 args=(ArgSpec(first), ArgSpec("row_vec" if d == "row" else "col_vec")),
                 doc=f"{_EXPAND_DOC[n].format(x=x, v=v)} (promoted dtype{'; the target gives the shape' if not n else ''}).")


_ARG_DOC = "INT32 index of the {m} of each {line} over its valid {cells}, the first on ties -> {shape}."

TILE_OPDEFS = [
    *[_tile_expand(d, n) for d in ("row", "col") for n in EXPAND_NEW],
    red.row_reduce_op("row_prod"),
    red._op("row_argmin", red.reduce_deducer("tile.row_argmin", -1, exact_tmp=True, dtype=DataType.INT32),
            (ArgSpec("tile"), ArgSpec("tmp_tile")),
            _ARG_DOC.format(m="minimum", line="row", cells="columns", shape="[..., 1]") +
            " tmp_tile: exactly the operand's shape.", traits=OpTraits(reduction_axes=(1,))),
    red.col_reduce_op("col_prod", tmp=False),
    *[red._op(f"col_{k}", red.reduce_deducer(f"tile.col_{k}", 0, dtype=DataType.INT32),
              (ArgSpec("tile"), ArgSpec("tmp_tile")),
              _ARG_DOC.format(m=m, line="column", cells="rows", shape="[1, ...]") + " tmp_tile: scratch.",
              lane_invariant={1: LaneCategory.SCRATCH}, traits=OpTraits(reduction_axes=(0,)))
      for k, m in (("argmax", "maximum"), ("argmin", "minimum"))],
]

TENSOR_OPDEFS = [
    *[_tensor_expand(d, n) for d in ("row", "col") for n in EXPAND_NEW],
    tc.row_reduce_op("row_prod"),
    tc.row_reduce_op("row_argmin", DataType.INT32,
                     doc="INT32 index of the minimum along `axis` (default -1), the first on ties."),
    tc.col_reduce_op("col_prod"),
    tc.col_reduce_op("col_argmax", DataType.INT32,
                     doc="INT32 index of the maximum along `axis` (default -2), the first on ties."),
    tc.col_reduce_op("col_argmin", DataType.INT32,
                     doc="INT32 index of the minimum along `axis` (default -2), the first on ties."),
]

OPDEFS: list[OpDef] = [*TILE_OPDEFS, *TENSOR_OPDEFS]
