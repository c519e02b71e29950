"""Loops: `pl.range/parallel/unroll/pipeline` (simple and carried), `pl.while_`, and `pl.split_aiv` regions."""

from __future__ import annotations

import ast
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.declared_types import dims_compatible
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import ForKind, SplitMode
from pypto_core.ir.scalar_ops import loop_var_dtype
from pypto_core.ir.utils import make_body
from pypto_core.language.parser.context import Frame
from pypto_core.language.parser.errors import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError
from pypto_core.language.parser.stmts import StmtParser, is_pl_call

_KINDS = {"range": ForKind.Sequential, "parallel": ForKind.Parallel, "unroll": ForKind.Unroll,
          "pipeline": ForKind.Pipeline}
_REGION_FORBIDDEN = ("init_values", "chunk", "chunk_policy", "attrs", "step", "stage")


class LoopParser(StmtParser):
    def parse_for(self, node: ast.For) -> None:
        if node.orelse:
            self.fail(UnsupportedFeatureError, "for ... else is not supported", node)
        path = self.pl_path(node.iter.func) if isinstance(node.iter, ast.Call) else None
        if path in _KINDS:
            self.range_loop(node, _KINDS[path])
        elif path == "while_":
            self.while_loop(node)
        elif path == "split_aiv":
            self.split_aiv_region(node)
        else:
            self.syntax_error(f"a for loop must iterate over pl.range, pl.parallel, pl.unroll, pl.pipeline, "
                              f"pl.while_ or pl.split_aiv, not '{ast.unparse(node.iter)}'", node.iter)

    # -- counted loops -----------------------------------------------------------------------------------
    def range_loop(self, node: ast.For, kind: ForKind) -> None:
        call: ast.Call = node.iter  # type: ignore[assignment]
        if not 1 <= len(call.args) <= 3:
            self.syntax_error(f"pl.{_name(kind)} takes 1 to 3 positional bounds (stop | start, stop[, step])", call)
        bounds = [self.parse_scalar_expr(a, "a loop bound") for a in call.args]
        for b, a in zip(bounds, call.args):
            dtype = b.type.dtype  # type: ignore[attr-defined]
            if dtype.is_float() or dtype.is_bool():
                # Unchecked, pl.range(1e30) would reach ConvertToSSA as a float bound (docs/dsl.md, loops and carries).
                self.fail(ParserTypeError, f"a loop bound must be an integer, got '{ast.unparse(a)}' of type "
                                           f"{b.type}", a, hint="write an integer constant or an INDEX / INT scalar "
                                                                "(pl.cast(v, pl.INDEX) converts a value)")
        if len(bounds) == 1:
            start, stop, step = E.ConstInt(0, DataType.INDEX), bounds[0], E.ConstInt(1, DataType.INDEX)
        elif len(bounds) == 2:
            start, stop, step = bounds[0], bounds[1], E.ConstInt(1, DataType.INDEX)
        else:
            start, stop, step = bounds
        inits: list[E.Expr] = []
        attrs: dict[str, Any] = {}
        for kw in call.keywords:
            if kw.arg == "init_values" and kind is ForKind.Unroll:
                # docs/dsl.md, loops and carries: an unrolled loop is copied out, it carries nothing.
                self.syntax_error("pl.unroll does not accept 'init_values='", kw,
                                  hint="carry values with pl.range(..., init_values=...), or rebind an outer "
                                       "variable in the body of the pl.unroll loop")
            elif kw.arg == "init_values":
                inits = self._init_values(kw.value)
            elif kw.arg == "attrs":
                attrs.update(self._loop_attrs(kw.value))
            elif kw.arg == "stage" and kind is ForKind.Pipeline:
                stage = self.parse_value(kw.value)
                if not isinstance(stage, int) or isinstance(stage, bool):
                    self.syntax_error("stage= must be an integer", kw.value)
                attrs = {"pipeline_stages": stage, **attrs}
            else:
                self.syntax_error(f"pl.{_name(kind)} does not accept '{kw.arg}='", kw)
        if kind is ForKind.Unroll and not all(isinstance(b, E.ConstInt) for b in (start, stop, step)):
            self.syntax_error("pl.unroll needs constant bounds", call)
        loop_name, iter_names = self._range_target(node.target, bool(inits))
        if len(iter_names) != len(inits):
            self.syntax_error(f"the loop declares {len(iter_names)} carried name(s) but init_values has "
                              f"{len(inits)} value(s)", node.target)
        loop_var = E.Var(loop_name, T.ScalarType(loop_var_dtype(start, stop, step)), self.span(node.target))
        iter_args = [E.IterArg(n, v.type, v, self.span(node.target)) for n, v in zip(iter_names, inits)]
        frame = Frame("for", loop_kind=kind, carried=bool(inits))
        self.symbols[loop_name] = loop_var
        self.def_nodes[loop_name] = node.target
        self.loop_var_ids.add(id(loop_var))
        with self.frame(frame), self.loop_local({a.name_hint: a for a in iter_args}):
            body = self.parse_body(node.body)
        self.loop_var_ids.discard(id(loop_var))
        return_vars = self._loop_results(frame, iter_args, node)
        self.emit(S.ForStmt(loop_var, start, stop, step, iter_args, make_body(body, self.span(node)), return_vars,
                            self.span(node), kind, attrs))
        self.bind_results(frame, return_vars)

    def _range_target(self, target: ast.AST, carried: bool) -> tuple[str, list[str]]:
        if isinstance(target, ast.Name):
            if carried:
                self.syntax_error("with init_values the loop target must be 'i, (a, b)'", target)
            return target.id, []
        if (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
                and isinstance(target.elts[1], ast.Tuple)):
            names = []
            for elt in target.elts[1].elts:
                if not isinstance(elt, ast.Name):
                    self.syntax_error("carried loop names must be plain names", elt)
                names.append(elt.id)
            return target.elts[0].id, names
        self.syntax_error(f"unsupported loop target '{ast.unparse(target)}'; write 'i' or 'i, (a, b)'", target)

    def _init_values(self, node: ast.AST) -> list[E.Expr]:
        if not isinstance(node, (ast.Tuple, ast.List)):
            self.syntax_error("init_values= must be a tuple literal, e.g. init_values=(x,)", node)
        return [self.parse_expr(e, "an initial value") for e in node.elts]

    def _loop_attrs(self, node: ast.AST) -> dict[str, Any]:
        if not isinstance(node, ast.Dict):
            self.syntax_error("attrs= must be a dict literal", node)
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                self.syntax_error("attrs keys must be string literals", k or node)
            value = self.parse_value(v)
            if not isinstance(value, (int, float, bool, str)):
                self.syntax_error("loop attrs values must be int, float, bool or str literals", v)
            out[k.value] = value
        return out

    def _check_carry_types(self, frame: Frame, iter_args: list[E.IterArg]) -> None:
        """A carry keeps its type: a tensor / tile carry its kind, dtype and (compatible) dims, a scalar carry its
        kind -- yielding a float into an integer carry (or the reverse) is an error (left alone,
        `k = pl.yield_(-0.0)` into an INDEX counter made a while loop that never ends)."""
        for ia, (name, typ, tnode) in zip(iter_args, frame.yield_targets or ()):
            a, b = ia.type, typ
            if isinstance(a, T.ScalarType) != isinstance(b, T.ScalarType):
                # Unchecked, a tensor yielded into a carry started from a scalar would reach the tile lowering.
                self.fail(ParserTypeError, f"the loop carries '{ia.name_hint}' as {a} but yields a {b} value into "
                                           f"'{name}'", tnode,
                          hint="yield a value of the carry's kind (scalar or tensor / tile), or start the carry "
                               "from a value of the yielded type")
            if isinstance(a, (T.TensorType, T.TileType)) and isinstance(b, (T.TensorType, T.TileType)) and \
                    (type(a) is not type(b) or a.dtype is not b.dtype or not dims_compatible(a.shape, b.shape)):
                # The loop's result is the yielded value, or the init when it runs zero times: one type for both
                # (e.g. a [1, 32] value yielded into a [16, 32] carry).
                self.fail(ParserTypeError, f"the loop carries '{ia.name_hint}' as {a} but yields a {b} value into "
                                           f"'{name}'", tnode,
                          hint="yield a value of the carry's type, or start the carry from a value of the yielded type")
            if isinstance(a, T.ScalarType) and isinstance(b, T.ScalarType) and \
                    (a.dtype.is_float() != b.dtype.is_float() or a.dtype.is_bool() != b.dtype.is_bool()):
                self.fail(ParserTypeError, f"the loop carries '{ia.name_hint}' as {a.dtype.name} but yields a "
                                           f"{b.dtype.name} value into '{name}'", tnode,
                          hint=f"yield a {a.dtype.name} value (pl.cast(v, pl.{a.dtype.name})), or start the carry "
                               f"from a {b.dtype.name} init value")

    def _loop_results(self, frame: Frame, iter_args: list[E.IterArg], node: ast.For) -> list[E.Var]:
        if not iter_args:
            if frame.yield_targets:
                self.syntax_error("pl.yield_ in a loop without init_values has nothing to carry", node)
            return []
        if frame.yield_targets is None:
            # No yield at all: accepted; the results are named after the carried names.
            return [E.Var(f"{a.name_hint}_out", a.type, a.span) for a in iter_args]
        if len(frame.yield_targets) != len(iter_args):
            self.syntax_error(f"For loop has {len(iter_args)} iteration arguments but {len(frame.yield_targets)} "
                              f"return variables. They must match.", node)
        self._check_carry_types(frame, iter_args)
        return self.make_return_vars(frame)

    # -- while -----------------------------------------------------------------------------------------------
    def while_loop(self, node: ast.For) -> None:
        call: ast.Call = node.iter  # type: ignore[assignment]
        if call.args:
            self.syntax_error("pl.while_ takes no positional arguments; write pl.while_(init_values=(x,))", call)
        inits: list[E.Expr] | None = None
        for kw in call.keywords:
            if kw.arg != "init_values":
                self.syntax_error(f"pl.while_ does not accept '{kw.arg}='", kw)
            inits = self._init_values(kw.value)
        if inits is None:
            self.syntax_error("pl.while_ requires init_values=(...)", call)
        target = node.target
        if not isinstance(target, ast.Tuple) or not all(isinstance(e, ast.Name) for e in target.elts):
            self.syntax_error("the target of pl.while_ must be a tuple of names, e.g. 'for (x,) in pl.while_(...)'",
                              target)
        names = [e.id for e in target.elts]  # type: ignore[attr-defined]
        if len(names) != len(inits):
            self.syntax_error(f"the loop declares {len(names)} carried name(s) but init_values has "
                              f"{len(inits)} value(s)", target)
        iter_args = [E.IterArg(n, v.type, v, self.span(target)) for n, v in zip(names, inits)]
        if not node.body or not (isinstance(node.body[0], ast.Expr) and is_pl_call(self, node.body[0].value, "cond")):
            self.syntax_error("the first statement of a pl.while_ body must be pl.cond(<condition>)", node)
        frame = Frame("while", carried=True)
        with self.frame(frame), self.loop_local({a.name_hint: a for a in iter_args}):
            cond_call: ast.Call = node.body[0].value  # type: ignore[attr-defined]
            if len(cond_call.args) != 1:
                self.syntax_error("pl.cond takes one condition", cond_call)
            cond = self.parse_condition(cond_call.args[0])
            self.note_statement_end(node.body[0])
            body = self.parse_body(node.body[1:])
        if frame.yield_targets is None:
            return_vars = [E.Var(f"{a.name_hint}_out", a.type, a.span) for a in iter_args]
        elif len(frame.yield_targets) != len(iter_args):
            self.syntax_error(f"While loop has {len(iter_args)} iteration arguments but {len(frame.yield_targets)} "
                              f"return variables. They must match.", node)
        else:
            self._check_carry_types(frame, iter_args)
            return_vars = self.make_return_vars(frame)
        self.emit(S.WhileStmt(cond, iter_args, make_body(body, self.span(node)), return_vars, self.span(node)))
        self.bind_results(frame, return_vars)

    # -- split_aiv regions ----------------------------------------------------------------------------------
    def split_aiv_region(self, node: ast.For) -> None:
        call: ast.Call = node.iter  # type: ignore[assignment]
        if self.region() is not None:
            self.syntax_error("nested pl.split_aiv regions are not supported", node)
        count = self.parse_value(call.args[0]) if len(call.args) == 1 else None
        # `count != 2` on an IR expression would build a Ne node (always truthy): test the type first.
        if not (type(count) is int and count == 2):
            self.syntax_error("pl.split_aiv requires n == 2 (one iteration per AIV lane)", call)
        mode: SplitMode | None = None
        for kw in call.keywords:
            if kw.arg == "mode":
                value = self.parse_value(kw.value)
                if not isinstance(value, SplitMode):
                    self.syntax_error("mode= must be a pl.SplitMode member", kw.value)
                mode = value
            elif kw.arg in _REGION_FORBIDDEN or kw.arg == "optimizations":
                self.syntax_error(f"pl.split_aiv does not accept '{kw.arg}='", kw,
                                  hint="pl.split_aiv only takes the lane count and mode=" if kw.arg != "optimizations"
                                  else "put optimizations=[pl.cross_core_slot(...)] on the enclosing pl.at(...)")
            else:
                self.syntax_error(f"pl.split_aiv does not accept '{kw.arg}='", kw)
        if mode is None:
            self.syntax_error("pl.split_aiv requires mode=pl.SplitMode.<NONE|UP_DOWN|LEFT_RIGHT>", call)
        if not isinstance(node.target, ast.Name):
            self.syntax_error("pl.split_aiv takes a single loop variable (the AIV lane index)", node.target)
        lane = E.Var(node.target.id, T.ScalarType(DataType.INDEX), self.span(node.target))
        lane_def = S.AssignStmt(lane, self.op_call("tile.get_subblock_idx", [], {}, node.iter), self.span(node.target))
        self.symbols[lane.name_hint] = lane
        self.def_nodes[lane.name_hint] = node.target
        for frame in self.frames:
            if frame.kind == "incore":
                frame.split_aiv_seen = True
        in_place = self.in_incore()
        with self.frame(Frame("split_aiv", region_split=mode)):
            body = self.parse_body(node.body)
        region = S.SplitAivScopeStmt(mode, 2, "", body=make_body([lane_def, *body], self.span(node)),
                                     span=self.span(node))
        if in_place:
            self.emit(region)
        else:
            tagged = self.tagged_in([region])  # forward-sticky dump tags join the wrapper (docs/dsl.md, scopes: pl.at)
            self.emit(S.InCoreScopeStmt(SplitMode.NONE, "", body=region, span=self.span(node),
                                        attrs={"dump_vars": tagged} if tagged else None))

    def region_boundary(self, path: str, node: ast.Call) -> E.Expr:
        """`pl.aiv_shard(x)` / `pl.aic_gather(x)` (docs/dsl.md, splitting vector work)."""
        op = path.rpartition(".")[2]
        if len(node.args) != 1:
            self.syntax_error(f"pl.{op} takes exactly one positional argument", node)
        operand = self.parse_expr(node.args[0], f"the operand of pl.{op}")
        kwargs = {kw.arg: (kw, self.parse_value(kw.value)) for kw in node.keywords
                  if not (kw.arg == "attrs" and isinstance(kw.value, ast.Dict))}  # attrs: applied by call_dsl
        if isinstance(operand.type, T.DistributedTensorType):
            self.syntax_error(f"pl.{op} does not accept a distributed tensor", node.args[0])
        if "mode" in kwargs:
            self.syntax_error(f"pl.{op} does not take a mode; the enclosing pl.split_aiv region sets it",
                              kwargs["mode"][0])
        region = self.region()
        if region is not None:
            for key in ("split", "lane_stride"):
                if key in kwargs:
                    self.syntax_error(f"pl.{op} inside a pl.split_aiv region does not accept '{key}='; the region's "
                                      f"mode decides the split", kwargs[key][0])
            for key in kwargs:
                self.syntax_error(f"pl.{op} does not accept '{key}='", kwargs[key][0])
            space = "tensor" if isinstance(operand.type, T.TensorType) else "tile"
            split = int(region.region_split or 0)
            return self.call_dsl(f"{space}.{op}", node, [operand], {"split": split})
        if "split" not in kwargs:
            self.syntax_error(f"pl.{op} outside a pl.split_aiv region needs an explicit split=N; write it inside "
                              f"'for aiv_id in pl.split_aiv(2, mode=...)'", node)
        if isinstance(operand.type, T.TensorType):
            self.syntax_error(f"pl.{op} with an explicit split= is tile-only; a tensor operand must be inside a "
                              f"pl.split_aiv region", node.args[0])
        extra = {k: v for k, (_, v) in kwargs.items()}
        for key in extra:
            if key not in ("split", "lane_stride") or (key == "lane_stride" and op != "aiv_shard"):
                self.syntax_error(f"pl.{op} does not accept '{key}='", kwargs[key][0])
            if not isinstance(extra[key], int) or isinstance(extra[key], bool):
                self.syntax_error(f"{key}= must be an integer", kwargs[key][0])
        return self.call_dsl(f"tile.{op}", node, [operand], extra)


def _name(kind: ForKind) -> str:
    return {ForKind.Sequential: "range", ForKind.Parallel: "parallel", ForKind.Unroll: "unroll",
            ForKind.Pipeline: "pipeline"}[kind]


__all__ = ["LoopParser", "ParserSyntaxError"]
