"""DSL spellings (OPS.md `py:` lines) of the gather_sort ops (issue 14), and `pl.tile.MaskPattern`.

Each builder accepts both PyPTO's spelling and the printed IR form, so printed text re-parses to the same
call (docs/dsl.md, the printed form): the printer writes operands positionally in IR order and kwargs by name, e.g.
`pl.tensor.gather(x, index, dim=1)` for PyPTO's `pl.tensor.gather(x, 1, index)`,
`pl.tile.mgather(mem, idx, scratch, coalesce=1, ...)`, `pl.tile.mrgsort_format2(a, b, tmp, exhausted=True)`.
An operand's kind tells the forms apart (a dim is an int, an index is a tensor).
Kwargs are recorded only when they differ from the IR default, so they are printed only then.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType
from pypto_core.ops.build import to_bool, to_dtype, to_enum_int, to_expr, to_int, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import Builder, dsl_entry, scalar_for, set_if, to_cmp_mode
from pypto_plugins.ops_tile.ops.gather_sort_rules import COALESCE, GATHER_OOB, MaskPattern


def mask_int(value: Any) -> int:
    """A mask pattern as its int: a MaskPattern member, its name ('P0101') or 1..7."""
    return to_enum_int(value, MaskPattern, "mask_pattern")


def _choice(value: Any, names: tuple[str, ...], what: str) -> int:
    if isinstance(value, str):
        if value.lower() not in names:
            raise ValueError(f"{what} must be one of {', '.join(map(repr, names))}, got {value!r}")
        return names.index(value.lower())
    v = to_int(value, what)
    if not 0 <= v < len(names):
        raise ValueError(f"{what} must be 0..{len(names) - 1} ({', '.join(names)}), got {v}")
    return v


def _is_shape(value: Any) -> bool:
    return isinstance(value, (list, tuple, MakeTuple))


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Expr) and isinstance(value.type, TensorType)


def _opt_kwargs(**pairs: tuple[Any, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for key, (value, default) in pairs.items():
        set_if(kwargs, key, value, default)
    return kwargs


# -- tile ------------------------------------------------------------------------------------------
@dsl_entry
def mgather(mem: Expr, idx: Expr, *rest: Any, span: Span | None = None, coalesce: Any = None,
            gather_oob: Any = "undefined", target_memory: Any = MemorySpace.Vec, scratch: Expr | None = None,
            valid_shape: Any = None) -> Call:
    """PyPTO: (mem, idx, coalesce='row', *, gather_oob, target_memory, scratch, valid_shape); printed:
    (mem, idx[, scratch][, valid_shape], coalesce=, ...)."""
    for value in rest:
        if _is_tensor(value):
            scratch = value
        elif _is_shape(value):
            valid_shape = value
        elif coalesce is None:
            coalesce = value
        else:
            raise TypeError(f"unexpected operand {value!r}")
    args = [mem, idx]
    if scratch is not None:
        args.append(scratch)
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs = _opt_kwargs(coalesce=(_choice("row" if coalesce is None else coalesce, COALESCE, "coalesce"), 0),
                         gather_oob=(_choice(gather_oob, GATHER_OOB, "gather_oob"), 0),
                         target_memory=(target_memory, MemorySpace.Vec))
    return create_op_call("tile.mgather", args, kwargs, span=span)


@dsl_entry
def mscatter(src: Expr, idx: Expr, output_tensor: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.mscatter", [src, idx, output_tensor], span=span)


@dsl_entry
def gather_mask(src: Expr, mask_pattern: Any, span: Span | None = None, *, output_dtype: Any = None) -> Call:
    kwargs: dict[str, Any] = {"mask_pattern": mask_int(mask_pattern)}
    if output_dtype is not None:
        kwargs["output_dtype"] = to_dtype(output_dtype, "output_dtype")
    return create_op_call("tile.gather_mask", [src], kwargs, span=span)


@dsl_entry
def scatter_mask(dst: Expr, src: Expr, mask_pattern: Any, span: Span | None = None) -> Call:
    return create_op_call("tile.scatter_mask", [dst, src], {"mask_pattern": mask_int(mask_pattern)}, span=span)


def _sort32(namespace: str) -> Builder:
    def sort32(src: Expr, idx: Expr, span: Span | None = None) -> Call:
        return create_op_call(f"{namespace}.sort32", [src, idx], span=span)

    return dsl_entry(sort32)


def _format1(namespace: str) -> Builder:
    def mrgsort_format1(src: Expr, block_len: Any, span: Span | None = None) -> Call:
        return create_op_call(f"{namespace}.mrgsort_format1", [src, to_expr(block_len, span)], span=span)

    return dsl_entry(mrgsort_format1)


def _exhausted(exhausted: Any) -> dict[str, Any]:
    return {"exhausted": True} if to_bool(exhausted, "exhausted") else {}


@dsl_entry
def tile_mrgsort_format2(src0: Expr, src1: Expr, tmp_or_src2: Expr, tmp_or_src3: Expr | None = None,
                         tmp: Expr | None = None, span: Span | None = None, *, exhausted: Any = False) -> Call:
    args = [a for a in (src0, src1, tmp_or_src2, tmp_or_src3, tmp) if a is not None]
    return create_op_call("tile.mrgsort_format2", args, _exhausted(exhausted), span=span)


@dsl_entry
def tile_mrgsort(src0: Expr, src1: Expr | None = None, src2: Expr | None = None, src3: Expr | None = None,
                 tmp: Expr | None = None, exhausted: Any = False, span: Span | None = None, *,
                 block_len: Any = None) -> Call:
    """block_len -> tile.mrgsort_format1(src0, block_len); else the 2-4 way merge into tmp (format2)."""
    if block_len is not None:
        if src1 is not None or tmp is not None:
            raise TypeError("the single-list merge (block_len=) takes one source and no tmp")
        return _format1("tile")(src0, block_len, span=span)
    srcs = [s for s in (src0, src1, src2, src3) if s is not None]
    if len(srcs) < 2 or tmp is None:
        raise TypeError("a tile merge sort takes block_len= (one source) or 2-4 sorted sources and tmp=")
    return tile_mrgsort_format2(*srcs, tmp, span=span, exhausted=exhausted)


@dsl_entry
def gatherb(src: Expr, offset: Expr, span: Span | None = None, *, output_dtype: Any = None) -> Call:
    kwargs = {} if output_dtype is None else {"output_dtype": to_dtype(output_dtype, "output_dtype")}
    return create_op_call("tile.gatherb", [src, offset], kwargs, span=span)


@dsl_entry
def tile_scatter(dst: Expr, src: Expr, indexes: Expr, span: Span | None = None) -> Call:
    return create_op_call("tile.scatter", [dst, src, indexes], span=span)


@dsl_entry
def tile_gather_compare(src: Expr, kvalue: Any, tmp: Expr, span: Span | None = None, *, cmp_mode: Any = "eq",
                        offset: Any = 0, out_cols: Any, count_dtype: Any = None) -> Call:
    return create_op_call("tile.gather_compare", [src, scalar_for(kvalue, src, span), tmp],
                          _compare_kwargs(cmp_mode, offset, out_cols, count_dtype), span=span)


def _compare_kwargs(cmp_mode: Any, offset: Any, out_cols: Any, count_dtype: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if cmp_mode is not None:
        kwargs["cmp_mode"] = to_cmp_mode(cmp_mode)
    set_if(kwargs, "offset", to_int(offset, "offset"), 0)
    if out_cols is not None:
        kwargs["out_cols"] = to_int(out_cols, "out_cols")
    if count_dtype is not None:
        kwargs["count_dtype"] = to_dtype(count_dtype, "count_dtype")
    return kwargs


def _dim_first(args: tuple[Any, ...], dim: Any, names: tuple[str, ...]) -> tuple[Any, list[Any]]:
    """PyPTO's (dim, index, src) or the printed (index, src) + dim=: (dim, the operands)."""
    operands = list(args)
    if operands and not isinstance(operands[0], Expr) or (operands and isinstance(operands[0], ConstInt)):
        if dim is not None:
            raise TypeError("dim given twice")
        dim = operands.pop(0)
    if len(operands) > len(names):
        raise TypeError(f"takes at most {len(names)} operand(s) ({', '.join(names)}) after the input")
    return dim, operands


