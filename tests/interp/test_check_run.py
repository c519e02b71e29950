"""The check-run instrument runs the program before and after each pass on the same inputs and
names the pass, the output and the first differing index when a pass changes the result."""

import numpy as np
import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.interp import CheckRunError, PassCheckRunError, make_inputs, run_program
from pypto_core.interp.check_run import CheckRunInstrument, make_check_run_instrument
from pypto_core.ir import expr as E
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.context import PassContext
from pypto_core.passes.manager import PassManager, PassVerificationError
from pypto_core.passes.pass_base import Pass

PROGRAM = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [16, 32])
            y = pl.load(b, [0, 0], [16, 32])
            d = pl.sub(x, y)
            out = pl.store(d, [0, 0], out)
        return out
"""


class _SwapSubOperands(IRMutator):
    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_call(call)
        if isinstance(call, E.Call) and call.op.name in ("tile.sub", "tensor.sub"):
            return call.with_fields(args=(call.args[1], call.args[0]))
        return call


class SwapSubOperands(Pass):
    """Deliberately wrong: a - b becomes b - a."""

    name = "SwapSubOperands"

    def run(self, program, ctx):
        return _SwapSubOperands().visit_program(program)


class Identity(Pass):
    name = "Identity"

    def run(self, program, ctx):
        return program


def test_a_wrong_pass_is_caught_and_named():
    program = pl.parse(PROGRAM)
    with PassContext([make_check_run_instrument()]):
        program = passes.convert_to_ssa()(program)
        with pytest.raises(PassCheckRunError) as err:
            SwapSubOperands()(program)
    message = str(err.value)
    assert message.startswith("check-run: pass 'SwapSubOperands' changed what the program computes: output ")
    assert err.value.pass_name == "SwapSubOperands"
    assert err.value.output in ("out", "return")
    assert err.value.index == (0, 0)
    assert "first at index [0, 0]" in message


def test_correct_passes_run_each_program_once():
    instrument = CheckRunInstrument(seed=3)
    program = pl.parse(PROGRAM)
    with PassContext([instrument]):
        program = passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
        Identity()(program)
    assert instrument.runs == 3  # input, after SSA, after outlining; the identity pass reuses its input's run
    assert program.get_function("main_incore_0") is not None


def test_the_pass_manager_wires_verify_check_run_and_reports_the_pass():
    program = pl.parse(PROGRAM)
    manager = PassManager([passes.convert_to_ssa(), SwapSubOperands()], verify="check-run")
    with pytest.raises(PassVerificationError, match="pass 'SwapSubOperands' changed what the program computes"):
        manager.run(program)


def test_a_program_the_machine_cannot_run_is_reported_before_any_pass():
    text = PROGRAM.replace("d = pl.sub(x, y)", "d = pl.sub(x, z)").replace(
        "y = pl.load(b, [0, 0], [16, 32])", "y = pl.load(b, [0, 0], [16, 32])\n            if False:\n"
        "                z = pl.load(b, [0, 0], [16, 32])")
    program = pl.parse(text)
    with PassContext([make_check_run_instrument()]), pytest.raises(CheckRunError) as err:
        passes.convert_to_ssa()(program)
    assert not isinstance(err.value, PassCheckRunError)
    assert "the program given to pass 'ConvertToSSA' cannot be run" in str(err.value)
    assert "variable 'z' is read before it is assigned" in str(err.value)


def test_the_outlining_example_computes_the_same_on_the_machine():
    # The example of docs/passes/outline_incore_scopes.md: before and after ConvertToSSA + OutlineIncoreScopes
    # compute the same.
    text = """
import pypto.language as pl

@pl.program
class Basic:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.load(y, [0], [64])
            tile_sq = pl.mul(tile, tile)
            result_tile = pl.add(tile_sq, 1.0)
            result = pl.store(result_tile, [0], x)
        z = pl.add(result, 2.0)
        return z
"""
    before = pl.parse(text)
    after = passes.outline_incore_scopes()(passes.convert_to_ssa()(before))
    inputs = make_inputs(before.get_function("main"), seed=0)
    x = inputs["x"].astype(np.float64)
    for program in (before, after):
        np.testing.assert_allclose(run_program(program, inputs)["return"], (x + 1) ** 2 + 1 + 2, rtol=1e-5)


# Built from parts: tests/tile/test_tile_existing_programs.py compares every whole program string here with its
# own runner, which gives the entry only the inputs of the program as written.
INCORE_ENTRY = "\nimport pypto.language as pl\n" + """

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[32, 16], pl.FP32]]:
        v = pl.abs(x)
        return (out, v)
"""


def test_an_out_parameter_a_pass_adds_to_the_entry_is_allocated_and_its_result_compared():
    # ConvertTensorToTileOps gives an InCore entry an Out buffer for the tensor it returns (callers allocate it;
    # an entry has none), and the program as written has no input for it: check-run allocates it.
    instrument = CheckRunInstrument(seed=3)
    program = pl.parse(INCORE_ENTRY)
    with PassContext([instrument]):
        after = passes.convert_tensor_to_tile_ops()(passes.convert_to_ssa()(program))
    main = after.get_function("main")
    assert len(main.params) == 3  # the added buffer
    outputs = instrument._outputs
    assert outputs is not None and set(outputs) == {"return[0]", "return[1]", "out"}
    np.testing.assert_allclose(outputs["return[1]"], np.abs(instrument.inputs["x"]))


def test_a_pass_pipeline_at_the_check_run_level_runs_the_machine_around_each_pass():
    from pypto_core.passes.verification_level import VerificationLevel

    pipe = passes.PassPipeline()
    pipe.add_pass(passes.convert_to_ssa())
    pipe.add_pass(SwapSubOperands())
    with PassContext([], VerificationLevel.CHECK_RUN), pytest.raises(PassCheckRunError,
                                                                      match="pass 'SwapSubOperands' changed"):
        pipe.run(pl.parse(PROGRAM))
    with PassContext([], VerificationLevel.BASIC):  # the machine only at check-run
        pipe.run(pl.parse(PROGRAM))
