"""`import pypto.language as pl`: the `pl` namespace of the DSL, provided by the core
(pypto_core/language/pl.py) and re-exported here (docs/dsl.md)."""

from pypto_core.language.pl import *  # noqa: F403
from pypto_core.language.pl import __all__, __getattr__, __pypto_dsl__  # noqa: F401
