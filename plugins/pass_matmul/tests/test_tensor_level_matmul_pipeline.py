"""A tensor-level `pl.matmul` written in one kernel, through the whole default pipeline
(docs/passes/auto_tile_matmul_l0.md, operands ConvertTensorToTileOps left without a space): its operand loads
become Mat bridge loads, AutoTileMatmulL0 tiles it so every L0 operand fits, and the outputs equal the
source's at the FP32 reordering tolerance. A [512, 512] x [512, 512] FP32 matmul needs two 1 MiB Mat panels:
PyPTO refuses it for Mat capacity too, and so does pypto, with the same "Mat buffer usage" message; [256, 256]
x [256, 256] FP32 (both panels fill Mat exactly) is the largest square one that compiles."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.analysis.memory import tile_bytes
from pypto_core.analysis.walk import statements
from pypto_core.backend.registry import get_backend
from pypto_core.config import parse_config_text, resolve_config
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.passes.manager import PassManager

from .helpers import same_results_reordered

BACKENDS = ("Ascend910B", "Ascend950")


def source(size: int) -> str:
    t = f"pl.Tensor[[{size}, {size}], pl.FP32]"
    return f'''
import pypto.language as pl

@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: {t}, b: {t}, out: pl.Out[{t}]) -> {t}:
        c = pl.matmul(a, b)
        out = pl.assemble(out, c, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {t}, b: {t}, out: pl.Out[{t}]) -> {t}:
        out = self.mm(a, b, out)
        return out
'''


def default_pipeline(backend: str) -> PassManager:
    loaded = parse_config_text(f'backend = "{backend}"\n[pipeline]\npreset = "default"\n', "<test>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_256_fp32_matmul_compiles_into_kernels_whose_l0_operands_fit(backend: str):
    before = pl.parse(source(256))
    after = default_pipeline(backend).run(before)
    assert not [f for f in after.functions.values() if f.func_type is FunctionType.InCore]
    be = get_backend(backend)
    l0 = [s.var.type for f in after.functions.values() for s in statements(f.body)
          if isinstance(s, S.AssignStmt) and isinstance(s.var.type, TileType)
          and s.var.type.memory_space in (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)]
    assert l0, ir.python_print(after)
    for t in l0:
        assert tile_bytes(t, be) <= be.capacity(t.memory_space), t
    same_results_reordered(before, after, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_512_fp32_matmul_is_refused_for_mat_capacity_as_pypto_does(backend: str):
    with pytest.raises(ValueError, match=r"Mat buffer usage \(\d+ bytes\) exceeds platform limit \(524288 bytes\)"):
        default_pipeline(backend).run(pl.parse(source(512)))


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
    assert "c__ssa_v0_mat_t0" in text and "pl.tile.assemble(" in text
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
