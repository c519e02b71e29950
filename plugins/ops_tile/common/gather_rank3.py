"""The tile form of a rank-3 `tensor.gather` (torch.gather along dim 0, 1 or 2; docs/passes/convert_tensor_to_tile_ops.md,
conversion table, and docs/reference/ops.md).

The operand is reshaped to 2-D `[S0*S1, S2]` and read by one flat-index `tile.gather`; the flat index of the
result element (a, b, c) (index shape [I0, I1, K], computed on the index reshaped to [I0*I1, K], row r = a*I1 + b)
comes from a `tile.ci` ramp over the result:

* dim 2: ((a*S1 + b) * S2) + idx
* dim 1: ((a*S1 + idx) * S2) + c
* dim 0: ((idx*S1 + b) * S2) + c

and the result is reshaped back to [I0, I1, K]. This is PyPTO's Ascend950 form for dim 2 (one whole-tile gather)
used for every dim on both backends: PyPTO's 910B row loops compute the same values. Dims 0 and 1 need a 32-bit
element (FP32 / INT32), as PyPTO's: the flat index is INT32 and the gather moves 32-bit words.
"""

from __future__ import annotations

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ops.build import static_int
from pypto_core.ops.tile_form import TileLowering
from pypto_plugins.ops_tile.common.tile_forms import bound, const_dims, scratch, tile_type

_I32 = DataType.INT32


def _static(op: str, shape: object) -> list[int]:
    dims = [static_int(d) for d in shape]  # type: ignore[attr-defined]
    if len(dims) != 3 or any(d is None for d in dims):
        raise ValueError(f"{op}: a rank-3 gather needs static dims, got {list(shape)}")  # type: ignore[call-overload]
    return dims  # type: ignore[return-value]


def lower_rank3_gather(ctx: TileLowering, call: Call, src: Expr, index: Expr, axis: int) -> Expr:
    op = call.op.name
    s0, s1, s2 = _static(op, tile_type(src).shape)
    i0, i1, k = _static(op, tile_type(index).shape)
    dtype = tile_type(src).dtype
    if axis in (0, 1) and dtype not in (DataType.FP32, DataType.INT32):
        raise ValueError(f"tensor.gather: rank-3 gather on dim {axis} uses an INT32 flat index and needs FP32 or "
                         f"INT32 input, got {dtype.name}; cast the input to FP32 / INT32 first, or gather along dim 2")
    rows = i0 * i1

    def c(v: int) -> ConstInt:
        return ConstInt(v, _I32)

    def step(name: str, args: list[Expr], hint: str) -> Expr:
        return bound(ctx, name, args, None, hint)

    flat_src = bound(ctx, "tile.reshape", [src, const_dims(s0 * s1, s2)], None, "gather_inp")
    if tile_type(index).dtype is not _I32:
        index = bound(ctx, "tile.cast", [index], {"target_type": _I32}, "gather_idx32")
    idx = bound(ctx, "tile.reshape", [index, const_dims(rows, k)], None, "gather_idx")
    lin = bound(ctx, "tile.ci", [c(0), const_dims(1, rows * k)], {"dtype": _I32, "descending": False}, "gather_lin")
    lin = bound(ctx, "tile.reshape", [lin, const_dims(rows, k)], None, "gather_lin2d")
    row = step("tile.divs", [lin, c(k)], "gather_row_ids")
    col = step("tile.rems", [lin, c(k)], "gather_col_ids")
    a = step("tile.divs", [row, c(i1)], "gather_a")
    b = step("tile.rems", [row, c(i1)], "gather_b")
    if axis == 2:  # ((a*S1 + b) * S2) + idx
        outer = step("tile.add", [step("tile.muls", [a, c(s1)], "gather_a_s1"), b], "gather_ab")
        flat = step("tile.add", [step("tile.muls", [outer, c(s2)], "gather_row_base"), idx], "gather_flat_idx")
    elif axis == 1:  # ((a*S1 + idx) * S2) + c
        outer = step("tile.add", [step("tile.muls", [a, c(s1)], "gather_a_s1"), idx], "gather_ab")
        flat = step("tile.add", [step("tile.muls", [outer, c(s2)], "gather_row_base"), col], "gather_flat_idx")
    else:  # ((idx*S1 + b) * S2) + c
        outer = step("tile.add", [step("tile.muls", [idx, c(s1)], "gather_idx_s1"), b], "gather_ab")
        flat = step("tile.add", [step("tile.muls", [outer, c(s2)], "gather_row_base"), col], "gather_flat_idx")
    tmp = scratch(ctx, [ConstInt(rows), ConstInt(k)], _I32, "gather_tmp")
    gathered = bound(ctx, "tile.gather", [flat_src, flat, tmp], None, "gather")
    return ctx.call("tile.reshape", [gathered, const_dims(i0, i1, k)])
