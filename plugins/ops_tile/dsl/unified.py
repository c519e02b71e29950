"""Top-level `pl.<op>` names (docs/reference/ops.md): dispatch on the operand kinds to the tile.* / tensor.* form.

A Tensor and a Tile in one call is an error ("cannot mix Tensor and Tile arguments"); two scalars
in `pl.add` & co. build a scalar expression. Tile-only names reject a tensor with a hint to load it.
`pl.maxs` / `pl.mins` / `pl.cmps` / `pl.relu` / `pl.rem(s)` of a tensor build PyPTO's tensor ops
(dsl/tensor.py); `pl.sel` / `pl.sels` of a tensor are errors that say to load tiles.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import scalar_ops
from pypto_core.ir.expr import Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import operand_kind, reject_tensor_tile_mix, to_expr
from pypto_plugins.ops_tile.dsl import cross_core, system
from pypto_plugins.ops_tile.dsl.common import Builder, dsl_entry, dsl_name, tile_only
from pypto_plugins.ops_tile.dsl.tensor import TENSOR
from pypto_plugins.ops_tile.dsl.tile_compute import TILE as TILE_COMPUTE
from pypto_plugins.ops_tile.dsl.tile_memory import TILE as TILE_MEMORY
from pypto_plugins.ops_tile.dsl.tile_views import TILE as TILE_VIEWS
from pypto_plugins.ops_tile.ops import tensor_compute as tc
from pypto_plugins.ops_tile.ops import tensor_elementwise as ew
from pypto_plugins.ops_tile.ops import tile_elementwise as tile_ew

TILE_FNS = {**TILE_MEMORY, **TILE_COMPUTE, **TILE_VIEWS}


def dispatch(name: str) -> Builder:
    """`pl.<name>(x, ...)`: `tile.<name>` for a tile x, `tensor.<name>` for a tensor x."""
    return dispatch_between(name, TILE_FNS[name], TENSOR[name])


def dispatch_between(name: str, tile_fn: Builder, tensor_fn: Builder, mixed: bool = False) -> Builder:
    """`pl.<name>(x, ...)`: `tile_fn` for a tile x, `tensor_fn` for a tensor x. `mixed`: the op itself takes
    tiles and tensors together (gather_row's dst and GM source), so operands are not checked for a mix."""

    def build(x: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Any:
        if not mixed:
            reject_tensor_tile_mix(x, *args, *kwargs.values())
        kind = operand_kind(x)
        if kind == "Tile":
            return tile_fn(x, *args, span=span, **kwargs)
        if kind == "Tensor":
            return tensor_fn(x, *args, span=span, **kwargs)
        raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")

    build.__name__ = name
    return build


# Two scalars build a scalar expression (docs/dsl.md promotion rules).
SCALAR_FORMS = {"add": scalar_ops.add, "sub": scalar_ops.sub, "mul": scalar_ops.mul, "div": scalar_ops.truediv,
                "maximum": scalar_ops.max_, "minimum": scalar_ops.min_, "rem": scalar_ops.mod, "pow": scalar_ops.pow,
                "and_": scalar_ops.bit_and, "or_": scalar_ops.bit_or, "xor": scalar_ops.bit_xor,
                "shl": scalar_ops.bit_shift_left, "shr": scalar_ops.bit_shift_right}


def _unchecked(fn: Builder) -> Builder:
    """What a `dsl_entry` wrapper wraps. The wrapper only explains calls that do not fit the signature;
    a call this module makes always fits, so it goes straight to the builder (the parser's hot path)."""
    return getattr(fn, "dsl_target", fn)


def binary(name: str) -> Builder:
    """`pl.add(a, b)`: tensor / tile (tile.adds for a scalar rhs) / two scalars -> a scalar expression."""
    on_tiles, on_tensors = _unchecked(TILE_FNS[name]), _unchecked(TENSOR[name])
    on_scalars = SCALAR_FORMS[name]

    def build(lhs: Any, rhs: Any, tmp: Any = None, span: Span | None = None) -> Expr:
        kl, kr = operand_kind(lhs), operand_kind(rhs)
        if kl != kr:
            reject_tensor_tile_mix(lhs, rhs)
        if tmp is not None and (name not in tile_ew.WITH_TMP or kl != "Tile"):
            raise TypeError(f"pl.{name} takes a tmp tile only for tiles (pl.rem / pl.xor), got one with {kl} operands")
        if kl == "Tensor":
            return on_tensors(lhs, rhs, span=span)
        if kl == "Tile":
            return on_tiles(lhs, rhs, span=span) if tmp is None else on_tiles(lhs, rhs, tmp, span=span)
        if kl == "Scalar" and kr == "Scalar":
            return on_scalars(to_expr(lhs, span), to_expr(rhs, span), span)
        if kr in ("Tensor", "Tile"):
            raise TypeError(f"the {kr.lower()} must be the first operand (pl.{name}(x, scalar))")
        raise TypeError(f"unsupported operands ({kl}, {kr})")

    build.__name__ = name
    return dsl_entry(build)


@dsl_entry
def div(lhs: Any, rhs: Any, high_precision: Any = False, span: Span | None = None) -> Expr:
    """`pl.div(a, b, high_precision=False)` (OPS.md): binary dispatch plus the tensor / tile kwarg."""
    if not high_precision:
        return _DIV(lhs, rhs, span=span)
    reject_tensor_tile_mix(lhs, rhs)
    kind = operand_kind(lhs)
    if kind in ("Tensor", "Tile"):
        return (TENSOR if kind == "Tensor" else TILE_FNS)["div"](lhs, rhs, high_precision, span=span)
    raise TypeError(f"high_precision applies to a tensor or tile division, got {kind} operands")


@dsl_entry
def rsqrt(input: Any, high_precision: Any = False, span: Span | None = None) -> Expr:
    """`pl.rsqrt(input, high_precision=False)` (OPS.md). A tile's rsqrt has no such kwarg (PyPTO's tile.rsqrt
    takes an optional tmp instead): on a tile a Tile second operand is that tmp and the flag is dropped."""
    reject_tensor_tile_mix(input, high_precision)
    kind = operand_kind(input)
    if kind == "Tile":
        tmp = high_precision if operand_kind(high_precision) == "Tile" else None
        return TILE_FNS["rsqrt"](input, tmp, span=span)
    if kind == "Tensor":
        return TENSOR["rsqrt"](input, high_precision, span=span)
    raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")


@dsl_entry
def matmul(a: Expr, b: Expr, out_dtype: Any = None, a_trans: Any = False, b_trans: Any = False,
           c_matrix_nz: Any = False, span: Span | None = None) -> Expr:
    reject_tensor_tile_mix(a, b)
    if operand_kind(a) == "Tile":
        if out_dtype is not None or a_trans or b_trans or c_matrix_nz:
            raise TypeError("a tile matmul (Left x Right -> Acc) takes no out_dtype / a_trans / b_trans / "
                            "c_matrix_nz; transpose the operands when moving them to Left / Right")
        return TILE_FNS["matmul"](a, b, span=span)
    return TENSOR["matmul"](a, b, out_dtype, a_trans, b_trans, c_matrix_nz, span=span)


_DIV = _unchecked(binary("div"))


def reduction_with_tmp(name: str) -> Builder:
    """`pl.row_sum(x, tmp)`: tiles need hardware scratch, tensors do not."""

    def build(x: Expr, tmp: Expr | None = None, span: Span | None = None) -> Expr:
        reject_tensor_tile_mix(x, tmp)
        if operand_kind(x) == "Tile":
            if tmp is None and name.startswith("row_"):
                raise TypeError(f"a tile {name} needs a tmp tile of the operand's shape, e.g. "
                                f"pl.tile.create(<shape>, dtype=<dtype>, target_memory=pl.Mem.Vec)")
            return TILE_FNS[name](x, tmp, span=span) if tmp is not None else TILE_FNS[name](x, span=span)
        if operand_kind(x) == "Tensor":
            if tmp is not None:
                raise TypeError(f"a tensor {name} takes no tmp")
            return TENSOR[name](x, span=span)
        raise TypeError(f"expects a tensor or a tile, got {operand_kind(x)}")

    build.__name__ = name
    return dsl_entry(build)


# Same name and operand order in both namespaces (the tensor side of maxs / mins / cmps / relu / rems / sel /
# sels is an alias or an error, dsl/tensor.py).
_DISPATCHED = (*ew.SCALAR, *map(dsl_name, ew.UNARY), "maxs", "mins", "maximums", "minimums", "rems", "relu", "log",
               "cast", "cmp", "cmps", "sel", "sels", "row_argmax", "slice",
               "reshape", "transpose", "reinterpret_view", "assemble", "read", "write", "matmul_acc",
               *[f"{d}_expand_{n}" for d in ("row", "col") for n in tc.EXPAND])
_TILE_ONLY = ("store", "move", "extract", "gather", "gatherb", "scatter", "scatter_update", "gather_compare",
              "gather_row", "transpose_view", "set_validshape", "matmul_bias", "gemv", "gemv_acc", "gemv_bias",
              "batch_matmul")

UNIFIED: dict[str, Builder] = {
    **{dsl_name(n): binary(dsl_name(n)) for n in tile_ew.BINARY},
    **{n: dispatch(n) for n in _DISPATCHED},
    "div": div, "rsqrt": rsqrt,
    "matmul": matmul,
    **{n: reduction_with_tmp(n) for n in (*tc.ROW, *tc.COL)},
    "load": TILE_FNS["load"],  # its first operand is the source tensor
    "create_tensor": TENSOR["create"],
    "full": TENSOR["full"],  # pl.full is tensor-level; pl.tile.full for tiles (docs/reference/ops.md)
    "dim": TENSOR["dim"],
    "expand_clone": TENSOR["expand_clone"],  # tensor-only (OPS.md)
    **system.PIPE_SETUP,
    **cross_core.TRANSPORT,
    "tfree_to_aic": cross_core.tfree_to_aic,
    "tfree_to_aiv": cross_core.tfree_to_aiv,
}
for _name in _TILE_ONLY:
    UNIFIED[_name] = tile_only(_name, TILE_FNS[_name])
