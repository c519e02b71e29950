"""Gathers that address global memory directly: tile.gather_row / tensor.gather_row (a DMA of a window at a
runtime offset), tile.mgather (by index from a GM table) and tensor.paged_gather (rows of a paged pool).

IR layouts (docs/reference/ops.md):
* `tile.gather_row(dst, src, dst_offset, src_offset, shapes[, valid_shape])` kwarg `transpose`: dst with the
  [r, c] window of the tensor src at src_offset (transposed if asked) written at dst_offset (arg 0
  ReadWrite); `shapes` are constants; the 6th operand (printed as a keyword) narrows only the transfer: the
  valid_shape window of src is copied, the rest of dst keeps its data, and the result is exactly dst's type.
  No offset is bounded when the program is built (a `shapes` window may overhang dst); the program keeps
  dst_offset + valid_shape within dst, which the machine checks. dst may be Mat or Vec and is undeclared, as
  in PyPTO. `tensor.gather_row(acc, src, ...)` into an on-chip buffer (a
  pl.tensor.create_l1 tensor, or a tile), whose tile form is tile.gather_row into acc's tile (src stays in GM).
* `tile.mgather(mem, idx[, scratch][, valid_shape])` kwargs `coalesce` (0 row: out[k, :] = mem2d[idx[k], :]
  with a [1, n] index (or [n, 1] into Vec); 1 element: out[i, j] = mem.flat[idx[i, j]]), `gather_oob` (0
  undefined: an index outside the table is an error here, 1 clamp, 2 wrap, 3 zero; the INT32 index is read
  as uint32, so -1 is 2**32 - 1: clamp gives the last row, wrap (2**32 - 1) mod B), `target_memory` (Vec: an
  INT32 2-D index tile, the result's valid shape idx's (element mode) or [idx's valid extent, C] (row mode);
  Mat: an INT32 2-D GM index tensor, a static result with rows % 16 == 0 and cols a
  multiple of the 32-byte block, element mode staged through a GM scratch tensor it writes, an optional static
  valid_shape). Operand 2 is the scratch when it is a tensor, else the valid_shape tuple.
* `tensor.paged_gather(src, indices, block_table)` kwargs `block_size`, `size`, `max_indices`, `col_off`,
  `is_trans`, `is_b_matrix`, `space`: out[k] = src[block_table[i // block_size] * block_size + i % block_size,
  col_off : col_off + size] for i = indices[k] (k < max_indices; rows past the indices are 0). Its tile form
  computes the physical rows in tile ops, then a row-mode tile.mgather from the pool, the window of `size`
  columns at col_off and zero rows when there are fewer indices than max_indices (a transpose when is_trans;
  `space` is left to InferTileMemorySpace).

Every element (element mode) or row (row mode) a GM access touches is reported to the GM race check; two
elements addressing one place: the later in row-major order wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstFloat, ConstInt, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType, Type
from pypto_core.ops.build import (
    dsl_entry,
    require_dtype_in,
    require_rank,
    require_tensor,
    require_tile,
    shape_text,
    static_int,
    to_bool,
    to_int,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, Effect, KwargSpec, OpDef, OpTraits, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.common import indexing as R
from pypto_plugins.ops_tile.common.dsl import dispatch_between, set_if
from pypto_plugins.ops_tile.common.tile_forms import bound, const_dims, static_2d, tile_type
from pypto_plugins.ops_tile.common.views import is_partial, valid_view

family = OpFamily("gm_gather", semantics="pypto_plugins.ops_tile.semantics.gm_gather")

D = DataType


# -- type rules ---------------------------------------------------------------------------------------------
def check_gather_row(op: str, dst: Any, args: Sequence[Expr], kwargs: Mapping[str, Any], what: str = "dst") -> None:
    src = require_tensor(op, args[1], "src")
    dst_off, src_off, shape = (tuple_elements(a) for a in args[2:5])
    if len(dst_off) != len(dst.shape) or len(shape) != len(dst.shape):
        raise TypeError(f"{op}: dst_offset ({len(dst_off)}-D) and shapes ({len(shape)}-D) must match the "
                        f"{len(dst.shape)}-D {what}")
    if any(static_int(d) is None for d in shape):
        raise TypeError(f"{op}: shapes must be constants, got {shape_text(shape)}")
    if len(src_off) != len(src.shape):
        raise TypeError(f"{op}: src_offset has {len(src_off)} dims for a {len(src.shape)}-D src")
    if src.dtype is not dst.dtype:
        raise TypeError(f"{op}: src is {src.dtype.name} but {what} is {dst.dtype.name}")
    transpose = kwargs.get("transpose", False)
    # No bound on either offset: a `shapes` window may overhang dst, the program keeps dst_offset +
    # valid_shape within dst (checked when it runs).
    if len(args) > 5:
        valid = tuple_elements(args[5])
        if len(valid) != len(dst.shape):
            raise TypeError(f"{op}: valid_shape has {len(valid)} dims for a {len(dst.shape)}-D {what}")
        for v, s in zip(valid, shape):
            nv = static_int(v)
            if transpose and nv is None:
                raise TypeError(f"{op}: valid_shape must be static with transpose=True")
            if nv is not None and not 0 <= nv <= static_int(s):  # type: ignore[operator]
                raise ValueError(f"{op}: valid_shape {shape_text(valid)} must lie within shapes {shape_text(shape)}")


def deduce_tile_gather_row(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """The result is exactly dst's type: the 6th operand narrows only this transfer."""
    op = "tile.gather_row"
    dst = require_tile(op, args[0], "dst")
    check_gather_row(op, dst, args, kwargs)
    return dst


