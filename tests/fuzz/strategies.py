"""Hypothesis strategies that write valid `pl` program texts (a generator of pypto's own).

`programs()` draws a whole program text; `program_specs()` draws it together with facts about what it
holds (used by the campaign's coverage counters). The generator keeps a typed model of every value it
defines (shape, dtype, which block it lives in), so each op it writes is well typed and every window is in
bounds; values defined in a loop or if body are not used after it except through explicit carries
(`init_values` + `pl.yield_`), rebinding (ConvertToSSA builds the carry / phi) or if yields.

DSL coverage (each construct was first checked by hand to compile under the `default` pipeline):

* programs of 1-4 functions: `main` (Opaque), Opaque helpers with their own scopes that `main` calls
  (`h = self.helper(x)`, helpers calling earlier helpers), InCore functions with explicit tile code
  (`@pl.function(type=pl.FunctionType.InCore)`) called from `main` directly or from inside a scope;
* `with pl.at(level=pl.Level.CORE_GROUP)` scopes, with `name_hint=`, `optimizations=[pl.split(
  pl.SplitMode.UP_DOWN / LEFT_RIGHT)]` and `pl.cross_core_slot(slot_num=N)`, at the top level, inside
  `pl.range` / `pl.unroll` loops and inside if / else branches;
* loops: `pl.range(stop)`, `pl.range(start, stop)`, `pl.unroll`, `pl.parallel` over row blocks, carried
  loops with `init_values` and `x = pl.yield_(...)` (one or two carries), carries by rebinding an outer
  value, `pl.while_` with a `pl.cond` and two carries, loops inside scopes and scopes inside loops;
* if / else on scalar parameters and loop variables: merges by rebinding (one or both branches), the
  yield form (`r = pl.yield_(v)` in both branches), scopes in branches; an early `return` in an if branch
  of `main` (after a scope, or returning another value of a computed result's type);
* tensor ops: add / sub / mul / div / maximum (tensor-tensor and tensor-scalar), exp / neg / abs / sqrt,
  row_sum / row_max and row_expand_sub / mul / div, matmul (and matmul_acc over K blocks), cast,
  reshape, slice, assemble, full, nested calls as operands;
* tile code in InCore functions: `pl.load` (Vec and Mat), `pl.store`, `pl.tile.*` element-wise and scalar
  ops, `pl.tile.row_sum` / `row_max` with a `pl.tile.create` scratch tile, `pl.move` Mat -> Left / Right,
  `pl.matmul` into Acc, `pl.matmul_acc` in a carried K loop, Acc -> Vec moves, stores from Acc;
* `pl.split_aiv(2, mode=...)` regions of every mode: UP_DOWN / LEFT_RIGHT per-lane windows
  (`aiv_id * half`), full-width bodies, NONE task-parallel loops (`pl.range(aiv_id, n, 2)`), shards of
  a matmul result (`pl.aiv_shard`), gathers feeding a matmul (`pl.aic_gather`), tensor-level and
  tile-level bodies, regions under if, regions outside any scope (the parser wraps them); in a region
  with per-lane work every vector op computes on the lane's window or shard (a whole tensor
  there is rejected by LowerAutoVectorSplit, docs/passes/lower_auto_vector_split.md, the region path, so
  drawing one made ~4% of programs rejections);
* valid shapes (ragged tails): `pl.slice(x, [R, C], [0, 0], valid_shape=[v, C])` / `[R, v]` windows with a
  constant extent or a scalar parameter read at run time, in plain and `pl.split` scopes, element-wise work
  on them and an assemble; per-lane region windows with a narrower valid region (`pl.slice(x, win, off,
  valid_shape=...)`, the same constant on both lanes); InCore tile loads with a `valid_shape` operand;
* dtypes FP32, FP16, BF16 and INT32 / INT16 / INT8 / UINT8 (integer kernels use add / sub / mul / maximum / abs / neg);
  scalar parameters INDEX / INT32; dynamic dims (`M = pl.dynamic("M")`) on row counts, with loops over
  `M // 16` row blocks.

Not generated: Group / AIC / AIV functions written by hand and explicit cross-core pipe ops
(`pl.tpush_to_aiv`, ...): the pipeline writes those itself from the forms above, and hand-written
ones need a matched pipe protocol the generator does not model.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import strategies as st

Dim = int | str

FLOATS = ("FP32", "FP16", "BF16")
INTS = ("INT32", "INT16", "INT8", "UINT8")
ROWS = (16, 32, 64)
COLS = (16, 32, 64)
DYN = "M"
DYN_VALUE = 128  # the reference machine's default for a dynamic dim (interp.inputs.DEFAULT_DYNAMIC_DIM)


@dataclass(frozen=True)
class TT:
    """A tensor type the generator knows."""

    shape: tuple[Dim, ...]
    dtype: str

    def text(self) -> str:
        return f"pl.Tensor[[{', '.join(map(str, self.shape))}], pl.{self.dtype}]"

    @property
    def static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOATS

    def with_dtype(self, dtype: str) -> TT:
        return TT(self.shape, dtype)


@dataclass
class Value:
    name: str
    tt: TT


@dataclass
class Ctx:
    """Where the statement being written sits."""

    level: str = "orch"  # "orch" | "scope" | "region"
    region_mode: str = ""
    in_loop: bool = False
    depth: int = 0
    split_scope: bool = False
    # In an explicit split_aiv region: the per-lane value every operand is drawn from (a vector op there must
    # consume the lane's data, not a whole tensor: docs/passes/lower_auto_vector_split.md, the region path).
    lane: str = ""


@dataclass
class Spec:
    """A generated program and what it exercises."""

    text: str
    features: set[str] = field(default_factory=set)


class Writer:
    """Indented lines plus the typed environment of the function being written."""

    def __init__(self, indent: int = 2) -> None:
        self.lines: list[str] = []
        self.indent = indent
        self.frames: list[list[Value]] = [[]]

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    @contextmanager
    def block(self, header: str, leak: bool = False) -> Iterator[None]:
        """An indented body; its definitions are dropped after it unless `leak` (scopes)."""
        self.line(header)
        self.indent += 1
        self.frames.append([])
        start = len(self.lines)
        try:
            yield
        finally:
            if len(self.lines) == start:
                self.line("pass")
            frame = self.frames.pop()
            if leak:
                self.frames[-1].extend(frame)
            self.indent -= 1

    def define(self, name: str, tt: TT) -> None:
        for frame in self.frames:
            for v in frame:
                if v.name == name:
                    v.tt = tt
                    return
        self.frames[-1].append(Value(name, tt))

    def visible(self) -> list[Value]:
        return [v for frame in self.frames for v in frame]


def _div_shape(shape: tuple[Dim, ...], rows: int) -> tuple[Dim, ...]:
    return (rows, *shape[1:])


class Gen:
    """One program being drawn."""

    def __init__(self, choices: HypothesisChoices | RandomChoices) -> None:
        self.choices = choices
        self.counter = 0
        self.features: set[str] = set()
        self.dynamic = self.int(0, 7) == 0
        self.funcs: list[str] = []
        self.helpers: list[tuple[str, list[TT], TT]] = []  # Opaque helpers: name, params, return
        self.incore: list[tuple[str, list[TT], TT]] = []  # InCore: name, input params, out param
        self.w = Writer()
        self.params: list[tuple[str, str]] = []  # (name, annotation text)
        self.outs: list[tuple[str, TT]] = []
        self.scalar_params: dict[str, str] = {}
        self.called: set[str] = set()

    # -- small draws -------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def int(self, lo: int, hi: int) -> int:
        return self.choices.int(lo, hi)

    def pick(self, seq: Any) -> Any:
        return self.choices.pick(seq)

    def chance(self, p_in_8: int) -> bool:
        return self.int(0, 7) < p_in_8

    def dtype(self) -> str:
        return self.pick(FLOATS + FLOATS + ("FP32", "FP32") + INTS)

    def float_dtype(self) -> str:
        return self.pick(FLOATS + ("FP32",))

    def shape(self) -> tuple[Dim, ...]:
        rows: Dim = self.pick(ROWS)
        if self.dynamic and self.chance(3):
            rows = DYN
            self.features.add("dynamic-dim")
        return (rows, self.pick(COLS))

    def literal(self, tt: TT) -> str:
        if tt.is_float:
            return self.pick(("1.0", "2.0", "0.5", "-1.5", "3.0", "0.25"))
        return self.pick(("1", "2", "3") + (("-2",) if not tt.dtype.startswith("U") else ()))

    # -- parameters and outputs --------------------------------------------------------------
    def param(self, tt: TT, base: str = "x") -> str:
        name = self.fresh(base)
        self.params.append((name, tt.text()))
        self.w.frames[0].append(Value(name, tt))
        return name

    def scalar(self, dtype: str = "INT32") -> str:
        for name, dt in self.scalar_params.items():
            if dt == dtype and self.chance(6):
                return name
        name = self.fresh("n")
        self.params.append((name, f"pl.Scalar[pl.{dtype}]"))
        self.scalar_params[name] = dtype
        return name

    def out(self, tt: TT) -> str:
        for name, ott in self.outs:
            if ott == tt and self.chance(3):
                return name
        name = self.fresh("out")
        self.params.append((name, f"pl.Out[{tt.text()}]"))
        self.outs.append((name, tt))
        return name

    def value(self, want: TT | None = None, pred: Any = None) -> Value:
        """A visible value (of type `want` when given); a new parameter when none fits."""
        cands = [v for v in self.w.visible() if (want is None or v.tt == want) and (pred is None or pred(v.tt))]
        if cands and self.chance(6):
            return self.pick(cands)
        if want is None:
            tt = TT(self.shape(), self.dtype())
            while pred is not None and not pred(tt):
                tt = TT(self.shape(), self.dtype())
        else:
            tt = want
        return Value(self.param(tt), tt)

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, ctx: Ctx, want: TT | None = None, depth: int = 0) -> tuple[str, TT]:
        """A tensor expression; of exactly type `want` when given."""
        if want is not None:
            return self.expr_same(ctx, want, depth)
        kinds = ["unary", "binary", "scalar", "same"]
        if ctx.level != "region":
            kinds += ["row_reduce", "matmul", "cast", "reshape", "slice", "row_expand"]
        kind = self.pick(kinds)
        if kind == "row_reduce":
            v = self.value(pred=lambda t: t.is_float and t.shape[1] in COLS)
            self.features.add("row_reduce")
            op = self.pick(("row_sum", "row_max"))
            return f"pl.{op}({v.name})", TT((v.tt.shape[0], 1), v.tt.dtype)
        if kind == "row_expand":
            v = self.value(pred=lambda t: t.is_float)
            r = self.value(TT((v.tt.shape[0], 1), v.tt.dtype))
            self.features.add("row_expand")
            op = self.pick(("row_expand_sub", "row_expand_mul", "row_expand_div"))
            return f"pl.{op}({v.name}, {r.name})", v.tt
        if kind == "matmul":
            return self.matmul_expr(ctx)
        if kind == "cast":
            v = self.value()
            target = self.pick([d for d in FLOATS if d != v.tt.dtype])
            self.features.add("cast")
            return f"pl.cast({v.name}, pl.{target})", v.tt.with_dtype(target)
        if kind == "reshape":
            v = self.value(pred=lambda t: t.static)
            rows, cols = v.tt.shape
            assert isinstance(rows, int) and isinstance(cols, int)
            opts = [c for c in (16, 32, 64, 128) if (rows * cols) % c == 0 and c != cols and rows * cols // c >= 1]
            if not opts:
                return self.expr_same(ctx, v.tt, depth)
            c = self.pick(opts)
            self.features.add("reshape")
            return f"pl.reshape({v.name}, [{rows * cols // c}, {c}])", TT((rows * cols // c, c), v.tt.dtype)
        if kind == "slice":
            v = self.value(pred=lambda t: t.static and t.shape[0] >= 32)
            rows, cols = v.tt.shape
            assert isinstance(rows, int) and isinstance(cols, int)
            r = self.pick([x for x in (16, 32) if x < rows] or [rows])
            c = self.pick([x for x in (16, 32, cols) if x <= cols])
            orow = self.pick(range(0, rows - r + 1, 16))
            ocol = self.pick(range(0, cols - c + 1, 16))
            self.features.add("slice")
            return f"pl.slice({v.name}, [{r}, {c}], [{orow}, {ocol}])", TT((r, c), v.tt.dtype)
        if kind == "scalar":
            v = self.value()
            op = self.pick(("add", "sub", "mul", "maximum") + (("div",) if v.tt.is_float else ()))
            lit = self.literal(v.tt)
            self.features.add("scalar-op")
            # A float literal is FP32 and promotes a float tensor to FP32, except in tensor.subs.
            promotes = v.tt.is_float and op != "sub"
            return f"pl.{op}({v.name}, {lit})", v.tt.with_dtype("FP32") if promotes else v.tt
        tt = TT(self.shape(), self.dtype())
        return self.expr_same(ctx, tt, depth)

    def operand(self, ctx: Ctx, tt: TT, depth: int) -> str:
        if depth < 2 and self.chance(2):
            return self.expr_same(ctx, tt, depth + 1)[0]
        return self.leaf(ctx, tt)

    def leaf(self, ctx: Ctx, tt: TT) -> str:
        """A value of type `tt` to compute on: the region's per-lane value in an explicit region."""
        return ctx.lane if ctx.lane else self.value(tt).name

    def expr_same(self, ctx: Ctx, tt: TT, depth: int = 0) -> tuple[str, TT]:
        """A type-preserving expression of type `tt`."""
        unary = ("exp", "neg", "abs", "sqrt") if tt.is_float else ("neg", "abs")
        binary = ("add", "sub", "mul", "maximum") + (("div",) if tt.is_float else ())
        choice = self.int(0, 9)
        if choice < 3:
            op = self.pick(unary)
            self.features.add(f"unary-{op}")
            inner = self.operand(ctx, tt, depth)
            if op == "sqrt":
                inner = f"pl.abs({inner})"
            if op == "exp" and depth == 0:
                inner = f"pl.neg(pl.abs({inner}))"  # keeps exp finite in FP16 / BF16
            return f"pl.{op}({inner})", tt
        if choice < 8:
            op = self.pick(binary)
            self.features.add(f"binary-{op}")
            a, b = self.operand(ctx, tt, depth), self.operand(ctx, tt, depth)
            if op == "div":
                b = f"pl.add(pl.abs({b}), 1.0)" if tt.dtype == "FP32" else b
                if tt.dtype != "FP32":
                    return f"pl.mul({a}, {b})", tt
            return f"pl.{op}({a}, {b})", tt
        if choice < 9 and tt.dtype == "FP32":
            op = self.pick(("add", "mul", "sub", "maximum", "div"))
            self.features.add("scalar-op")
            return f"pl.{op}({self.operand(ctx, tt, depth)}, {self.literal(tt)})", tt
        if choice < 9 and tt.dtype in INTS:
            op = self.pick(("add", "mul", "sub", "maximum"))
            self.features.add("scalar-op")
            return f"pl.{op}({self.operand(ctx, tt, depth)}, {self.literal(tt)})", tt
        return self.leaf(ctx, tt), tt

    def matmul_expr(self, ctx: Ctx) -> tuple[str, TT]:
        dtype = self.float_dtype()
        m: Dim = self.pick(ROWS)
        if self.dynamic and self.chance(2):
            m = DYN
        k, n = self.pick((16, 32, 64)), self.pick((16, 32, 64))
        a = self.value(TT((m, k), dtype))
        b = self.value(TT((k, n), dtype))
        self.features.add("matmul")
        return f"pl.matmul({a.name}, {b.name})", TT((m, n), dtype)

    # -- statements -----------------------------------------------------------------------------
    def assign(self, ctx: Ctx, want: TT | None = None, base: str = "v") -> Value:
        text, tt = self.expr(ctx, want)
        name = self.fresh(base)
        self.w.line(f"{name} = {text}")
        self.w.define(name, tt)
        return Value(name, tt)

    def store_out(self, v: Value, ctx: Ctx) -> None:
        """`out = pl.assemble(out, v, [0, 0])` into an Out parameter of v's type."""
        o = self.out(v.tt)
        self.w.line(f"{o} = pl.assemble({o}, {v.name}, [0, 0])")

    def straight(self, ctx: Ctx, n: int) -> list[Value]:
        made = []
        for _ in range(n):
            made.append(self.assign(ctx))
        return made

    def scope_header(self, split_ok: bool = True) -> tuple[str, bool]:
        kw = ["level=pl.Level.CORE_GROUP"]
        opts = []
        split = False
        if split_ok and self.chance(2):
            opts.append(f"pl.split(pl.SplitMode.{self.pick(('UP_DOWN', 'LEFT_RIGHT'))})")
            self.features.add("pl.split")
            split = True
        if self.chance(1):
            opts.append(f"pl.cross_core_slot(slot_num={self.pick((2, 4))})")
            self.features.add("cross_core_slot")
        if opts:
            kw.append(f"optimizations=[{', '.join(opts)}]")
        if self.chance(2):
            kw.append(f'name_hint="{self.fresh("k")}"')
            self.features.add("name_hint")
        return f"with pl.at({', '.join(kw)}):", split

    def scope(self, ctx: Ctx) -> None:
        """A CORE_GROUP scope of tensor work whose last value goes to an Out parameter."""
        self.features.add("scope")
        if ctx.in_loop:
            self.features.add("scope-in-loop")
        if ctx.depth and not ctx.in_loop:
            self.features.add("scope-in-if")
        header, split = self.scope_header()
        inner = Ctx("scope", in_loop=ctx.in_loop, depth=ctx.depth + 1, split_scope=split)
        with self.w.block(header, leak=not ctx.in_loop and ctx.depth == 0):
            kind = self.int(0, 9)
            if kind <= 1 and ctx.depth < 2:
                self.loop_in_scope(inner)
            elif kind == 2 and ctx.depth < 2:
                self.carried_loop(inner)
            elif kind == 3 and ctx.depth < 2:
                self.if_stmt(inner)
            elif kind == 4 and not split:
                self.region(inner)
            elif kind == 5 and self.incore:
                self.call_incore(inner)
            elif kind == 6:
                self.ragged_window(inner)
            else:
                vals = self.straight(inner, self.int(1, 3))
                self.store_out(vals[-1], inner)

    def loop_in_scope(self, ctx: Ctx) -> None:
        """for i in pl.range(nb): blocks of rows of an input, assembled into an Out at the same rows."""
        self.features.add("loop-in-scope")
        self.block_loop(ctx)

    def block_loop(self, ctx: Ctx, scope_inside: bool = False) -> None:
        dtype = self.dtype()
        cols = self.pick(COLS)
        blk = self.pick((8, 16))
        dyn = self.dynamic and self.chance(3)
        if dyn:
            tt = TT((DYN, cols), dtype)
            trip = f"{DYN} // {blk}"
            self.features.add("dynamic-loop")
        else:
            nb = self.pick((2, 4))
            tt = TT((nb * blk, cols), dtype)
            trip = str(nb)
        x = self.value(tt)
        o = self.out(tt)
        loop = self.pick(("range", "range", "unroll", "parallel")) if not dyn else "range"
        self.features.add(f"loop-{loop}")
        i = self.fresh("i")
        with self.w.block(f"for {i} in pl.{loop}({trip}):"):
            body = Ctx("scope" if not scope_inside else ctx.level, in_loop=True, depth=ctx.depth + 1,
                       split_scope=ctx.split_scope)
            if scope_inside:
                header, split = self.scope_header()
                cm = self.w.block(header)
                body.level = "scope"
                body.split_scope = split
            else:
                cm = None
            if cm is not None:
                cm.__enter__()
            s = self.fresh("blk")
            self.w.line(f"{s} = pl.slice({x.name}, [{blk}, {cols}], [{i} * {blk}, 0])")
            bt = TT((blk, cols), dtype)
            self.w.define(s, bt)
            y, _ = self.expr_same(body, bt, 1)
            if self.chance(2) and not dyn and loop == "range":
                self.features.add("if-in-loop")
                r = self.fresh("r")
                with self.w.block(f"if {i} % 2 == 0:"):
                    self.w.line(f"{r} = pl.yield_({y})")
                with self.w.block("else:"):
                    self.w.line(f"{r} = pl.yield_({s})")
                y = r
            self.w.line(f"{o} = pl.assemble({o}, {y}, [{i} * {blk}, 0])")
            if cm is not None:
                cm.__exit__(None, None, None)

    def carried_loop(self, ctx: Ctx) -> None:
        """A loop carrying one or two values: init_values + yield, a rebinding carry, or pl.while_."""
        tt = TT(self.shape(), self.dtype())
        init = self.value(tt)
        form = self.pick(("init", "init2", "rebind", "while"))
        self.features.add(f"carry-{form}")
        i = self.fresh("i")
        trip = self.pick(("2", "3", "1, 4"))
        if form == "rebind":
            acc = self.fresh("acc")
            self.w.line(f"{acc} = {init.name}")
            self.w.define(acc, tt)
            with self.w.block(f"for {i} in pl.range({trip}):"):
                text, _ = self.expr_same(Ctx(ctx.level, in_loop=True, depth=ctx.depth + 1), tt, 1)
                self.w.line(f"{acc} = pl.add({acc}, {text})" if tt.dtype in ("FP32", "INT32")
                            else f"{acc} = pl.maximum({acc}, {text})")
            self.store_out(Value(acc, tt), ctx)
            return
        if form == "while":
            self.features.add("while")
            k, a, kk, res = self.fresh("k"), self.fresh("a"), self.fresh("kk"), self.fresh("res")
            with self.w.block(f"for ({k}, {a}) in pl.while_(init_values=(0, {init.name})):"):
                self.w.line(f"pl.cond({k} < {self.pick((1, 2, 3))})")
                self.w.define(a, tt)
                nxt = self.assign(Ctx(ctx.level, in_loop=True, depth=ctx.depth + 1), tt)
                self.w.line(f"{kk}, {res} = pl.yield_({k} + 1, {nxt.name})")
            self.w.define(res, tt)
            self.store_out(Value(res, tt), ctx)
            return
        if form == "init2":
            tt2 = TT(self.shape(), self.dtype())
            init2 = self.value(tt2)
            a, b, r1, r2 = self.fresh("a"), self.fresh("b"), self.fresh("r"), self.fresh("r")
            with self.w.block(f"for {i}, ({a}, {b}) in pl.range({trip}, init_values=({init.name}, {init2.name})):"):
                self.w.define(a, tt)
                self.w.define(b, tt2)
                inner = Ctx(ctx.level, in_loop=True, depth=ctx.depth + 1)
                n1 = self.assign(inner, tt)
                n2 = self.assign(inner, tt2)
                self.w.line(f"{r1}, {r2} = pl.yield_({n1.name}, {n2.name})")
            self.w.define(r1, tt)
            self.w.define(r2, tt2)
            self.store_out(Value(r1, tt), ctx)
            if self.chance(4):
                self.store_out(Value(r2, tt2), ctx)
            return
        a, r = self.fresh("a"), self.fresh("r")
        with self.w.block(f"for {i}, ({a},) in pl.range({trip}, init_values=({init.name},)):"):
            self.w.define(a, tt)
            nxt = self.assign(Ctx(ctx.level, in_loop=True, depth=ctx.depth + 1), tt)
            self.w.line(f"{r} = pl.yield_({nxt.name})")
        self.w.define(r, tt)
        self.store_out(Value(r, tt), ctx)

    def if_stmt(self, ctx: Ctx) -> None:
        """if / else on a scalar parameter: a rebinding merge, a yield merge, or scopes in the branches."""
        n = self.scalar(self.pick(("INT32", "INDEX")))
        cond = f"{n} {self.pick(('>', '<', '>=', '=='))} {self.pick((2, 4, 5))}"
        form = self.pick(("rebind", "rebind1", "yield") + (("scopes",) if ctx.level == "orch" else ()))
        self.features.add(f"if-{form}")
        inner = Ctx(ctx.level, in_loop=ctx.in_loop, depth=ctx.depth + 1)
        if form == "scopes":
            with self.w.block(f"if {cond}:"):
                self.scope(inner)
            if self.chance(5):
                with self.w.block("else:"):
                    self.scope(inner)
            return
        tt = TT(self.shape(), self.dtype())
        if form == "yield":
            r = self.fresh("r")
            with self.w.block(f"if {cond}:"):
                t1, _ = self.expr_same(inner, tt)
                self.w.line(f"{r} = pl.yield_({t1})")
            with self.w.block("else:"):
                t2, _ = self.expr_same(inner, tt)
                self.w.line(f"{r} = pl.yield_({t2})")
            self.w.define(r, tt)
            self.store_out(Value(r, tt), ctx)
            return
        base = self.value(tt)
        m = self.fresh("m")
        self.w.line(f"{m} = {base.name}")
        self.w.define(m, tt)
        with self.w.block(f"if {cond}:"):
            self.w.line(f"{m} = {self.expr_same(inner, tt)[0]}")
        if form == "rebind":
            with self.w.block("else:"):
                self.w.line(f"{m} = {self.expr_same(inner, tt)[0]}")
        self.store_out(Value(m, tt), ctx)

    # -- split_aiv regions ---------------------------------------------------------------------
    def region(self, ctx: Ctx) -> None:
        """A `pl.split_aiv` region inside the current scope (or at function level: the parser wraps it)."""
        forms = ("lane", "lane", "full", "none", "tile-lane", "tile-none", "ragged-lane")
        form = self.pick(forms + (("shard", "gather") if ctx.level == "scope" else ()))
        mode = {"none": "NONE", "tile-none": "NONE"}.get(form, self.pick(("UP_DOWN", "LEFT_RIGHT")))
        if form == "gather":
            mode = "UP_DOWN"
        self.features.add(f"region-{form}-{mode}")
        aiv = self.fresh("aiv")
        dtype = self.pick(("FP32", "FP32", "FP16", "BF16"))
        rows, cols = self.pick((32, 64)), self.pick((32, 64))
        tt = TT((rows, cols), dtype)
        header = f"for {aiv} in pl.split_aiv(2, mode=pl.SplitMode.{mode}):"
        body = Ctx("region", region_mode=mode, depth=ctx.depth + 1)
        half_r, half_c = rows // 2, cols // 2
        if mode == "UP_DOWN":
            win, off = f"[{half_r}, {cols}]", f"[{aiv} * {half_r}, 0]"
            ht = TT((half_r, cols), dtype)
        else:
            win, off = f"[{rows}, {half_c}]", f"[0, {aiv} * {half_c}]"
            ht = TT((rows, half_c), dtype)
        if form == "shard":
            k = self.pick((16, 32))
            a = self.value(TT((rows, k), dtype))
            b = self.value(TT((k, cols), dtype))
            c = self.fresh("c")
            self.w.line(f"{c} = pl.matmul({a.name}, {b.name})")
            o = self.out(tt)
            with self.w.block(header):
                h = self.fresh("h")
                self.w.line(f"{h} = pl.aiv_shard({c})")
                self.w.define(h, ht)
                y, _ = self.expr_same(replace(body, lane=h), ht, 1)
                self.w.line(f"{o} = pl.assemble({o}, {y}, {off})")
            return
        if form == "gather":
            k = self.pick((16, 32))
            a = self.value(TT((rows, cols), dtype))
            b = self.value(TT((cols, k), dtype))
            full = self.fresh("full")
            with self.w.block(header):
                s = self.fresh("s")
                self.w.line(f"{s} = pl.slice({a.name}, {win}, {off})")
                self.w.define(s, ht)
                y, _ = self.expr_same(replace(body, lane=s), ht, 1)
                self.w.line(f"{full} = pl.aic_gather({y})")
            self.w.define(full, tt)
            c = self.fresh("c")
            self.w.line(f"{c} = pl.matmul({full}, {b.name})")
            ct = TT((rows, k), dtype)
            self.w.define(c, ct)
            self.store_out(Value(c, ct), ctx)
            return
        x = self.value(tt)
        o = self.out(tt)
        with self.w.block(header):
            if form == "ragged-lane":
                # Each lane's window has a narrower valid region (the same constant extent on both lanes).
                s = self.fresh("s")
                if mode == "UP_DOWN":
                    valid = f"[{self.valid_extent(half_r, runtime_ok=False)}, {cols}]"
                else:
                    valid = f"[{rows}, {self.valid_extent(half_c, runtime_ok=False)}]"
                self.w.line(f"{s} = pl.slice({x.name}, {win}, {off}, valid_shape={valid})")
                self.w.line(f"{o} = pl.assemble({o}, {self.tensor_chain(s, ht)}, {off})")
            elif form == "lane":
                s = self.fresh("s")
                self.w.line(f"{s} = pl.slice({x.name}, {win}, {off})")
                self.w.define(s, ht)
                y, _ = self.expr_same(replace(body, lane=s), ht, 1)
                self.w.line(f"{o} = pl.assemble({o}, {y}, {off})")
            elif form == "full":
                y, _ = self.expr_same(body, tt, 1)
                self.w.line(f"{o} = pl.assemble({o}, {y}, [0, 0])")
            elif form == "tile-lane":
                t = self.fresh("t")
                self.w.line(f"{t} = pl.load({x.name}, {off}, {win})")
                self.w.line(f"{o} = pl.store({self.tile_chain(t, ht)}, {off}, {o})")
            else:
                blk = rows // 4
                i = self.fresh("i")
                with self.w.block(f"for {i} in pl.range({aiv}, 4, 2):"):
                    if form == "tile-none":
                        t = self.fresh("t")
                        self.w.line(f"{t} = pl.load({x.name}, [{i} * {blk}, 0], [{blk}, {cols}])")
                        chain = self.tile_chain(t, TT((blk, cols), dtype))
                        self.w.line(f"{o} = pl.store({chain}, [{i} * {blk}, 0], {o})")
                    else:
                        s = self.fresh("s")
                        self.w.line(f"{s} = pl.slice({x.name}, [{blk}, {cols}], [{i} * {blk}, 0])")
                        bt = TT((blk, cols), dtype)
                        self.w.define(s, bt)
                        y, _ = self.expr_same(body, bt, 1)
                        self.w.line(f"{o} = pl.assemble({o}, {y}, [{i} * {blk}, 0])")

    def valid_extent(self, box: int, runtime_ok: bool = True) -> str:
        """A valid extent narrower than `box`: a constant, or (in a scope) a scalar parameter (1..8 on the
        machine) read at run time."""
        if runtime_ok and self.chance(2):
            self.features.add("valid-runtime")
            return self.scalar("INDEX")
        self.features.add("valid-static")
        return str(self.pick([v for v in (1, 3, box // 2 - 1, box // 2, box // 2 + 1, box - 1) if 0 < v < box]))

    def ragged_window(self, ctx: Ctx) -> None:
        """A window of an input whose valid region is narrower than its box (`valid_shape=`, a ragged tail),
        element-wise work on it, assembled into an Out: the valid extents split scopes halve per lane."""
        dtype = self.pick(("FP32", "FP32", "FP16", "BF16", "INT32"))
        rows, cols = self.pick(ROWS), self.pick(COLS)
        tt = TT((rows, cols), dtype)
        x, o = self.value(tt), self.out(tt)
        valid = ([self.valid_extent(rows), str(cols)] if self.chance(5)
                 else [str(rows), self.valid_extent(cols)])
        self.features.add("ragged-window" + ("-split" if ctx.split_scope else ""))
        s = self.fresh("rag")
        self.w.line(f"{s} = pl.slice({x.name}, [{rows}, {cols}], [0, 0], valid_shape=[{', '.join(valid)}])")
        self.w.line(f"{o} = pl.assemble({o}, {self.tensor_chain(s, tt)}, [0, 0])")

    def tensor_chain(self, s: str, tt: TT) -> str:
        """Nested element-wise tensor ops over `s` alone (so its valid region is the only one involved)."""
        kinds = ("neg", "abs", "add", "mul") + (("exp", "sqrt") if tt.is_float else ())
        kinds += ("scalar",) if tt.dtype in ("FP32", "INT32") else ()
        return self._chain(s, tt, "pl.", kinds, self.int(1, 2))

    def tile_chain(self, t: str, tt: TT) -> str:
        """Nested tile ops over tile `t` keeping its type."""
        kinds = ("exp", "neg", "abs", "sqrt", "add", "mul", "sub", "maximum", "adds", "muls")
        return self._chain(t, tt, "pl.tile.", kinds, self.int(1, 3), features="tile-")

    def _chain(self, x: str, tt: TT, ns: str, kinds: tuple[str, ...], rounds: int, features: str = "") -> str:
        """`rounds` ops drawn from `kinds` (`ns` the op namespace), each applied to the previous result and `x`."""
        expr = x
        for _ in range(rounds):
            kind = self.pick(kinds)
            if kind == "exp":
                expr = f"{ns}exp({ns}neg({ns}abs({expr})))"  # keeps exp finite in FP16 / BF16
            elif kind == "sqrt":
                expr = f"{ns}sqrt({ns}abs({expr}))"
            elif kind in ("neg", "abs"):
                expr = f"{ns}{kind}({expr})"
            elif kind in ("adds", "muls"):
                expr = f"{ns}{kind}({expr}, {self.literal(tt)})"
            elif kind == "scalar":
                expr = f"{ns}{self.pick(('add', 'mul', 'maximum'))}({expr}, {self.literal(tt)})"
            else:
                expr = f"{ns}{kind}({expr}, {x})"
            if features:
                self.features.add(f"{features}{kind}")
        return expr

    # -- functions -------------------------------------------------------------------------------
    def incore_function(self) -> str:
        """An InCore function with explicit tile code: element-wise, a row reduction, a block loop or a
        cube matmul (Mat -> Left / Right -> Acc, optionally matmul_acc over K blocks)."""
        name = self.fresh("kern")
        kind = self.pick(("ew", "ew", "reduce", "loop", "matmul", "matmul_acc", "ragged"))
        self.features.add(f"incore-{kind}")
        lines: list[str] = []
        if kind in ("matmul", "matmul_acc"):
            dtype = self.float_dtype()
            m, n = self.pick((16, 32, 64)), self.pick((16, 32, 64))
            kb = self.pick((16, 32))
            nk = 2 if kind == "matmul_acc" else 1
            ta, tb = TT((m, kb * nk), dtype), TT((kb * nk, n), dtype)
            epilogue = self.chance(4)
            to = TT((m, n), "FP32")
            sig = [ta, tb]
            lines += [f"am = pl.load(a, [0, 0], [{m}, {kb}], target_memory=pl.Mem.Mat)",
                      f"bm = pl.load(b, [0, 0], [{kb}, {n}], target_memory=pl.Mem.Mat)",
                      "al = pl.move(am, target_memory=pl.Mem.Left)",
                      "br = pl.move(bm, target_memory=pl.Mem.Right)",
                      "acc0 = pl.matmul(al, br)"]
            res = "acc0"
            if kind == "matmul_acc":
                lines += ["for k, (acc,) in pl.range(1, 2, init_values=(acc0,)):",
                          f"    ak = pl.load(a, [0, k * {kb}], [{m}, {kb}], target_memory=pl.Mem.Mat)",
                          f"    bk = pl.load(b, [k * {kb}, 0], [{kb}, {n}], target_memory=pl.Mem.Mat)",
                          "    nxt = pl.matmul_acc(acc, pl.move(ak, target_memory=pl.Mem.Left), "
                          "pl.move(bk, target_memory=pl.Mem.Right))",
                          "    total = pl.yield_(nxt)"]
                res = "total"
            if epilogue:
                lines += [f"vec = pl.move({res}, target_memory=pl.Mem.Vec)",
                          f"res = {self.tile_chain('vec', to)}"]
                res = "res"
            params = ["a", "b"]
        elif kind == "reduce":
            dtype = "FP32"
            rows, cols = self.pick((16, 32)), self.pick((32, 64))
            sig = [TT((rows, cols), dtype)]
            to = TT((rows, 1), dtype)
            op = self.pick(("row_sum", "row_max"))
            lines += [f"t = pl.load(a, [0, 0], [{rows}, {cols}])",
                      f"tmp = pl.tile.create([{rows}, {cols}], dtype=pl.{dtype})",
                      f"res = pl.tile.{op}({self.tile_chain('t', sig[0]) if self.chance(3) else 't'}, tmp)"]
            res = "res"
            params = ["a"]
        elif kind == "ragged":
            # A load whose valid region is narrower than its box (valid_shape), tile work on it, the store.
            dtype = self.pick(("FP32", "FP16", "BF16"))
            rows, cols = self.pick(ROWS), self.pick(COLS)
            sig = [TT((rows, cols), dtype)]
            to = sig[0]
            valid = (f"[{self.valid_extent(rows, runtime_ok=False)}, {cols}]" if self.chance(5)
                     else f"[{rows}, {self.valid_extent(cols, runtime_ok=False)}]")
            lines += [f"t = pl.load(a, [0, 0], [{rows}, {cols}], {valid})", f"res = {self.tile_chain('t', sig[0])}"]
            res = "res"
            params = ["a"]
        elif kind == "loop":
            dtype = self.pick(("FP32", "FP16", "BF16"))
            blk, nb, cols = self.pick((8, 16)), self.pick((2, 4)), self.pick(COLS)
            sig = [TT((blk * nb, cols), dtype)]
            to = sig[0]
            lines += [f"for i in pl.range({nb}):",
                      f"    t = pl.load(a, [i * {blk}, 0], [{blk}, {cols}])",
                      f"    out = pl.store({self.tile_chain('t', TT((blk, cols), dtype))}, [i * {blk}, 0], out)"]
            res = ""
            params = ["a"]
        else:
            dtype = self.pick(("FP32", "FP16", "BF16", "INT32"))
            rows, cols = self.pick(ROWS), self.pick(COLS)
            sig = [TT((rows, cols), dtype)]
            to = sig[0]
            if dtype == "INT32":
                lines += [f"t = pl.load(a, [0, 0], [{rows}, {cols}])",
                          f"res = pl.tile.{self.pick(('add', 'mul', 'maximum'))}(pl.tile.abs(t), t)"]
            else:
                lines += [f"t = pl.load(a, [0, 0], [{rows}, {cols}])", f"res = {self.tile_chain('t', sig[0])}"]
            res = "res"
            params = ["a"]
        if res:
            lines.append(f"out = pl.store({res}, [0, 0], out)")
        lines.append("return out")
        head = ", ".join(f"{p}: {t.text()}" for p, t in zip(params, sig))
        text = ["    @pl.function(type=pl.FunctionType.InCore)",
                f"    def {name}(self, {head}, out: pl.Out[{to.text()}]) -> {to.text()}:"]
        text += [f"        {line}" for line in lines]
        self.funcs.append("\n".join(text))
        self.incore.append((name, sig, to))
        return name

    def call_incore(self, ctx: Ctx) -> None:
        name, sig, to = self.pick(self.incore)
        self.called.add(name)
        args = [self.value(t).name for t in sig]
        o = self.out(to)
        self.w.line(f"{o} = self.{name}({', '.join(args)}, {o})")
        self.features.add("call-incore-in-scope" if ctx.level == "scope" else "call-incore")

    def helper_function(self) -> None:
        """An Opaque helper with its own scope, returning a value computed there; may call earlier helpers."""
        saved = (self.w, self.params, self.outs, self.scalar_params)
        self.w, self.params, self.outs, self.scalar_params = Writer(), [], [], {}
        name = self.fresh("helper")
        tt = TT((self.pick(ROWS), self.pick(COLS)), self.pick(("FP32", "FP16", "BF16")))
        x = self.param(tt, "p")
        if self.helpers and self.chance(4):
            hname, hsig, hret = self.pick(self.helpers)
            args = [self.value(t).name for t in hsig]
            h = self.fresh("h")
            self.w.line(f"{h} = self.{hname}({', '.join(args)})")
            self.w.define(h, hret)
            self.called.add(hname)
            self.features.add("helper-calls-helper")
        header, _ = self.scope_header()
        ret = self.fresh("y")
        with self.w.block(header, leak=True):
            text, rt = self.expr(Ctx("scope"), None if self.chance(3) else tt)
            self.w.line(f"{ret} = {text}")
        self.w.line(f"return {ret}")
        del x
        sig = [_parse_tt(a) for _, a in self.params]
        head = ", ".join(f"{p}: {a}" for p, a in self.params)
        text_lines = ["    @pl.function", f"    def {name}(self, {head}) -> {rt.text()}:"] + self.w.lines
        self.funcs.append("\n".join(text_lines))
        self.helpers.append((name, sig, rt))
        self.w, self.params, self.outs, self.scalar_params = saved
        self.features.add("helper")

    def call_helper(self, hname: str, hsig: list[TT], hret: TT, ctx: Ctx) -> None:
        args = [self.value(t).name for t in hsig]
        h = self.fresh("h")
        self.w.line(f"{h} = self.{hname}({', '.join(args)})")
        self.w.define(h, hret)
        self.called.add(hname)
        self.features.add("call-helper")
        if self.chance(4):
            self.store_out(Value(h, hret), ctx)

    def main_statement(self, depth: int = 0) -> None:
        ctx = Ctx("orch", depth=depth)
        kind = self.int(0, 13)
        if kind <= 3:
            self.scope(ctx)
        elif kind == 4:
            self.block_loop(ctx, scope_inside=True)
            self.features.add("scope-in-loop")
        elif kind == 5:
            self.if_stmt(ctx)
        elif kind == 6:
            self.carried_loop(ctx)
            self.features.add("carry-at-orchestration")
        elif kind == 7 and self.helpers:
            hname, hsig, hret = self.pick(self.helpers)
            self.call_helper(hname, hsig, hret, Ctx("orch"))
        elif kind == 8 and self.incore:
            self.call_incore(ctx)
        elif kind == 9:
            header, split = self.scope_header(split_ok=False)
            with self.w.block(header, leak=True):
                self.region(Ctx("scope", depth=depth + 1))
        elif kind == 10:
            self.region(ctx)
            self.features.add("region-outside-scope")
        else:
            v = self.assign(ctx, base="o")
            self.features.add("orchestration-op")
            if self.chance(3):
                self.store_out(v, ctx)

    def early_return(self, rets: list[tuple[str, TT]]) -> None:
        """`if <scalar cond>: ... return ...` before the final return (`return` inside branches):
        the branch may run a scope first, and returns another value of the same type for a computed result."""
        n = self.scalar(self.pick(("INT32", "INDEX")))
        cond = f"{n} {self.pick(('>', '<', '=='))} {self.pick((2, 4, 5))}"
        outs = {name for name, _ in self.outs}
        inner = Ctx("orch", depth=1)
        with self.w.block(f"if {cond}:"):
            if self.chance(4):
                self.scope(inner)
                self.features.add("early-return-after-scope")
            values = []
            for name, tt in rets:
                if name not in outs and self.chance(4):
                    values.append(self.expr_same(inner, tt)[0])
                    self.features.add("early-return-other-value")
                else:
                    values.append(name)
            self.w.line(f"return {', '.join(values)}")
        self.features.add("early-return")

    def program(self) -> Spec:
        for _ in range(self.int(0, 2)):
            self.incore_function()
        for _ in range(self.int(0, 2)):
            self.helper_function()
        for _ in range(self.int(1, 4)):
            self.main_statement()
        for hname, hsig, hret in self.helpers:  # every function reachable from main: one entry
            if hname not in self.called:
                self.call_helper(hname, hsig, hret, Ctx("orch"))
        for name, sig, to in self.incore:
            if name not in self.called:
                self.call_incore(Ctx("orch"))
                if name not in self.called:
                    self.called.add(name)
                    args = [self.value(t).name for t in sig]
                    o = self.out(to)
                    self.w.line(f"{o} = self.{name}({', '.join(args)}, {o})")
        rets: list[tuple[str, TT]] = list(self.outs)
        if self.chance(2):
            mine = [v for v in self.w.frames[0] if v.name not in dict(self.params)]
            if mine:
                v = self.pick(mine)
                rets.append((v.name, v.tt))
                self.features.add("return-computed-value")
        if not rets:
            v = self.assign(Ctx("orch"))
            rets.append((v.name, v.tt))
        if len(rets) == 1:
            ret_ann = rets[0][1].text()
        else:
            ret_ann = f"tuple[{', '.join(t.text() for _, t in rets)}]"
        if self.chance(2):
            self.early_return(rets)
        self.w.line(f"return {', '.join(n for n, _ in rets)}")
        head = ", ".join(f"{p}: {a}" for p, a in self.params)
        main = ["    @pl.function", f"    def main(self, {head}) -> {ret_ann}:"] + self.w.lines
        dyn_re = re.compile(rf"\b{DYN}\b")
        uses_dyn = any(dyn_re.search(a) for _, a in self.params) or any(dyn_re.search(f) for f in self.funcs)
        out = ["import pypto.language as pl", ""]
        if uses_dyn:
            out += [f'{DYN} = pl.dynamic("{DYN}")', ""]
        out += ["", "@pl.program", f"class Gen{self.counter}:"]
        out.append("\n\n".join(self.funcs + ["\n".join(main)]))
        return Spec("\n".join(out) + "\n", self.features)


def _parse_tt(annotation: str) -> TT:
    """The TT of a `pl.Tensor[[..], pl.D]` annotation written by this module."""
    inner = annotation[len("pl.Tensor[["):]
    dims, rest = inner.split("]", 1)
    dtype = rest.split("pl.", 1)[1].rstrip("]")
    shape = tuple(int(d) if d.strip().lstrip("-").isdigit() else d.strip() for d in dims.split(","))
    return TT(shape, dtype)


class HypothesisChoices:
    """Choices drawn by hypothesis (shrinkable, derandomizable)."""

    def __init__(self, draw: Any) -> None:
        self._draw = draw

    def int(self, lo: int, hi: int) -> int:
        return int(self._draw(st.integers(lo, hi)))

    def pick(self, seq: Any) -> Any:
        return self._draw(st.sampled_from(list(seq)))


class RandomChoices:
    """Choices from a `random.Random` (the long campaign: no hypothesis bookkeeping)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self._rng.randint(lo, hi)

    def pick(self, seq: Any) -> Any:
        return self._rng.choice(list(seq))


def generate(rng: random.Random) -> Spec:
    """A program drawn with `rng` (same generator as `programs()`)."""
    return Gen(RandomChoices(rng)).program()


@st.composite
def program_specs(draw: Any) -> Spec:
    """A valid program text and the DSL features it exercises."""
    return Gen(HypothesisChoices(draw)).program()


def programs() -> st.SearchStrategy[str]:
    """Valid program texts across the DSL (module docstring)."""
    return program_specs().map(lambda s: s.text)
