"""Toy passes that fail, for the crash reproducer and reducer tests (registered as plugin `toy_failing`).

* `toy_fail_on_op{op="tensor.muls"}` raises (a crash: an internal error) when a call of `op` is present;
* `toy_miscompile` adds 1 to the scalar of every `tensor.adds`: check-run reports the changed result;
* `toy_fail_on_many{calls=3}` raises when a function has at least `calls` op calls (the failure needs
  several statements, so a reducer cannot remove all of them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pypto import ir
from pypto_core.ops.registry import create_op_call
from pypto_core.passes.pass_base import Pass, PassOptions
from pypto_core.plugins import hookimpl
from pypto_core.plugins.host import reload_plugins

from . import toy_passes


class _Calls(ir.IRVisitor):
    def __init__(self) -> None:
        self.ops: list[str] = []

    def visit_call(self, call: Any) -> None:
        self.ops.append(str(getattr(call.op, "name", "")))
        super().visit_call(call)


def op_names(node: Any) -> list[str]:
    calls = _Calls()
    calls.visit(node)
    return calls.ops


class FailOnOpOptions(PassOptions):
    op: str = "tensor.muls"


class ToyFailOnOp(Pass):
    name = "ToyFailOnOp"
    factory_name = "toy_fail_on_op"
    Options = FailOnOpOptions

    def run(self, program: Any, ctx: Any) -> Any:
        if self.options.op in op_names(program):
            raise RuntimeError(f"toy_fail_on_op: cannot lower {self.options.op}")
        return program


class FailOnManyOptions(PassOptions):
    calls: int = 3


class ToyFailOnMany(Pass):
    name = "ToyFailOnMany"
    factory_name = "toy_fail_on_many"
    Options = FailOnManyOptions

    def run(self, program: Any, ctx: Any) -> Any:
        for f in program.function_list():
            if len(op_names(f)) >= self.options.calls:
                raise RuntimeError(f"toy_fail_on_many: function '{f.name}' has too many calls")
        return program


class ToyMiscompile(Pass):
    name = "ToyMiscompile"
    factory_name = "toy_miscompile"

    def run(self, program: Any, ctx: Any) -> Any:
        class Rewrite(ir.IRMutator):
            def visit_call(self, call: Any) -> Any:
                call = super().visit_call(call)
                if getattr(call.op, "name", "") != "tensor.adds" or not isinstance(call.args[1], ir.ConstFloat):
                    return call
                bumped = ir.ConstFloat(call.args[1].value + 1.0, ir.DataType.FP32)
                return create_op_call("tensor.adds", [call.args[0], bumped], span=call.span)

        return Rewrite().visit_program(program)


ALL_PASSES = (ToyFailOnOp, ToyFailOnMany, ToyMiscompile)


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    for cls in ALL_PASSES:
        registry.register_pass(cls)


@pytest.fixture
def failing_plugin() -> Iterator[None]:
    """The toy passes and these failing ones registered as in-process plugins."""
    import sys

    reload_plugins(disabled=[], extra=[("toy_passes", toy_passes), ("toy_failing", sys.modules[__name__])])
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])
