"""OutlineIncoreScopes (docs/passes/outline_incore_scopes.md): every `with pl.at(level=pl.Level.CORE_GROUP)` scope of an Opaque,
Orchestration or Graph function becomes a `Function(InCore)` plus a call; an Opaque parent with at
least one outlined scope becomes Orchestration (after folding its parameter dim reads), the others
keep their type (PyPTO outlines a Graph function's scopes and leaves it Graph). InCore functions are
left unchanged.
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.lineage import Lineage
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import SCOPE_HOST_TYPES, FunctionType, ParamDirection
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_outline.dim_fold import fold_param_dims
from pypto_plugins.pass_outline.launches import reject_kernels_launching_kernels
from pypto_plugins.pass_outline.naming import OutlinedNames
from pypto_plugins.pass_outline.rewriter import FunctionOutliner


class _HasInCoreScope(IRVisitor):
    found = False

    def visit_in_core_scope_stmt(self, s: S.InCoreScopeStmt) -> None:
        self.found = True


def has_incore_scope(func: F.Function) -> bool:
    v = _HasInCoreScope()
    v.visit_stmt(func.body)
    return v.found


def returned_params(func: F.Function, callee_returns: dict[str, list[int | None]]) -> tuple[list[int | None], Lineage]:
    """For each return value of `func`: the parameter whose buffer it is (through return lineage); and
    that lineage."""
    lineage = Lineage(callee_returns).scan(func.body)
    stmts = flatten_to_stmts(func.body)
    ret = next((s for s in reversed(stmts) if isinstance(s, S.ReturnStmt)), None)
    if ret is None:
        return [], lineage
    index = {id(p): i for i, p in enumerate(func.params)}
    return [index.get(id(lineage.root(v))) if isinstance(v, E.Var) else None for v in ret.value], lineage


def all_returned_params(funcs: list[F.Function]) -> tuple[dict[str, list[int | None]], dict[str, Lineage]]:
    """returned_params of every function; two rounds let a function see through the calls it makes (a
    function calling none is scanned once). Also the lineage of each function that calls none: it does
    not depend on the other functions' returns, so the outliner reuses it."""
    returns: dict[str, list[int | None]] = {}
    lineages: dict[str, Lineage] = {}
    for round_ in range(2):
        found: dict[str, list[int | None]] = {}
        for f in funcs:
            if round_ and not lineages[f.name].calls_functions:
                found[f.name] = returns[f.name]
            else:
                found[f.name], lineages[f.name] = returned_params(f, returns)
        returns = found
    return returns, {name: lin for name, lin in lineages.items() if not lin.calls_functions}


class OutlineIncoreScopes(Pass):
    """Extract InCore scopes into InCore functions (docs/passes/outline_incore_scopes.md)."""

    name = "OutlineIncoreScopes"
    factory_name = "outline_incore_scopes"
    required = ("SSAForm",)
    produced = ("SSAForm", "SplitIncoreOrch", "AivSplitValid")
    description = "Outline `with pl.at(level=pl.Level.CORE_GROUP)` scopes into InCore functions (docs/passes/outline_incore_scopes.md)."

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = list(program.functions.values())
        names = OutlinedNames(f.name for f in funcs)
        directions: dict[str, list[ParamDirection]] = {f.name: list(f.param_directions) for f in funcs}
        returns, lineages = all_returned_params(funcs)
        out: list[F.Function] = []
        changed = False
        for func in funcs:
            if func.func_type not in SCOPE_HOST_TYPES or not has_incore_scope(func):
                out.append(func)
                continue
            original = func
            if func.func_type is FunctionType.Opaque:
                func = fold_param_dims(func)
            lineage = lineages.get(func.name) if func is original else None
            outliner = FunctionOutliner(func, names, directions, returns, lineage)
            new = outliner.run()
            if outliner.callees and new.func_type is FunctionType.Opaque:
                new = F.Function(new.name, list(zip(new.params, new.param_directions)), new.return_types, new.body,
                                 new.span, FunctionType.Orchestration, None, None, new.attrs,
                                 new.requires_runtime_binding)
            out.append(new)
            out.extend(outliner.callees)
            changed = True
        if changed:
            reject_kernels_launching_kernels(out)
        return F.Program(out, program.name, program.span) if changed else program
