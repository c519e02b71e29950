"""Names a pl body does not bind: Python values of the enclosing scope, module constants of a text file,
and the body's own parse-time constants (`dt = pl.FP16`). docs/dsl.md; the rules are in pyvalues.py."""

from __future__ import annotations

import ast
import types
from typing import Any

from pypto_core.language.parser.base import ParserBase
from pypto_core.language.parser.env import MISSING, DynamicDim, static_value
from pypto_core.language.parser.errors import (
    ParserSyntaxError,
    ParserTypeError,
    SSAViolationError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from pypto_core.language.parser.module_constants import READABLE
from pypto_core.language.parser.pyvalues import to_parser_value, unsupported_message, unsupported_part


class OutsideValueParser(ParserBase):
    # -- lookup ------------------------------------------------------------------------------------
    def resolve_global(self, name: str, node: ast.AST) -> Any:
        """The parser value of a name from outside the body; a located error when there is none or it is
        not constant-like."""
        value = self.env.lookup(name)
        if value is MISSING:
            self.fail_unresolved(name, node)
            self.fail(UndefinedVariableError, f"Undefined variable '{name}'", node,
                      hint="define it before this line, or pass it in as a parameter")
        if isinstance(value, types.ModuleType) or _is_namespace_class(value):
            return value  # `pl`, `pl.MemorySpace`, ...: only followed by an attribute
        bad = unsupported_part(value)
        if bad is not None:
            self.fail(ParserTypeError, unsupported_message(name, value, *bad), node,
                      hint="compute a constant of one of these types before the decorator, or pass the value "
                           "in as a parameter")
        try:
            return to_parser_value(value, self.program.dynamic_var)
        except TypeError as exc:  # Python arithmetic on pl.dynamic dims that does not type-check
            self.fail(ParserTypeError, f"'{name}' cannot be used as a dimension expression: {exc}", node)

    def fail_unresolved(self, name: str, node: ast.AST) -> None:
        """A text file's module-level name that was assigned but could not be read without running the file."""
        info = self.env.unresolved.get(name)
        if info is None:
            return
        cls = ParserTypeError if info.type_name is not None else UnsupportedFeatureError
        self.fail(cls, f"'{name}' (module level, line {info.line}) is {info.reason}; the text path "
                       f"(pypto compile, pl.parse) reads module constants from the AST and never runs the file",
                  node, hint=f"write '{name}' as one of: {READABLE}")

    def explain_unresolved(self, node: ast.AST) -> None:
        """Before reporting that `node` cannot be evaluated: the reason a name in it is unreadable (a text
        module name that was not read, or a Python value of an unsupported type), if there is one."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id not in self.symbols:
                self.fail_unresolved(sub.id, sub)
                value = self.env.lookup(sub.id)
                if value is not MISSING and not isinstance(value, types.ModuleType) \
                        and not _is_namespace_class(value) and unsupported_part(value) is not None:
                    self.resolve_global(sub.id, sub)  # raises the message naming the value's type

    def outside_static(self, node: ast.AST) -> Any:
        """The constant `node` spells with names from outside the body only (MISSING when it uses a DSL
        variable or is not constant): dtypes, enum members, flags in annotations and keywords."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and sub.id in self.symbols:
                return MISSING
        value = static_value(node, self.env)
        if isinstance(value, DynamicDim):
            return MISSING  # a dim is a Var in the IR: parse it as an expression
        return value

    # -- Python sequences in a body -----------------------------------------------------------------
    def python_index(self, base: list[Any] | str, index: Any, node: ast.Subscript) -> Any:
        """`BUFS[i % 2]`, `SHAPE[-1]`, `SHAPE[1:]` on a list or tuple from the enclosing scope."""
        if isinstance(index, slice):
            return base[index]
        if not isinstance(index, int) or isinstance(index, bool):
            self.fail(ParserTypeError, f"'{ast.unparse(node.value)}' is a Python {type(base).__name__}: its index "
                                       f"must be an integer constant, got '{ast.unparse(node.slice)}'", node.slice,
                      hint="a Python value is indexed while parsing; a DSL variable is only known at run time")
        if not -len(base) <= index < len(base):
            self.fail(ParserSyntaxError, f"index {index} is out of range for '{ast.unparse(node.value)}' "
                                         f"(length {len(base)})", node.slice)
        return base[index]

    # -- parse-time constants of the body ------------------------------------------------------------
    def bind_constant(self, name: str, value: Any, node: ast.stmt) -> None:
        """`dt = pl.FP16` in a body: `dt` names the dtype while parsing; no IR statement is emitted."""
        if self.innermost("if") is not None:
            self.fail(ParserSyntaxError, f"'{name}' is given a {_kind(value)} inside an if: such a value is "
                                         f"chosen while parsing, not at run time", node,
                      hint="assign it before the if")
        if name in self.symbols:
            if self.strict_ssa:
                self.fail(SSAViolationError, f"variable '{name}' is assigned twice (strict SSA)", node)
            self.fail(ParserTypeError, f"Cannot reassign '{name}' of type {self.symbols[name].type} with a "
                                       f"{_kind(value)}", node, hint="use a new name for a value of another type")
        if self.strict_ssa and name in self.constants:
            self.fail(SSAViolationError, f"variable '{name}' is assigned twice (strict SSA)", node)
        self.constants[name] = value

    def forget_constant(self, name: str) -> None:
        """A name rebound to an IR value stops naming a parse-time constant."""
        self.constants.pop(name, None)


def _is_namespace_class(value: Any) -> bool:
    """An enum class or one of pypto's classes: a name for `X.member`, not a value itself."""
    import enum

    from pypto_core.language.dsl_modules import is_own_class

    if not isinstance(value, type):
        return False
    return issubclass(value, enum.Enum) or is_own_class(value)


def _kind(value: Any) -> str:
    import enum

    from pypto_core.ir.dtypes import DataType

    if isinstance(value, DataType):
        return "dtype"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__} member"
    return "string" if isinstance(value, str) else type(value).__name__
