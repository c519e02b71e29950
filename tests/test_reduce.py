"""`pypto reduce` and the reduction library (pypto_core/reduce/)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto_core.cli import main
from pypto_core.ir.function import Program, as_program
from pypto_core.reduce import strategies
from pypto_core.reduce.reducer import FailureOracle, NotInteresting, reduce_program
from pypto_core.reduce.reproducer import is_reproducer

from .test_pipeline_toys.toy_failing import ToyFailOnMany, ToyFailOnOp, failing_plugin, op_names  # noqa: F401

# 20 statements, a loop, a scope and a second function; only `pl.mul(y7, 2.0)` (tensor.muls) matters
# to toy_fail_on_op.
BIG = '''import pypto.language as pl


@pl.program
class Big:
    @pl.function
    def helper(self, a: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        b = pl.add(a, 1.0)
        c = pl.add(b, 2.0)
        return c

    @pl.function
    def main(self, x: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        y0 = pl.add(x, 1.0)
        y1 = pl.add(y0, 2.0)
        y2 = pl.add(y1, 3.0)
        y3 = pl.add(y2, 4.0)
        for i in pl.range(8):
            y4 = pl.add(y3, 5.0)
        y5 = pl.add(y4, 6.0)
        y6 = pl.add(y5, 7.0)
        y7 = pl.mul(y6, 2.0)
        y8 = pl.add(y7, 8.0)
        y9 = pl.add(y8, 9.0)
        y10 = self.helper(y9)
        y11 = pl.add(y10, 11.0)
        y12 = pl.add(y11, 12.0)
        y13 = pl.add(y12, 13.0)
        return y13
'''

SCOPED = '''import pypto.language as pl


@pl.program
class Scoped:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.load(y, [0], [64])
            tile_sq = pl.mul(tile, tile)
            result = pl.store(tile_sq, [0], x)
        z = pl.add(result, 2.0)
        return z
'''


def big() -> Program:
    return as_program(pl.parse(BIG, "big.py"))


@pytest.fixture
def work(tmp_path, monkeypatch, failing_plugin) -> Path:  # noqa: F811
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.py").write_text(BIG)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- the library ------------------------------------------------------------------------------------
def test_reducing_keeps_the_failing_op_and_little_else(failing_plugin):  # noqa: F811
    oracle = FailureOracle([ToyFailOnOp()], until="cannot lower tensor.muls")
    program = big()
    before = strategies.count_statements(program)
    progress = []
    result = reduce_program(program, oracle, on_progress=progress.append)
    after = strategies.count_statements(result.program)
    assert before >= 20 and after <= 3, result.text
    assert result.lines * 3 < result.initial_lines
    assert op_names(result.program) == ["tensor.muls"]
    assert "[[1, 1]" in result.text  # shapes simplified
    reparsed = as_program(pl.parse(result.text))  # the text written is the program that fails
    assert oracle(reparsed)
    assert progress and progress[-1].tests == result.tests and progress[-1].statements == after
    assert any(step.startswith("remove function") for step in result.steps)


def test_a_failure_that_needs_several_statements_keeps_them(failing_plugin):  # noqa: F811
    oracle = FailureOracle([ToyFailOnMany(calls=3)], until="too many calls")
    result = reduce_program(big(), oracle)
    assert len(op_names(result.program)) == 3 and oracle(result.program)


def test_a_program_that_does_not_fail_is_refused(failing_plugin):  # noqa: F811
    with pytest.raises(NotInteresting, match="no failure"):
        reduce_program(big(), FailureOracle([ToyFailOnOp(op="tensor.exp")], until="cannot lower"))
    with pytest.raises(ValueError, match="say which failure"):
        FailureOracle([ToyFailOnOp()])


def test_the_test_budget_stops_the_search(failing_plugin):  # noqa: F811
    result = reduce_program(big(), FailureOracle([ToyFailOnOp()], until="cannot lower"), max_tests=2)
    assert result.tests == 2 and result.exhausted


def _descriptions(strategy, program) -> list[str]:
    return [c.description for c in strategy(program)]


def test_each_strategy_offers_simpler_programs():
    program = big()
    assert _descriptions(strategies.remove_functions, program) == ["remove function 'helper'",
                                                                   "remove function 'main'"]
    removals = list(strategies.remove_statements(program))
    assert removals and all(strategies.count_statements(c.program) < strategies.count_statements(program)
                            for c in removals)
    loop = [c for c in strategies.reduce_loop_trips(program)]
    assert [c.description for c in loop] == ["loop of 8 trips -> 1 in 'main'", "loop of 8 trips -> 4 in 'main'"]
    assert "pl.range(1)" in loop[0].program.as_python()
    inlined = [c for c in strategies.inline_regions(program)]
    assert [c.description for c in inlined] == ["replace a loop by one iteration of its body in 'main'"]
    assert "pl.range" not in inlined[0].program.as_python()
    forwards = _descriptions(strategies.forward_assignments, program)
    assert "forward 'y1' to 'y0' in 'main'" in forwards
    shapes = list(strategies.simplify_shapes(program))
    assert shapes[0].description == "shape size 128 -> 1" and "pl.Tensor[[64, 1]" in (shapes[0].text or "")


def test_scopes_are_unwrapped():
    program = as_program(pl.parse(SCOPED))
    [cand] = list(strategies.inline_regions(program))
    assert "scope by its body in 'main'" in cand.description
    text = cand.program.as_python()
    assert "pl.at(" not in text and "pl.tile.mul" in text


# -- the command ------------------------------------------------------------------------------------
def test_reduce_command_writes_a_smaller_program_that_still_fails(capsys, work):
    code, out, err = run(capsys, "reduce", "big.py", "--pipeline", "toy_mark,toy_fail_on_op",
                         "--until", "cannot lower tensor.muls", "-o", "small.py")
    assert code == 0 and out == ""
    assert "reduce: 21 -> 20 statements, 2 tests, 1 reductions" in err  # progress lines on stderr
    assert "wrote small.py" in err
    small = (work / "small.py").read_text()
    assert strategies.count_statements(as_program(pl.parse(small))) <= 3 and "helper" not in small
    code, _, err = run(capsys, "compile", "small.py", "--pipeline", "toy_mark,toy_fail_on_op", "--no-reproducer")
    assert code == 3 and "cannot lower tensor.muls" in err


def test_reduce_prints_to_stdout_without_output(capsys, work):
    code, out, _ = run(capsys, "reduce", "big.py", "--pipeline", "toy_fail_on_op", "--until", "cannot lower")
    assert code == 0 and "pl.tensor.muls" in out and "helper" not in out


def test_reduce_a_reproducer_needs_no_options_and_stays_a_reproducer(capsys, work):
    code, _, _ = run(capsys, "compile", "big.py", "--pipeline", "toy_mark,toy_fail_on_op")
    assert code == 3
    code, _, err = run(capsys, "reduce", "pypto-reproducer.py", "-o", "reduced.py")
    assert code == 0, err
    assert is_reproducer(work / "reduced.py")
    text = (work / "reduced.py").read_text()
    assert "# pipeline: toy_fail_on_op\n" in text and "pypto compile --replay reduced.py" in text
    code, _, err = run(capsys, "compile", "--replay", "reduced.py")
    assert code == 3 and "cannot lower tensor.muls" in err


def test_reduce_until_mismatch(capsys, work):
    code, _, err = run(capsys, "reduce", "big.py", "--pipeline", "toy_miscompile", "--until-mismatch", "-o", "m.py")
    assert code == 0, err
    reduced = as_program(pl.parse((work / "m.py").read_text()))
    assert op_names(reduced) == ["tensor.adds"]
    code, _, err = run(capsys, "compile", "m.py", "--pipeline", "toy_miscompile", "--verify", "check-run",
                       "--no-reproducer")
    assert code == 3 and "changed what the program computes" in err


def test_reduce_refuses_a_program_that_does_not_fail(capsys, work):
    code, _, err = run(capsys, "reduce", "big.py", "--pipeline", "toy_mark", "--until", "cannot lower")
    assert code == 1 and "big.py: the program does not fail as asked (no failure)" in err
    code, _, err = run(capsys, "reduce", "big.py", "--pipeline", "toy_mark")
    assert code == 2 and "--until TEXT or --until-mismatch" in err


def test_reduce_never_executes_its_input(capsys, work):
    (work / "evil.py").write_text(BIG.replace("import pypto.language as pl\n",
                                              "import pypto.language as pl\nopen('pwned', 'w').write('x')\n", 1))
    code, _, _ = run(capsys, "reduce", "evil.py", "--pipeline", "toy_fail_on_op", "--until", "cannot lower")
    assert code == 0 and not (work / "pwned").exists()
