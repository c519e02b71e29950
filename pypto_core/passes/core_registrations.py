"""What the core registers itself, before any plugin: its verifiers and the IRVerifier pass.

Entries owned by "<core>" survive plugin reloads, so this runs once per process.
"""

from __future__ import annotations

import threading

_LOCK = threading.Lock()
_done = False


def register_core() -> None:
    global _done
    with _LOCK:
        if _done:
            return
        from pypto_core.passes.ir_verifier import IRVerifierPass
        from pypto_core.passes.registry import PASSES
        from pypto_core.passes.verifiers import register_core_properties

        register_core_properties()
        if IRVerifierPass.factory_name not in PASSES:
            PASSES.register(IRVerifierPass.factory_name, IRVerifierPass, owner="<core>")
        _done = True
