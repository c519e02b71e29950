"""Which tile operands can the type deducer not see? (the second condition of a sound halved call:
docs/passes/lower_auto_vector_split.md, when a halved call is sound)

For every registered `tile.*` op, a representative call (FIXTURES) is deduced once; then each tile
operand in turn is doubled on the split axis (dim 0, then dim 1) and the call is deduced again. If
that errors or changes the result, the deducer "sees" the operand and the split pass's own
re-deduction (condition 1) already decides it. Otherwise the operand is blind, and only a registry
declaration can say whether full width is its contract.

The blind set is pinned in EXPECTED_BLIND, so a new op or a loosened deducer must be classified:
* a blind operand is either declared lane-invariant (`DECLARED`) or listed with the reason it is
  lane data / handled elsewhere;
* a Scratch declaration on an operand the deducer already decides is an error (it claims a contract
  the op does not give; tile.rsqrt's tmp, which its deducer checks, is undeclared). The absolute-index
  categories stay even where the deducer reads the operand: that property is not expressible as a shape
  relation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ops.opdef import LaneCategory
from pypto_core.ops.registry import get_opdef, op_registry

from . import (
    lane_fixtures_broadcast_reduce,
    lane_fixtures_elementwise_extra,
    lane_fixtures_gather_sort,
    lane_fixtures_system_matmul,
    lane_fixtures_views_alloc,
)
from .helpers import Blind

FP32, FP16, INT32, BOOL = pl.FP32, pl.FP16, pl.INT32, pl.BOOL
Vec, Mat, Left, Right, Acc = pl.Mem.Vec, pl.Mem.Mat, pl.Mem.Left, pl.Mem.Right, pl.Mem.Acc


def tile(shape: list[int], dtype: Any = FP32, mem: Any = Vec) -> ir.Var:
    return ir.Var("t", ir.TileType(shape, dtype, memory_space=mem))


def tensor(shape: list[int], dtype: Any = FP32) -> ir.Var:
    return ir.Var("g", ir.TensorType(shape, dtype))


def dims(*values: int) -> ir.MakeTuple:
    return ir.MakeTuple([ir.ConstInt(v, pl.INDEX) for v in values])


def i(v: int, dtype: Any = pl.INDEX) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


def f(v: float) -> ir.ConstFloat:
    return ir.ConstFloat(v, FP32)


Call = tuple[list[Any], dict[str, Any]]


def V(dtype: Any = FP32) -> ir.Var:  # noqa: N802 - the standard [16, 128] Vec tile
    return tile([16, 128], dtype)


def _binary(int_only: bool = False) -> Callable[[], Call]:
    return lambda: ([V(INT32), V(INT32)] if int_only else [V(), V()], {})


def _scalar(int_only: bool = False) -> Callable[[], Call]:
    return lambda: ([V(INT32), i(3, INT32)] if int_only else [V(), f(2.0)], {})


def _bias() -> ir.Var:
    return tile([1, 32], FP32, pl.Mem.Bias)


def _gemv_acc() -> ir.Var:
    """A gemv accumulator: [16, 32] in Acc with row 0 valid (the type tile.gemv gives)."""
    product = get_opdef("tile.gemv").deduce_type([tile([1, 64], FP16, Left), tile([64, 32], FP16, Right)], {})
    return ir.Var("acc", product)


# op -> a representative call (args, kwargs). One readable place for every tile.* op.
FIXTURES: dict[str, Callable[[], Call]] = {
    "tile.load": lambda: ([tensor([64, 128]), dims(0, 0), dims(16, 128), dims(16, 128)], {"target_memory": Vec}),
    "tile.store": lambda: ([V(), dims(0, 0), tensor([64, 128])], {}),
    "tile.move": lambda: ([tile([64, 128], FP16, Mat)], {"target_memory": Left}),
    "tile.extract": lambda: ([tile([64, 128], FP16, Mat), i(0), i(0), dims(16, 64)], {"target_memory": Left}),
    "tile.read": lambda: ([V(), dims(0, 0)], {}),
    "tile.write": lambda: ([V(), dims(0, 0), f(1.0)], {}),
    "tile.full": lambda: ([dims(16, 128), f(0.0)], {"dtype": FP32}),
    "tile.create": lambda: ([dims(16, 128)], {"dtype": FP32, "target_memory": Vec}),
    "tile.ci": lambda: ([i(0, INT32), dims(1, 128)], {"dtype": INT32, "descending": False}),
    "tile.random": lambda: ([i(1), i(2), i(0), i(0), i(0), i(0), dims(16, 128)], {"dtype": pl.UINT32, "rounds": 10}),
    "tile.recip": lambda: ([V()], {}),
    "tile.rsqrt": lambda: ([V(), V()], {}),
    "tile.cast": lambda: ([V()], {"target_type": FP16, "mode": 2}),
    "tile.cmp": lambda: ([V(), V()], {"cmp_type": 0}),
    "tile.cmps": lambda: ([V(), f(0.0)], {"cmp_type": 0}),
    # packed masks (docs/reference/ops.md, tile.cmp): UINT8 rows of roundup(ceil(128 / 8), 32) = 32 bytes
    "tile.sel": lambda: ([tile([16, 32], pl.UINT8), V(), V(), V()], {}),
    "tile.sels": lambda: ([tile([16, 32], pl.UINT8), V(), V(), f(0.0)], {}),
    "tile.slice": lambda: ([V(), dims(8, 64), dims(0, 0)], {}),
    "tile.reshape": lambda: ([V(), dims(128, 16)], {}),
    "tile.reinterpret_view": lambda: ([V()], {"dtype": FP16}),
    "tile.transpose": lambda: ([V(), i(0), i(1), V()], {}),
    "tile.transpose_view": lambda: ([V()], {}),
    "tile.set_validshape": lambda: ([V(), i(8), i(64)], {}),
    "tile.assemble": lambda: ([V(), tile([8, 64]), dims(0, 0)], {}),
    "tile.row_argmax": lambda: ([V(), V()], {}),
    "tile.matmul": lambda: ([tile([16, 64], FP16, Left), tile([64, 32], FP16, Right)], {}),
    "tile.matmul_acc": lambda: ([tile([16, 32], FP32, Acc), tile([16, 64], FP16, Left), tile([64, 32], FP16, Right)],
                                {}),
    "tile.matmul_bias": lambda: ([tile([16, 64], FP16, Left), tile([64, 32], FP16, Right), _bias()], {}),
    "tile.gemv": lambda: ([tile([1, 64], FP16, Left), tile([64, 32], FP16, Right)], {}),
    "tile.gemv_acc": lambda: ([_gemv_acc(), tile([1, 64], FP16, Left), tile([64, 32], FP16, Right)], {}),
    "tile.gemv_bias": lambda: ([tile([1, 64], FP16, Left), tile([64, 32], FP16, Right), _bias()], {}),
    "tile.batch_matmul": lambda: ([tile([2, 16, 64], FP16, Left), tile([2, 64, 32], FP16, Right)], {}),
    "tile.batch_matmul_acc": lambda: ([tile([2, 16, 32], FP32, Acc), tile([2, 16, 64], FP16, Left),
                                       tile([2, 64, 32], FP16, Right)], {}),
    "tile.gather": lambda: ([V(), V(INT32), V()], {}),
    "tile.gatherb": lambda: ([V(), V(INT32)], {}),
    "tile.scatter": lambda: ([tile([64, 128]), V(), V(INT32)], {}),
    "tile.scatter_update": lambda: ([tile([64, 128]), tile([2, 8], INT32), V()], {"dim": -2}),
    "tile.gather_compare": lambda: ([V(), f(0.5), V()], {"cmp_mode": 0, "out_cols": 32}),
    "tile.gather_row": lambda: ([V(), tensor([64, 128]), dims(0, 0), dims(0, 0), dims(1, 128)], {}),
    "tile.get_subblock_idx": lambda: ([], {}),
    "tile.get_block_idx": lambda: ([], {}),
    "tile.aiv_shard": lambda: ([tile([16, 32], FP32, Acc)], {"split": 1}),
    "tile.aic_gather": lambda: ([V()], {"split": 1}),
    "tile.tpush_to_aiv": lambda: ([tile([16, 32], FP32, Acc)], {"split": 1}),
    "tile.tpush_to_aic": lambda: ([V()], {"split": 1}),
    "tile.tpop_from_aic": lambda: ([], {"split": 1}),
    "tile.tpop_from_aiv": lambda: ([], {"split": 1}),
}


def _family(names: tuple[str, ...], make: Callable[[str], Callable[[], Call]]) -> None:
    for n in names:
        FIXTURES.setdefault(f"tile.{n}", make(n))


def _fill_families() -> None:
    from pypto_plugins.ops_tile.common import names as ew
    from pypto_plugins.ops_tile.common import names as red

    _family(ew.BINARY, lambda n: _binary(n in ew.INTEGER_ONLY))
    _family(ew.SCALAR, lambda n: _scalar(n[:-1] in ew.INTEGER_ONLY))
    _family(ew.UNARY, lambda n: (lambda: ([V(INT32) if n in ew.INTEGER_ONLY else V()], {})))
    _family(red.ROW, lambda n: (lambda: ([V(), V()], {})))
    _family(red.COL, lambda n: (lambda: ([V(), V()], {})))
    _family(tuple(f"row_expand_{n}" for n in red.EXPAND), lambda n: (lambda: ([V(), tile([16, 1])], {})))
    _family(tuple(f"col_expand_{n}" for n in red.EXPAND), lambda n: (lambda: ([V(), tile([1, 128])], {})))


_fill_families()


DECLARED = None
_REDUCES_SPLIT_AXIS = "doubling the reduced axis: the split passes reject a reduction on the split axis " \
                      "(reduction_axes trait)"
_SHAPE_DESCRIBING = "shape-describing op: the split passes rewrite its shape operands first (split_form)"

EXPECTED_BLIND: dict[tuple[str, int], Blind] = {
    # Declared lane-invariant: hardware scratch and index-addressed tables.
    **{(f"tile.{n}", 1): Blind((0, 1)) for n in ("row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min")},
    ("tile.transpose", 3): Blind((0, 1)),
    ("tile.sel", 3): Blind((0, 1)),
    ("tile.sels", 2): Blind((0, 1)),
    ("tile.gather", 0): Blind((0, 1)),
    ("tile.gather", 2): Blind((0, 1)),
    ("tile.gatherb", 0): Blind((0, 1)),
    ("tile.gather_compare", 2): Blind((0, 1)),
    # Blind and deliberately undeclared: lane data (the safe default) or handled by another rule.
    # (row_* are not blind: their tmp must be at least the operand's shape (docs/reference/ops.md), so a doubled
    # operand is rejected.)
    **{(f"tile.{n}", 0): Blind((axis,), _REDUCES_SPLIT_AXIS) for n, axis in (
        ("col_sum", 0), ("col_max", 0), ("col_min", 0))},
    ("tile.gather_compare", 0): Blind((1,), "both tuple elements are sized by src's rows: a LEFT_RIGHT split moves "
                                           "no element and is rejected (each tuple element moves on its own axis)"),
    ("tile.sel", 0): Blind((0, 1), "the mask is lane data; sel only checks it is a tile"),
    ("tile.sels", 0): Blind((0, 1), "the mask is lane data; sels only checks that it covers src's valid rows and "
                                    "holds enough packed bits per row"),
    ("tile.slice", 0): Blind((0, 1), _SHAPE_DESCRIBING),
    ("tile.store", 0): Blind((0,), "the result is the target tensor; the split passes localise the store offset"),
    ("tile.assemble", 1): Blind((0, 1), "a window write addressed by its offset, localised like tile.store"),
    ("tile.extract", 0): Blind((0, 1), "a cube-side window read addressed by row/col (read_address_args)"),
    ("tile.read", 0): Blind((0, 1), "a scalar result: one element addressed by its indices"),
    ("tile.tpush_to_aiv", 0): Blind((0, 1), "transport with no result type; the boundary carries the split code"),
    ("tile.tpush_to_aic", 0): Blind((0, 1), "transport with no result type; the boundary carries the split code"),
}

# The element-wise extra, broadcast / reduce, views / alloc, gather / sort and system / matmul ops keep their
# fixtures and blind operands in their own modules.
_FAMILY_FIXTURES = (lane_fixtures_elementwise_extra, lane_fixtures_broadcast_reduce, lane_fixtures_views_alloc,
                    lane_fixtures_gather_sort, lane_fixtures_system_matmul)
for _module in _FAMILY_FIXTURES:
    FIXTURES.update(_module.FIXTURES)
    EXPECTED_BLIND.update(_module.EXPECTED_BLIND)


def _deduce(op: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    try:
        return get_opdef(op).deduce_type(args, kwargs)
    except (TypeError, ValueError) as exc:
        return exc


def _doubled(operand: ir.Var, axis: int) -> ir.Var:
    t = operand.type
    shape = [d.value for d in t.shape]
    shape[axis] *= 2
    return ir.Var(operand.name_hint, ir.TileType(shape, t.dtype, memory_space=t.memory_space))


def tile_ops() -> list[str]:
    return sorted(n for n in op_registry().ops if n.startswith("tile."))


def measure_blind() -> dict[tuple[str, int], tuple[int, ...]]:
    blind: dict[tuple[str, int], tuple[int, ...]] = {}
    for op in tile_ops():
        args, kwargs = FIXTURES[op]()
        base = _deduce(op, args, kwargs)
        assert not isinstance(base, Exception), f"the fixture of {op} does not deduce: {base}"
        for index, arg in enumerate(args):
            if not isinstance(arg.type, ir.TileType):
                continue
            axes = []
            for axis in range(min(2, len(arg.type.shape))):
                probe = list(args)
                probe[index] = _doubled(arg, axis)
                result = _deduce(op, probe, kwargs)
                if not isinstance(result, Exception) and result == base:
                    axes.append(axis)
            if axes:
                blind[(op, index)] = tuple(axes)
    return blind


def test_every_tile_op_has_a_fixture():
    assert [op for op in tile_ops() if op not in FIXTURES] == []
    assert [op for op in FIXTURES if op not in op_registry().ops] == []


def test_blind_set_is_pinned():
    measured = measure_blind()
    expected = {key: b.axes for key, b in EXPECTED_BLIND.items()}
    new = {k: v for k, v in measured.items() if expected.get(k) != v}
    gone = {k: v for k, v in expected.items() if measured.get(k) != v}
    assert not new and not gone, (
        f"blind operands changed; classify them in EXPECTED_BLIND.\n now blind: {new}\n no longer blind: {gone}")


@pytest.mark.parametrize("key", sorted(EXPECTED_BLIND))
def test_blind_operand_is_declared_or_explained(key: tuple[str, int]):
    op, index = key
    category = get_opdef(op).lane_category(index)
    if EXPECTED_BLIND[key].why is DECLARED:
        assert category is not None, f"{op} operand {index} is blind but not declared lane-invariant"
    else:
        assert category is None, f"{op} operand {index} is declared {category}; list it as DECLARED"
        assert EXPECTED_BLIND[key].why.strip()


def test_no_scratch_declaration_on_an_operand_the_deducer_decides():
    measured = measure_blind()
    for op in tile_ops():
        for index, category in get_opdef(op).lane_invariant.items():
            args, _ = FIXTURES[op]()
            assert index < len(args) or get_opdef(op).args[index].optional, f"{op}: declaration on no operand"
            if category is LaneCategory.SCRATCH:
                assert (op, index) in measured, (
                    f"{op} operand {index} is declared Scratch but the deducer already decides it; drop the "
                    f"declaration (tile.rsqrt's tmp, which its deducer checks, has none)")


def test_reduction_blindness_is_the_reduction_axes_trait():
    for (op, index), blind in EXPECTED_BLIND.items():
        if blind.why == _REDUCES_SPLIT_AXIS:
            assert index == 0 and blind.axes == get_opdef(op).traits.reduction_axes


def test_lane_categories_of_the_index_and_scratch_operands():
    assert get_opdef("tile.gather").lane_category(0) is LaneCategory.INDEX_ADDRESSED_SOURCE
    assert get_opdef("tile.gatherb").lane_category(0) is LaneCategory.INDEX_ADDRESSED_SOURCE
    assert get_opdef("tile.scatter").lane_category(0) is LaneCategory.ABSOLUTE_INDEXED_DESTINATION
    assert get_opdef("tile.scatter_update").lane_category(0) is LaneCategory.ABSOLUTE_INDEXED_DESTINATION
    assert get_opdef("tile.row_sum").lane_category(1) is LaneCategory.SCRATCH
    # Checked relations instead of declarations: scatter_update's index and src.
    assert get_opdef("tile.scatter_update").lane_category(1) is None
    assert get_opdef("tile.scatter_update").lane_category(2) is None
    assert get_opdef("tile.row_argmax").lane_category(1) is None
    assert get_opdef("tile.rsqrt").lane_category(1) is None
