"""Default context of PyPTO's unit tests, reproduced for the acceptance suite.

Every test runs inside
    passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER),
                        ir.make_roundtrip_instrument()])
(env PYPTO_VERIFY_LEVEL=basic drops the roundtrip instrument, =none drops both), and
backend.reset_for_testing() runs before and after each test.
"""

from __future__ import annotations

import os

import pytest

from pypto import backend, passes
from pypto.ir.instruments import make_roundtrip_instrument


def _instruments():
    level = os.environ.get("PYPTO_VERIFY_LEVEL", "roundtrip").lower()
    if level == "none":
        return []
    instruments = [passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER)]
    if level == "roundtrip":
        instruments.append(make_roundtrip_instrument())
    return instruments


@pytest.fixture(autouse=True)
def pass_verification_context():
    with passes.PassContext(_instruments()):
        yield


@pytest.fixture(autouse=True)
def reset_backend():
    backend.reset_for_testing()
    yield
    backend.reset_for_testing()
