"""Build the outlined InCore function and the caller statements that replace its scope (docs/passes/outline_incore_scopes.md).

* params = the scope's inputs (fresh variables named like the captures), with inferred directions;
* store-target export: a `tile.store` into a captured parameter binds its result to `<c>__store`,
  so the body never rebinds its own parameter, and the function returns the parameter (docs/passes/outline_incore_scopes.md,
  docs/passes/outline_incore_scopes.md, example); other write ops (`tensor.assemble`, `tensor.write`, ...) are left as written;
* explicit param returns (ReturnParamsExplicit): outputs that are a parameter's buffer return the
  parameter; when every return is a distinct Out/InOut parameter, returns follow parameter order,
  otherwise SSA order;
* the caller binds each output; a parameter's buffer gets a new version of the capture's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pypto_core.analysis.lineage import Lineage
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.calls import call_return_type
from pypto_core.ir.enums import CachePolicy, FunctionType, ParamDirection, SplitMode
from pypto_core.ir.names import VersionCounter, base_name, generated
from pypto_core.ir.utils import Substituter, flatten_to_stmts, make_body
from pypto_plugins.pass_outline.scope_analysis import ScopeInfo
from pypto_plugins.pass_outline.stores import stored_param


@dataclass
class Outlined:
    function: F.Function
    caller_stmts: list[S.Stmt]
    renames: list[tuple[E.Var, E.Var]]  # original variable -> the caller's new binding


@dataclass
class _Output:
    value: E.Var  # what the callee returns (a parameter or a kernel-local value)
    param_index: int | None
    originals: list[E.Var]  # caller-side variables this output replaces
    capture: E.Var | None  # the captured variable whose buffer this is


def _export_stores(stmts: Sequence[S.Stmt], params: Mapping[int, E.Var]) -> list[S.Stmt]:
    """Bind each `tile.store` into a parameter to `<param>__store` (docs/passes/outline_incore_scopes.md, parameters)."""
    out: list[S.Stmt] = []
    for s in stmts:
        if isinstance(s, (S.EvalStmt, S.AssignStmt)):
            call = s.expr if isinstance(s, S.EvalStmt) else s.value
            target = stored_param(call, params)
            if target is not None:
                alias = E.Var(generated(base_name(target.name_hint), "store"), call.type, s.span)  # type: ignore[union-attr]
                if isinstance(s, S.EvalStmt) or s.var is target:
                    out.append(S.AssignStmt(alias, call, s.span, s.leading_comments))  # type: ignore[arg-type]
                else:
                    out.append(s)
                    out.append(S.AssignStmt(alias, s.var, s.span))
                continue
            out.append(s)
        elif isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
            out.append(s.with_fields(body=make_body(_export_stores(flatten_to_stmts(s.body), params), s.span)))
        elif isinstance(s, S.IfStmt):
            then_body = make_body(_export_stores(flatten_to_stmts(s.then_body), params), s.span)
            else_body = (make_body(_export_stores(flatten_to_stmts(s.else_body), params), s.span)
                         if s.else_body is not None else None)
            out.append(s.with_fields(then_body=then_body, else_body=else_body))
        else:
            out.append(s)
    return out


def _regions(stmts: Sequence[S.Stmt]) -> list[S.SplitAivScopeStmt]:
    found: list[S.SplitAivScopeStmt] = []
    for s in stmts:
        for x in flatten_to_stmts(s):
            if isinstance(x, S.SplitAivScopeStmt):
                found.append(x)
                found.extend(_regions([x.body]))
            elif isinstance(x, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
                found.extend(_regions([x.body]))
            elif isinstance(x, S.IfStmt):
                found.extend(_regions([x.then_body] + ([x.else_body] if x.else_body else [])))
    return found


def split_attrs(info: ScopeInfo) -> dict[str, object]:
    """`slot_num`, then the AIV split attrs (docs/passes/outline_incore_scopes.md, attributes)."""
    scope = info.scope
    attrs: dict[str, object] = {}
    if "slot_num" in scope.attrs:
        attrs["slot_num"] = scope.attrs["slot_num"]
    regions = _regions(info.body)
    if regions and scope.split is not SplitMode.NONE:
        raise UserError("OutlineIncoreScopes: a function-level AUTO split (optimizations=[pl.split(...)]) and "
                        "pl.split_aiv regions are mutually exclusive in one scope; drop pl.split(...) and use "
                        "optimizations=[pl.cross_core_slot(slot_num=N)] if you only meant to size the pipe",
                        regions[0].span if regions[0].span.is_valid() else scope.span)
    if regions:
        attrs["split_aiv"] = True
        modes = {r.split for r in regions}
        if len(modes) == 1 and SplitMode.NONE not in modes:
            attrs["split"] = int(modes.pop())
    elif scope.split is not SplitMode.NONE:
        attrs["split"] = int(scope.split)
    return attrs


def cache_policy_attr(info: ScopeInfo, pass_name: str = "OutlineIncoreScopes") -> list[tuple[int, int]]:
    """The scope's `cache_policy_vars` as (param index, policy) pairs sorted by index (docs/passes/outline_incore_scopes.md);
    OutlineHierarchyScopes shares the rule and names itself in the errors."""
    pairs: dict[int, int] = {}
    for var, policy in info.scope.attrs.get("cache_policy_vars", ()):
        index = next((i for i, v in enumerate(info.inputs) if v is var), None)
        if index is None:
            raise UserError(f"{pass_name}: pl.set_cache_policy names '{var.name_hint}', which this scope "
                            f"neither reads nor writes, so no kernel parameter can carry the policy; move the "
                            f"declaration into the scope that uses '{var.name_hint}' or remove it",
                            info.scope.span)
        if int(policy) == int(CachePolicy.BYPASS) and info.directions[index] is not ParamDirection.In:
            raise UserError(f"{pass_name}: pl.set_cache_policy(..., pl.CachePolicy.BYPASS) on "
                            f"'{var.name_hint}', which the kernel writes ({info.directions[index].name}); a bypass "
                            f"read of bytes the same kernel writes is incoherent: remove the BYPASS declaration",
                            info.scope.span)
        pairs[index] = int(policy)
    return sorted(pairs.items())


def _outputs(info: ScopeInfo, params: list[E.Var], body: list[S.Stmt], live_outs: list[E.Var],
             callee_returns: Mapping[str, list[int | None]]) -> list[_Output]:
    """`live_outs` are the callee-side variables; `info.live_outs` the caller-side ones they replace."""
    lineage = Lineage(callee_returns).scan(S.SeqStmts(body))
    index_of = {id(p): i for i, p in enumerate(params)}
    writable = {i for i, d in enumerate(info.directions) if d is not ParamDirection.In}
    outputs: list[_Output] = []
    by_param: dict[int, _Output] = {}
    for v, caller_side in zip(live_outs, info.live_outs):
        root = lineage.root(v)
        idx = index_of.get(id(root)) if root is not None else None
        if idx is not None and idx in writable and isinstance(v.type, T.TensorType):
            outputs.append(_Output(params[idx], idx, [caller_side], info.inputs[idx]))
            by_param.setdefault(idx, outputs[-1])
        elif idx is not None and isinstance(v.type, T.TensorType):
            # The buffer of an In parameter, kept through copies and carries: the kernel returns the
            # parameter; the caller binds the live-out's own name (nothing was written).
            outputs.append(_Output(params[idx], idx, [caller_side], None))
        else:
            outputs.append(_Output(v, None, [caller_side], None))
    for idx in sorted(writable):
        if idx not in by_param:
            out = _Output(params[idx], idx, [], info.inputs[idx])
            outputs.append(out)
            by_param[idx] = out
    indices = [o.param_index for o in outputs]
    if indices and all(i in writable for i in indices) and len(set(indices)) == len(indices):
        outputs.sort(key=lambda o: o.param_index)  # type: ignore[arg-type, return-value]
    return outputs


def dispatch_attrs(info: ScopeInfo) -> dict[str, object]:
    """The call's attrs: the scope's `dump_vars` (`dumps=[...]`, pl.dump_tag) that the caller holds, i.e. the
    kernel's inputs, since a value the scope defines does not exist where the call stands (docs/passes/outline_incore_scopes.md)."""
    inputs = {id(v) for v in info.inputs}
    dumps = [v for v in info.scope.attrs.get("dump_vars", ()) if id(v) in inputs]
    return {"dump_vars": dumps} if dumps else {}


