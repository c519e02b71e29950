"""A tensor-level `pl.matmul` written in one kernel, through the whole default pipeline
(docs/passes/auto_tile_matmul_l0.md, operands ConvertTensorToTileOps left without a space): its operand loads
become Mat bridge loads, AutoTileMatmulL0 tiles it so every L0 operand fits, and the outputs equal the
source's at the FP32 reordering tolerance. Operand panels that do not fit Mat are streamed from GM slab by
slab (docs/passes/auto_tile_matmul_l0.md, operand panels that do not fit Mat): a [512, 512] x [512, 512] FP32
matmul, which PyPTO refuses for Mat capacity, compiles on both backends into kernels whose every Mat and L0
tile fits, and computes numpy's `a @ b`."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.analysis.memory import static_dims, tile_bytes
from pypto_core.analysis.walk import statements
from pypto_core.backend.registry import get_backend
from pypto_core.config import parse_config_text, resolve_config
from pypto_core.interp import make_inputs, run_program
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.passes.manager import PassManager

from .helpers import MATMUL_ATOL, MATMUL_RTOL, same_results_reordered

BACKENDS = ("Ascend910B", "Ascend950")


def source(size: int) -> str:
    return rect_source(size, size, size, "FP32")


def rect_source(m: int, n: int, k: int, dtype: str, b_trans: bool = False) -> str:
    """`out = pl.matmul(a, b)` of `[m, k]` x `[k, n]` (`b` stored `[n, k]` with `b_trans`), FP32 out."""
    a, o = f"pl.Tensor[[{m}, {k}], pl.{dtype}]", f"pl.Tensor[[{m}, {n}], pl.FP32]"
    b = f"pl.Tensor[[{n}, {k}], pl.{dtype}]" if b_trans else f"pl.Tensor[[{k}, {n}], pl.{dtype}]"
    kwargs = ", out_dtype=pl.FP32" if dtype != "FP32" else ""
    kwargs += ", b_trans=True" if b_trans else ""
    return f'''
import pypto.language as pl

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: {a}, b: {b}, out: pl.Out[{o}]) -> {o}:
        c = pl.matmul(a, b{kwargs})
        out = pl.assemble(out, c, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {a}, b: {b}, out: pl.Out[{o}]) -> {o}:
        out = self.mm(a, b, out)
        return out
'''


def default_pipeline(backend: str) -> PassManager:
    loaded = parse_config_text(f'backend = "{backend}"\n[pipeline]\npreset = "default"\n', "<test>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend)


def _planned_tiles(program: ir.Program, spaces: tuple[MemorySpace, ...]) -> list[TileType]:
    return [s.var.type for f in program.functions.values() for s in statements(f.body)
            if isinstance(s, S.AssignStmt) and isinstance(s.var.type, TileType) and s.var.type.memory_space in spaces]


def _every_tile_fits(program: ir.Program, backend: str) -> None:
    """Every Mat, Left, Right and Acc tile of the compiled program within its space's capacity."""
    be = get_backend(backend)
    l0 = _planned_tiles(program, (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc))
    mat = _planned_tiles(program, (MemorySpace.Mat,))
    assert l0 and mat, ir.python_print(program)
    for t in l0 + mat:
        assert tile_bytes(t, be) <= be.capacity(t.memory_space), t


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_256_fp32_matmul_compiles_into_kernels_whose_l0_operands_fit(backend: str):
    before = pl.parse(source(256))
    after = default_pipeline(backend).run(before)
    assert not [f for f in after.functions.values() if f.func_type is FunctionType.InCore]
    _every_tile_fits(after, backend)
    # both panels fill Mat exactly: they are kept whole, the slabs extracted from them
    assert [static_dims(t) for t in _planned_tiles(after, (MemorySpace.Mat,))] == [[256, 256], [256, 256]]
    same_results_reordered(before, after, backend)


def _equals_numpy_matmul(before: ir.Program, after: ir.Program, backend: str) -> None:
    """The compiled program's output against numpy's `a @ b` in FP64 on the same (rounded) inputs, at the
    FP32 reordering tolerance (docs/passes/auto_tile_matmul_l0.md, execution and tolerance)."""
    from pypto import passes

    with passes.PassContext([], backend=backend):
        inputs = make_inputs(before.get_function("main"), seed=5)
        got = run_program(after, inputs, "main")
    want = np.asarray(inputs["a"], dtype=np.float64) @ np.asarray(inputs["b"], dtype=np.float64)
    for label, value in got.items():
        np.testing.assert_allclose(np.asarray(value, dtype=np.float64), want, rtol=MATMUL_RTOL, atol=MATMUL_ATOL,
                                   err_msg=label)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("m, n, k, dtype, lhs_kept", [
    (512, 512, 512, "FP32", False),  # two 1 MiB panels
    (256, 512, 1024, "FP32", False),  # 1 MiB and 2 MiB
    (512, 1024, 512, "BF16", False),  # 512 KiB and 1 MiB: the lhs alone fills Mat, with a slab it does not fit
    (128, 1024, 1024, "BF16", True),  # 256 KiB and 2 MiB: streaming the rhs is enough, the lhs stays whole
], ids=["fp32_512", "fp32_256x1024x512", "bf16_512x512x1024", "bf16_128x1024x1024"])
def test_operand_panels_past_mat_compile_by_streaming_their_slabs(backend: str, m: int, n: int, k: int,
                                                                   dtype: str, lhs_kept: bool):
    """The issue's [512, 512] x [512, 512] FP32 matmul (two 1 MiB panels, Mat is 512 KiB), a non-square FP32
    one and BF16 ones past Mat: the panels Mat cannot keep are not loaded whole (the largest goes first),
    every Mat and L0 tile fits, and the result is numpy's `a @ b`."""
    before = pl.parse(rect_source(m, n, k, dtype))
    after = default_pipeline(backend).run(before)
    _every_tile_fits(after, backend)
    mat_shapes = [static_dims(t) for t in _planned_tiles(after, (MemorySpace.Mat,))]
    assert [k, n] not in mat_shapes
    assert ([m, k] in mat_shapes) == lhs_kept
    assert "_mat: pl.Tile[" in ir.python_print(after)  # the slabs' own GM loads
    _equals_numpy_matmul(before, after, backend)
    same_results_reordered(before, after, backend)


