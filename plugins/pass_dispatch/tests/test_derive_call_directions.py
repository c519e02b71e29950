"""DeriveCallDirections (docs/passes/derive_call_directions.md): each dispatch's attrs['arg_directions'], rule by
rule, the CallDirectionsResolved verifier, and the program computing the same on the reference machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.ir.enums import ArgDirection as D
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry
from pypto_core.testing import checked_pipeline, same_results

KERNEL = '''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        out = pl.store(pl.adds(t, 1.0), [0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def acc(self, x: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.add(pl.load(x, [0], [64]), pl.load(out, [0], [64]))
        out = pl.store(t, [0], out)
        return out
'''


def program(main: str, out_dir: str = "pl.Out") -> ir.Program:
    text = ("import pypto.language as pl\n\n@pl.program\nclass P:" + KERNEL + f'''
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], out: {out_dir}[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
''' + "".join(f"        {line}\n" for line in main.strip().splitlines()) + "        return out\n")
    return pl.parse(text, "dispatch.py")


def directions(prog: ir.Program) -> list[list[D]]:
    found: list[list[D]] = []

    class Walk(ir.IRVisitor):
        def visit_call(self, call):
            if isinstance(call.op, ir.GlobalVar):
                found.append(list(call.arg_directions))
            super().visit_call(call)

    Walk().visit_stmt(prog.get_function("main").body)
    return found


def derive(prog: ir.Program) -> ir.Program:
    after = passes.derive_call_directions()(prog)
    assert not PropertyVerifierRegistry.verify(passes.IRPropertySet([passes.IRProperty.CallDirectionsResolved]), after)
    same_results(prog, after)
    return after


def test_each_parameter_direction_gives_its_argument_direction():
    after = derive(program("out = self.k(x, 3, out)\nout = self.acc(x, out)"))
    # In -> input, a scalar -> scalar, Out into the caller's tensor -> output_existing, InOut -> inout.
    assert directions(after) == [[D.Input, D.Scalar, D.OutputExisting], [D.Input, D.InOut]]


def test_an_out_argument_the_function_created_is_an_output_the_call_fills():
    after = derive(program("tmp = pl.create_tensor([64], dtype=pl.FP32)\ntmp = self.k(x, 1, tmp)\n"
                           "out = self.k(tmp, 2, out)"))
    assert directions(after) == [[D.Input, D.Scalar, D.Output], [D.Input, D.Scalar, D.OutputExisting]]


def test_any_tensor_made_from_no_tensor_is_an_allocation_filled_by_its_first_writer():
    # Asked of the IR, not of an op-name list: pl.tensor.full allocates like pl.create_tensor; a slice of x does not.
    after = derive(program("tmp = pl.tensor.full([64], dtype=pl.FP32, value=0.0)\ntmp = self.k(x, 1, tmp)\n"
                           "v = pl.slice(x, [64], [0])\nv = self.k(tmp, 2, v)"))
    assert directions(after) == [[D.Input, D.Scalar, D.Output], [D.Input, D.Scalar, D.OutputExisting]]


def test_an_out_argument_written_before_is_promoted_to_inout():
    # After an earlier writer of the same root the write must be ordered after it (docs/passes/derive_call_directions.md).
    after = derive(program("out = self.k(x, 1, out)\nout = self.k(x, 2, out)"))
    assert directions(after) == [[D.Input, D.Scalar, D.OutputExisting], [D.Input, D.Scalar, D.InOut]]


def test_an_earlier_assemble_into_the_root_counts_as_a_writer():
    after = derive(program("out = pl.assemble(out, x, [0])\nout = self.k(x, 2, out)"))
    assert directions(after) == [[D.Input, D.Scalar, D.InOut]]


def test_an_out_argument_inside_a_sequential_loop_is_inout_but_not_in_a_parallel_one():
    seq = derive(program("for i in pl.range(3):\n    out = self.k(x, i, out)"))
    assert directions(seq) == [[D.Input, D.Scalar, D.InOut]]
    par = derive(program("for i in pl.parallel(3):\n    out = self.k(x, i, out)"))
    assert directions(par) == [[D.Input, D.Scalar, D.OutputExisting]]


def test_an_out_argument_whose_root_is_an_inout_parameter_of_the_caller_is_inout():
    after = derive(program("out = self.k(x, 1, out)", out_dir="pl.InOut"))
    assert directions(after) == [[D.Input, D.Scalar, D.InOut]]


def test_a_view_of_a_written_tensor_has_its_root():
    after = derive(program("out = self.k(x, 1, out)\nv = pl.slice(out, [64], [0])\nv = self.k(x, 2, v)"))
    assert directions(after) == [[D.Input, D.Scalar, D.OutputExisting], [D.Input, D.Scalar, D.InOut]]


def test_a_no_dep_written_on_the_call_is_kept_and_the_pass_is_idempotent():
    before = program('out = self.k(x, 1, out, attrs={"arg_directions": [pl.adir.no_dep, pl.adir.scalar, '
                     'pl.adir.input]})')
    after = derive(before)
    assert directions(after) == [[D.NoDep, D.Scalar, D.OutputExisting]]
    assert passes.derive_call_directions()(after) is after


def test_the_verifier_names_a_dispatch_without_or_with_wrong_directions():
    bare = program("out = self.k(x, 1, out)")
    registry_props = passes.IRPropertySet([passes.IRProperty.CallDirectionsResolved])
    (missing,) = PropertyVerifierRegistry.verify(registry_props, bare)
    assert "the call of 'k' has no arg_directions" in missing.message and missing.span.begin_line > 0
    wrong = program('out = self.k(x, 1, out, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, '
                    'pl.adir.input]})')
    (bad,) = PropertyVerifierRegistry.verify(registry_props, wrong)
    assert "gives argument 3 ('out', Out) the direction Input" in bad.message


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_after_the_default_pipeline_every_dispatch_of_the_compiled_program_is_resolved(backend: str):
    text = open("examples/mixed_matmul_bias.py").read()
    compiled = checked_pipeline(backend).run(pl.parse(text, "examples/mixed_matmul_bias.py"))
    after = passes.derive_call_directions()(compiled)
    assert not PropertyVerifierRegistry.verify(passes.IRPropertySet([passes.IRProperty.CallDirectionsResolved]),
                                               after)
    # Only host-side calls get directions: the Groups' calls of their AIC / AIV kernels are not dispatches.
    for func in after.functions.values():
        if func.func_type is ir.FunctionType.Group:
            assert "arg_directions" not in ir.python_print(func)
