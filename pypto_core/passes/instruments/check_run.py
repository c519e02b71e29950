"""The check-run instrument lives with the reference machine; load it only when asked for."""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError


def load_check_run_instrument() -> Any:
    try:
        from pypto_core.interp.check_run import make_check_run_instrument
    except ImportError as exc:
        raise UserError("verify = 'check-run' needs the reference machine (pypto_core.interp.check_run), "
                        f"which is not available in this installation: {exc}") from None
    return make_check_run_instrument()
