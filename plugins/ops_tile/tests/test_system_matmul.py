"""The system ops (launch queries, task ids, sync, barriers) and the matmul / MX matmul ops (the launch, sync,
matmul and matmul_mx families): type rules, errors, registry facts and print / parse round trips."""

from __future__ import annotations

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import system_ops as S
from pypto.ir.op import tensor_ops
from pypto.ir.op import tile_ops as T
from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.ops.opdef import CoreAffinity, Effect
from pypto_core.ops.registry import get_opdef
from pypto_plugins.pass_split.mixed_kernel.dce import has_side_effect

from .helpers import scalar, tensor, tile
from .system_matmul_cases import CASES

FP8, E8M0, FP32, FP16 = pl.FP8E4M3FN, pl.FP8E8M0, pl.FP32, pl.FP16
Left, Right, Acc, Bias = pl.Mem.Left, pl.Mem.Right, pl.Mem.Acc, pl.Mem.Bias
LS, RS = pl.Mem.LeftScale, pl.Mem.RightScale


def mx(m: int = 16, k: int = 64, n: int = 32) -> list[ir.Var]:
    kb = -(-k // 32)
    return [tile([m, k], FP8, Left), tile([m, kb], E8M0, LS), tile([k, n], FP8, Right), tile([kb, n], E8M0, RS)]


# -- launch queries -------------------------------------------------------------------------------
@pytest.mark.parametrize("call,dtype", [
    (lambda: T.get_block_num(), pl.INDEX), (lambda: tensor_ops.get_block_idx(), pl.INDEX),
    (lambda: tensor_ops.get_block_num(), pl.INDEX), (lambda: tensor_ops.get_subblock_idx(), pl.INDEX),
    (lambda: S.available_aiv_count(), pl.INT32), (lambda: S.available_cluster_count(), pl.INT32),
    (lambda: S.task_dummy(), pl.TASK_ID), (lambda: S.task_is_valid(S.task_invalid()), pl.BOOL),
])
def test_query_types(call, dtype):
    assert call().type == ir.ScalarType(dtype)


def test_query_errors():
    with pytest.raises(TypeError, match="tile.get_block_num takes 0"):
        ir.create_op_call("tile.get_block_num", [ir.ConstInt(0, pl.INDEX)], {})
    with pytest.raises(TypeError, match=r"system.task_is_valid: task_id must be a Scalar\[TASK_ID\]"):
        S.task_is_valid(scalar(pl.INT32))


# -- ordering ops -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["bar_all", "bar_m", "bar_v", "fence"])
def test_barriers_are_kept_statements(name):
    call = getattr(S, name)()
    assert isinstance(call.type, ir.UnknownType)
    assert has_side_effect(call)  # no pass may drop it (ExpandMixedKernel's dead-code walk)
    assert classify_call_affinity(call) is CoreAffinity.SHARED  # copied to both cores
    with pytest.raises(TypeError, match=f"system.{name} takes 0"):
        ir.create_op_call(f"system.{name}", [ir.ConstInt(0, pl.INDEX)], {})


@pytest.mark.parametrize("name", ["sync_src", "sync_dst"])
def test_pipe_flags(name):
    fn = getattr(S, name)
    call = fn(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)
    assert call.kwargs == {"set_pipe": 1, "wait_pipe": 4, "event_id": 3}
    assert isinstance(call.type, ir.UnknownType) and has_side_effect(call)
    with pytest.raises(ValueError, match=f"system.{name}: keyword 'event_id' must be one of"):
        fn(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=14)
    with pytest.raises(TypeError, match="wait_pipe"):
        ir.create_op_call(f"system.{name}", [], {"set_pipe": 1, "event_id": 0})


def test_task_dummy_deps_must_be_task_ids():
    assert S.task_dummy(deps=[S.task_invalid()]).args == ()
    with pytest.raises(TypeError, match="deps= must hold task ids"):
        S.task_dummy(deps=[scalar(pl.INT32)])


def test_value_queries_may_be_dropped_when_unused():
    assert not has_side_effect(T.get_block_num()) and not has_side_effect(S.task_dummy())


# -- system.py audit --------------------------------------------------------------------------------
def test_set_ffts_workspace():
    assert S.set_ffts(tensor([256], pl.INT64)).type == ir.UnknownType()
    assert get_opdef("system.set_ffts").args[0].name == "workspace"
    for bad in (tensor([128], pl.INT64), tensor([256], pl.INT32), tensor([16, 16], pl.INT64)):
        with pytest.raises(TypeError, match="system.set_ffts: workspace must be"):
            S.set_ffts(bad)


def test_sync_event_ids_and_ffts_mode():
    with pytest.raises(ValueError, match="system.sync_set: event_id must be 0..13, got 14"):
        S.sync_set(14, pipe=pl.PipeType.V)
    with pytest.raises(ValueError, match="ffts_mode"):
        S.sync_set(0, pipe=pl.PipeType.V, ffts_mode=3)
    S.sync_wait(scalar(pl.INDEX), pipe=pl.PipeType.V)  # a runtime event id


def test_soft_syncall_writes_its_workspace():
    ws = tensor([64], pl.INT32)
    opdef = get_opdef("system.syncall")
    assert opdef.arg_effect(0, S.syncall(ws, mode="soft").kwargs) is Effect.READ_WRITE
    assert opdef.arg_effect(0, S.syncall(ws, mode="hard").kwargs) is Effect.READ


def test_cacheinvalid_window_rank():
    with pytest.raises(TypeError, match="tensor's rank 2"):
        S.cacheinvalid(tensor([16, 128]), [16], [0])


# -- matmul kwargs ------------------------------------------------------------------------------------
def test_matmul_transposed_operands_and_out_dtype():
    call = T.matmul(tile([64, 16], FP16, Left), tile([32, 64], FP16, Right), a_trans=True, b_trans=True,
                    out_dtype=pl.BF16)
    assert [d.value for d in call.type.shape] == [16, 32] and call.type.dtype is pl.BF16
    assert T.matmul(tile([16, 64], FP16, Left), tile([64, 32], FP16, Right)).kwargs == {}
    with pytest.raises(TypeError, match="tile.matmul: inner dims differ"):
        T.matmul(tile([16, 64], FP16, Left), tile([64, 32], FP16, Right), b_trans=True)
    with pytest.raises(TypeError, match="tile.matmul: out_dtype INT8 is not a conversion"):
        T.matmul(tile([16, 64], FP16, Left), tile([64, 32], FP16, Right), out_dtype=pl.INT8)


def test_matmul_valid_k_and_compact():
    lhs = tile([16, 64], FP16, Left, valid=[10, 64])
    call = T.matmul(lhs, tile([64, 32], FP16, Right))
    assert call.type.tile_view.compact is pl.CompactMode.normal
    assert [d.value for d in call.type.valid_shape] == [10, 32]
    with pytest.raises(TypeError, match="lhs has 64 valid K columns but rhs only 40"):
        T.matmul(tile([16, 64], FP16, Left), tile([64, 32], FP16, Right, valid=[40, 32]))


def test_matmul_acc_transposed_and_in_acc():
    acc = tile([16, 32], FP32, Acc)
    call = T.matmul_acc(acc, tile([16, 64], FP16, Left), tile([32, 64], FP16, Right), b_trans=True)
    assert call.type == acc.type and call.kwargs == {"b_trans": True}
    with pytest.raises(TypeError, match="tile.matmul_acc: acc is"):
        T.matmul_acc(tile([16, 16], FP32, Acc), tile([16, 64], FP16, Left), tile([64, 32], FP16, Right))


# -- MX matmul --------------------------------------------------------------------------------------
def test_matmul_mx_type():
    call = T.matmul_mx(*mx())
    assert call.type == ir.TileType([16, 32], FP32, memory_space=Acc)
    assert classify_call_affinity(call) is CoreAffinity.CUBE
    assert get_opdef("tile.matmul_mx").input_memory == {0: (Left,), 1: (LS,), 2: (Right,), 3: (RS,)}
    _, ls, r, rs = mx()
    part = T.matmul_mx(tile([16, 64], FP8, Left, valid=[9, 64]), ls, r, rs)
    assert [d.value for d in part.type.valid_shape] == [9, 32]


@pytest.mark.parametrize("args,message", [
    (lambda: [tile([16, 64], FP16, Left), *mx()[1:]], "lhs must be FP8E4M3FN, got FP16"),
    (lambda: [mx()[0], tile([16, 2], FP8, LS), *mx()[2:]], "lhs_scale must be FP8E8M0"),
    (lambda: [*mx()[:3], tile([4, 32], E8M0, RS)], r"rhs_scale must be \[2, 32\]"),
    (lambda: mx(m=8), "M = 8 must be a multiple of 16"),
    (lambda: mx(n=16), "N = 16 must be a multiple of 32"),
    (lambda: mx(k=32), "K = 32 must be a multiple of 64"),
    (lambda: [mx()[0], mx()[1], *mx(k=128)[2:]], "inner dims differ"),
])
def test_matmul_mx_errors(args, message):
    with pytest.raises(TypeError, match=f"tile.matmul_mx: {message}"):
        T.matmul_mx(*args())


def test_matmul_mx_acc_and_bias():
    acc = tile([16, 32], FP32, Acc)
    assert T.matmul_mx_acc(acc, *mx()).type == T.matmul_mx(*mx()).type
    assert get_opdef("tile.matmul_mx_acc").arg_effect(0, {}) is Effect.READ_WRITE
    with pytest.raises(TypeError, match="tile.matmul_mx_acc: acc must be FP32"):
        T.matmul_mx_acc(tile([16, 32], FP16, Acc), *mx())
    with pytest.raises(TypeError, match="tile.matmul_mx_acc: acc is"):
        T.matmul_mx_acc(tile([16, 64], FP32, Acc), *mx())
    assert T.matmul_mx_bias(*mx(), tile([1, 32], FP32, Bias)).type == T.matmul_mx(*mx()).type
    with pytest.raises(TypeError, match=r"tile.matmul_mx_bias: bias must be one \[1, N\] row"):
        T.matmul_mx_bias(*mx(), tile([1, 64], FP32, Bias))
    with pytest.raises(TypeError, match="tile.matmul_mx_bias: bias must be FP32"):
        T.matmul_mx_bias(*mx(), tile([1, 32], FP16, Bias))


def test_tget_scale_addr():
    lhs, ls, r, rs = mx()
    call = T.tget_scale_addr(ls, lhs)
    assert call.type == ls.type and get_opdef("tile.tget_scale_addr").arg_effect(0, {}) is Effect.WRITE
    assert T.tget_scale_addr(rs, r).type == rs.type
    with pytest.raises(TypeError, match="the scale of a Left tile lives in LeftScale"):
        T.tget_scale_addr(rs, lhs)
    with pytest.raises(TypeError, match=r"tile.tget_scale_addr: dst_scale must be \[16, 2\]"):
        T.tget_scale_addr(tile([16, 4], E8M0, LS), lhs)
    with pytest.raises(TypeError, match="src must be FP8E4M3FN"):
        T.tget_scale_addr(ls, tile([16, 64], FP16, Left))


# -- print / parse ------------------------------------------------------------------------------------
PARAMS = ", ".join([
    "ta: pl.Tensor[[64, 32], pl.FP16]", "tb: pl.Tensor[[32, 16], pl.FP16]", "tacc: pl.Tensor[[64, 16], pl.FP32]",
    "lhs: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left]", "rhs: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right]",
    "acc: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc]", "flag: pl.Scalar[pl.BOOL]",
])


def program(body: str) -> str:
    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    return f"import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def main(self, {PARAMS}):\n" \
           f"{body}\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_print_parse_roundtrip(name: str):
    body, expected_call = CASES[name]
    parsed = pl.parse(program(body))
    text = ir.python_print(parsed)
    assert expected_call in text, text
    reparsed = pl.parse(text)
    ir.assert_structural_equal(parsed, reparsed)
    assert ir.python_print(reparsed) == text
