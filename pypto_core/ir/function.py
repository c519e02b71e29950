"""Function and Program (docs/architecture.md, the core)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import FunctionType, Level, ParamDirection, Role, SplitMode
from pypto_core.ir.expr import GlobalVar, Var
from pypto_core.ir.node import Def, Ignored, IRNode, Usual
from pypto_core.ir.span import Span
from pypto_core.ir.stmt import SeqStmts, Stmt
from pypto_core.ir.types import Type

# Level and role every function type implies (docs/architecture.md, the core). Opaque/Inline/Spmd keep what was passed.
DERIVED_LEVEL_ROLE: dict[FunctionType, tuple[Level, Role]] = {
    FunctionType.InCore: (Level.CHIP_DIE, Role.SubWorker),
    FunctionType.AIC: (Level.AIC, Role.SubWorker),
    FunctionType.AIV: (Level.AIV, Role.SubWorker),
    FunctionType.Group: (Level.CORE_GROUP, Role.SubWorker),
    FunctionType.Orchestration: (Level.CHIP, Role.Orchestrator),
    FunctionType.Graph: (Level.CHIP, Role.Orchestrator),
}


def normalize_attr_value(value: Any) -> Any:
    """Int-valued enums (SplitMode, AtomicType, ...) are stored as plain ints."""
    if isinstance(value, enum.IntEnum):
        return int(value)
    return value


def normalize_function_attrs(attrs: Mapping[str, Any] | Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    """The attrs as given, enums as ints. A `"split": 0` entry stays (PyPTO keeps it): it
    means no split, like an absent key, to `Function.split`, the printer and structural equality."""
    items = attrs.items() if isinstance(attrs, Mapping) else (attrs or ())
    return {str(key): normalize_attr_value(value) for key, value in items}


def is_no_split_entry(key: str, value: Any) -> bool:
    """`"split": SplitMode.NONE`: the printer omits it and equality treats it as absent."""
    return key == "split" and type(value) is int and value == 0  # `==` on an IR Expr would build a node


def effective_function_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """The attrs with a no-split entry dropped: what printing and re-parsing a function keeps."""
    return {k: v for k, v in attrs.items() if not is_no_split_entry(k, v)}


def _split_params(params: Iterable[Any]) -> tuple[tuple[Var, ...], tuple[ParamDirection, ...]]:
    vars_: list[Var] = []
    dirs: list[ParamDirection] = []
    for p in params:
        if isinstance(p, tuple):
            var, direction = p
        else:
            var, direction = p, ParamDirection.In
        if not isinstance(var, Var):
            raise TypeError(f"a function parameter must be a Var, got {type(var).__name__}")
        vars_.append(var)
        dirs.append(ParamDirection(direction))
    return tuple(vars_), tuple(dirs)


class Function(IRNode):
    fields = (Ignored("name"), Def("params"), Usual("param_directions"), Usual("return_types"),
              Usual("func_type"), Usual("level"), Usual("role"), Usual("attrs"),
              Usual("requires_runtime_binding"), Usual("body"), Ignored("span"))

    def __init__(self, name: str, params: Sequence[Any], return_types: Sequence[Type], body: Stmt,
                 span: Span | None = None, type: FunctionType = FunctionType.Opaque, level: Level | None = None,
                 role: Role | None = None, attrs: Mapping[str, Any] | None = None,
                 requires_runtime_binding: bool = False) -> None:
        func_type = FunctionType(type)
        derived = DERIVED_LEVEL_ROLE.get(func_type)
        if derived is not None:
            if level is not None and level is not derived[0]:
                raise ValueError(f"function '{name}': a {func_type.name} function has level "
                                 f"{derived[0].name}, not {level.name}")
            if role is not None and role is not derived[1]:
                raise ValueError(f"function '{name}': a {func_type.name} function has role "
                                 f"{derived[1].name}, not {role.name}")
            level, role = derived
        param_vars, directions = _split_params(params)
        if isinstance(return_types, Type):
            return_types = [return_types]
        self._init(name=name, params=param_vars, param_directions=directions, return_types=tuple(return_types),
                   func_type=func_type, level=level, role=role, attrs=normalize_function_attrs(attrs),
                   requires_runtime_binding=bool(requires_runtime_binding),
                   body=body if body is not None else SeqStmts([]), span=span or Span.unknown())

    @property
    def type(self) -> FunctionType:
        return self.func_type

    @property
    def split(self) -> SplitMode | None:
        """The function-level split; None when the attr is absent or NONE (0) (docs/architecture.md, the core)."""
        value = self.attrs.get("split")
        if value is None or value == 0:
            return None
        return SplitMode(value)

    @property
    def is_external(self) -> bool:
        """A kernel whose code is given (`external_source=`, docs/passes/split_vector_kernel.md): its body is empty,
        no pass rewrites it."""
        return "external_source" in self.attrs

    def param_items(self) -> list[tuple[Var, ParamDirection]]:
        return list(zip(self.params, self.param_directions))

    def __repr__(self) -> str:
        return f"Function({self.name!r}, {self.func_type.name})"


class Program(IRNode):
    fields = (Usual("functions"), Ignored("name"), Ignored("span"))

    def __init__(self, functions: Sequence[Function] | Mapping[Any, Function], name: str = "",
                 span: Span | None = None) -> None:
        funcs = list(functions.values()) if isinstance(functions, Mapping) else list(functions)
        by_name: dict[str, Function] = {}
        for f in funcs:
            if not isinstance(f, Function):
                raise TypeError(f"Program functions must be Function objects, got {type(f).__name__}")
            if f.name in by_name:
                raise ValueError(f"Program '{name}' defines function '{f.name}' twice")
            by_name[f.name] = f
        ordered = {GlobalVar(n): by_name[n] for n in sorted(by_name)}
        self._init(functions=ordered, name=name, span=span or Span.unknown())

    def get_function(self, name: str) -> Function | None:
        for gv, f in self.functions.items():
            if gv.name == name:
                return f
        return None

    def get_global_var(self, name: str) -> GlobalVar | None:
        for gv in self.functions:
            if gv.name == name:
                return gv
        return None

    def __getitem__(self, name: str) -> Function | None:
        return self.get_function(name)

    def function_list(self) -> list[Function]:
        return list(self.functions.values())

    def with_functions(self, functions: Iterable[Function]) -> Program:
        return Program(list(functions), self.name, self.span)

    def __repr__(self) -> str:
        return f"Program({self.name!r}, {[gv.name for gv in self.functions]})"


__all__ = ["Function", "Program", "DERIVED_LEVEL_ROLE", "normalize_function_attrs", "normalize_attr_value",
           "is_no_split_entry", "effective_function_attrs"]


def as_program(node: Program | Function) -> Program:
    """Passes and the machine's callers transform programs: a lone function is a program of one (named after
    it), as `pypto compile` treats a file holding one `@pl.function`."""
    if isinstance(node, Function):
        return Program([node], node.name, node.span)
    if not isinstance(node, Program):
        raise TypeError(f"expected a Program or a Function, got {type(node).__name__}")
    return node
