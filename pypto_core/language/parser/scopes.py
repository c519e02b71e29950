"""`with pl.at(...)` scopes (docs/dsl.md, scopes) and `with pl.cluster()`."""

from __future__ import annotations

import ast
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import Level, Role, SplitMode
from pypto_core.ir.utils import make_body
from pypto_core.language.parser.context import Frame
from pypto_core.language.parser.errors import UnsupportedFeatureError
from pypto_core.language.parser.loops import LoopParser

_AT_KEYWORDS = ("level", "role", "optimizations", "deps", "no_dep_args", "dumps", "allow_early_resolve",
                "name_hint", "windowize")


class ScopeParser(LoopParser):
    def parse_with(self, node: ast.With) -> None:
        if len(node.items) != 1:
            self.fail(UnsupportedFeatureError, "a with statement must open exactly one pl scope", node)
        item = node.items[0]
        call = item.context_expr
        path = self.pl_path(call.func) if isinstance(call, ast.Call) else None
        if item.optional_vars is not None:
            self.fail(UnsupportedFeatureError, "'with ... as name' (task ids) is not supported by pypto",
                      item.optional_vars)
        if path == "at":
            self.at_scope(node, call)  # type: ignore[arg-type]
        elif path == "cluster":
            self.cluster_scope(node, call)  # type: ignore[arg-type]
        else:
            self.syntax_error(f"unsupported with-statement '{ast.unparse(call)}'; use 'with pl.at(level=...)'", call)

    def _at_arguments(self, call: ast.Call) -> dict[str, tuple[ast.AST, Any]]:
        out: dict[str, tuple[ast.AST, Any]] = {}
        if len(call.args) > 2:
            self.syntax_error("pl.at takes at most level and role positionally", call)
        for name, arg in zip(("level", "role"), call.args):
            out[name] = (arg, None)
        for kw in call.keywords:
            if kw.arg not in _AT_KEYWORDS:
                self.syntax_error(f"pl.at does not accept '{kw.arg}=' (valid: {', '.join(_AT_KEYWORDS)})", kw)
            if kw.arg in out:
                self.syntax_error(f"pl.at got '{kw.arg}' twice", kw)
            out[kw.arg] = (kw.value, None)
        return out

    def _merge_dump_tags(self, attrs: dict[str, Any], body: list[S.Stmt]) -> None:
        """The dump-tagged tensors the scope consumes join its dumps= (after them, once each)."""
        listed = list(attrs.get("dump_vars", ()))
        extra = [v for v in self.tagged_in(body) if not any(v is w for w in listed)]
        if extra:
            attrs["dump_vars"] = listed + extra

    def at_scope(self, node: ast.With, call: ast.Call) -> None:
        args = self._at_arguments(call)
        if "level" not in args:
            self.syntax_error("pl.at requires level=, e.g. pl.at(level=pl.Level.CORE_GROUP)", call)
        level = self.parse_value(args["level"][0])
        if not isinstance(level, Level):
            self.syntax_error("level= must be a pl.Level member", args["level"][0])
        role = None
        if "role" in args:
            role = self.parse_value(args["role"][0])
            if role is not None and not isinstance(role, Role):
                self.syntax_error("role= must be a pl.Role member", args["role"][0])
        name_hint = ""
        if "name_hint" in args:
            name_hint = self.parse_value(args["name_hint"][0])
            if not isinstance(name_hint, str) or not (name_hint == "" or name_hint.isidentifier()):
                self.syntax_error("name_hint= must be an identifier string", args["name_hint"][0])
        if "deps" in args:
            self.fail(UnsupportedFeatureError, "deps= (task dependencies) is not supported by pypto", args["deps"][0])
        attrs: dict[str, Any] = {}
        for key, attr in (("allow_early_resolve", "allow_early_resolve"), ("windowize", "windowize")):
            if key in args:
                value = self.parse_value(args[key][0])
                if not isinstance(value, bool):
                    self.syntax_error(f"{key}= must be True or False", args[key][0])
                if value:
                    attrs[attr] = True
        for key, attr in (("no_dep_args", "arg_direction_overrides_vars"), ("dumps", "dump_vars")):
            if key in args:
                var_list = self._var_list(args[key][0], key)
                if var_list:  # an empty list says nothing (and prints as nothing)
                    attrs[attr] = var_list
        split, slot_num = None, None
        if "optimizations" in args:
            split, slot_num = self._optimizations(args["optimizations"][0], level)
        if level is not Level.CORE_GROUP:
            frame = Frame("hierarchy")
            body = self.parse_body(node.body, frame)
            self._merge_dump_tags(attrs, body)
            if frame.cache_policy_vars:
                attrs["cache_policy_vars"] = list(frame.cache_policy_vars)
            self.emit(S.HierarchyScopeStmt(level, role, name_hint, body=make_body(body, self.span(node)),
                                           span=self.span(node), attrs=attrs))
            return
        if role is not None:
            self.syntax_error("role= is not allowed with level=pl.Level.CORE_GROUP", args["role"][0])
        frame = Frame("incore")
        body = self.parse_body(node.body, frame)
        if split is not None and frame.split_aiv_seen:
            self.syntax_error("pl.split(...) and pl.split_aiv regions are mutually exclusive: the scope asks for "
                              "an AUTO split and also splits by hand", args["optimizations"][0],
                              hint="drop pl.split(...); use optimizations=[pl.cross_core_slot(slot_num=N)] "
                                   "if you only meant to size the cross-core pipe")
        self._merge_dump_tags(attrs, body)
        if frame.cache_policy_vars:
            attrs["cache_policy_vars"] = list(frame.cache_policy_vars)
        if slot_num is not None:
            attrs["slot_num"] = slot_num
        span = self.span(node)
        self.emit(S.InCoreScopeStmt(split if split is not None else SplitMode.NONE, name_hint,
                                    body=make_body(body, span), span=span, attrs=attrs))

    def _var_list(self, node: ast.AST, key: str) -> list[E.Var]:
        value = self.parse_value(node)
        if not isinstance(value, list) or not all(isinstance(v, E.Var) for v in value):
            self.syntax_error(f"{key}= must be a list of variables", node)
        return value

    def _optimizations(self, node: ast.AST | None, level: Level) -> tuple[SplitMode | None, int | None]:
        """`optimizations=[pl.split(MODE), pl.cross_core_slot(slot_num=N)]`, each at most once."""
        if node is None:
            return None, None
        if level is not Level.CORE_GROUP:
            self.syntax_error("optimizations= is only allowed with level=pl.Level.CORE_GROUP", node)
        if not isinstance(node, ast.List):
            self.syntax_error("optimizations= must be a list literal", node)
        split: SplitMode | None = None
        slot_num: int | None = None
        for entry in node.elts:
            path = self.pl_path(entry.func) if isinstance(entry, ast.Call) else None
            if path in ("split", "optimizations.split"):
                if split is not None:
                    self.syntax_error("pl.split(...) given twice", entry)
                split, legacy_slots = self._split_entry(entry)  # type: ignore[arg-type]
                if legacy_slots is not None:
                    if slot_num is not None:
                        self.syntax_error("pl.split(..., slot_num=N) cannot be combined with pl.cross_core_slot",
                                          entry)
                    import warnings

                    warnings.warn("pl.split(mode, slot_num=N) is deprecated; use pl.cross_core_slot(slot_num=N)",
                                  DeprecationWarning, stacklevel=2)
                    slot_num = legacy_slots
            elif path == "cross_core_slot":
                if slot_num is not None:
                    self.syntax_error("pl.cross_core_slot(...) given twice (or with pl.split(..., slot_num=))", entry)
                slot_num = self._slot_entry(entry)  # type: ignore[arg-type]
            else:
                self.syntax_error(f"unsupported optimization '{ast.unparse(entry)}'; use pl.split(mode) or "
                                  f"pl.cross_core_slot(slot_num=N)", entry)
        return split, slot_num

    def _split_entry(self, call: ast.Call) -> tuple[SplitMode, int | None]:
        if len(call.args) != 1:
            self.syntax_error("pl.split takes one pl.SplitMode", call)
        mode = self.parse_value(call.args[0])
        if not isinstance(mode, SplitMode):
            self.syntax_error("pl.split takes a pl.SplitMode member", call.args[0])
        slots = None
        for kw in call.keywords:
            if kw.arg != "slot_num":
                self.syntax_error(f"pl.split does not accept '{kw.arg}='", kw)
            slots = self._positive_int(kw.value, "slot_num")
        return mode, slots

    def _slot_entry(self, call: ast.Call) -> int:
        if call.args or len(call.keywords) != 1 or call.keywords[0].arg != "slot_num":
            self.syntax_error("write pl.cross_core_slot(slot_num=N)", call)
        return self._positive_int(call.keywords[0].value, "slot_num")

    def _positive_int(self, node: ast.AST, key: str) -> int:
        value = self.parse_value(node)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            self.syntax_error(f"{key}= must be a positive integer", node)
        return value

    def cluster_scope(self, node: ast.With, call: ast.Call) -> None:
        name_hint = ""
        for kw in call.keywords:
            if kw.arg != "name_hint":
                self.syntax_error(f"pl.cluster does not accept '{kw.arg}='", kw)
            name_hint = self.parse_value(kw.value)
        body = self.parse_body(node.body, Frame("cluster"))
        self.emit(S.ClusterScopeStmt(name_hint, body=make_body(body, self.span(node)), span=self.span(node)))
