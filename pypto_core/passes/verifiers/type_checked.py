"""TypeChecked and AssignTypeSymmetry (docs/passes/run_verifier.md, the core properties' rules).

TypeChecked is PyPTO's TypeCheck rule: it checks only

* the valid region of every parameter, return and expression type: a constant valid extent lies in
  0..the constant extent of its axis;
* that a loop's carries agree: for each slot, the initial value, the iter_arg, the value the body
  yields and the return var; and an if's: the then yield, the else yield and the return var. Agree means
  the same kind, dtype, shape and valid shape; layout, stride, fractal and pad only when both sides carry
  an explicit view. Memory spaces are never compared (branches and carries may hold tiles of different
  spaces; InferTileMemorySpace settles them);
* that loop bounds are scalars and conditions BOOL scalars.

It never compares an AssignStmt's variable type with its value's type: that is AssignTypeSymmetry, a
property of its own that is registered but in none of the default, structural or verified sets (ask for
it by name: `run_verifier(properties=["AssignTypeSymmetry"])`). Its rule: the variable has its value's
type, up to what an annotation may add (docs/dsl.md, functions): a memory space, a tile view or memref
where the value has none, an INDEX scalar stamped INT64, a type for a value of unknown type.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.analysis.walk import walk
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.function import Function
from pypto_core.ir.span import Span
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.utils import find_yield_stmt
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import functions

RULE = "TypeChecked"
SYMMETRY_RULE = "AssignTypeSymmetry"


# -- TypeChecked ---------------------------------------------------------------------------------------------
def _kind(t: T.Type) -> str:
    for cls, name in ((T.TileType, "tile"), (T.TensorType, "tensor"), (T.ScalarType, "scalar"),
                      (T.TupleType, "tuple")):
        if isinstance(t, cls):
            return name
    return type(t).__name__


def _valid_shape(t: T.TensorType | T.TileType) -> tuple[E.Expr, ...]:
    if isinstance(t, T.TileType):
        return t.valid_shape
    view = t.tensor_view
    return view.valid_shape if view is not None and view.valid_shape else t.shape


def _views_differ(a: T.TensorType | T.TileType, b: T.TensorType | T.TileType) -> bool:
    """Layout, stride, fractal, pad: compared only when both sides carry an explicit view."""
    if isinstance(a, T.TileType) and isinstance(b, T.TileType):
        va, vb = a.tile_view, b.tile_view
        if va is None or vb is None:
            return False
        return (va.blayout is not vb.blayout or va.slayout is not vb.slayout or va.fractal != vb.fractal
                or va.pad is not vb.pad or not T.dims_equal(va.stride, vb.stride))
    if isinstance(a, T.TensorType) and isinstance(b, T.TensorType):
        ta, tb = a.tensor_view, b.tensor_view
        if ta is None or tb is None:
            return False
        return ta.layout is not tb.layout or ta.pad is not tb.pad or not T.dims_equal(ta.stride, tb.stride)
    return False


def type_mismatch(a: T.Type, b: T.Type) -> str | None:
    """Why two types of one carry / merge slot disagree under TypeChecked's rule, or None."""
    if isinstance(a, T.UnknownType) or isinstance(b, T.UnknownType):
        return None
    if _kind(a) != _kind(b):
        return "another kind"
    if isinstance(a, T.ScalarType) and isinstance(b, T.ScalarType):
        same = a.dtype is b.dtype or (a.dtype.is_index_like() and b.dtype.is_index_like())
        return None if same else "another dtype"
    if isinstance(a, T.TupleType) and isinstance(b, T.TupleType):
        if len(a.types) != len(b.types):
            return "another arity"
        return next((why for x, y in zip(a.types, b.types) if (why := type_mismatch(x, y)) is not None), None)
    if isinstance(a, (T.TensorType, T.TileType)) and isinstance(b, (T.TensorType, T.TileType)):
        if a.dtype is not b.dtype:
            return "another dtype"
        if not T.dims_equal(a.shape, b.shape):
            return "another shape"
        if not T.dims_equal(_valid_shape(a), _valid_shape(b)):
            return "another valid shape"
        if _views_differ(a, b):
            return "another layout, stride, fractal or pad"
        return None
    return None if structural_equal(a, b) else "another type"


def _valid_shape_problem(t: T.Type) -> str | None:
    if isinstance(t, T.TupleType):
        return next((p for x in t.types if (p := _valid_shape_problem(x)) is not None), None)
    if not isinstance(t, (T.TensorType, T.TileType)):
        return None
    valid = _valid_shape(t)
    if valid is t.shape or len(valid) != len(t.shape):
        return None
    for axis, (v, d) in enumerate(zip(valid, t.shape)):
        if isinstance(v, E.ConstInt) and (v.value < 0 or (isinstance(d, E.ConstInt) and v.value > d.value)):
            return f"its valid extent {v.value} on axis {axis} is outside 0..{d.value}" if isinstance(d, E.ConstInt) \
                else f"its valid extent {v.value} on axis {axis} is negative"
    return None


