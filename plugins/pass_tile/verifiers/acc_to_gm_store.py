"""AccToGmStoreValid: a cube accumulator (Acc) is never written straight into an 8-bit integer tensor.

The Acc -> GM path (fixpipe) narrows FP32 to FP16 / BF16 on the way out, but not to 8-bit integers.
Which ops write a tensor from a tile is registry data: an operand that accepts Acc, and a tensor
operand the op writes (Effect.WRITE / READ_WRITE).
"""

from __future__ import annotations

from pypto_core.analysis.walk import kernels, op_calls
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ir.utils import describe_operand
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "AccToGmStoreValid"


def verify_acc_to_gm_store(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in kernels(program):  # type: ignore[arg-type]
        for call in op_calls(func):
            opdef = opdef_of(call)
            if opdef is None:
                continue
            sources = [a for i, a in enumerate(call.args) if isinstance(a.type, TileType)
                       and a.type.memory_space is MemorySpace.Acc]
            if not sources:
                continue
            for i, target in enumerate(call.args):
                t = target.type
                if not isinstance(t, TensorType) or opdef.arg_effect(i, call.kwargs) is Effect.READ:
                    continue
                if t.dtype.is_int() and t.dtype.get_bit() == 8:
                    src = describe_operand(sources[0])
                    out.append(error(RULE, f"{call.op.name} stores the accumulator '{src}' (Acc) straight into "
                                           f"the {t.dtype.name} tensor '{describe_operand(target)}': the cube's output path "
                                           f"cannot narrow to {t.dtype.name}; move it to Vec "
                                           f"(pl.move({src}, target_memory=pl.Mem.Vec)), cast it there "
                                           f"(pl.cast(..., pl.{t.dtype.name})) and store the Vec tile",
                                     call.span))
    return out
