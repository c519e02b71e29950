"""The `pl` printer (docs/dsl.md, the printed form). `parse(print(p))` is structurally equal to `p`.

The raw printer never wraps lines; `format=True` is accepted and treated like `format=False`.
"""

from __future__ import annotations

import enum
import keyword
import math
from collections.abc import Sequence
from typing import Any

from pypto_core.collector import pauses_collector
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import (
    ArgDirection,
    AtomicType,
    CachePolicy,
    CastMode,
    CompactMode,
    ForKind,
    FunctionType,
    MemorySpace,
    PadValue,
    PipeType,
    Role,
    SplitMode,
    TensorLayout,
    TileLayout,
)
from pypto_core.ir.fresh_names import user_base
from pypto_core.language.naming import VarOrder, assign_names, dynamic_dim_vars, function_var_order
from pypto_core.ops.registry import find_opdef

INDENT = "    "

# Binding strength, weakest first (docs/dsl.md, the printed form).
_PREC = {
    # Xor prints as Python's `^`, so it must bind like `^` (not like `or`) to re-parse as written.
    E.Or: 1, E.And: 3, E.Not: 4, E.Xor: 7,
    E.Eq: 5, E.Ne: 5, E.Lt: 5, E.Le: 5, E.Gt: 5, E.Ge: 5,
    E.BitOr: 6, E.BitXor: 7, E.BitAnd: 8, E.BitShiftLeft: 9, E.BitShiftRight: 9,
    E.Add: 10, E.Sub: 10, E.Mul: 11, E.FloatDiv: 11, E.FloorDiv: 11, E.FloorMod: 11,
    E.Neg: 12, E.BitNot: 12, E.Pow: 13,
}
_ATOM = 14
_COMPARISON = 5
_OP_TEXT = {
    E.Or: "or", E.Xor: "^", E.And: "and", E.Eq: "==", E.Ne: "!=", E.Lt: "<", E.Le: "<=", E.Gt: ">", E.Ge: ">=",
    E.BitOr: "|", E.BitXor: "^", E.BitAnd: "&", E.BitShiftLeft: "<<", E.BitShiftRight: ">>", E.Add: "+",
    E.Sub: "-", E.Mul: "*", E.FloatDiv: "/", E.FloorDiv: "//", E.FloorMod: "%", E.Pow: "**",
}
_ARG_DIRECTION = {
    ArgDirection.Input: "input", ArgDirection.Output: "output", ArgDirection.OutputExisting: "output_existing",
    ArgDirection.InOut: "inout", ArgDirection.NoDep: "no_dep", ArgDirection.Scalar: "scalar",
}
_REGION_SPLIT_OPS = ("tile.aiv_shard", "tile.aic_gather", "tensor.aiv_shard", "tensor.aic_gather")
_HIDDEN_FUNC_ATTRS = ("auto_scope", "external_source")


def format_float(value: float) -> str:
    """The shortest `%.<p>g` text that reads back as the same double, with `.0` when it has no '.' or exponent
    (as PyPTO prints them: `2.0`, `0.5`, `1e+16`, `1e-07`; `%g` writes 100.0 as `1e+02`)."""
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else '-float("inf")'
    value = float(value)
    text = f"{value:.17g}"
    for precision in range(1, 17):
        candidate = f"{value:.{precision}g}"
        if float(candidate) == value:
            text = candidate
            break
    if "." not in text and "e" not in text:
        text += ".0"
    return text


