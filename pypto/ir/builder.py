"""`pypto.ir.builder`: PyPTO's module of `IRBuilder` and its context objects (docs/ir_builder.md)."""

from pypto_core.ir.builder import *  # noqa: F403
from pypto_core.ir.builder import __all__  # noqa: F401
