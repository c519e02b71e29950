"""IncoreTileOps: which calls an InCore function may keep (plugins/pass_tile/verifiers/incore_tile_ops.py).

PyPTO's rule: a call is flagged when its op is a tensor op that has a tensor -> tile conversion; the
registry's `tile_form` interface says which ops have one (no name list). In PyPTO `tensor.view` and
`tensor.dim` have none and pass; here their tile forms declare `gm_access` (they may stay: a GM view, a GM
dim). The second test takes a tensor op without a tile form by asking the registry so.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto_core.ops.registry import op_registry
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

KERNEL = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], out_0: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        v = pl.tensor.view(a, [64, 16])
        n = pl.tensor.dim(a, 0)
        b = pl.tensor.adds(a, 1.0)
        t = pl.load(v, [0, 0], [64, 16], target_memory=pl.Mem.Vec)
        out_0 = pl.store(t, [0, 0], out_0)
        return out_0
'''


def messages(program) -> list[str]:
    return [d.message for d in PropertyVerifierRegistry.verify(["IncoreTileOps"], program)]


@pytest.fixture
def view_without_tile_form(monkeypatch):
    registry = op_registry()
    original = registry.implementation

    def implementation(interface: str, op_name: str):
        if interface == "tile_form" and op_name == "tensor.view":
            return None
        return original(interface, op_name)

    monkeypatch.setattr(registry, "implementation", implementation)


def test_a_tensor_op_with_a_tile_form_is_flagged_and_gm_access_ops_stay():
    program = pl.parse(KERNEL, "k.py")
    assert messages(program) == [
        "Tensor op 'tensor.adds' found in InCore function (should have been converted): function 'k'; "
        "ConvertTensorToTileOps lowers tensor ops to tile ops"]


def test_a_tensor_op_with_no_tile_form_passes(view_without_tile_form):
    program = pl.parse(KERNEL, "k.py")
    (diag,) = PropertyVerifierRegistry.verify(["IncoreTileOps"], program)
    assert diag.rule_name == "IncoreTileOps" and "'tensor.adds'" in diag.message
    assert (diag.span.filename, diag.span.begin_line) == ("k.py", 9)
