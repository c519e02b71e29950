"""`pypto.plugin`, the public plugin API, and the plugin-API version the host checks when a plugin loads."""

from __future__ import annotations

import types

import pytest

import pypto.language as pl
import pypto.plugin as api
from pypto import passes
from pypto_core.backend.registry import BACKENDS
from pypto_core.ops.registry import op_registry
from pypto_core.passes.registry import PASSES
from pypto_core.passes.verifier_registry import PROPERTY_INFO
from pypto_core.plugins.host import PluginLoadWarning, register_in_process_plugin

from .test_pipeline_toys import support

clean_plugins = support.clean_plugins  # shared fixture

# A plugin of each kind written only against pypto.plugin.
PUBLIC_ONLY_PLUGIN = '''
from pypto.plugin import (ArgSpec, Backend, CAPABILITIES, ConstFloat, CoreGroup, Effect, IRMutator, IRVisitor,
                          KwargSpec, MemorySpace, OpDef, OutputMemory, Pass, PassOptions, create_op_call, error,
                          hookimpl)

PYPTO_PLUGIN_API = (2, 0)


def twice(x, *, span=None):
    return create_op_call("apiext.twice", [x], span=span)


class Options(PassOptions):
    factor: float = 2.0


class Expand(Pass):
    name = "ApiExpand"
    factory_name = "apiext_expand"
    Options = Options
    produced = ("ApiextExpanded",)

    def run(self, program, ctx):
        factor = self.options.factor

        class Rewrite(IRMutator):
            def visit_call(self, call):
                call = super().visit_call(call)
                if call.op.name != "apiext.twice":
                    return call
                return create_op_call("tensor.muls", [call.args[0], ConstFloat(factor)], span=call.span)

        return Rewrite().visit_program(program)


def verify_expanded(program):
    found = []

    class Find(IRVisitor):
        def visit_call(self, call):
            if call.op.name == "apiext.twice":
                found.append(error("ApiextExpanded", "apiext.twice is left", call.span))
            super().visit_call(call)

    Find().visit_program(program)
    return found


@hookimpl
def pypto_register_ops(registry):
    registry.register_op(OpDef("apiext.twice", lambda args, kwargs: args[0].type, args=(ArgSpec("x"),),
                               effects={0: Effect.READ}, evaluate=lambda ctx, call, args, kwargs: args[0] * 2))
    registry.register_dsl("apiext.twice", twice)


@hookimpl
def pypto_register_properties(registry):
    registry.register_property("ApiextExpanded", verify_expanded, "no apiext.twice is left")


@hookimpl
def pypto_register_passes(registry):
    registry.register_pass(Expand)


@hookimpl
def pypto_register_backends(registry):
    registry.register_backend(Backend("ApiChip", {k: False for k in CAPABILITIES},
                                      {MemorySpace.Vec: 1 << 18}, CoreGroup(), description="api test chip"))
'''

PROGRAM = support.TOYEXT_PROGRAM.replace("toyext", "apiext")


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def test_every_public_name_exists_and_comes_from_the_api_module():
    assert api.PLUGIN_API_VERSION == (2, 0)
    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert missing == []
    for name in ("hookimpl", "OpDef", "ArgSpec", "KwargSpec", "OutputMemory", "Effect", "LaneCategory",
                 "CoreAffinity", "OpTraits", "TileForm", "OpFamily", "OpInterface", "CrossCoreRole", "EvalContext", "Pass", "PassOptions",
                 "Backend", "CoreGroup", "CAPABILITIES", "error", "warning", "Diagnostic", "create_op_call",
                 "IRMutator", "IRVisitor", "Registrar", "ir"):
        assert name in api.__all__, name


def test_a_plugin_using_only_the_public_api_registers_everything(clean_plugins):
    host = register_in_process_plugin("apiext", _module("apiext_mod", PUBLIC_ONLY_PLUGIN))
    assert not host.failures
    assert host.record("apiext").registered == {"ops": ["apiext.twice"], "dsl": ["apiext.twice"],
                                                "properties": ["ApiextExpanded"], "passes": ["apiext_expand"],
                                                "backends": ["ApiChip"]}
    assert op_registry().op_owners["apiext.twice"] == "apiext"
    assert PASSES.owner("apiext_expand") == PROPERTY_INFO.owner("ApiextExpanded") == BACKENDS.owner("ApiChip")
    after = passes.apiext_expand(factor=3.0)(pl.parse(PROGRAM))
    assert "pl.tensor.muls(x, 3.0)" in api.python_print(after)


@pytest.mark.parametrize("declared", [(2, 0), [2, 0]])
def test_a_matching_api_version_loads(clean_plugins, declared):
    source = PUBLIC_ONLY_PLUGIN.replace("PYPTO_PLUGIN_API = (2, 0)", f"PYPTO_PLUGIN_API = {declared!r}")
    host = register_in_process_plugin("apiext", _module("apiext_mod", source))
    assert host.record("apiext") is not None and not host.failures


@pytest.mark.parametrize(("declared", "expected"), [
    ("(1, 0)", "needs plugin API 1.0 (PYPTO_PLUGIN_API = (1, 0)), but this pypto provides plugin API 2.0; "
               "a plugin must declare the same major version"),
    ("(2, 7)", "needs plugin API 2.7 (PYPTO_PLUGIN_API = (2, 7)), but this pypto provides plugin API 2.0; "
               "a plugin must declare a minor version <= 0"),
    ("(0, 9)", "needs plugin API 0.9"),
    ("'1.0'", "declares PYPTO_PLUGIN_API = '1.0'; it must be a (major, minor) tuple of ints"),
    ("(1,)", "declares PYPTO_PLUGIN_API = (1,); it must be a (major, minor) tuple of ints"),
])
def test_a_mismatched_api_version_is_a_failed_plugin_naming_both_versions(clean_plugins, declared, expected):
    source = PUBLIC_ONLY_PLUGIN.replace("PYPTO_PLUGIN_API = (2, 0)", f"PYPTO_PLUGIN_API = {declared}")
    with pytest.warns(PluginLoadWarning, match="plugin 'apiext'"):
        host = register_in_process_plugin("apiext", _module("apiext_mod", source))
    (failure,) = host.failures
    assert (failure.name, failure.stage) == ("apiext", "validate")
    assert failure.message.startswith(expected)
    assert host.record("apiext") is None
    assert "apiext.twice" not in op_registry().ops and "apiext_expand" not in PASSES  # nothing registered


def test_no_declared_version_loads(clean_plugins):
    source = PUBLIC_ONLY_PLUGIN.replace("PYPTO_PLUGIN_API = (2, 0)\n", "")
    host = register_in_process_plugin("apiext", _module("apiext_mod", source))
    assert host.record("apiext") is not None
