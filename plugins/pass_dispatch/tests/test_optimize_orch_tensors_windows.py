"""OptimizeOrchTensors, Pattern 5 (docs/passes/optimize_orch_tensors.md): a kernel marked windowize=True is
called with the windows it touches -- a window plain to see: one load of an input, the final store into an
output, static shapes, offsets from its scalar parameters; anything else keeps the whole tensor."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_plugins.pass_dispatch.tests.orch_helpers import assert_unchanged, optimize

ROWS = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, attrs={{"windowize": True}})
    def rows(x: pl.Tensor[[64, 32], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        t: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [{load_at}, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)
{extra}        u: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        r: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(u, [i * 8, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        for i, (acc,) in pl.range(8, init_values=(out,)):
            step: pl.Tensor[[64, 32], pl.FP32] = self.rows(x, i, acc)
            acc_rv: pl.Tensor[[64, 32], pl.FP32] = pl.yield_(step)
        return acc_rv
'''


STRIDED = "pl.Tensor[[8, 32], pl.FP32, pl.TensorView(stride=[32, 1], layout=pl.TensorLayout.ND)]"
WHOLE = "pl.Tensor[[64, 32], pl.FP32]"


def _windowed_params(program: ir.Program) -> list[str]:
    clone = program.get_function("rows__windowed")
    assert clone is not None and program.get_function("rows") is not None  # the original is kept
    return [str(p.type) for p in clone.params]


def _loop_body(program: ir.Program) -> list[str]:
    text = ir.python_print(program.get_function("main"), format=False)
    return [line.strip() for line in text.splitlines()[3:-1]]


def test_a_shifted_input_window_and_the_output_window_are_passed_as_slices():
    _, after = optimize(ROWS.format(load_at="(7 - i) * 8", extra=""))
    assert _windowed_params(after) == [STRIDED, "pl.Scalar[pl.INDEX]", STRIDED]
    assert _loop_body(after) == [
        "x__window: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.slice(x, [8, 32], [(7 - i) * 8, 0])",
        "acc__window: pl.Tensor[[8, 32], pl.FP32] = pl.tensor.slice(acc, [8, 32], [i * 8, 0])",
        f"step__windowed: {STRIDED} = rows__windowed(x__window, i, acc__window)",
        "step: pl.Tensor[[64, 32], pl.FP32] = pl.tensor.assemble(acc, step__windowed, [i * 8, 0])",
        "acc_rv: pl.Tensor[[64, 32], pl.FP32] = pl.yield_(step)"]


def test_an_input_read_twice_keeps_the_whole_tensor():
    _, after = optimize(ROWS.format(load_at="i * 8", extra='''        t2: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)
'''))
    assert _windowed_params(after) == [WHOLE, "pl.Scalar[pl.INDEX]", STRIDED]


def test_offsets_computed_inside_the_kernel_keep_the_whole_tensor():
    src = ROWS.format(load_at="i * 8", extra="")
    src = src.replace("pl.tile.store(u, [i * 8, 0], out)", "pl.tile.store(u, [j, 0], out)")
    src = src.replace("        u: pl.Tile", "        j: pl.Scalar[pl.INDEX] = i * 8\n        u: pl.Tile")
    _, after = optimize(src)
    assert _windowed_params(after) == [STRIDED, "pl.Scalar[pl.INDEX]", WHOLE]
    assert _loop_body(after)[1] == "step: pl.Tensor[[64, 32], pl.FP32] = rows__windowed(x__window, i, acc)"


def test_a_kernel_with_no_window_to_take_is_left_alone():
    src = ROWS.format(load_at="i * 8", extra="").replace(
        "pl.tile.load(x, [i * 8, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)",
        "pl.tile.load(x, [j, 0], [8, 32], [8, 32], target_memory=pl.Mem.Vec)")
    src = src.replace("pl.tile.store(u, [i * 8, 0], out)", "pl.tile.store(u, [j, 0], out)")
    src = src.replace("        t: pl.Tile", "        j: pl.Scalar[pl.INDEX] = i * 8\n        t: pl.Tile", 1)
    assert_unchanged(src)


WINDOWIZED_SOURCE = '''
import pypto.language as pl


@pl.program
class Win:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP, windowize=True):
                t = pl.slice(x, [16, 64], [i * 16, 0])
                out = pl.assemble(out, pl.exp(t), [i * 16, 0])
        return out
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_windowized_scope_is_called_with_its_windows_through_the_default_pipeline(backend: str):
    import pypto.language as pl
    from pypto_core.testing import checked_pipeline

    compiled = checked_pipeline(backend).run(pl.parse(WINDOWIZED_SOURCE))  # check-run after every pass
    clone = compiled.get_function("main_incore_0__windowed")
    assert clone is not None and clone.attrs.get("windowize") is True  # the outliner keeps pl.at's windowize
    windows = [str(p.type).split(", pl.MemRef")[0] for p in clone.params if isinstance(p.type, ir.TensorType)]
    assert windows == ["pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[64, 1], layout=pl.TensorLayout.ND)"] * 2
