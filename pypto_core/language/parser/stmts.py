"""Statements: assignments (with the annotation rules of docs/dsl.md, functions), yields, returns, if, while, directives."""

from __future__ import annotations

import ast
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.declared_types import dims_compatible, returned_types, shaped_value_differs
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import DISPATCHING_TYPES, CachePolicy
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.language.parser.context import Frame
from pypto_core.language.parser.env import MISSING, static_value
from pypto_core.language.parser.errors import (
    InvalidOperationError,
    ParserSyntaxError,
    ParserTypeError,
    SSAViolationError,
    UnsupportedFeatureError,
)
from pypto_core.language.parser.exprs import ExprParser
from pypto_core.language.parser.pyvalues import is_parse_time_constant
from pypto_core.ops.build import flat_valid, merged_2d


def is_pl_call(parser: Any, node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and parser.pl_path(node.func) in names


class StmtParser(ExprParser):
    # Implemented by the loop and scope parsers.
    def parse_for(self, node: ast.For) -> None:  # pragma: no cover - mixin contract
        raise NotImplementedError

    def parse_with(self, node: ast.With) -> None:  # pragma: no cover - mixin contract
        raise NotImplementedError

    # -- bodies ------------------------------------------------------------------------------------
    def parse_body(self, stmts: list[ast.stmt], frame: Frame | None = None) -> list[S.Stmt]:
        """The statements of a body, parsed inside `frame` when one is given."""
        out: list[S.Stmt] = []
        self.blocks.append(out)
        if frame is not None:
            self.frames.append(frame)
        try:
            for node in stmts:
                if out and isinstance(out[-1], S.YieldStmt):
                    self.syntax_error("pl.yield_ must be the last statement of its body; this statement follows "
                                      "it", node, hint="move the statement before the pl.yield_")
                if out and isinstance(out[-1], S.ReturnStmt) and not _is_yield_call(node):
                    # (a pl.yield_ may follow: the merge yield ConvertToSSA gives a branch that returns)
                    self.syntax_error("this statement follows a return in the same block, so it never runs",
                                      node, hint="move it before the return, or remove it")
                self.parse_stmt(node)
        finally:
            self.blocks.pop()
            if frame is not None:
                self.frames.pop()
        return out

    def parse_stmt(self, node: ast.stmt) -> None:
        self.note_statement_start(node)
        self.current_stmt = node  # where an unexpected failure is reported (function_parser)
        handler = self._stmt_handlers.get(type(node))
        if handler is None:  # `_stmt_<NodeClass>`, looked up once per node class and parse
            handler = getattr(type(self), "_stmt_" + type(node).__name__, None)
            if handler is None:
                self.fail(UnsupportedFeatureError, f"'{type(node).__name__}' statements are not supported in a "
                                                   f"pl function", node)
            self._stmt_handlers[type(node)] = handler
        comments, self.pending_comments = self.pending_comments, []
        block = self.blocks[-1]
        first = len(block)
        handler(self, node)
        self.current_stmt = node
        if comments:
            # Comments above a statement belong to the first IR statement it emits here (a loop or an if
            # is emitted after its body); a statement that emits nothing passes them on.
            if len(block) > first:
                block[first] = block[first].with_comments((*comments, *block[first].leading_comments))
            else:
                self.pending_comments = comments + self.pending_comments
        self.note_statement_end(node)

    def _stmt_Pass(self, node: ast.Pass) -> None:  # noqa: N802
        pass

    def _stmt_Return(self, node: ast.Return) -> None:  # noqa: N802
        scope = next((f.kind for f in reversed(self.frames) if f.kind in _SCOPE_KINDS), None)
        if scope is not None:
            # Outlining turns the scope body into a kernel; a return there would leave the function early
            # from inside the kernel, which no IR form expresses.
            self.syntax_error(f"'return' inside a {_SCOPE_KINDS[scope]} body is not supported", node,
                              hint="assign the value inside the scope and return it after the with block")
        if any(f.kind in ("for", "while") for f in self.frames):
            # No IR form leaves a function from inside a loop (the passes and the machine expect the
            # returned values after it).
            self.syntax_error("'return' inside a loop is not supported", node,
                              hint="carry the value out of the loop (pl.yield_ or rebinding) and return after it")
        values: list[E.Expr] = []
        if node.value is not None:
            elts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            values = [self.parse_expr(e, "a return value") for e in elts]
        self._check_returned(values, node)
        self.emit(S.ReturnStmt(values, self.span(node)))

    def _check_returned(self, values: list[E.Expr], node: ast.Return) -> None:
        """A `return` gives what the return annotation declares: as many values, each of its kind, and a
        scalar of its dtype. A tensor's or a tile's dtype and shape are not compared here (PyPTO's parser does
        not, nor does TypeChecked: docs/dsl.md, functions); the function's return types stay as annotated.
        A value of another kind, or a scalar of another dtype, is located here: the caller would read it as
        the declared scalar (a loop bound, an index) and the reference machine could not run it. A tensor of
        another dtype or shape is recorded: a method of the program that another one calls may not return
        one (its caller would compute on the declared type, the program as written on the returned value),
        which the program parser reports once every method is known."""
        declared = self.declared_returns
        if not declared:
            return
        types = returned_types(values, len(declared))
        if len(types) != len(declared):
            self.fail(ParserTypeError, f"this return gives {len(types)} value(s), but the function declares "
                                       f"{len(declared)}", node, hint="return what the annotation declares")
        for i, (got, want) in enumerate(zip(types, declared)):
            if isinstance(got, T.UnknownType) or isinstance(want, T.UnknownType):
                continue
            where = f"return value {i}" if len(types) > 1 else "the return value"
            at = node.value if node.value is not None else node
            if type(got) is not type(want):
                ok = False
            elif isinstance(got, T.ScalarType):
                ok = got.dtype is want.dtype or (got.dtype.is_index_like() and want.dtype.is_index_like())
            elif isinstance(got, (T.TensorType, T.TileType)):
                if shaped_value_differs(got, want):
                    self.program.return_mismatches.setdefault(
                        self.func_name, (self.span(at), f"{where} of '{self.func_name}' is a {got}, but the "
                                                        f"function declares {want}"))
                ok = True
            else:
                ok = True
            if not ok:
                self.fail(ParserTypeError, f"{where} is a {got}, but the function declares {want}", at,
                          hint="return a value of the declared kind (pl.cast converts a scalar's dtype), or fix the "
                               "annotation")

    def _stmt_Break(self, node: ast.Break) -> None:  # noqa: N802
        self._check_loop_control("break", node)
        self.emit(S.BreakStmt(self.span(node)))

    def _stmt_Continue(self, node: ast.Continue) -> None:  # noqa: N802
        self._check_loop_control("continue", node)
        self.emit(S.ContinueStmt(self.span(node)))

    def _check_loop_control(self, word: str, node: ast.AST) -> None:
        frame = self.innermost("for", "while", "split_aiv")
        if frame is None:
            self.fail(InvalidOperationError, f"'{word}' not supported outside a loop", node)
        if frame.kind == "split_aiv":
            self.fail(InvalidOperationError, f"'{word}' not supported inside a pl.split_aiv region", node,
                      hint="a region is not a loop: both lanes run its whole body")
        if frame.loop_kind is not None and frame.loop_kind.name in ("Parallel", "Unroll"):
            self.fail(InvalidOperationError, f"'{word}' not supported inside a pl.{frame.loop_kind.name.lower()} "
                                             f"loop", node)

    # -- expression statements -----------------------------------------------------------------------
    def _stmt_Expr(self, node: ast.Expr) -> None:  # noqa: N802
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            self.pending_comments.extend(docstring_lines(value.value))
            return
        if isinstance(value, ast.Call):
            path = self.pl_path(value.func)
            if path == "yield_":
                self.parse_yield(value, [], None, node)
                return
            if path == "func_attr":
                self.fail(ParserSyntaxError, "pl.func_attr(...) must come before every other statement of the "
                                             "function body", node)
            if path in ("static_print", "static_assert"):
                self.static_directive(path, value)
                return
            if path == "set_cache_policy":
                self.cache_policy(value)
                return
            if path == "dump_tag":
                self.dump_tag(value)
                return
            if path == "cond":
                self.fail(ParserSyntaxError, "pl.cond(...) must be the first statement of a pl.while_ body", node)
        expr = self.parse_expr(value, "an expression statement")
        self.emit(S.EvalStmt(expr, self.span(node)))

    def static_directive(self, path: str, call: ast.Call) -> None:
        """`pl.static_assert(cond, "msg")` / `pl.static_print(...)`: evaluated while parsing, no IR (docs/dsl.md)."""
        if path == "static_print":
            print(*(self.static_text(a) for a in call.args))
            return
        if not call.args:
            self.syntax_error("pl.static_assert needs a condition", call)
        cond = static_value(call.args[0], self.env) if not self.uses_dsl_names(call.args[0]) else MISSING
        if cond is MISSING:
            value = self.parse_value(call.args[0])
            cond = value.value if isinstance(value, E.ConstBool) else value
        if not isinstance(cond, (bool, int, float)) or isinstance(cond, E.Expr):
            self.syntax_error("pl.static_assert needs a condition known while parsing (closure constants only)",
                              call.args[0])
        if not cond:
            msg = self.static_text(call.args[1]) if len(call.args) > 1 else "static assertion failed"
            self.syntax_error(f"pl.static_assert failed: {msg}", call)

    def uses_dsl_names(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.symbols for n in ast.walk(node))

    def static_text(self, node: ast.AST) -> str:
        value = static_value(node, self.env) if not self.uses_dsl_names(node) else MISSING
        if value is MISSING:
            value = self.parse_value(node)
            if isinstance(value, E.Expr):
                from pypto_core.language.printer import python_print

                return python_print(value)
        return value if isinstance(value, str) else repr(value)

    def dump_tag(self, call: ast.Call) -> None:
        """`pl.dump_tag(t)`: parse-time, no IR; every later scope or dispatch of this function consuming `t` lists
        it in its `dump_vars` (docs/dsl.md, scopes: pl.at)."""
        if self.func_type not in DISPATCHING_TYPES:
            self.fail(ParserSyntaxError, f"pl.dump_tag marks tensors of host-side code; '{self.func_name}' is "
                                         f"{self.func_type.name}", call,
                      hint="tag the tensor in the orchestration that dispatches this kernel")
        if len(call.args) != 1 or call.keywords:
            self.syntax_error("pl.dump_tag takes one tensor variable: pl.dump_tag(t)", call)
        target = self.parse_value(call.args[0])
        if not isinstance(target, E.Var) or not isinstance(target.type, T.TensorType):
            self.fail(ParserTypeError, "pl.dump_tag applies to a tensor variable", call.args[0])
        if not any(target is v for v in self.dump_tagged):
            self.dump_tagged.append(target)

    def cache_policy(self, call: ast.Call) -> None:
        """`pl.set_cache_policy(t, pl.CachePolicy.BYPASS)` is recorded on the enclosing scope (docs/passes/outline_incore_scopes.md)."""
        if len(call.args) != 2:
            self.syntax_error("pl.set_cache_policy takes a tensor and a pl.CachePolicy", call)
        target = self.parse_value(call.args[0])
        if not isinstance(target, E.Var) or not isinstance(target.type, T.TensorType):
            self.fail(ParserTypeError, "pl.set_cache_policy applies to a tensor variable", call.args[0])
        policy = self.parse_value(call.args[1])
        if not isinstance(policy, CachePolicy):
            self.fail(ParserTypeError, "the policy must be a pl.CachePolicy member, e.g. pl.CachePolicy.BYPASS",
                      call.args[1])
        frame = self.innermost("incore", "hierarchy")
        if frame is None:
            self.syntax_error("pl.set_cache_policy must be inside a `with pl.at(...)` scope", call,
                              hint="the policy applies to the kernel the scope is outlined into")
        frame.cache_policy_vars.append((target, int(policy)))

    # -- assignments ------------------------------------------------------------------------------------
    def _stmt_Assign(self, node: ast.Assign) -> None:  # noqa: N802
        if len(node.targets) != 1:
            self.syntax_error("chained assignment 'a = b = ...' is not supported", node)
        self.assign(node.targets[0], node.value, None, node)

    def _stmt_AnnAssign(self, node: ast.AnnAssign) -> None:  # noqa: N802
        if node.value is None:
            self.syntax_error("a declaration needs a value: 'x: T = ...'", node)
        self.assign(node.target, node.value, node.annotation, node)

    def _stmt_AugAssign(self, node: ast.AugAssign) -> None:  # noqa: N802
        if not isinstance(node.target, ast.Name):
            self.fail(UnsupportedFeatureError, "augmented assignment needs a plain name", node)
        value = ast.BinOp(left=ast.Name(node.target.id, ast.Load()), op=node.op, right=node.value)
        ast.copy_location(value, node)
        ast.fix_missing_locations(value)
        self.assign(node.target, value, None, node)

    def assign(self, target: ast.AST, value_node: ast.AST, annotation: ast.AST | None, node: ast.stmt) -> None:
        func = value_node.func if isinstance(value_node, ast.Call) else None
        # Only an attribute `.yield_` can name pl.yield_: other calls skip the path lookup.
        if isinstance(func, ast.Attribute) and func.attr == "yield_" and self.pl_path(func) == "yield_":
            targets = target.elts if isinstance(target, ast.Tuple) else [target]
            self.parse_yield(value_node, targets, annotation, node)  # type: ignore[arg-type]
            return
        if isinstance(target, ast.Name):
            raw = self.parse_value(value_node)
            if annotation is None and is_parse_time_constant(raw):
                self.bind_constant(target.id, raw, node)  # `dt = pl.FP16`: no run-time value, no statement
                return
            value = self.to_expr(raw, value_node, "the assigned value")
            if annotation is None and isinstance(value, E.Var) and self.is_folded_dim(value_node, value):
                # `m = pl.tensor.dim(a, 0)` folded onto the pl.dynamic symbol: `m` names the symbol and the
                # binding disappears (docs/passes/outline_incore_scopes.md), as it does when the printed text is parsed again.
                self.symbols[target.id] = value  # type: ignore[assignment]
                self.dim_aliases.add(target.id)
                return
            self.bind(target.id, value, annotation, node)
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, value_node, node)
            return
        if isinstance(target, ast.Subscript):
            self.subscript_assign(target, value_node, node)
            return
        self.fail(UnsupportedFeatureError, f"cannot assign to '{ast.unparse(target)}'", node)

    def bind(self, name: str, value: E.Expr, annotation: ast.AST | None, node: ast.AST,
             emit: bool = True) -> E.Var:
        if annotation is not None:
            value, var_type = self.apply_annotation(value, self.parse_type(annotation), annotation)
        else:
            var_type = value.type
        self.forget_constant(name)
        existing = self.symbols.get(name)
        if isinstance(var_type, T.UnknownType) and existing is not None \
                and not isinstance(existing.type, T.UnknownType) and annotation is None:
            # A call of a later method (UnknownType, docs/dsl.md) rebinding a typed name: the name's type
            # supplies the call's, as an annotation would, so the printed text (callees first) parses back
            # to the same IR.
            value, var_type = _retyped(value, existing.type), existing.type
        if name in self.dim_aliases:  # a name for a dynamic dim: a new value gets a Var of its own
            self.dim_aliases.discard(name)
            existing = None
        span = self.span(node)
        if existing is not None and id(existing) in self.loop_var_ids and var_type != existing.type:
            self.fail(ParserTypeError, f"the loop variable '{name}' is {existing.type}; assigning a value of type "
                                       f"{var_type} inside its loop would change its type", node,
                      hint=f"bind the new value to another name (e.g. '{name}2')")
        if existing is not None:
            if self.strict_ssa:
                self.fail(SSAViolationError, f"variable '{name}' is assigned twice (strict SSA)", node,
                          hint="use a new name for the new value", previous_span=self.span(self.def_nodes.get(name)))
            if existing.type is var_type or types_match(existing.type, var_type):
                var = existing
            elif any(name in names for names in self.other_branch_names):
                var = E.Var(name, var_type, span)
                self.symbols[name] = var
                self.def_nodes[name] = node
            else:
                self.fail(ParserTypeError, f"Cannot reassign '{name}' of type {existing.type} with a value of "
                                           f"type {var_type}", node, hint="use a new name for a value of another type")
        else:
            var = E.Var(name, var_type, span)
            if isinstance(var_type, T.PtrType):
                # The allocation MemRefs name (pl.MemRef("x", ...) in a parameter type): one Ptr per name.
                var = self.ptr_var(name)
            self.symbols[name] = var
            self.def_nodes[name] = node
        if emit:
            self.emit(S.AssignStmt(var, value, span))
        return var

    def apply_annotation(self, value: E.Expr, ann: T.Type, node: ast.AST, yielded: bool = False
                         ) -> tuple[E.Expr, T.Type]:
        """Check an assignment annotation against the value; let it add information (docs/dsl.md, functions).

        `yielded`: the annotation of a `pl.yield_` target, whose memory space is taken as written even when
        the yielded value is in another one (PyPTO's if-phi rule, docs/dsl.md, if and yield)."""
        inferred = value.type
        if isinstance(inferred, T.UnknownType):
            return _retyped(value, ann), ann
        if isinstance(ann, T.UnknownType):
            # The printer writes `pl.UnknownType` for a call whose callee was parsed later; keep it unknown
            # so the re-parsed program equals the printed one even though the callee now comes first.
            return _retyped(value, ann), ann
        if isinstance(ann, T.TileType) and isinstance(inferred, T.TileType):
            flattened = self._flattened_annotation(ann, inferred, node)
            if flattened is not None:
                return _retyped(value, flattened), flattened
            self._check_same(ann.dtype is inferred.dtype and dims_compatible(ann.shape, inferred.shape),
                             ann, inferred, node)
            if ann.memory_space is not None and inferred.memory_space is not None and \
                    ann.memory_space is not inferred.memory_space and not yielded and \
                    _space_is_stated(value):
                # Unchecked, `t: pl.Tile[..., pl.Mem.Left] = pl.tile.load(..., target_memory=pl.Mem.Vec)` would
                # take the annotation's space, and the passes and the machine would each read a different one.
                self.fail(ParserTypeError, f"the annotation places the tile in {ann.memory_space.name}, but the value "
                                           f"is in {inferred.memory_space.name}", node,
                          hint=f"write pl.Mem.{inferred.memory_space.name} in the annotation, or change where the op "
                               f"puts its result (target_memory=)")
            result = T.TileType(ann.shape, ann.dtype, ann.memref or inferred.memref,
                                ann.tile_view if ann.tile_view is not None else inferred.tile_view,
                                ann.memory_space if ann.memory_space is not None else inferred.memory_space)
            return (_retyped(value, result) if not structural_equal(result, inferred) else value), result
        if isinstance(ann, T.TensorType) and isinstance(inferred, T.TensorType):
            # A static annotation on a value of dynamic shape (`[N, M]`) is a claim that cannot be checked
            # while parsing: accepted, and the value keeps its type.
            self._check_same(ann.dtype is inferred.dtype and dims_compatible(ann.shape, inferred.shape),
                             ann, inferred, node)
            if ann.memref is not None or ann.tensor_view is not None:
                return _retyped(value, ann), ann
            return value, inferred
        if isinstance(ann, T.ScalarType) and isinstance(inferred, T.ScalarType):
            if inferred.dtype is DataType.INDEX and ann.dtype is not DataType.INDEX:
                if isinstance(value, E.ConstInt):
                    return E.ConstInt(value.value, ann.dtype, value.span), ann
                return _retyped(value, ann), ann
            self._check_same(ann.dtype is inferred.dtype or (ann.dtype.is_index_like() and inferred.dtype.is_index_like()),
                             ann, inferred, node)
            return value, inferred
        self._check_same(structural_equal(ann, inferred), ann, inferred, node)
        return value, inferred

    def _flattened_annotation(self, ann: T.TileType, inferred: T.TileType, node: ast.AST) -> T.TileType | None:
        """FlattenTileNdTo2D's form: a 2-D annotation on a value whose operands are N-D (`x: pl.Tile[[6, 64],
        ...] = pl.tile.load(x, [0, 0, 0], [2, 3, 64], [2, 3, 64])`) types it as its leading dims merged
        (docs/passes/flatten_tile_nd_to_2d.md). None when the annotation is no such flattening."""
        if not (len(ann.shape) == 2 < len(inferred.shape) and ann.dtype is inferred.dtype
                and dims_compatible(ann.shape, merged_2d(inferred.shape))):
            return None
        if ann.memory_space is not None and inferred.memory_space is not None \
                and ann.memory_space is not inferred.memory_space:
            return None
        view = ann.tile_view
        if view is None and inferred.tile_view is not None:
            try:
                valid = flat_valid(inferred.shape, inferred.valid_shape)
            except ValueError as exc:
                self.fail(ParserTypeError, f"the 2-D annotation {ann} flattens a tile whose {exc}", node,
                          hint="write the 2-D valid_shape in the annotation's pl.TileView")
            view = inferred.tile_view.with_fields(valid_shape=valid)
        return T.TileType(ann.shape, ann.dtype, ann.memref or inferred.memref, view,
                          ann.memory_space if ann.memory_space is not None else inferred.memory_space)

    def _check_same(self, ok: bool, ann: T.Type, inferred: T.Type, node: ast.AST) -> None:
        if not ok:
            self.fail(ParserTypeError, f"the annotation {ann} does not match the value's type {inferred}", node,
                      hint="fix the annotation, or drop it to take the inferred type")

    def unpack(self, target: ast.Tuple | ast.List, value_node: ast.AST, node: ast.stmt) -> None:
        """`a, b = call` -> `_tuple_tmp = call; a = _tuple_tmp[0]; b = _tuple_tmp[1]`."""
        names = []
        for elt in target.elts:
            if not isinstance(elt, ast.Name):
                self.fail(UnsupportedFeatureError, "tuple unpacking needs plain names", elt)
            names.append(elt.id)
        value = self.parse_expr(value_node, "the unpacked value")
        if not isinstance(value.type, T.TupleType):
            self.fail(ParserTypeError, f"cannot unpack a value of type {value.type} into {len(names)} names", node,
                      hint="annotate the callee's return as tuple[...] or call a function parsed earlier")
        if len(value.type.types) != len(names):
            self.fail(ParserTypeError, f"cannot unpack a {len(value.type.types)}-tuple into {len(names)} names", node)
        tmp = E.Var("_tuple_tmp", value.type, self.span(node))
        self.emit(S.AssignStmt(tmp, value, self.span(node)))
        for i, name in enumerate(names):
            self.bind(name, E.TupleGetItemExpr(tmp, i, self.span(node)), None, node)

    def subscript_assign(self, target: ast.Subscript, value_node: ast.AST, node: ast.stmt) -> None:
        """`dst[0:M, 0:N] = src` / `dst[:] = src` -> `dst = pl.assemble(dst, src, offsets)` (non-strict only,
        docs/dsl.md); a plain index is an offset too."""
        if self.strict_ssa:
            self.fail(SSAViolationError, "subscript assignment rebinds its target; it is not allowed in strict SSA",
                      node)
        if not isinstance(target.value, ast.Name):
            self.fail(UnsupportedFeatureError, "subscript assignment needs a plain name as target", target)
        dst = self.parse_expr(target.value)
        if not isinstance(dst.type, (T.TensorType, T.TileType)):
            self.fail(ParserTypeError, f"only a tensor or a tile can be assigned into, '{target.value.id}' is "
                                       f"{dst.type}", target.value)
        window = self.window(dst, target)
        src = self.parse_expr(value_node, "the assigned value")
        self.check_window_fits(window, src, target)
        result = self.call_dsl("assemble", node, [dst, src, window.offsets], {})  # type: ignore[arg-type]
        self.bind(target.value.id, result, None, node)

    # -- yields -------------------------------------------------------------------------------------------
    def parse_yield(self, call: ast.Call, targets: list[ast.AST], annotation: ast.AST | None, node: ast.stmt) -> None:
        frame = self.innermost("for", "while", "if")
        if frame is None:
            self.syntax_error("pl.yield_ is only allowed inside a loop or an if body", node)
        if call.keywords:
            self.syntax_error("pl.yield_ takes positional values only", call)
        if frame.kind in ("for", "while"):
            # Lanes fork in a region: its body has no one value per loop iteration to yield; a pl.at scope's
            # body becomes a kernel, which cannot give its caller's loop the next values.
            at = next(i for i, f in enumerate(self.frames) if f is frame)  # by identity: frames compare equal
            inner = next((f.kind for f in self.frames[at + 1:] if f.kind in _SCOPE_KINDS), None)
            if inner is not None:
                self.syntax_error(f"pl.yield_ gives the loop's next values, but it is inside a {_SCOPE_KINDS[inner]}"
                                  f" in the loop body; compute the values there and write the pl.yield_ after the "
                                  f"{_SCOPE_KINDS[inner].split()[-1]}, as the last statement of the loop body", node)
        values = [self.parse_expr(a, "a yielded value") for a in call.args]
        if frame.kind in ("for", "while") and frame.carried and not targets:
            self.syntax_error("a loop with init_values requires an assignment-form pl.yield_: "
                              "'x_next = pl.yield_(value)'", node)
        if targets:
            if len(targets) != len(values):
                self.syntax_error(f"pl.yield_ gives {len(values)} value(s) to {len(targets)} name(s)", node)
            ann_type = self.parse_type(annotation) if annotation is not None else None
            if ann_type is not None and len(values) == 1:
                # The yielded value must fit it, but for its memory space: the annotation's is taken as written.
                self.apply_annotation(values[0], ann_type, annotation, yielded=True)
            entries = []
            for t, v in zip(targets, values):
                if not isinstance(t, ast.Name):
                    self.fail(UnsupportedFeatureError, "pl.yield_ targets must be plain names", t)
                entries.append((t.id, ann_type if ann_type is not None else v.type, t))
            if frame.yield_targets is None:
                frame.yield_targets = entries
            elif [e[0] for e in frame.yield_targets] != [e[0] for e in entries]:
                self.syntax_error("every branch must yield into the same names, in the same order", node)
            else:
                frame.yield_targets = self._merged_targets(frame.yield_targets, [e[1] for e in entries], node)
        if not targets:
            frame.bare_yields.append((values, node))
        frame.yield_seen = True
        self.emit(S.YieldStmt(values, self.span(node)))

    def make_return_vars(self, frame: Frame) -> list[E.Var]:
        out = []
        for name, typ, node in frame.yield_targets or []:
            out.append(E.Var(name, typ, self.span(node)))
        return out

    def bind_results(self, frame: Frame, return_vars: list[E.Var]) -> None:
        for (name, _, node), var in zip(frame.yield_targets or [], return_vars):
            if self.strict_ssa and name in self.symbols:
                self.fail(SSAViolationError, f"variable '{name}' is assigned twice (strict SSA)", node)
            self.symbols[name] = var
            self.def_nodes[name] = node

    # -- if / while -----------------------------------------------------------------------------------------
    def _stmt_If(self, node: ast.If) -> None:  # noqa: N802
        cond = self.parse_condition(node.test)
        frame = Frame("if")
        with self.frame(frame):
            before = set(self.symbols)
            then_stmts = self.parse_body(node.body)
            # Names the then-branch introduced are not on the else path: there a value of another type
            # may take the name (a pass's lane-1 replay does, docs/passes/split_vector_kernel.md) instead of being a bad reassignment.
            self.other_branch_names.append({n for n in self.symbols if n not in before})
            try:
                else_stmts = self.parse_body(node.orelse) if node.orelse else None
            finally:
                self.other_branch_names.pop()
        self._check_bare_yields(frame)
        return_vars = self.make_return_vars(frame)
        if return_vars and else_stmts is None:
            self.syntax_error("an if that yields values needs an else branch that yields them too", node)
        if return_vars:
            for branch, stmts_ in (("then", then_stmts), ("else", else_stmts or [])):
                if not _ends_with_yield(stmts_):
                    where = node.body[-1] if branch == "then" else node.orelse[-1]
                    self.syntax_error(f"the {branch}-branch of this if does not end with pl.yield_ of its "
                                      f"{len(return_vars)} value(s), but the other branch yields them", where,
                                      hint="end both branches with pl.yield_(...) into the same names")
        then_body = make_body(then_stmts, self.span(node))
        else_body = make_body(else_stmts, self.span(node)) if else_stmts is not None else None
        self.emit(S.IfStmt(cond, then_body, else_body, return_vars, self.span(node)))
        self.bind_results(frame, return_vars)

    def _merged_targets(self, targets: list[tuple[str, Any, Any]], types: list[T.Type], node: ast.AST
                        ) -> list[tuple[str, Any, Any]]:
        """The merged names' types once another branch yields `types` into them: the first branch's (PyPTO's
        if-phi rule: the then branch's annotation, else the type of its yielded value). A value that differs
        from it only in its memory space is accepted (the branches may yield tiles of different spaces), and
        a placed and an unplaced tile merge to the placed type (_placed_merge); another kind, dtype or shape is
        the program's error."""
        merged = []
        for (name, first, where), this in zip(targets, types):
            if types_match(first, this) and not _kind_differs(first, this):
                merged.append((name, first, where))
                continue
            placed = _placed_merge(first, this)
            if placed is None and not _same_but_space(first, this):
                self.fail(ParserTypeError, f"this branch yields {this} for '{name}', but the other branch yields "
                                           f"{first}", node, hint="yield values of one type into a merged name")
            merged.append((name, placed if placed is not None else first, where))
        return merged

    def _check_bare_yields(self, frame: Frame) -> None:
        """A branch's bare pl.yield_ (PyPTO's printed form of a merge yield inside a region; docs/dsl.md, if and
        yield) gives the names the other branch's yield binds: as many values, of their types (unchecked, one of
        another shape would print under the other branch's annotation and not parse back)."""
        if frame.yield_targets is None:
            for values, node in frame.bare_yields:
                if values:  # unchecked, the if would get no results while its branch yields them (SSAForm fails)
                    self.syntax_error(f"this pl.yield_ gives {len(values)} value(s), but no branch of the if names "
                                      f"its results", node,
                                      hint="bind them in every branch (`a, b = pl.yield_(...)`), or, to carry a "
                                           "loop's values, write the loop's pl.yield_ as its body's last statement")
            return
        for values, node in frame.bare_yields:
            if len(values) != len(frame.yield_targets):
                self.syntax_error(f"this pl.yield_ gives {len(values)} value(s), but the other branch yields "
                                  f"{len(frame.yield_targets)} into {', '.join(n for n, _, _ in frame.yield_targets)}",
                                  node)
            frame.yield_targets = self._merged_targets(frame.yield_targets, [v.type for v in values], node)

    def parse_condition(self, node: ast.AST) -> E.Expr:
        cond = self.parse_value(node)
        if isinstance(cond, bool):
            cond = E.ConstBool(cond, self.span(node))
        cond = self.to_expr(cond, node, "a condition")
        if not (isinstance(cond.type, T.ScalarType) and cond.type.dtype is DataType.BOOL):
            self.fail(ParserTypeError, f"a condition must be a BOOL scalar, got {cond.type}", node,
                      hint="compare explicitly, e.g. 'if n > 0:'")
        return cond

    def _stmt_While(self, node: ast.While) -> None:  # noqa: N802
        if node.orelse:
            self.fail(UnsupportedFeatureError, "while ... else is not supported", node)
        cond = self.parse_condition(node.test)
        body = self.parse_body(node.body, Frame("while"))
        self.emit(S.WhileStmt(cond, [], make_body(body, self.span(node)), [], self.span(node)))

    def _stmt_For(self, node: ast.For) -> None:  # noqa: N802
        self.parse_for(node)

    def _stmt_With(self, node: ast.With) -> None:  # noqa: N802
        self.parse_with(node)


