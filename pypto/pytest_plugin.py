"""pypto's pytest plugin for plugin authors (entry point `pytest11`: `pypto = "pypto.pytest_plugin"`).

Installed with pypto, so every test session sees it; it only adds fixtures and a marker (nothing runs
unless a test asks for it):

* `pypto_run_pass(pass_, program, **options)` runs one pass under the context pypto's own tests use:
  required / produced properties verified before and after the pass, and the print -> parse round trip
  (`PYPTO_VERIFY_LEVEL=basic` drops the round trip, `=none` both; `@pytest.mark.unverified` drops both);
* `pypto_assert_equal(expected, actual)` asserts structural equality and, when it fails, shows a unified
  diff of the two printed programs and the first mismatching path;
* `pypto_same_results(before, after)` runs both programs on the reference machine from the same inputs
  and compares every output; `pypto_check_pipeline(program, pipeline)` runs a pipeline (verified as above)
  and then that comparison, returning the compiled program;
* `pypto_backend` is the Backend the test runs against: `@pytest.mark.pypto_backend("Ascend950")`
  chooses it (default: pypto's default backend) for these fixtures and, for a marked test, process-wide
  (`pypto.backend`) while the test runs;
* `pypto_verified_context` enters that verification context for the whole test (an opt-in version of
  `pypto_core.testing.pypto_pass_context`).

A plugin's tests can run before the plugin is installed: the ini option `pypto_plugins` (lines
`NAME = module`) registers each named plugin in process at session start unless an installed plugin of
that name exists (`pypto new-plugin` writes it into the scaffold's pyproject.toml).

Programs may be given as `ir.Program` objects or as `pl` DSL source text.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

BACKEND_MARKER = "pypto_backend"
_PREVIOUS_BACKEND = pytest.StashKey[tuple[bool, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("pypto_plugins", type="linelist", default=[],
                  help="pypto plugins to register in process when not installed: lines 'NAME = module'")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{BACKEND_MARKER}(name): run the test against the pypto backend NAME "
                                       "(pypto's pytest plugin: the pypto_* fixtures and pypto.backend)")
    config.addinivalue_line("markers", "unverified: run passes without pypto's verification instruments")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Register the `pypto_plugins` of the ini file that are not installed (nothing when there are none)."""
    entries = [line for line in session.config.getini("pypto_plugins") if line.strip()]
    if not entries:
        return
    import importlib

    from pypto_core.plugins.host import discovered_plugin_names, register_in_process_plugin

    for line in entries:
        name, sep, module_name = (part.strip() for part in line.partition("="))
        if not sep or not name or not module_name:
            raise pytest.UsageError(f"pypto_plugins: '{line}' is not 'NAME = module'")
        if name in discovered_plugin_names():
            continue  # installed: the entry point loads it
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise pytest.UsageError(f"pypto_plugins: cannot import '{module_name}' for plugin '{name}': "
                                    f"{type(exc).__name__}: {exc}") from exc
        register_in_process_plugin(name, module)


# -- the backend marker -------------------------------------------------------------------------------------
def _marked_backend(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker(BACKEND_MARKER)
    if marker is None:
        return None
    name = marker.args[0] if marker.args else marker.kwargs.get("name")
    if not isinstance(name, str) or not name:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{BACKEND_MARKER} needs a backend name, "
                                f"e.g. @pytest.mark.{BACKEND_MARKER}(\"Ascend950\")")
    return name


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Only a test carrying the marker is touched: the process-wide backend is its backend while it runs."""
    name = _marked_backend(item)
    if name is None:
        return
    from pypto_core.backend.selection import (
        clear_selection,
        resolve_backend_name,
        select_backend,
        selected_backend_name,
    )

    item.stash[_PREVIOUS_BACKEND] = (True, selected_backend_name())
    resolved = resolve_backend_name(name)
    clear_selection()
    select_backend(resolved)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    saved = item.stash.get(_PREVIOUS_BACKEND, None)
    if saved is None:
        return
    from pypto_core.backend.selection import clear_selection, select_backend

    clear_selection()
    if saved[1] is not None:
        select_backend(saved[1])


# -- helpers ------------------------------------------------------------------------------------------------
def _as_program(program: Any) -> Any:
    if isinstance(program, str):
        import pypto.language as pl

        return pl.parse(program)
    return program


def _printed(node: Any) -> str:
    from pypto_core.language.printer import python_print

    try:
        return python_print(node)
    except Exception as exc:  # a printer failure must not hide the comparison
        return f"<cannot print {type(node).__name__}: {exc}>"


def verification_instruments(verified: bool = True) -> list[Any]:
    """The instruments of pypto's own tests (tests/acceptance/conftest.py), honouring PYPTO_VERIFY_LEVEL."""
    from pypto_core.passes.instruments.assemble import pass_test_instruments

    return pass_test_instruments() if verified else []


def make_pass(pass_: Any, **options: Any) -> Any:
    """A Pass instance from an instance, a Pass class or a registered factory name (with options)."""
    from pypto_core.passes.pass_base import Pass
    from pypto_core.passes.registry import pass_class

    if isinstance(pass_, Pass):
        if options:
            raise TypeError("options are given to a pass class or name, not to a Pass instance")
        return pass_
    if isinstance(pass_, type) and issubclass(pass_, Pass):
        return pass_(**options)
    if isinstance(pass_, str):
        return pass_class(pass_)(**options)
    raise TypeError(f"a pass is a Pass instance, a Pass class or a registered pass name, not {pass_!r}")


