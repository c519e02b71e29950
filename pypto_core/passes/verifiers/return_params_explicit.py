"""ReturnParamsExplicit: an InCore function that returns a tensor it wrote into a parameter returns the
parameter itself (docs/passes/outline_incore_scopes.md, example: `return x__ssa_v0`, not the store's result), so callers see which
argument the result aliases."""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Function
from pypto_core.ir.types import TensorType
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import functions

RULE = "ReturnParamsExplicit"


class _ParamAliases(IRVisitor):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out
        self.params = {id(p): p for p in func.params}
        self.alias: dict[int, E.Var] = {}  # var -> the parameter it is (a write into it, or a copy)

    def _param_behind(self, e: E.Expr) -> E.Var | None:
        if isinstance(e, E.Var):
            return self.params.get(id(e)) or self.alias.get(id(e))
        return None

    def _written_param(self, value: E.Expr) -> E.Var | None:
        opdef = opdef_of(value)
        if opdef is None or not isinstance(value.type, TensorType):
            return None
        assert isinstance(value, E.Call)
        for index, arg in enumerate(value.args):
            if opdef.arg_effect(index, value.kwargs) in (Effect.WRITE, Effect.READ_WRITE):
                param = self._param_behind(arg)
                if param is not None:
                    return param
        return None

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        param = self._param_behind(s.value) or self._written_param(s.value)
        if param is not None:
            self.alias[id(s.var)] = param
        super().visit_assign_stmt(s)

    def visit_return_stmt(self, s: S.ReturnStmt) -> None:
        for value in s.value:
            if isinstance(value, E.Var) and id(value) not in self.params and id(value) in self.alias:
                param = self.alias[id(value)]
                self.out.append(error(RULE, f"InCore function '{self.func.name}' returns '{value.name_hint}', "
                                            f"which is parameter '{param.name_hint}' written in place; return "
                                            f"'{param.name_hint}' itself", s.span))


def verify_return_params_explicit(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        if func.func_type is FunctionType.InCore:
            _ParamAliases(func, out).visit_stmt(func.body)
    return out