def _scatter_update(namespace: str) -> Builder:
    def scatter_update(input: Expr, *args: Any, span: Span | None = None, dim: Any = None, index: Any = None,
                       src: Any = None) -> Call:
        """(input, index, src, dim=-2) or PyPTO's (input, dim, index, src)."""
        dim, operands = _dim_first(args, dim, ("index", "src"))
        operands += [v for v in (index, src) if v is not None]
        if len(operands) != 2:
            raise TypeError("scatter_update takes the input, an index and a src")
        kwargs = {"dim": -2 if dim is None else to_int(dim, "dim")}
        return create_op_call(f"{namespace}.scatter_update", [input, *operands], kwargs, span=span)

    return dsl_entry(scatter_update)


# -- tensor ----------------------------------------------------------------------------------------
@dsl_entry
def tensor_gather(input: Expr, *args: Any, span: Span | None = None, dim: Any = None, index: Any = None,
                  mask_pattern: Any = None, output_dtype: Any = None, kvalue: Any = None, cmp_mode: Any = None,
                  out_cols: Any = None, offset: Any = 0, count_dtype: Any = None) -> Call:
    """PyPTO's (input, dim=None, index=None, *, mask_pattern, output_dtype, kvalue, cmp_mode, out_cols, offset,
    count_dtype): mask_pattern -> tensor.gather_mask, kvalue -> tensor.gather_compare, else tensor.gather."""
    if mask_pattern is not None:
        return tensor_gather_mask(input, mask_pattern, span=span, output_dtype=output_dtype)
    if kvalue is not None:
        return tensor_gather_compare(input, kvalue, span=span, cmp_mode=cmp_mode, offset=offset, out_cols=out_cols,
                                     count_dtype=count_dtype)
    dim, operands = _dim_first(args, dim, ("index",))
    if index is not None:
        operands.append(index)
    if len(operands) != 1:
        raise TypeError("tensor.gather takes the input, dim and an index tensor")
    return create_op_call("tensor.gather", [input, operands[0]],
                          {} if dim is None else {"dim": to_int(dim, "dim")}, span=span)


