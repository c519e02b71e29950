"""`pypto.pypto_core`: the names PyPTO's C++ extension module exposes (`passes`, `ir`)."""

from pypto_core import ir, passes


def _clear_thread_log_level() -> None:
    """Thread-local log levels do not exist here; kept for PyPTO's conftest."""


__all__ = ["_clear_thread_log_level", "ir", "passes"]
