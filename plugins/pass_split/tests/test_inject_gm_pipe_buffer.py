"""InjectGMPipeBuffer (docs/passes/inject_gm_pipe_buffer.md): on a backend routing cross-core pipes through GM,
pipe-using kernels and their wrappers take a `__gm_pipe_buffer` parameter and host code allocates one per call;
elsewhere the program is returned as it is. Checked on the machine: the program computes the same."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.interp.check_run import CheckRunInstrument
from pypto_core.interp.shape import shape_from_backend
from pypto_core.testing import checked_pipeline

from .emk_helpers import on_backend
from .helpers import parse

KERNELS = '''
    @pl.function(type=pl.FunctionType.AIC)
    def mm_aic(a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]{aic_buffer}):
        mm_c2v_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='mm_c2v_slot_buffer', peer_func='mm_aiv')
        pl.system.aic_initialize_pipe(mm_c2v_slot_buffer_import, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, slot_num=2)
        a_tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        w_tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        a_left: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(a_tile, target_memory=pl.Mem.Left)
        w_right: pl.Tile[[16, 16], pl.FP32, pl.Mem.Right] = pl.tile.move(w_tile, target_memory=pl.Mem.Right)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_left, w_right)
        pl.tile.tpush_to_aiv(t, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def mm_aiv(a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]{aiv_buffer}) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({{"dual_aiv_dispatch": True}})
        mm_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='mm_c2v_slot_buffer', size=2048, base=-1)
        pl.system.aiv_initialize_pipe(mm_c2v_slot_buffer, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, slot_num=2)
        t_vec: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
        e: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t_vec)
        pl.system.tfree_to_aic(t_vec)
        out_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def mm(a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]{group_buffer}) -> pl.Tensor[[16, 16], pl.FP32]:
        self.mm_aic(a, w, out{group_arg})
        self.mm_aiv(a, w, out{group_arg})
        return out
'''
BUFFER_PARAM = ", __gm_pipe_buffer: pl.Out[pl.Tensor[[1], pl.FP32]]"
CREATE = ("pl.tensor.create([1], dtype=pl.FP32, layout=pl.TensorLayout.ND, manual_dep=True)")


def kernels(injected: bool) -> str:
    buffer = BUFFER_PARAM if injected else ""
    arg = ", __gm_pipe_buffer" if injected else ""
    return KERNELS.format(aic_buffer=buffer, aiv_buffer=buffer, group_buffer=buffer, group_arg=arg)


ORCH = '''
@pl.program
class M:
{kernels}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], o1: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
{body}
'''
TWO_CALLS = '''        r1: pl.Tensor[[16, 16], pl.FP32] = self.mm(a, w, o1)
        r2: pl.Tensor[[16, 16], pl.FP32] = self.mm(r1, w, o2)
        return r1, r2'''
TWO_CALLS_INJECTED = f'''        __gm_pipe_buffer: pl.Tensor[[1], pl.FP32] = {CREATE}
        r1: pl.Tensor[[16, 16], pl.FP32] = self.mm(a, w, o1, __gm_pipe_buffer)
        __gm_pipe_buffer_1: pl.Tensor[[1], pl.FP32] = {CREATE}
        r2: pl.Tensor[[16, 16], pl.FP32] = self.mm(r1, w, o2, __gm_pipe_buffer_1)
        return r1, r2'''


def inject(src: str | ir.Program, backend_name: str = "Ascend910B") -> tuple[ir.Program, ir.Program]:
    """The pass on `backend_name`, checked on that backend's machine as check-run checks a pass (a buffer added
    to the entry is allocated for the run after the pass)."""
    before = parse(src) if isinstance(src, str) else src
    with on_backend(backend_name):
        p = passes.inject_gm_pipe_buffer()
        after = p(before)
        check = CheckRunInstrument(shape=shape_from_backend(backend_name))
        check.before_pass(p, before)
        check.after_pass(p, after)
    return before, after


def test_kernels_and_their_group_take_the_buffer_and_the_host_allocates_one_per_call():
    _, after = inject(ORCH.format(kernels=kernels(False), body=TWO_CALLS))
    ir.assert_structural_equal(after, parse(ORCH.format(kernels=kernels(True), body=TWO_CALLS_INJECTED)))


def test_a_backend_with_on_chip_pipes_keeps_the_program():
    before, after = inject(ORCH.format(kernels=kernels(False), body=TWO_CALLS), "Ascend950")
    assert after is before


def test_injecting_twice_adds_nothing():
    _, once = inject(ORCH.format(kernels=kernels(False), body=TWO_CALLS))
    _, twice = inject(once)
    ir.assert_structural_equal(twice, once)


def test_a_call_in_a_loop_allocates_its_buffer_in_the_loop():
    body = '''        for i, (acc,) in pl.range(2, init_values=(o1,)):
            r: pl.Tensor[[16, 16], pl.FP32] = self.mm(a, w, acc)
            acc_rv: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(r)
        return acc_rv, o2'''
    injected = body.replace("            r: pl.Tensor", f"            __gm_pipe_buffer: pl.Tensor[[1], pl.FP32] = {CREATE}\n            r: pl.Tensor")
    injected = injected.replace("self.mm(a, w, acc)", "self.mm(a, w, acc, __gm_pipe_buffer)")
    _, after = inject(ORCH.format(kernels=kernels(False), body=body))
    ir.assert_structural_equal(after, parse(ORCH.format(kernels=kernels(True), body=injected)))


def test_a_group_entry_takes_the_buffer_from_its_caller():
    src = f"\n@pl.program\nclass G:\n{kernels(False)}"
    _, after = inject(src)
    ir.assert_structural_equal(after, parse(f"\n@pl.program\nclass G:\n{kernels(True)}"))


def test_a_wrapper_of_a_wrapper_forwards_its_own_buffer():
    outer = '''
    @pl.function(type=pl.FunctionType.Group)
    def twice(a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]{buffer}) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = self.mm(a, w, out{arg})
        return r
'''
    src = f"\n@pl.program\nclass W:\n{kernels(False)}{outer.format(buffer='', arg='')}"
    expected = f"\n@pl.program\nclass W:\n{kernels(True)}{outer.format(buffer=BUFFER_PARAM, arg=', __gm_pipe_buffer')}"
    _, after = inject(src)
    ir.assert_structural_equal(after, parse(expected))


def test_a_kernel_without_a_pipe_takes_no_buffer():
    src = '''
@pl.program
class V:
    @pl.function(type=pl.FunctionType.AIV)
    def vexp(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = self.vexp(a, out)
        return r
'''
    before, after = inject(src)
    assert after is before


def test_name_factory_and_properties():
    p = passes.inject_gm_pipe_buffer()
    assert p.get_name() == "InjectGMPipeBuffer"
    assert {prop.name for prop in p.get_required_properties()} == {"SSAForm", "MixedKernelExpanded"}
    assert p.get_invalidated_properties().empty()


MIXED_SOURCE = '''
import pypto.language as pl

@pl.program
class Mixed:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="mm"):
                out = pl.assemble(out, pl.exp(pl.matmul(a, w)), [0, 0])
        return out
'''


@pytest.mark.parametrize("backend_name", ["Ascend910B", "Ascend950"])
def test_the_default_pipeline_keeps_the_buffer_to_the_end_and_computes_the_same(backend_name: str):
    import pypto.language as pl

    compiled = checked_pipeline(backend_name).run(pl.parse(MIXED_SOURCE))  # check-run after every pass
    names = [p.name_hint for f in compiled.functions.values() for p in f.params]
    assert ("__gm_pipe_buffer" in names) == (backend_name == "Ascend910B")


def test_a_call_in_a_return_gets_its_buffer_allocated_before_the_return():
    body = "        return self.mm(a, w, o1), o2"
    injected = f"        __gm_pipe_buffer: pl.Tensor[[1], pl.FP32] = {CREATE}\n        return self.mm(a, w, o1, __gm_pipe_buffer), o2"
    _, after = inject(ORCH.format(kernels=kernels(False), body=body))
    ir.assert_structural_equal(after, parse(ORCH.format(kernels=kernels(True), body=injected)))


def test_a_parameter_that_takes_the_reserved_name_is_an_error():
    src = ORCH.format(kernels=kernels(False), body=TWO_CALLS).replace(
        "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n        mm_c2v_slot_buffer_import",
        "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], __gm_pipe_buffer: pl.Scalar[pl.INDEX]):\n        mm_c2v_slot_buffer_import")
    src = src.replace("self.mm_aic(a, w, out)", "self.mm_aic(a, w, out, 0)")
    with pytest.raises(ValueError, match=r"function 'mm_aic' has a parameter named '__gm_pipe_buffer' of type "
                                         r"pl.Scalar\[pl.INDEX\].*reserved.*rename the parameter"):
        inject(src)