@dsl_entry
def tensor_gather_mask(input: Expr, mask_pattern: Any = None, span: Span | None = None, *,
                       output_dtype: Any = None) -> Call:
    kwargs: dict[str, Any] = {} if mask_pattern is None else {"mask_pattern": mask_int(mask_pattern)}
    if output_dtype is not None:
        kwargs["output_dtype"] = to_dtype(output_dtype, "output_dtype")
    return create_op_call("tensor.gather_mask", [input], kwargs, span=span)


@dsl_entry
def tensor_gather_compare(input: Expr, kvalue: Any, span: Span | None = None, *, cmp_mode: Any = None,
                          offset: Any = 0, out_cols: Any = None, count_dtype: Any = None) -> Call:
    return create_op_call("tensor.gather_compare", [input, scalar_for(kvalue, input, span)],
                          _compare_kwargs(cmp_mode, offset, out_cols, count_dtype), span=span)


@dsl_entry
def tensor_gather_row(acc: Expr, src: Expr, dst_offset: Any, src_offset: Any, shapes: Any, transpose: Any = False,
                      span: Span | None = None, *, valid_shape: Any = None) -> Call:
    if _is_shape(transpose):  # the printed form: the 6th operand positionally
        transpose, valid_shape = False, transpose
    args = [acc, src, to_tuple(dst_offset, span), to_tuple(src_offset, span), to_tuple(shapes, span)]
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs = {"transpose": True} if to_bool(transpose, "transpose") else {}
    return create_op_call("tensor.gather_row", args, kwargs, span=span)


@dsl_entry
def paged_gather(src: Expr, indices: Expr, block_table: Expr, block_size: Any, size: Any, max_indices: Any,
                 span: Span | None = None, *, space: Any = MemorySpace.Mat, col_off: Any = 0, is_trans: Any = False,
                 is_b_matrix: Any = False) -> Call:
    kwargs: dict[str, Any] = {"block_size": to_int(block_size, "block_size"), "size": to_int(size, "size"),
                              "max_indices": to_int(max_indices, "max_indices")}
    kwargs.update(_opt_kwargs(col_off=(to_int(col_off, "col_off"), 0),
                              is_trans=(to_bool(is_trans, "is_trans"), False),
                              is_b_matrix=(to_bool(is_b_matrix, "is_b_matrix"), False), space=(space, MemorySpace.Mat)))
    return create_op_call("tensor.paged_gather", [src, indices, block_table], kwargs, span=span)


