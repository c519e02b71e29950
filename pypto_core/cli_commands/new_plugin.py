"""`pypto new-plugin NAME --kind op|pass|backend [--dir D]`: scaffold a plugin package whose tests pass.

The package, written to D/NAME (D defaults to the current directory):

* `pyproject.toml` -- the distribution NAME with its `pypto.plugins` entry point, and the pytest settings
  that let its tests run before it is installed (`pypto_plugins`, pypto's pytest plugin);
* `<module>/plugin.py` -- the plugin, importing only `pypto.plugin` (and `pypto.language` in tests);
* `tests/test_<module>.py` -- tests using the fixtures of pypto's pytest plugin;
* `README.md` and a `setup.py` shim (for `pip install -e` where setuptools cannot build editable wheels).

`<module>` is NAME with every character that is not a letter, digit or underscore turned into `_`; it is
also the entry-point name and the plugin's op namespace / pass prefix. A scaffold never overwrites: the
target directory must not exist or be empty.
"""

from __future__ import annotations

import argparse
import keyword
import re
from pathlib import Path
from typing import Any

from pypto_core.cli_commands._console import stdout_console
from pypto_core.cli_commands._errors import EXIT_OK, UsageError

KINDS = ("op", "pass", "backend")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "new-plugin", help="scaffold a plugin package (an op, a pass or a backend) whose tests pass",
        description="Write a plugin package: pyproject.toml with its pypto.plugins entry point, the plugin "
                    "module (using only pypto.plugin), a README and tests using pypto's pytest fixtures.")
    parser.add_argument("name", metavar="NAME", help="the distribution name, e.g. myext (also the module name, "
                                                     "with '-' turned into '_')")
    parser.add_argument("--kind", choices=KINDS, required=True, help="what the plugin provides")
    parser.add_argument("--dir", metavar="D", default=".", help="write the package to D/NAME (default: .)")
    parser.set_defaults(handler=run_new_plugin)


