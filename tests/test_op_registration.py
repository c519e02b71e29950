"""Registering ops: every name once (op, DSL name, IR builder, semantics, interface implementation), a
second registration naming both places; op families; the interface table; derived builders."""

from __future__ import annotations

import types

import pytest

import pypto.language as pl
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Var
from pypto_core.ir.span import Span
from pypto_core.ir.types import TileType
from pypto_core.ops.family import OpFamily
from pypto_core.ops.interfaces import MissingImplementationError, OpInterface
from pypto_core.ops.opdef import ArgSpec, KwargSpec, OpDef
from pypto_core.ops.registry import DuplicateRegistrationError, OpRegistry, op_registry
from pypto_core.plugins import hookimpl
from pypto_core.plugins.host import PluginLoadWarning, register_in_process_plugin, reload_plugins

HERE = "tests/test_op_registration.py"
TWICE_DECORATOR = '@family.semantics("demo.twice")'
CLASH_DECORATOR = '@family.semantics("tile.add")'



def _same(args, kwargs):
    return args[0].type


def _line_of(text: str) -> int:
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, 1) if text in line and "= '@" not in line)


# -- the registry ---------------------------------------------------------------------------------
def test_an_op_registered_twice_names_both_owners_and_both_places():
    registry = OpRegistry()
    first = OpDef("demo.twice", _same, args=(ArgSpec("x"),))  # first definition
    second = OpDef("demo.twice", _same, args=(ArgSpec("x"),))  # second definition
    registry.register_op(first, "plugin_a")
    with pytest.raises(DuplicateRegistrationError) as caught:
        registry.register_op(second, "plugin_b")
    message = str(caught.value)
    assert message.startswith("op 'demo.twice' is registered by both 'plugin_a' and 'plugin_b'")
    assert f"first at {HERE}:{_line_of('# first definition')}" in message
    assert f"again at {HERE}:{_line_of('# second definition')}" in message


@pytest.mark.parametrize("kind", ["dsl", "builder", "semantics", "implementation", "interface"])
def test_every_kind_of_name_registered_twice_is_an_error_naming_both_places(kind):
    registry = OpRegistry()
    registry.register_op(OpDef("demo.op", _same, args=(ArgSpec("x"),)), "plugin_a")

    def one(ctx, call, args, kwargs):
        return args[0]

    def two(ctx, call, args, kwargs):
        return args[0]

    register = {
        "dsl": lambda fn, owner, site: registry.register_dsl("demo.op", fn, owner, site),
        "builder": lambda fn, owner, site: registry.register_builder("demo", "op", fn, owner, site),
        "semantics": lambda fn, owner, site: registry.register_semantics("demo.op", fn, owner, site),
        "implementation": lambda fn, owner, site: registry.implement("tile_form", "demo.op", fn, owner, site),
        "interface": lambda fn, owner, site: registry.declare_interface(OpInterface("tile_form", "doc"), owner, site),
    }[kind]
    register(one, "plugin_a", "a.py:1")
    with pytest.raises(DuplicateRegistrationError) as caught:
        register(two, "plugin_b", "b.py:2")
    message = str(caught.value)
    assert "'plugin_a' and 'plugin_b'" in message
    assert "(first at a.py:1, again at b.py:2)" in message


def test_semantics_of_an_unregistered_op_is_an_error():
    with pytest.raises(ValueError, match=r"semantics for op 'demo.none' \(x.py:3\), which no plugin has registered"):
        OpRegistry().register_semantics("demo.none", lambda *a: None, "p", "x.py:3")


def test_rolling_a_plugin_back_removes_its_semantics_and_implementations_only():
    registry = OpRegistry()
    registry.register_op(OpDef("demo.op", _same, args=(ArgSpec("x"),)), "ops")
    registry.register_semantics("demo.op", lambda *a: None, "other")
    registry.implement("split_form", "demo.op", object(), "other")
    registry.implement("tile_form", "demo.op", object(), "ops")
    registry.unregister_owner("other")
    assert registry.ops["demo.op"].evaluate is None
    assert registry.interfaces_of("demo.op") == ["tile_form"]


