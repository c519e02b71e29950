"""Parser exceptions (docs/dsl.md, errors)."""

from pypto.language.parser.diagnostics import *  # noqa: F403
from pypto.language.parser.diagnostics import __all__  # noqa: F401
