"""Decorator mode (docs/dsl.md: pypto reads a program and never runs it): `@pl.program` / `@pl.function` read the source and parse it; the body is
never run, names come from the caller's closure, and annotations evaluated at def time never fail."""

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import ParserSyntaxError, SSAViolationError, UndefinedVariableError
from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import FunctionType, Level, ParamDirection, Role
from pypto_core.language.roundtrip import assert_roundtrip

M = pl.dynamic("M")
N = pl.dynamic("N")
TILE = 64


def test_program_in_a_test_function_uses_closure_ints():
    rows = 128
    scale = 2.0

    @pl.program
    class Scaled:
        @pl.function
        def main(self, x: pl.Tensor[[rows, TILE], pl.FP32]) -> pl.Tensor[[rows, TILE], pl.FP32]:
            for _ in pl.range(rows // TILE):
                x = pl.mul(x, scale)
            return x

    assert isinstance(Scaled, ir.Program) and Scaled.name == "Scaled"
    main = Scaled.get_function("main")
    assert [d.value for d in main.params[0].type.shape] == [128, 64]
    loop = ir.flatten_to_stmts(main.body)[0]
    assert isinstance(loop.stop, E.ConstInt) and loop.stop.value == 2  # folded from closure names
    assert_roundtrip(Scaled)


def test_function_decorator_on_a_nested_function():
    offset = 3

    @pl.function
    def add_offset(a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        b = a + offset
        return b

    assert isinstance(add_offset, ir.Function) and add_offset.name == "add_offset"
    (assign, _) = ir.flatten_to_stmts(add_offset.body)
    assert assign.value.right.value == 3
    assert_roundtrip(add_offset)


def test_decorator_keywords():
    with pytest.warns(DeprecationWarning):
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.NONE, "split_aiv": True})
        def kernel(a: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
            return out

    assert kernel.func_type is FunctionType.InCore
    assert (kernel.level, kernel.role) == (Level.CHIP_DIE, Role.SubWorker)
    assert kernel.attrs == {"split_aiv": True}  # SplitMode.NONE is dropped
    assert kernel.param_directions == (ParamDirection.In, ParamDirection.Out)


def test_decorator_attrs_warn():
    with pytest.warns(DeprecationWarning, match="func_attr"):
        @pl.function(attrs={"slot_num": 2})
        def f(a: pl.Scalar[pl.INDEX]):
            pass

    assert f.attrs == {"slot_num": 2}


def test_module_level_dynamic_dims_and_def_time_annotations():
    # Every annotation below is evaluated by Python when the class is defined; none may fail.
    @pl.program
    class Dyn:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[M, N], pl.FP32],
                   b: pl.Tensor[[M + 1, N * 2 - 1], pl.FP32, pl.TensorView(valid_shape=[M, N], layout=pl.ND)],
                   c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[pl.min(M, 128), 128])],
                   d: pl.Tile[[16, 16], pl.FP32, pl.MemRef("ub", 0, 1024), pl.Mem.Vec],
                   e: pl.InOut[pl.Tensor[[pl.const(32, pl.INDEX) + pl.const(32, pl.INDEX), -M * 2], pl.FP16]],
                   f: pl.Tensor[[pl.max(M, N), pl.cast(M, pl.INDEX), pl.const(1, pl.INDEX) + M], pl.BF16]
                   ) -> tuple[pl.Tensor[[M, N], pl.FP32], pl.Scalar[pl.INDEX]]:
            return a, M

        @pl.function
        def main(self, a: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
            return a

    kernel = Dyn.get_function("kernel")
    m_var = kernel.params[0].type.shape[0]
    assert isinstance(m_var, E.Var) and m_var.name_hint == "M"
    assert Dyn.get_function("main").params[0].type.shape[0] is m_var  # one Var per dynamic dim per program
    assert isinstance(kernel.params[1].type.shape[0], E.Add)
    assert isinstance(kernel.params[2].type.tile_view.valid_shape[0], E.Min)
    assert kernel.param_directions[4] is ParamDirection.InOut
    assert len(kernel.return_types) == 2
    text = ir.python_print(Dyn)
    assert text.startswith('# pypto.program: Dyn\nimport pypto.language as pl\n\nM = pl.dynamic("M")\n'
                           'N = pl.dynamic("N")\n\n@pl.program\nclass Dyn:\n')
    assert_roundtrip(Dyn)


def test_program_strict_ssa():
    with pytest.raises(SSAViolationError, match="assigned twice"):
        @pl.program(strict_ssa=True)
        class Strict:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                y = n + 1
                y = y + 1
                return y


def test_strict_ssa_on_an_inner_function_has_no_effect():
    @pl.program
    class Lenient:
        @pl.function(strict_ssa=True)
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            y = n + 1
            y = y + 1
            return y

    (first, second, _) = ir.flatten_to_stmts(Lenient.get_function("main").body)
    assert first.var is second.var  # non-strict: the same Var is assigned twice


def test_strict_ssa_on_a_free_function():
    with pytest.raises(SSAViolationError):
        @pl.function(strict_ssa=True)
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            y = n + 1
            y = y + 1
            return y


def test_body_is_never_executed():
    calls = []

    def boom() -> int:
        calls.append("called")
        return 1

    with pytest.raises(Exception) as info:
        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            boom()
            return n

    assert calls == []
    assert "boom" in str(info.value)


def test_self_calls_in_a_decorated_program_propagate_return_types():
    @pl.program
    class Calls:
        @pl.function
        def pair(self, a: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.FP32]]:
            return a, pl.cast(a, pl.FP32)

        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.FP32]:
            i, f = self.pair(n)
            return f

    tmp, i_def, f_def, _ = ir.flatten_to_stmts(Calls.get_function("main").body)
    assert tmp.var.name_hint == "_tuple_tmp" and isinstance(tmp.value.op, ir.GlobalVar)
    assert isinstance(i_def.value, ir.TupleGetItemExpr) and i_def.value.index == 0
    assert f_def.var.type == ir.ScalarType(DataType.FP32)
    assert_roundtrip(Calls)


