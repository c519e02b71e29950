"""pypto: a plugin-based compiler for tile programs (see README.md).

`from pypto import ir, passes`, `import pypto.language as pl`.
"""

from __future__ import annotations

import enum
import logging

from pypto import backend, ir, language, pypto_core, runtime  # noqa: E402
from pypto_core import passes  # noqa: E402
from pypto_core.errors import Error, InternalError
from pypto_core.ir.dtypes import DataType
from pypto_core.language.dsl_root import __pypto_dsl__  # noqa: F401 - the parser knows `pypto.language.X` by it


class LogLevel(enum.IntEnum):
    DEBUG = logging.DEBUG
    INFO = logging.INFO
    WARN = logging.WARNING
    ERROR = logging.ERROR
    FATAL = logging.CRITICAL


_logger = logging.getLogger("pypto")


def get_log_level() -> LogLevel:
    return LogLevel(_logger.getEffectiveLevel()) if _logger.getEffectiveLevel() in iter(LogLevel) else LogLevel.WARN


def set_log_level(level: LogLevel | int) -> None:
    _logger.setLevel(int(level))


__all__ = ["DataType", "Error", "InternalError", "LogLevel", "backend", "get_log_level", "ir", "language",
           "passes", "pypto_core", "runtime", "set_log_level"]
