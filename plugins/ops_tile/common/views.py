"""The tile view (layout, valid region) a result carries, and the memory declarations of vector ops.

An op whose result has its operand's shape keeps the operand's whole view (layout and valid region):
docs/passes/lower_auto_vector_split.md, example, shows `tile.move` Mat -> Vec and `tile.add` keeping
`blayout=col_major, slayout=row_major`. An op that builds a new shape starts from the implicit layout of
that shape and only records a valid region.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CompactMode, MemorySpace, TileLayout
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TileType, TileView, dims_equal, implicit_layout
from pypto_core.ops.build import same_dim
from pypto_core.ops.opdef import ArgSpec, OpDef, OutputMemory
from pypto_core.ops.places import caller_site

VEC_RESULT = OutputMemory(fixed=MemorySpace.Vec)  # a vector op's tile result lives in Vec


def vec_operands(*indices: int) -> dict[int, tuple[MemorySpace, ...]]:
    """`input_memory` of a vector op: these operands are read from Vec."""
    return {i: (MemorySpace.Vec,) for i in indices}


def vec_op(name: str, deduce: Callable[..., Any], args: tuple[ArgSpec, ...], doc: str, vec: tuple[int, ...] = (0,),
           **extra: Any) -> OpDef:
    """The OpDef of a Vec -> Vec tile op `tile.<name>`; `vec` lists its tile operands (the others are scalars).
    The deducers accept an operand in any space: InferTileMemorySpace moves misplaced operands and
    TileMemoryInferred reports what it could not."""
    return OpDef(f"tile.{name}", deduce, args=args, output_memory=VEC_RESULT, input_memory=vec_operands(*vec), doc=doc,
                 defined_at=caller_site(skip=(__file__,)), **extra)


def is_partial(t: TileType) -> bool:
    return bool(t.tile_view is not None and t.tile_view.valid_shape and not dims_equal(t.tile_view.valid_shape,
                                                                                         t.shape))


def same_view(src: TileType, shape: Sequence[Expr]) -> TileView | None:
    """The operand's view for a result of the same shape; otherwise the implicit one."""
    if src.tile_view is None or not dims_equal(src.shape, shape):
        return None
    return src.tile_view


def result_tile(shape: Sequence[Expr], dtype: DataType, *operands: TileType) -> TileType:
    """The result keeps the view of the first operand that has the result's shape."""
    for t in operands:
        if dims_equal(t.shape, shape):
            return TileType(shape, dtype, None, same_view(t, shape), None)
    return TileType(shape, dtype, None, None, None)


def valid_view(valid: Sequence[Expr] | None, shape: Sequence[Expr],
               memory_space: MemorySpace | None) -> TileView | None:
    """The implicit layout of (shape, space), narrowed to a valid region (None when not narrowed)."""
    if not valid:
        return None
    blayout, slayout, fractal = implicit_layout(shape, memory_space)
    return TileView(valid_shape=list(valid), blayout=blayout, slayout=slayout, fractal=fractal)


def relayout_view(src: TileType, valid: Sequence[Expr] | None, shape: Sequence[Expr]) -> TileView | None:
    """The view of a result with a new shape (slice, reshape, reinterpret_view).

    A layout the operand only had implicitly is recomputed for the new shape; an explicit one
    (e.g. NZ data moved into Vec) is kept. Strides and start offsets describe the old shape: dropped.
    """
    eff = src.effective_view()
    if (eff.blayout, eff.slayout, eff.fractal) == implicit_layout(src.shape, src.memory_space):
        blayout, slayout, fractal = implicit_layout(shape, src.memory_space)
    else:
        blayout, slayout, fractal = eff.blayout, eff.slayout, eff.fractal
    return TileView(valid_shape=list(valid or ()), blayout=blayout, slayout=slayout, fractal=fractal,
                    pad=eff.pad, compact=eff.compact)


def require_row_major(op: str, src: TileType) -> None:
    """The operand of tile.row_min / tile.row_expand_add is row_major / none_box."""
    view = src.effective_view()
    if view.blayout is not TileLayout.row_major or view.slayout is not TileLayout.none_box:
        raise TypeError(f"{op}: the operand must be row_major / none_box, got blayout={view.blayout.name}, "
                        f"slayout={view.slayout.name}")


def product_view(shape: list[Expr], valid: list[Expr], partial: bool) -> TileView | None:
    """The Acc view of a cube product (matmul, MX matmul): the implicit one narrowed to `valid`;
    compact=normal when the rows are narrowed."""
    view = valid_view(valid, shape, MemorySpace.Acc) if partial else None
    if view is not None and not same_dim(valid[0], shape[0]):
        view = view.with_fields(compact=CompactMode.normal)
    return view


def row_major(operands: tuple[int, ...] | str = "all", result: bool = True) -> dict[str, Any]:
    """The `row_major_layout` an op implements (docs/plugins.md, op interfaces): the operands ('all': every tile
    operand) and whether the result the backend's instruction needs row-major (docs/passes/resolve_backend_op_layouts.md)."""
    return {"operands": operands, "result": result}
