"""Malformed programs raise the parser's documented exception (docs/dsl.md, errors) with PyPTO's documented
message where there is one, located at the offending line (marked `# <-` below), rendered as `file:line:col`,
the source line and a caret. None may escape as an internal error wrapped by the parser's last-resort handler."""

import re
import textwrap
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pypto.language as pl
from pypto.language.parser.diagnostics import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    SSAViolationError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from pypto.language.parser.diagnostics.exceptions import InvalidOperationError as InvalidOperationErrorAlias
from pypto_core.language.roundtrip import missing_ops

T = "pl.Tensor[[64], pl.FP32]"
FILENAME = "prog.py"
REGION = ("tile.get_subblock_idx",)


@dataclass
class Bad:
    source: str
    error: type[ParserError]
    message: str  # a regex searched in err.message
    needs: tuple[str, ...] = ()


def fn(body: str, decorator: str = "@pl.function", params: str = f"x: {T}, n: pl.Scalar[pl.INDEX]") -> str:
    return f"import pypto.language as pl\n\n{decorator}\ndef main({params}) -> {T}:\n" + textwrap.indent(textwrap.dedent(body), "    ")


def program(body: str, decorator: str = "@pl.program") -> str:
    return f"import pypto.language as pl\n\n{decorator}\nclass P:\n" + textwrap.indent(textwrap.dedent(body), "    ")


