"""Every pass in these tests runs under PyPTO's default context: verification before and after, plus the
print -> parse round trip (pypto_core.testing)."""

from pypto_core.testing import pypto_pass_context  # noqa: F401 - the autouse fixture
