"""Parser exceptions (API.md 7)."""

from pypto.language.parser.diagnostics import *  # noqa: F403
from pypto.language.parser.diagnostics import __all__  # noqa: F401
