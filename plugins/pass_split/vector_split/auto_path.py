"""LowerAutoVectorSplit's AUTO path (docs/passes/lower_auto_vector_split.md, what it does): a mixed InCore function with a function-level
split becomes the explicit split_aiv form.

1. `subblock_idx = tile.get_subblock_idx()` at the top (a fresh name if taken);
2. the partition: balanced `ceil(V / 2)` for a single ragged cube -> vector boundary whose tiles are all
   the function's split tiles (`choose_partition`), else the lane box;
3. the body, through the affinity gate (split_axis/splitter.py): a cube -> vector `tile.move` becomes
   `tile.aiv_shard(src, split=mode[, lane_stride=S])` carrying the lane's valid extent; a vector -> cube
   move becomes `<dest>_mat = tile.aic_gather(half, split=...)` followed by the original cube move;
   vector leaves are halved, cube leaves stay full size;
4. no cube op touches a halved tile (InternalError otherwise);
5. attrs `split` + `split_aiv` (earlier split / split_aiv / dual_aiv_dispatch entries dropped).
"""

from __future__ import annotations

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.analysis.walk import op_calls
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ir.types import ScalarType, TileType
from pypto_core.ir.utils import describe_operand, flatten_to_stmts, make_body
from pypto_core.ops.build import same_dim, static_int
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_split.split_axis.facts import Split
from pypto_plugins.pass_split.split_axis.halving import with_valid_region
from pypto_plugins.pass_split.split_axis.lanes import (
    LanePartition,
    balanced_stride,
    lane_one_may_be_empty,
)
from pypto_plugins.pass_split.split_axis.modes import mode_of_dimension, split_dimension
from pypto_plugins.pass_split.split_axis.splitter import (
    Splitter,
    check_no_cube_tile_halved,
    with_lane_extent,
)

SPLIT_ATTRS = ("split", "split_aiv", "dual_aiv_dispatch")


def crossing(call: E.Call) -> str | None:
    """'c2v' / 'v2c' for a call that moves one tile across the cube / vector boundary, else None."""
    if classify_call_affinity(call) is not CoreAffinity.MIXED or not isinstance(call.type, TileType):
        return None
    tiles = [a for a in call.args if isinstance(a.type, TileType)]
    if len(tiles) != 1:
        return None
    src, dst = tiles[0].type.memory_space, call.type.memory_space  # type: ignore[attr-defined]
    if src is None or dst is None or src.is_cube() == dst.is_cube():
        return None
    return "c2v" if src.is_cube() else "v2c"


def choose_partition(body: S.Stmt, dim: int, subblock: E.Var) -> LanePartition:
    """docs/passes/lower_auto_vector_split.md, lane extents: balance a ragged boundary only when that is both needed and safe."""
    boundaries: set[tuple[int | None, int | None]] = set()
    for call in op_calls(body):
        side = crossing(call)
        if side == "v2c":
            return LanePartition(subblock)  # gather joins the lanes at their own extents: box only
        if side == "c2v":
            t = boundary_result(call)  # the boundary's result as written: its valid region is the one the lanes share
            if dim >= len(t.shape):
                return LanePartition(subblock)  # no split axis: _shard reports it
            boundaries.add((static_int(t.shape[dim]), static_int(t.valid_shape[dim])))
        elif _independent_source(call, dim):
            return LanePartition(subblock)  # a tile the boundary does not feed spans the whole box
    if len(boundaries) != 1:
        return LanePartition(subblock)
    ((box, valid),) = boundaries
    if box is None or valid is None:
        return LanePartition(subblock)
    return LanePartition(subblock, balanced_stride(box, valid))


def boundary_result(call: E.Call) -> TileType:
    """A cube -> vector move's result as the program wrote it, its valid region no wider than its source's: an
    annotation narrowing the region is the program's meaning (the rest is poison), one widening it adds no
    valid data (docs/passes/lower_auto_vector_split.md, lane extents; taken as written, `valid_shape=[]` on a move of a 127-row source would make
    lane 1 read past the box)."""
    t, src = call.type, call.args[0].type
    assert isinstance(t, TileType)
    if not isinstance(src, TileType) or len(src.shape) != len(t.shape):
        return t
    valid: list[E.Expr] = []
    for declared, source, box in zip(t.valid_shape, src.valid_shape, t.shape):
        d, v = static_int(declared), static_int(source)
        if same_dim(declared, box) or (d is not None and v is not None and v < d):
            valid.append(source)
        else:
            valid.append(declared)
    if all(a is b for a, b in zip(valid, t.valid_shape)):
        return t
    return with_valid_region(t, valid)


def _independent_source(call: E.Call, dim: int) -> bool:
    """A vector tile that does not derive from a boundary: a load or a generator with a split extent."""
    t = call.type
    if classify_call_affinity(call) is not CoreAffinity.VECTOR or not isinstance(t, TileType) or len(t.shape) != 2:
        return False
    if any(isinstance(a.type, TileType) for a in call.args):
        return False
    return static_int(t.shape[dim]) != 1