CASES = {
    # -- expressions --------------------------------------------------------------------------------------
    "python_operator_on_tensor": Bad(fn("""\
        y = x + 1  # <-
        return y
    """), ParserSyntaxError, re.escape("Failed to parse function 'main': Expression must be ScalarExpr or Var "
                                      "with ScalarType, got Var with type TensorType")),
    "augmented_operator_on_tensor": Bad(fn("""\
        x += 1  # <-
        return x
    """), ParserSyntaxError, "Expression must be ScalarExpr or Var with ScalarType, got Var with type TensorType"),
    "chained_comparison": Bad(fn("""\
        b = 0 < n < 4  # <-
        return x
    """), ParserSyntaxError, "chained comparison"),
    "int_float_mix": Bad(fn("""\
        y = n * 2.5  # <-
        return x
    """), ParserSyntaxError, "Operator 'mul' requires same numeric dtype category, got index and fp32"),
    "bool_arithmetic": Bad(fn("""\
        b = n > 0
        y = b + 1  # <-
        return x
    """), ParserSyntaxError, "does not accept bool operands"),
    "undefined_variable": Bad(fn("""\
        y = pl.add(zz, 1.0)  # <-
        return x
    """), UndefinedVariableError, "Undefined variable 'zz'"),
    "const_of_a_variable": Bad(fn("""\
        y = pl.const(n, pl.INT32)  # <-
        return x
    """), ParserSyntaxError, "pl.const takes an int or float literal"),
    "pl_type_as_value": Bad(fn("""\
        y = pl.Tensor  # <-
        return x
    """), ParserSyntaxError, "'pl.Tensor' cannot be used as a value here"),
    "attribute_of_a_variable": Bad(fn("""\
        y = x.shape  # <-
        return x
    """), UnsupportedFeatureError, "attribute access 'x.shape' is not supported"),
    "lambda": Bad(fn("""\
        f = lambda q: q  # <-
        return x
    """), UnsupportedFeatureError, "Lambda"),
    # -- ops ------------------------------------------------------------------------------------------------
    "unknown_tile_op": Bad(fn("""\
        y = pl.tile.frobnicate(x)  # <-
        return x
    """), InvalidOperationError, "Unknown pl.tile operation: frobnicate"),
    "unknown_top_level_op": Bad(fn("""\
        y = pl.frobnicate(x)  # <-
        return x
    """), InvalidOperationError, "Unknown pl operation: frobnicate"),
    "tensor_and_tile_mixed": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0], [64])
            y = pl.add(x, t)  # <-
        return x
    """), InvalidOperationError, r"^pl\.add: cannot mix Tensor and Tile arguments", ("tile.load", "add")),
    "unexpected_op_keyword": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0], [64])
            u = pl.tile.move(t, pl.Mem.Vec, transpose=True)  # <-
        return x
    """), InvalidOperationError, r"^pl\.tile\.move.*unexpected keyword.*'transpose'", ("tile.load", "tile.move")),
    # -- assignments and annotations ------------------------------------------------------------------------------
    "reassign_other_type": Bad(fn("""\
        y = pl.add(x, 1.0)
        y = n + 1  # <-
        return x
    """), ParserTypeError, "Cannot reassign 'y'", ("add",)),
    "strict_ssa_function": Bad(fn("""\
        y = n + 1
        y = n + 2  # <-
        return x
    """, decorator="@pl.function(strict_ssa=True)"), SSAViolationError, "assigned twice"),
    "strict_ssa_program": Bad(program("""\
        @pl.function
        def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            y = n + 1
            y = n + 2  # <-
            return y
    """, decorator="@pl.program(strict_ssa=True)"), SSAViolationError, "assigned twice"),
    "subscript_assignment_in_strict_ssa": Bad(fn("""\
        x[0:4] = x  # <-
        return x
    """, decorator="@pl.function(strict_ssa=True)"), SSAViolationError, "subscript assignment"),
    "missing_parameter_annotation": Bad(fn("""\
        return x
    """, params="x, n: pl.Scalar[pl.INDEX]"), ParserTypeError, "parameter 'x' needs a type annotation"),
    "unknown_dtype": Bad(fn("""\
        y: pl.Tensor[[64], pl.FP33] = x  # <-
        return x
    """), ParserTypeError, "expected a dtype such as pl.FP32, got 'pl.FP33'"),
    "annotation_shape_mismatch": Bad(fn("""\
        y: pl.Tensor[[32], pl.FP32] = x  # <-
        return x
    """), ParserTypeError, r"the annotation pl\.Tensor\[\[32\], pl\.FP32\] does not match"),
    "tile_memref_without_space": Bad(fn("""\
        y: pl.Tile[[64], pl.FP32, pl.MemRef("ub", 0, 256)] = x  # <-
        return x
    """), ParserTypeError, "needs an explicit memory space"),
    "unpack_a_non_tuple": Bad(fn("""\
        a, b = pl.add(x, 1.0)  # <-
        return x
    """), ParserTypeError, "cannot unpack", ("add",)),
    # -- calls -----------------------------------------------------------------------------------------------------
    "call_of_unknown_function": Bad(program(f"""\
        @pl.function
        def main(self, x: {T}) -> {T}:
            y = self.g(x)  # <-
            return y
    """), UndefinedVariableError, "Function 'g' not defined in program"),
    "call_argument_count": Bad(program(f"""\
        @pl.function
        def g(self, a: {T}) -> {T}:
            return a

        @pl.function
        def main(self, x: {T}) -> {T}:
            y = self.g(x, x)  # <-
            return y
    """), ParserSyntaxError, "function 'g' takes 1 argument"),
    # -- loops and yields ------------------------------------------------------------------------------------------
    "bare_yield_in_carried_loop": Bad(fn("""\
        for i, (acc,) in pl.range(4, init_values=(n,)):
            pl.yield_(acc + 1)  # <-
        return x
    """), ParserSyntaxError, "requires an assignment-form pl.yield_"),
    "bare_yield_in_while": Bad(fn("""\
        for (a,) in pl.while_(init_values=(0,)):
            pl.cond(a < n)
            pl.yield_(a + 1)  # <-
        return x
    """), ParserSyntaxError, "requires an assignment-form pl.yield_"),
    "init_values_without_tuple_target": Bad(fn("""\
        for i in pl.range(4, init_values=(x,)):  # <-
            pass
        return x
    """), ParserSyntaxError, r"the loop target must be 'i, \(a, b\)'"),
    "yield_outside_loop": Bad(fn("""\
        pl.yield_(x)  # <-
        return x
    """), ParserSyntaxError, "pl.yield_ is only allowed inside a loop or an if body"),
    "unroll_with_variable_bounds": Bad(fn("""\
        for i in pl.unroll(n):  # <-
            pass
        return x
    """), ParserSyntaxError, "pl.unroll needs constant bounds"),
    "loop_over_a_list": Bad(fn("""\
        for i in [1, 2]:  # <-
            pass
        return x
    """), ParserSyntaxError, "a for loop must iterate over pl.range"),
    "while_with_positional_args": Bad(fn("""\
        for (a,) in pl.while_(0, init_values=(0,)):  # <-
            pl.cond(a < n)
        return x
    """), ParserSyntaxError, "pl.while_ takes no positional arguments"),
    "while_target_not_a_tuple": Bad(fn("""\
        for a in pl.while_(init_values=(0,)):  # <-
            pl.cond(a < n)
        return x
    """), ParserSyntaxError, "must be a tuple of names"),
    "while_without_cond": Bad(fn("""\
        for (a,) in pl.while_(init_values=(0,)):  # <-
            b = pl.yield_(a + 1)
        return x
    """), ParserSyntaxError, r"must be pl\.cond"),
    "cond_outside_while": Bad(fn("""\
        pl.cond(n > 0)  # <-
        return x
    """), ParserSyntaxError, r"pl\.cond\(\.\.\.\) must be the first statement of a pl\.while_ body"),
    # -- if ----------------------------------------------------------------------------------------------------------
    "condition_not_bool": Bad(fn("""\
        if n:  # <-
            pass
        return x
    """), ParserTypeError, "a condition must be a BOOL scalar"),
    "yielding_if_without_else": Bad(fn("""\
        if n > 0:  # <-
            r = pl.yield_(x)
        return x
    """), ParserSyntaxError, "needs an else branch"),
    "branches_yield_different_names": Bad(fn("""\
        if n > 0:
            r = pl.yield_(x)
        else:
            s = pl.yield_(x)  # <-
        return x
    """), ParserSyntaxError, "every branch must yield into the same names"),
    # -- break / continue ----------------------------------------------------------------------------------------------
    "break_outside_loop": Bad(fn("""\
        break  # <-
    """), InvalidOperationError, "'break' not supported outside a loop"),
    "break_in_parallel": Bad(fn("""\
        for i in pl.parallel(4):
            break  # <-
        return x
    """), InvalidOperationError, "'break' not supported inside a pl.parallel loop"),
    "continue_in_unroll": Bad(fn("""\
        for i in pl.unroll(4):
            if i > 1:
                continue  # <-
        return x
    """), InvalidOperationError, "'continue' not supported inside a pl.unroll loop"),
    "break_in_split_aiv": Bad(fn("""\
        for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            break  # <-
        return x
    """), InvalidOperationError, "'break' not supported inside a pl.split_aiv region", REGION),
    "continue_in_split_aiv_inside_range": Bad(fn("""\
        for i in pl.range(2):
            for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                continue  # <-
        return x
    """), InvalidOperationError, "'continue' not supported inside a pl.split_aiv region", REGION),
    # -- scopes ----------------------------------------------------------------------------------------------------------
    "split_and_region_mutually_exclusive": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):  # <-
            for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                pass
        return x
    """), ParserSyntaxError, "mutually exclusive", REGION),
    "role_on_core_group": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker):  # <-
            pass
        return x
    """), ParserSyntaxError, "role= is not allowed"),
    "unknown_at_keyword": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP, foo=1):  # <-
            pass
        return x
    """), ParserSyntaxError, "pl.at does not accept 'foo='"),
    "cross_core_slot_twice": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=2), pl.cross_core_slot(slot_num=3)]):  # <-
            pass
        return x
    """), ParserSyntaxError, r"pl\.cross_core_slot\(\.\.\.\) given twice"),
    "split_slot_num_with_cross_core_slot": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=2), pl.split(pl.SplitMode.UP_DOWN, slot_num=3)]):  # <-
            pass
        return x
    """), ParserSyntaxError, "cannot be combined with pl.cross_core_slot"),
    "cache_policy_outside_scope": Bad(fn("""\
        pl.set_cache_policy(x, pl.CachePolicy.BYPASS)  # <-
        return x
    """), ParserSyntaxError, r"pl\.set_cache_policy must be inside"),
    # -- split_aiv ----------------------------------------------------------------------------------------------------------
    "split_aiv_count": Bad(fn("""\
        for a in pl.split_aiv(4, mode=pl.SplitMode.UP_DOWN):  # <-
            pass
        return x
    """), ParserSyntaxError, "requires n == 2"),
    "split_aiv_without_mode": Bad(fn("""\
        for a in pl.split_aiv(2):  # <-
            pass
        return x
    """), ParserSyntaxError, "requires mode="),
    "split_aiv_tuple_target": Bad(fn("""\
        for a, b in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):  # <-
            pass
        return x
    """), ParserSyntaxError, "single loop variable"),
    **{f"split_aiv_keyword_{kw}": Bad(fn(f"""\
        for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, {kw}={value}):  # <-
            pass
        return x
    """), ParserSyntaxError, f"does not accept '{kw}='") for kw, value in (
        ("init_values", "(x,)"), ("chunk", "2"), ("chunk_policy", "'x'"), ("attrs", "{}"), ("step", "1"),
        ("stage", "2"), ("optimizations", "[pl.cross_core_slot(slot_num=2)]"))},
    "nested_split_aiv": Bad(fn("""\
        for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            for b in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):  # <-
                pass
        return x
    """), ParserSyntaxError, r"nested.*pl\.split_aiv", REGION),
    "shard_with_mode": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0], [64])
            for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                s = pl.aiv_shard(t, mode=pl.SplitMode.UP_DOWN)  # <-
        return x
    """), ParserSyntaxError, "does not take a mode", REGION + ("tile.load",)),
    "shard_with_split_inside_region": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0], [64])
            for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                s = pl.aiv_shard(t, split=1)  # <-
        return x
    """), ParserSyntaxError, "does not accept 'split='", REGION + ("tile.load",)),
    "shard_outside_region": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0], [64])
            s = pl.aiv_shard(t)  # <-
        return x
    """), ParserSyntaxError, r"pl\.split_aiv", ("tile.load",)),
    "shard_tensor_with_split": Bad(fn("""\
        s = pl.aiv_shard(x, split=1)  # <-
        return x
    """), ParserSyntaxError, "tile-only"),
    "gather_with_lane_stride": Bad(fn("""\
        s = pl.aic_gather(t, split=1, lane_stride=2)  # <-
        return x
    """, params=f"x: {T}, t: pl.Tile[[64], pl.FP32, pl.Mem.Vec]"), ParserSyntaxError, "does not accept 'lane_stride='"),
    "shard_of_distributed_tensor": Bad(fn("""\
        for a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            s = pl.aiv_shard(d)  # <-
        return x
    """, params=f"x: {T}, d: pl.DistributedTensor[[64, 64], pl.FP32]"), ParserSyntaxError, "distributed", REGION),
    # -- function directives -----------------------------------------------------------------------------------------------
    "func_attr_duplicate_key": Bad(fn("""\
        pl.func_attr({"a": 1})
        pl.func_attr({"a": 2})  # <-
        return x
    """), ParserSyntaxError, "function attribute 'a' is given twice"),
    "func_attr_key_of_decorator_attrs": Bad(fn("""\
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})  # <-
        return x
    """, decorator='@pl.function(attrs={"split": pl.SplitMode.LEFT_RIGHT})'), ParserSyntaxError, "given twice"),
    "func_attr_auto_scope": Bad(fn("""\
        pl.func_attr({"auto_scope": False})  # <-
        return x
    """), ParserSyntaxError, "'auto_scope' is set on the decorator"),
    "func_attr_after_a_statement": Bad(fn("""\
        y = n + 1
        pl.func_attr({"a": 1})  # <-
        return x
    """), ParserSyntaxError, r"pl\.func_attr\(\.\.\.\) must come before every other statement"),
    "external_source_with_a_body": Bad(fn("""\
        return x
    """, decorator='@pl.function(type=pl.FunctionType.AIV, external_source="k.cpp")'), ParserSyntaxError,
        "must have '...' as its body"),
    "bad_decorator_value": Bad(fn("""\
        return x
    """, decorator="@pl.function(type=3)  # <-"), ParserSyntaxError, "expected a FunctionType, got 3"),
    "static_assert": Bad(fn("""\
        pl.static_assert(False, "boom")  # <-
        return x
    """), ParserSyntaxError, "pl.static_assert failed: boom"),
    "static_assert_on_closure_constants": Bad("import pypto.language as pl\n\nK = 4\n\n" + fn("""\
        pl.static_assert(K > 8 and K < 16, "K too small")  # <-
        return x
    """).split("\n\n", 1)[1], ParserSyntaxError, "pl.static_assert failed: K too small"),
    "static_assert_on_a_runtime_value": Bad(fn("""\
        pl.static_assert(n > 8, "n too small")  # <-
        return x
    """), ParserSyntaxError, "needs a condition known while parsing"),
    # -- unsupported Python ----------------------------------------------------------------------------------------------
    "try_statement": Bad(fn("""\
        try:  # <-
            pass
        except Exception:
            pass
        return x
    """), UnsupportedFeatureError, "'Try' statements are not supported"),
    "with_as": Bad(fn("""\
        with pl.at(level=pl.Level.CORE_GROUP) as tid:  # <-
            pass
        return x
    """), UnsupportedFeatureError, "with ... as"),
    "program_with_a_class_attribute": Bad(program("""\
        x = 1  # <-
    """), ParserSyntaxError, "may only contain @pl.function methods"),
    "invalid_python": Bad(fn("""\
        y = (x +  # <-
        return x
    """), ParserSyntaxError, "invalid Python syntax"),
}