def docstring_lines(text: str) -> list[str]:
    """A bare string statement as comment lines (blank lines dropped)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def types_match(old: T.Type, new: T.Type) -> bool:
    if old is new:
        return True
    if type(old) is T.TensorType and type(new) is T.TensorType and _plain_dims_equal(old, new):
        return True  # the common re-assignment: checked without a structural walk
    if isinstance(old, T.ScalarType) and isinstance(new, T.ScalarType):
        return old.dtype is new.dtype or (old.dtype.is_index_like() and new.dtype.is_index_like())
    if isinstance(old, T.UnknownType) or isinstance(new, T.UnknownType):
        return True
    return structural_equal(old, new)


def _placed_merge(a: T.Type, b: T.Type) -> T.Type | None:
    """Two tile types equal but for a memory space only one of them has (a tile.load whose space
    InferTileMemorySpace decides, merged with a Vec result): the merged name takes the known space, as a
    single-value yield's annotation gives it (ConvertTensorToTileOps' branch merges print that way, and a
    tuple yield prints without an annotation). PyPTO's parser would take the then branch's type here."""
    if not (isinstance(a, T.TileType) and isinstance(b, T.TileType)):
        return None
    if (a.memory_space is None) == (b.memory_space is None):
        return None
    placed, unplaced = (a, b) if b.memory_space is None else (b, a)
    same = T.TileType(unplaced.shape, unplaced.dtype, unplaced.memref, unplaced.tile_view, placed.memory_space)
    return placed if structural_equal(same, placed) else None


def _same_but_space(a: T.Type, b: T.Type) -> bool:
    """Two tile types equal but for their memory spaces (either may have none)."""
    if not (isinstance(a, T.TileType) and isinstance(b, T.TileType)):
        return False
    return structural_equal(T.TileType(b.shape, b.dtype, b.memref, b.tile_view, a.memory_space), a)


def _plain_dims_equal(a: T.TensorType, b: T.TensorType) -> bool:
    """Same dtype and the same constant dims, no view or memref on either side."""
    if a.dtype is not b.dtype or a.memref is not None or b.memref is not None or a.tensor_view is not None \
            or b.tensor_view is not None or len(a.shape) != len(b.shape):
        return False
    for x, y in zip(a.shape, b.shape):
        if type(x) is not E.ConstInt or type(y) is not E.ConstInt or x.value != y.value \
                or x.type.dtype is not y.type.dtype:
            return False
    return True


def _retyped(value: E.Expr, typ: T.Type) -> E.Expr:
    if isinstance(value, E.Call):
        return value.with_fields(type=typ)  # type: ignore[return-value]
    return value


_SCOPE_KINDS = {"incore": "pl.at(...) scope", "hierarchy": "pl.at(...) scope", "cluster": "pl.cluster() scope",
                "split_aiv": "pl.split_aiv region"}


def _kind_differs(a: T.Type, b: T.Type) -> bool:
    """A tensor and a scalar (or a tile and a tensor) never merge, whatever types_match says of unknowns."""
    known = (T.TensorType, T.TileType, T.ScalarType, T.TupleType)
    ka = next((k for k in known if isinstance(a, k)), None)
    kb = next((k for k in known if isinstance(b, k)), None)
    return ka is not None and kb is not None and ka is not kb


def _is_yield_call(node: ast.stmt) -> bool:
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Expr)) else None
    func = value.func if isinstance(value, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr == "yield_"


def _ends_with_yield(stmts: list[S.Stmt]) -> bool:
    """The branch ends with a yield, or with a region whose body does (the phi yield of a branch that is one
    pl.split_aiv region sits inside it, docs/dsl.md, the printed form)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, S.YieldStmt):
        return True
    if isinstance(last, S.SplitAivScopeStmt):
        return _ends_with_yield(flatten_to_stmts(last.body))
    return False


def _space_is_stated(value: E.Expr) -> bool:
    """Whether the value says where its tile lives: anything but a call of an op whose result space no kwarg
    sets (`tile.full`). For such a call an annotation naming another space is taken as written -- the form
    InferTileMemorySpace prints for a loop carry's init it moved (docs/passes/infer_tile_memory_space.md) --
    and the call is retyped to it; a retargetable op (`target_memory=`) must agree with its annotation."""
    from pypto_core.ops.registry import opdef_of

    opdef = opdef_of(value) if isinstance(value, E.Call) else None
    return opdef is None or opdef.retarget_kwarg is not None or opdef.output_memory is None

