"""`pypto run FILE`: both programs on the same inputs, a table, a non-zero exit on a mismatch."""

from pathlib import Path

import numpy as np
import pytest

from pypto_core import cli
from pypto_core.ir import expr as E
from pypto_core.ir.visitor import IRMutator

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "basic.py"

SUB = """
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[8, 16], pl.FP32], b: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 16])
            y = pl.load(b, [0, 0], [8, 16])
            out = pl.store(pl.sub(x, y), [0, 0], out)
        return out
"""


def test_run_the_bundled_example_passes(capsys):
    assert cli.main(["run", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "convert_to_ssa" in out and "split_vector_kernel" in out  # the default preset, whole
    assert "│ return │ [64]  │ float32 │" in out
    assert "ok" in out


@pytest.mark.parametrize("example", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_every_bundled_example_computes_the_same_after_the_default_pipeline(example, capsys):
    assert cli.main(["run", str(example)]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "MISMATCH" not in out.upper() and " ok " in out


def test_save_and_reload_inputs(tmp_path, capsys):
    src = tmp_path / "sub.py"
    src.write_text(SUB)
    saved = tmp_path / "run.npz"
    assert cli.main(["run", str(src), "--seed", "4", "--save", str(saved)]) == 0
    data = np.load(saved)
    np.testing.assert_allclose(data["output.out"], data["input.a"] - data["input.b"], rtol=1e-6)
    np.testing.assert_array_equal(data["output.out"], data["expected.out"])
    # Feed the saved inputs back (input.* keys are accepted) with a different seed: same outputs.
    again = tmp_path / "again.npz"
    assert cli.main(["run", str(src), "--seed", "99", "--inputs", str(saved), "--save", str(again)]) == 0
    np.testing.assert_array_equal(np.load(again)["output.out"], data["output.out"])


class _Swap(IRMutator):
    def visit_call(self, call):
        call = super().visit_call(call)
        if isinstance(call, E.Call) and call.op.name == "tile.sub":
            return call.with_fields(args=(call.args[1], call.args[0]))
        return call


def test_a_mismatch_exits_non_zero_and_names_the_output(tmp_path, capsys, monkeypatch):
    import pypto_core.config as config

    real = config.build_pass_manager

    class Wrong:
        def __init__(self, manager):
            self.manager = manager

        def run(self, program):
            return _Swap().visit_program(self.manager.run(program))

    monkeypatch.setattr(config, "build_pass_manager",
                        lambda resolved, stream=None, progress=False: Wrong(real(resolved, stream, progress)))
    src = tmp_path / "sub.py"
    src.write_text(SUB)
    assert cli.main(["run", str(src)]) == 1
    captured = capsys.readouterr()
    assert "MISMATCH: 128 element(s) differ; first at index [0, 0]" in captured.out
    assert "2 of 2 output(s) differ: return, out" in captured.err


def test_an_unknown_entry_is_a_clear_error(tmp_path, capsys):
    src = tmp_path / "sub.py"
    src.write_text(SUB)
    assert cli.main(["run", str(src), "--entry", "nope"]) == 1
    assert "call of 'nope', which the program does not define" in capsys.readouterr().err