def marked_line(source: str) -> int | None:
    for number, line in enumerate(source.splitlines(), 1):
        if line.rstrip().endswith("# <-"):
            return number
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_program(name):
    case = CASES[name]
    if missing_ops(*case.needs):
        pytest.skip(f"ops not registered yet: {missing_ops(*case.needs)}")
    with pytest.raises(ParserError) as info:
        pl.parse(case.source, filename=FILENAME)
    err = info.value
    assert type(err) is case.error, f"{type(err).__name__}: {err}"
    assert re.search(case.message, err.message), err.message
    # Not the last-resort wrapper around an internal exception.
    assert err.__cause__ is None, f"internal error surfaced: {err.__cause__!r}"
    span = err.span
    assert span is not None and span["filename"] == FILENAME
    expected_line = marked_line(case.source)
    if expected_line is not None:
        assert span["line"] == expected_line, str(err)
    rendered = str(err)
    first, location, *excerpt = rendered.splitlines()
    assert first == err.message.splitlines()[0]
    assert location.strip() == f"--> {FILENAME}:{span['line']}:{span['column']}"
    source_line = case.source.splitlines()[span["line"] - 1].rstrip()
    assert any(line.endswith(source_line) for line in excerpt), rendered
    caret = next(line for line in excerpt if line.rstrip().endswith("^"))
    assert caret.index("^") - caret.index("|") - 2 == span["column"] - 1  # under the column