@dsl_entry
def tensor_scatter(input: Expr, *args: Any, span: Span | None = None, dim: Any = None, index: Any = None,
                   src: Any = None, mask_pattern: Any = None, dst: Any = None) -> Call:
    """PyPTO's (input, dim=None, index=None, src=None, *, mask_pattern=None, dst=None)."""
    if mask_pattern is not None:
        if dst is None:
            raise TypeError("a mask scatter needs dst= (the tensor whose selected columns input rewrites)")
        return tensor_scatter_mask(input, dst, mask_pattern, span=span)
    dim, operands = _dim_first(args, dim, ("index", "src"))
    operands += [v for v in (index, src) if v is not None]
    if len(operands) != 2:
        raise TypeError("tensor.scatter takes the input, dim, an index and a src")
    return create_op_call("tensor.scatter", [input, *operands], {} if dim is None else {"dim": to_int(dim, "dim")},
                          span=span)


@dsl_entry
def tensor_scatter_mask(input: Expr, dst: Expr, mask_pattern: Any = None, span: Span | None = None) -> Call:
    kwargs = {} if mask_pattern is None else {"mask_pattern": mask_int(mask_pattern)}
    return create_op_call("tensor.scatter_mask", [input, dst], kwargs, span=span)


@dsl_entry
def tensor_mrgsort_format2(src0: Expr, src1: Expr, src2: Expr | None = None, src3: Expr | None = None,
                           span: Span | None = None, *, exhausted: Any = False) -> Call:
    args = [a for a in (src0, src1, src2, src3) if a is not None]
    return create_op_call("tensor.mrgsort_format2", args, _exhausted(exhausted), span=span)


@dsl_entry
def tensor_mrgsort(src0: Expr, src1: Expr | None = None, src2: Expr | None = None, src3: Expr | None = None,
                   span: Span | None = None, *, exhausted: Any = False, block_len: Any = None) -> Call:
    if block_len is not None:
        if src1 is not None:
            raise TypeError("the single-list merge (block_len=) takes one source")
        return _format1("tensor")(src0, block_len, span=span)
    if src1 is None:
        raise TypeError("a tensor merge sort takes block_len= (one source) or 2-4 sorted sources")
    return tensor_mrgsort_format2(src0, src1, src2, src3, span=span, exhausted=exhausted)


TILE: dict[str, Any] = {
    "MaskPattern": MaskPattern,
    "mgather": mgather, "mscatter": mscatter, "gather_mask": gather_mask, "scatter_mask": scatter_mask,
    "sort32": _sort32("tile"), "mrgsort": tile_mrgsort, "mrgsort_format1": _format1("tile"),
    "mrgsort_format2": tile_mrgsort_format2,
    # audited spellings of the issue-8 index ops (OPS.md names and parameters)
    "gatherb": gatherb, "scatter": tile_scatter, "gather_compare": tile_gather_compare,
    "scatter_update": _scatter_update("tile"),
}
TENSOR: dict[str, Any] = {
    "gather": tensor_gather, "gather_mask": tensor_gather_mask, "gather_compare": tensor_gather_compare,
    "gather_row": tensor_gather_row, "paged_gather": paged_gather, "scatter": tensor_scatter,
    "scatter_mask": tensor_scatter_mask, "scatter_update": _scatter_update("tensor"), "sort32": _sort32("tensor"),
    "mrgsort": tensor_mrgsort, "mrgsort_format1": _format1("tensor"), "mrgsort_format2": tensor_mrgsort_format2,
}
SYSTEM: dict[str, Any] = {}


def _unified() -> dict[str, Any]:
    from pypto_plugins.ops_tile.dsl.gather_sort_unified import UNIFIED as table

    return table


UNIFIED: dict[str, Any] = _unified()  # top-level pl.X spellings; they override the base dispatchers of the same name
