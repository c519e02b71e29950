"""`import pypto.language.distributed as pld`: re-exports the core's pld namespace
(pypto_core/language/pld.py)."""

from pypto_core.language.pld import *  # noqa: F403
from pypto_core.language.pld import (  # noqa: F401
    __all__,
    __getattr__,  # noqa: F401,E402 - `pld.NotifyOp` and other plugin names
    __pypto_dsl__,
)
