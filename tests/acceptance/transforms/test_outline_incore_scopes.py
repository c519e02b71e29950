"""OutlineIncoreScopes in the style of PyPTO's unit tests of OutlineIncoreScopes.

Before and Expected are decorated classes; Expected is written in natural user style and run through
convert_to_ssa before the structural comparison (the rules of docs/passes/outline_incore_scopes.md, and
PyPTO's worked examples).
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto.language.parser.diagnostics import ParserSyntaxError

M = pl.dynamic("M")


def _outline(before: ir.Program) -> ir.Program:
    return passes.outline_incore_scopes()(passes.convert_to_ssa()(before))


def _compare(before: ir.Program, expected: ir.Program) -> ir.Program:
    After = _outline(before)
    Expected = passes.convert_to_ssa()(expected)
    ir.assert_structural_equal(After, Expected)
    return After


def _names(program: ir.Program) -> list[str]:
    return [gv.name for gv in program.functions]


def _stmts(func: ir.Function) -> list:
    return ir.flatten_to_stmts(func.body)


def _dirs(func: ir.Function) -> dict[str, ir.ParamDirection]:
    return {p.name_hint.split("__")[0]: d for p, d in zip(func.params, func.param_directions)}


# The golden texts of PyPTO's worked examples live in one place (tests/acceptance/appendix_golden.py).
GOLDEN = runpy.run_path(str(Path(__file__).resolve().parents[1] / "appendix_golden.py"))
A1_TEXT = GOLDEN["A1_OUTLINED"]
A3_PARSED_TEXT = GOLDEN["A3_AS_PARSED"]
A3_OUTLINED_TEXT = GOLDEN["A3_OUTLINED"]


def _region_program():
    @pl.program
    class Region:
        @pl.function
        def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_exp", optimizations=[pl.cross_core_slot(slot_num=4)]):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    base = aiv_id * 64
                    t = pl.load(a, [base, 0], [64, 64])
                    out = pl.store(pl.exp(t), [base, 0], out)
            return out

    return Region


class TestOutlineIncoreScopesBasic:
    def test_basic(self):
        @pl.program
        class Basic:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                y = pl.add(x, 1.0)
                with pl.at(level=pl.Level.CORE_GROUP):
                    tile = pl.load(y, [0], [64])
                    tile_sq = pl.mul(tile, tile)
                    result_tile = pl.add(tile_sq, 1.0)
                    result = pl.store(result_tile, [0], x)
                z = pl.add(result, 2.0)
                return z

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, y: pl.Tensor[[64], pl.FP32], x: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                tile = pl.load(y, [0], [64])
                tile_sq = pl.mul(tile, tile)
                result_tile = pl.add(tile_sq, 1.0)
                result = pl.store(result_tile, [0], x)
                x_store = result
                return x

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                y = pl.add(x, 1.0)
                x1 = self.main_incore_0(y, x)
                z = pl.add(x1, 2.0)
                return z

        After = _compare(Basic, Expected)
        assert ir.python_print(After, format=False) == A1_TEXT

    def test_outlined_function_shape(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                return out

        After = _outline(Before)
        assert _names(After) == ["main", "main_incore_0"]
        k = After.get_function("main_incore_0")
        assert k.func_type == pl.FunctionType.InCore
        assert k.level == pl.Level.CHIP_DIE
        assert k.role == pl.Role.SubWorker
        main = After.get_function("main")
        assert main.func_type == pl.FunctionType.Orchestration
        assert main.level == pl.Level.CHIP
        assert main.role == pl.Role.Orchestrator
        # callee printed first, SubWorker printed without self
        text = ir.python_print(After, format=False)
        assert text.index("def main_incore_0(") < text.index("def main(")
        assert "def main_incore_0(x__ssa_v0:" in text

    def test_multiple_scopes_in_one_function(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    y = pl.store(pl.add(t, 1.0), [0], out)
                z = pl.add(y, 1.0)
                with pl.at(level=pl.Level.CORE_GROUP):
                    u = pl.load(z, [0], [64])
                    w = pl.store(pl.mul(u, 2.0), [0], out)
                return w

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [0], [64])
                y = pl.store(pl.add(t, 1.0), [0], out)
                out_store = y
                return out

            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_1(self, z: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                u = pl.load(z, [0], [64])
                w = pl.store(pl.mul(u, 2.0), [0], out)
                out_store = w
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out1 = self.main_incore_0(x, out)
                z = pl.add(out1, 1.0)
                out2 = self.main_incore_1(z, out1)
                return out2

        After = _compare(Before, Expected)
        assert _names(After) == ["main", "main_incore_0", "main_incore_1"]

    def test_scope_in_orchestration_function(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [0], [64])
                out1 = pl.store(t, [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out1 = self.main_incore_0(x, out)
                return out1

        _compare(Before, Expected)

    def test_incore_function_unchanged_and_opaque_without_scope_stays_opaque(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [0], [64])
                out = pl.store(t, [0], out)
                return out

            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out = self.kernel(x, out)
                return out

        ssa = passes.convert_to_ssa()(Before)
        After = passes.outline_incore_scopes()(ssa)
        ir.assert_structural_equal(After, ssa)
        assert After.get_function("main").func_type == pl.FunctionType.Opaque

    def test_incore_function_with_bare_region_unchanged(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore, attrs={"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
            def kernel(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t = pl.load(a, [aiv_id * 64, 0], [64, 64])
                    out = pl.store(t, [aiv_id * 64, 0], out)
                return out

        ssa = passes.convert_to_ssa()(Before)
        body = _stmts(ssa.get_function("kernel"))
        assert isinstance(body[0], ir.SplitAivScopeStmt)  # 0.1: bare region in an InCore function
        After = passes.outline_incore_scopes()(ssa)
        ir.assert_structural_equal(After, ssa)

    def test_no_scopes_is_identity(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                y = pl.add(x, 1.0)
                return y

        ssa = passes.convert_to_ssa()(Before)
        After = passes.outline_incore_scopes()(ssa)
        ir.assert_structural_equal(After, ssa)
        assert After.get_function("main").func_type == pl.FunctionType.Opaque


class TestOutlineNaming:
    def test_name_hint(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused_add"):
                    t = pl.load(x, [0], [64])
                    out = pl.store(pl.add(t, t), [0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def fused_add(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [0], [64])
                out1 = pl.store(pl.add(t, t), [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out1 = self.fused_add(x, out)
                return out1

        After = _compare(Before, Expected)
        assert _names(After) == ["fused_add", "main"]

    def test_name_hint_clash_within_function(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="my_kernel"):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="my_kernel"):
                    u = pl.load(out, [0], [64])
                    out = pl.store(pl.add(u, u), [0], out)
                return out

        After = _outline(Before)
        # Two scopes of one function sharing a name_hint get a numeric suffix: my_kernel, my_kernel_0
        # (docs/passes/outline_incore_scopes.md, names).
        assert _names(After) == ["main", "my_kernel", "my_kernel_0"]
        calls = [s.value.op.name for s in _stmts(After.get_function("main")) if isinstance(s, ir.AssignStmt)]
        assert calls == ["my_kernel", "my_kernel_0"]

    def test_name_hint_clash_across_functions(self):
        @pl.program
        class Before:
            @pl.function
            def single_a(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="dup_scope"):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                return out

            @pl.function
            def single_b(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="dup_scope"):
                    t = pl.load(x, [0], [64])
                    out = pl.store(pl.mul(t, 2.0), [0], out)
                return out

        After = _outline(Before)
        # A clash across functions gets the `{fn}_` prefix: single_a -> dup_scope, single_b -> single_b_dup_scope
        # (docs/passes/outline_incore_scopes.md, names).
        assert _names(After) == ["dup_scope", "single_a", "single_b", "single_b_dup_scope"]
        a_call = _stmts(After.get_function("single_a"))[0].value
        b_call = _stmts(After.get_function("single_b"))[0].value
        assert a_call.op.name == "dup_scope"
        assert b_call.op.name == "single_b_dup_scope"
        # the kernel of single_b is the one that multiplies
        assert "pl.tile.muls" in ir.python_print(After.get_function("single_b_dup_scope"))

    def test_default_names_per_function(self):
        @pl.program
        class Before:
            @pl.function
            def f(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                return out

            @pl.function
            def g(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                return out

        After = _outline(Before)
        assert _names(After) == ["f", "f_incore_0", "g", "g_incore_0", "g_incore_1"]

    def test_default_name_does_not_clash_with_existing_function(self):
        # ambiguous: the rule only says outlined names share one program-level namespace and clashes are
        # resolved automatically; the new kernel must simply not replace the user's function.
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [0], [64])
                out = pl.store(t, [0], out)
                return out

            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(pl.add(t, t), [0], out)
                out = self.main_incore_0(x, out)
                return out

        After = _outline(Before)
        assert len(After.functions) == 3
        assert "pl.tile.add" not in ir.python_print(After.get_function("main_incore_0"))


class TestOutlineOutputs:
    def test_multiple_outputs_tile_and_store_target(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], out2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    a_tile = pl.load(a, [0], [64])
                    b_tile = pl.load(b, [0], [64])
                    c_tile = pl.add(a_tile, b_tile)
                    out_a = pl.store(c_tile, [0], out)
                    out_b = pl.mul(c_tile, 2.0)
                with pl.at(level=pl.Level.CORE_GROUP):
                    out2 = pl.store(out_b, [0], out2)
                r = pl.add(out_a, out2)
                return r

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tile[[64], pl.FP32, pl.Mem.Vec]]:
                a_tile = pl.load(a, [0], [64])
                b_tile = pl.load(b, [0], [64])
                c_tile = pl.add(a_tile, b_tile)
                out_a = pl.store(c_tile, [0], out)
                out_store = out_a
                out_b = pl.mul(c_tile, 2.0)
                return out, out_b

            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_1(self, out_b: pl.Tile[[64], pl.FP32, pl.Mem.Vec], out2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                o2 = pl.store(out_b, [0], out2)
                out2_store = o2
                return out2

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], out2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out_a, out_b = self.main_incore_0(a, b, out)
                o2 = self.main_incore_1(out_b, out2)
                r = pl.add(out_a, o2)
                return r

        # ambiguous: the caller-side projection of a tuple result (one tuple temp + TupleGetItem per
        # output, as the parser builds for `a, b = self.f(...)`) is the natural reading of the outlining rules.
        After = _outline(Before)
        k = After.get_function("main_incore_0")
        ret = _stmts(k)[-1]
        assert isinstance(ret, ir.ReturnStmt)
        assert ret.value[0] is k.params[2]  # out_a -> param `out`
        assert len(k.return_types) == 2
        ir.assert_structural_equal(After, passes.convert_to_ssa()(Expected))

    def test_returns_follow_param_order(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], p: pl.Out[pl.Tensor[[64], pl.FP32]], q: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    u = pl.mul(t, 2.0)
                    q = pl.store(t, [0], q)
                    p = pl.store(u, [0], p)
                r = pl.add(q, p)
                return r

        After = _outline(Before)
        k = After.get_function("main_incore_0")
        # params in first-use order: a, q, p
        assert [v.name_hint for v in k.params] == ["a__ssa_v0", "q__ssa_v0", "p__ssa_v0"]
        ret = _stmts(k)[-1]
        assert [v.name_hint for v in ret.value] == ["q__ssa_v0", "p__ssa_v0"]

    def test_kernel_local_tensor_output_keeps_ssa_value(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    s = pl.add(a, 1.0)
                r = pl.add(s, 1.0)
                return r

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                s = pl.add(a, 1.0)
                return s

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                s = self.main_incore_0(a)
                r = pl.add(s, 1.0)
                return r

        _compare(Before, Expected)

    def test_store_target_not_used_after_is_still_exported(self):
        # ambiguous: whether a store target that is never read after the scope is still returned and
        # rebound; the write-target's new name is bound to the call result (docs/passes/outline_incore_scopes.md,
        # example).
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    pl.store(t, [0], out)
                return a

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(a, [0], [64])
                out_store = pl.store(t, [0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out1 = self.main_incore_0(a, out)
                return a

        _compare(Before, Expected)


class TestOutlineTensorLevel:
    def test_two_tensor_outputs(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(pl.Level.CORE_GROUP):
                    a = pl.add(x, 1.0)
                    b = pl.mul(x, 2.0)
                c = pl.add(a, b)
                return c

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[64], pl.FP32]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
                a = pl.add(x, 1.0)
                b = pl.mul(x, 2.0)
                return a, b

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                a, b = self.main_incore_0(x)
                c = pl.add(a, b)
                return c

        _compare(Before, Expected)

    def test_scalar_param_and_call_inside_scope(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def helper(self, t: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                v = pl.load(t, [0], [64])
                out = pl.store(v, [0], out)
                return out

            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    y = pl.mul(x, s)
                    out = self.helper(y, out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def helper(self, t: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                v = pl.load(t, [0], [64])
                out = pl.store(v, [0], out)
                return out

            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[64], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                y = pl.mul(x, s)
                out1 = self.helper(y, out)
                return out1

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                out1 = self.main_incore_0(x, s, out)
                return out1

        # ambiguous: an output produced by an inner call on an Out param -- other outputs are traced through
        # return lineage, so the kernel might return the param `out` itself instead of the call result.
        After = _outline(Before)
        k = After.get_function("main_incore_0")
        assert _dirs(k) == {"x": ir.ParamDirection.In, "s": ir.ParamDirection.In, "out": ir.ParamDirection.Out}
        # one live-out (`out` after the scope) -> one return value, one caller binding
        ret = _stmts(k)[-1]
        assert len(ret.value) == 1 and len(k.return_types) == 1, ir.python_print(After)
        main = _stmts(After.get_function("main"))
        assert [type(x).__name__ for x in main] == ["AssignStmt", "ReturnStmt"]
        try:
            ir.assert_structural_equal(After, passes.convert_to_ssa()(Expected))
        except ValueError:
            assert ret.value[0] is k.params[2]

    def test_kernel_allocated_tensor_output(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    buf = pl.create_tensor([64], dtype=pl.FP32)
                    t = pl.load(x, [0], [64])
                    buf = pl.store(t, [0], buf)
                r = pl.add(buf, 1.0)
                return r

        After = _outline(Before)
        k = After.get_function("main_incore_0")
        # An output the kernel allocates keeps its SSA value -- no param, the SSA value is returned
        assert [p.name_hint.split("__")[0] for p in k.params] == ["x"]
        ret = _stmts(k)[-1]
        assert ret.value[0].name_hint.startswith("buf")

    def test_positional_level(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                return out

        After = _outline(Before)
        assert [gv.name for gv in After.functions] == ["main", "main_incore_0"]


class TestOutlineScalarHoist:
    def test_pure_scalar_live_out_is_hoisted(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[256], pl.FP32], base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]], tail: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    off = base * 32
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                with pl.at(level=pl.Level.CORE_GROUP):
                    t2 = pl.load(x, [off], [64])
                    tail = pl.store(t2, [0], tail)
                return tail

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[256], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [0], [64])
                o1 = pl.store(t, [0], out)
                out_store = o1
                return out

            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_1(self, x: pl.Tensor[[256], pl.FP32], off: pl.Scalar[pl.INDEX], tail: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t2 = pl.load(x, [off], [64])
                t1 = pl.store(t2, [0], tail)
                tail_store = t1
                return tail

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[256], pl.FP32], base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]], tail: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                off = base * 32
                out1 = self.main_incore_0(x, out)
                tail1 = self.main_incore_1(x, off, tail)
                return tail1

        After = _compare(Before, Expected)
        for f in After.functions.values():
            assert not any(isinstance(t, ir.ScalarType) for t in f.return_types)

    def test_hoisted_chain_only_and_body_use_becomes_param(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[256], pl.FP32], base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    unused = base + 7
                    row = base * 2
                    off = row + 64
                    t = pl.load(x, [off], [64])
                    out = pl.store(t, [0], out)
                r = off + 1
                t3 = pl.tensor.read(out, [r])
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, base: pl.Scalar[pl.INDEX], x: pl.Tensor[[256], pl.FP32], off: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                unused = base + 7
                t = pl.load(x, [off], [64])
                o1 = pl.store(t, [0], out)
                out_store = o1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[256], pl.FP32], base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                row = base * 2
                off = row + 64
                out1 = self.main_incore_0(base, x, off, out)
                r = off + 1
                t3 = pl.tensor.read(out1, [r])
                return out1

        # ambiguous: param order of a kernel whose hoisted chain leaves `off` as a live-in; first-use
        # order in the remaining body (base, x, off, out) is the natural reading.
        After = _outline(Before)
        k = After.get_function("main_incore_0")
        assert sorted(p.name_hint for p in k.params) == sorted(["base__ssa_v0", "off__ssa_v0", "x__ssa_v0", "out__ssa_v0"])
        assert "row" not in ir.python_print(k)
        ir.assert_structural_equal(After, passes.convert_to_ssa()(Expected))

    def test_scalar_from_call_is_rejected(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    v = pl.tensor.read(x, [0])
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                w = pl.add(out, v)
                return w

        with pytest.raises(ValueError, match="'v'"):
            _outline(Before)


class TestOutlineControlFlow:
    def test_store_target_in_loop_becomes_carry(self):
        @pl.program
        class Loop:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [i * 64, 0], [64, 128])
                        pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [i * 64, 0], [64, 128])
                out_store = pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (out_it,) in pl.range(4, init_values=(out,)):
                    out1 = self.k_incore_0(a, i, out_it)
                    out_rv = pl.yield_(out1)
                return out_rv

        After = _compare(Loop, Expected)
        # The transformed text of this example:
        text = ir.python_print(After, concise=True, format=False)
        lines = text.splitlines()
        start = next(n for n, line in enumerate(lines) if line.startswith("    def k(self"))
        assert lines[start + 1:] == [
            "        for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):",
            "            out__ssa_v1 = self.k_incore_0(a__ssa_v0, i__idx_v0, out__iter_v1)",
            "            out__rv_v1 = pl.yield_(out__ssa_v1)",
            "        return out__rv_v1",
        ]

    def test_rebinding_store_in_loop(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [i * 64, 0], [64, 128])
                        out = pl.store(t, [i * 64, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [i * 64, 0], [64, 128])
                out1 = pl.store(t, [i * 64, 0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (out_it,) in pl.range(4, init_values=(out,)):
                    out1 = self.k_incore_0(a, i, out_it)
                    out_rv = pl.yield_(out1)
                return out_rv

        _compare(Before, Expected)

    def test_sibling_scopes_share_one_slot(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], out)
                    with pl.at(level=pl.Level.CORE_GROUP):
                        u = pl.load(a, [64, 0], [64, 128])
                        pl.store(u, [64, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_1(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                u = pl.load(a, [64, 0], [64, 128])
                out_store = pl.store(u, [64, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (out_it,) in pl.range(4, init_values=(out,)):
                    out1 = self.k_incore_0(a, out_it)
                    out2 = self.k_incore_1(a, out1)
                    out_rv = pl.yield_(out2)
                return out_rv

        _compare(Before, Expected)

    def test_target_defined_in_loop_body_stays_local(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(4):
                    scratch = pl.create_tensor([64, 128], dtype=pl.FP32)
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], scratch)
                    with pl.at(level=pl.Level.CORE_GROUP):
                        u = pl.load(scratch, [0, 0], [64, 128])
                        pl.store(u, [0, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], scratch: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                scratch_store = pl.store(t, [0, 0], scratch)
                return scratch

            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_1(self, scratch: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                u = pl.load(scratch, [0, 0], [64, 128])
                out_store = pl.store(u, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (out_it,) in pl.range(4, init_values=(out,)):
                    scratch = pl.create_tensor([64, 128], dtype=pl.FP32)
                    scratch1 = self.k_incore_0(a, scratch)
                    out1 = self.k_incore_1(scratch1, out_it)
                    out_rv = pl.yield_(out1)
                return out_rv

        _compare(Before, Expected)

    def test_nested_loops_thread_outward(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(2):
                    for j in pl.range(2):
                        with pl.at(level=pl.Level.CORE_GROUP):
                            t = pl.load(a, [0, 0], [64, 128])
                            pl.store(t, [0, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (out_o,) in pl.range(2, init_values=(out,)):
                    for j, (out_i,) in pl.range(2, init_values=(out_o,)):
                        out1 = self.k_incore_0(a, out_i)
                        out_irv = pl.yield_(out1)
                    out_orv = pl.yield_(out_irv)
                return out_orv

        _compare(Before, Expected)

    def test_nested_loops_inner_target_defined_in_outer_body(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(2):
                    scratch = pl.create_tensor([64, 128], dtype=pl.FP32)
                    for j in pl.range(2):
                        with pl.at(level=pl.Level.CORE_GROUP):
                            t = pl.load(a, [0, 0], [64, 128])
                            pl.store(t, [0, 0], scratch)
                    with pl.at(level=pl.Level.CORE_GROUP):
                        u = pl.load(scratch, [0, 0], [64, 128])
                        pl.store(u, [0, 0], out)
                return out

        After = _outline(Before)
        outer = _stmts(After.get_function("k"))[0]
        assert isinstance(outer, ir.ForStmt)
        # The inner carry for `scratch` is not threaded out of the outer loop
        assert [v.name_hint.split("__")[0] for v in outer.iter_args] == ["out"]
        inner = [s for s in ir.flatten_to_stmts(outer.body) if isinstance(s, ir.ForStmt)][0]
        assert [v.name_hint.split("__")[0] for v in inner.iter_args] == ["scratch"]

    def test_target_already_iter_arg_keeps_slot(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (acc,) in pl.range(4, init_values=(out,)):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], acc)
                    res = pl.yield_(acc)
                return res

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], acc: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                acc_store = pl.store(t, [0, 0], acc)
                return acc

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (acc,) in pl.range(4, init_values=(out,)):
                    acc1 = self.k_incore_0(a, acc)
                    res = pl.yield_(acc1)
                return res

        After = _compare(Before, Expected)
        loop = _stmts(After.get_function("k"))[0]
        assert len(loop.iter_args) == 1

    def test_store_in_if_without_else(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                if n > 2:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                if n > 2:
                    out1 = self.k_incore_0(a, out)
                    out_phi = pl.yield_(out1)
                else:
                    out_phi = pl.yield_(out)
                return out_phi

        _compare(Before, Expected)

    def test_store_in_if_with_else(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                if n > 2:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], out)
                else:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        u = pl.load(a, [64, 0], [64, 128])
                        pl.store(u, [0, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_1(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                u = pl.load(a, [64, 0], [64, 128])
                out_store = pl.store(u, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                if n > 2:
                    out1 = self.k_incore_0(a, out)
                    out_phi = pl.yield_(out1)
                else:
                    out2 = self.k_incore_1(a, out)
                    out_phi = pl.yield_(out2)
                return out_phi

        _compare(Before, Expected)

    def test_store_in_if_inside_loop(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(4):
                    if i > 1:
                        with pl.at(level=pl.Level.CORE_GROUP):
                            t = pl.load(a, [i * 64, 0], [64, 128])
                            pl.store(t, [i * 64, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [i * 64, 0], [64, 128])
                out_store = pl.store(t, [i * 64, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (out_it,) in pl.range(4, init_values=(out,)):
                    if i > 1:
                        out1 = self.k_incore_0(a, i, out_it)
                        out_phi = pl.yield_(out1)
                    else:
                        out_phi = pl.yield_(out_it)
                    out_rv = pl.yield_(out_phi)
                return out_rv

        _compare(Before, Expected)

    def test_top_level_scope_needs_no_carry(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0, 0], [64, 128])
                    pl.store(t, [0, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                out1 = self.k_incore_0(a, out)
                return out1

        _compare(Before, Expected)

    def test_store_in_natural_while_becomes_carry(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                i = 0
                while i < n:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], out)
                    i = i + 1
                return out

        # ambiguous: the new slot is appended after the carries ConvertToSSA already built
        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                i0 = 0
                for (i_it, out_it) in pl.while_(init_values=(i0, out)):
                    pl.cond(i_it < n)
                    out1 = self.k_incore_0(a, out_it)
                    i1 = i_it + 1
                    i_rv, out_rv = pl.yield_(i1, out1)
                return out_rv

        _compare(Before, Expected)

    def test_two_targets_in_one_loop(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], out2: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], out)
                        pl.store(t, [0, 0], out2)
                r = pl.add(out, out2)
                return r

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], out2: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> tuple[pl.Tensor[[256, 128], pl.FP32], pl.Tensor[[256, 128], pl.FP32]]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                out2_store = pl.store(t, [0, 0], out2)
                return out, out2

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], out2: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (o_it, o2_it) in pl.range(4, init_values=(out, out2)):
                    o1, o21 = self.k_incore_0(a, o_it, o2_it)
                    o_rv, o2_rv = pl.yield_(o1, o21)
                r = pl.add(o_rv, o2_rv)
                return r

        _compare(Before, Expected)

    def test_user_iter_arg_plus_new_slot(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Scalar[pl.INDEX]:
                for i, (s,) in pl.range(4, init_values=(0,)):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0, 0], [64, 128])
                        pl.store(t, [0, 0], out)
                    s2 = s + 1
                    res = pl.yield_(s2)
                v = pl.tensor.read(out, [0, 0])
                return res

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Scalar[pl.INDEX]:
                for i, (s, o_it) in pl.range(4, init_values=(0, out)):
                    o1 = self.k_incore_0(a, o_it)
                    s2 = s + 1
                    res, o_rv = pl.yield_(s2, o1)
                v = pl.tensor.read(o_rv, [0, 0])
                return res

        _compare(Before, Expected)

    def test_scope_with_loop_inside(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    for i in pl.range(4):
                        t = pl.load(a, [i * 64, 0], [64, 128])
                        out = pl.store(t, [i * 64, 0], out)
                return out

        After = _outline(Before)
        assert "__FREE_VAR" not in ir.python_print(After)
        k = After.get_function("k_incore_0")
        # A store target output returns its parameter (docs/passes/outline_incore_scopes.md, parameters) --
        # the kernel returns the param it stores into, once
        ret = _stmts(k)[-1]
        assert isinstance(ret, ir.ReturnStmt) and len(ret.value) == 1
        out_param = [p for p in k.params if p.name_hint.startswith("out")][0]
        assert ret.value[0] is out_param
        assert _dirs(k)["out"] == ir.ParamDirection.Out
        main = _stmts(After.get_function("k"))
        assert [type(s).__name__ for s in main] == ["AssignStmt", "ReturnStmt"]
        assert main[1].value[0] is main[0].var

    def test_scope_with_loop_inside_expected(self):
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    for i in pl.range(4):
                        t = pl.load(a, [i * 64, 0], [64, 128])
                        out = pl.store(t, [i * 64, 0], out)
                return out

        # ambiguous: the param order (the loop's init value `out` is read before `a`, so first-use
        # order gives (out, a)). No `out__store` alias: the loop writes through its iter_arg, not
        # the parameter itself, and the kernel returns the parameter (return lineage).
        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], a: pl.Tensor[[256, 128], pl.FP32]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (o_it,) in pl.range(4, init_values=(out,)):
                    t = pl.load(a, [i * 64, 0], [64, 128])
                    o1 = pl.store(t, [i * 64, 0], o_it)
                    o_rv = pl.yield_(o1)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                out1 = self.k_incore_0(out, a)
                return out1

        _compare(Before, Expected)


class TestOutlineParamDirections:
    def test_in_out_inout_atomic(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], w: pl.Out[pl.Tensor[[64], pl.FP32]], rw: pl.InOut[pl.Tensor[[64], pl.FP32]], acc: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    w = pl.store(t, [0], w)
                    old = pl.load(rw, [0], [64])
                    rw = pl.store(pl.add(old, t), [0], rw)
                    acc = pl.store(t, [0], acc, atomic=pl.AtomicType.Add)
                return w

        After = _outline(Before)
        k = After.get_function("main_incore_0")
        assert _dirs(k) == {"a": ir.ParamDirection.In, "w": ir.ParamDirection.Out,
                            "rw": ir.ParamDirection.InOut, "acc": ir.ParamDirection.InOut}
        text = ir.python_print(k, format=False)
        assert "w__ssa_v0: pl.Out[pl.Tensor[[64], pl.FP32]]" in text
        assert "rw__ssa_v0: pl.InOut[pl.Tensor[[64], pl.FP32]]" in text

    def test_out_param_of_caller_only_read_in_scope_is_in(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    s = pl.add(t, t)
                r = pl.tensor.read(a, [0])
                return a

        After = _outline(Before)
        assert _dirs(After.get_function("main_incore_0")) == {"a": ir.ParamDirection.In}

    def test_reading_store_alias_is_inout(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], c: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [32])
                    c2 = pl.store(t, [0], c)
                    back = pl.load(c2, [0], [32])
                    c3 = pl.store(back, [32], c2)
                return c3

        After = _outline(Before)
        assert _dirs(After.get_function("main_incore_0"))["c"] == ir.ParamDirection.InOut

    def test_tensor_assemble_target_is_out(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[32], pl.FP32], big: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    big = pl.assemble(big, a, [0])
                return big

        After = _outline(Before)
        k = After.get_function("main_incore_0")
        assert _dirs(k) == {"a": ir.ParamDirection.In, "big": ir.ParamDirection.Out}

    def test_tensor_write_target_is_out(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    v = pl.tensor.read(a, [0])
                    pl.tensor.write(b, [0], v)
                return b

        After = _outline(Before)
        k = After.get_function("main_incore_0")
        # Any op declared Write (tensor.write included) promotes the param from In
        # (docs/passes/outline_incore_scopes.md, parameters)
        assert _dirs(k) == {"a": ir.ParamDirection.In, "b": ir.ParamDirection.Out}

    def test_callee_slots(self):
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.InCore)
            def producer(self, src: pl.Tensor[[64], pl.FP32], dst: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(src, [0], [64])
                dst = pl.store(t, [0], dst)
                return dst

            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], w: pl.Out[pl.Tensor[[64], pl.FP32]], both: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    w = self.producer(a, w)
                    both = self.producer(both, both)
                return w

        After = _outline(Before)
        d = _dirs(After.get_function("main_incore_0"))
        # Read flag from In/InOut callee slots, write flag from Out/InOut slots
        assert d == {"a": ir.ParamDirection.In, "w": ir.ParamDirection.Out, "both": ir.ParamDirection.InOut}


class TestOutlineSplitAiv:
    def test_region_in_named_scope_a3(self):
        Region = _region_program()
        assert ir.python_print(Region, format=False) == A3_PARSED_TEXT
        After = _outline(Region)
        assert ir.python_print(After, format=False) == A3_OUTLINED_TEXT

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def half_exp(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
                pl.func_attr({"slot_num": 4, "split_aiv": True, "split": pl.SplitMode.UP_DOWN})
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    base = aiv_id * 64
                    t = pl.load(a, [base, 0], [64, 64])
                    o1 = pl.store(pl.exp(t), [base, 0], out)
                    out_store = o1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
                out1 = self.half_exp(a, out)
                return out1

        ir.assert_structural_equal(After, passes.convert_to_ssa()(Expected))
        assert After.get_function("half_exp").attrs == {"slot_num": 4, "split_aiv": True, "split": 1}

    def test_roundtrip_after_outlining(self):
        After = _outline(_region_program())
        text = ir.python_print(After)
        reparsed = pl.parse(text)
        ir.assert_structural_equal(After, reparsed)
        from pypto.language.parser.text_parser import parse

        ir.assert_structural_equal(After, parse(ir.python_print(After, format=False), filename="<roundtrip>"))
        assert "__FREE_VAR" not in text

    def _attrs_for(self, modes):
        # builds a scope with one region per mode
        if modes == ("UP_DOWN", "UP_DOWN"):
            @pl.program
            class P1:
                @pl.function
                def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                            t0 = pl.load(a, [aiv_id * 32, 0], [32, 64])
                            out = pl.store(t0, [aiv_id * 32, 0], out)
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                            t1 = pl.load(a, [aiv_id * 32, 0], [32, 64])
                            out = pl.store(t1, [aiv_id * 32, 0], out)
                    return out
        elif modes == ("LEFT_RIGHT",):
            @pl.program
            class P2:
                @pl.function
                def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                            t0 = pl.load(a, [0, aiv_id * 32], [64, 32])
                            out = pl.store(t0, [0, aiv_id * 32], out)
                    return out
        elif modes == ("NONE",):
            @pl.program
            class P3:
                @pl.function
                def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                            t0 = pl.load(a, [0, 0], [64, 64])
                            out = pl.store(t0, [0, 0], out)
                    return out
        else:
            @pl.program
            class P4:
                @pl.function
                def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                            t0 = pl.load(a, [aiv_id * 32, 0], [32, 64])
                            out = pl.store(t0, [aiv_id * 32, 0], out)
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                            t1 = pl.load(a, [0, aiv_id * 32], [64, 32])
                            out = pl.store(t1, [0, aiv_id * 32], out)
                    return out
        P = next(v for k, v in locals().items() if k.startswith("P") and isinstance(v, ir.Program))
        return _outline(P).get_function("main_incore_0").attrs

    def test_split_attrs_table(self):
        # The split attrs of a kernel, by the modes of its regions (docs/passes/outline_incore_scopes.md,
        # attributes)
        assert self._attrs_for(("UP_DOWN", "UP_DOWN")) == {"split_aiv": True, "split": 1}
        assert self._attrs_for(("LEFT_RIGHT",)) == {"split_aiv": True, "split": 2}
        assert self._attrs_for(("NONE",)) == {"split_aiv": True}
        assert self._attrs_for(("UP_DOWN", "LEFT_RIGHT")) == {"split_aiv": True}

    def test_split_none_region_prints_without_split_attr(self):
        @pl.program
        class P:
            @pl.function
            def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                        t0 = pl.load(a, [0, 0], [64, 64])
                        out = pl.store(t0, [0, 0], out)
                return out

        After = _outline(P)
        text = ir.python_print(After.get_function("main_incore_0"), format=False)
        assert 'pl.func_attr({"split_aiv": True})' in text
        assert After.get_function("main_incore_0").split is None

    def test_top_level_region_in_opaque_function_is_wrapped_and_outlined(self):
        @pl.program
        class P:
            @pl.function
            def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t = pl.load(a, [aiv_id * 64, 0], [64, 64])
                    out = pl.store(t, [aiv_id * 64, 0], out)
                return out

        body = _stmts(P.get_function("main"))
        assert isinstance(body[0], ir.InCoreScopeStmt)  # the parser's synthesised wrapper
        assert body[0].split == pl.SplitMode.NONE
        After = _outline(P)
        assert _names(After) == ["main", "main_incore_0"]
        assert After.get_function("main_incore_0").attrs == {"split_aiv": True, "split": 1}

    def test_auto_split_scope_and_region_mutually_exclusive_in_parser(self):
        with pytest.raises(ParserSyntaxError, match="mutually exclusive"):
            @pl.program
            class P:
                @pl.function
                def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                    with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                            t = pl.load(a, [aiv_id * 32, 0], [32, 64])
                            out = pl.store(t, [aiv_id * 32, 0], out)
                    return out

    def test_auto_split_scope_and_region_mutually_exclusive_in_pass(self):
        @pl.program
        class P:
            @pl.function
            def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                        t = pl.load(a, [aiv_id * 32, 0], [32, 64])
                        out = pl.store(t, [aiv_id * 32, 0], out)
                return out

        class AddAutoSplit(ir.IRMutator):
            def visit_in_core_scope_stmt(self, op):
                body = self.visit_stmt(op.body)
                return ir.InCoreScopeStmt(ir.SplitMode.UP_DOWN, op.name_hint, body=body, span=op.span)

        ssa = AddAutoSplit().visit_program(passes.convert_to_ssa()(P))
        with pytest.raises(ValueError, match="mutually exclusive"):
            passes.outline_incore_scopes()(ssa)

    def test_auto_split_scope_sets_function_split(self):
        @pl.program
        class P:
            @pl.function
            def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                    t = pl.load(a, [0, 0], [64, 64])
                    out = pl.store(t, [0, 0], out)
                return out

        text = ir.python_print(P, format=False)
        assert "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):" in text
        After = _outline(P)
        # The scope's split is a function-level AUTO split: it becomes the kernel's `split` attr
        # (docs/passes/outline_incore_scopes.md, attributes).
        assert After.get_function("main_incore_0").attrs.get("split") == 1


class TestOutlineCachePolicy:
    def test_cache_policy_becomes_param_index_attr(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], c: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.set_cache_policy(c, pl.CachePolicy.BYPASS)
                    pl.set_cache_policy(a, pl.CachePolicy.BYPASS)
                    ta = pl.load(a, [0], [64])
                    tb = pl.load(b, [0], [64])
                    tc = pl.load(c, [0], [64])
                    out = pl.store(pl.add(pl.add(ta, tb), tc), [0], out)
                return out

        After = _outline(Before)
        k = After.get_function("main_incore_0")
        policy = [tuple(x) for x in k.attrs["cache_policy"]]
        assert policy == [(0, int(pl.CachePolicy.BYPASS)), (2, int(pl.CachePolicy.BYPASS))]
        # the scope attr is consumed: the orchestration body has no scope left and no policy
        assert "set_cache_policy" not in ir.python_print(After.get_function("main"))

    def test_cache_policy_on_uncaptured_tensor_rejected(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.set_cache_policy(b, pl.CachePolicy.BYPASS)
                    ta = pl.load(a, [0], [64])
                    out = pl.store(ta, [0], out)
                return out

        with pytest.raises(ValueError):
            _outline(Before)

    def test_bypass_on_written_param_rejected(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.set_cache_policy(out, pl.CachePolicy.BYPASS)
                    ta = pl.load(a, [0], [64])
                    out = pl.store(ta, [0], out)
                return out

        with pytest.raises(ValueError):
            _outline(Before)


class TestOutlineDynamicDims:
    def test_tensor_dim_of_dynamic_axis_folds_on_promotion(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
                m = pl.tensor.dim(a, 0)
                for i in pl.range(m // 64):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [i * 64, 0], [64, 64])
                        out = pl.store(t, [i * 64, 0], out)
                return out

        # The parser folds the same read in an Orchestration body, so writing Expected as
        # Orchestration with the read gives the folded form.
        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[M, 64], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
                t = pl.load(a, [i * 64, 0], [64, 64])
                o1 = pl.store(t, [i * 64, 0], out)
                out_store = o1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
                m = pl.tensor.dim(a, 0)
                for i, (o_it,) in pl.range(m // 64, init_values=(out,)):
                    o1 = self.main_incore_0(a, i, o_it)
                    o_rv = pl.yield_(o1)
                return o_rv

        ssa_expected = passes.convert_to_ssa()(Expected)
        assert "tensor.dim" not in ir.python_print(ssa_expected.get_function("main"))
        After = _outline(Before)
        assert "tensor.dim" not in ir.python_print(After.get_function("main"))
        ir.assert_structural_equal(After, ssa_expected)


class TestOutlineScalarParamDims:
    def test_scalar_param_used_as_dim(self):
        # A shape dim naming a scalar param or a dynamic var is that Var
        @pl.program
        class Before:
            @pl.function
            def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[n, 64], pl.FP32], out: pl.Out[pl.Tensor[[n, 64], pl.FP32]]) -> pl.Tensor[[n, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0, 0], [16, 64])
                    out = pl.store(t, [0, 0], out)
                return out

        After = _outline(Before)
        text = ir.python_print(After, format=False)
        assert "pl.dynamic(" not in text, text
        k = After.get_function("main_incore_0")
        ret = _stmts(k)[-1]
        assert len(ret.value) == 1, text
        # every dim Var in the kernel's param types is one of the kernel's own params
        own = {id(p) for p in k.params}
        for p in k.params:
            for d in getattr(p.type, "shape", []):
                if isinstance(d, ir.Var):
                    assert id(d) in own, text


class TestOutlineVerification:
    def test_nested_incore_scope_rejected_by_verification(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(x, [0], [64])
                        out = pl.store(t, [0], out)
                return out

        # NoNestedInCore is structural: the default context's pre-verification rejects it.
        with pytest.raises(pypto.Error, match="Nested InCore scope"):
            passes.convert_to_ssa()(Before)

    def test_requires_ssa(self):
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                x = pl.add(x, 1.0)
                x = pl.add(x, 1.0)  # the second definition of `x` (one may rebind a parameter)
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                return out

        with pytest.raises(pypto.Error, match="Pre-verification failed before pass 'OutlineIncoreScopes'"):
            passes.outline_incore_scopes()(Before)

    def test_output_properties_hold(self):
        After = _outline(_region_program())
        props = passes.IRPropertySet()
        for p in (passes.IRProperty.SSAForm, passes.IRProperty.SplitIncoreOrch, passes.IRProperty.AivSplitValid,
                  passes.IRProperty.NoNestedInCore, passes.IRProperty.UseAfterDef):
            props.insert(p)
        diags = passes.PropertyVerifierRegistry.verify(props, After)
        assert [d for d in diags if d.severity == passes.DiagnosticSeverity.Error] == []

    def test_pass_properties(self):
        p = passes.outline_incore_scopes()
        assert p.get_name() == "OutlineIncoreScopes"
        assert p.get_required_properties().to_list() == [passes.IRProperty.SSAForm]
        produced = p.get_produced_properties()
        assert produced.contains(passes.IRProperty.SSAForm)
        assert produced.contains(passes.IRProperty.SplitIncoreOrch)
        assert produced.contains(passes.IRProperty.AivSplitValid)
        assert len(produced.to_list()) == 3
        assert p.get_invalidated_properties().empty()
        assert str(p.get_required_properties()) == "{SSAForm}"
        assert str(produced) == "{SSAForm, SplitIncoreOrch, AivSplitValid}"


class TestOutlinePyPTOParity:
    """Programs that pypto must compile to the IR PyPTO gives them."""

    def test_if_merge_the_user_wrote_is_the_slot(self):
        # A target that already has a slot on the statement gets no new
        # one. The user rebinds `out` in the branch, so ConvertToSSA already merges it (`out__phi_v2`).
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
                if n > 0:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0], [64])
                        out = pl.store(t, [0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(a, [0], [64])
                out1 = pl.store(t, [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
                if n > 0:
                    out1 = self.main_incore_0(a, out)
                    out_phi = pl.yield_(out1)
                else:
                    out_phi = pl.yield_(out)
                return out_phi

        After = _compare(Before, Expected)
        text = ir.python_print(After.get_function("main"), concise=True, format=False)
        assert "out__phi_v2 = pl.yield_(out__ssa_v3)" in text, text
        assert "out__phi_v4" not in text, text

    def test_if_merge_the_user_wrote_after_a_later_rebinding(self):
        # The phi yields a later version of the same buffer (the user assembles into `out`
        # after the scope), so it still is `out`'s slot (return lineage).
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], x: pl.Tensor[[8], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
                if n > 0:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [0], [64])
                        pl.store(t, [0], out)
                    out = pl.assemble(out, x, [0])
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(a, [0], [64])
                out_store = pl.store(t, [0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], x: pl.Tensor[[8], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
                if n > 0:
                    out1 = self.main_incore_0(a, out)
                    out2 = pl.assemble(out1, x, [0])
                    out_phi = pl.yield_(out2)
                else:
                    out_phi = pl.yield_(out)
                return out_phi

        _compare(Before, Expected)

    def test_if_inside_loop_on_the_loop_iter_arg(self):
        # The target is the loop's iter_arg (no new loop slot) and the if already merges it
        # (no new phi): one iter_arg, one phi.
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                for i in pl.range(4):
                    if i > 0:
                        with pl.at(level=pl.Level.CORE_GROUP):
                            t = pl.load(a, [0], [64])
                            out = pl.store(t, [0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(a, [0], [64])
                out1 = pl.store(t, [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                for i, (out_it,) in pl.range(4, init_values=(out,)):
                    if i > 0:
                        out1 = self.main_incore_0(a, out_it)
                        out_phi = pl.yield_(out1)
                    else:
                        out_phi = pl.yield_(out_it)
                    out_rv = pl.yield_(out_phi)
                return out_rv

        After = _compare(Before, Expected)
        loop = _stmts(After.get_function("main"))[0]
        branch = [s for s in ir.flatten_to_stmts(loop.body) if isinstance(s, ir.IfStmt)][0]
        assert (len(loop.iter_args), len(branch.return_vars)) == (1, 1)

    def test_counter_advances_for_named_scopes(self):
        # `{fn}_incore_{k}` counts every outlined scope of the function, named ones included.
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
                with pl.at(level=pl.Level.CORE_GROUP):
                    u = pl.load(out, [0], [64])
                    out = pl.store(pl.add(u, u), [0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def first(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [0], [64])
                out1 = pl.store(t, [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_1(self, out: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                u = pl.load(out, [0], [64])
                out1 = pl.store(pl.add(u, u), [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out1 = self.first(x, out)
                out2 = self.main_incore_1(out1)
                return out2

        After = _compare(Before, Expected)
        # function names are not compared structurally (docs/architecture.md, the core): check them by name
        assert _names(After) == ["first", "main", "main_incore_1"]
        calls = [s.value.op.name for s in _stmts(After.get_function("main")) if isinstance(s, ir.AssignStmt)]
        assert calls == ["first", "main_incore_1"]

    def test_kernel_without_outputs_has_no_return(self):
        # Nothing the scope computes is used after it and it writes nothing.
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    s = pl.add(t, t)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32]):
                t = pl.load(a, [0], [64])
                s = pl.add(t, t)

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                self.main_incore_0(a)
                return out

        After = _compare(Before, Expected)
        k = After.get_function("main_incore_0")
        assert not any(isinstance(s, ir.ReturnStmt) for s in _stmts(k))
        assert k.return_types == []
        text = ir.python_print(k, format=False)
        assert "return" not in text and "->" not in text, text

    def test_only_tile_store_gets_the_store_alias(self):
        # `<target>__store` binds a tile.store result; tensor.assemble and tensor.write into a parameter stay
        # as written (their targets are still Out; docs/passes/outline_incore_scopes.md, parameters).
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[32], pl.FP32], big: pl.Out[pl.Tensor[[64], pl.FP32]], b: pl.Out[pl.Tensor[[64], pl.FP32]], c: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    big = pl.assemble(big, a, [0])
                    v = pl.tensor.read(a, [0])
                    pl.tensor.write(b, [0], v)
                    t = pl.load(a, [0], [32])
                    c = pl.store(t, [0], c)
                return big

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, big: pl.Out[pl.Tensor[[64], pl.FP32]], a: pl.Tensor[[32], pl.FP32], b: pl.Out[pl.Tensor[[64], pl.FP32]], c: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
                big1 = pl.assemble(big, a, [0])
                v = pl.tensor.read(a, [0])
                pl.tensor.write(b, [0], v)
                t = pl.load(a, [0], [32])
                c1 = pl.store(t, [0], c)
                c_store = c1
                return big, b, c

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[32], pl.FP32], big: pl.Out[pl.Tensor[[64], pl.FP32]], b: pl.Out[pl.Tensor[[64], pl.FP32]], c: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                big1, b1, c1 = self.main_incore_0(big, a, b, c)
                return big1

        After = _compare(Before, Expected)
        text = ir.python_print(After.get_function("main_incore_0"), format=False)
        assert "c__store" in text and "big__store" not in text and "b__store" not in text, text

    def test_param_keeps_tensor_view_and_folded_dims_leave_no_binding(self):
        # The dim reads fold onto M wherever they are (in a loop,
        # in the scope) and their bindings disappear; the slice's TensorView follows the fold, and the
        # kernel parameter keeps the captured variable's whole type, view included.
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                for j in pl.range(2):
                    m = pl.tensor.dim(a, 0)
                    s = pl.slice(a, [64, 64], [0, 0], valid_shape=[m, 64])
                    with pl.at(level=pl.Level.CORE_GROUP):
                        m2 = pl.tensor.dim(a, 0)
                        t = pl.load(s, [0, 0], [64, 64])
                        out = pl.store(t, [m2 - m2, 0], out)
                return out

        # Written as Orchestration, the parser folds the same reads (both paths give one IR).
        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, s: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[M, 64])], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                t = pl.load(s, [0, 0], [64, 64])
                out1 = pl.store(t, [M - M, 0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                for j, (out_it,) in pl.range(2, init_values=(out,)):
                    m = pl.tensor.dim(a, 0)
                    s = pl.slice(a, [64, 64], [0, 0], valid_shape=[m, 64])
                    out1 = self.main_incore_0(s, out_it)
                    out_rv = pl.yield_(out1)
                return out_rv

        After = _compare(Before, Expected)
        k = After.get_function("main_incore_0")
        main = After.get_function("main")
        captured = [s for s in ir.flatten_to_stmts(_stmts(main)[0].body) if isinstance(s, ir.AssignStmt)][0]
        assert captured.var.name_hint.startswith("s__")
        ir.assert_structural_equal(k.params[0].type, captured.var.type)
        text = ir.python_print(After, format=False)
        signature = next(line for line in text.splitlines() if "def main_incore_0(" in line)
        assert "s__ssa_v0: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[M, 64])]" in signature, text
        assert "tensor.dim" not in text and "m__ssa" not in text and "m2__ssa" not in text, text
        assert 'pl.dynamic("m' not in text, text

    def test_graph_function_is_outlined_and_stays_graph(self):
        # A Graph parent is outlined like an Orchestration one and keeps its type
        # (docs/passes/outline_incore_scopes.md, function types).
        @pl.program
        class Before:
            @pl.function(type=pl.FunctionType.Graph)
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    out = pl.store(t, [0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(a, [0], [64])
                out1 = pl.store(t, [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Graph)
            def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                out1 = self.main_incore_0(a, out)
                return out1

        After = _compare(Before, Expected)
        assert After.get_function("main").func_type == pl.FunctionType.Graph
        assert _names(After) == ["main", "main_incore_0"]


class TestOutlineRulesOverPyPTO:
    """Where pypto's outlining rules (docs/passes/outline_incore_scopes.md) differ from what PyPTO does: one
    test per rule, naming it."""

    def test_write_direction_out_unless_the_body_reads(self):
        # A written parameter is Out unless the body reads it: a Write slot is not a read; reading the target
        # (or its store alias) makes it InOut; a ReadWrite slot (atomic store) keeps it InOut.
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], w: pl.Out[pl.Tensor[[64], pl.FP32]], rw: pl.Out[pl.Tensor[[64], pl.FP32]], acc: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    w = pl.store(t, [0], w)
                    old = pl.load(rw, [0], [64])
                    rw = pl.store(pl.add(old, t), [0], rw)
                    acc = pl.store(t, [0], acc, atomic=pl.AtomicType.Add)
                return w

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], w: pl.Out[pl.Tensor[[64], pl.FP32]], rw: pl.InOut[pl.Tensor[[64], pl.FP32]], acc: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
                t = pl.load(a, [0], [64])
                w1 = pl.store(t, [0], w)
                w_store = w1
                old = pl.load(rw, [0], [64])
                rw1 = pl.store(pl.add(old, t), [0], rw)
                rw_store = rw1
                acc1 = pl.store(t, [0], acc, atomic=pl.AtomicType.Add)
                acc_store = acc1
                return w, rw, acc

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], w: pl.Out[pl.Tensor[[64], pl.FP32]], rw: pl.Out[pl.Tensor[[64], pl.FP32]], acc: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                w1, rw1, acc1 = self.main_incore_0(a, w, rw, acc)
                return w1

        _compare(Before, Expected)

    def test_store_target_in_loop_and_if_becomes_real_carry(self):
        # Through control flow: a write target defined before a loop / if gets a loop carry / if merge
        # (docs/passes/outline_incore_scopes.md, control flow; PyPTO leaves `out__ssa_v1` used out of scope).
        @pl.program
        class Before:
            @pl.function
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i in pl.range(4):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        t = pl.load(a, [i * 64, 0], [64, 128])
                        pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
                if n > 2:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        u = pl.load(a, [0, 0], [64, 128])
                        pl.store(u, [0, 0], out)
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], i: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t = pl.load(a, [i * 64, 0], [64, 128])
                out_store = pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
                return out

            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_1(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                u = pl.load(a, [0, 0], [64, 128])
                out_store = pl.store(u, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i, (out_it,) in pl.range(4, init_values=(out,)):
                    out1 = self.k_incore_0(a, i, out_it)
                    out_rv = pl.yield_(out1)
                if n > 2:
                    out2 = self.k_incore_1(a, out_rv)
                    out_phi = pl.yield_(out2)
                else:
                    out_phi = pl.yield_(out_rv)
                return out_phi

        _compare(Before, Expected)

    def test_scalar_live_out_hoisted_to_caller(self):
        # Scalar outputs are hoisted to the caller (docs/passes/outline_incore_scopes.md, scalars): a pure
        # scalar live-out moves before the call; a kernel never returns a scalar.
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[256], pl.FP32], base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    off = base * 32
                    t = pl.load(x, [off], [64])
                    out = pl.store(t, [0], out)
                v = pl.tensor.read(out, [off])
                return out

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[256], pl.FP32], off: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                t = pl.load(x, [off], [64])
                out1 = pl.store(t, [0], out)
                out_store = out1
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[256], pl.FP32], base: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                off = base * 32
                out1 = self.main_incore_0(x, off, out)
                v = pl.tensor.read(out1, [off])
                return out1

        _compare(Before, Expected)

    def test_returns_ordered_by_parameter(self):
        # Explicit returns by parameter: every return is a distinct captured Out/InOut parameter, so returns,
        # return types and the caller's projections follow parameter order (a, q, p), not SSA order.
        @pl.program
        class Before:
            @pl.function
            def main(self, a: pl.Tensor[[64], pl.FP32], p: pl.Out[pl.Tensor[[64], pl.FP32]], q: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    p2 = pl.store(pl.mul(t, 2.0), [0], p)
                    q2 = pl.store(t, [0], q)
                    u = pl.load(q2, [0], [64])
                r = pl.add(p2, q2)
                return r

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, a: pl.Tensor[[64], pl.FP32], p: pl.Out[pl.Tensor[[64], pl.FP32]], q: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
                t = pl.load(a, [0], [64])
                p2 = pl.store(pl.mul(t, 2.0), [0], p)
                p_store = p2
                q2 = pl.store(t, [0], q)
                q_store = q2
                u = pl.load(q2, [0], [64])
                return p, q

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64], pl.FP32], p: pl.Out[pl.Tensor[[64], pl.FP32]], q: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
                p1, q1 = self.main_incore_0(a, p, q)
                r = pl.add(p1, q1)
                return r

        _compare(Before, Expected)

    def test_kernel_allocated_output_keeps_its_ssa_value(self):
        # An output the kernel allocates keeps its SSA value: a tensor the kernel creates is returned as itself
        # (no parameter, no store alias: its target is not a parameter).
        @pl.program
        class Before:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    buf = pl.create_tensor([64], dtype=pl.FP32)
                    t = pl.load(x, [0], [64])
                    buf = pl.store(t, [0], buf)
                r = pl.add(buf, 1.0)
                return r

        @pl.program
        class Expected:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                buf = pl.create_tensor([64], dtype=pl.FP32)
                t = pl.load(x, [0], [64])
                buf1 = pl.store(t, [0], buf)
                return buf1

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                buf1 = self.main_incore_0(x)
                r = pl.add(buf1, 1.0)
                return r

        _compare(Before, Expected)