def test_enough_distinct_malformed_programs():
    assert len({case.message for case in CASES.values()}) >= 25


def test_exception_classes_are_exported_and_shared():
    assert InvalidOperationErrorAlias is InvalidOperationError
    for cls in (ParserSyntaxError, ParserTypeError, UndefinedVariableError, SSAViolationError,
                UnsupportedFeatureError, InvalidOperationError):
        assert issubclass(cls, ParserError)
    err = SSAViolationError("m", {"filename": "f.py", "line": 2, "column": 3}, hint="h", note="n",
                            source_lines=["a", "bcdef"], previous_span=None)
    assert err.message == "m" and err.hint == "h" and err.note == "n"
    assert err.span["begin_line"] == 2 and err.span["begin_column"] == 3
    assert str(err).splitlines()[:2] == ["m", "  --> f.py:2:3"]


def test_zero_or_two_definitions_are_value_errors():
    with pytest.raises(ValueError, match="exactly one"):
        pl.parse("import pypto.language as pl\nX = 1\n")
    two = fn("    return x\n") + "\n\n" + fn("    return x\n").split("\n", 2)[2]
    with pytest.raises(ValueError, match="exactly one"):
        pl.parse(two)
    with pytest.raises(ValueError, match="@pl.program"):
        pl.parse_program(fn("    return x\n"))


