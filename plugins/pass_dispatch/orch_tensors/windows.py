"""Pattern 5 of OptimizeOrchTensors (docs/passes/optimize_orch_tensors.md): a kernel marked `windowize=True`
that reads one window of an input, or writes one window of an output as its final store, gets a clone
`<f>__windowed` taking just those windows (typed with the parent's strides, addressed from offset 0); each
call slices the windows out of its arguments and assembles an output window back into its argument.

pypto windows a parameter only where the window is plain to see: an In tensor used by exactly one load, an Out
tensor used by exactly one top-level store whose result is the kernel's only return; static window shapes,
offsets computed from the kernel's scalar parameters. Anything else keeps the whole tensor."""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.analysis.walk import vars_read, walk
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.calls import call_return_type
from pypto_core.ir.enums import KERNEL_TYPES, ParamDirection, TensorLayout
from pypto_core.ir.types import ScalarType, TensorType, TensorView, TileType
from pypto_core.ir.utils import deep_clone, flatten_to_stmts, make_body, substitute_expr
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.build import static_dims, to_tuple, tuple_elements
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_plugins.pass_dispatch.orch_tensors.facts import row_major_strides, window_write
from pypto_plugins.pass_dispatch.orch_tensors.out_returns import top_return

SUFFIX = "__windowed"


@dataclass
class Window:
    param: int
    call: E.Call  # the one load or store of the parameter
    offsets_arg: int  # the call's offsets operand
    shape: list[int]
    strides: list[int]


def _uses(func: F.Function, var: E.Var, returned: bool = False) -> list[E.Call]:
    """The calls reading `var` when it is read nowhere else (but, `returned`, in the final return); else []."""
    calls = [n for n in walk(func.body) if isinstance(n, E.Call) and any(a is var for a in n.args)]
    direct = sum(1 for v in vars_read(func.body) if v is var)
    return calls if direct == sum(sum(1 for a in c.args if a is var) for c in calls) + returned else []


def _computable(offsets: E.Expr, func: F.Function) -> bool:
    scalars = {id(p) for p in func.params if isinstance(p.type, ScalarType)}
    return all(id(v) in scalars for v in vars_read(offsets))


def _input_window(func: F.Function, m: int) -> Window | None:
    param = func.params[m]
    uses = _uses(func, param)
    if len(uses) != 1:
        return None
    call = uses[0]
    opdef = opdef_of(call)
    if (opdef is None or not opdef.traits.gm_transfer or not opdef.traits.read_address_args
            or call.args[0] is not param or not isinstance(call.type, TileType)):
        return None
    at = opdef.traits.read_address_args[0]
    shape = static_dims(call.type.shape)
    if shape is None or static_dims(call.type.valid_shape) != shape or not _computable(call.args[at], func):
        return None
    return Window(m, call, at, shape, row_major_strides(static_dims(param.type.shape)))  # type: ignore[arg-type]


def _output_window(func: F.Function, m: int) -> Window | None:
    param = func.params[m]
    ret = top_return(func)
    if ret is None or len(ret.value) != 1:
        return None
    uses = _uses(func, param, returned=ret.value[0] is param)  # the store's result, or the parameter, returned
    if len(uses) != 1:
        return None
    final = next((s for s in flatten_to_stmts(func.body) if isinstance(s, S.AssignStmt) and s.value is uses[0]), None)
    write = window_write(uses[0])
    if final is None or write is None or write.target is not param or not (ret.value[0] is final.var or ret.value[0] is param):
        return None
    tile = write.source.type
    shape = static_dims(tile.shape) if isinstance(tile, TileType) else None
    if shape is None or static_dims(tile.valid_shape) != shape or not _computable(write.offsets, func):
        return None
    offsets_arg = next(i for i, a in enumerate(uses[0].args) if a is write.offsets)
    return Window(m, uses[0], offsets_arg, shape, row_major_strides(static_dims(param.type.shape)))  # type: ignore[arg-type]


def windows_of(func: F.Function) -> list[Window]:
    found: list[Window] = []
    for m, (param, direction) in enumerate(func.param_items()):
        t = param.type
        if (not isinstance(t, TensorType) or static_dims(t.shape) is None
                or (t.tensor_view is not None and t.tensor_view.stride)):
            continue
        window = _input_window(func, m) if direction is ParamDirection.In else \
            _output_window(func, m) if direction is ParamDirection.Out else None
        if window is not None:
            found.append(window)
    return found


