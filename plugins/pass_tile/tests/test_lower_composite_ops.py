"""LowerCompositeOps (docs/passes/lower_composite_ops.md): a call of an op implementing the `expand` interface becomes
its expansion (asked of the registry, so a plugin's new composite op needs no change in the pass); the bundled
ops are not composite; a bad expansion is a plugin defect (InternalError naming the op and the plugin)."""

from __future__ import annotations

import types
from collections.abc import Iterator

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto_core.plugins.host import register_in_process_plugin, reload_plugins
from pypto_core.testing import same_results

PLUGIN = '''
from pypto.plugin import ArgSpec, ConstFloat, Effect, OpDef, create_op_call, hookimpl


def axpb(x, *, span=None):
    return create_op_call("compext.axpb", [x], span=span)


def expand_axpb(call, args):  # 2 * x + 1, as tensor ops
    return create_op_call("tensor.adds", [create_op_call("tensor.muls", [args[0], ConstFloat(2.0)]),
                                          ConstFloat(1.0)], span=call.span)


def expand_twice_axpb(call, args):  # a composite op expanding into another composite op
    return create_op_call("compext.axpb", [create_op_call("compext.axpb", [args[0]])], span=call.span)


@hookimpl
def pypto_register_ops(registry):
    same = lambda args, kwargs: args[0].type
    expansions = {
        "axpb": (expand_axpb, lambda ctx, call, a, kw: 2 * a[0] + 1),
        "axpb2": (expand_twice_axpb, lambda ctx, call, a, kw: 4 * a[0] + 3),
        "bad": (lambda call, args: create_op_call("tensor.cast", [args[0]], {"target_type": pypto.DataType.FP16}),
                lambda ctx, call, a, kw: a[0]),
        "loop": (lambda call, args: create_op_call("compext.loop", list(args)), lambda ctx, call, a, kw: a[0]),
        "crash": (lambda call, args: {}["no such key"], lambda ctx, call, a, kw: a[0]),
    }
    for name, (expand, evaluate) in expansions.items():
        registry.register_op(OpDef(f"compext.{name}", same, args=(ArgSpec("x"),), effects={0: Effect.READ},
                                   evaluate=evaluate))
        registry.implement("expand", f"compext.{name}", expand)
    for name in ("axpb", "axpb2", "bad", "loop", "crash"):
        registry.register_dsl(f"compext.{name}", lambda x, *, span=None, _n=name: create_op_call(f"compext.{_n}", [x], span=span))
'''

PROGRAM = '''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.compext.OP(x), [0])
        return out
'''


@pytest.fixture
def composite_plugin() -> Iterator[None]:
    module = types.ModuleType("compext_mod")
    exec(compile(PLUGIN.replace("pypto.DataType", "__import__('pypto').DataType"), "<compext>", "exec"),
         module.__dict__)
    reload_plugins(disabled=[], extra=[])
    host = register_in_process_plugin("compext", module)
    assert not host.failures, host.failures
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


def _ops(program: ir.Program) -> list[str]:
    found: list[str] = []

    class Walk(ir.IRVisitor):
        def visit_call(self, call):
            found.append(call.op.name)
            super().visit_call(call)

    Walk().visit_program(program)
    return found


@pytest.mark.parametrize("op, ops", [("axpb", ["tensor.adds", "tensor.muls"]),
                                     ("axpb2", ["tensor.adds", "tensor.muls", "tensor.adds", "tensor.muls"])])
def test_a_composite_op_becomes_its_expansion_and_computes_the_same(composite_plugin, op: str, ops: list[str]):
    before = pl.parse(PROGRAM.replace("OP", op), "composite.py")
    after = passes.lower_composite_ops()(before)
    assert [name for name in _ops(after) if not name.startswith("tensor.assemble")] == ops
    same_results(before, after)
    # The expanded program goes on through the default pipeline like any other.
    compiled = passes.outline_incore_scopes()(passes.convert_to_ssa()(after))
    assert compiled.get_function("main") is not None


def test_the_bundled_programs_hold_no_composite_op():
    for path in ("examples/basic.py", "examples/mixed_matmul_bias.py"):
        program = pl.parse(open(path).read(), path)
        assert passes.lower_composite_ops()(program) is program


@pytest.mark.unverified
def test_an_expansion_of_another_type_is_an_internal_error_naming_the_op_and_plugin(composite_plugin):
    before = pl.parse(PROGRAM.replace("OP", "bad"), "composite.py")
    with pytest.raises(pypto.InternalError, match=r"the expansion of compext.bad \(plugin 'compext'\) gives "
                                                   r"pl.Tensor\[\[64\], pl.FP16\], but the call is "
                                                   r"pl.Tensor\[\[64\], pl.FP32\]"):
        passes.lower_composite_ops()(before)


@pytest.mark.unverified
def test_an_expansion_that_never_ends_is_an_internal_error(composite_plugin):
    before = pl.parse(PROGRAM.replace("OP", "loop"), "composite.py")
    with pytest.raises(pypto.InternalError, match=r"expanding compext.loop still yields a composite op after 64 "
                                                   r"rounds \(plugin 'compext'"):
        passes.lower_composite_ops()(before)


@pytest.mark.unverified
def test_an_expansion_that_crashes_is_an_internal_error_naming_the_plugin(composite_plugin):
    before = pl.parse(PROGRAM.replace("OP", "crash"), "composite.py")
    with pytest.raises(pypto.InternalError, match=r"the expansion of compext.crash \(plugin 'compext'\) failed: "
                                                   r"KeyError"):
        passes.lower_composite_ops()(before)
