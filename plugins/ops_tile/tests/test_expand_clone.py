"""tensor.expand_clone (docs/reference/ops.md): type rule, its Write effect on the target (it writes the target
without reading it, so a scope writing through it makes the target an Out parameter), numpy semantics, and
what ConvertTensorToTileOps does with it."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto.ir.op import tensor_ops
from pypto_core.interp import make_inputs, run_program
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import get_opdef

from .helpers import dims, tensor


def test_result_is_the_target_shape_with_the_promoted_dtype():
    call = tensor_ops.expand_clone(tensor([2, 1, 8], pl.FP16), tensor([2, 4, 8]))
    assert dims(call.type.shape) == [2, 4, 8] and call.type.dtype is pl.FP32
    same = tensor_ops.expand_clone(tensor([2, 4, 8]), tensor([2, 4, 8]))
    assert dims(same.type.shape) == [2, 4, 8]


@pytest.mark.parametrize("src, dst, message", [
    ([4, 8], [2, 4, 8], "must be 3-D"),
    ([2, 3, 8], [2, 4, 8], "input dim 1 is 3"),
    ([1, 1, 8], [2, 4, 8], "at most one dim may be broadcast"),
])
def test_shape_errors(src: list[int], dst: list[int], message: str):
    with pytest.raises((TypeError, ValueError), match=message):
        tensor_ops.expand_clone(tensor(src), tensor(dst))


def test_it_writes_its_target_without_reading_it():
    opdef = get_opdef("tensor.expand_clone")
    assert opdef.arg_effect(1, {}) is Effect.WRITE and opdef.arg_effect(0, {}) is Effect.READ
    assert "writes the target" in opdef.doc


PROGRAM = """
import pypto.language as pl


@pl.program
class Expand:
    @pl.function
    def main(self, src: pl.Tensor[[2, 1, 8], pl.FP32], out: pl.Out[pl.Tensor[[2, 4, 8], pl.FP32]]) -> pl.Tensor[[2, 4, 8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.expand_clone(src, out)
        return out
"""


def test_the_machine_broadcasts_into_the_target():
    program = pl.parse(PROGRAM)
    inputs = make_inputs(program.get_function("main"), seed=3)
    out = run_program(program, inputs, "main")["out"]
    np.testing.assert_array_equal(out, np.broadcast_to(inputs["src"], (2, 4, 8)))


def test_a_scope_writing_through_it_makes_the_target_an_out_parameter():
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(pl.parse(PROGRAM)))
    kernel = outlined.get_function("main_incore_0")
    assert [str(d) for d in kernel.param_directions] == ["ParamDirection.In", "ParamDirection.Out"]


def test_between_gm_tensors_it_stays_in_the_kernel():
    program = passes.outline_incore_scopes()(passes.normalize_stmt_structure()(
        passes.convert_to_ssa()(pl.parse(PROGRAM))))
    lowered = passes.convert_tensor_to_tile_ops()(program)
    assert "pl.tensor.expand_clone(src__ssa_v0, out__ssa_v0)" in ir.python_print(lowered)


def test_an_operand_computed_on_chip_has_no_tile_form():
    text = PROGRAM.replace("pl.expand_clone(src, out)", "pl.expand_clone(pl.exp(src), out)")
    program = passes.outline_incore_scopes()(passes.normalize_stmt_structure()(
        passes.convert_to_ssa()(pl.parse(text))))
    with pytest.raises(ValueError, match="no tile form for an operand computed on chip"):
        passes.convert_tensor_to_tile_ops()(program)
