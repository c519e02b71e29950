"""InCore functions that call a mixed kernel (docs/passes/expand_mixed_kernel.md, example, docs/passes/split_vector_kernel.md).

A `with pl.at(level=CORE_GROUP)` scope whose body calls an InCore kernel outlines to an InCore function
holding that call. When the callee is mixed it becomes a core group (an AIC + an AIV function launched
together); typing the caller AIV (its rollup has no cube work) would run the callee's AIC half, pipe setup
included, on an AIV lane. A caller with no tile work of its own (its rollup is SHARED: scalar code and
function calls) is a launcher, so it becomes a Group and calls each AIC + AIV pair in place. A caller with
its own cube or vector work cannot launch a core group from inside a core: a located ValueError.
"""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.errors import UserError
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.utils import function_calls
from pypto_core.ops.opdef import CoreAffinity

PASS = "ExpandMixedKernel"


def launcher_names(funcs: Mapping[str, F.Function], affinity: Mapping[str, CoreAffinity]) -> set[str]:
    """The InCore functions that become Groups: they call (transitively, through other launchers) a mixed
    kernel and do no tile work themselves. `affinity`: each InCore function's rollup."""
    launches = {name for name, a in affinity.items() if a is CoreAffinity.MIXED}  # calling one launches a group
    launchers: set[str] = set()
    calls = {name: function_calls(funcs[name].body) for name in affinity}
    changed = True
    while changed:
        changed = False
        for name in affinity:
            if name in launchers:
                continue
            call = next((c for c in calls[name] if c.op.name in launches), None)  # type: ignore[union-attr]
            if call is None:
                continue
            if affinity[name] is not CoreAffinity.SHARED:
                kind = "mixes cube and vector work" if affinity[name] is CoreAffinity.MIXED else \
                    f"does {affinity[name].name.lower()} work"
                raise UserError(f"{PASS}: InCore function '{name}' {kind} and calls the mixed kernel "
                                f"'{call.op.name}', which runs as its own core group (an AIC and an AIV "  # type: ignore[union-attr]
                                f"function launched together) and cannot be launched from inside a core; call "
                                f"it from the orchestration (outside the pl.at scope), or write its tile code "
                                f"inline", call.span)
            launchers.add(name)
            launches.add(name)
            changed = True
    return launchers


def as_launcher(func: F.Function) -> F.Function:
    """The InCore launcher retyped as a Group; its kernel calls become AIC + AIV pairs as they expand."""
    return F.Function(func.name, func.param_items(), func.return_types, func.body, func.span, FunctionType.Group,
                      attrs=func.attrs, requires_runtime_binding=func.requires_runtime_binding)
