"""Tiles loaded as numpy views (stable.py) keep the snapshot semantics of a load: a tile never sees a
later store, whatever aliases the machine is given; the fast per-call-site evaluates compute what
the general ones do; the BLAS thread limit holds for a run and is restored after it."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import pypto.language as pl
from pypto_core.interp import Machine, make_inputs, run_program
from pypto_core.interp.blas import blas_threads
from pypto_core.interp.context import EvalContext
from pypto_core.interp.stable import read_only_params, read_only_view, stable_params


@pytest.fixture
def unchanging_log(monkeypatch):
    """Every answer of EvalContext.unchanging during the test: (op name, answer)."""
    log: list[tuple[str, bool]] = []
    original = EvalContext.unchanging

    def spy(self, call, index):
        answer = original(self, call, index)
        log.append((call.op.name, answer))
        return answer

    monkeypatch.setattr(EvalContext, "unchanging", spy)
    return log


ALIASED = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        z = pl.muls(t, 0.0)
        out = pl.store(z, [0, 0], out)
        out = pl.store(t, [16, 0], out)
        return out
"""


def test_a_load_from_an_in_tensor_is_a_view_when_nothing_aliases_it(unchanging_log):
    program = pl.parse(ALIASED)
    inputs = make_inputs(program.get_function("main"), seed=0)
    a = inputs["a"].copy()
    out = Machine(program).run(inputs=inputs)
    np.testing.assert_array_equal(out[16:], a[:16])
    assert unchanging_log == [("tile.load", True)]
    assert inputs["a"].flags.writeable  # the caller's array is untouched (the frame holds a read-only view)


def test_a_load_does_not_see_a_later_store_into_the_same_array_passed_as_an_out_tensor(unchanging_log):
    program = pl.parse(ALIASED)
    x = make_inputs(program.get_function("main"), seed=1)["a"]
    first = x[:16].copy()
    Machine(program).run(inputs={"a": x, "out": x})  # a and out are one array
    np.testing.assert_array_equal(x[:16], np.zeros_like(first))
    np.testing.assert_array_equal(x[16:], first)  # the tile is the snapshot taken before the first store
    assert unchanging_log == [("tile.load", False)]


def test_a_load_does_not_see_a_later_store_into_an_overlapping_view():
    program = pl.parse(ALIASED)
    base = make_inputs(program.get_function("main"), seed=2)["a"]
    big = np.concatenate([base, base])  # 64 x 16
    a, out = big[16:48], big[0:32]  # out's rows 16..31 are a's rows 0..15
    snapshot = a[:16].copy()
    Machine(program).run(inputs={"a": a, "out": out})
    np.testing.assert_array_equal(big[16:32], snapshot)


STORED_BACK = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        x = pl.store(pl.muls(t, 0.0), [0, 0], x)
        out = pl.store(t, [0, 0], out)
        return out
"""


def test_a_load_whose_source_is_later_stored_to_keeps_the_values_it_read(unchanging_log):
    program = pl.parse(STORED_BACK)
    inputs = make_inputs(program.get_function("main"), seed=3)
    before = inputs["x"].copy()
    result = run_program(program, inputs)
    np.testing.assert_array_equal(result["out"], before)
    np.testing.assert_array_equal(result["x"], np.zeros_like(before))
    assert unchanging_log == [("tile.load", False)]  # x is written here: loads from it are copies


RETURNED_TILE = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def grab(a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tile[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        return t

    @pl.function
    def main(a: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = self.grab(a)
        a = pl.store(pl.muls(t, 0.0), [0, 0], a)
        out = pl.store(t, [0, 0], out)
        return out
"""


def test_a_tile_returned_by_a_function_is_never_a_view():
    program = pl.parse(RETURNED_TILE)
    assert read_only_params(program.get_function("grab")) == ()  # it returns a tile
    inputs = make_inputs(program.get_function("main"), seed=4)
    before = inputs["a"].copy()
    result = run_program(program, inputs, entry="main")
    np.testing.assert_array_equal(result["out"], before)  # the caller's store did not reach the tile


USES = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 16], pl.FP32], s: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32],
          unused: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        v = pl.tensor.slice(s, [8, 16], [0, 0])
        u = pl.load(v, [0, 0], [8, 16])
        w = pl.store(u, [0, 0], w)
        out = pl.store(t, [0, 0], out)
        return out