def pipeline_passes(pipeline: str | Sequence[Any]) -> list[Any]:
    """Pass instances for a `--pipeline` string (`convert_to_ssa,my_pass{k=1}`, presets allowed) or a list
    of passes, Pass classes and names."""
    if not isinstance(pipeline, str):
        return [make_pass(p) for p in pipeline]
    from pypto_core.passes.pipeline_spec import parse_pipeline
    from pypto_core.passes.registry import PASSES, PIPELINES

    out: list[Any] = []
    for step in parse_pipeline(pipeline):
        preset = PIPELINES.get(step.name) if step.name not in PASSES and not step.options else None
        if preset is not None:
            out.extend(make_pass(name) for name in preset)
        else:
            out.append(make_pass(step.name, **step.options))
    return out


def assert_equal(expected: Any, actual: Any) -> None:
    """Structural equality; a failure shows the diff of the printed programs and the first mismatch."""
    __tracebackhide__ = True
    from pypto_core.ir.structural import assert_structural_equal

    expected, actual = _as_program(expected), _as_program(actual)
    try:
        assert_structural_equal(expected, actual)
    except ValueError as exc:
        diff = "".join(difflib.unified_diff(_printed(expected).splitlines(keepends=True),
                                            _printed(actual).splitlines(keepends=True),
                                            fromfile="expected", tofile="actual"))
        first = str(exc).splitlines()[0]
        raise AssertionError(f"the programs differ ({first})\n{diff or '(the printed forms are equal)'}") from None


def same_results(before: Any, after: Any, seed: int = 0, backend: Any = None) -> None:
    """Every entry function of `before` gives the same outputs in `after` on the reference machine."""
    __tracebackhide__ = True
    from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program, shape_from_backend

    before, after = _as_program(before), _as_program(after)
    shape = shape_from_backend(backend) if backend is not None else None
    for entry in Machine(before).roots():
        inputs = make_inputs(entry, seed=seed)
        checks = compare_outputs(run_program(before, inputs, entry.name),
                                 run_program(after, inputs, entry.name, shape=shape))
        if not checks:
            raise AssertionError(f"{entry.name} produces no output to compare")
        bad = [f"{c.label}: {c.comparison.describe()}" for c in checks if not c.comparison.ok]
        if bad:
            raise AssertionError(f"{entry.name} computes something else after the pipeline: " + "; ".join(bad))


# -- fixtures -----------------------------------------------------------------------------------------------
@pytest.fixture
def pypto_backend(request: pytest.FixtureRequest) -> Any:
    """The Backend of this test: `@pytest.mark.pypto_backend(NAME)`, else pypto's default backend."""
    from pypto_core.backend.registry import get_backend
    from pypto_core.backend.selection import DEFAULT_BACKEND, resolve_backend_name

    name = _marked_backend(request.node) or DEFAULT_BACKEND
    return get_backend(resolve_backend_name(name))


def _context(request: pytest.FixtureRequest, backend: Any) -> Any:
    from pypto_core.passes.context import PassContext

    verified = request.node.get_closest_marker("unverified") is None
    return PassContext(verification_instruments(verified), backend=backend.name)


@pytest.fixture
def pypto_verified_context(request: pytest.FixtureRequest, pypto_backend: Any) -> Iterator[Any]:
    """The whole test runs inside pypto's verification and round-trip context (and the test's backend)."""
    with _context(request, pypto_backend) as ctx:
        yield ctx


@pytest.fixture
def pypto_run_pass(request: pytest.FixtureRequest, pypto_backend: Any) -> Callable[..., Any]:
    """`pypto_run_pass(pass_, program, **options) -> Program`: one pass, verified and round-tripped."""

    def run(pass_: Any, program: Any, **options: Any) -> Any:
        __tracebackhide__ = True
        instance = make_pass(pass_, **options)
        with _context(request, pypto_backend):
            return instance(_as_program(program))

    return run


@pytest.fixture
def pypto_assert_equal() -> Callable[[Any, Any], None]:
    """`pypto_assert_equal(expected, actual)`: structural equality with a readable diff."""
    return assert_equal


@pytest.fixture
def pypto_same_results(pypto_backend: Any) -> Callable[..., None]:
    """`pypto_same_results(before, after, seed=0)`: the same outputs on the reference machine."""

    def check(before: Any, after: Any, seed: int = 0) -> None:
        __tracebackhide__ = True
        same_results(before, after, seed=seed, backend=pypto_backend)

    return check


@pytest.fixture
def pypto_check_pipeline(request: pytest.FixtureRequest, pypto_backend: Any) -> Callable[..., Any]:
    """`pypto_check_pipeline(program, pipeline, seed=0) -> Program`: run the pipeline under the verification
    context, then compare the program before and after on the reference machine."""

    def check(program: Any, pipeline: str | Sequence[Any], seed: int = 0) -> Any:
        __tracebackhide__ = True
        before = _as_program(program)
        after = before
        with _context(request, pypto_backend):
            for p in pipeline_passes(pipeline):
                after = p(after)
        same_results(before, after, seed=seed, backend=pypto_backend)
        return after

    return check