# -- the interface table --------------------------------------------------------------------------
def test_a_missing_required_implementation_is_explained_by_the_interface_declaration():
    registry = OpRegistry()
    registry.declare_interface(OpInterface("tile_form", doc="how a tensor op lowers", missing="lower it elsewhere"),
                               "pass_tile")
    registry.implement("tile_from", "demo.op", object(), "ops_x", "ops_x/ops.py:4")
    span = Span("prog.py", 3, 5, 3, 9)
    with pytest.raises(MissingImplementationError) as caught:
        registry.require_implementation("tile_form", "demo.op", span)
    message = str(caught.value)
    assert "op 'demo.op' does not implement the op interface 'tile_form' (how a tensor op lowers): lower it elsewhere" \
        in message
    assert "'ops_x' (ops_x/ops.py:4) implements 'tile_from' for it, an interface no plugin declares" in message
    assert caught.value.span == span
    assert isinstance(caught.value, ValueError)


def test_the_bundled_passes_declare_their_interfaces_and_ops_implement_them():
    registry = op_registry()
    assert {"tile_form", "flatten_2d", "split_form", "expand"} <= set(registry.interfaces)
    assert registry.interface_places["split_form"].owner == "pass_split"
    assert registry.implementation("tile_form", "tensor.add") is not None
    assert registry.implementation("split_form", "tile.load") is not None
    assert registry.implementation("split_form", "tile.add") is None  # halved operands, halved result
    assert "tile_form" in registry.interfaces_of("tensor.add")


# -- families -------------------------------------------------------------------------------------
def _family_plugin(family: OpFamily) -> types.ModuleType:
    module = types.ModuleType("family_plugin")

    @hookimpl
    def pypto_register_ops(registry):
        registry.register_family(family)

    module.pypto_register_ops = pypto_register_ops
    return module


@pytest.fixture
def restore_plugins():
    yield
    reload_plugins(disabled=[], extra=[])


def test_a_family_registers_its_ops_semantics_forms_and_derived_builders(restore_plugins):
    family = OpFamily("demo")
    family.op(OpDef("demo.twice", _same, args=(ArgSpec("x"),), kwargs=(KwargSpec("scale", (int,), 1),)),
              dsl="demo.twice")

    @family.semantics("demo.twice")
    def _twice(ctx, call, args, kwargs):
        return args[0] * 2 * kwargs["scale"]

    family.implement("tile_form", "demo.twice", "a form")
    register_in_process_plugin("demo_family", _family_plugin(family))
    registry = op_registry()
    assert registry.ops["demo.twice"].evaluate is _twice
    assert registry.semantics_places["demo.twice"].site == f"{HERE}:{_line_of(TWICE_DECORATOR)}"
    assert registry.implementation("tile_form", "demo.twice") == "a form"
    assert registry.impl_places[("tile_form", "demo.twice")].owner == "demo_family"
    builder = registry.builders["demo"]["twice"]
    assert registry.dsl["demo.twice"].function is builder
    x = Var("x", TileType([16, 16], DataType.FP32))
    assert builder(x).kwargs == {}  # the default is not recorded
    assert builder(x, scale=3).kwargs == {"scale": 3}
    with pytest.raises(TypeError, match="unexpected keyword argument 'scael'.*did you mean 'scale'"):
        builder(x, scael=3)