"""


def test_read_only_parameters_are_those_only_read_by_ops_with_non_tensor_results():
    program = pl.parse(USES)
    # a: loaded only; s: viewed by tensor.slice (a view could be written through); w: stored to;
    # unused: never mentioned; out: stored to.
    assert read_only_params(program.get_function("k")) == (0, 3)


def test_stable_params_excludes_arrays_that_share_memory_with_a_writable_argument():
    x, y, z = np.zeros((4, 4)), np.zeros((4, 4)), np.zeros((4, 4))
    assert stable_params((0, 1), [x, y, z]) == [0, 1]
    assert stable_params((0, 1), [x, y, x[1:]]) == [1]  # x aliases the third (writable) argument
    assert stable_params((0, 1), [x, x, z]) == [0, 1]  # two read-only aliases are fine
    view = read_only_view(x)
    with pytest.raises(ValueError):
        view[0, 0] = 1.0
    with pytest.raises(ValueError):
        view[1:3, 1:3][0, 0] = 1.0  # a window of it is read-only too


def test_no_views_inside_a_core_group(unchanging_log):
    # The coroutines of a group share tensors: another task could write between two of this one's ops.
    from tests.interp.test_core_group_c2v import CASES, PROGRAM

    program = pl.parse(PROGRAM.format(**CASES["code1"]))
    inputs = make_inputs(program.get_function("k"), seed=3)
    out = run_program(program, inputs, entry="k")
    np.testing.assert_array_equal(out["out"], inputs["a"])
    assert unchanging_log and not any(answer for _, answer in unchanging_log)


# -- the per-call-site evaluates against the general ones ---------------------------------------------
WINDOW = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[40, 24], pl.FP32], r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [r, c], [16, 16])
        out = pl.store(t, [0, 0], out, [16, 16])
        return out
"""


@pytest.mark.parametrize("r, c", [(0, 0), (24, 8), (32, 0), (0, 16), (30, 20)])
def test_a_load_window_inside_or_past_the_end(r, c):
    program = pl.parse(WINDOW)
    inputs = make_inputs(program.get_function("main"), seed=5)
    inputs.update(r=r, c=c)
    got = Machine(program).run(inputs=inputs)
    want = np.full((16, 16), np.nan, np.float32)
    part = inputs["a"][r:r + 16, c:c + 16]
    want[:part.shape[0], :part.shape[1]] = part  # past the end reads poison
    np.testing.assert_array_equal(got, want)


MATMUL = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[32, 32], pl.{DT}], b: pl.Tensor[[32, 32], pl.{DT}], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a0 = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        b0 = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc0 = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left), pl.move(b0, target_memory=pl.Mem.Right))
        a1 = pl.load(a, [0, 16], [16, 16], target_memory=pl.Mem.Mat)
        b1 = pl.load(b, [16, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul_acc(acc0, pl.move(a1, target_memory=pl.Mem.Left), pl.move(b1, target_memory=pl.Mem.Right))
        out = pl.store(pl.move(acc, target_memory=pl.Mem.Vec), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("dt", ["FP32", "FP16", "BF16"])
def test_tile_matmul_acc_accumulates_in_fp32(dt):
    program = pl.parse(MATMUL.format(DT=dt))
    inputs = make_inputs(program.get_function("main"), seed=6)
    got = Machine(program).run(inputs=inputs)
    a, b = (inputs[k].astype(np.float64) for k in ("a", "b"))
    want = a[:16, :] @ b[:, :16]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert got.dtype == np.float32


# -- BLAS threads ----------------------------------------------------------------------------------------
def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_blas_threads_are_limited_for_the_run_and_restored_after_it():
    before = _blas_threads()
    with blas_threads(1):
        assert all(n == 1 for n in _blas_threads())
        with blas_threads(1):  # overlapping runs share the limit; the outer one restores it
            pass
        assert all(n == 1 for n in _blas_threads())
    assert _blas_threads() == before
    with blas_threads(None):
        assert _blas_threads() == before


def test_a_machine_run_restores_the_blas_threads_even_when_it_fails():
    before = _blas_threads()
    program = pl.parse(WINDOW)
    inputs = make_inputs(program.get_function("main"), seed=7)
    inputs.update(r=-1, c=0)
    with pytest.raises(Exception, match="negative offset"):
        Machine(program).run(inputs=inputs)
    assert _blas_threads() == before


@pytest.mark.parametrize("op, index, kwargs", [
    ("tile.store", 2, {}), ("tile.store", 2, {"atomic": 1}), ("tensor.assemble", 0, {}),
    ("tensor.assemble", 0, {"atomic": 1}), ("tensor.write", 0, {}), ("tensor.matmul_acc", 0, {}),
])
def test_ops_that_write_a_tensor_in_place_declare_it(op, index, kwargs):
    # stable.py takes an operand whose effect is READ for one the op never writes.
    from pypto_core.ops.opdef import Effect
    from pypto_core.ops.registry import op_registry

    assert op_registry().find_opdef(op).arg_effect(index, kwargs) is not Effect.READ
