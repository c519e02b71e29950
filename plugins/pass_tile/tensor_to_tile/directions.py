"""Parameter directions after the conversion, and the one store mix a kernel may not make (ConvertTensorToTileOps,
rules 8 and phase 3 of docs/passes/convert_tensor_to_tile_ops.md).

In a converted kernel every write of a GM parameter is explicit: a `tile.store` into it (an MTE3 transfer, the
registry's `gm_transfer`) or a scalar `tensor.write` (an op whose tile form addresses GM directly,
`TileForm.gm_access`). Which parameter a written value is comes from the project's lineage (copies, in-place
writes, loop carries, if merges; pypto_core/analysis/lineage.py). A written `In` parameter becomes `Out` when
nothing reads it, else `InOut`; a user's direction is never downgraded. A parameter written both ways is an
error: the MTE3 queue and the scalar unit do not order their stores to one tensor. Callers follow: a parameter a
caller passes to an `Out` slot becomes `Out` (from `In`), to an `InOut` slot `InOut`, up the call chain, except
in a root function (one nothing calls), whose declared parameters are the program's interface.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pypto_core.analysis.lineage import Lineage
from pypto_core.analysis.walk import statements
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import op_registry, opdef_of
from pypto_plugins.pass_tile.interfaces import TILE_FORM

_WRITES = (Effect.WRITE, Effect.READ_WRITE)


def _calls(s: S.Stmt) -> list[E.Call]:
    value = s.value if isinstance(s, S.AssignStmt) else s.expr if isinstance(s, S.EvalStmt) else None
    return [value] if isinstance(value, E.Call) else []


def _is_scalar_access(call: E.Call) -> bool:
    form = op_registry().implementation(TILE_FORM.name, call.op.name)
    return bool(getattr(form, "gm_access", False))


def called_functions(funcs: Iterable[F.Function]) -> set[str]:
    """The names of the functions some function calls (the others are roots: the program's interface)."""
    return {c.op.name for f in funcs for s in statements(f.body) for c in _calls(s) if isinstance(c.op, E.GlobalVar)}


def classify_parameters(func: F.Function, pass_name: str, keep_directions: bool = False) -> F.Function:
    """`func` with its written In parameters made Out / InOut (unless `keep_directions`: a root kernel); the
    MTE3 / scalar store mix is a located error."""
    lineage = Lineage().scan(func.body)
    params = {id(p): i for i, p in enumerate(func.params)}
    written: set[int] = set()
    read: set[int] = set()
    mte3: dict[int, E.Call] = {}
    scalar: dict[int, E.Call] = {}
    for s in statements(func.body):
        for call in _calls(s):
            opdef = opdef_of(call)
            effects = opdef.arg_effects(call.kwargs) if opdef is not None else {}
            for i, arg in enumerate(call.args):
                index = params.get(id(lineage.root(arg))) if isinstance(arg, E.Var) else None
                if index is None:
                    continue
                effect = effects.get(i)
                if effect in _WRITES:
                    written.add(index)
                    if opdef is not None and opdef.traits.gm_transfer:
                        mte3.setdefault(index, call)
                    elif opdef is not None and _is_scalar_access(call):
                        scalar.setdefault(index, call)
                if effect not in (Effect.WRITE,):
                    read.add(index)
    for index in sorted(set(mte3) & set(scalar)):
        name = func.params[index].name_hint
        raise UserError(f"{pass_name}: GM tensor '{name}' mixes MTE3 and scalar stores in one InCore function "
                        f"'{func.name}': {mte3[index].op.name} writes it through the MTE3 queue and "
                        f"{scalar[index].op.name} through the scalar unit, which do not order their stores to one "
                        f"tensor. Write it one way: build the values in a tile (pl.tensor.write into a "
                        f"pl.tensor.full staged before the store, or pl.tile.write) and store the tile once, or use "
                        f"only scalar writes", scalar[index].span)
    directions = list(func.param_directions)
    for index in () if keep_directions else written:
        if directions[index] is ParamDirection.In:
            directions[index] = ParamDirection.InOut if index in read else ParamDirection.Out
    if directions == list(func.param_directions):
        return func
    return func.with_fields(param_directions=tuple(directions))  # type: ignore[return-value]


def propagate_to_callers(funcs: Sequence[F.Function]) -> list[F.Function]:
    """Callers' parameters passed to Out / InOut slots take that direction (In -> Out, any -> InOut), to a
    fixpoint up the call chain; kernels keep what their own writes say."""
    funcs = list(funcs)
    by_name = {f.name: i for i, f in enumerate(funcs)}
    called = called_functions(funcs)
    changed = True
    while changed:
        changed = False
        for fi, func in enumerate(funcs):
            # A root function's parameters are the program's interface: the outputs its caller (and the
            # reference machine) reads are the ones it declares, so they stay (PyPTO upgrades them too).
            if func.func_type is FunctionType.InCore or func.name not in called:
                continue
            lineage = Lineage().scan(func.body)
            params = {id(p): i for i, p in enumerate(func.params)}
            directions = list(func.param_directions)
            for s in statements(func.body):
                for call in _calls(s):
                    if not isinstance(call.op, E.GlobalVar) or call.op.name not in by_name:
                        continue
                    callee = funcs[by_name[call.op.name]]
                    for arg, slot in zip(call.args, callee.param_directions):
                        index = params.get(id(lineage.root(arg))) if isinstance(arg, E.Var) else None
                        if index is None:
                            continue
                        if slot is ParamDirection.InOut and directions[index] is not ParamDirection.InOut:
                            directions[index] = ParamDirection.InOut
                        elif slot is ParamDirection.Out and directions[index] is ParamDirection.In:
                            directions[index] = ParamDirection.Out
            if directions != list(func.param_directions):
                funcs[fi] = func.with_fields(param_directions=tuple(directions))  # type: ignore[assignment]
                changed = True
    return funcs


__all__ = ["classify_parameters", "propagate_to_callers"]
