"""Element-wise ops over partly valid operands: part_add, part_max, part_min, part_mul (pto-isa TPART*), on
tiles and tensors, and the top-level `pl.part_*` that dispatch on the first operand.

`tile.part_add(src0, src1)`: the op where both sources are valid, the valid one's value where only one is,
0 where neither is; the result (broadcast, promoted dtype) keeps src0's valid region, so the machine poisons
what lies outside it. The tensor forms carry no valid region; their tile form is the tile op of the same name.
Memory: both tile operands are read from Vec and the result is Vec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TensorType, Type
from pypto_core.ops.build import broadcast_shapes, promote_dtypes, require_tensor
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, OpDef
from pypto_plugins.ops_tile.common.dsl import dispatch_between, registered
from pypto_plugins.ops_tile.common.elementwise import Deducer, tile_binary_deducer
from pypto_plugins.ops_tile.common.tile_forms import same
from pypto_plugins.ops_tile.common.views import row_major, vec_op

family = OpFamily("partial", semantics="pypto_plugins.ops_tile.semantics.partial")

PART = ("part_add", "part_max", "part_min", "part_mul")
_SRCS = (ArgSpec("src0"), ArgSpec("src1"))
_DOC = "{0} of two tiles where both are valid; where only one is valid, that one's value (src0's valid region)."


def tensor_part_deducer(op: str) -> Deducer:
    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        a, b = require_tensor(op, args[0], "src0"), require_tensor(op, args[1], "src1")
        return TensorType(broadcast_shapes(a.shape, b.shape, op), promote_dtypes(a.dtype, b.dtype, op))

    return deduce


for _n in PART:
    _what = _n[5:].capitalize()
    family.op(vec_op(_n, tile_binary_deducer(f"tile.{_n}"), _SRCS, _DOC.format(_what), vec=(0, 1)), dsl=f"tile.{_n}")
    family.op(OpDef(f"tensor.{_n}", tensor_part_deducer(f"tensor.{_n}"), args=_SRCS,
                    doc=_DOC.format(_what).replace("tiles", "tensors")), dsl=f"tensor.{_n}")
    family.implement("tile_form", f"tensor.{_n}", same(f"tile.{_n}"))
    family.dsl_function(_n, dispatch_between(_n, registered(f"tile.{_n}"), registered(f"tensor.{_n}")))


# The row-major tiles the backend's instruction needs (ResolveBackendOpLayouts, docs/plugins.md, op interfaces).
for _row_major_op in ("part_add", "part_mul", "part_max", "part_min"):
    family.implement("row_major_layout", f"tile.{_row_major_op}", row_major())
