"""`pypto.ir.instruments` (docs/architecture.md, the pass manager): the print -> parse -> structural-equality instrument."""

from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument

__all__ = ["make_roundtrip_instrument"]
