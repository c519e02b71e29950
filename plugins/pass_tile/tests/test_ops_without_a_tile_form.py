"""ConvertTensorToTileOps asks the registry which calls are tensor computations (docs/passes/convert_tensor_to_tile_ops.md):
an op from any plugin whose call computes a new GM tensor and that implements no tile form is a located error
inside a kernel, naming the op, its plugin and the fix; the same op outside the kernel scope compiles and runs.
No op-name prefix decides it: a tensor op of a third-party namespace is caught like a bundled one."""

from __future__ import annotations

import types
from collections.abc import Iterator

import pytest

import pypto.language as pl
from pypto_core.plugins.host import register_in_process_plugin, reload_plugins
from pypto_plugins.pass_tile.tests.helpers import BACKENDS, compiled, default_pipeline

PLUGIN = '''
from pypto.plugin import ArgSpec, CoreAffinity, Effect, OpDef, OutputMemory, TileForm, create_op_call, hookimpl


@hookimpl
def pypto_register_ops(registry):
    same = lambda args, kwargs: args[0].type
    registry.register_op(OpDef("extops.twice", same, args=(ArgSpec("x"),), effects={0: Effect.READ},
                               evaluate=lambda ctx, call, a, kw: 2 * a[0]))
    # Writes its argument in place and returns it, as a store does: a GM access, not a tensor computation.
    registry.register_op(OpDef("extops.fill_ones", same, args=(ArgSpec("x"),), effects={0: Effect.WRITE},
                               evaluate=lambda ctx, call, a, kw: a[0] * 0 + 1))
    # A tensor op with a tile form naming a tile op of the same signature (docs/plugins.md, a tile form).
    registry.register_op(OpDef("extops.thrice", same, args=(ArgSpec("x"),),
                               evaluate=lambda ctx, call, a, kw: 3 * a[0]))
    registry.register_op(OpDef("extops.tile_thrice", same, args=(ArgSpec("x"),), affinity=CoreAffinity.VECTOR,
                               output_memory=OutputMemory(inherit_input=0),
                               evaluate=lambda ctx, call, a, kw: 3 * a[0]))
    registry.implement("tile_form", "extops.thrice", TileForm(op="extops.tile_thrice"))
    for name in ("twice", "fill_ones", "thrice", "tile_thrice"):
        registry.register_dsl(f"extops.{name}",
                              lambda x, *, span=None, _n=name: create_op_call(f"extops.{_n}", [x], span=span))
'''

INSIDE = '''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.extops.twice(x)
            out = pl.assemble(out, pl.add(y, 1.0), [0, 0])
        return out
'''

OUTSIDE = '''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.extops.twice(x)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.add(y, 1.0), [0, 0])
        return out
'''


@pytest.fixture
def extops_plugin() -> Iterator[None]:
    module = types.ModuleType("extops_mod")
    exec(compile(PLUGIN, "<extops>", "exec"), module.__dict__)
    reload_plugins(disabled=[], extra=[])
    host = register_in_process_plugin("extops", module)
    assert not host.failures, host.failures
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_third_party_tensor_op_in_a_kernel_is_a_located_error_naming_op_plugin_and_fix(extops_plugin, backend):
    with pytest.raises(ValueError) as info:
        default_pipeline(backend).run(pl.parse(INSIDE, "inside.py"))
    message = str(info.value)
    assert "ConvertTensorToTileOps: in InCore function 'main_incore_0', extops.twice (op of plugin 'extops') has " \
           "no tile form" in message, message
    assert "compute it outside the pl.at scope, or implement 'tile_form' for the op in its plugin" in message
    assert "inside.py:9:17" in message  # the call's line


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_op_outside_the_kernel_scope_compiles_and_runs(extops_plugin, backend):
    compiled(OUTSIDE, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_third_party_op_with_a_tile_form_compiles_in_a_kernel_and_runs(extops_plugin, backend):
    after = compiled(INSIDE.replace("extops.twice", "extops.thrice"), backend)
    from pypto import ir
    assert "pl.extops.tile_thrice(" in ir.python_print(after, format=False)


def test_an_op_writing_its_argument_in_place_is_a_gm_access_not_a_tensor_computation(extops_plugin):
    from pypto import ir, passes
    from pypto_core.ops.registry import opdef_of
    from pypto_plugins.pass_tile.tensor_to_tile.function_lowering import computes_a_tensor

    x = ir.Var("x", ir.TensorType([16, 64], pl.FP32))
    for name, computes in (("extops.twice", True), ("extops.fill_ones", False), ("tile.store", False)):
        if name == "tile.store":
            t = ir.Var("t", ir.TileType([16, 64], pl.FP32))
            call = ir.create_op_call(name, [t, ir.MakeTuple([ir.ConstInt(0), ir.ConstInt(0)]), x])
        else:
            call = ir.create_op_call(name, [x])
        assert computes_a_tensor(call, opdef_of(call)) is computes, name
    assert passes is not None
