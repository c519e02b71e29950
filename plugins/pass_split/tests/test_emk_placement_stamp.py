"""The placement stamp (docs/passes/expand_mixed_kernel.md, placement): a call with attr
`core_placement="aiv"` runs on the vector core whatever its op, and no emitted function keeps the stamp."""

from __future__ import annotations

import pytest

from pypto import ir

from .emk_helpers import BACKENDS, calls, emk, op_names
from .helpers import function

STAMPED = '''
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(qk: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat], sig: pl.InOut[pld.DistributedTensor[[2], pl.INT32]], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        # op=1 (Set): on Ascend910B both AIV lanes run the expanded kernel until SplitVectorKernel gives lane 1 its
        # replay, so an AtomicAdd would count twice in this pass-alone check
        pld.system.notify(sig, 1, [0], 1, op=1, attrs={"core_placement": "aiv"})
        pld.system.notify(sig, 1, [1], 1, op=1)
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec, attrs={"core_placement": "aiv"})
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(pl.tile.add(v, pl.tile.adds(z, 0.0)), [0, 0], out)
        return o
'''


def _stamps(program: ir.Program) -> list[str]:
    return [f"{f.name}: {c.op.name}" for f in program.functions.values() for c in calls(f)
            if "core_placement" in c.attrs]


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_stamped_call_runs_on_the_aiv_only_and_the_stamp_is_stripped(backend_name: str):
    after = emk(STAMPED, backend_name)
    aic, aiv = op_names(function(after, "k_aic")), op_names(function(after, "k_aiv"))
    assert aic.count("pld.system.notify") == 1 and aiv.count("pld.system.notify") == 2
    assert "tile.create" in aiv and "tile.create" not in aic
    assert _stamps(after) == []
    text = ir.python_print(after, format=False)
    assert "core_placement" not in text and text.count("system.notify(") == 3


def test_a_stamp_outranks_a_cube_op():
    from pypto_core.analysis.affinity import classify_call_affinity
    from pypto_core.ops.opdef import CoreAffinity

    from .helpers import parse

    k = parse(STAMPED.replace('pl.tile.move(qk, target_memory=pl.Mem.Vec)',
                              'pl.tile.move(qk, target_memory=pl.Mem.Vec, attrs={"core_placement": "aiv"})'))
    (move,) = [c for c in calls(function(k, "k")) if c.op.name == "tile.move"]
    assert classify_call_affinity(move) is CoreAffinity.VECTOR  # a C->V move stamped aiv: vector work


def test_a_single_core_kernel_loses_its_stamps_too():
    src = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec, attrs={"core_placement": "aiv"})
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(x, [0, 0], out)
        return o
'''
    after = emk(src)
    assert function(after, "k").func_type is ir.FunctionType.AIV and _stamps(after) == []