def test_a_family_registering_a_bundled_ops_semantics_again_fails_to_load_naming_both_places(restore_plugins):
    family = OpFamily("clash")

    @family.semantics("tile.add")
    def _add_again(ctx, call, args, kwargs):  # the clash
        return args[0] + args[1]

    with pytest.warns(PluginLoadWarning):
        host = register_in_process_plugin("clash_family", _family_plugin(family))
    failure = next(f for f in host.failures if f.name == "clash_family")
    assert "semantics of op 'tile.add' is registered by both 'ops_tile' and 'clash_family'" in failure.message
    assert f"again at {HERE}:{_line_of(CLASH_DECORATOR)}" in failure.message
    assert "first at plugins/ops_tile/" in failure.message
    assert op_registry().ops["tile.add"].evaluate is not _add_again  # rolled back, the bundled one kept


def test_a_family_registering_a_dsl_name_twice_names_both_definitions(restore_plugins):
    family = OpFamily("twice")
    family.op(OpDef("demo.once", _same, args=(ArgSpec("x"),)))

    @family.dsl("demo.once")  # first spelling
    def once(x, span=None):
        return x

    @family.dsl("demo.once")  # second spelling
    def once_again(x, span=None):
        return x

    with pytest.warns(PluginLoadWarning):
        host = register_in_process_plugin("twice_family", _family_plugin(family))
    failure = next(f for f in host.failures if f.name == "twice_family")
    assert "DSL name 'pl.demo.once' is registered by both 'twice_family' and 'twice_family'" in failure.message
    assert f"first at {HERE}:{_line_of('# first spelling')}, again at {HERE}:{_line_of('# second spelling')}" \
        in failure.message


def test_a_derived_builder_omits_optional_operands_and_refuses_a_gap():
    family = OpFamily("opt")
    opdef = family.op(OpDef("demo.opt", _same, args=(ArgSpec("x"), ArgSpec("a", optional=True),
                                                     ArgSpec("b", optional=True))), dsl="demo.opt")
    registry = OpRegistry()
    registry.register_op(opdef, "t")
    builder = family._dsl[0].function
    assert builder.__name__ == "opt"
    assert [p for p in __import__("inspect").signature(builder.dsl_target).parameters] == ["x", "a", "b", "span"]
    with pytest.raises(TypeError, match="argument 'b' given while the optional 'a' before it is not"):
        builder(Var("x", TileType([4, 4], DataType.FP32)), b=Var("y", TileType([4, 4], DataType.FP32)))


def test_a_derived_builder_parses_and_prints_like_a_hand_written_one(restore_plugins):
    family = OpFamily("demo")
    family.op(OpDef("demo.scaled", _same, args=(ArgSpec("x"),), kwargs=(KwargSpec("scale", (int,), 1),)),
              dsl="demo.scaled")
    register_in_process_plugin("demo_scaled", _family_plugin(family))
    from pypto import ir

    source = """
import pypto.language as pl

@pl.function
def f(x: pl.Tile[[16, 16], pl.FP32]) -> pl.Tile[[16, 16], pl.FP32]:
    y = pl.demo.scaled(x, scale=2)
    z = pl.demo.scaled(y, scale=1)
    return z
"""
    func = pl.parse(source)
    text = ir.python_print(func)
    assert "pl.demo.scaled(x, scale=2)" in text and "pl.demo.scaled(y)" in text
    ir.assert_structural_equal(pl.parse(text), func)


def test_pypto_list_interfaces_shows_declarations_counts_and_undeclared_ones(restore_plugins, capsys):
    import json

    from pypto_core.cli import main

    family = OpFamily("typo")
    family.op(OpDef("demo.typo", _same, args=(ArgSpec("x"),)))
    family.implement("tile_from", "demo.typo", "a form under a misspelled interface")
    register_in_process_plugin("typo_family", _family_plugin(family))
    assert main(["list", "interfaces", "--json"]) == 0
    records = {r["interface"]: r for r in json.loads(capsys.readouterr().out)}
    assert records["tile_form"]["declared_by"] == "pass_tile" and records["tile_form"]["implementations"] > 100
    assert records["split_form"]["declared_by"] == "pass_split"
    assert records["tile_from"]["declared_by"] == "(undeclared)" and records["tile_from"]["ops"] == ["demo.typo"]
