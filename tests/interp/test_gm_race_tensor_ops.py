"""Tensor-level ops in a split region are race-checked too (pypto_core/interp/calls.py): an op whose
evaluate does not report its own GM accesses reads each tensor operand whole (otherwise lanes
of a `pl.split_aiv` region reading a tensor the other lane assembles into would run without complaint at the
tensor level, and only fail once ConvertTensorToTileOps made the reads tile.loads)."""

import numpy as np
import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.interp import CheckRunError, MachineError, make_inputs, run_program
from pypto_core.interp.check_run import CheckRunInstrument
from pypto_core.interp.gm_race import notes_itself
from pypto_core.ops.registry import op_registry
from pypto_core.passes.context import PassContext

T = "pl.Tensor[[32, 32], pl.FP32]"


def _program(body: str, params: str = f"x: {T}, y: {T}, out: pl.Out[{T}]") -> str:
    return ("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
            f"    def main(self, {params}) -> {T}:\n" + body)


def _run(text: str):
    program = pl.parse(text, "race.py")
    inputs = make_inputs(program.get_function("main"), seed=3)
    return program, inputs, run_program(program, inputs)


@pytest.mark.parametrize(("mode", "reader"), [
    ("LEFT_RIGHT", "pl.add(out, x)"),
    ("UP_DOWN", "pl.abs(x)"),
    ("NONE", "pl.matmul(x, y)"),
    ("UP_DOWN", "pl.row_sum(x)"),
])
def test_a_lane_reading_a_tensor_the_other_lane_assembles_into_is_a_located_race(mode, reader):
    text = _program(f"        for aiv in pl.split_aiv(2, mode=pl.SplitMode.{mode}):\n"
                    f"            r = {reader}\n"
                    "            x = pl.assemble(x, pl.add(y, 1.0), [0, 0])\n"
                    "        return x\n")
    with pytest.raises(MachineError) as info:
        _run(text)
    message = str(info.value)
    assert "GM race on tensor 'x'" in message, message
    assert "[lane 1])" in message and "[lane 0])" in message, message
    assert "--> race.py:8:" in message, message  # the reader's line


def test_lanes_reading_shared_tensors_and_writing_their_own_windows_are_no_race():
    text = _program("        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
                    "            part = pl.slice(x, [16, 32], [aiv * 16, 0])\n"
                    "            s = pl.add(part, pl.slice(y, [16, 32], [aiv * 16, 0]))\n"
                    "            out = pl.assemble(out, pl.mul(s, pl.slice(y, [16, 32], [aiv * 16, 0])), [aiv * 16, 0])\n"
                    "        return out\n")
    _, inputs, result = _run(text)
    np.testing.assert_allclose(result["return"], (inputs["x"] + inputs["y"]) * inputs["y"], rtol=1e-6)


def test_a_lane_reading_its_own_window_of_a_tensor_the_other_lane_writes_elsewhere_is_no_race():
    # Each lane reads (through a slice) only the rows it then overwrites: the windows never meet.
    text = _program("        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
                    "            mine = pl.slice(x, [16, 32], [aiv * 16, 0])\n"
                    "            x = pl.assemble(x, pl.exp(mine), [aiv * 16, 0])\n"
                    "        return x\n", params=f"x: pl.InOut[{T}], y: {T}, out: pl.Out[{T}]")
    _, inputs, result = _run(text)
    np.testing.assert_allclose(result["return"], np.exp(inputs["x"]), rtol=1e-6)


def test_the_racy_region_is_rejected_before_the_pipeline_changes_it():
    # The program as written is what the machine refuses (check-run: the input cannot be run), not the
    # lowered one after ConvertTensorToTileOps (which reported the race as the pass's fault).

    text = _program("        for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):\n"
                    "            r = pl.abs(x)\n"
                    "            x = pl.assemble(x, pl.add(y, 1.0), [0, 0])\n"
                    "        return x\n")
    program = pl.parse(text, "race.py")
    with pytest.raises(CheckRunError) as info, PassContext([CheckRunInstrument(seed=3)]):
        passes.convert_tensor_to_tile_ops()(passes.outline_incore_scopes()(passes.convert_to_ssa()(program)))
    assert ("the program given to pass 'ConvertToSSA' cannot be run on the reference machine: GM race on "
            "tensor 'x': the vector abs at race.py:8:") in str(info.value), str(info.value)


def test_every_op_whose_evaluate_reads_windows_says_it_reports_them_itself():
    # A window read reported as a whole read would be a false race: such evaluates carry the marker.
    registry = op_registry()
    for name in ("tile.load", "tile.store", "tensor.assemble", "tensor.slice", "tensor.read", "tensor.write",
                 "tensor.dim", "tile.mgather", "tensor.gather_row", "tensor.paged_gather"):
        assert notes_itself(registry.find_opdef(name).evaluate), name
    assert not notes_itself(registry.find_opdef("tensor.add").evaluate)
