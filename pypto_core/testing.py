"""Test helpers for pass authors (bundled and third-party plugins alike).

In a plugin's `tests/conftest.py`:

    from pypto_core.testing import pypto_pass_context  # noqa: F401 - the autouse fixture

and every test then runs its passes the way PyPTO's conftest does: verification of required /
produced properties before and after each pass plus the print -> parse round trip (docs/architecture.md, the pass manager).
A test that feeds deliberately invalid IR opts out with `@pytest.mark.unverified`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def pypto_pass_context(request: pytest.FixtureRequest) -> Iterator[None]:
    from pypto_core import passes
    from pypto_core.passes.instruments.assemble import pass_test_instruments

    instruments = [] if request.node.get_closest_marker("unverified") else pass_test_instruments()
    with passes.PassContext(instruments):
        yield


def same_results(before: object, after: object, seed: int = 0, backend: str | None = None) -> None:
    """Assert that every entry function of `before` gives the same outputs (and Out/InOut parameters)
    in `after` on the reference machine, from the same generated inputs: a pass test's execution check.
    `backend`: the machine of that backend (its lanes and on-chip capacities); else the active one."""
    from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program, shape_from_backend

    shape = shape_from_backend(backend) if backend is not None else None
    for entry in Machine(before).roots():  # type: ignore[arg-type]
        inputs = make_inputs(entry, seed=seed)
        checks = compare_outputs(run_program(before, inputs, entry.name, shape),
                                 run_program(after, inputs, entry.name, shape))
        assert checks, f"{entry.name} produces no output to compare"
        bad = [f"{c.label}: {c.comparison.describe()}" for c in checks if not c.comparison.ok]
        assert not bad, f"{entry.name} computes something else after the pass: " + "; ".join(bad)


@cache
def checked_pipeline(backend: str, preset: str = "default") -> Any:
    """A preset resolved the way `pypto.toml` would (`[pipeline] preset = ...`), as a PassManager under
    verify = "check-run" (each pass checked on the reference machine) with the print -> parse round trip after
    every pass: what end-to-end regression tests compile with."""
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
    from pypto_core.passes.manager import PassManager

    loaded = parse_config_text(f'backend = "{backend}"\nverify = "check-run"\n[pipeline]\npreset = "{preset}"\n',
                               f"<{preset} pipeline for tests>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                       instruments=[make_roundtrip_instrument()])
