"""The verifiers the core registers itself (owner "<core>"), one file each.

Properties without a verifier here or in a plugin are "declared but unverified": passes may still
require and produce them, and the static pipeline check tracks them, but nothing checks the IR.
"""

from __future__ import annotations

import threading

from pypto_core.passes.verifier_registry import PROPERTY_INFO, Verifier, register_property
from pypto_core.passes.verifiers.no_nested_incore import verify_no_nested_incore
from pypto_core.passes.verifiers.no_scalar_kernel_return import verify_no_scalar_kernel_return
from pypto_core.passes.verifiers.return_params_explicit import verify_return_params_explicit
from pypto_core.passes.verifiers.split_incore_orch import verify_split_incore_orch
from pypto_core.passes.verifiers.ssa_form import verify_ssa_form
from pypto_core.passes.verifiers.stmt_structure import (
    verify_no_redundant_blocks,
    verify_normalized_stmt_structure,
)
from pypto_core.passes.verifiers.type_checked import verify_assign_type_symmetry, verify_type_checked
from pypto_core.passes.verifiers.use_after_def import verify_use_after_def

CORE_VERIFIERS: dict[str, tuple[Verifier, str]] = {
    "SSAForm": (verify_ssa_form, "each Var defined once, no shadowing, carried bodies end with a matching yield"),
    "TypeChecked": (verify_type_checked, "valid shapes within bounds, loop carries and if merges agree in kind, "
                                         "dtype, shape and valid shape (not memory space), bounds and "
                                         "conditions scalar"),
    "UseAfterDef": (verify_use_after_def, "every use of a Var is dominated by its definition"),
    "NoNestedInCore": (verify_no_nested_incore, "no InCore scope inside another"),
    "NormalizedStmtStructure": (verify_normalized_stmt_structure, "no nested and no single-child SeqStmts"),
    "NoRedundantBlocks": (verify_no_redundant_blocks, "no single-child SeqStmts"),
    "SplitIncoreOrch": (verify_split_incore_orch, "no InCore scope left in Opaque/Orchestration functions"),
    "ReturnParamsExplicit": (verify_return_params_explicit,
                             "InCore functions return a written parameter as the parameter itself"),
    "NoScalarKernelReturn": (verify_no_scalar_kernel_return, "InCore functions return no scalar"),
    # In none of the default / structural / verified sets: asked for by name.
    "AssignTypeSymmetry": (verify_assign_type_symmetry,
                           "assigned variables have their value's type, up to what an annotation may add"),
}

_LOCK = threading.Lock()


def register_core_properties() -> None:
    """Idempotent: core entries survive plugin reloads (the registries keep owner "<core>")."""
    with _LOCK:
        for name, (verifier, doc) in CORE_VERIFIERS.items():
            if name not in PROPERTY_INFO:
                register_property(name, verifier, doc, owner="<core>")
