"""The communication ops: type rules, registry facts (effects per kwarg, no-duplicate, affinity), numpy
semantics on the reference machine, and the DSL round trip of their prefix-less printed form."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.analysis.affinity import intrinsic_affinity, stated_lane
from pypto_core.interp import MachineError, make_inputs, run_program
from pypto_core.language.roundtrip import assert_roundtrip
from pypto_core.ops.opdef import CoreAffinity, Effect
from pypto_core.ops.registry import get_opdef
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry
from pypto_plugins.ops_comm import comm as dsl

Vec = pl.Mem.Vec


def tensor(shape: list[int], dtype: object = pl.INT32, name: str = "sig") -> ir.Var:
    return ir.Var(name, ir.TensorType(shape, dtype))


def tile(shape: list[int], mem: object = Vec) -> ir.Var:
    return ir.Var("t", ir.TileType(shape, pl.FP32, memory_space=mem))


def effects(call: ir.Call) -> dict[int, Effect]:
    opdef = get_opdef(call.op.name)
    return {i: opdef.arg_effect(i, call.kwargs) for i in range(len(call.args))}


# -- type rules ------------------------------------------------------------------------------------------------

def dist(shape: list[int], dtype: object = pl.INT32, name: str = "sig") -> ir.Var:
    return ir.Var(name, ir.DistributedTensorType(shape, dtype))


def peer() -> ir.Var:
    return ir.Var("peer", ir.ScalarType(pl.INDEX))


def test_notify_is_a_statement_on_a_word_of_a_peer_tensor():
    sig = dist([4, 4])
    call = dsl.notify(sig, peer(), [0, 1], 1, op=dsl.NotifyOp.AtomicAdd)
    assert isinstance(call.type, ir.UnknownType) and len(call.args) == 4
    assert dict(call.kwargs) == {"op": 0}
    assert call.args[3].type == ir.ScalarType(pl.INDEX)  # a DSL literal is an INDEX constant
    assert ir.python_print(call) == "system.notify(sig, peer, [0, 1], 1, op=0)"
    typed = dsl.notify(sig, peer(), [0, 0], ir.ConstInt(1, pl.INT32, ir.Span.unknown()), op=dsl.NotifyOp.Set)
    assert ir.python_print(typed) == "system.notify(sig, peer, [0, 0], pl.const(1, pl.INT32), op=1)"
    assert int(dsl.NotifyOp.AtomicAdd) == 0 and int(dsl.NotifyOp.Set) == 1


def test_wait_is_a_statement_on_a_signal_word():
    sig = tensor([4])
    call = dsl.defer_wait(sig, 3, [1])
    assert isinstance(call.type, ir.UnknownType)
    assert call.args[1].type == ir.ScalarType(pl.INT32)  # the literal takes the signal's dtype


def test_notify_errors_name_the_layout():
    sig = dist([4, 4])
    with pytest.raises(ValueError, match=r"^pld\.system\.notify requires exactly 4 positional arguments \(target, "
                                         r"peer, offsets, value\), but got 3$"):
        ir.create_op_call("pld.system.notify", [sig, peer(), ir.MakeTuple([ir.ConstInt(0, pl.INDEX, ir.Span.unknown())] * 2)],
                          {"op": 0})
    with pytest.raises(ValueError, match=r"^pld\.system\.notify offsets rank \(1\) must match target tensor rank "
                                         r"\(2\)$"):
        dsl.notify(sig, peer(), [0], 1, op=1)
    with pytest.raises(ValueError, match=r"^pld\.system\.notify op must be NotifyOp\.AtomicAdd or NotifyOp\.Set "
                                         r"\(got int 3\)$"):
        dsl.notify(sig, peer(), [0, 0], 1, op=3)
    with pytest.raises(TypeError, match="requires the keyword 'op'"):
        ir.create_op_call("pld.system.notify", [sig, peer(), ir.MakeTuple([]), peer()], {})
    with pytest.raises(TypeError, match="the target must be a distributed tensor"):
        dsl.notify(tensor([4, 4]), peer(), [0, 0], 1, op=1)  # a plain TensorType
    with pytest.raises(TypeError, match="the peer must be a scalar"):
        dsl.notify(sig, tensor([4]), [0, 0], 1, op=1)


@pytest.mark.parametrize("build, message", [
    (lambda: dsl.defer_wait(tensor([4, 4]), 1, [0]), "1 indices for a 2-D signal tensor"),
    (lambda: dsl.defer_wait(tensor([4]), tensor([4])), "the value must be a scalar"),
    (lambda: dsl.defer_wait(tensor([4]), 1, [1.5]), "must be an integer scalar"),
])
def test_signal_errors(build: object, message: str):
    with pytest.raises((TypeError, ValueError), match=message):
        build()  # type: ignore[operator]


def test_put_returns_the_target_and_checks_the_window():
    win = tensor([32, 64], pl.FP32, "win")
    assert dsl.put(tile([16, 64]), [16, 0], win).type == win.type
    with pytest.raises(ValueError, match="writes past the end of dimension 0"):
        dsl.put(tile([16, 64]), [24, 0], win)
    with pytest.raises(TypeError, match="the tile is FP32 but the target is INT32"):
        dsl.put(tile([16, 64]), [0, 0], tensor([32, 64]))


# -- registry facts --------------------------------------------------------------------------------------------

def test_effects_follow_the_op_kwarg():
    sig = dist([4])
    assert effects(dsl.notify(sig, peer(), [0], 1, op=dsl.NotifyOp.Set)) == {
        0: Effect.WRITE, 1: Effect.READ, 2: Effect.READ, 3: Effect.READ}
    assert effects(dsl.notify(sig, peer(), [0], 1, op=dsl.NotifyOp.AtomicAdd))[0] is Effect.READ_WRITE
    assert effects(dsl.defer_wait(tensor([4]), 1)) == {0: Effect.READ, 1: Effect.READ}
    assert effects(dsl.put(tile([16, 64]), [0, 0], tensor([16, 64], pl.FP32))) == {
        0: Effect.READ, 1: Effect.READ, 2: Effect.WRITE}
    opdef = get_opdef("pld.system.notify")
    assert opdef.input_memory == {} and opdef.output_memory is None  # no memory spec


def test_only_notify_is_no_duplicate():
    assert get_opdef("pld.system.notify").no_duplicate
    assert not get_opdef("pld.system.defer_wait").no_duplicate
    assert not get_opdef("pld.tile.put").no_duplicate


def test_affinity():
    for call in (dsl.notify(dist([4]), peer(), [0], 1, op=1), dsl.defer_wait(tensor([4]), 1)):
        assert intrinsic_affinity(call) is CoreAffinity.SHARED
        assert stated_lane(call) is CoreAffinity.SHARED  # declared, not derived from operands
    put = dsl.put(tile([16, 64]), [0, 0], tensor([16, 64], pl.FP32))
    assert intrinsic_affinity(put) is CoreAffinity.VECTOR and stated_lane(put) is None
    assert get_opdef("pld.tile.put").accepted_spaces(0) == (Vec,)


# -- programs --------------------------------------------------------------------------------------------------

PROGRAM = """
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class Comm:
    @pl.function
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], win: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             sig: pl.InOut[pld.DistributedTensor[[4], pl.INT32]], peer: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 64])
            win = pld.tile.put(pl.exp(t), [16, 0], win)
            pld.system.notify(sig, peer, [1], 2, op=0)
            pld.system.notify(sig, peer, [0], 7, op=1)
            pld.system.defer_wait(sig, 2, [1])
        return win
