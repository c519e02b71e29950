"""Loop-invariant Mat residency (InferTileMemorySpace, last step; docs/passes/infer_tile_memory_space.md,
loop-invariant Mat residency): compiler-made GM -> Mat matmul operand loads that a sequential loop reads
unchanged, and the L0 moves / extracts feeding a matmul from them, go before the loop, so the panel is loaded
once instead of once per iteration.

* Bridge loads: a tile.load carrying the marker ConvertTensorToTileOps' bridge loads carry, or one the program
  left without a space (`target_memory=None`: pypto's ConvertTensorToTileOps leaves its matmul operand loads
  so, for this pass to place; `marked_bridge_loads` marks them before placement).
* Chains: an exact chain is a move / extract into Left (Right) used once, as an operand slot its op accepts in
  that space (a matmul slot), of a Mat tile reached through single-use Mat views from a Mat load; a panel is a
  marked Mat load every use of which is a view (same rule) or a move / extract whose every use is such a slot.
* A loop qualifies when sequential, with constant bounds running at least once, and its subtree calls no
  function, no unregistered op, no cross-core op and no ordering op (a statement op: UnknownType result).
* The loop body's leading assignments are scanned in order: a chain value hoists when its operands are
  invariant (not defined in the loop, or hoisted), its chain starts at a bridge load and capacity allows; a
  load also needs to be Mat and to read a proven-safe `In` parameter (residency_proofs.py) the function does
  not write. (pypto's ConvertTensorToTileOps makes a kernel's whole-parameter loads at its top, outside
  every loop: their L0 moves then hoist on their own.) Other assignments are
  passed over unless they have an effect (write an operand, call a function, cross-core / ordering op),
  which ends the scan, as does any other statement.
* Capacity: the hoisted value's space is Mat / Left / Right, no owned tile of that space has a dynamic size
  or is made in a `pl.pipeline` loop, nothing reserves on-chip bytes, and the function's owned tiles of that
  space (each rounded up to 32 bytes) fit the backend's capacity.
Each loop is decided from its original body: a chain moves one loop level per run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pypto_core.analysis.memory import tile_bytes
from pypto_core.analysis.walk import op_calls, statements, vars_read, walk
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ForKind, FunctionType, MemorySpace, ParamDirection
from pypto_core.ir.types import TileType, UnknownType
from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.opdef import Effect, OpDef
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_tile.memory_space.residency_proofs import (
    SafeParams,
    proven_safe_read_params,
    written_params,
)

MAT_BRIDGE_MARKER = "__compiler_tensor_to_tile_mat_bridge"
_RESIDENT_SPACES = (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right)
_ALIGN = 32  # each owned tile is counted rounded up to 32 bytes


class MarkBridgeLoads(IRMutator):
    """A load left without a space (ConvertTensorToTileOps' operand loads) carries the bridge marker."""

    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_node(call)  # type: ignore[assignment]
        opdef = opdef_of(call)
        if opdef is None or not opdef.traits.gm_transfer or MAT_BRIDGE_MARKER in call.attrs:
            return call
        retarget = opdef.retarget_kwarg
        if retarget is None or not retarget.deferred or call.kwargs.get(retarget.name) is not None:
            return call
        return call.with_fields(attrs={**call.attrs, MAT_BRIDGE_MARKER: True})


def hoist_loop_invariant_operands(program: F.Program, backend: Any) -> F.Program:
    """The program with each qualifying loop's invariant chain values moved before it (one level)."""
    if backend is None:
        return program
    safe = proven_safe_read_params(program)
    funcs = []
    for f in program.functions.values():
        if f.func_type is FunctionType.InCore:
            f = _Hoister(f, program, safe, backend).function()
        funcs.append(f)
    if all(a is b for a, b in zip(funcs, program.functions.values())):
        return program
    return program.with_functions(funcs)


def _is_load(opdef: OpDef, call: E.Call) -> bool:
    return opdef.traits.gm_transfer and isinstance(call.type, TileType)


def _is_l0_copy(opdef: OpDef, call: E.Call) -> bool:
    """A move / extract: a tile operand copied into the space its target kwarg names."""
    return opdef.retarget_kwarg is not None and not opdef.traits.gm_transfer and bool(call.args) \
        and isinstance(call.args[0].type, TileType)


def _is_view(opdef: OpDef) -> bool:
    """A view of operand 0 in its space (tile.transpose_view)."""
    return opdef.traits.buffer_view == "view" and opdef.output_memory is not None \
        and opdef.output_memory.inherit_input == 0


def _space(v: E.Expr) -> MemorySpace | None:
    return v.type.memory_space if isinstance(v.type, TileType) else None


def _has_effect(call: E.Expr) -> bool:
    """Writes an operand, calls a function, or is a cross-core / ordering / buffer-reserving op."""
    if not isinstance(call, E.Call):
        return False
    if isinstance(call.op, E.GlobalVar):
        return True
    opdef = opdef_of(call)
    if opdef is None or opdef.cross_core_role is not None or opdef.traits.reserves_on_chip_window:
        return True
    if isinstance(call.type, UnknownType):
        return True  # a statement op: a barrier, a sync (plugins/ops_tile/families/sync.py)
    return any(e in (Effect.WRITE, Effect.READ_WRITE) for e in opdef.arg_effects(call.kwargs).values())


def _loop_qualifies(loop: S.ForStmt) -> bool:
    if loop.kind is not ForKind.Sequential:
        return False
    bounds = (loop.start, loop.stop, loop.step)
    if not all(isinstance(b, E.ConstInt) for b in bounds):
        return False
    start, stop, step = (b.value for b in bounds)  # type: ignore[attr-defined]
    if step <= 0 or start >= stop:
        return False
    for call in (n for n in walk(loop) if isinstance(n, E.Call)):
        if isinstance(call.op, E.GlobalVar):
            return False
        opdef = opdef_of(call)
        if opdef is None or opdef.cross_core_role is not None or isinstance(call.type, UnknownType):
            return False
    return True


class _Hoister:
    def __init__(self, func: F.Function, program: F.Program, safe: SafeParams, backend: Any) -> None:
        self.func = func
        self.backend = backend
        self.defs: dict[int, E.Call] = {}
        for s in statements(func.body):
            if isinstance(s, S.AssignStmt) and isinstance(s.value, E.Call):
                self.defs[id(s.var)] = s.value
        self.uses: dict[int, int] = {}
        for v in vars_read(func.body):
            self.uses[id(v)] = self.uses.get(id(v), 0) + 1
        self.slot_uses: dict[int, list[tuple[E.Call, int]]] = {}
        for call in op_calls(func.body):
            for i, a in enumerate(call.args):
                if isinstance(a, E.Var):
                    self.slot_uses.setdefault(id(a), []).append((call, i))
        written = written_params(func, program)
        self.safe_params = {id(p) for i, p in enumerate(func.params)
                            if i in safe.get(func.name, set()) and func.param_directions[i] is ParamDirection.In
                            and id(p) not in written}
        self.chain: set[int] = set()
        self.panel: set[int] = set()
        self._find_chains()
        self.fits = {space: self._capacity_allows(space) for space in _RESIDENT_SPACES}

    # -- which values are chain / panel values ---------------------------------------------------
    def _find_chains(self) -> None:
        for vid, call in self.defs.items():
            opdef = opdef_of(call)
            if opdef is None:
                continue
            if _is_l0_copy(opdef, call):
                self._exact_chain(vid, call)
            elif _is_load(opdef, call) and self._panel_ok(vid, call):
                self.panel.add(vid)

    def _in_matching_slot(self, var_id: int, space: MemorySpace | None) -> bool:
        """Every use of the value is an operand slot whose op accepts exactly that L0 space (a matmul slot)."""
        sites = self.slot_uses.get(var_id, [])
        if space not in (MemorySpace.Left, MemorySpace.Right) or len(sites) != self.uses.get(var_id, 0):
            return False
        for call, i in sites:
            opdef = opdef_of(call)
            if opdef is None or opdef.accepted_spaces(i) != (space,):
                return False
        return bool(sites)

    def _exact_chain(self, vid: int, call: E.Call) -> None:
        if self.uses.get(vid) != 1 or not self._in_matching_slot(vid, _space(call)):
            return
        members = [vid]
        source = call.args[0]
        while isinstance(source, E.Var) and _space(source) is MemorySpace.Mat:
            producer = self.defs.get(id(source))
            opdef = opdef_of(producer) if producer is not None else None
            if opdef is None or producer is None:
                return
            members.append(id(source))
            if _is_load(opdef, producer):
                self.chain.update(members)
                return
            if not _is_view(opdef) or self.uses.get(id(source)) != 1:
                return
            source = producer.args[0]

    def _panel_ok(self, vid: int, call: E.Call) -> bool:
        return MAT_BRIDGE_MARKER in call.attrs and _space(call) is MemorySpace.Mat and self._feeds_only_l0(vid)

    def _feeds_only_l0(self, vid: int) -> bool:
        sites = self.slot_uses.get(vid, [])
        if not sites or len(sites) != self.uses.get(vid, 0):
            return False
        for user, i in sites:
            opdef = opdef_of(user)
            if i != 0 or opdef is None:
                return False
            result = self._result_of(user)
            if result is None:
                return False
            if _is_view(opdef) and _space(user) is MemorySpace.Mat:
                if not self._feeds_only_l0(id(result)):
                    return False
            elif not (_is_l0_copy(opdef, user) and self._in_matching_slot(id(result), _space(user))):
                return False
        return True

    def _result_of(self, call: E.Call) -> E.Var | None:
        for s in statements(self.func.body):
            if isinstance(s, S.AssignStmt) and s.value is call:
                return s.var
        return None

    # -- capacity ------------------------------------------------------------------------------------
    def _capacity_allows(self, space: MemorySpace) -> bool:
        limit = self.backend.capacity(space)
        if not limit:
            return False
        total = 0
        for s, in_pipeline in _assignments(self.func.body, False):
            if isinstance(s.value, E.Call):
                opdef = opdef_of(s.value)
                if opdef is not None and opdef.traits.reserves_on_chip_window:
                    return False
                if opdef is not None and opdef.traits.buffer_view:
                    continue  # a view owns no bytes
            if _space(s.var) is not space:
                continue
            size = tile_bytes(s.var.type, self.backend)
            if size is None or in_pipeline:
                return False
            total += -(-size // _ALIGN) * _ALIGN
        return total <= limit

    # -- the rewrite -----------------------------------------------------------------------------------
    def function(self) -> F.Function:
        if not self.chain and not self.panel:
            return self.func
        body = self._stmt(self.func.body)
        return self.func if body is self.func.body else self.func.with_fields(body=body)

    def _stmt(self, s: S.Stmt) -> S.Stmt:
        if isinstance(s, S.SeqStmts):
            out: list[S.Stmt] = []
            for child in s.stmts:
                if isinstance(child, S.ForStmt) and _loop_qualifies(child):
                    hoisted, rest = self._decide(child)
                    out.extend(hoisted)
                    kept = make_body(rest, child.body.span) if hoisted else child.body
                    out.append(self._rebuilt(child, self._stmt(kept)))
                else:
                    out.append(self._stmt(child))
            if all(a is b for a, b in zip(out, s.stmts)) and len(out) == len(s.stmts):
                return s
            return make_body(out, s.span)
        return self._rebuilt(s, None)

    def _rebuilt(self, s: S.Stmt, body: S.Stmt | None) -> S.Stmt:
        """`s` with its nested statement blocks processed (`body` already done for a hoisting loop)."""
        changes: dict[str, Any] = {}
        for name in ("body", "then_body", "else_body"):
            child = getattr(s, name, None)
            if not isinstance(child, S.Stmt):
                continue
            new = body if (name == "body" and body is not None) else self._stmt(child)
            if new is not child:
                changes[name] = new
        return s.with_fields(**changes) if changes else s

    def _decide(self, loop: S.ForStmt) -> tuple[list[S.Stmt], list[S.Stmt]]:
        """The loop body's statements that go before the loop, and those that stay."""
        stmts = flatten_to_stmts(loop.body)
        inside = {id(v) for v in collect_def_vars(loop.body)} | {id(loop.loop_var)} \
            | {id(a) for a in loop.iter_args}
        yielded = {id(v) for n in walk(loop.body) if isinstance(n, S.YieldStmt) for v in n.value
                   if isinstance(v, E.Var)}
        hoisted: list[S.Stmt] = []
        for s in stmts:
            if not isinstance(s, S.AssignStmt):
                break
            vid = id(s.var)
            if (vid not in self.chain and vid not in self.panel) or vid in yielded:
                if _has_effect(s.value):
                    break
                continue
            if self._hoistable(s, inside):
                hoisted.append(s)
                inside.discard(vid)
        if not hoisted:
            return [], stmts
        gone = {id(s) for s in hoisted}
        return hoisted, [s for s in stmts if id(s) not in gone]

    def _hoistable(self, s: S.AssignStmt, inside: set[int]) -> bool:
        call = s.value
        if not isinstance(call, E.Call):
            return False
        opdef = opdef_of(call)
        space = _space(s.var)
        if opdef is None or space not in _RESIDENT_SPACES or not self.fits[space]:
            return False
        if any(id(v) in inside for v in vars_read(call)):
            return False
        if _is_load(opdef, call):
            source = call.args[0]
            return MAT_BRIDGE_MARKER in call.attrs and space is MemorySpace.Mat \
                and isinstance(source, E.Var) and id(source) in self.safe_params
        return (_is_l0_copy(opdef, call) or _is_view(opdef)) and self._from_bridge_load(call.args[0])

    def _from_bridge_load(self, source: E.Expr) -> bool:
        """The chain's load (through its views) is a bridge load: a chain never starts at a load the program
        placed itself."""
        while isinstance(source, E.Var):
            producer = self.defs.get(id(source))
            opdef = opdef_of(producer) if producer is not None else None
            if producer is None or opdef is None:
                return False
            if _is_load(opdef, producer):
                return MAT_BRIDGE_MARKER in producer.attrs
            source = producer.args[0]
        return False


def _assignments(s: S.Stmt, in_pipeline: bool) -> Iterator[tuple[S.AssignStmt, bool]]:
    """Every assignment under `s`, with whether a `pl.pipeline` loop encloses it."""
    if isinstance(s, S.AssignStmt):
        yield s, in_pipeline
        return
    if isinstance(s, S.ForStmt):
        in_pipeline = in_pipeline or s.kind is ForKind.Pipeline
    for child in _children(s):
        yield from _assignments(child, in_pipeline)


def _children(s: S.Stmt) -> list[S.Stmt]:
    if isinstance(s, S.SeqStmts):
        return list(s.stmts)
    return [c for c in (getattr(s, n, None) for n in ("body", "then_body", "else_body")) if isinstance(c, S.Stmt)]