class AutoSplitter(Splitter):
    """The splitter with the AUTO path's boundaries."""

    def boundary(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        side = crossing(call)
        if side == "c2v":
            return self._shard(call, args)
        if side == "v2c":
            return self._gather(call, args, result)
        return self.keep(call, args)

    def _shard(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        src = args[0]
        # The move's result as the program wrote it: a declared valid region narrower than the source's is the
        # program's meaning (the rest is poison), so the lanes keep it rather than re-deriving the source's.
        full = boundary_result(call)
        if self.dim >= len(full.shape):
            # A rank-1 boundary under LEFT_RIGHT has no dim to split: say so rather than index past its dims.
            raise self.reject(f"the cube -> vector boundary moves a rank-{len(full.shape)} tile ({full}), which has no "
                              f"dim {self.dim} for {self.mode.name} to split; give the tile two dims (pl.reshape it "
                              f"to [1, N] or [N, 1]) or split along a dim it has")
        kwargs: dict[str, int] = {"split": int(self.mode)}
        stride = self.partition.balanced_stride
        if stride is not None:
            kwargs["lane_stride"] = stride
        shard = self.call("tile.aiv_shard", [src], kwargs)
        t = shard.type
        assert isinstance(t, TileType)
        valid = [w if a != self.dim else v for a, (v, w) in enumerate(zip(t.valid_shape, full.valid_shape))]
        lane_extent = self.partition.lane_valid(full.valid_shape[self.dim], full.shape[self.dim])
        # A runtime extent: the pop moves the whole box (pto-isa places lane 1's data by the popped tile's own
        # extent, and no split code fits every runtime value); the consumers, halved from their full-width
        # types, carry the lane's extent (docs/passes/lower_auto_vector_split.md, lane extents).
        runtime = static_int(full.valid_shape[self.dim]) is None
        valid[self.dim] = t.shape[self.dim] if runtime else lane_extent
        shard = shard.with_fields(type=with_valid_region(t, valid))  # type: ignore[assignment]
        self.facts.record(shard, Split(self.dim, may_be_empty=lane_one_may_be_empty(lane_extent),
                                       lane_extent=lane_extent if runtime else None))
        return shard

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        return super().rewrite_call(call, with_lane_extent(self, call, args, self.facts, self.dim), result)

    def _gather(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        src = args[0]
        axis = self.facts.axis_of(src)
        if axis is None:
            raise self.reject(
                f"the V->C boundary {call.op.name} here carries a full-width vector operand '{describe_operand(src)}'. "
                f"tile.aic_gather reassembles the two AIV lanes' per-lane halves into the full tile the cube "
                f"expects, so its operand must be a value the split halving produced (a tile.load / tile.slice / "
                f"elementwise result inside the vector sub-region). An un-halved value has no half to gather — "
                f"either derive the per-lane half first (load or slice the value inside the split function) and "
                f"move that to the cube side, or, if the split axis is a singleton that cannot be halved, keep the "
                f"value on the vector side.")
        try:
            code = int(mode_of_dimension(axis))
        except ValueError as exc:
            raise self.reject(f"the V->C boundary's operand '{describe_operand(src)}' is split on {exc}") from None
        gather = self.call("tile.aic_gather", [src], {"split": code})
        full = call.args[0].type  # the operand as the program wrote it: the gathered extent is its valid one
        t = gather.type
        if isinstance(full, TileType) and isinstance(t, TileType):
            valid = list(t.valid_shape)
            valid[axis] = full.valid_shape[axis]
            gather = gather.with_fields(type=with_valid_region(t, valid))  # type: ignore[assignment]
        name = f"{user_base(result)}_mat" if result is not None else "gathered_mat"
        whole = self.bind(gather, name)
        return self.call(call.op.name, [whole], dict(call.kwargs))


def split_attrs(attrs: dict, mode: SplitMode) -> dict:
    kept = {k: v for k, v in attrs.items() if k not in SPLIT_ATTRS}
    return {**kept, "split": int(mode), "split_aiv": True}


def lower_auto_function(func: F.Function, mode: SplitMode) -> F.Function:
    dim = split_dimension(mode)
    fresh = FreshNames(func)
    subblock = E.Var(fresh("subblock_idx"), ScalarType(DataType.INDEX), func.span)
    partition = choose_partition(func.body, dim, subblock)
    splitter = AutoSplitter(func, mode, partition)
    splitter.fresh = fresh
    body = splitter.body(func.body)
    check_no_cube_tile_halved(body, splitter.facts, func)
    inject = S.AssignStmt(subblock, create_op_call("tile.get_subblock_idx", [], span=func.span), func.span)
    body = make_body([inject, *flatten_to_stmts(body)], func.body.span)
    return func.with_fields(body=body, attrs=split_attrs(dict(func.attrs), mode))  # type: ignore[return-value]
