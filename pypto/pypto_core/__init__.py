"""`pypto.pypto_core`: the names PyPTO's C++ extension module exposes (`passes`, `ir`).

`pypto.pypto_core.passes` and `pypto.pypto_core.ir` are the very modules `pypto_core.passes` / `pypto_core.ir`
(registered under both names, so `import pypto.pypto_core.passes` works as in PyPTO); `pypto.pypto_core.testing`
is `pypto.testing`."""

import sys

from pypto import testing
from pypto_core import ir, passes

sys.modules.setdefault(f"{__name__}.passes", passes)
sys.modules.setdefault(f"{__name__}.ir", ir)
sys.modules.setdefault(f"{__name__}.testing", testing)  # PyPTO's test helpers module (pypto.testing)


def _clear_thread_log_level() -> None:
    """Thread-local log levels do not exist here; kept for PyPTO's conftest."""


__all__ = ["_clear_thread_log_level", "ir", "passes", "testing"]
