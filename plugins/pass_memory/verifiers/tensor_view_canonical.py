"""TensorViewCanonical: no tensor type carries an implicit view (an empty stride list) once MaterializeTensorStrides
ran, and none is NZ (docs/passes/materialize_tensor_strides.md)."""

from __future__ import annotations

from pypto_core.analysis.walk import walk
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import TensorLayout
from pypto_core.ir.types import TensorType, TupleType, Type
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "TensorViewCanonical"


def _tensor_types(t: Type) -> list[TensorType]:
    if isinstance(t, TupleType):
        return [x for e in t.types for x in _tensor_types(e)]
    return [t] if isinstance(t, TensorType) and t.tensor_view is not None else []


def verify_tensor_view_canonical(program: F.Program | F.Function, require_materialized: bool = True) -> \
        list[Diagnostic]:
    """Strict (`require_materialized`): an empty stride is an error; weak: only NZ is."""
    funcs = [program] if isinstance(program, F.Function) else list(program.functions.values())
    found: list[Diagnostic] = []
    for func in funcs:
        typed: list[tuple[Type, object]] = [(p.type, p.span) for p in func.params]
        typed += [(t, func.span) for t in func.return_types]
        typed += [(n.type, n.span) for n in walk(func.body) if isinstance(n, (E.Var, E.Call))]
        for t, span in typed:
            for tensor in _tensor_types(t):
                view = tensor.tensor_view
                if view.layout is TensorLayout.NZ:
                    found.append(error(RULE, f"TensorViewCanonical in function '{func.name}': NZ layout is tile-only "
                                             f"and not allowed on a tensor type", span))  # type: ignore[arg-type]
                elif require_materialized and not view.stride:
                    found.append(error(RULE, f"TensorViewCanonical in function '{func.name}': TensorView.stride is "
                                             f"empty (must be materialized via MaterializeTensorStrides before "
                                             f"reaching this point)", span))  # type: ignore[arg-type]
    return found
