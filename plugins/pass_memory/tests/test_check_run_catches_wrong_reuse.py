"""Address-accurate execution catches a reuse bug (docs/memory_planning.md, execution by address): a deliberately
broken pass, registered by a plugin of this test, puts two tiles that are live at the same time on one
allocation; check-run runs the program before and after every pass on the machine and names that pass. The
correct MemoryReuse on the same program passes check-run."""

from __future__ import annotations

import types

import pytest

from pypto_core.interp.check_run import CheckRunInstrument
from pypto_core.interp.errors import PassCheckRunError
from pypto_core.passes.manager import PassManager
from pypto_core.plugins.host import register_in_process_plugin, reload_plugins
from pypto_plugins.pass_memory.tests.helpers import base, program

# x and y are both read by z: they are live at the same time.
CO_LIVE = '''
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)
        x: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        z: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.add(x, y)
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(z, [0, 0], out)
        return o
'''

BROKEN_PLUGIN = '''
from pypto.plugin import Pass, hookimpl
from pypto_plugins.pass_memory.memrefs import on_chip_memref, retype


class BrokenReuse(Pass):
    """Puts every Vec tile on the first tile's allocation, live or not: the bug MemoryReuse must not have."""

    name = "BrokenReuse"
    factory_name = "broken_reuse"

    def run(self, program, ctx):
        funcs = []
        for func in program.functions.values():
            first = []

            def onto_first(var):
                m = on_chip_memref(var)
                if m is None:
                    return None
                if not first:
                    first.append(m)
                    return None
                return var.type.with_fields(memref=first[0])

            funcs.append(retype(func, onto_first))
        return program.with_functions(funcs)


@hookimpl
def pypto_register_passes(registry):
    registry.register_pass(BrokenReuse)
'''


@pytest.fixture
def broken_reuse_plugin():
    module = types.ModuleType("broken_reuse_plugin")
    exec(compile(BROKEN_PLUGIN, "<broken_reuse_plugin>", "exec"), module.__dict__)
    register_in_process_plugin("broken_reuse", module)
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


@pytest.mark.unverified
def test_check_run_names_the_pass_that_shares_a_buffer_between_live_tiles(broken_reuse_plugin):
    from pypto import passes

    manager = PassManager([passes.broken_reuse()], backend="Ascend910B", verify="check-run")
    with pytest.raises(PassCheckRunError) as info:
        manager.run(program(CO_LIVE))
    assert info.value.pass_name == "broken_reuse"
    text = str(info.value)
    assert "check-run: pass 'broken_reuse' (BrokenReuse, from plugin 'broken_reuse'" in text
    assert "changed what the program computes" in text


@pytest.mark.unverified
@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_memory_reuse_and_allocate_memory_addr_pass_check_run(backend):
    # The check-run instrument around plain calls: a PassManager's static check would ask which pass makes
    # HasMemRefs, and InitMemRef is not part of this plugin's tests.
    from pypto import passes

    check_run = CheckRunInstrument()
    with passes.PassContext([check_run], backend=backend):
        after = passes.allocate_memory_addr()(passes.memory_reuse()(program(CO_LIVE)))
    assert check_run.runs == 3  # the input, after MemoryReuse, after AllocateMemoryAddr
    assert base(after, "z") == base(after, "x") != base(after, "y")
