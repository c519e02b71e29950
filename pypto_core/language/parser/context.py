"""State shared while parsing one program or function: globals, dynamic dims, scope stack."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import ForKind, SplitMode
from pypto_core.ir.types import ScalarType
from pypto_core.language.parser.env import DynamicDim


@dataclass
class ProgramContext:
    """Program-wide facts: the methods' GlobalVars, functions parsed so far, dynamic dims."""

    name: str = ""
    global_vars: dict[str, E.GlobalVar] = field(default_factory=dict)
    parsed: dict[str, F.Function] = field(default_factory=dict)
    dynamic_vars: dict[int, E.Var] = field(default_factory=dict)
    in_program: bool = False
    # Set when a call names a method not parsed yet: its result type and arity are checked on a second parse.
    forward_call: bool = False
    # `@pl.function`s defined outside the program that its methods call by bare name (docs/dsl.md).
    external: dict[str, F.Function] = field(default_factory=dict)
    # Methods whose `return` gives a tensor / tile of another dtype or shape than the annotation declares
    # (accepted, as PyPTO does): name -> (span of the return, message). A call of one is a located error
    # once every method is parsed (program_parser.check_returns_of_called_methods).
    return_mismatches: dict[str, tuple[Any, str]] = field(default_factory=dict)
    # Declared allocations (`buf = pl.MemRef(slots=2)`) seen so far: id(declaration) -> (allocation name, the
    # variable it was first referenced as), and allocation name -> id(declaration) (docs/memory_planning.md).
    declarations: dict[int, tuple[str, str]] = field(default_factory=dict)
    declaration_names: dict[str, int] = field(default_factory=dict)

    def dynamic_var(self, dim: DynamicDim) -> E.Var:
        var = self.dynamic_vars.get(id(dim))
        if var is None:
            var = E.Var(dim.name, ScalarType(DataType.INDEX))
            self.dynamic_vars[id(dim)] = var
            self._keep.append(dim)  # keep the object alive so its id stays unique
        return var

    _keep: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class Frame:
    """One level of the statement nesting the parser is inside."""

    kind: str  # function | for | while | if | incore | hierarchy | cluster | split_aiv
    loop_kind: ForKind | None = None
    carried: bool = False  # a loop with init_values / an SSA-form while
    yield_targets: list[tuple[str, Any, Any]] | None = None  # (name, annotation type, node) per target
    yield_seen: bool = False
    bare_yields: list[tuple[list[Any], Any]] = field(default_factory=list)  # (values, node) of yields with no targets
    region_split: SplitMode | None = None
    cache_policy_vars: list[tuple[E.Var, int]] = field(default_factory=list)
    split_aiv_seen: bool = False
