"""The op-name sets several families are built from: each family registers `tile.<name>` (and its
`tensor.<name>` where PyPTO's tensor set has one) for the names here.

The element-wise sets: BINARY tile ops take two tiles (numpy broadcasting), SCALAR ones a tile and a
scalar, UNARY ones one tile. The tile-scalar max / min are PyPTO's `tile.maximums` / `minimums`.
PyPTO's tensor set differs (TENSOR): `tensor.maximum` / `minimum` take a tensor or a scalar right-hand
side (there is no tensor.maximums / minimums), and rem(s) and relu are tile ops only.
"""

from __future__ import annotations

from typing import NamedTuple

BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "rem", "pow", "and", "or", "xor", "shl", "shr")
SCALAR = ("adds", "subs", "muls", "divs", "maximums", "minimums", "rems", "ands", "ors", "xors", "shls", "shrs")
UNARY = ("exp", "neg", "abs", "sqrt", "relu", "floor", "ceil", "sin", "cos", "tanh", "sigmoid", "square", "not")
# PyPTO passes these a scratch tile `tmp` (optional here, so two-operand calls stay valid).
WITH_TMP = ("rem", "xor")
# Bitwise ops need integer (or BOOL) elements.
INTEGER_ONLY = ("and", "or", "xor", "shl", "shr", "not")


class TensorNames(NamedTuple):
    """PyPTO's tensor element-wise set."""

    BINARY: tuple[str, ...]
    SCALAR: tuple[str, ...]
    UNARY: tuple[str, ...]
    SCALAR_RHS: tuple[str, ...]


TENSOR = TensorNames(
    BINARY=tuple(n for n in BINARY if n != "rem"),  # tensor.fmod is the tensor remainder
    SCALAR=tuple(n for n in SCALAR if n not in ("maximums", "minimums", "rems")),
    UNARY=(*(n for n in UNARY if n != "relu"), "recip", "rsqrt"),  # log is its own (FP16 / FP32 only)
    SCALAR_RHS=("maximum", "minimum"),  # rhs a tensor or a scalar
)


def is_bitwise(op: str) -> bool:
    """`tile.and`, `tensor.shrs`, ...: ops whose operands must hold integers."""
    name = op.rpartition(".")[2]
    return name in INTEGER_ONLY or (name.endswith("s") and name[:-1] in INTEGER_ONLY)


# Row / column reductions (row_*: each row -> [..., 1]; col_*: each column) and broadcasts (row_expand_*:
# one value per row, col_expand_*: one per column) with PyPTO's element-wise ops.
ROW = ("row_sum", "row_max", "row_min")
COL = ("col_sum", "col_max", "col_min")
EXPAND = ("add", "sub", "mul", "div")
