"""Patterns 2 and 4 of OptimizeOrchTensors (docs/passes/optimize_orch_tensors.md): an InCore tensor parameter
whose argument is a window of a bigger tensor -- a result the caller assembles into a parent (Out, Pattern 2),
a slice of a parent it passes in (In, Pattern 4) -- is typed with the parent's row-major strides, so the
kernel addresses the window inside the parent."""

from __future__ import annotations

from collections.abc import Callable

from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, ParamDirection, TensorLayout
from pypto_core.ir.types import TensorType, TensorView
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.build import static_dims
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_dispatch.orch_tensors.facts import row_major_strides, sliced_tensor, window_write
from pypto_plugins.pass_dispatch.orch_tensors.out_returns import out_returns
from pypto_plugins.pass_dispatch.orch_tensors.signature import retyped_params

Strides = tuple[int, ...]
MIXED: Strides = ()  # call sites disagree (or one is no window): the parameter stays as it is


def _trailing_strides(parent: E.Expr, rank: int) -> Strides | None:
    dims = static_dims(parent.type.shape) if isinstance(parent.type, TensorType) else None
    if dims is None or rank > len(dims):
        return None
    return tuple(row_major_strides(dims)[len(dims) - rank:])


def _own_strides(arg: E.Expr) -> Strides | None:
    """The strides a whole tensor argument has: its view's, else row-major of its static shape."""
    t = arg.type
    if not isinstance(t, TensorType):
        return None
    if t.tensor_view is not None and t.tensor_view.stride:
        dims = static_dims(t.tensor_view.stride)
        return tuple(dims) if dims is not None else None
    dims = static_dims(t.shape)
    return tuple(row_major_strides(dims)) if dims is not None else None


def _has_strides(param: E.Var) -> bool:
    t = param.type
    return isinstance(t, TensorType) and t.tensor_view is not None and bool(t.tensor_view.stride)


def _strided(t: TensorType, strides: Strides) -> TensorType:
    return TensorType(t.shape, t.dtype, tensor_view=TensorView(stride=list(strides), layout=TensorLayout.ND))


def _agree(seen: dict[tuple[str, int], Strides], key: tuple[str, int], strides: Strides | None) -> None:
    previous = seen.get(key)
    seen[key] = MIXED if strides is None or (previous is not None and previous != strides) else strides


def _callee(functions: dict[str, F.Function], value: E.Expr) -> F.Function | None:
    if isinstance(value, E.Call) and isinstance(value.op, E.GlobalVar):
        f = functions.get(value.op.name)
        return f if f is not None and f.func_type is FunctionType.InCore else None
    return None


def _assembled_results(functions: dict[str, F.Function]) -> dict[tuple[str, int], Strides]:
    """Pattern 2: (callee, Out parameter) -> the strides of the parent its result is assembled into."""
    seen: dict[tuple[str, int], Strides] = {}
    for caller in functions.values():
        if caller.func_type is FunctionType.InCore:
            continue
        assigns = [s for s in statements(caller.body) if isinstance(s, S.AssignStmt)]
        results: dict[int, tuple[F.Function, int]] = {}  # id(var) -> (callee, return index)
        for s in assigns:
            callee = _callee(functions, s.value)
            if callee is not None and len(callee.return_types) == 1:
                results[id(s.var)] = (callee, 0)
            elif isinstance(s.value, E.TupleGetItemExpr):
                tupled = next((a for a in assigns if a.var is s.value.tuple), None)
                callee = _callee(functions, tupled.value) if tupled is not None else None
                if callee is not None:
                    results[id(s.var)] = (callee, s.value.index)
        for s in assigns:
            write = window_write(s.value)
            if write is None or not isinstance(write.target.type, TensorType) or id(write.source) not in results:
                continue
            callee, r = results[id(write.source)]
            param = {ret: po for po, ret in out_returns(callee).items()}.get(r)
            if param is None or _has_strides(callee.params[param]):
                continue
            _agree(seen, (callee.name, param), _trailing_strides(write.target, len(callee.params[param].type.shape)))
    return seen


def _sliced_inputs(functions: dict[str, F.Function]) -> dict[tuple[str, int], Strides]:
    """Pattern 4: (callee, In parameter) -> the strides of the parent every call site slices its argument
    from; a site passing a whole tensor counts with that tensor's own strides."""
    seen: dict[tuple[str, int], Strides] = {}
    sliced: set[tuple[str, int]] = set()
    for caller in functions.values():
        if caller.func_type is FunctionType.InCore:
            continue
        parents = {id(s.var): sliced_tensor(s.value) for s in statements(caller.body)
                   if isinstance(s, S.AssignStmt) and sliced_tensor(s.value) is not None}
        for s in statements(caller.body):
            value = s.value if isinstance(s, S.AssignStmt) else s.expr if isinstance(s, S.EvalStmt) else None
            callee = _callee(functions, value) if value is not None else None
            if callee is None:
                continue
            for m, (param, direction) in enumerate(callee.param_items()):
                if direction is not ParamDirection.In or not isinstance(param.type, TensorType):
                    continue
                arg = value.args[m]  # type: ignore[union-attr]
                parent = parents.get(id(arg))
                if parent is not None:
                    sliced.add((callee.name, m))
                    _agree(seen, (callee.name, m), _trailing_strides(parent, len(param.type.shape)))
                else:
                    _agree(seen, (callee.name, m), _own_strides(arg))
    return {key: strides for key, strides in seen.items()
            if key in sliced and strides and not _has_strides(functions[key[0]].params[key[1]])}


class _RetypeStores(IRMutator):
    """Each window write into one of `targets` is built again, so that its result has the target's new type."""

    def __init__(self, targets: set[int]) -> None:
        self.targets = targets
        self.subst: dict[int, E.Var] = {}

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.subst.get(id(var), var)

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.visit_expr(stmt.value)
        write = window_write(value)
        if write is None or id(write.target) not in self.targets:
            return stmt if value is stmt.value else stmt.with_fields(value=value)
        assert isinstance(value, E.Call)
        rebuilt = create_op_call(value.op.name, list(value.args), dict(value.kwargs), span=value.span)
        var = E.Var(stmt.var.name_hint, rebuilt.type, stmt.var.span)
        self.subst[id(stmt.var)] = var
        return stmt.with_fields(var=var, value=rebuilt)


def _apply(functions: dict[str, F.Function], strides: dict[tuple[str, int], Strides],
           retype_stores: bool) -> bool:
    by_callee: dict[str, dict[int, Strides]] = {}
    for (name, index), s in strides.items():
        if s:
            by_callee.setdefault(name, {})[index] = s
    for name, params in by_callee.items():
        func = functions[name]
        types = {i: _strided(func.params[i].type, s) for i, s in params.items()}  # type: ignore[arg-type]
        func = retyped_params(func, types)
        if retype_stores:
            targets = {id(func.params[i]) for i in params}
            func = func.with_fields(body=_RetypeStores(targets).visit_stmt(func.body))
        functions[name] = func
    return bool(by_callee)


def _pattern(find: Callable[[dict[str, F.Function]], dict[tuple[str, int], Strides]], retype_stores: bool,
             program: F.Program) -> F.Program:
    functions = {f.name: f for f in program.functions.values()}
    if not _apply(functions, find(functions), retype_stores):
        return program
    return F.Program(list(functions.values()), program.name, program.span)


def assembled_result_strides(program: F.Program) -> F.Program:
    """Pattern 2."""
    return _pattern(_assembled_results, True, program)


def sliced_input_strides(program: F.Program) -> F.Program:
    """Pattern 4."""
    return _pattern(_sliced_inputs, False, program)
