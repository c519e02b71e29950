"""Run every test the way PyPTO's conftest does: verification before/after each pass and the
print -> parse round-trip instrument (API.md 5.2). Tests that feed deliberately invalid IR opt out
with the `unverified` marker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pypto import passes
from pypto.ir.instruments import make_roundtrip_instrument


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "unverified: run the pass without verification instruments")


@pytest.fixture(autouse=True)
def _pypto_pass_context(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("unverified"):
        instruments = []
    else:
        instruments = [passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER),
                       make_roundtrip_instrument()]
    with passes.PassContext(instruments):
        yield
