"""`import pypto.language.distributed as pld`: re-exports the core's pld namespace
(pypto_core/language/pld.py)."""

from pypto_core.language.pld import *  # noqa: F403
from pypto_core.language.pld import __all__, __pypto_dsl__  # noqa: F401