class _TypeCheck:
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out
        self.span = func.span
        self.checked: set[int] = set()

    def report(self, message: str, span: Span | None = None) -> None:
        where = span if span is not None and span.is_valid() else self.span
        self.out.append(error(RULE, f"{message} (function '{self.func.name}')", where))

    def check_valid_shape(self, what: str, t: T.Type, span: Span | None = None) -> None:
        if id(t) in self.checked:
            return
        self.checked.add(id(t))
        problem = _valid_shape_problem(t)
        if problem is not None:
            self.report(f"{what} has type {t}: {problem}", span)

    def run(self) -> None:
        for p in self.func.params:
            self.check_valid_shape(f"parameter '{p.name_hint}'", p.type, p.span)
        for i, t in enumerate(self.func.return_types):
            self.check_valid_shape(f"return type {i}", t)
        for node in walk(self.func.body):
            if isinstance(node, S.Stmt):
                self.span = node.span
                check = self._STMT_CHECKS.get(type(node))
                if check is not None:
                    check(self, node)
            elif isinstance(node, E.Expr) and isinstance(getattr(node, "type", None), T.Type):
                what = f"'{node.name_hint}'" if isinstance(node, E.Var) else \
                    f"a value of {node.op.name}" if isinstance(node, E.Call) else "an expression"
                self.check_valid_shape(what, node.type)

    def check_scalar(self, what: str, e: E.Expr, want_bool: bool = False) -> None:
        t = e.type
        if isinstance(t, T.UnknownType):
            return
        if not isinstance(t, T.ScalarType):
            self.report(f"{what} must be a scalar, got {t}")
        elif want_bool and t.dtype is not DataType.BOOL:
            self.report(f"{what} must be a BOOL scalar, got {t}")

    def check_slots(self, what: str, names: Sequence[str], columns: Sequence[tuple[str, Sequence[T.Type]]]) -> None:
        """Each slot's types agree across `columns` (label, the types per slot)."""
        for i, name in enumerate(names):
            present = [(label, types[i]) for label, types in columns if i < len(types)]
            if not present:
                continue
            (first_label, first), *rest = present
            for label, t in rest:
                why = type_mismatch(first, t)
                if why is not None:
                    self.report(f"{what} '{name}': the {label} is {t} but the {first_label} is {first} ({why})")
                    break

    def check_carries(self, what: str, iter_args: Sequence[E.IterArg], body: S.Stmt,
                      return_vars: Sequence[E.Var]) -> None:
        if not iter_args:
            return
        last = find_yield_stmt(body)
        yielded = [v.type for v in last.value] if last is not None else []
        self.check_slots(what, [a.name_hint for a in iter_args], [
            ("iter_arg", [a.type for a in iter_args]), ("initial value", [a.initValue.type for a in iter_args]),
            ("yielded value", yielded), ("return var", [r.type for r in return_vars])])

    def for_stmt(self, s: S.ForStmt) -> None:
        for what, bound in (("the loop start", s.start), ("the loop stop", s.stop), ("the loop step", s.step)):
            self.check_scalar(what, bound)
        self.check_carries("loop carry", s.iter_args, s.body, s.return_vars)

    def while_stmt(self, s: S.WhileStmt) -> None:
        self.check_scalar("the while condition", s.condition, want_bool=True)
        self.check_carries("while carry", s.iter_args, s.body, s.return_vars)

    def if_stmt(self, s: S.IfStmt) -> None:
        self.check_scalar("the if condition", s.condition, want_bool=True)
        if s.return_vars:
            then_yield = find_yield_stmt(s.then_body)
            else_yield = find_yield_stmt(s.else_body) if s.else_body is not None else None
            self.check_slots("if result", [r.name_hint for r in s.return_vars], [
                ("return var", [r.type for r in s.return_vars]),
                ("then branch's value", [v.type for v in then_yield.value] if then_yield is not None else []),
                ("else branch's value", [v.type for v in else_yield.value] if else_yield is not None else [])])

    _STMT_CHECKS = {S.ForStmt: for_stmt, S.WhileStmt: while_stmt, S.IfStmt: if_stmt}


def verify_type_checked(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _TypeCheck(func, out).run()
    return out


# -- AssignTypeSymmetry ----------------------------------------------------------------------------------------
def _optional_equal(a: object, b: object) -> bool:
    """Equal, or one side does not say (None): an annotation may fill it in."""
    return a is None or b is None or structural_equal(a, b)


def assign_types_compatible(declared: T.Type, value: T.Type) -> bool:
    if isinstance(declared, T.UnknownType) or isinstance(value, T.UnknownType):
        return True
    if type(declared) is not type(value):
        return False
    if isinstance(declared, T.ScalarType):
        return declared.dtype is value.dtype or (declared.dtype.is_index_like() and value.dtype.is_index_like())
    if isinstance(declared, T.TensorType):
        return (declared.dtype is value.dtype and T.dims_equal(declared.shape, value.shape)
                and _optional_equal(declared.memref, value.memref)
                and _optional_equal(declared.tensor_view, value.tensor_view))
    if isinstance(declared, T.TileType):
        return (declared.dtype is value.dtype and T.dims_equal(declared.shape, value.shape)
                and _optional_equal(declared.memref, value.memref)
                and _optional_equal(declared.tile_view, value.tile_view)
                and (declared.memory_space is None or value.memory_space is None
                     or declared.memory_space is value.memory_space))
    if isinstance(declared, T.TupleType):
        return len(declared.types) == len(value.types) and all(
            assign_types_compatible(a, b) for a, b in zip(declared.types, value.types))
    return structural_equal(declared, value)


class _AssignTypes(IRVisitor):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        if not assign_types_compatible(s.var.type, s.value.type):
            self.out.append(error(SYMMETRY_RULE, f"'{s.var.name_hint}' has type {s.var.type} but is assigned a "
                                                 f"value of type {s.value.type} (function '{self.func.name}')",
                                  s.span))
        super().visit_assign_stmt(s)


def verify_assign_type_symmetry(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _AssignTypes(func, out).visit_stmt(func.body)
    return out