def build_outlined(info: ScopeInfo, name: str, args: Sequence[E.Expr], versions: VersionCounter,
                   callee_returns: Mapping[str, list[int | None]],
                   fresh: Callable[[str], str] | None = None) -> Outlined:
    """`fresh` names the caller's temporaries: every multi-result call of one function binds its own tuple,
    so two of them (one in a nested scope) never share a name (SSAForm rejects the shadowing)."""
    subst = Substituter({})
    params: list[E.Var] = []
    for v in info.inputs:  # dims before the inputs whose types use them (scope_analysis)
        p = E.Var(v.name_hint, subst.visit_type(v.type) if v.type.has_vars else v.type, v.span)
        subst.mapping[id(v)] = p
        params.append(p)
    body = list(subst.visit(tuple(info.body)))
    body = _export_stores(body, {id(p): p for p, d in zip(params, info.directions) if d is not ParamDirection.In})
    # A live-out whose type mentions an input was rebuilt with the callee's type: follow the rename.
    live_outs = [subst.mapping.get(id(v), v) for v in info.live_outs]
    outputs = _outputs(info, params, body, live_outs, callee_returns)
    returns = [o.value for o in outputs]
    return_types = [r.type for r in returns]
    if returns:  # a kernel without outputs ends without a bare `return` (PyPTO emits none)
        body.append(S.ReturnStmt(returns, info.scope.span))
    attrs = split_attrs(info)
    policy = cache_policy_attr(info)
    if policy:
        attrs["cache_policy"] = policy
    if info.scope.attrs.get("windowize"):  # OptimizeOrchTensors' Pattern 5 (docs/passes/optimize_orch_tensors.md)
        attrs["windowize"] = True
    function = F.Function(name, list(zip(params, info.directions)), return_types, make_body(body, info.scope.span),
                          info.scope.span, FunctionType.InCore, attrs=attrs)
    call = E.Call(E.GlobalVar(name), list(args), {}, dispatch_attrs(info), call_return_type(params, return_types, args),
                  info.scope.span)
    caller_vars: list[E.Var] = []
    renames: list[tuple[E.Var, E.Var]] = []
    for o in outputs:
        if o.capture is not None:
            base = base_name(o.capture.name_hint)
            new = E.Var(generated(base, "ssa", versions.take(base)), o.capture.type, info.scope.span)
            renames.append((o.capture, new))
        else:
            orig = o.originals[0]
            new = E.Var(orig.name_hint, orig.type, orig.span)
        renames.extend((orig, new) for orig in o.originals)
        caller_vars.append(new)
    return Outlined(function, _bind(call, caller_vars, info.scope.span, fresh), renames)


def _bind(call: E.Call, targets: list[E.Var], span: object,
          fresh: Callable[[str], str] | None = None) -> list[S.Stmt]:
    if not targets:
        return [S.EvalStmt(call, span)]  # type: ignore[arg-type]
    if len(targets) == 1:
        return [S.AssignStmt(targets[0], call, span)]  # type: ignore[arg-type]
    tmp = E.Var(fresh("_tuple_tmp") if fresh is not None else "_tuple_tmp", call.type, span)  # type: ignore[arg-type]
    stmts: list[S.Stmt] = [S.AssignStmt(tmp, call, span)]  # type: ignore[arg-type]
    stmts += [S.AssignStmt(t, E.TupleGetItemExpr(tmp, i, span), span) for i, t in enumerate(targets)]  # type: ignore[arg-type]
    return stmts