PARTIAL_PANEL = """        am: pl.Tile[[512, 512], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [512, 512], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[512, 512], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 512], [512, 500], target_memory=pl.Mem.Mat)
        c: pl.Tile[[512, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[512, 512], pl.FP32] = pl.tile.store(c, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_panel_that_cannot_be_reloaded_by_windows_keeps_the_located_mat_error(backend: str):
    """The rhs panel is only partly valid (its window load reads 500 of 512 columns): a slab of it is no GM
    window of the same shape, so it is not streamed; the lhs is, and the rhs alone still exceeds Mat, refused
    with the function, the bytes and the rhs load's line."""
    from .helpers import kernel, run_pass

    t = "pl.Tensor[[512, 512], pl.FP32]"
    before = pl.parse(kernel(PARTIAL_PANEL, f"a: {t}, b: {t}, out: pl.Out[{t}]", t))
    text = ir.python_print(run_pass(before, backend))
    assert "bm: pl.Tile[[512, 512]" in text and "am: pl.Tile[[512, 512]" not in text and "_l0_b_mat" not in text
    with pytest.raises(ValueError, match=r"Mat buffer usage \(1048576 bytes\) exceeds platform limit "
                                         r"\(524288 bytes\): function 'k'(.|\n)*<string>:8:9\n(.|\n)*bm: pl.Tile"):
        default_pipeline(backend).run(before)


def chained_source(m: int, n: int, k: int) -> str:
    """`d = pl.matmul(pl.cast(pl.matmul(a, b), BF16, rint), e)`: the first product is read only by the second."""
    a, b, e = f"pl.Tensor[[{m}, {k}], pl.BF16]", f"pl.Tensor[[{k}, {n}], pl.BF16]", f"pl.Tensor[[{n}, 32], pl.BF16]"
    out = f"pl.Tensor[[{m}, 32], pl.FP32]"
    return f'''
import pypto.language as pl

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: {a}, b: {b}, e: {e}, out: pl.Out[{out}]) -> {out}:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        cb = pl.cast(c, pl.BF16, mode="rint")
        d = pl.matmul(cb, e, out_dtype=pl.FP32)
        out = pl.assemble(out, d, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {a}, b: {b}, e: {e}, out: pl.Out[{out}]) -> {out}:
        out = self.mm(a, b, e, out)
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_chained_matmul_goes_through_a_mat_scratch_in_the_default_pipeline(backend: str):
    """Ascend910B: the [128, 512] FP32 product exceeds L0C, so its grid assembles into a BF16 Mat scratch;
    Ascend950: it fits L0C, so only the rint cast folds into one Acc -> Mat assemble. No cast survives."""
    before = pl.parse(chained_source(128, 512, 64))
    after = default_pipeline(backend).run(before)
    text = ir.python_print(after)
    assert "tile.cast" not in text
    assert "c__tile_mat_t0" in text and "pl.tile.assemble(" in text  # the scratch of `c__tile` (ConvertTensorToTileOps)
    same_results_reordered(before, after, backend, exact=True)


def _checked_run(program: ir.Program, backend: str) -> ir.Program:
    from pypto import passes
    from pypto_core.interp.check_run import CheckRunInstrument

    with passes.PassContext([CheckRunInstrument()], backend=backend):
        return default_pipeline(backend).run(program)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("src", [source(256), chained_source(256, 256, 256), chained_source(128, 512, 64)],
                         ids=["fp32_256", "chained_256", "chained_grid"])
def test_check_run_accepts_the_reordered_accumulations_on_random_inputs(backend: str, src: str):
    """check-run compares AutoTileMatmulL0's outputs at the reordered-accumulation tolerance (FP32 1e-4; the
    operand dtype's when one product feeds another), not FP32's default 1e-5."""
    _checked_run(pl.parse(src), backend)


def test_check_run_still_catches_a_wrong_k_block_after_a_reordering_pass():
    from pypto import passes
    from pypto_core.interp.check_run import CheckRunInstrument
    from pypto_core.interp.errors import PassCheckRunError
    from pypto_core.passes.pass_base import Pass

    from .helpers import matmul_kernel, run_pass

    before = matmul_kernel(128, 128, 464)  # K loop of 4 blocks of 96 and a tail of 80 at K = 384
    after = run_pass(before, "Ascend910B")
    text = ir.python_print(after)
    assert "pl.tile.extract(bm, 384, 0, [80, 128]" in text
    broken = pl.parse(text.replace("pl.tile.extract(bm, 384, 0, [80, 128]", "pl.tile.extract(bm, 368, 0, [80, 128]"))

    class WrongTail(Pass):
        name = "WrongTail"
        factory_name = "wrong_tail"
        reorders_accumulation = True

        def run(self, program: ir.Program, ctx: object = None) -> ir.Program:
            return broken

    with pytest.raises(PassCheckRunError, match="changed what the program computes"):
        with passes.PassContext([CheckRunInstrument()], backend="Ascend910B"):
            WrongTail()(before)
