"""Every test runs its passes under PyPTO's default instruments (verification + round trip)."""

from pypto_core.testing import pypto_pass_context  # noqa: F401 - the autouse fixture