def module_name(name: str) -> str:
    """The Python module (and entry-point) name for a distribution name; a UsageError when there is none."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", name):
        raise UsageError(f"new-plugin: '{name}' is not a plugin name: use letters, digits, '-', '_' and '.', "
                         "starting with a letter (e.g. myext)")
    ident = re.sub(r"[^0-9A-Za-z_]", "_", name).lower()
    if keyword.iskeyword(ident) or ident in ("pypto", "pypto_core", "pypto_plugins", "test", "tests"):
        raise UsageError(f"new-plugin: '{name}' would make the module '{ident}', which is taken; choose another name")
    return ident


def camel(ident: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in ident.split("_") if part)


def scaffold(name: str, kind: str, directory: Path) -> Path:
    """Write the package for plugin NAME of `kind` into directory/NAME and return that path."""
    if kind not in KINDS:
        raise UsageError(f"new-plugin: --kind must be one of {', '.join(KINDS)}, not '{kind}'")
    ident = module_name(name)
    target = directory / name
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(f"new-plugin: {target} already exists and is not an empty directory; "
                         "choose another NAME or --dir")
    values = {"__NAME__": name, "__IDENT__": ident, "__CAMEL__": camel(ident), "__KIND__": kind,
              "__WHAT__": _WHAT[kind].replace("__IDENT__", ident).replace("__CAMEL__", camel(ident))}
    files = {
        "pyproject.toml": PYPROJECT,
        "setup.py": SETUP_PY,
        "README.md": README + _README_KIND[kind],
        f"{ident}/__init__.py": INIT,
        f"{ident}/plugin.py": _PLUGIN[kind],
        f"tests/test_{ident}.py": _TESTS[kind],
    }
    for relative, template in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_fill(template, values), encoding="utf-8")
    return target


def _fill(template: str, values: dict[str, str]) -> str:
    text = template.lstrip("\n")
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def run_new_plugin(args: argparse.Namespace) -> int:
    try:
        target = scaffold(args.name, args.kind, Path(args.dir))
    except OSError as exc:
        raise UsageError(f"new-plugin: cannot write the package: {exc}") from None
    console = stdout_console()
    console.print(f"wrote the {args.kind} plugin '{args.name}' to {target}")
    console.print(f"  cd {target}")
    console.print("  pip install 'pytest>=7.4'    # the test runner: pypto's own install does not bring it")
    console.print("  python -m pytest -q          # its tests, before installing it")
    console.print("  pip install -e .             # then `pypto list plugins` shows it")
    return EXIT_OK


_WHAT = {
    "op": "the op `__IDENT__.twice` (`pl.__IDENT__.twice(x)` in the DSL, `x + x` on the reference machine)",
    "pass": "the pass `__IDENT___mul_to_add` (`x * 2.0` becomes `x + x`) and the IR property "
            "`__CAMEL__NoMulByTwo` it produces, with its verifier",
    "backend": "the backend `__CAMEL__` (its capabilities, memory capacities and core group)",
}

PYPROJECT = '''
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "__NAME__"
version = "0.1.0"
description = "A pypto plugin: __WHAT__"
readme = "README.md"
requires-python = ">=3.10"
dependencies = ["pypto"]

[project.optional-dependencies]
test = ["pytest>=7.4"]

# pypto finds the plugin through this entry point once the package is installed.
[project.entry-points."pypto.plugins"]
__IDENT__ = "__IDENT__.plugin"

[tool.setuptools]
packages = ["__IDENT__"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
# pypto's pytest plugin registers this plugin in process when it is not installed, so the tests run
# straight after `pypto new-plugin`; once installed, the entry point loads it.
pypto_plugins = ["__IDENT__ = __IDENT__.plugin"]
'''

SETUP_PY = '''
# Only for `pip install --no-use-pep517 -e .` with a setuptools too old to build editable wheels;
# everything is declared in pyproject.toml.
from setuptools import setup

setup()
'''

INIT = '''
"""The pypto plugin __NAME__ (its hooks are in __IDENT__.plugin)."""
'''

README = '''
# __NAME__

A [pypto](https://pypi.org/project/pypto/) plugin: __WHAT__.

Scaffolded by `pypto new-plugin __NAME__ --kind __KIND__`. The plugin module `__IDENT__/plugin.py` imports
only `pypto.plugin`, pypto's public plugin API, and declares the API version it was written against
(`PYPTO_PLUGIN_API`); pypto refuses to load it, naming both versions, when it no longer provides that API.

## Try it

```sh
pip install 'pytest>=7.4'    # the test runner (or `pip install -e '.[test]'`, which also installs the plugin)
python -m pytest -q          # runs before installing: pyproject.toml registers the plugin for the tests
pip install -e .             # installs the `pypto.plugins` entry point `__IDENT__`
pypto list plugins           # shows __IDENT__, its distribution and what it registered
```

The tests use the fixtures of pypto's pytest plugin (loaded automatically when pypto is installed):
`pypto_run_pass` (a pass under pypto's verification and round-trip checks), `pypto_assert_equal`
(structural equality with a diff of the printed programs), `pypto_same_results` / `pypto_check_pipeline`
(the program before and after, run on pypto's reference machine and compared) and the
`@pytest.mark.pypto_backend("NAME")` marker.

'''

_README_KIND = {
    "op": '''## The op

`__IDENT__/plugin.py` defines the op as one unit, an `OpFamily`: its OpDef gives its signature and result
type (`deduce_twice`), `@family.semantics` its meaning on the reference machine (`evaluate_twice`), and
`pl.__IDENT__.twice(x)` is built from the OpDef's declaration (`dsl=OP_NAME`). `pypto run --verify check-run
prog.py` runs a program using it. To make it usable inside a `pl.at` kernel, implement the `tile_form` op
interface for it (`@family.implements("tile_form", OP_NAME)`, docs/plugins.md in pypto).
''',
    "pass": '''## The pass

`__IDENT___mul_to_add` rewrites `tensor.muls(x, k)` by an integral `k` from 2 to `max_factor` (an option,
default 2) into `k` additions of `x`. Use it from `pypto.toml`:

```toml
[pipeline]
passes = ["convert_to_ssa", "__IDENT___mul_to_add"]

[passes.__IDENT___mul_to_add]
max_factor = 3
```

or `pypto compile --pipeline 'convert_to_ssa,__IDENT___mul_to_add{max_factor=3}' prog.py`. The pass produces
the property `__CAMEL__NoMulByTwo`; its verifier runs after the pass at `verify = "basic"`.
''',
    "backend": '''## The backend

`pypto compile --backend __CAMEL__ prog.py` (or `backend = "__CAMEL__"` in `pypto.toml`) compiles for it.
A backend states every capability pypto knows (`pypto list backends` shows them); passes ask
`ctx.backend.capability(...)`, never the backend's name.
''',
}

OP_PLUGIN = '''
"""The pypto plugin __NAME__: the op `__IDENT__.twice`, `pl.__IDENT__.twice(x)` in the DSL.