def deduce_tensor_gather_row(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.gather_row"
    acc = args[0].type
    if not isinstance(acc, (TensorType, TileType)):
        raise TypeError(f"{op}: acc must be an on-chip buffer (pl.tensor.create_l1), got {type(acc).__name__}")
    check_gather_row(op, acc, args, kwargs, "acc")
    return acc


def _fresh(shape: Sequence[Expr], dtype: DataType, valid: Sequence[Expr] | None = None,
           space: MemorySpace | None = None) -> TileType:
    return TileType(list(shape), dtype, None, valid_view(valid, shape, space) if valid else None, None)


def mgather_extras(args: Sequence[Expr]) -> tuple[Expr | None, Expr | None]:
    """(scratch, valid_shape) of a tile.mgather call: operand 2 is the scratch when it is a tensor."""
    rest = list(args[2:])
    scratch = rest.pop(0) if rest and isinstance(rest[0].type, TensorType) else None
    valid = rest.pop(0) if rest and isinstance(rest[0], MakeTuple) else None
    if rest:
        raise TypeError(f"tile.mgather: unexpected operand {len(args) - len(rest)} (expected mem, idx, "
                        f"[scratch tensor], [valid_shape])")
    return scratch, valid


def deduce_mgather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.mgather"
    mem = args[0].type
    if not isinstance(mem, TensorType):
        raise TypeError(f"{op}: mem must be a GM tensor, got {type(mem).__name__}")
    require_dtype_in(op, mem.dtype, R.MGATHER_DTYPES, "mem")
    coalesce, target = int(kwargs.get("coalesce", 0)), kwargs.get("target_memory", MemorySpace.Vec)
    if target not in (MemorySpace.Vec, MemorySpace.Mat):
        raise ValueError(f"{op}: target_memory must be Vec or Mat, got {target}")
    scratch, valid = mgather_extras(args)
    idx_t = args[1].type
    want = TileType if target is MemorySpace.Vec else TensorType
    if not isinstance(idx_t, want) or idx_t.dtype is not D.INT32 or len(idx_t.shape) != 2:
        kind = "an INT32 2-D tile" if target is MemorySpace.Vec else "an INT32 2-D GM tensor"
        raise TypeError(f"{op}: idx must be {kind} for target_memory={target.name}, got {idx_t}")
    along = 0  # row mode: the index axis that lists the rows
    if coalesce == 1:
        shape: list[Expr] = list(idx_t.shape)
    else:
        rows, cols = (static_int(d) for d in idx_t.shape)
        if cols == 1 and target is MemorySpace.Vec:
            n = idx_t.shape[0]
        elif rows == 1:
            n, along = idx_t.shape[1], 1
        else:
            raise TypeError(f"{op}: row mode (coalesce='row') takes a [1, n] index"
                            f"{' or [n, 1]' if target is MemorySpace.Vec else ''}, got {shape_text(idx_t.shape)}")
        shape = [n, mem.shape[-1]]
    if target is MemorySpace.Vec:
        if valid is not None:
            raise TypeError(f"{op}: valid_shape is for a Mat target only")
        keep: list[Expr] | None = None
        if isinstance(idx_t, TileType) and is_partial(idx_t):
            # element mode: idx's valid shape; row mode: the rows of idx's valid indices, whole rows
            keep = list(idx_t.valid_shape) if coalesce == 1 else [idx_t.valid_shape[along], shape[1]]
        return _fresh(shape, mem.dtype, keep, MemorySpace.Vec)
    _check_mat_target(op, mem, shape, scratch, coalesce)
    vs = tuple_elements(valid) if valid is not None else None
    if vs is not None:
        if len(vs) != 2 or any(static_int(v) is None for v in vs):
            raise TypeError(f"{op}: valid_shape must be 2 static integers, got {len(vs)} operand(s)")
        if any(static_int(v) > static_int(s) for v, s in zip(vs, shape)):  # type: ignore[operator]
            raise ValueError(f"{op}: valid_shape {shape_text(vs)} exceeds the result shape {shape_text(shape)}")
    return _fresh(shape, mem.dtype, vs, MemorySpace.Mat)


def _check_mat_target(op: str, mem: TensorType, shape: list[Expr], scratch: Expr | None, coalesce: int) -> None:
    rows, cols = static_int(shape[0]), static_int(shape[1])
    per_block = 32 // max(1, mem.dtype.get_bit() // 8)
    if rows is None or cols is None or rows % 16 or cols % per_block:
        raise TypeError(f"{op}: a Mat result must be static with rows % 16 == 0 and cols % {per_block} == 0 "
                        f"({mem.dtype.name}), got {shape_text(shape)}")
    if coalesce == 1:
        if scratch is None:
            raise TypeError(f"{op}: element mode into Mat needs a GM scratch tensor (scratch=...)")
        st = scratch.type
        assert isinstance(st, TensorType)
        size = 1
        for d in st.shape:
            s = static_int(d)
            if s is None:
                raise TypeError(f"{op}: scratch must have a static shape, got {shape_text(st.shape)}")
            size *= s
        if st.dtype is not mem.dtype or size < rows * cols:
            raise TypeError(f"{op}: scratch must be {mem.dtype.name} with at least {rows * cols} elements, got "
                            f"{st.dtype.name} {shape_text(st.shape)}")


def mgather_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    """The scratch tensor is written only by an element-mode gather into Mat."""
    if kwargs.get("target_memory") is MemorySpace.Mat and int(kwargs.get("coalesce", 0)) == 1:
        return {2: Effect.WRITE}
    return {}


def deduce_paged_gather(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tensor.paged_gather"
    src = require_tensor(op, args[0], "src")
    require_rank(op, src.shape, 2, "src")
    require_dtype_in(op, src.dtype, R.PAGED_DTYPES, "src")
    for i, what in ((1, "indices"), (2, "block_table")):
        t = require_tensor(op, args[i], what)
        if t.dtype is not D.INT32 or not (len(t.shape) == 1 or (len(t.shape) == 2 and static_int(t.shape[0]) == 1)):
            raise TypeError(f"{op}: {what} must be INT32 1-D or [1, n], got {t.dtype.name} {shape_text(t.shape)}")
    for key in ("block_size", "size", "max_indices"):
        if key not in kwargs or int(kwargs[key]) <= 0:
            raise ValueError(f"{op}: {key} > 0 is required, got {kwargs.get(key)}")
    size, col_off = int(kwargs["size"]), int(kwargs.get("col_off", 0))
    cols = static_int(src.shape[1])
    if col_off < 0 or (cols is not None and col_off + size > cols):
        raise ValueError(f"{op}: col_off {col_off} + size {size} must lie within src's {cols} columns")
    if kwargs.get("is_trans") and kwargs.get("space", MemorySpace.Mat) is not MemorySpace.Mat:
        raise ValueError(f"{op}: is_trans needs space=Mat")
    rows = int(kwargs["max_indices"])
    return TensorType([size, rows] if kwargs.get("is_trans") else [rows, size], src.dtype)


# -- ops ----------------------------------------------------------------------------------------------------
_GATHER_ROW_ARGS = (ArgSpec("src"), ArgSpec("dst_offset"), ArgSpec("src_offset"), ArgSpec("shapes"),
                    ArgSpec("valid_shape", optional=True))

family.op(OpDef("tile.gather_row", deduce_tile_gather_row, args=(ArgSpec("dst"), *_GATHER_ROW_ARGS),
                kwargs=(KwargSpec("transpose", (bool,), False),), effects={0: Effect.READ_WRITE},
                traits=OpTraits(read_address_args=(3,), shape_args=(2, 3, 4, 5)),
                doc="DMA the [r, c] window of a tensor at src_offset (a runtime offset) into dst at dst_offset."))
family.op(OpDef("tensor.gather_row", deduce_tensor_gather_row, args=(ArgSpec("acc"), *_GATHER_ROW_ARGS),
                kwargs=(KwargSpec("transpose", (bool,), False),),
                doc="acc with the [r, c] window of src at src_offset copied in at dst_offset (transposed if asked)."))
family.op(OpDef("tile.mgather", deduce_mgather,
                args=(ArgSpec("mem"), ArgSpec("idx"), ArgSpec("scratch", optional=True),
                      ArgSpec("valid_shape", optional=True)),
                kwargs=(KwargSpec("coalesce", (int,), 0, choices=(0, 1)),
                        KwargSpec("gather_oob", (int,), 0, choices=(0, 1, 2, 3)),
                        KwargSpec("target_memory", (MemorySpace,), MemorySpace.Vec,
                                  choices=(MemorySpace.Vec, MemorySpace.Mat))),
                effects=mgather_effects,
                output_memory=OutputMemory(from_kwarg="target_memory", kwarg_default=MemorySpace.Vec),
                doc="Gather from a GM table by index: row mode out[k, :] = mem2d[idx[k], :], element mode "
                    "out[i, j] = mem.flat[idx[i, j]]; the index read as uint32; gather_oob 0 undefined (an error "
                    "here), 1 clamp min(u, B - 1), 2 wrap u mod B, 3 zero where u >= B. A Vec result's valid shape: "
                    "idx's (element mode), [idx's valid extent, C] (row mode)."))
family.op(OpDef("tensor.paged_gather", deduce_paged_gather,
                args=(ArgSpec("src"), ArgSpec("indices"), ArgSpec("block_table")),
                kwargs=(KwargSpec("block_size", (int,)), KwargSpec("size", (int,)), KwargSpec("col_off", (int,), 0),
                        KwargSpec("max_indices", (int,)), KwargSpec("is_trans", (bool,), False),
                        KwargSpec("is_b_matrix", (bool,), False),
                        KwargSpec("space", (MemorySpace,), MemorySpace.Mat)),
                doc="Rows of a paged pool: out[k] = src[block_table[i // block_size] * block_size + i % block_size, "
                    "col_off : col_off + size] for i = indices[k] (k < max_indices; rows past the indices are 0)."))


# -- tile forms ---------------------------------------------------------------------------------------------
def lower_tensor_gather_row(ctx: TileLowering, call: Call) -> Expr:
    acc, src = call.args[0], call.args[1]
    if not ctx.is_gm(src):
        raise ValueError("tensor.gather_row: the source must be a tensor in global memory (a parameter)")
    acc_tile = acc if isinstance(acc.type, TileType) else ctx.tile(acc)
    return ctx.call("tile.gather_row", [acc_tile, src, *call.args[2:]], dict(call.kwargs))


family.implement("tile_form", "tensor.gather_row", TileForm(lower=lower_tensor_gather_row))


def _row_vector(ctx: TileLowering, e: Expr, hint: str) -> Expr:
    """A 1-D or [1, n] INT32 tensor as a [1, n] tile."""
    tile = ctx.tile(e)
    t = tile_type(tile)
    if len(t.shape) == 1:
        tile = bound(ctx, "tile.reshape", [tile, const_dims(1, t.shape[0])], None, hint)
    return tile


def lower_paged_gather(ctx: TileLowering, call: Call) -> Expr:
    op = "tensor.paged_gather"
    kw = call.kwargs
    bs, size, rows = int(kw["block_size"]), int(kw["size"]), int(kw["max_indices"])
    col_off = int(kw.get("col_off", 0))
    idx = _row_vector(ctx, call.args[1], "paged_indices")
    table = _row_vector(ctx, call.args[2], "block_table")
    n = static_2d(op, tile_type(idx))[1]
    block = ConstInt(bs, D.INT32)
    page = bound(ctx, "tile.divs", [idx, block], None, "page")
    start = bound(ctx, "tile.muls", [page, block], None, "page_start")
    within = bound(ctx, "tile.sub", [idx, start], None, "in_page")
    tmp = bound(ctx, "tile.create", [const_dims(1, n)], {"dtype": D.INT32}, "page_tmp")
    phys_page = bound(ctx, "tile.gather", [table, page, tmp], None, "phys_page")
    phys = bound(ctx, "tile.muls", [phys_page, block], None, "phys_start")
    phys = bound(ctx, "tile.add", [phys, within], None, "phys_row")
    pool = call.args[0]
    if not ctx.is_gm(pool):
        raise ValueError(f"{op}: the paged pool must be a tensor in global memory (a parameter)")
    gathered = bound(ctx, "tile.mgather", [pool, phys], {}, "pages")
    cols = static_2d(op, tile_type(gathered))[1]
    dtype = tile_type(gathered).dtype
    result = gathered
    if n >= rows and (col_off, size) != (0, cols) or n > rows:
        result = bound(ctx, "tile.slice", [gathered, const_dims(min(n, rows), size), const_dims(0, col_off)], None,
                       "window")
    if n < rows:
        zero = ConstFloat(0.0, dtype) if dtype.is_float() else ConstInt(0, dtype)
        base = bound(ctx, "tile.full", [const_dims(rows, size), zero], {"dtype": dtype}, "paged_rows")
        if (col_off, size) != (0, cols):
            result = bound(ctx, "tile.slice", [gathered, const_dims(n, size), const_dims(0, col_off)], None, "window")
        result = bound(ctx, "tile.assemble", [base, result, const_dims(0, 0)], None, "paged_rows")
    if kw.get("is_trans"):
        return ctx.call("tile.transpose", [result, ConstInt(0, D.INDEX), ConstInt(1, D.INDEX)])
    return result


family.implement("tile_form", "tensor.paged_gather", TileForm(lower=lower_paged_gather))


# -- DSL ----------------------------------------------------------------------------------------------------
def _is_shape(value: Any) -> bool:
    return isinstance(value, (list, tuple, MakeTuple))


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Expr) and isinstance(value.type, TensorType)


@family.dsl("tile.gather_row")
@dsl_entry
def gather_row(dst: Expr, src: Expr, dst_offset: Any, src_offset: Any, shapes: Any, transpose: Any = False,
                       span: Span | None = None, *, valid_shape: Any = None) -> Call:
    """The 6th operand (valid_shape) is printed as a keyword (docs/dsl.md, the printed form)."""
    args = [dst, src, to_tuple(dst_offset, span), to_tuple(src_offset, span), to_tuple(shapes, span)]
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs = {"transpose": True} if to_bool(transpose, "transpose") else {}
    return create_op_call("tile.gather_row", args, kwargs, span=span)


@family.dsl("tensor.gather_row")
@dsl_entry
def tensor_gather_row(acc: Expr, src: Expr, dst_offset: Any, src_offset: Any, shapes: Any,
                              transpose: Any = False, span: Span | None = None, *, valid_shape: Any = None) -> Call:
    if _is_shape(transpose):  # the printed form: the 6th operand positionally
        transpose, valid_shape = False, transpose
    args = [acc, src, to_tuple(dst_offset, span), to_tuple(src_offset, span), to_tuple(shapes, span)]
    if valid_shape is not None:
        args.append(to_tuple(valid_shape, span))
    kwargs = {"transpose": True} if to_bool(transpose, "transpose") else {}
    return create_op_call("tensor.gather_row", args, kwargs, span=span)


def _choice(value: Any, names: tuple[str, ...], what: str) -> int:
    if isinstance(value, str):
        if value.lower() not in names:
            raise ValueError(f"{what} must be one of {', '.join(map(repr, names))}, got {value!r}")
        return names.index(value.lower())
    v = to_int(value, what)
    if not 0 <= v < len(names):
        raise ValueError(f"{what} must be 0..{len(names) - 1} ({', '.join(names)}), got {v}")
    return v


@family.dsl("tile.mgather")
@dsl_entry
def mgather(mem: Expr, idx: Expr, *rest: Any, span: Span | None = None, coalesce: Any = None,
                    gather_oob: Any = "undefined", target_memory: Any = MemorySpace.Vec, scratch: Expr | None = None,
                    valid_shape: Any = None) -> Call:
    """PyPTO: (mem, idx, coalesce='row', *, gather_oob, target_memory, scratch, valid_shape); printed:
    (mem, idx[, scratch][, valid_shape], coalesce=, ...). Kwargs are recorded only when not the default."""
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
    kwargs: dict[str, Any] = {}
    set_if(kwargs, "coalesce", _choice("row" if coalesce is None else coalesce, R.COALESCE, "coalesce"), 0)
    set_if(kwargs, "gather_oob", _choice(gather_oob, R.GATHER_OOB, "gather_oob"), 0)
    set_if(kwargs, "target_memory", target_memory, MemorySpace.Vec)
    return create_op_call("tile.mgather", args, kwargs, span=span)


@family.dsl("tensor.paged_gather")
@dsl_entry
def paged_gather(src: Expr, indices: Expr, block_table: Expr, block_size: Any, size: Any, max_indices: Any,
                         span: Span | None = None, *, space: Any = MemorySpace.Mat, col_off: Any = 0,
                         is_trans: Any = False, is_b_matrix: Any = False) -> Call:
    kwargs: dict[str, Any] = {"block_size": to_int(block_size, "block_size"), "size": to_int(size, "size"),
                              "max_indices": to_int(max_indices, "max_indices")}
    set_if(kwargs, "col_off", to_int(col_off, "col_off"), 0)
    set_if(kwargs, "is_trans", to_bool(is_trans, "is_trans"), False)
    set_if(kwargs, "is_b_matrix", to_bool(is_b_matrix, "is_b_matrix"), False)
    set_if(kwargs, "space", space, MemorySpace.Mat)
    return create_op_call("tensor.paged_gather", [src, indices, block_table], kwargs, span=span)


family.dsl_function("gather_row", dispatch_between("gather_row", gather_row, tensor_gather_row,
                                                   mixed=True))
family.dsl_function("mgather", mgather)  # its first operand is the GM table
family.dsl_function("paged_gather", paged_gather)


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.gather_row", output_reuses_input=0)
family.set_traits("tile.mgather", output_must_not_alias="all")
