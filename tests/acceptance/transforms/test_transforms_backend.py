"""The transforms conftest selects Ascend950 for every test, as in PyPTO's unit tests."""

from __future__ import annotations

from pypto import backend
from pypto.backend import BackendType


def test_transforms_run_on_ascend950():
    assert backend.get_backend_type() == BackendType.Ascend950


def test_a_test_fixture_may_reset_and_choose_910b():
    backend.reset_for_testing()
    backend.set_backend_type(BackendType.Ascend910B)
    assert backend.get_backend_type() == BackendType.Ascend910B