def test_unresolvable_closure_name_is_reported():
    with pytest.raises(UndefinedVariableError, match="Undefined variable 'nowhere'"):
        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            y = n + nowhere  # noqa: F821 - parsed, never run
            return y


def test_errors_point_into_the_defining_file():
    with pytest.raises(ParserSyntaxError) as info:
        @pl.function
        def f(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            y = x + 1  # the offending line
            return y

    err = info.value
    assert err.span["filename"] == __file__
    lines = Path(__file__).read_text().splitlines()
    expected = next(i for i, line in enumerate(lines, 1) if line.endswith("x + 1  # the offending line"))
    assert err.span["line"] == expected
    assert f"{__file__}:{expected}:" in str(err) and "y = x + 1" in str(err)


def test_runtime_split_aiv_checks_its_arguments():
    # Outside the parser `pl.split_aiv` only validates.
    with pytest.raises(ValueError, match="must be the integer 2"):
        pl.split_aiv(4, mode=pl.SplitMode.UP_DOWN)
    with pytest.raises(ValueError, match="pl.SplitMode"):
        pl.split_aiv(2, mode="UP_DOWN")
    with pytest.raises(RuntimeError, match="parses"):
        pl.range(3)
    # A valid call outside the parser is a ValueError, as PyPTO raises it, still a RuntimeError for older callers.
    with pytest.raises(ValueError, match=r"pl.split_aiv only has meaning inside a @pl.function body"):
        pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN)
    # The region boundaries are pl names too, parser constructs like split_aiv.
    for name in ("aiv_shard", "aic_gather"):
        with pytest.raises(ValueError, match=f"pl.{name} only has meaning inside"):
            getattr(pl, name)(None)