`twice(x)` is `x + x` for a tensor `x`: same shape and dtype.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto.plugin import (
    ArgSpec,
    Call,
    EvalContext,
    Expr,
    OpDef,
    OpFamily,
    Registrar,
    TensorType,
    Type,
    hookimpl,
)

PYPTO_PLUGIN_API = (2, 0)  # the pypto plugin API this plugin is written against

OP_NAME = "__IDENT__.twice"

# Everything about the plugin's ops, one unit per op: its OpDef, its numpy semantics, its DSL builder.
family = OpFamily("__IDENT__")


def deduce_twice(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """The result type: the operand's. A TypeError is reported at the call in the user's program."""
    (x,) = args
    if not isinstance(x.type, TensorType):
        raise TypeError(f"{OP_NAME} takes a tensor, got {type(x.type).__name__}")
    return x.type


# `dsl=OP_NAME`: `pl.__IDENT__.twice(x)` is built from the declaration (its ArgSpecs), no builder to write.
family.op(OpDef(OP_NAME, deduce_twice, args=(ArgSpec("x", doc="a tensor"),), doc="Twice its operand (x + x)."),
          dsl=OP_NAME)


@family.semantics(OP_NAME)
def evaluate_twice(ctx: EvalContext, call: Call, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    """The reference machine: `args[0]` is the operand as a numpy array; return a fresh array."""
    return args[0] + args[0]


@hookimpl
def pypto_register_ops(registry: Registrar) -> None:
    registry.register_family(family)
'''

OP_TESTS = '''
"""Tests of the op __IDENT__.twice, with the fixtures of pypto's pytest plugin."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto.plugin import find_opdef, python_print

PROGRAM = """
import pypto.language as pl


@pl.program
class UsesTwice:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.__IDENT__.twice(x)
        return y
"""

# What the op means, written with pypto's own ops.
REFERENCE = PROGRAM.replace("pl.__IDENT__.twice(x)", "pl.add(x, x)")


def test_the_op_is_registered():
    opdef = find_opdef("__IDENT__.twice")
    assert opdef is not None and opdef.evaluate is not None


def test_the_op_prints_and_parses_back(pypto_assert_equal):
    program = pl.parse(PROGRAM)
    printed = python_print(program)
    assert "pl.__IDENT__.twice(x)" in printed
    pypto_assert_equal(program, pl.parse(printed))


def test_the_reference_machine_computes_x_plus_x(pypto_same_results):
    pypto_same_results(REFERENCE, PROGRAM)


def test_the_op_goes_through_convert_to_ssa(pypto_check_pipeline):
    compiled = pypto_check_pipeline(PROGRAM, "convert_to_ssa")
    assert "pl.__IDENT__.twice(" in python_print(compiled)


def test_a_scalar_operand_is_rejected():
    bad = (PROGRAM.replace("x: pl.Tensor[[64], pl.FP32])", "x: pl.Tensor[[64], pl.FP32], k: pl.Scalar[pl.FP32])")
           .replace("pl.__IDENT__.twice(x)", "pl.__IDENT__.twice(k)"))
    with pytest.raises(Exception, match="takes a tensor"):
        pl.parse(bad)
'''

PASS_PLUGIN = '''
"""The pypto plugin __NAME__: the pass `__IDENT___mul_to_add` and the property `__CAMEL__NoMulByTwo`.

`__IDENT___mul_to_add` rewrites `tensor.muls(x, k)` by an integral constant `k` from 2 to `max_factor`
into `k` additions of `x` (`x * 2.0` -> `x + x`). It produces `__CAMEL__NoMulByTwo` (no `x * 2.0` is left),
which its verifier checks after the pass.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pypto.plugin import (
    Call,
    ConstFloat,
    Diagnostic,
    IRMutator,
    IRVisitor,
    Pass,
    PassContext,
    PassOptions,
    Program,
    Registrar,
    create_op_call,
    error,
    hookimpl,
)

PYPTO_PLUGIN_API = (2, 0)  # the pypto plugin API this plugin is written against

PROPERTY = "__CAMEL__NoMulByTwo"


def constant_factor(call: Any) -> float | None:
    """The constant `k` of a `tensor.muls(x, k)` call, else None."""
    if getattr(call.op, "name", "") != "tensor.muls" or len(call.args) != 2:
        return None
    factor = call.args[1]
    return float(factor.value) if isinstance(factor, ConstFloat) else None


class MulToAddOptions(PassOptions):
    max_factor: int = Field(2, ge=2, le=8, description="the largest integral factor to rewrite")


class MulToAdd(Pass):
    name = "__CAMEL__MulToAdd"                # the class name in messages
    factory_name = "__IDENT___mul_to_add"     # the name in pypto.toml, --pipeline and passes.__IDENT___mul_to_add()
    Options = MulToAddOptions
    required = ()
    produced = (PROPERTY,)
    invalidated = ()
    description = "x * k by a small integral constant k -> k additions of x"

    def run(self, program: Program, ctx: PassContext) -> Program:
        max_factor = self.options.max_factor

        class Rewrite(IRMutator):
            def visit_call(self, call: Call) -> Any:
                call = super().visit_call(call)
                factor = constant_factor(call)
                if factor is None or not factor.is_integer() or not 2 <= factor <= max_factor:
                    return call
                x = call.args[0]
                total = create_op_call("tensor.add", [x, x], span=call.span)
                for _ in range(int(factor) - 2):
                    total = create_op_call("tensor.add", [total, x], span=call.span)
                return total

        return Rewrite().visit_program(program)


def verify_no_mul_by_two(program: Program) -> list[Diagnostic]:
    """One error per `tensor.muls(x, 2.0)` left; a verifier reports, it never raises."""
    found: list[Diagnostic] = []

    class Find(IRVisitor):
        def visit_call(self, call: Call) -> None:
            if constant_factor(call) == 2.0:
                found.append(error(PROPERTY, "x * 2.0 is left; run __IDENT___mul_to_add", call.span))
            super().visit_call(call)

    Find().visit_program(program)
    return found


@hookimpl
def pypto_register_properties(registry: Registrar) -> None:
    registry.register_property(PROPERTY, verify_no_mul_by_two, "no tensor.muls(x, 2.0) is left")


@hookimpl
def pypto_register_passes(registry: Registrar) -> None:
    registry.register_pass(MulToAdd)
'''

PASS_TESTS = '''
"""Tests of the pass __IDENT___mul_to_add, with the fixtures of pypto's pytest plugin."""

from __future__ import annotations

import pytest

import pypto.language as pl
from __IDENT__.plugin import verify_no_mul_by_two

BEFORE = """
import pypto.language as pl


@pl.program
class Scales:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.mul(x, 2.0)
        z = pl.mul(y, 3.0)
        return z
"""

AFTER = BEFORE.replace("pl.mul(x, 2.0)", "pl.add(x, x)")
AFTER_3 = AFTER.replace("pl.mul(y, 3.0)", "pl.add(pl.add(y, y), y)")


def test_x_times_two_becomes_x_plus_x(pypto_run_pass, pypto_assert_equal):
    pypto_assert_equal(AFTER, pypto_run_pass("__IDENT___mul_to_add", BEFORE))


def test_max_factor_rewrites_larger_factors(pypto_run_pass, pypto_assert_equal):
    pypto_assert_equal(AFTER_3, pypto_run_pass("__IDENT___mul_to_add", BEFORE, max_factor=3))


def test_options_are_checked():
    from pypto.plugin import Pass

    from __IDENT__.plugin import MulToAdd

    assert issubclass(MulToAdd, Pass)
    with pytest.raises(Exception, match="max_factor"):
        MulToAdd(max_factor=1)


def test_the_program_computes_the_same(pypto_check_pipeline):
    pypto_check_pipeline(BEFORE, "convert_to_ssa,__IDENT___mul_to_add{max_factor=3}")


def test_the_verifier_finds_what_is_left():
    (finding,) = verify_no_mul_by_two(pl.parse(BEFORE))
    assert "run __IDENT___mul_to_add" in finding.message
    assert verify_no_mul_by_two(pl.parse(AFTER)) == []
'''

BACKEND_PLUGIN = '''
"""The pypto plugin __NAME__: the backend `__CAMEL__`.

A backend states every capability pypto knows (`CAPABILITIES`), the capacity of each on-chip memory and
the core group the reference machine runs Groups on.
"""

from __future__ import annotations

from pypto.plugin import Backend, CoreGroup, MemorySpace, Registrar, hookimpl

PYPTO_PLUGIN_API = (2, 0)  # the pypto plugin API this plugin is written against

KB = 1024

BACKEND = Backend(
    name="__CAMEL__",
    capabilities={
        "requires_no_split_dual_aiv_dispatch": False,
        "requires_vtoc_fractal_adapt": True,
        "requires_gm_pipe_buffer": False,
        "supports_mx_matmul": False,
    },
    memory_capacity={
        MemorySpace.Vec: 192 * KB,
        MemorySpace.Mat: 512 * KB,
        MemorySpace.Left: 64 * KB,
        MemorySpace.Right: 64 * KB,
        MemorySpace.Acc: 128 * KB,
        MemorySpace.Bias: 4 * KB,
    },
    core_group=CoreGroup(aic_cores=1, aiv_lanes=2, default_fifo_depth=2),
    description="__CAMEL__: 1 AIC + 2 AIV per core group (scaffolded by pypto new-plugin)",
)


@hookimpl
def pypto_register_backends(registry: Registrar) -> None:
    registry.register_backend(BACKEND)
'''

BACKEND_TESTS = '''
"""Tests of the backend __CAMEL__, with the fixtures of pypto's pytest plugin."""

from __future__ import annotations

import pytest

from pypto.plugin import CAPABILITIES, MemorySpace, python_print

PROGRAM = """
import pypto.language as pl


@pl.program
class Basic:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.load(y, [0], [64])
            tile_sq = pl.mul(tile, tile)
            result = pl.store(pl.add(tile_sq, 1.0), [0], x)
        z = pl.add(result, 2.0)
        return z
"""


@pytest.mark.pypto_backend("__CAMEL__")
def test_the_backend_is_registered_and_complete(pypto_backend):
    assert pypto_backend.name == "__CAMEL__"
    for capability in CAPABILITIES:
        assert isinstance(pypto_backend.capability(capability), bool)
    assert pypto_backend.capacity(MemorySpace.Vec) > 0


@pytest.mark.pypto_backend("__CAMEL__")
def test_the_default_pipeline_keeps_the_meaning_on_this_backend(pypto_check_pipeline):
    compiled = pypto_check_pipeline(PROGRAM, "default")
    assert "pl.tile.load(" in python_print(compiled)
'''

_PLUGIN = {"op": OP_PLUGIN, "pass": PASS_PLUGIN, "backend": BACKEND_PLUGIN}
_TESTS = {"op": OP_TESTS, "pass": PASS_TESTS, "backend": BACKEND_TESTS}
