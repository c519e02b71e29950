"""AllocatedMemoryAddr (docs/passes/allocate_memory_addr.md, errors): in every function, each on-chip tile
MemRef has an address (a negative constant offset is none) and the high-water mark of each space (the largest
`offset + size`, unaligned) fits the backend's capacity; a space holding reserve buffers says how many bytes
they keep."""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.ir.enums import MemorySpace
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_plugins.pass_memory.memrefs import on_chip_memref, tile_vars
from pypto_plugins.pass_memory.reserve_buffers import cross_core_ring_note, resolve_windows

RULE = "AllocatedMemoryAddr"
_OVERFLOW = 1  # PyPTO's error code of the overflow finding


def _backend() -> Any:
    from pypto_core.backend.selection import active_backend
    from pypto_core.passes.context import PassContext

    ctx = PassContext.current()
    return ctx.backend if ctx is not None else active_backend()


def verify_allocated_memory_addr(program: Any) -> list[Diagnostic]:
    backend = _backend()
    out: list[Diagnostic] = []
    for func in program.functions.values():
        out.extend(_verify_function(func, backend))
    return out


def _verify_function(func: F.Function, backend: Any) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    high: dict[MemorySpace, int] = {}
    for var in tile_vars(func):
        m = on_chip_memref(var)
        assert m is not None
        offset = m.static_offset
        if offset is None:
            continue  # a runtime slot index: placed, checked at run time by the machine
        if offset < 0:
            out.append(error(RULE, f"Function '{func.name}': tile '{var.name_hint}' (allocation '{m.name_hint}') "
                                   f"has a negative address ({offset})", var.span))
            continue
        space = var.type.memory_space  # type: ignore[union-attr]
        high[space] = max(high.get(space, 0), offset + m.size)
    if backend is None:
        return out
    reserved = None
    for space, used in high.items():
        limit = backend.capacity(space)
        if not limit or used <= limit:
            continue
        if reserved is None:
            reserved = _windows(func)
        text = f"Function '{func.name}': {space.name} buffer usage ({used} bytes) exceeds platform limit ({limit} bytes)"
        if reserved is not None and space is reserved.space and reserved.end:
            text += (f". The first {reserved.end} bytes of that space are reserved by system.reserve_buffer, so tiles "
                     f"are allocated above them{cross_core_ring_note(func, reserved)}")
        diag = error(RULE, text, func.span)
        diag.error_code = _OVERFLOW
        out.append(diag)
    return out


def _windows(func: F.Function) -> Any:
    try:
        return resolve_windows(func)
    except Exception:  # noqa: BLE001 - a verifier never raises; overlapping windows are the pass's error
        return None
