"""What the registry reports about the plugin's ops: effects, lanes, traits, roles, affinity (docs/plugins.md,
OpDef fields)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import system_ops as S
from pypto.ir.op import tensor_ops
from pypto.ir.op import tile_ops as T
from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.ops.opdef import CoreAffinity, CrossCoreRole, Effect
from pypto_core.ops.registry import get_opdef, op_registry

from .helpers import tensor, tile

CUBE, VECTOR, SHARED, MIXED = CoreAffinity.CUBE, CoreAffinity.VECTOR, CoreAffinity.SHARED, CoreAffinity.MIXED
Vec, Mat, Left, Right, Acc = pl.Mem.Vec, pl.Mem.Mat, pl.Mem.Left, pl.Mem.Right, pl.Mem.Acc


def effects(call: ir.Call) -> dict[int, Effect]:
    opdef = get_opdef(call.op.name)
    return {i: opdef.arg_effect(i, call.kwargs) for i in range(len(call.args))}


def test_write_effects():
    out = tensor([64, 64])
    assert effects(T.store(tile([16, 64]), [0, 0], out)) == {0: Effect.READ, 1: Effect.READ, 2: Effect.WRITE}
    assert effects(T.store(tile([16, 64]), [0, 0], out, atomic=pl.AtomicType.Add))[2] is Effect.READ_WRITE
    assert effects(tensor_ops.assemble(out, tensor([8, 64]), [0, 0]))[0] is Effect.WRITE
    assert effects(tensor_ops.assemble(out, tensor([8, 64]), [0, 0], atomic=1))[0] is Effect.READ_WRITE
    assert effects(T.assemble(tile([16, 64]), tile([8, 64]), [0, 0]))[0] is Effect.READ_WRITE  # the rest is kept
    assert effects(T.assemble(tile([16, 64]), tile([8, 64]), [0, 0], atomic=pl.AtomicType.Add))[0] is \
        Effect.READ_WRITE
    assert effects(tensor_ops.write(out, [0, 0], 1.0))[0] is Effect.WRITE
    acc = tile([16, 32], mem=Acc)
    assert effects(T.matmul_acc(acc, tile([16, 8], pl.FP16, Left), tile([8, 32], pl.FP16, Right)))[0] is \
        Effect.READ_WRITE
    idx = tile([16, 64], pl.INT32)
    # The untouched part of each destination is kept, so it is read too.
    assert effects(T.scatter(tile([64, 64]), tile([16, 64]), idx))[0] is Effect.READ_WRITE
    assert effects(T.scatter_update(tile([64, 64]), tile([16, 1], pl.INT32), tile([16, 64])))[0] is Effect.READ_WRITE
    assert effects(T.gather_row(tile([16, 64]), out, [0, 0], [0, 0], [1, 64])) == {
        0: Effect.READ_WRITE, 1: Effect.READ, 2: Effect.READ, 3: Effect.READ, 4: Effect.READ}
    assert effects(T.add(tile([8, 8]), tile([8, 8]))) == {0: Effect.READ, 1: Effect.READ}


def test_traits():
    ops = op_registry().ops
    assert {n for n, d in ops.items() if d.traits.positional_generator} == {"tile.ci", "tile.random"}
    assert {n for n, d in ops.items() if d.traits.pure_generator} == {"tile.full", "tensor.full", "tile.ci",
                                                                      "tile.random", "tile.create"}
    assert {n for n, d in ops.items() if n.startswith("tile.") and d.traits.shape_describing} == {
        "tile.full", "tile.create", "tile.slice", "tile.reshape", "tile.reinterpret_view"}
    read_addresses = {n: d.traits.read_address_args for n, d in ops.items()
                      if n.startswith("tile.") and d.traits.read_address_args}
    assert read_addresses == {"tile.load": (1,), "tile.slice": (2,), "tile.extract": (1, 2), "tile.gather_row": (3,)}
    for name in ("row_sum", "row_max", "row_min", "row_argmax"):
        assert get_opdef(f"tile.{name}").traits.reduction_axes == (1,)
    for name in ("col_sum", "col_max", "col_min"):
        assert get_opdef(f"tile.{name}").traits.reduction_axes == (0,)
    assert get_opdef("tile.add").traits.reduction_axes == ()


def test_cross_core_roles_and_no_duplicate():
    roles = {n: d.cross_core_role for n, d in op_registry().ops.items() if d.cross_core_role is not None}
    assert roles == {
        "tile.tpush_to_aiv": CrossCoreRole.PUSH, "tile.tpush_to_aic": CrossCoreRole.PUSH,
        "tile.tpop_from_aic": CrossCoreRole.POP, "tile.tpop_from_aiv": CrossCoreRole.POP,
        "system.tfree_to_aic": CrossCoreRole.FREE, "system.tfree_to_aiv": CrossCoreRole.FREE,
        "system.reserve_buffer": CrossCoreRole.PIPE_SETUP, "system.import_peer_buffer": CrossCoreRole.PIPE_SETUP,
        "system.aic_initialize_pipe": CrossCoreRole.PIPE_SETUP, "system.aiv_initialize_pipe": CrossCoreRole.PIPE_SETUP,
    }
    # Only notify-like ops are no-duplicate (docs/plugins.md, OpDef fields); this plugin registers none (ops_comm
    # has notify).
    registry = op_registry()
    assert [n for n, d in registry.ops.items() if d.no_duplicate and registry.op_owners[n] == "ops_tile"] == []


AFFINITY_CASES = {
    "create in Mat is SHARED (fixed)": (lambda: T.create([16, 16], pl.FP32, target_memory=Mat), SHARED),
    "load to Vec": (lambda: T.load(tensor([64, 64]), [0, 0], [16, 64]), VECTOR),
    "load to Mat": (lambda: T.load(tensor([64, 64]), [0, 0], [16, 64], target_memory=Mat), CUBE),
    "store from Vec": (lambda: T.store(tile([16, 64]), [0, 0], tensor([64, 64])), VECTOR),
    "store from Acc": (lambda: T.store(tile([16, 64], mem=Acc), [0, 0], tensor([64, 64])), CUBE),
    "move Mat -> Vec": (lambda: T.move(tile([16, 64], mem=Mat), Vec), MIXED),
    "move Vec -> Mat": (lambda: T.move(tile([16, 64]), Mat), MIXED),
    "move Mat -> Left": (lambda: T.move(tile([16, 64], pl.FP16, Mat), Left), CUBE),
    "move Vec -> Vec": (lambda: T.move(tile([16, 64]), Vec), VECTOR),
    "add": (lambda: T.add(tile([16, 64]), tile([16, 64])), VECTOR),
    "full": (lambda: T.full([16, 64], pl.FP32, 0.0), VECTOR),
    "matmul": (lambda: T.matmul(tile([16, 8], pl.FP16, Left), tile([8, 32], pl.FP16, Right)), CUBE),
    "extract to Left": (lambda: T.extract(tile([64, 64], pl.FP16, Mat), 0, 0, [16, 64], target_memory=Left), CUBE),
    "slice of a Mat tile": (lambda: T.slice(tile([64, 64], mem=Mat), [16, 64], [0, 0]), CUBE),
    "set_validshape of a Vec tile": (lambda: T.set_validshape(tile([16, 64]), 8, 64), VECTOR),
    "get_subblock_idx": (lambda: T.get_subblock_idx(), VECTOR),
    "tile.aiv_shard": (lambda: T.aiv_shard(tile([16, 64], mem=Acc), split=1), MIXED),
    "tile.aic_gather": (lambda: T.aic_gather(tile([16, 64]), split=1), MIXED),
    "tensor.aiv_shard": (lambda: tensor_ops.aiv_shard(tensor([16, 64]), split=1), MIXED),
    "tensor.aic_gather": (lambda: tensor_ops.aic_gather(tensor([16, 64]), split=0), MIXED),
    "tpush_to_aiv": (lambda: T.tpush_to_aiv(tile([16, 64], mem=Acc), split=1), CUBE),
    "tpush_to_aic": (lambda: T.tpush_to_aic(tile([16, 64]), split=1), VECTOR),
    "tpop_from_aic": (lambda: T.tpop_from_aic(split=1), VECTOR),
    "tpop_from_aiv": (lambda: T.tpop_from_aiv(split=1), CUBE),
    "tfree_to_aic": (lambda: S.tfree_to_aic(tile([16, 64])), VECTOR),
    "tfree_to_aiv": (lambda: S.tfree_to_aiv(tile([16, 64], mem=Mat)), CUBE),
    "aic_initialize_pipe": (lambda: S.aic_initialize_pipe(dir_mask=1, slot_size=64), CUBE),
    "aiv_initialize_pipe": (lambda: S.aiv_initialize_pipe(dir_mask=1, slot_size=64), VECTOR),
    "reserve_buffer": (lambda: S.reserve_buffer(name="b", size=64), SHARED),
    "syncall aic_only": (lambda: S.syncall(core_type="aic_only"), CUBE),
    "syncall aiv_only": (lambda: S.syncall(core_type="aiv_only"), VECTOR),
    "syncall mix": (lambda: S.syncall(), SHARED),
    "sync_set aic": (lambda: S.sync_set(0, pipe=pl.PipeType.FIX, core_type="aic"), CUBE),
    "sync_wait aiv": (lambda: S.sync_wait(0, pipe=pl.PipeType.V, core_type="aiv"), VECTOR),
    "sync_wait": (lambda: S.sync_wait(0, pipe=pl.PipeType.V), SHARED),
    "tensor.add": (lambda: tensor_ops.add(tensor([8, 8]), tensor([8, 8])), SHARED),
}


@pytest.mark.parametrize("case", sorted(AFFINITY_CASES))
def test_affinity(case: str):
    build, expected = AFFINITY_CASES[case]
    assert classify_call_affinity(build()) is expected


def test_region_placement_pins_shared_calls_to_the_vector_lane():
    call = ir.set_call_attrs(S.reserve_buffer(name="b", size=64), {"core_placement": "aiv"})
    assert classify_call_affinity(call) is VECTOR
    cube = ir.set_call_attrs(T.tpush_to_aiv(tile([16, 64], mem=Acc), split=1), {"core_placement": "aiv"})
    assert classify_call_affinity(cube) is VECTOR  # the stamp outranks every affinity (docs/passes/expand_mixed_kernel.md)


def test_output_memory_rules():
    assert get_opdef("tile.load").output_memory.from_kwarg == "target_memory"
    assert get_opdef("tile.aiv_shard").output_memory.fixed is Vec
    assert get_opdef("tile.aic_gather").output_memory.fixed is Mat
    assert get_opdef("tile.matmul").output_memory.fixed is Acc
    assert get_opdef("tile.slice").output_memory.inherit_input == 0
