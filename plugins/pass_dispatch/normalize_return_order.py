"""NormalizeReturnOrder: a kernel returns its Out / InOut parameters themselves, in parameter order, and its
callers' tuple indices follow (docs/passes/normalize_return_order.md).

Three steps: (1) a returned tensor whose lineage (copies, in-place writes such as tile.store, loop carries,
tuple items of calls) leads to a tensor parameter is returned as that parameter (kernels, Group and Spmd
functions); (2) a kernel's returns are permuted into the order of its Out / InOut parameters; (3) every
other function's `r[j]` of a permuted call becomes `r[perm[j]]`. The lineage is the project's one engine
(pypto_core/analysis/lineage.py), which asks the op registry which argument an op writes.
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.lineage import Lineage
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import KERNEL_TYPES, FunctionType, ParamDirection
from pypto_core.ir.types import TensorType, TupleType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRMutator
from pypto_core.passes.pass_base import Pass

# Functions whose returned tensors are traced back to their parameters (step 1).
_TRACED_TYPES = (*KERNEL_TYPES, FunctionType.Group, FunctionType.Spmd)


def _first_return(stmt: S.Stmt | None) -> S.ReturnStmt | None:
    for s in flatten_to_stmts(stmt):
        if isinstance(s, S.ReturnStmt):
            return s
        for body in (getattr(s, "body", None), getattr(s, "then_body", None), getattr(s, "else_body", None)):
            found = _first_return(body) if isinstance(body, S.Stmt) else None
            if found is not None:
                return found
    return None


class _ReplaceStmt(IRMutator):
    def __init__(self, old: S.Stmt, new: S.Stmt) -> None:
        self.old, self.new = old, new

    def visit_return_stmt(self, stmt: S.ReturnStmt) -> S.Stmt:
        return self.new if stmt is self.old else stmt


def _param_returns(func: F.Function, lineage: Lineage) -> list[int | None]:
    """For each return value of `func`, the index of the parameter it returns (None: not a parameter)."""
    ret = _first_return(func.body)
    if ret is None:
        return []
    index = {id(p): i for i, p in enumerate(func.params)}
    return [index.get(id(lineage.root(v))) if isinstance(v, E.Var) else None for v in ret.value]


def _returns_to_params(func: F.Function, callee_returns: dict[str, list[int | None]]) -> F.Function:
    """Step 1: each returned tensor with a parameter's lineage is returned as that parameter."""
    ret = _first_return(func.body)
    if ret is None:
        return func
    lineage = Lineage(callee_returns).scan(func.body)
    params = {id(p): p for p in func.params if isinstance(p.type, TensorType)}
    values: list[E.Expr] = []
    for v in ret.value:
        items = lineage.tuple_items.get(id(v)) if isinstance(v, E.Var) else None
        if (len(ret.value) == 1 and items and len(items) == len(func.return_types) > 1
                and all(id(items.get(i)) in params for i in range(len(items)))):
            values.extend(params[id(items[i])] for i in range(len(items)))  # one tuple standing for several params
            continue
        root = lineage.root(v) if isinstance(v, E.Var) else None
        values.append(params[id(root)] if root is not None and id(root) in params else v)
    if all(a is b for a, b in zip(values, ret.value)) and len(values) == len(ret.value):
        return func
    new_ret = ret.with_fields(value=tuple(values))
    return func.with_fields(body=_ReplaceStmt(ret, new_ret).visit_stmt(func.body))


def _permutation(func: F.Function) -> list[int] | None:
    """Step 2: where each return goes (old index -> new index), or None when the order stays."""
    top = flatten_to_stmts(func.body)
    if not top or not isinstance(top[-1], S.ReturnStmt):
        return None
    ret = top[-1]
    outs = [i for i, d in enumerate(func.param_directions) if d in (ParamDirection.Out, ParamDirection.InOut)]
    if not outs or len(outs) > len(ret.value):
        return None
    lineage = Lineage().scan(func.body)
    index = {id(p): i for i, p in enumerate(func.params)}
    rank = {param: r for r, param in enumerate(outs)}
    perm: list[int] = []
    for i, v in enumerate(ret.value):
        param = index.get(id(lineage.root(v))) if isinstance(v, E.Var) else None
        perm.append(rank.get(param, i) if param is not None else i)
    if sorted(perm) != list(range(len(perm))) or perm == list(range(len(perm))):
        return None
    return perm


