"""Which InCore `In` tensor parameters a hoisted GM -> Mat load may read before a loop
(docs/passes/infer_tile_memory_space.md, loop-invariant Mat residency): a parameter is proven safe when every
call of its kernel comes straight from a root orchestration function (one no function of the program calls)
and there reads storage that function created itself (`pl.create_tensor`), which none of the call's Out /
InOut actuals shares. Then nothing the kernel writes can alias what the hoisted load reads.

Storage roots are followed through plain aliases and the ops whose result is (a view / window / written
copy of) operand 0: the registry's `aliases_operand` trait, or a Write / ReadWrite effect on operand 0.
A new storage root is a tensor made by an op call reading no tensor (tensor.create).
"""

from __future__ import annotations

from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import function_calls
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of

SafeParams = dict[str, set[int]]  # kernel name -> indices of its proven-safe In parameters


def proven_safe_read_params(program: F.Program) -> SafeParams:
    """For each InCore kernel, the In parameters every call site proves unaliased with the call's writes."""
    funcs = list(program.functions.values())
    called = {c.op.name for f in funcs for c in function_calls(f.body)}
    roots = [f for f in funcs if f.func_type is FunctionType.Orchestration and f.name not in called]
    verdicts: dict[tuple[str, int], list[bool]] = {}
    for f in funcs:
        root_orch = f in roots
        origins = _storage_origins(f) if root_orch else {}
        params = {id(p) for p in f.params}
        for call in function_calls(f.body):
            callee = program.get_function(call.op.name)
            if callee is None or callee.func_type is not FunctionType.InCore:
                continue
            written = [_root(a, origins, params) for a, d in zip(call.args, callee.param_directions)
                       if d is not ParamDirection.In and isinstance(a.type, TensorType)]
            for i, (arg, d) in enumerate(zip(call.args, callee.param_directions)):
                if d is not ParamDirection.In or not isinstance(callee.params[i].type, TensorType):
                    continue
                root = _root(arg, origins, params)
                safe = root_orch and root is not None and id(root) not in params and all(w is not None for w in written) \
                    and all(root is not w for w in written)
                verdicts.setdefault((callee.name, i), []).append(safe)
    safe: SafeParams = {}
    for (name, i), sites in verdicts.items():
        if sites and all(sites):
            safe.setdefault(name, set()).add(i)
    return safe


def _storage_origins(func: F.Function) -> dict[int, E.Expr]:
    """Each tensor variable of `func` -> the expression it was bound to."""
    return {id(s.var): s.value for s in statements(func.body)
            if isinstance(s, S.AssignStmt) and isinstance(s.var.type, TensorType)}


def _root(e: E.Expr, origins: dict[int, E.Expr], params: set[int]) -> E.Var | None:
    """The variable naming the storage `e` is in (a tensor.create result or a parameter), None when unknown."""
    seen = 0
    while isinstance(e, E.Var) and seen < 10_000:
        seen += 1
        value = origins.get(id(e))
        if value is None:
            return e if id(e) in params else None  # a loop carry: unknown storage
        if isinstance(value, E.Var):
            e = value
            continue
        if not isinstance(value, E.Call) or isinstance(value.op, E.GlobalVar):
            return None
        opdef = opdef_of(value)
        if opdef is None:
            return None
        tensors = [a for a in value.args if isinstance(a.type, TensorType)]
        if not tensors:
            return e  # new storage
        views_operand0 = opdef.traits.aliases_operand or \
            opdef.arg_effect(0, value.kwargs) in (Effect.WRITE, Effect.READ_WRITE)
        if not views_operand0 or value.args[0] is not tensors[0]:
            return None
        e = value.args[0]
    return None


def written_params(func: F.Function, program: F.Program) -> set[int]:
    """Ids of the parameters `func` writes (through views, stores' results and loop carries): an op's Write /
    ReadWrite operand, or a callee's Out / InOut actual."""
    origins = _storage_origins(func)
    params = {id(p) for p in func.params}
    written: set[int] = set()

    def base(e: E.Expr) -> int | None:
        for _ in range(10_000):
            if isinstance(e, E.IterArg):
                e = e.initValue
                continue
            if not isinstance(e, E.Var):
                return None
            if id(e) in params:
                return id(e)
            value = origins.get(id(e))
            if isinstance(value, E.Var):
                e = value
                continue
            opdef = opdef_of(value) if isinstance(value, E.Call) else None
            if opdef is None or not value.args:  # type: ignore[union-attr]
                return None
            reused = opdef.traits.output_reuses_input
            e = value.args[reused if reused is not None else 0]  # type: ignore[union-attr]
        return None

    for s in statements(func.body):
        for call in _calls_of(s):
            if isinstance(call.op, E.GlobalVar):
                callee = program.get_function(call.op.name)
                dirs = callee.param_directions if callee is not None else ()
                for i, a in enumerate(call.args):
                    if isinstance(a.type, TensorType) and (i >= len(dirs) or dirs[i] is not ParamDirection.In):
                        b = base(a)
                        if b is not None:
                            written.add(b)
                continue
            opdef = opdef_of(call)
            if opdef is None:
                continue
            for i, effect in opdef.arg_effects(call.kwargs).items():
                if effect in (Effect.WRITE, Effect.READ_WRITE) and i < len(call.args):
                    b = base(call.args[i])
                    if b is not None:
                        written.add(b)
    return written


def _calls_of(s: S.Stmt) -> list[E.Call]:
    value = s.value if isinstance(s, S.AssignStmt) else s.expr if isinstance(s, S.EvalStmt) else None
    return [value] if isinstance(value, E.Call) else []
