"""A bare-name call of a `@pl.function` defined outside the program (docs/dsl.md, programs): the program takes the function in under its name and calls it like a method; the text path takes a
file's module-level functions the program calls the same way."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.interp import make_inputs, run_program
from pypto_core.testing import checked_pipeline


@pl.function(type=pl.FunctionType.InCore)
def double_it(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    t = pl.load(x, [0], [64])
    out = pl.store(pl.add(t, t), [0], out)
    return out


def test_a_program_method_calls_a_module_level_function_by_its_name():
    @pl.program
    class Twice:
        @pl.function
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            out = double_it(x, out)
            return out

    assert sorted(f.name for f in Twice.functions.values()) == ["double_it", "main"]
    assert Twice.get_function("double_it") is double_it  # the very function, not a copy
    call = ir.flatten_to_stmts(Twice.get_function("main").body)[0].value
    assert isinstance(call.op, ir.GlobalVar) and call.op.name == "double_it"
    assert isinstance(call.type, ir.TensorType)  # the callee's return type
    inputs = make_inputs(Twice.get_function("main"), seed=1)
    np.testing.assert_array_equal(run_program(Twice, inputs)["out"], 2 * inputs["x"])
    # Printed, the function is a member of the program, and the text parses back to the same program.
    ir.assert_structural_equal(pl.parse(ir.python_print(Twice)), Twice)


def test_two_methods_calling_the_same_function_share_it():
    @pl.program
    class Shared:
        @pl.function
        def first(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            out = double_it(x, out)
            return out

        @pl.function
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            out = double_it(x, out)
            out = self.first(out, out)
            return out

    assert sorted(f.name for f in Shared.functions.values()) == ["double_it", "first", "main"]


def test_a_wrong_argument_count_is_located_at_the_call():
    with pytest.raises(ValueError, match=r"function 'double_it' takes 2 argument\(s\), got 1") as info:
        @pl.program
        class Bad:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                y = double_it(x)
                return y
    assert "test_external_functions.py" in str(info.value)


def test_a_method_of_the_same_name_is_a_located_conflict():
    with pytest.raises(ValueError, match=r"'double_it' is a method of this program and also the outside "
                                         r"@pl.function called here") as info:
        @pl.program
        class Clash:
            @pl.function(type=pl.FunctionType.InCore)
            def double_it(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                return x

            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out = double_it(x, out)
                return out
    assert "rename one of them" in str(info.value)


def test_a_standalone_function_cannot_call_one():
    with pytest.raises(ValueError, match=r"call of the @pl.function 'double_it' outside a @pl.program"):
        @pl.function
        def alone(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            out = double_it(x, out)
            return out


HELPER_FILE = '''import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def scale(x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
    t = pl.load(x, [0, 0], [32, 32])
    out = pl.store(pl.muls(t, 3.0), [0, 0], out)
    return out


@pl.program
class Scaled:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        out = scale(x, out)
        return out
'''


def test_the_text_path_takes_a_files_helper_functions_into_its_program():
    program = pl.parse(HELPER_FILE, "helpers.py")
    assert isinstance(program, ir.Program)
    assert sorted(f.name for f in program.functions.values()) == ["main", "scale"]
    inputs = make_inputs(program.get_function("main"), seed=2)
    np.testing.assert_allclose(run_program(program, inputs)["out"], 3 * inputs["x"], rtol=1e-6)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_program_with_a_helper_compiles_with_the_default_pipeline(backend: str):
    compiled = checked_pipeline(backend).run(pl.parse(HELPER_FILE, "helpers.py"))
    assert compiled.get_function("scale") is not None


def test_a_helper_the_program_does_not_call_leaves_two_definitions():
    text = HELPER_FILE.replace("out = scale(x, out)", "out = pl.assemble(out, x, [0, 0])")
    with pytest.raises(ValueError, match=r"expected exactly one @pl.program class or @pl.function, found 2"):
        pl.parse(text, "helpers.py")


def test_two_functions_without_a_program_are_still_two_definitions():
    helper = HELPER_FILE.split("@pl.program")[0]
    text = helper + helper.split("\n", 2)[2].replace("def scale", "def scale2")
    with pytest.raises(ValueError, match=r"found 2 programs/functions"):
        pl.parse(text, "h.py")