def quote_double(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote_single(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def is_const_tree(e: E.Expr) -> bool:
    """Only constants below: printed with `pl.const` leaves so the parser does not fold it."""
    if isinstance(e, (E.ConstInt, E.ConstFloat, E.ConstBool)):
        return True
    if isinstance(e, E.BinaryExpr):
        return is_const_tree(e.left) and is_const_tree(e.right)
    if isinstance(e, E.UnaryExpr):
        return is_const_tree(e.operand)
    return False


def callee_first_order(program: F.Program, callees: dict[str, list[str]] | None = None) -> list[F.Function]:
    """DFS topological order: every callee before its callers; ties keep name order; cycles: name order.

    `callees` (function name -> names it calls) may come from a walk the caller already did.
    """
    funcs = {gv.name: f for gv, f in program.functions.items()}
    if callees is None:
        callees = {name: function_var_order(f).callees for name, f in funcs.items()}
    order: list[str] = []
    state: dict[str, int] = {}
    for name in funcs:
        if not _visit_callees_first(name, funcs, callees, state, order):
            return list(funcs.values())
    return [funcs[n] for n in order]


def _visit_callees_first(name: str, funcs: dict[str, F.Function], callees: dict[str, list[str]],
                         state: dict[str, int], order: list[str]) -> bool:
    """One step of callee_first_order's DFS; False on a call cycle. A module function: a recursive
    closure would be a reference cycle keeping the printed program alive until the garbage collector ran."""
    if state.get(name) == 2:
        return True
    if state.get(name) == 1:
        return False
    state[name] = 1
    for callee in sorted(c for c in callees[name] if c in funcs):
        if not _visit_callees_first(callee, funcs, callees, state, order):
            return False
    state[name] = 2
    order.append(name)
    return True


class Printer:
    def __init__(self, prefix: str = "pl", concise: bool = False, explicit_layout: bool = False) -> None:
        self.prefix = prefix
        self.concise = concise
        self.explicit_layout = explicit_layout
        self.names: dict[int, str] = {}
        self.global_names: dict[int, str] = {}
        self.in_program = False
        self.mark_free = False
        self.region_depth = 0
        # Printed text of types that name no variable (so print the same everywhere), by identity: outlined
        # functions share their callers' type objects, and a type is printed at every annotation.
        self._type_texts: dict[int, tuple[T.Type, str]] = {}
        self.ptr_defs: set[int] = set()  # Ptr vars an assignment of the current function's body defines
        self.in_signature = False

    # -- names ---------------------------------------------------------------------------------
    def name(self, v: E.Var) -> str:
        n = self.names.get(id(v))
        if n is not None:
            return n
        n = self.global_names.get(id(v))
        if n is not None:
            return n
        if self.mark_free:
            return f"{v.name_hint}__FREE_VAR"
        return v.name_hint

    def p(self, rest: str) -> str:
        return f"{self.prefix}.{rest}"

    # -- program / function --------------------------------------------------------------------
    def program(self, program: F.Program) -> str:
        name = program.name or "Program"
        orders = {gv.name: function_var_order(f) for gv, f in program.functions.items()}
        dyn = dynamic_dim_vars(program, orders.values())
        self.global_names = assign_names(dyn)
        if self.prefix == "pl":
            lines = [f"# pypto.program: {name}", "import pypto.language as pl", ""]
        else:
            lines = [f"# pypto.program: {name}", f"from pypto import language as {self.prefix}", ""]
        if dyn:
            for text in sorted(self.global_names[id(v)] for v in dyn):
                lines.append(f'{text} = {self.p("dynamic")}({quote_double(text)})')
            lines.append("")
        lines.append(f"@{self.p('program')}")
        lines.append(f"class {name}:")
        self.in_program = True
        ordered = callee_first_order(program, {n: o.callees for n, o in orders.items()})
        funcs = [self.function(f, INDENT, orders[f.name]) for f in ordered]
        self.in_program = False
        return "\n".join(lines) + ("\n" + "\n".join(funcs) if funcs else "\n" + INDENT + "pass")

    def bare_function(self, func: F.Function) -> str:
        """A function on its own: its `pl.dynamic` dims are declared above it, so the text parses back."""
        order = function_var_order(func)
        dyn = [v for v in order.type_vars if not order.is_defined(v)]
        self.global_names = assign_names(list({id(v): v for v in dyn}.values()))
        self.mark_free = True
        text = self.function(func, "", order)
        if not self.global_names:
            return text
        decls = [f'{name} = {self.p("dynamic")}({quote_double(name)})' for name in sorted(self.global_names.values())]
        return "\n".join(decls) + "\n\n" + text

    def function(self, func: F.Function, indent: str = "", order: VarOrder | None = None) -> str:
        if order is None:
            order = function_var_order(func)
        # Names the text reads as modules (the `pl` prefix, the first part of each unprefixed `pld.` op it prints):
        # a variable named so would hide them when parsed back, so it prints as `pl_1` (docs/dsl.md, the printed form).
        reserved = set(self.global_names.values()) | {self.prefix} | order.pld_modules
        self.names = assign_names(order.defs + [u for u in order.uses if not order.is_defined(u)
                                                and id(u) not in self.global_names], reserved)
        # Uses of variables the function never defines are malformed IR: mark them.
        for u in order.uses:
            if not order.is_defined(u) and id(u) not in self.global_names:
                self.names[id(u)] = f"{u.name_hint}__FREE_VAR"
        self.ptr_defs = {id(v) for v in order.defs if isinstance(v.type, T.PtrType)}
        self.in_signature = True
        lines = [indent + self.decorator(func)]
        params = []
        with_self = self.in_program and func.role is not Role.SubWorker
        if with_self:
            params.append("self")
        for var, direction in zip(func.params, func.param_directions):
            text = self.type(var.type)
            if direction.name != "In":
                text = self.p(f"{direction.name}[{text}]")
            params.append(f"{self.name(var)}: {text}")
        ret = ""
        if len(func.return_types) == 1:
            ret = f" -> {self.type(func.return_types[0])}"
        elif len(func.return_types) > 1:
            ret = " -> tuple[" + ", ".join(self.type(t) for t in func.return_types) + "]"
        lines.append(f"{indent}def {func.name}({', '.join(params)}){ret}:")
        self.in_signature = False
        body_indent = indent + INDENT
        attrs = self.func_attrs(func)
        if attrs:
            lines.append(body_indent + attrs)
        body = self.body(func.body, body_indent, function_body=True)
        if not body and "external_source" in func.attrs:
            body = body_indent + "..."  # the only body the parser accepts there
        if body or not attrs:
            lines.append(body if body else body_indent + "pass")
        self.names = {}
        return "\n".join(lines)

    def decorator(self, func: F.Function) -> str:
        parts: list[str] = []
        if func.func_type is not FunctionType.Opaque:
            parts.append(f"type={self.p('FunctionType.' + func.func_type.name)}")
        if func.level is not None:
            parts.append(f"level={self.p('Level.' + func.level.name)}")
        if func.role is not None:
            parts.append(f"role={self.p('Role.' + func.role.name)}")
        if func.attrs.get("auto_scope") is False:
            parts.append("auto_scope=False")
        if "external_source" in func.attrs:
            parts.append(f"external_source={quote_double(str(func.attrs['external_source']))}")
        if not parts:
            return f"@{self.p('function')}"
        return f"@{self.p('function')}({', '.join(parts)})"

    def func_attrs(self, func: F.Function) -> str:
        items = []
        for key, value in func.attrs.items():
            if key in _HIDDEN_FUNC_ATTRS or F.is_no_split_entry(key, value):
                continue  # a split of NONE means no split, which the parser spells with no entry
            items.append(f"{quote_double(key)}: {self.attr_value(key, value)}")
        if not items:
            return ""
        return f"{self.p('func_attr')}({{{', '.join(items)}}})"

    def attr_value(self, key: str, value: Any) -> str:
        if key == "split" and isinstance(value, int) and not isinstance(value, bool):
            return self.p(f"SplitMode.{SplitMode(value).name}")
        if key == "cache_policy" and isinstance(value, (list, tuple)):
            return "[" + ", ".join(f"[{i}, {int(p)}]" for i, p in value) + "]"
        return self.value(value, double_quote=True)

    def value(self, value: Any, double_quote: bool) -> str:
        """An attribute or kwarg value (docs/dsl.md, the printed form)."""
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, enum.Enum):
            return self.enum(value)
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return format_float(value)
        if isinstance(value, str):
            return quote_double(value) if double_quote else quote_single(value)
        if isinstance(value, E.Expr):
            return self.expr(value)
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(self.value(v, double_quote) for v in value) + "]"
        if isinstance(value, dict):
            return "{" + ", ".join(f"{quote_double(str(k))}: {self.value(v, True)}" for k, v in value.items()) + "}"
        if value is None:
            return "None"
        return repr(value)

    def enum(self, value: enum.Enum) -> str:
        if isinstance(value, DataType):
            return self.p(value.name)
        if isinstance(value, MemorySpace):
            return self.p(f"Mem.{value.name}")
        if isinstance(value, ArgDirection):
            return self.p(f"adir.{_ARG_DIRECTION[value]}")
        for cls in (TensorLayout, TileLayout, PadValue, CompactMode, AtomicType, PipeType, SplitMode, ForKind,
                    CachePolicy, FunctionType, Role):
            if isinstance(value, cls):
                return self.p(f"{cls.__name__}.{value.name}")
        return self.p(f"{type(value).__name__}.{value.name}")

    # -- types -----------------------------------------------------------------------------------
    def type(self, t: T.Type) -> str:
        if t.has_vars or getattr(t, "memref", None) is not None:  # a MemRef prints by where it is printed
            return self._type(t)
        hit = self._type_texts.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        text = self._type(t)
        self._type_texts[id(t)] = (t, text)
        return text

    def _type(self, t: T.Type) -> str:
        if isinstance(t, T.ScalarType):
            return self.p(f"Scalar[{self.p(t.dtype.name)}]")
        if isinstance(t, T.PtrType):
            return self.p("Ptr")
        if isinstance(t, T.TileType):
            parts = [self.dims(t.shape), self.p(t.dtype.name)]
            if t.memref is not None:
                parts.append(self.memref(t.memref))
            if t.memory_space is not None:
                parts.append(self.p(f"Mem.{t.memory_space.name}"))
            view = t.effective_view() if self.explicit_layout else t.tile_view
            if view is not None:
                parts.append(self.tile_view(view, t))
            return self.p(f"Tile[{', '.join(parts)}]")
        if isinstance(t, T.TensorType):
            parts = [self.dims(t.shape), self.p(t.dtype.name)]
            if t.tensor_view is not None:
                parts.append(self.tensor_view(t.tensor_view, t))
            if t.memref is not None:
                parts.append(self.memref(t.memref))
            name = "DistributedTensor" if isinstance(t, T.DistributedTensorType) else "Tensor"
            return self.p(f"{name}[{', '.join(parts)}]")
        if isinstance(t, T.TupleType):
            if not t.types:
                return self.p("Tuple[()]")
            return self.p(f"Tuple[{', '.join(self.type(x) for x in t.types)}]")
        return self.p("UnknownType")

    def dims(self, dims: Sequence[E.Expr]) -> str:
        return "[" + ", ".join(self.dim(d) for d in dims) + "]"

    def dim(self, d: E.Expr) -> str:
        if isinstance(d, E.ConstInt):
            return str(d.value)
        if isinstance(d, E.Var):
            return self.name(d)
        return self.expr(d, const_leaves=True)

    def tile_view(self, view: T.TileView, t: T.TileType) -> str:
        parts: list[str] = []
        if view.valid_shape and not T.dims_equal(view.valid_shape, t.shape):
            parts.append(f"valid_shape={self.dims(view.valid_shape)}")
        if view.stride:
            parts.append(f"stride={self.dims(view.stride)}")
        if view.start_offset is not None:
            parts.append(f"start_offset={self.dim(view.start_offset)}")
        blayout, slayout, fractal = T.implicit_layout(t.shape, t.memory_space)
        if view.blayout is not blayout or self.explicit_layout:
            parts.append(f"blayout={self.p('TileLayout.' + view.blayout.name)}")
        if view.slayout is not slayout or self.explicit_layout:
            parts.append(f"slayout={self.p('TileLayout.' + view.slayout.name)}")
        if view.fractal != fractal or self.explicit_layout:
            parts.append(f"fractal={view.fractal}")
        if view.pad is not PadValue.null:
            parts.append(f"pad={self.p('PadValue.' + view.pad.name)}")
        if view.compact is not CompactMode.null:
            parts.append(f"compact={self.p('CompactMode.' + view.compact.name)}")
        return self.p(f"TileView({', '.join(parts)})")

    def tensor_view(self, view: T.TensorView, t: T.TensorType) -> str:
        parts: list[str] = []
        if view.valid_shape and not T.dims_equal(view.valid_shape, t.shape):
            parts.append(f"valid_shape={self.dims(view.valid_shape)}")
        if view.stride or view.layout is not None:
            parts.append(f"stride={self.dims(view.stride)}")
            layout = view.layout if view.layout is not None else TensorLayout.ND
            parts.append(f"layout={self.p('TensorLayout.' + layout.name)}")
        if view.pad is not PadValue.null:
            parts.append(f"pad={self.p('PadValue.' + view.pad.name)}")
        return self.p(f"TensorView({', '.join(parts)})")

    def memref(self, m: T.MemRef) -> str:
        """`pl.MemRef(base, offset, size[, slots=N])[k]`; a declaration `pl.MemRef("name"[, slots=N])[k]`.

        The base prints as a bare name when an assignment of the body defines it and the printer is in the
        body, else as a quoted name (docs/memory_planning.md, printed forms)."""
        base = m.base
        name = self.names.get(id(base)) or self.global_names.get(id(base)) or base.name_hint
        if m.is_pinned and m.size == 0:
            text = f"{self.p('MemRef')}({quote_double(name)}"
            if m.slot_count_ != 1:
                text += f", slots={m.slot_count_}"
            text += ")"
        else:
            shown = name if id(base) in self.ptr_defs and not self.in_signature else quote_double(name)
            text = f"{self.p('MemRef')}({shown}, {self.memref_offset(m.byte_offset)}, {m.size}"
            if m.slots is not None:
                text += f", slots={m.slots}"
            text += ")"
        if m.slot is not None:
            text += f"[{self.expr(m.slot)}]"
        return text

    def memref_offset(self, e: E.Expr) -> str:
        if isinstance(e, E.ConstInt):
            return str(e.value) if e.type.dtype is DataType.INDEX else self.expr(e, const_leaves=True)
        return self.expr(e)

    # -- statements --------------------------------------------------------------------------------
    def body(self, stmt: S.Stmt | None, indent: str, function_body: bool = False,
             yield_targets: Sequence[E.Var] = ()) -> str:
        from pypto_core.ir.utils import flatten_to_stmts

        stmts = flatten_to_stmts(stmt)
        lines: list[str] = []
        for i, s in enumerate(stmts):
            last = i == len(stmts) - 1
            if isinstance(s, S.YieldStmt) and function_body:
                lines.append(self.comments(s, indent) + indent + self.return_text(s.value))
            elif isinstance(s, S.YieldStmt) and last and yield_targets:
                lines.append(self.comments(s, indent) + indent + self.yield_assign(s, yield_targets))
            elif last and yield_targets and isinstance(s, S.ScopeStmt) and not isinstance(s, S.SplitAivScopeStmt):
                # The loop's yield may end a pl.at scope that ends the loop body: it keeps its targets.
                self.scope_yield_targets = yield_targets
                try:
                    lines.append(self.stmt(s, indent))
                finally:
                    self.scope_yield_targets = ()
            else:
                lines.append(self.stmt(s, indent))
        return "\n".join(lines)

    def comments(self, s: S.Stmt, indent: str) -> str:
        if not s.leading_comments:
            return ""
        # One `#` line per text line; the parser strips comment text, so the printer does too.
        lines = [line.strip() for c in s.leading_comments for line in (c.splitlines() or [""])]
        return "".join(f"{indent}# {line}\n" if line else f"{indent}#\n" for line in lines)

    def return_text(self, values: Sequence[E.Expr]) -> str:
        if not values:
            return "return"
        return "return " + ", ".join(self.expr(v) for v in values)

    def yield_assign(self, y: S.YieldStmt, targets: Sequence[E.Var]) -> str:
        values = ", ".join(self.expr(v) for v in y.value)
        call = f"{self.p('yield_')}({values})"
        if len(targets) == 1:
            t = targets[0]
            if self.concise:
                return f"{self.name(t)} = {call}"
            return f"{self.name(t)}: {self.type(t.type)} = {call}"
        return f"{', '.join(self.name(t) for t in targets)} = {call}"

    def stmt(self, s: S.Stmt, indent: str) -> str:
        head = self.comments(s, indent)
        inner = indent + INDENT
        if isinstance(s, S.AssignStmt):
            if self.concise:
                return head + f"{indent}{self.name(s.var)} = {self.expr(s.value)}"
            return head + f"{indent}{self.name(s.var)}: {self.type(s.var.type)} = {self.expr(s.value)}"
        if isinstance(s, S.EvalStmt):
            return head + indent + self.expr(s.expr)
        if isinstance(s, S.ReturnStmt):
            return head + indent + self.return_text(s.value)
        if isinstance(s, S.YieldStmt):
            return head + f"{indent}{self.p('yield_')}({', '.join(self.expr(v) for v in s.value)})"
        if isinstance(s, S.SeqStmts):
            if not s.stmts:
                return head + indent + "pass"
            return head + self.body(s, indent)
        if isinstance(s, S.BreakStmt):
            return head + indent + "break"
        if isinstance(s, S.ContinueStmt):
            return head + indent + "continue"
        if isinstance(s, S.IfStmt):
            text = f"{head}{indent}if {self.expr(s.condition)}:\n"
            text += self.block(s.then_body, inner, s.return_vars)
            if s.else_body is not None:
                text += f"\n{indent}else:\n" + self.block(s.else_body, inner, s.return_vars)
            return text
        if isinstance(s, S.ForStmt):
            return head + self.for_header(s, indent) + "\n" + self.block(s.body, inner, s.return_vars)
        if isinstance(s, S.WhileStmt):
            if not s.iter_args:
                return f"{head}{indent}while {self.expr(s.condition)}:\n" + self.block(s.body, inner)
            names = ", ".join(self.name(a) for a in s.iter_args)
            inits = self.init_tuple(s.iter_args)
            text = f"{head}{indent}for ({names},) in {self.p('while_')}(init_values={inits}):\n"
            if len(s.iter_args) > 1:
                text = f"{head}{indent}for ({names}) in {self.p('while_')}(init_values={inits}):\n"
            text += f"{inner}{self.p('cond')}({self.expr(s.condition)})\n"
            return text + self.block(s.body, inner, s.return_vars, allow_empty=True)
        if isinstance(s, S.InCoreScopeStmt):
            return head + self.incore_header(s, indent) + "\n" + self.scope_body(s, inner)
        if isinstance(s, S.SplitAivScopeStmt):
            return head + self.split_aiv(s, indent)
        if isinstance(s, S.HierarchyScopeStmt):
            return head + self.hierarchy_header(s, indent) + "\n" + self.scope_body(s, inner)
        if isinstance(s, S.ClusterScopeStmt):
            args = f"name_hint={quote_double(s.name_hint)}" if s.name_hint else ""
            return head + f"{indent}with {self.p('cluster')}({args}):\n" + self.scope_body(s, inner)
        if isinstance(s, S.SpmdScopeStmt):
            return head + self.spmd_header(s, indent) + "\n" + self.scope_body(s, inner)
        raise TypeError(f"the printer does not know statement {type(s).__name__}")

    def block(self, body: S.Stmt | None, indent: str, targets: Sequence[E.Var] = (), allow_empty: bool = False) -> str:
        text = self.body(body, indent, yield_targets=targets)
        if not text:
            return "" if allow_empty else indent + "pass"
        return text

    def init_tuple(self, iter_args: Sequence[E.IterArg]) -> str:
        inits = [self.expr(a.initValue) for a in iter_args]
        return f"({inits[0]},)" if len(inits) == 1 else f"({', '.join(inits)})"

    def for_header(self, s: S.ForStmt, indent: str) -> str:
        one = isinstance(s.step, E.ConstInt) and s.step.value == 1 and s.step.type.dtype is DataType.INDEX
        zero = isinstance(s.start, E.ConstInt) and s.start.value == 0 and s.start.type.dtype is DataType.INDEX
        if zero and one:
            args = [self.expr(s.stop)]
        elif one:
            args = [self.expr(s.start), self.expr(s.stop)]
        else:
            args = [self.expr(s.start), self.expr(s.stop), self.expr(s.step)]
        attrs = dict(s.attrs)
        if s.kind is ForKind.Pipeline and "pipeline_stages" in attrs:
            args.append(f"stage={self.value(attrs.pop('pipeline_stages'), True)}")
        if s.iter_args and s.kind is ForKind.Unroll:
            # The DSL has no spelling for it (docs/dsl.md, loops and carries); the round-trip instrument only warns (docs/architecture.md, the pass manager).
            carried = ", ".join(repr(user_base(a)) for a in s.iter_args)
            raise UserError(f"pl.unroll does not support iter_args: the loop over '{self.name(s.loop_var)}' "
                            f"carries {len(s.iter_args)} value(s) ({carried}), which the DSL cannot write; unroll "
                            f"the loop before convert_to_ssa gives it carries (the unroll_loops pass: the default "
                            f"pipeline runs it first), or write the loop with pl.range", s.span)
        if s.iter_args:
            args.append(f"init_values={self.init_tuple(s.iter_args)}")
        if attrs:
            args.append(f"attrs={self.value(attrs, True)}")
        fn = {ForKind.Sequential: "range", ForKind.Parallel: "parallel", ForKind.Unroll: "unroll",
              ForKind.Pipeline: "pipeline"}[s.kind]
        target = self.name(s.loop_var)
        if s.iter_args:
            names = ", ".join(self.name(a) for a in s.iter_args)
            target += f", ({names},)" if len(s.iter_args) == 1 else f", ({names})"
        return f"{indent}for {target} in {self.p(fn)}({', '.join(args)}):"

    def incore_header(self, s: S.InCoreScopeStmt, indent: str) -> str:
        parts = [f"level={self.p('Level.CORE_GROUP')}"]
        opts = []
        if s.split is not SplitMode.NONE:
            opts.append(f"{self.p('split')}({self.p('SplitMode.' + s.split.name)})")
        if "slot_num" in s.attrs:
            opts.append(f"{self.p('cross_core_slot')}(slot_num={self.value(s.attrs['slot_num'], True)})")
        if opts:
            parts.append(f"optimizations=[{', '.join(opts)}]")
        return f"{indent}with {self.p('at')}({', '.join(parts + self.scope_keywords(s))}):"

    def hierarchy_header(self, s: S.HierarchyScopeStmt, indent: str) -> str:
        parts = [f"level={self.p('Level.' + s.level.name)}"]
        if s.role is not None:
            parts.append(f"role={self.p('Role.' + s.role.name)}")
        return f"{indent}with {self.p('at')}({', '.join(parts + self.scope_keywords(s))}):"

    def spmd_header(self, s: S.SpmdScopeStmt, indent: str) -> str:
        """`with pl.spmd(<core_num>[, sync_start=True][, name_hint=...]):` (docs/passes/outline_incore_scopes.md spells `pl.spmd(m // 16)`)."""
        parts = [self.expr(s.core_num)]
        if s.sync_start:
            parts.append("sync_start=True")
        return f"{indent}with {self.p('spmd')}({', '.join(parts + self.scope_keywords(s))}):"

    def scope_keywords(self, s: S.ScopeStmt) -> list[str]:
        """The `pl.at(...)` keywords after level/role/optimizations, in docs/dsl.md, the printed form order."""
        attrs = s.attrs
        parts = []
        if s.name_hint:
            parts.append(f"name_hint={quote_double(s.name_hint)}")
        if attrs.get("arg_direction_overrides_vars"):
            parts.append(f"no_dep_args=[{', '.join(self.expr(v) for v in attrs['arg_direction_overrides_vars'])}]")
        if attrs.get("dump_vars"):
            parts.append(f"dumps=[{', '.join(self.expr(v) for v in attrs['dump_vars'])}]")
        if attrs.get("allow_early_resolve"):
            parts.append("allow_early_resolve=True")
        if attrs.get("windowize"):
            parts.append("windowize=True")
        return parts

    def scope_body(self, s: S.ScopeStmt, indent: str) -> str:
        from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts

        stmts = flatten_to_stmts(s.body)
        # `pl.set_cache_policy(t, ...)` goes first, or right after the statement that defines `t` when the
        # scope itself defines it, so the re-parsed text finds `t`.
        after: dict[int, list[str]] = {}
        for var, policy in s.attrs.get("cache_policy_vars", ()):
            line = (f"{indent}{self.p('set_cache_policy')}({self.expr(var)}, "
                    f"{self.p('CachePolicy.' + CachePolicy(int(policy)).name)})")
            where = next((i for i, st in enumerate(stmts) if any(v is var for v in collect_def_vars(st))), -1)
            after.setdefault(where, []).append(line)
        targets, self.scope_yield_targets = getattr(self, "scope_yield_targets", ()), ()
        if not after:
            return self.body(s.body, indent, yield_targets=targets) or indent + "pass"
        lines = list(after.get(-1, ()))
        for i, st in enumerate(stmts):
            if isinstance(st, S.YieldStmt) and targets and i == len(stmts) - 1:
                lines.append(self.comments(st, indent) + indent + self.yield_assign(st, targets))
            else:
                lines.append(self.stmt(st, indent))
            lines.extend(after.get(i, ()))
        return "\n".join(lines)

    def split_aiv(self, s: S.SplitAivScopeStmt, indent: str) -> str:
        from pypto_core.ir.utils import flatten_to_stmts

        stmts = flatten_to_stmts(s.body)
        lane = "aiv_id"
        first = stmts[0] if stmts else None
        if (isinstance(first, S.AssignStmt) and isinstance(first.value, E.Call)
                and first.value.op.name == "tile.get_subblock_idx" and not first.value.args):
            lane = self.name(first.var)
            stmts = stmts[1:]
        header = f"{indent}for {lane} in {self.p('split_aiv')}({s.count}, mode={self.p('SplitMode.' + s.split.name)}):"
        self.region_depth += 1
        try:
            body = self.body(S.SeqStmts(stmts), indent + INDENT) if stmts else ""
        finally:
            self.region_depth -= 1
        return header + "\n" + (body or indent + INDENT + "pass")

    # -- expressions -------------------------------------------------------------------------------
    def expr(self, e: E.Expr, const_leaves: bool = False) -> str:
        return self._expr(e, const_leaves)

    def _expr(self, e: E.Expr, cl: bool) -> str:
        if not cl and isinstance(e, (E.BinaryExpr, E.UnaryExpr)) and is_const_tree(e):
            cl = True  # any all-constant subtree, or the parser would fold it
        if isinstance(e, E.Var):
            return self.name(e)
        if isinstance(e, E.ConstInt):
            if e.type.dtype is DataType.INDEX and not cl:
                return str(e.value)
            return f"{self.p('const')}({e.value}, {self.p(e.type.dtype.name)})"
        if isinstance(e, E.ConstFloat):
            if e.type.dtype is DataType.FP32 and not cl:
                return format_float(e.value)
            return f"{self.p('const')}({format_float(e.value)}, {self.p(e.type.dtype.name)})"
        if isinstance(e, E.ConstBool):
            return "True" if e.value else "False"
        if isinstance(e, (E.Min, E.Max)):
            fn = "min" if isinstance(e, E.Min) else "max"
            return f"{self.p(fn)}({self._expr(e.left, cl)}, {self._expr(e.right, cl)})"
        if isinstance(e, E.BinaryExpr):
            return self.binary(e, cl)
        if isinstance(e, E.Cast):
            return f"{self.p('cast')}({self._expr(e.operand, cl)}, {self.p(e.type.dtype.name)})"
        if isinstance(e, E.Abs):
            return f"abs({self._expr(e.operand, cl)})"
        if isinstance(e, E.UnaryExpr):
            return self.unary(e, cl)
        if isinstance(e, E.Call):
            return self.call(e)
        if isinstance(e, E.MakeTuple):
            return "[" + ", ".join(self._expr(x, cl) for x in e.elements) + "]"
        if isinstance(e, E.TupleGetItemExpr):
            return f"{self.wrap(e.tuple, _ATOM, cl)}[{e.index}]"
        raise TypeError(f"the printer does not know expression {type(e).__name__}")

    @staticmethod
    def precedence(e: E.Expr) -> int:
        return _PREC.get(type(e), _ATOM)

    def wrap(self, e: E.Expr, needed: int, cl: bool, strict: bool = False) -> str:
        text = self._expr(e, cl)
        prec = self.precedence(e)
        if prec == _ATOM and text.startswith("-"):
            prec = _PREC[E.Neg]  # a literal `-2` binds like a unary minus: `(-2) ** x`
        if prec < needed or (strict and prec == needed):
            return f"({text})"
        return text

    def binary(self, e: E.BinaryExpr, cl: bool) -> str:
        prec = self.precedence(e)
        if prec == _COMPARISON:
            left = self.wrap(e.left, prec, cl, strict=True)
            right = self.wrap(e.right, prec, cl, strict=True)
        elif isinstance(e, E.Pow):
            left = self.wrap(e.left, prec, cl, strict=True)
            right = self.wrap(e.right, prec, cl)
        else:
            left = self.wrap(e.left, prec, cl)
            right = self.wrap(e.right, prec, cl, strict=True)
        return f"{left} {_OP_TEXT[type(e)]} {right}"

    def unary(self, e: E.UnaryExpr, cl: bool) -> str:
        if isinstance(e, E.Not):
            return f"not {self.wrap(e.operand, _PREC[E.Not], cl)}"
        sign = "-" if isinstance(e, E.Neg) else "~"
        operand = e.operand
        text = self._expr(operand, cl)
        # pl.min / pl.max print as calls: no parentheses (PyPTO prints `-pl.min(a, b)`).
        if not isinstance(operand, (E.UnaryExpr, E.Var, E.ConstInt, E.ConstFloat, E.ConstBool, E.Call,
                                    E.MakeTuple, E.TupleGetItemExpr, E.Min, E.Max)) or isinstance(operand, E.Not):
            text = f"({text})"
        elif isinstance(operand, (E.ConstInt, E.ConstFloat)) and text.startswith("-"):
            text = f"({text})"
        return f"{sign}{text}"

    def call(self, c: E.Call) -> str:
        if isinstance(c.op, E.GlobalVar):
            callee = f"self.{c.op.name}" if self.in_program else c.op.name
            args = [self.expr(a) for a in c.args]
            if "device" in c.attrs:
                args.append(f"device={self.value(c.attrs['device'], True)}")
            machine = {k: v for k, v in c.attrs.items() if k != "device"}
            if machine:
                args.append(f"attrs={self.call_attrs(machine)}")
            return f"{callee}({', '.join(args)})"
        return self.op_call(c)

    def call_attrs(self, attrs: dict[str, Any]) -> str:
        return "{" + ", ".join(f"{quote_double(k)}: {self.value(v, True)}" for k, v in attrs.items()) + "}"

    def op_name(self, name: str) -> str:
        parts = name.split(".")
        if keyword.iskeyword(parts[-1]):
            parts[-1] += "_"
        text = ".".join(parts)
        return text[len("pld."):] if name.startswith("pld.") else self.p(text)

    def kwarg(self, key: str, value: Any) -> str:
        if key == "mode" and isinstance(value, int) and not isinstance(value, bool):
            return quote_single(CastMode(value).name)
        if key == "atomic" and isinstance(value, int) and not isinstance(value, bool):
            return self.p(f"AtomicType.{AtomicType(value).name}")
        if key in ("set_pipe", "wait_pipe", "pipe") and isinstance(value, int) and not isinstance(value, bool):
            return self.p(f"PipeType.{PipeType(value).name}")
        return self.value(value, double_quote=False)

    def op_call(self, c: E.Call) -> str:
        name = c.op.name
        args = list(c.args)
        kwargs = dict(c.kwargs)
        if name == "tensor.add" and len(args) == 2 and isinstance(args[1], (E.ConstInt, E.ConstFloat)):
            name = "tensor.adds"
        if self.region_depth and name in _REGION_SPLIT_OPS:
            kwargs.pop("split", None)
        parts: list[str] = []
        if name in ("tile.full", "tensor.full") and len(args) == 2:
            value = args[1]
            value_text = (format_float(value.value) if isinstance(value, E.ConstFloat)
                          else str(value.value) if isinstance(value, E.ConstInt) else self.expr(value))
            parts = [self.expr(args[0])]
            parts += [f"{k}={self.kwarg(k, v)}" for k, v in kwargs.items()]
            parts.append(f"value={value_text}")
            return self._call_text(name, parts, c)
        if name in ("tile.reinterpret_view", "tensor.reinterpret_view"):
            parts = [self.expr(args[0])] + [f"{k}={self.kwarg(k, v)}" for k, v in kwargs.items()]
            if len(args) > 1:
                parts.append(f"shape={self.expr(args[1])}")
            return self._call_text(name, parts, c)
        positional = args
        extra: list[str] = []
        if name == "tile.gather_row" and len(args) >= 6:
            positional = args[:5]
            extra = [f"valid_shape={self.expr(args[5])}"]
        parts = [self.arg(name, i, a) for i, a in enumerate(positional)] + extra
        parts += [f"{k}={self.kwarg(k, v)}" for k, v in kwargs.items()]
        parts += [f"{k}=None" for k in _deferred_kwargs(name) if k not in kwargs]
        return self._call_text(name, parts, c)

    def arg(self, op_name: str, index: int, a: E.Expr) -> str:
        """A positional operand; a constant the op declares an enum member prints as that member
        (`pl.Mem.Vec` for tile.alloc's space: ArgSpec.enum)."""
        if isinstance(a, E.ConstInt):
            opdef = find_opdef(op_name)
            spec = opdef.args[index] if opdef is not None and index < len(opdef.args) else None
            if spec is not None and spec.enum is not None:
                try:
                    member = spec.enum(a.value)
                except ValueError:
                    return self.expr(a)
                return self.p(f"Mem.{member.name}") if isinstance(member, MemorySpace) else self.enum(member)
        return self.expr(a)

    def _call_text(self, name: str, parts: list[str], c: E.Call) -> str:
        """`op(parts..., attrs={...})`; the attrs alone when there are no other arguments
        (`pl.tile.get_block_idx(attrs={"k": True})`), so the text parses back."""
        if c.attrs:
            parts = [*parts, f"attrs={self.call_attrs(dict(c.attrs))}"]
        return f"{self.op_name(name)}({', '.join(parts)})"


def _deferred_kwargs(op_name: str) -> tuple[str, ...]:
    """Kwargs whose absence the DSL spells `name=None` (KwargSpec.deferred): a tile.load whose memory
    space is not chosen yet prints `target_memory=None` and re-parses as itself."""
    opdef = find_opdef(op_name)
    if opdef is None:
        return ()
    return tuple(k.name for k in opdef.kwargs if k.deferred)


@pauses_collector
def python_print(node: Any, prefix: str = "pl", concise: bool = False, format: bool = True,
                 explicit_layout: bool = False) -> str:
    """Print a Program, Function, Stmt, Expr or Type as `pl` text (docs/dsl.md, the printed form)."""
    printer = Printer(prefix, concise, explicit_layout)
    if isinstance(node, F.Program):
        return printer.program(node)
    if isinstance(node, F.Function):
        return printer.bare_function(node)
    if isinstance(node, T.Type):
        return printer.type(node)
    if isinstance(node, S.Stmt):
        order = VarOrder()
        order.walk(node)
        printer.names = assign_names(order.defs + order.uses)
        return printer.stmt(node, "")
    if isinstance(node, E.Expr):
        return printer.expr(node)
    if isinstance(node, T.TileView):  # on its own: fields that differ from the constructor defaults
        return printer.tile_view(node, T.TileType([], DataType.FP32))
    if isinstance(node, T.TensorView):
        return printer.tensor_view(node, T.TensorType([], DataType.FP32))
    if isinstance(node, T.MemRef):
        return printer.memref(node)
    raise TypeError(f"python_print cannot print {type(node).__name__}")


def python_print_type(t: T.Type, prefix: str = "pl", format: bool = True, explicit_layout: bool = False) -> str:
    return Printer(prefix, explicit_layout=explicit_layout).type(t)
