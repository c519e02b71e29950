"""Top-level `pl.*` spellings of the gather_sort ops (OPS.md `py:` lines): dispatch on the first operand.

`pl.gather` / `pl.scatter` are PyPTO's tensor spellings (`pl.gather(input, dim, index, *, mask_pattern=...,
kvalue=...)`); on a tile they build the tile ops (`pl.gather(src, indices, tmp)` -> tile.gather, with
mask_pattern -> tile.gather_mask, with kvalue -> tile.gather_compare(src, kvalue, tmp)).
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.span import Span
from pypto_core.ops.build import operand_kind
from pypto_plugins.ops_tile.dsl import gather_sort as G
from pypto_plugins.ops_tile.dsl.common import dsl_entry, tile_only
from pypto_plugins.ops_tile.dsl.tile_compute import gather as tile_gather
from pypto_plugins.ops_tile.dsl.tile_compute import gather_row as tile_gather_row
from pypto_plugins.ops_tile.dsl.unified import dispatch_between


def _gather_tile(src: Any, *args: Any, span: Span | None = None, mask_pattern: Any = None, output_dtype: Any = None,
                 kvalue: Any = None, cmp_mode: Any = "eq", out_cols: Any = None, offset: Any = 0,
                 count_dtype: Any = None, **rest: Any) -> Any:
    if mask_pattern is not None:
        return G.gather_mask(src, mask_pattern, span=span, output_dtype=output_dtype)
    if kvalue is not None:
        return G.tile_gather_compare(src, kvalue, *args, span=span, cmp_mode=cmp_mode, offset=offset,
                                     out_cols=out_cols, count_dtype=count_dtype)
    return tile_gather(src, *args, span=span, **rest)


def _gather_tensor(x: Any, *args: Any, span: Span | None = None, **kwargs: Any) -> Any:
    if len(args) == 2 and all(operand_kind(a) == "Tensor" for a in args):  # the tile form (src, indices, tmp)
        raise TypeError("pl.gather(src, indices, tmp) works on tiles; load the tensor into a tile first (pl.load), "
                        "or use pl.gather(input, dim, index) on tensors")
    return G.tensor_gather(x, *args, span=span, **kwargs)


def _scatter_tile(x: Any, *args: Any, span: Span | None = None, mask_pattern: Any = None, dst: Any = None,
                  **rest: Any) -> Any:
    if mask_pattern is not None:  # PyPTO's pl.scatter(input, mask_pattern=, dst=): input is the narrow source
        if dst is None:
            raise TypeError("a mask scatter needs dst= (the tile whose selected columns input rewrites)")
        return G.scatter_mask(dst, x, mask_pattern, span=span)
    return G.tile_scatter(x, *args, span=span, **rest)


def _mrgsort_tensor(x: Any, *args: Any, span: Span | None = None, tmp: Any = None, **kwargs: Any) -> Any:
    if tmp is not None or len(args) > 3:
        raise TypeError("a tensor merge sort takes no tmp (pl.tensor.mrgsort)")
    return G.tensor_mrgsort(x, *args, span=span, **kwargs)


UNIFIED: dict[str, Any] = {
    "gather": dsl_entry(dispatch_between("gather", _gather_tile, _gather_tensor)),
    "scatter": dsl_entry(dispatch_between("scatter", _scatter_tile, G.tensor_scatter)),
    "scatter_update": dispatch_between("scatter_update", G.TILE["scatter_update"], G.TENSOR["scatter_update"]),
    "gather_row": dispatch_between("gather_row", tile_gather_row, G.tensor_gather_row, mixed=True),
    "sort32": dispatch_between("sort32", G.TILE["sort32"], G.TENSOR["sort32"]),
    "mrgsort": dispatch_between("mrgsort", G.tile_mrgsort, _mrgsort_tensor),
    "gatherb": tile_only("gatherb", G.gatherb),
    "gather_compare": tile_only("gather_compare", G.tile_gather_compare),  # kvalue / offset / count_dtype
    "mgather": G.mgather,  # its first operand is the GM table
    "mscatter": tile_only("mscatter", G.mscatter),
    "paged_gather": G.paged_gather,
}
