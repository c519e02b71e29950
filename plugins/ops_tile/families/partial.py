"""Element-wise ops over partly valid operands: part_add, part_max, part_min, part_mul (pto-isa TPART*), on
tiles and tensors, and the top-level `pl.part_*` that dispatch on the first operand.

`tile.part_add(src0, src1)`: the op where both sources are valid, the valid one's value where only one is,
0 where neither is; the result (broadcast, promoted dtype) keeps src0's valid region, so the machine poisons
what lies outside it. The tensor forms carry no valid region; their tile form is the tile op of the same name.
Memory: both tile operands are read from Vec and the result is Vec.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TensorType, Type
from pypto_core.ops.build import broadcast_shapes, promote_dtypes, require_tensor
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, OpDef
from pypto_plugins.ops_tile.common.dsl import dispatch_between, registered
from pypto_plugins.ops_tile.common.elementwise import Deducer, tile_binary_deducer
from pypto_plugins.ops_tile.common.semantics import Evaluate, finish, result_np_dtype, wide
from pypto_plugins.ops_tile.common.tile_forms import same
from pypto_plugins.ops_tile.common.views import row_major, vec_op

family = OpFamily("partial")

PART: dict[str, Callable[[Any, Any], Any]] = {
    "part_add": np.add, "part_max": np.maximum, "part_min": np.minimum, "part_mul": np.multiply,
}
_SRCS = (ArgSpec("src0"), ArgSpec("src1"))
_DOC = "{0} of two tiles where both are valid; where only one is valid, that one's value (src0's valid region)."


def tensor_part_deducer(op: str) -> Deducer:
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        a, b = require_tensor(op, args[0], "src0"), require_tensor(op, args[1], "src1")
        return TensorType(broadcast_shapes(a.shape, b.shape, op), promote_dtypes(a.dtype, b.dtype, op))

    return deduce


def _valid_mask(ctx: Any, t: Any, shape: tuple[int, ...], out_shape: tuple[int, ...]) -> np.ndarray:
    """True inside an operand's valid region, broadcast to the result's shape."""
    valid = ctx.valid_shape(t)
    mask = np.zeros(shape, dtype=bool)
    mask[tuple(slice(0, v) for v in valid)] = True
    return np.broadcast_to(mask.reshape((1,) * (len(out_shape) - len(shape)) + shape), out_shape)


def partial(fn: Callable[[Any, Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        a, b = np.asarray(wide(args[0])), np.asarray(wide(args[1]))
        out_shape = ctx.shape(call.type)
        va = _valid_mask(ctx, call.args[0].type, a.shape, out_shape)
        vb = _valid_mask(ctx, call.args[1].type, b.shape, out_shape)
        a_b, b_b = np.broadcast_to(a, out_shape), np.broadcast_to(b, out_shape)
        with np.errstate(all="ignore"):  # poison outside the valid regions may overflow; it is not kept
            both = fn(a_b, b_b)
        out = np.where(va & vb, both, np.where(va, a_b, np.where(vb, b_b, 0)))
        return finish(out, result_np_dtype(call))

    return evaluate


for _n, _fn in PART.items():
    _what = _n[5:].capitalize()
    family.op(vec_op(_n, tile_binary_deducer(f"tile.{_n}"), _SRCS, _DOC.format(_what), vec=(0, 1)), dsl=f"tile.{_n}")
    family.op(OpDef(f"tensor.{_n}", tensor_part_deducer(f"tensor.{_n}"), args=_SRCS,
                    doc=_DOC.format(_what).replace("tiles", "tensors")), dsl=f"tensor.{_n}")
    family.semantics_of(f"tile.{_n}", partial(_fn))
    family.semantics_of(f"tensor.{_n}", partial(_fn))
    family.implement("tile_form", f"tensor.{_n}", same(f"tile.{_n}"))
    family.dsl_function(_n, dispatch_between(_n, registered(f"tile.{_n}"), registered(f"tensor.{_n}")))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
for _row_major_op in ("part_add", "part_mul", "part_max", "part_min"):
    family.implement("row_major_layout", f"tile.{_row_major_op}", row_major())