"""


def _run(text: str) -> tuple[dict, dict]:
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("main"), seed=5)
    inputs["sig"] = np.array([0, 1, 0, 0], dtype=np.int32)
    inputs["peer"] = 1
    return inputs, run_program(program, inputs, "main")


def test_the_machine_writes_adds_waits_and_puts():
    inputs, outputs = _run(PROGRAM)
    np.testing.assert_array_equal(outputs["sig"], [7, 3, 0, 0])
    np.testing.assert_allclose(outputs["win"][16:], np.exp(inputs["a"]), rtol=1e-6)


def test_a_wait_that_nothing_satisfies_is_a_machine_error():
    with pytest.raises(MachineError, match=r"pld\.system\.defer_wait waits for signal\[1\] >= 9 but it holds 3"):
        _run(PROGRAM.replace("pld.system.defer_wait(sig, 2, [1])", "pld.system.defer_wait(sig, 9, [1])"))


def test_print_drops_the_pld_prefix_and_parses_back():
    program = pl.parse(PROGRAM)
    text = assert_roundtrip(program).text
    assert "tile.put(pl.tile.exp(t), [16, 0], win)" in text
    assert "system.notify(sig, peer, [1], 2, op=0)" in text
    assert "system.notify(sig, peer, [0], 7, op=1)" in text
    assert "sig: pl.InOut[pl.DistributedTensor[[4], pl.INT32]]" in text
    assert "system.defer_wait(sig, pl.const(2, pl.INT32), [1])" in text
    assert "pld." not in text


def test_outlined_directions_come_from_the_effects():
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(pl.parse(PROGRAM)))
    kernel = outlined.get_function("main_incore_0")
    directions = {p.name_hint.split("__")[0]: str(d) for p, d in kernel.param_items()}
    assert directions == {"a": "ParamDirection.In", "win": "ParamDirection.Out", "sig": "ParamDirection.InOut",
                          "peer": "ParamDirection.In"}
    plain = PROGRAM.replace("[1], 2, op=0)", "[1], 2, op=1)").replace("pld.system.defer_wait(sig, 2, [1])", "")
    kernel = passes.outline_incore_scopes()(passes.convert_to_ssa()(pl.parse(plain))).get_function("main_incore_0")
    assert str(dict((p.name_hint.split("__")[0], d) for p, d in kernel.param_items())["sig"]) == "ParamDirection.Out"


def test_comm_ops_outside_the_regions_of_a_manual_kernel_are_not_diagnosed():
    # The contract outside the regions (docs/passes/lower_auto_vector_split.md, outside the regions) leaves both
    # alone: notify is copied to both lanes there, put is a GM transfer.
    program = pl.parse('''
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], win: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          sig: pl.Out[pld.DistributedTensor[[4], pl.INT32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True})
        t = pl.tile.load(a, [0, 0], [16, 64])
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            e = pl.tile.exp(t)
        win = pld.tile.put(e, [0, 0], win)
        pld.system.notify(sig, 0, [0], 1, op=1)
        return win
''')
    assert PropertyVerifierRegistry.verify(["AivSplitValid"], program) == []


def test_the_tile_passes_keep_them_and_the_results():
    before = pl.parse(PROGRAM)
    after = before
    for make in (passes.convert_to_ssa, passes.normalize_stmt_structure, passes.outline_incore_scopes,
                 passes.convert_tensor_to_tile_ops, passes.flatten_tile_nd_to_2d, passes.infer_tile_memory_space):
        after = make()(after)
    inputs = make_inputs(before.get_function("main"), seed=5)
    inputs["sig"] = np.zeros(4, dtype=np.int32)
    inputs["peer"] = 0
    want, got = run_program(before, inputs, "main"), run_program(after, inputs, "main")
    np.testing.assert_array_equal(got["sig"], want["sig"])
    np.testing.assert_array_equal(got["win"][16:], want["win"][16:])


def test_the_dsl_spells_the_op_with_pld_notify_op():
    text = PROGRAM.replace("op=0)", "op=pld.NotifyOp.AtomicAdd)").replace("op=1)", "op=pld.NotifyOp.Set)")
    ir.assert_structural_equal(pl.parse(text), pl.parse(PROGRAM))


def test_pld_notify_op_is_the_python_spelling():
    import pypto.language.distributed as pld

    assert pld.NotifyOp is dsl.NotifyOp and int(pld.NotifyOp.Set) == 1
