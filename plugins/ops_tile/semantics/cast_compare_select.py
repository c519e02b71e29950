"""The numpy semantics of the cast_compare_select family's ops (../families/cast_compare_select.py), imported
when the reference machine first runs an op, never by a process that only compiles
(pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.ir.types import TileType
from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.common.conversion import ROUND, convert
from pypto_plugins.ops_tile.common.elementwise import CMP_MODES
from pypto_plugins.ops_tile.common.semantics import CMP_FNS, finish, result_np_dtype, wide

semantics = Semantics()


@semantics("tile.cast", "tensor.cast")
def cast_elements(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    mode = int(kwargs.get("mode", ROUND) if kwargs.get("mode") is not None else ROUND)
    return convert(args[0], result_np_dtype(call), mode)


def _cmp_fn(mode: Any, op: str) -> Callable[[Any, Any], Any]:
    if isinstance(mode, str):
        if mode.lower() not in CMP_MODES:
            raise MachineError(f"{op}: unknown cmp_type '{mode}'")
        return CMP_FNS[CMP_MODES.index(mode.lower())]
    if not 0 <= int(mode) < len(CMP_FNS):
        raise MachineError(f"{op}: cmp_type {mode} is not one of 0..{len(CMP_FNS) - 1}")
    return CMP_FNS[int(mode)]


def _valid_columns(ctx: Any, call: Any, n: int) -> int:
    """Valid elements of a compared row: those of the first operand whose last dim is the result's."""
    for a in call.args:
        t = a.type
        if isinstance(t, TileType) and t.shape and ctx.shape(t)[-1] == n:
            return ctx.valid_shape(t)[-1]
    return n


@semantics("tile.cmp", "tile.cmps")
def compare_packed(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.cmp(lhs, rhs, cmp_type=) / tile.cmps(lhs, scalar, cmp_type=): the packed predicate."""
    fn = _cmp_fn(kwargs.get("cmp_type", 0), call.op.name)
    bits = np.asarray(fn(wide(args[0]), wide(args[1])), dtype=bool)
    if bits.ndim == 0:
        raise MachineError(f"{call.op.name}: a 0-D comparison has no row to pack")
    n = bits.shape[-1]
    bits = bits.copy()
    bits[..., _valid_columns(ctx, call, n):] = False
    packed = np.packbits(bits, axis=-1, bitorder="little")
    out = np.zeros(ctx.shape(call.type), dtype=np.uint8)
    out[..., : packed.shape[-1]] = packed
    return out


@semantics("tensor.cmp")
def compare_values(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.cmp: 1 where the comparison holds, else 0, in the result dtype."""
    fn = _cmp_fn(kwargs.get("cmp_type", 0), call.op.name)
    return finish(fn(wide(args[0]), wide(args[1])), result_np_dtype(call))


def mask_bits(mask: Any, shape: tuple[int, ...], op: str) -> np.ndarray:
    """The packed bits of a mask tile as a bool array of `shape` (rows = leading dims merged)."""
    m = np.ascontiguousarray(np.asarray(mask))
    if m.ndim == 0 or not shape:
        raise MachineError(f"{op}: the mask and the selected tiles need at least one dimension")
    rows_m = int(np.prod(m.shape[:-1], dtype=np.int64))
    data = m.reshape(rows_m, m.shape[-1]).view(np.uint8)
    bits = np.unpackbits(data, axis=1, bitorder="little")
    rows, n = int(np.prod(shape[:-1], dtype=np.int64)), shape[-1]
    if rows_m < rows or bits.shape[1] < n:
        raise MachineError(f"{op}: the mask holds {rows_m} rows of {bits.shape[1]} bits but the selection needs "
                           f"{rows} rows of {n} bits")
    return bits[:rows, :n].astype(bool).reshape(shape)


@semantics("tile.sel")
def select(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.sel(mask, lhs, rhs, tmp): lhs where the packed mask bit is set, else rhs."""
    shape = ctx.shape(call.type)
    mask = mask_bits(args[0], shape, call.op.name)
    return finish(np.where(mask, wide(args[1]), wide(args[2])), result_np_dtype(call))


@semantics("tile.sels")
def select_scalar(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.sels(mask, src, tmp, scalar): src where the packed mask bit is set, else the scalar."""
    shape = ctx.shape(call.type)
    mask = mask_bits(args[0], shape, call.op.name)
    return finish(np.where(mask, wide(args[1]), wide(args[3])), result_np_dtype(call))
