"""As in PyPTO's unit tests of the transforms: every transforms test runs on Ascend950."""

from __future__ import annotations

import pytest

from pypto import backend
from pypto.backend import BackendType


@pytest.fixture(autouse=True)
def setup_backend():
    backend.reset_for_testing()
    backend.set_backend_type(BackendType.Ascend950)
    yield
    backend.reset_for_testing()
