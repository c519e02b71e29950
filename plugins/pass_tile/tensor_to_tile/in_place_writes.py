"""In-place writes into a tensor the kernel now holds on chip (ConvertTensorToTileOps).

An op the registry declares as writing a tensor operand (Effect.WRITE / READ_WRITE: tensor.assemble,
tensor.write, a tile.store into a kernel tensor, ...) updates that tensor in place; its SSA result is
the same buffer after the write (docs/passes/outline_incore_scopes.md, parameters: in SSA the state after a write binds a new Var
for the same buffer), so a later read of the old name, or of a `k = m` alias of it, sees the write. Once the tensor is
a tile, the write is a value (tile.assemble / tile.write return a new tile), and the old name would keep
the value from before it. So after such a write, later reads of the target (and its aliases) in the same
block, and in the blocks nested after it, read the result instead.

Where one substitution cannot say it, the pass refuses rather than computing something else: a write
inside a loop into a tensor defined before the loop (the next iteration, and the code after the loop,
would need a loop carry), and a read after an `if` of a tensor written in place in one of its branches
(it would need a merge). Assigning the result to the same name (`m = pl.assemble(m, ...)`) gives
ConvertToSSA's carry or merge, which the lowering then follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.types import TensorType, TileType, dims_equal
from pypto_core.ir.utils import free_vars_in_order
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of

_WRITES = (Effect.WRITE, Effect.READ_WRITE)


@dataclass
class _Frame:
    kind: str  # "function", "loop", "branch", "scope" (a scope or region body: straight-line code)
    saved: dict[int, E.Expr | None] = field(default_factory=dict)  # subst entries to put back on exit
    defined: set[int] = field(default_factory=set)  # original variables defined in the block
    written: list[tuple[int, str, Any]] = field(default_factory=list)  # outer tensors written: (id, name, span)


class InPlaceWrites:
    """The bookkeeping, driven by FunctionLowering's statement walk; `subst` is the walk's substitution."""

    def __init__(self, subst: dict[int, E.Expr], pass_name: str, func_name: str) -> None:
        self.subst = subst
        self.pass_name = pass_name
        self.func_name = func_name
        self.frames: list[_Frame] = []
        self.kinds: list[str] = []  # the kind of the next block (set around loops, ifs and scopes)
        self.loop_depth = 0
        self.def_depth: dict[int, int] = {}  # original variable id -> loop depth of its definition
        self.aliases: dict[int, list[E.Var]] = {}  # original variable id -> its alias class (shared list)
        self.stale: dict[int, tuple[str, Any]] = {}  # read after an if that wrote it in one branch
        self.branch_writes: list[list[tuple[int, str, Any]]] = []

    # -- blocks ----------------------------------------------------------------------------------
    def enter_block(self) -> None:
        self.frames.append(_Frame(self.kinds[-1] if self.kinds else "function"))

    def exit_block(self) -> None:
        frame = self.frames.pop()
        if frame.kind == "scope" and self.frames:  # straight-line code of the enclosing block
            parent = self.frames[-1]
            for key, old in frame.saved.items():
                parent.saved.setdefault(key, old)
            parent.defined |= frame.defined
            parent.written += frame.written
            return
        for key, old in frame.saved.items():
            if old is None:
                self.subst.pop(key, None)
            else:
                self.subst[key] = old
        if frame.kind == "branch" and self.branch_writes:
            self.branch_writes[-1] += frame.written

    def owner(self) -> _Frame:
        for frame in reversed(self.frames):
            if frame.kind != "scope":
                return frame
        return self.frames[0]

    # -- definitions and reads -------------------------------------------------------------------
    def define(self, var: E.Var, value: E.Expr | None = None, depth: int | None = None) -> None:
        self.def_depth[id(var)] = self.loop_depth if depth is None else depth
        if self.frames:
            self.owner().defined.add(id(var))
        self.stale.pop(id(var), None)
        if isinstance(value, E.Var) and isinstance(value.type, TensorType):  # `k = m`: one buffer
            group = self.aliases.setdefault(id(value), [value])
            group.append(var)
            self.aliases[id(var)] = group

    def check_reads(self, e: E.Expr) -> None:
        if not self.stale:
            return
        for v in free_vars_in_order([e]):
            found = self.stale.get(id(v))
            if found is not None:
                name, span = found
                raise UserError(f"{self.pass_name}: in InCore function '{self.func_name}', '{name}' is written in "
                                f"place in one branch of an if (line {_line(span)}) and read after the if; on chip "
                                f"the tensor is a tile, so the write would reach only that branch's value: assign "
                                f"the result to the same name (`{name} = pl.assemble({name}, ...)`) so that the if "
                                f"merges it", v.span)

    def if_done(self) -> None:
        """After an if: what its branches wrote in place into outer tensors is stale from here on."""
        written = self.branch_writes.pop()
        frame = self.owner() if self.frames else None
        for key, name, span in written:
            self.stale[key] = (name, span)
            if frame is not None and key not in frame.defined:
                frame.written.append((key, name, span))

    # -- the writes ------------------------------------------------------------------------------
    def targets(self, call: E.Call) -> list[tuple[E.Var, E.Expr]]:
        """The tensor operands the call writes in place (registry effects): (the original variable, its
        on-chip value, or the variable itself when it is still a GM tensor)."""
        opdef = opdef_of(call)
        if opdef is None:
            return []
        out = []
        for i, target in enumerate(call.args):
            if not isinstance(target, E.Var) or not isinstance(target.type, TensorType):
                continue
            if opdef.arg_effect(i, call.kwargs) not in _WRITES:
                continue
            # A target on chip is a tile now; a GM target stays in place when the write is lowered to a store,
            # but not when its tile form computes the new state as a tile (tensor.matmul_acc): `after` decides.
            out.append((target, self.subst.get(id(target), target)))
        return out

    def after(self, call: E.Call, result: E.Var | None) -> None:
        """`result = call` was lowered: if the call wrote a tensor now on chip, the target is `result` from here."""
        for target, on_chip in self.targets(call):
            name = user_base(target)
            if not isinstance(on_chip.type, TileType) and (result is None or not isinstance(result.type, TileType)):
                continue  # a GM tensor written by a store: the write is in place in GM
            if self.loop_depth > self.def_depth.get(id(target), 0):
                raise UserError(f"{self.pass_name}: in InCore function '{self.func_name}', {call.op.name} writes "
                                f"'{name}' in place inside a loop, but '{name}' is defined before the loop; on chip it "
                                f"is a tile, so the next iteration would not see the write: assign the result to the "
                                f"same name (`{name} = pl.assemble({name}, ...)`) so that the loop carries it",
                                call.span)
            if result is None or not isinstance(result.type, TileType) or \
                    not dims_equal(result.type.shape, on_chip.type.shape):  # type: ignore[attr-defined]
                continue
            self._rebind(target, result, call.span)

    def _rebind(self, target: E.Var, result: E.Var, span: Any) -> None:
        frame = self.frames[-1]
        owner = self.owner()
        for alias in self.aliases.get(id(target), [target]):
            key = id(alias)
            if key not in frame.saved:
                frame.saved[key] = self.subst.get(key)
            self.subst[key] = result
            if key not in owner.defined:
                frame.written.append((key, user_base(alias), span))


def _line(span: Any) -> Any:
    return getattr(span, "begin_line", "?")


def bound_result(s: S.Stmt, out: list[S.Stmt]) -> E.Var | None:
    """The variable the lowered statement binds its value to."""
    last = out[-1] if out else None
    return last.var if isinstance(s, S.AssignStmt) and isinstance(last, S.AssignStmt) else None
