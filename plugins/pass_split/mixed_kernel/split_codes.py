"""The pto-isa split code of a transfer (docs/passes/lower_auto_vector_split.md, split codes; ShardSplitCode /
GatherSplitCode).

A boundary carries the MODE the author chose (0 / 1 / 2); its transfer pair carries a CODE 0..4 derived
from that mode and the full-width tile's extent on the split axis. Lane 1's data starts at e1 * pitch for
an even code and at (e1 + 1) * pitch for an odd one, so the two lane extents must be placeable: e0 == e1
or e1 == 0 (even code), e0 == e1 + 1 (odd code). A runtime extent moves the full box: even code. A gather
has no odd form: lane l's part lands at l * box (the V2C pop reads no valid extent), so the parts are
adjacent only when lane 0 holds its full box or lane 1 holds nothing.
"""

from __future__ import annotations

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.types import TileType, Type
from pypto_core.ir.utils import free_vars_in_order
from pypto_core.ops.build import static_int
from pypto_plugins.pass_split.split_axis.lanes import lane_extents
from pypto_plugins.pass_split.split_axis.modes import split_code, split_dimension

AXIS_WORD = {0: "rows", 1: "columns"}


def boundary_mode(call: E.Call) -> SplitMode:
    return SplitMode(int(call.kwargs.get("split") or 0))


def shard_code(call: E.Call, where: str, lanes: frozenset[int] = frozenset(), result: Type | None = None) -> int:
    """The C->V code of `tile.aiv_shard(full, split=mode[, lane_stride=S])`. The lane extents are the
    source's full-width extent partitioned by the stride, each narrowed to the shard's own (`result`, the type its
    statement declares, evaluated for each lane of `lanes`) when that is static: a boundary whose annotation
    narrows the source's valid region places the lanes by that narrower region
    (docs/passes/lower_auto_vector_split.md, lane extents)."""
    mode = boundary_mode(call)
    if mode is SplitMode.NONE:
        return 0
    full = call.args[0].type
    if not isinstance(full, TileType):
        return split_code(mode, odd=False)
    dim = split_dimension(mode)
    box = static_int(full.shape[dim])
    valid = static_int(full.valid_shape[dim])
    stride = static_int(call.kwargs.get("lane_stride")) if call.kwargs.get("lane_stride") is not None else None
    stride = stride or ((box + 1) // 2 if box is not None else None)
    if box is None or valid is None or stride is None:
        return split_code(mode, odd=False)  # a runtime extent: the full box moves, lane 1 at the half
    e0, e1 = lane_extents(valid, stride)
    declared = _declared_lane_extents(result, dim, lanes)
    if declared is not None:  # an annotation may narrow a lane's part, never widen it past the source's
        e0, e1 = min(e0, declared[0]), min(e1, declared[1])
        valid = e0 + e1
    if e0 == e1 or e1 == 0:
        return split_code(mode, odd=False)
    if e0 == e1 + 1:
        return split_code(mode, odd=True)
    feasible = sorted({v for v in range(box + 1) if _placeable(v, stride)})
    raise UserError(f"{where}: {call.op.name} of {_name(call.args[0])} ({mode.name}, {valid} of {box} "
                    f"{AXIS_WORD[dim]} valid, lane stride {stride}) leaves the two AIV lanes {e0} and {e1} cells on "
                    f"the split axis; a transfer places lane 1's data from its own extent, so the lanes must hold "
                    f"equal extents, lane 0 one more, or lane 1 nothing: valid extents {_ranges(feasible)} are "
                    f"placeable with this stride; pad the tile on that axis, or balance the lanes with "
                    f"lane_stride={(valid + 1) // 2}", call.span)


def _declared_lane_extents(t: Type | None, dim: int, lanes: frozenset[int]) -> tuple[int, int] | None:
    """Each lane's extent on the split axis in a lane tile type localised to the lane (an expression of the lane
    index, as LowerAutoVectorSplit writes it), when both are static. A lane-independent extent is the op's
    type rule's guess (ceil of half the source's), not a declaration: None."""
    if not isinstance(t, TileType) or not lanes:
        return None
    extent = t.valid_shape[dim]
    if not any(id(v) in lanes for v in free_vars_in_order([extent])):
        return None
    e0, e1 = (eval_int(extent, {k: lane for k in lanes}) for lane in (0, 1))
    return None if e0 is None or e1 is None else (e0, e1)


def gather_code(call: E.Call, where: str, lanes: frozenset[int]) -> int:
    """The V->C code of `tile.aic_gather(half, split=mode)`: always even; `lanes` are the ids of the lane index
    variables, so that a per-lane valid extent is evaluated for each lane."""
    mode = boundary_mode(call)
    if mode is SplitMode.NONE:
        return 0
    half = call.args[0].type
    if isinstance(half, TileType):
        dim = split_dimension(mode)
        box = static_int(half.shape[dim])
        g0, g1 = (eval_int(half.valid_shape[dim], {k: lane for k in lanes}) for lane in (0, 1))
        # Lane l's part lands at l * box: the parts are adjacent when lane 0 is full or lane 1 is empty.
        if box is not None and g0 is not None and g1 is not None and g1 != 0 and g0 < box:
            held = f"{g0} of their {box}" if g0 == g1 else f"{g0} and {g1} of their {box}"
            raise UserError(f"{where}: {call.op.name} of {_name(call.args[0])} ({mode.name}): the two AIV lanes hold "
                            f"{held} {AXIS_WORD[dim]}, so lane 1's part, which lands at {box}, would leave a gap after "
                            f"lane 0's (a gather only has even codes and its pop reads no valid extent); pad the operand to its "
                            f"full box on the split axis, then narrow the result on the cube side", call.span)
    return split_code(mode, odd=False)


_FOLD = {E.Add: lambda a, b: a + b, E.Sub: lambda a, b: a - b, E.Mul: lambda a, b: a * b,
         E.FloorDiv: lambda a, b: a // b if b else None, E.FloorMod: lambda a, b: a % b if b else None,
         E.Min: min, E.Max: max}


def eval_int(e: E.Expr, env: dict[int, int]) -> int | None:
    """An integer expression's value with the variables of `env` (by id) bound; None if it depends on others."""
    if isinstance(e, E.ConstInt):
        return e.value
    if isinstance(e, E.Var):
        return env.get(id(e))
    fold = _FOLD.get(type(e))  # type: ignore[arg-type]
    if fold is None:
        return None
    a, b = eval_int(e.left, env), eval_int(e.right, env)  # type: ignore[attr-defined]
    return None if a is None or b is None else fold(a, b)


def _placeable(valid: int, stride: int) -> bool:
    e0, e1 = lane_extents(valid, stride)
    return e0 == e1 or e1 == 0 or e0 == e1 + 1


def _ranges(values: list[int]) -> str:
    """[0, 1, 2, 3, 7, 8] -> '0..3, 7, 8' (a run of three or more is written as a range)."""
    runs: list[list[int]] = []
    for v in values:
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    parts: list[str] = []
    for run in runs:
        parts += [f"{run[0]}..{run[-1]}"] if len(run) >= 3 else [str(v) for v in run]
    return ", ".join(parts)


def _name(e: E.Expr) -> str:
    return f"'{e.name_hint}'" if isinstance(e, E.Var) else "its operand"
