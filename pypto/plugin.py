"""`pypto.plugin`: everything a plugin needs, so that a plugin never imports `pypto_core` internals.

    from pypto.plugin import ArgSpec, OpDef, Pass, PassOptions, create_op_call, hookimpl

    PYPTO_PLUGIN_API = (2, 0)   # optional: the plugin API this plugin was written against

    @hookimpl
    def pypto_register_ops(registry: Registrar) -> None:
        registry.register_op(OpDef("myext.twice", lambda args, kwargs: args[0].type, args=(ArgSpec("x"),)))

The names here are the plugin API of version `PLUGIN_API_VERSION` (docs/plugins.md, "The public API"):
a minor version adds names, a major version changes or removes some. The host loads a plugin that
declares `PYPTO_PLUGIN_API = (major, minor)` only when `major` equals ours and `minor` is at most ours.

* hooks: `hookimpl`, the `Registrar` each hook receives, `PLUGIN_API_VERSION`;
* ops: `OpFamily` (an op family: each op's OpDef, semantics, interface implementations and DSL builder),
  `Semantics` (a family's numpy semantics in a module of their own, imported on first execution),
  `OpDef` and its specs (`ArgSpec`, `KwargSpec`, `OutputMemory`, `Effect`, `LaneCategory`,
  `CoreAffinity`, `CrossCoreRole`, `OpTraits`), `OpInterface` and `TileForm` (op interfaces and the
  tile-form contract), `EvalContext` (the `evaluate` context),
  `create_op_call`, `dsl_entry`, `set_call_attrs`, `find_opdef`;
* passes: `Pass`, `PassOptions`, `PassContext`, `IRProperty`, `IRPropertySet`;
* properties and verifiers: `Diagnostic`, `DiagnosticSeverity`, `error`, `warning` (a verifier returns
  a list of them);
* backends: `Backend`, `CoreGroup`, `CAPABILITIES`, `MemorySpace`;
* IR: the `ir` module (`pypto.ir`) and the builders and walkers a pass uses directly (`IRMutator`,
  `IRVisitor`, `Call`, `Var`, `ConstInt`, `ConstFloat`, `ConstBool`, `MakeTuple`, `DataType`, `Span`,
  `Program`, `Function`, types, `structural_equal`, `python_print`).
"""

from __future__ import annotations

from pypto import ir
from pypto_core.backend.backend import CAPABILITIES, Backend, CoreGroup
from pypto_core.interp.context import EvalContext
from pypto_core.ir import (
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    DataType,
    Expr,
    Function,
    IRMutator,
    IRVisitor,
    MakeTuple,
    MemorySpace,
    Program,
    ScalarType,
    Span,
    TensorType,
    TileType,
    TupleType,
    Type,
    Var,
    structural_equal,
)
from pypto_core.language.printer import python_print
from pypto_core.ops.build import dsl_entry
from pypto_core.ops.family import OpFamily
from pypto_core.ops.interfaces import OpInterface
from pypto_core.ops.opdef import (
    ArgSpec,
    CoreAffinity,
    CrossCoreRole,
    Effect,
    KwargSpec,
    LaneCategory,
    OpDef,
    OpTraits,
    OutputMemory,
)
from pypto_core.ops.registry import create_op_call, find_opdef, set_call_attrs
from pypto_core.ops.semantics_module import Semantics
from pypto_core.ops.tile_form import TileForm
from pypto_core.passes.context import PassContext
from pypto_core.passes.pass_base import Pass, PassOptions
from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.passes.verifier_registry import Diagnostic, DiagnosticSeverity, error, warning
from pypto_core.plugins.hookspecs import PLUGIN_API_VERSION, hookimpl
from pypto_core.plugins.registrar import Registrar

__all__ = [
    "ArgSpec", "Backend", "CAPABILITIES", "Call", "ConstBool", "ConstFloat", "ConstInt", "CoreAffinity",
    "CoreGroup", "CrossCoreRole", "DataType", "Diagnostic", "DiagnosticSeverity", "Effect", "EvalContext",
    "Expr", "Function", "IRMutator", "IRProperty", "IRPropertySet", "IRVisitor", "KwargSpec", "LaneCategory",
    "MakeTuple", "MemorySpace", "OpDef", "OpFamily", "OpInterface", "OpTraits", "OutputMemory", "PLUGIN_API_VERSION", "Pass",
    "PassContext", "PassOptions", "Program", "Registrar", "ScalarType", "Semantics", "Span", "TensorType", "TileForm",
    "TileType", "TupleType", "Type", "Var", "create_op_call", "dsl_entry", "error", "find_opdef",
    "hookimpl", "ir", "python_print", "set_call_attrs", "structural_equal", "warning",
]