# -- robustness: mutated programs fail with a parser error, never with a wrapped internal one ------------------
MUTATION_BASES = [
    fn("""\
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k", optimizations=[pl.cross_core_slot(slot_num=2)]):
            t = pl.load(x, [0], [64])
            for i, (acc,) in pl.range(n, init_values=(t,)):
                if i > 0:
                    r = pl.yield_(pl.tile.adds(acc, 1.0))
                else:
                    r = pl.yield_(acc)
                out = pl.yield_(r)
            y = pl.store(out, [0], x)
        for (w,) in pl.while_(init_values=(n,)):
            pl.cond(w > 0)
            w2 = pl.yield_(w - 1)
        return y
    """),
    fn("""\
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.load(x, [aiv_id * 32], [32])
            s = pl.tile.muls(t, 2.0)
            x = pl.store(s, [aiv_id * 32], x)
        k: pl.Scalar[pl.INT64] = pl.cast(n, pl.INT64) * 2
        return x
    """),
]
MUTATION_TOKENS = ["x", "n", "t", "1", "2.0", "-1", "None", "True", "pl", "pl.FP32", "pl.Mem.Vec", "pl.Mem.Acc",
                   "[64]", "[0, 0]", "(x,)", "()", "{}", "pl.range(2)", "pl.add(x, 1.0)", "pl.yield_(x)", "self",
                   "pl.Tensor[[64], pl.FP32]", "pl.Tile[[64], pl.FP32]", "pl.Scalar[pl.INDEX]", "x[0]", "a.b",
                   "pl.split_aiv(2, mode=pl.SplitMode.NONE)", "pl.tile.get_subblock_idx()", "split=1", "...",
                   "pl.matmul", "pl.tile.slice", "pl.reshape", "pl.row_sum", "pl.aiv_shard", "pl.const(1, pl.INT32)"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.data())
def test_mutated_programs_fail_cleanly(data):
    source = data.draw(st.sampled_from(MUTATION_BASES))
    words = [m for m in re.finditer(r"[A-Za-z_][A-Za-z_0-9.]*|\d+\.?\d*|\[[^\[\]]*\]|\([^()]*\)", source)
             if m.start() > 40]
    for match in sorted(data.draw(st.lists(st.sampled_from(words), min_size=1, max_size=3, unique_by=lambda m: m.start())),
                        key=lambda m: -m.start()):
        source = source[:match.start()] + data.draw(st.sampled_from(MUTATION_TOKENS)) + source[match.end():]
    try:
        pl.parse(source, filename=FILENAME)
    except ParserError as err:
        assert err.__cause__ is None, f"internal error surfaced: {err.__cause__!r}\n{source}"
        assert err.span is not None, f"no location for: {err.message}\n{source}"
    except ValueError as err:
        assert "exactly one" in str(err)