def _permuted(func: F.Function, perm: list[int]) -> F.Function:
    ret = flatten_to_stmts(func.body)[-1]
    assert isinstance(ret, S.ReturnStmt)
    values: list[Any] = [None] * len(perm)
    types: list[Any] = list(func.return_types)
    new_types: list[Any] = [None] * len(perm)
    for old, new in enumerate(perm):
        values[new] = ret.value[old]
        new_types[new] = types[old]
    body = _ReplaceStmt(ret, ret.with_fields(value=tuple(values))).visit_stmt(func.body)
    return func.with_fields(body=body, return_types=tuple(new_types))


class _Callers(IRMutator):
    """Step 3: calls of permuted kernels get the kernel's new result type; `r[j]` becomes `r[perm[j]]`."""

    def __init__(self, functions: dict[str, F.Function], perms: dict[str, list[int]]) -> None:
        self.functions, self.perms = functions, perms
        self.subst: dict[int, E.Var] = {}
        self.var_perm: dict[int, list[int]] = {}

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.subst.get(id(var), var)

    def visit_call(self, call: E.Call) -> E.Expr:
        """Every call of a permuted kernel (bound or not: a Group calls its kernels as statements) has the
        kernel's new result type."""
        visited = self.visit_node(call)
        if isinstance(call.op, E.GlobalVar) and call.op.name in self.perms:
            callee = self.functions[call.op.name]
            return visited.with_fields(type=TupleType(list(callee.return_types)))
        return visited

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.visit_expr(stmt.value)
        var = stmt.var
        perm = self.perms.get(value.op.name) if isinstance(value, E.Call) and isinstance(
            value.op, E.GlobalVar) else None
        if perm is not None:
            new_var = var.with_fields(type=value.type)
            self.subst[id(var)] = new_var
            self.var_perm[id(new_var)] = perm
            var = new_var
        if value is stmt.value and var is stmt.var:
            return stmt
        return stmt.with_fields(var=var, value=value)

    def visit_tuple_get_item_expr(self, expr: E.TupleGetItemExpr) -> E.Expr:
        tup = self.visit_expr(expr.tuple)
        perm = self.var_perm.get(id(tup))
        if perm is not None:
            return E.TupleGetItemExpr(tup, perm[expr.index], expr.span)
        return expr if tup is expr.tuple else E.TupleGetItemExpr(tup, expr.index, expr.span)


class NormalizeReturnOrder(Pass):
    """Kernels return their Out / InOut parameters in parameter order; callers' tuple indices follow."""

    name = "NormalizeReturnOrder"
    factory_name = "normalize_return_order"
    description = ("Return each kernel's Out / InOut parameters themselves, in parameter order, and renumber the "
                   "callers' tuple items.")
    required = ("SplitIncoreOrch", "IncoreTileOps")
    produced = ("ReturnParamsExplicit",)

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        functions = dict((f.name, f) for f in program.functions.values())
        callee_returns: dict[str, list[int | None]] = {}
        # Kernels first, so that Group / Spmd wrappers trace their calls' results to the kernels' parameters.
        order = sorted(functions, key=lambda n: functions[n].func_type not in KERNEL_TYPES)
        perms: dict[str, list[int]] = {}
        for name in order:
            func = functions[name]
            if func.func_type in _TRACED_TYPES:
                func = _returns_to_params(func, callee_returns)
            if func.func_type in KERNEL_TYPES:
                perm = _permutation(func)
                if perm is not None:
                    func = _permuted(func, perm)
                    perms[name] = perm
            callee_returns[name] = _param_returns(func, Lineage(callee_returns).scan(func.body))
            functions[name] = func
        if perms:
            for name, func in functions.items():
                if func.func_type not in KERNEL_TYPES:
                    functions[name] = _Callers(functions, perms).visit_function(func)
        if all(functions[f.name] is f for f in program.functions.values()):
            return program
        return F.Program([functions[f.name] for f in program.functions.values()], program.name, program.span)
