"""Groups written by hand (docs/passes/expand_mixed_kernel.md, hand-written Groups).

A Group launches its AIC and AIV members together with the same arguments on the device, so both members take
the Group's parameters. When the Group's first call of its AIC member, or of its AIV member, is not canonical
(exactly the Group's parameters, in order, to a callee with that many parameters), both members are rebuilt
with the Group's parameter list (fresh variables, the Group's names, types and directions; each body reads the
call's arguments where it read its own parameters) and the Group calls both with all its parameters. A member
called once in the whole program is rebuilt under its own name; otherwise the rebuilt pair is added as
`<group>_aic_adapter` / `<group>_aiv_adapter` (`_1`, `_2`, ... on a clash), the originals are kept for their
other callers, and each adapter's `import_peer_buffer(peer_func=...)` names the other adapter. A member bound
at run time cannot be rebuilt: a ValueError.

Independently, on a backend with `requires_no_split_dual_aiv_dispatch` the AIV member gets
`dual_aiv_dispatch=True` when it is not bound at run time, has no split (or NONE), lacks the flag and moves
tiles across the cores (a push, pop or free) with no `split` other than 0: both AIV lanes run it. A member
holding a `pl.split_aiv` region is left alone: pypto keeps regions (docs/passes/lower_auto_vector_split.md),
and a region already divides the body's work between the two lanes, which a replay on lane 1 would break.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType, SplitMode
from pypto_core.ir.utils import deep_clone, function_calls, has_split_aiv_region, substitute_stmt
from pypto_core.ir.visitor import IRMutator, IRVisitor
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import opdef_of

PASS = "ExpandMixedKernel"
_PEER_FUNC = "peer_func"


def _is_canonical(call: E.Call, group: F.Function, callee: F.Function) -> bool:
    return (len(callee.params) == len(group.params) and len(call.args) == len(group.params)
            and all(a is p for a, p in zip(call.args, group.params)))


def _first_member_calls(group: F.Function, funcs: dict[str, F.Function]) -> dict[FunctionType, E.Call]:
    found: dict[FunctionType, E.Call] = {}
    for call in function_calls(group.body):
        callee = funcs.get(call.op.name)  # type: ignore[union-attr]
        if callee is not None and callee.func_type in (FunctionType.AIC, FunctionType.AIV):
            found.setdefault(callee.func_type, call)
    return found


def _call_counts(funcs: dict[str, F.Function]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for f in funcs.values():
        for call in function_calls(f.body):
            counts[call.op.name] = counts.get(call.op.name, 0) + 1  # type: ignore[union-attr]
    return counts


def _fresh_name(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    n = 1
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


class _RenamePeers(IRMutator):
    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_call(call)  # type: ignore[assignment]
        peer = call.kwargs.get(_PEER_FUNC) if isinstance(call, E.Call) else None
        if isinstance(peer, str) and peer in self.renames:
            return call.with_fields(kwargs={**call.kwargs, _PEER_FUNC: self.renames[peer]})
        return call


def _rebuilt(member: F.Function, call: E.Call, group: F.Function, name: str) -> F.Function:
    """The member taking the Group's parameters: its body reads the call's arguments."""
    mapping: dict[E.Var, E.Expr] = {p: a for p, a in zip(member.params, call.args)}
    body = substitute_stmt(member.body, mapping)
    func = F.Function(name, group.param_items(), member.return_types, body, member.span, member.func_type,
                      attrs=member.attrs, requires_runtime_binding=member.requires_runtime_binding)
    return deep_clone(func)  # fresh parameters: the Group's names and types, not its variables


class _CallMembers(IRMutator):
    """The Group's calls of its members, with all the Group's parameters (to the rebuilt names)."""

    def __init__(self, group: F.Function, targets: dict[str, F.Function]) -> None:
        self.group, self.targets = group, targets

    def visit_call(self, call: E.Call) -> E.Expr:
        target = self.targets.get(call.op.name) if isinstance(call.op, E.GlobalVar) else None
        if target is None:
            return super().visit_call(call)
        return E.Call(E.GlobalVar(target.name), list(self.group.params), dict(call.kwargs), dict(call.attrs),
                      call.type, call.span)


def rebuild_hand_written_groups(funcs: dict[str, F.Function]) -> bool:
    """Rebuild (in `funcs`) the members of every Group calling them non-canonically; True if anything changed."""
    changed = False
    for group in [f for f in funcs.values() if f.func_type is FunctionType.Group]:
        group = funcs[group.name]
        calls = _first_member_calls(group, funcs)
        if len(calls) != 2:
            continue
        members = {kind: funcs[call.op.name] for kind, call in calls.items()}  # type: ignore[union-attr]
        if all(_is_canonical(calls[k], group, members[k]) for k in calls):
            continue
        bound = [m.name for m in members.values() if m.requires_runtime_binding]
        if bound:
            raise UserError(f"{PASS}: Group '{group.name}' calls its members with different argument layouts, "
                            f"and '{bound[0]}' is bound at run time, so it cannot be rebuilt to take the Group's "
                            f"parameters; call both members with exactly the Group's parameters, in order",
                            calls[FunctionType.AIC].span)
        counts = _call_counts(funcs)
        in_place = all(counts.get(m.name, 0) == 1 for m in members.values())
        taken = set(funcs)
        names: dict[FunctionType, str] = {}
        for kind, m in members.items():
            names[kind] = m.name if in_place else _fresh_name(
                f"{group.name}_{'aic' if kind is FunctionType.AIC else 'aiv'}_adapter", taken)
            taken.add(names[kind])
        renames = {} if in_place else {m.name: names[k] for k, m in members.items()}
        targets: dict[str, F.Function] = {}
        for kind, m in members.items():
            new = _rebuilt(m, calls[kind], group, names[kind])
            if renames:
                new = new.with_fields(body=_RenamePeers(renames).visit_stmt(new.body))
            funcs[new.name] = new
            targets[m.name] = new
        funcs[group.name] = group.with_fields(body=_CallMembers(group, targets).visit_stmt(group.body))
        changed = True
    return changed


class _Transfers(IRVisitor):
    def __init__(self) -> None:
        self.any = False
        self.split = False

    def visit_call(self, call: E.Call) -> None:
        opdef = opdef_of(call) if type(call.op) is E.Op else None
        if opdef is not None and opdef.cross_core_role in (CrossCoreRole.PUSH, CrossCoreRole.POP, CrossCoreRole.FREE):
            self.any = True
            self.split = self.split or int(call.kwargs.get("split") or 0) != 0
        super().visit_call(call)


def mark_dual_dispatch(funcs: dict[str, F.Function], backend: Any) -> bool:
    """`dual_aiv_dispatch=True` on the unsplit AIV members of hand-written Groups (the module docstring)."""
    if not backend.requires_no_split_dual_aiv_dispatch:
        return False
    changed = False
    for group in [f for f in funcs.values() if f.func_type is FunctionType.Group]:
        call = _first_member_calls(group, funcs).get(FunctionType.AIV)
        member = funcs.get(call.op.name) if call is not None else None  # type: ignore[union-attr]
        if member is None or member.requires_runtime_binding or "dual_aiv_dispatch" in member.attrs:
            continue
        if member.split not in (None, SplitMode.NONE):
            continue
        walker = _Transfers()
        walker.visit_stmt(member.body)
        # a pl.split_aiv region: the body already divides its work between the lanes
        if not walker.any or walker.split or has_split_aiv_region(member.body):
            continue
        funcs[member.name] = member.with_fields(attrs={**member.attrs, "dual_aiv_dispatch": True})
        changed = True
    return changed