class _AtOrigin(IRMutator):
    """The windowed parameters' load / store addressed from offset 0; the store's result retyped."""

    def __init__(self, windows: dict[int, Window], params: dict[int, E.Var]) -> None:
        self.windows, self.params = {id(w.call): w for w in windows.values()}, params
        self.subst: dict[int, E.Var] = {}

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.params.get(id(var)) or self.subst.get(id(var), var)

    def visit_call(self, call: E.Call) -> E.Expr:
        window = self.windows.get(id(call))
        if window is None:
            return self.visit_node(call)
        args = [self.visit_expr(a) for a in call.args]
        args[window.offsets_arg] = to_tuple([0] * len(tuple_elements(call.args[window.offsets_arg])), call.span)
        return create_op_call(call.op.name, args, dict(call.kwargs), span=call.span)

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.visit_expr(stmt.value)
        if id(stmt.value) in self.windows and isinstance(value.type, TensorType):
            var = E.Var(stmt.var.name_hint, value.type, stmt.var.span)
            self.subst[id(stmt.var)] = var
            return stmt.with_fields(var=var, value=value)
        return stmt if value is stmt.value else stmt.with_fields(value=value)


def windowed_clone(func: F.Function, windows: list[Window]) -> F.Function:
    params = list(func.params)
    new_params: dict[int, E.Var] = {}
    for w in windows:
        old = params[w.param]
        t = old.type
        assert isinstance(t, TensorType)
        view = TensorView(stride=w.strides[len(w.strides) - len(w.shape):], layout=TensorLayout.ND)
        params[w.param] = new_params[id(old)] = E.Var(old.name_hint, TensorType(w.shape, t.dtype, tensor_view=view),
                                                      old.span)
    mutator = _AtOrigin({w.param: w for w in windows}, new_params)
    body = mutator.visit_stmt(func.body)
    ret = top_return(func.with_fields(body=body))
    return_types = tuple(func.return_types)
    if ret is not None and any(func.param_directions[w.param] is ParamDirection.Out for w in windows):
        return_types = (ret.value[0].type,)
    clone = func.with_fields(name=func.name + SUFFIX, params=tuple(params), body=body, return_types=return_types)
    return deep_clone(clone)  # its own variables, not the original's


class _CallWindows(IRMutator):
    """`v = self.f(args)` becomes the windows' slices, `v__windowed = self.f__windowed(..)` and, for an output
    window, `v = tensor.assemble(<its argument>, v__windowed, <offsets>)`."""

    def __init__(self, func: F.Function, clone: F.Function, windows: list[Window]) -> None:
        self.func, self.clone, self.windows = func, clone, windows

    def _window_args(self, call: E.Call, span: object) -> tuple[list[S.Stmt], list[E.Expr], list[tuple[E.Expr, E.Expr]]]:
        scalars = {p: a for p, a in zip(self.func.params, call.args) if isinstance(p.type, ScalarType)}
        stmts: list[S.Stmt] = []
        args = list(call.args)
        assembles: list[tuple[E.Expr, E.Expr]] = []
        for w in self.windows:
            arg = call.args[w.param]
            offsets = substitute_expr(w.call.args[w.offsets_arg], scalars)
            sliced = create_op_call("tensor.slice", [arg, to_tuple(w.shape, span), offsets], span=span)
            name = getattr(arg, "name_hint", "arg") + "__window"
            var = E.Var(name, sliced.type, span)
            stmts.append(S.AssignStmt(var, sliced, span))
            args[w.param] = var
            if self.func.param_directions[w.param] is ParamDirection.Out:
                assembles.append((arg, offsets))
        return stmts, args, assembles

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        stmts = [self.visit_stmt(s) for s in seq.stmts]
        return seq if all(a is b for a, b in zip(stmts, seq.stmts)) else make_body(stmts, seq.span)  # flattened

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        call = stmt.value
        if not (isinstance(call, E.Call) and isinstance(call.op, E.GlobalVar) and call.op.name == self.func.name):
            return stmt
        stmts, args, assembles = self._window_args(call, stmt.span)
        clone_call = E.Call(E.GlobalVar(self.clone.name), args, dict(call.kwargs), dict(call.attrs),
                            call_return_type(list(self.clone.params), list(self.clone.return_types), args), call.span)
        if not assembles:
            return make_body([*stmts, stmt.with_fields(value=clone_call)], stmt.span)
        (target, offsets), = assembles
        windowed = E.Var(stmt.var.name_hint + SUFFIX, clone_call.type, stmt.var.span)
        back = create_op_call("tensor.assemble", [target, windowed, offsets], span=stmt.span)
        return make_body([*stmts, S.AssignStmt(windowed, clone_call, stmt.span),
                          stmt.with_fields(value=back)], stmt.span)


def externalize_windows(program: F.Program) -> F.Program:
    functions = {f.name: f for f in program.functions.values()}
    marked = [f for f in functions.values() if f.func_type in KERNEL_TYPES and f.attrs.get("windowize") is True
              and f.name + SUFFIX not in functions]
    changed = False
    for func in marked:
        windows = windows_of(func)
        outs = [w for w in windows if func.param_directions[w.param] is ParamDirection.Out]
        if not windows or len(outs) > 1:
            continue
        clone = windowed_clone(func, windows)
        functions[clone.name] = clone
        for name, caller in list(functions.items()):
            if caller.func_type not in KERNEL_TYPES:
                functions[name] = _CallWindows(func, clone, windows).visit_function(caller)
        changed = True
    return F.Program(list(functions.values()), program.name, program.span) if changed else program
