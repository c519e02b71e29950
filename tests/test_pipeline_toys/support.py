"""Fixtures and programs shared by the pipeline/config/CLI/plugin tests.

Every fixture that changes the plugin host puts it back (`reload_plugins(disabled=[], extra=[])`),
so a test never sees another test's plugins.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.backend.selection import clear_selection
from pypto_core.plugins.host import reload_plugins

from . import toy_passes

TOY_SOURCE = '''import pypto.language as pl


@pl.program
class Toy:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        z = pl.add(y, 2.0)
        return z
'''

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "basic.py"


def toy_program() -> ir.Program:
    program = pl.parse(TOY_SOURCE, "toy.py")
    assert isinstance(program, ir.Program)
    return program


@pytest.fixture
def toy_plugin() -> Iterator[None]:
    """The toy passes registered as an in-process plugin named `toy_passes`."""
    reload_plugins(disabled=[], extra=[("toy_passes", toy_passes)])
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


@pytest.fixture
def clean_plugins() -> Iterator[None]:
    """Whatever a test does to the plugin host is undone afterwards."""
    reload_plugins(disabled=[], extra=[])
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


@pytest.fixture
def clean_backend() -> Iterator[None]:
    clear_selection()
    try:
        yield
    finally:
        clear_selection()


def make_distribution(site: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> None:
    """A distribution as pip would leave it on sys.path: modules plus `<dist>-0.1.dist-info/`."""
    for dotted, source in modules.items():
        path = site.joinpath(*dotted.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(site).parents:
            if parent != Path("."):
                (site / parent / "__init__.py").touch()
        path.write_text(source, encoding="utf-8")
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    lines = ["[pypto.plugins]"] + [f"{name} = {target}" for name, target in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


# A third-party plugin: the op `toyext.twice` (with its `pl.toyext.twice` DSL name) and the pass
# `toyext_expand`, which rewrites it into `tensor.muls(x, factor)`.
TOYEXT_PLUGIN = '''
from pypto import ir
from pypto_core.ops.opdef import ArgSpec, OpDef
from pypto_core.ops.registry import create_op_call
from pypto_core.passes.pass_base import Pass, PassOptions
from pypto_core.plugins import hookimpl


def twice(x, *, span=None):
    return create_op_call("toyext.twice", [x], span=span)


class ExpandTwiceOptions(PassOptions):
    factor: float = 2.0


class ExpandTwice(Pass):
    name = "ExpandTwice"
    factory_name = "toyext_expand"
    Options = ExpandTwiceOptions
    description = "toyext.twice(x) -> tensor.muls(x, factor)"

    def run(self, program, ctx):
        factor = self.options.factor

        class Rewrite(ir.IRMutator):
            def visit_call(self, call):
                call = super().visit_call(call)
                if call.op.name != "toyext.twice":
                    return call
                return create_op_call("tensor.muls", [call.args[0], ir.ConstFloat(factor, ir.DataType.FP32)],
                                      span=call.span)

        return Rewrite().visit_program(program)


@hookimpl
def pypto_register_ops(registry):
    registry.register_op(OpDef("toyext.twice", lambda args, kwargs: args[0].type, args=(ArgSpec("x"),),
                               doc="x + x"))
    registry.register_dsl("toyext.twice", twice)


@hookimpl
def pypto_register_passes(registry):
    registry.register_pass(ExpandTwice)
'''

TOYEXT_PROGRAM = '''import pypto.language as pl


@pl.program
class UsesToyext:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.toyext.twice(x)
        return y
'''
