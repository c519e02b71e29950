"""Groups written by hand (docs/passes/expand_mixed_kernel.md, hand-written Groups): members called with other
argument lists than the Group's are rebuilt to take the Group's parameters (in place when called once, else as
`<group>_aic_adapter` / `_aiv_adapter`); on Ascend910B an unsplit AIV member moving tiles gets
`dual_aiv_dispatch=True`."""

from __future__ import annotations

import pytest

from pypto import ir

from .emk_helpers import emk, has_lines, printed, run_text

GROUP = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[16, 16], pl.FP32]):
        imp: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='c2v', peer_func='vec')
        pl.system.aic_initialize_pipe(imp, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, slot_num=2)
        m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        pl.tpush_to_aiv(m, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='c2v', size=2048, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, slot_num=2)
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
        o: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(v, [0, 0], out)
        pl.tfree_to_aic(v)
        return o

    @pl.function(type=pl.FunctionType.Group)
    def grp(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        self.cube(a)
        r: pl.Tensor[[16, 16], pl.FP32] = self.vec(out)
        return r
'''


@pytest.mark.parametrize("backend_name", ["Ascend910B", "Ascend950"])
def test_members_called_once_are_rebuilt_in_place_with_the_groups_parameters(backend_name: str):
    after = emk(GROUP, backend_name, run=False)  # the members alone cannot run outside their Group
    run_text(ir.python_print(after, format=False), "grp")
    assert printed(after, "cube").splitlines()[1].startswith(
        "def cube(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):")
    vec = printed(after, "vec")
    assert vec.splitlines()[1].startswith(
        "def vec(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) ->")
    assert has_lines(printed(after, "grp"), '''
    cube(a, out)
    r: pl.Tensor[[16, 16], pl.FP32] = vec(a, out)
''')
    assert ('pl.func_attr({"dual_aiv_dispatch": True})' in vec) == (backend_name == "Ascend910B")


ALSO_CALLED = GROUP + '''
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = self.grp(a, out)
        self.cube(a)
        return r
'''


def test_members_called_elsewhere_get_adapters_and_keep_their_signatures():
    after = emk(ALSO_CALLED, "Ascend910B", run=False)
    names = [f.name for f in after.functions.values()]
    assert "grp_aic_adapter" in names and "grp_aiv_adapter" in names
    assert printed(after, "cube").splitlines()[1].startswith("def cube(a: pl.Tensor[[16, 16], pl.FP32]):")
    assert has_lines(printed(after, "grp"), '''
    grp_aic_adapter(a, out)
    r: pl.Tensor[[16, 16], pl.FP32] = grp_aiv_adapter(a, out)
''')
    assert "peer_func='grp_aiv_adapter'" in printed(after, "grp_aic_adapter")
    run_text(ir.python_print(after, format=False), "grp")


def test_a_canonical_group_is_left_alone_but_its_unsplit_aiv_member_is_marked_on_910b():
    canonical = GROUP.replace("def cube(self, a: pl.Tensor[[16, 16], pl.FP32]):",
                              "def cube(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):")
    canonical = canonical.replace("def vec(self, out:", "def vec(self, a: pl.Tensor[[16, 16], pl.FP32], out:")
    canonical = canonical.replace("self.cube(a)", "self.cube(a, out)").replace("self.vec(out)", "self.vec(a, out)")
    after = emk(canonical, "Ascend910B", run=False)
    assert 'pl.func_attr({"dual_aiv_dispatch": True})' in printed(after, "vec")
    split = canonical.replace("pl.tpop_from_aic(split=0)", "pl.tpop_from_aic(split=1)")
    split = split.replace("pl.tpush_to_aiv(m, split=0)", "pl.tpush_to_aiv(m, split=1)")
    assert "dual_aiv_dispatch" not in printed(emk(split, "Ascend910B", run=False), "vec")
