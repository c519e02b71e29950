"""The prefix passes in PyPTO's order around today's passes (inline_functions, unroll_loops, convert_to_ssa,
normalize_stmt_structure, flatten_call_expr, then outlining and the tile and split passes), compiled with every
pass verified, printed and re-parsed, and checked on the reference machine (`--verify check-run`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.config import parse_config_text, resolve_config
from pypto_core.interp import compare_outputs, make_inputs, run_program
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.manager import PassManager

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

PREFIX = ["inline_functions", "unroll_loops", "convert_to_ssa", "normalize_stmt_structure", "flatten_call_expr"]
REST = ["outline_incore_scopes", "convert_tensor_to_tile_ops", "flatten_tile_nd_to_2d", "infer_tile_memory_space",
        "lower_auto_vector_split", "expand_mixed_kernel", "split_vector_kernel"]


@cache
def checked(backend: str = "Ascend910B") -> PassManager:
    """What `pypto run --pipeline '<PREFIX + REST>' --verify check-run` compiles with."""
    names = ", ".join(f'"{n}"' for n in PREFIX + REST)
    loaded = parse_config_text(f'backend = "{backend}"\nverify = "check-run"\n[pipeline]\npasses = [{names}]\n',
                               "<prefix pipeline>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                       instruments=[make_roundtrip_instrument()])


def compile_and_compare(program: ir.Program, backend: str = "Ascend910B") -> ir.Program:
    after = checked(backend).run(program)
    for name in ("main",) if program.get_function("main") is not None else ():
        inputs = make_inputs(program.get_function(name), seed=1)
        checks = compare_outputs(run_program(program, inputs, name), run_program(after, inputs, name))
        assert checks and all(c.comparison.ok for c in checks), [c.comparison.describe() for c in checks]
    return after


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_the_bundled_examples(example):
    text = (EXAMPLES / example).read_text()
    program = pl.parse(text, filename=str(EXAMPLES / example))
    after = checked().run(program)
    assert after is not program


ALL_THREE = '''
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def tile_step(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                  r: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [r * 16, 0], [16, 64])
            o = pl.store(pl.add(pl.mul(t, 2.0), pl.exp(t)), [r * 16, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Inline)
    def halves(self, x: pl.Tensor[[64, 64], pl.FP32]) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        h = pl.mul(x, 0.5)
        return h, pl.add(h, h)

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for r in pl.unroll(4):
            o = self.tile_step(a, o, r)
        h, w = self.halves(o)
        for i1 in pl.unroll(2):
            a[0:32, 0:64] = pl.slice(h, [32, 64], [i1 * 32, 0])
        y = pl.add(pl.sub(w, a), pl.neg(h))
        return y
'''


def test_inline_unroll_and_nested_calls_together():
    after = compile_and_compare(pl.parse(ALL_THREE))
    text = ir.python_print(after)
    assert "pl.unroll" not in text and "FunctionType.Inline" not in text and "t__tmp_v" in text


@pytest.mark.pypto_backend("Ascend950")
def test_inline_unroll_and_nested_calls_together_on_ascend950():
    compile_and_compare(pl.parse(ALL_THREE), "Ascend950")


def test_the_pytest_fixture_with_the_pipeline_string(pypto_check_pipeline):
    pypto_check_pipeline(pl.parse(ALL_THREE), ",".join(PREFIX + REST))


RETURN_IN_BRANCH = '''
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def f(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        if n > 0:
            return x
        return x

    @pl.function
    def main(self, a: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        r = self.f(a, n)
        return r
'''


def test_the_command_line_reports_a_helper_it_cannot_splice_as_a_rejected_program(tmp_path, capsys):
    from pypto_core import cli

    src = tmp_path / "prog.py"
    src.write_text(RETURN_IN_BRANCH)
    assert cli.main(["compile", "--pipeline", ",".join(PREFIX), "--no-reproducer", str(src)]) == 1
    err = capsys.readouterr().err
    assert "contains a non-trailing ReturnStmt" in err and "prog.py:10:" in err
    assert "internal error" not in err and "bug" not in err


def test_the_command_line_runs_the_program_with_an_unroll_loop_that_assigns_an_outer_tensor(tmp_path, capsys):
    from pypto_core import cli

    src = tmp_path / "prog.py"
    src.write_text('''
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        for i1 in pl.unroll(2):
            a[0:32, 0:64] = a
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [32, 64])
            o = pl.store(pl.add(t, 1.0), [0, 0], o)
        return o
''')
    pipeline = ",".join(["unroll_loops", "convert_to_ssa", "normalize_stmt_structure", *REST])
    assert cli.main(["run", "--pipeline", pipeline, "--verify", "check-run", str(src)]) == 0, capsys.readouterr()
