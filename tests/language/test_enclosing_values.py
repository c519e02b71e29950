"""Values from the enclosing Python scope (docs/dsl.md, values from the enclosing Python scope).

A kernel built inside a function reads the Python values of names its body does not bind: the decorating
frame's locals, closure cells and globals. Each form below builds a program from such values and checks
that it is structurally equal to the same program written with literals; the text path reads the same
values as module-level constants from the AST. A value of an unsupported type is a located error naming
the variable and its Python type.
"""

import enum
import re
import textwrap

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import (
    ParserSyntaxError,
    ParserTypeError,
    SSAViolationError,
    UnsupportedFeatureError,
)
from pypto_core.ops.registry import op_registry

G_SHAPE = (16, 128)  # read through the decorated function's globals
G_DT = pl.FP32
T16 = "pl.Tensor[[16, 128], pl.FP32]"

# The programs as written with literals; every test builds one of them another way.
LITERAL = {
    "add": f"""
        @pl.function
        def f(x: {T16}) -> {T16}:
            y = pl.add(x, 1.0)
            return y
    """,
    "scale": f"""
        @pl.function
        def f(x: {T16}) -> {T16}:
            y = pl.mul(x, 2.0)
            return y
    """,
    "cast": """
        @pl.function
        def f(x: pl.Tensor[[16, 128], pl.FP16]) -> pl.Tensor[[16, 128], pl.FP32]:
            y = pl.cast(x, pl.FP32)
            return y
    """,
    "load": f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: {T16}, o: {T16}) -> {T16}:
            t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 8])] = pl.load(
                x, [0, 0], [16, 128], valid_shape=[16, 8], target_memory=pl.Mem.Vec)
            o = pl.store(t, [0, 0], o, atomic=pl.AtomicType.Add)
            return o
    """,
    "bufs": """
        @pl.function
        def f(x: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            y = pl.slice(x, [16, 64], [16, 0])
            return y
    """,
    "scope": f"""
        @pl.function
        def f(x: {T16}, o: {T16}) -> {T16}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                t = pl.load(x, [0, 0], [16, 128], clamp=True)
                o = pl.store(t, [0, 0], o)
            return o
    """,
    "dynamic": """
        M = pl.dynamic("M")

        @pl.function
        def f(x: pl.Tensor[[M * 2, pl.min(M, 64)], pl.FP32]) -> pl.Tensor[[M * 2, pl.min(M, 64)], pl.FP32]:
            y = pl.add(x, 1.0)
            return y
    """,
    "program": f"""
        @pl.program
        class Scaled:
            @pl.function
            def main(self, x: {T16}) -> {T16}:
                for _ in pl.range(2):
                    x = pl.mul(x, 2.0)
                return x
    """,
}


def literal(name: str):
    return pl.parse("import pypto.language as pl\n" + textwrap.dedent(LITERAL[name]))


def same(built, name: str) -> None:
    ir.assert_structural_equal(built, literal(name))


# -- decorator path: frame locals, closure cells, globals ---------------------------------------------------
@pytest.mark.parametrize("input_shape", [[16, 128], (16, 128)], ids=["list", "tuple"])
def test_a_shape_held_by_a_local_is_the_annotation_shape(input_shape):
    dt = pl.FP32

    @pl.function
    def f(x: pl.Tensor[input_shape, dt]) -> pl.Tensor[input_shape, dt]:
        y = pl.add(x, 1.0)
        return y

    same(f, "add")


def test_a_shape_and_dtype_from_the_module_globals():
    @pl.function
    def f(x: pl.Tensor[G_SHAPE, G_DT]) -> pl.Tensor[G_SHAPE, G_DT]:
        y = pl.add(x, 1.0)
        return y

    same(f, "add")


def make_shape(rows: int) -> list[int]:
    return [rows, rows * 8]


def test_a_value_a_helper_computed_before_the_decorator():
    shape = make_shape(16)

    @pl.function
    def f(x: pl.Tensor[shape, pl.FP32]) -> pl.Tensor[shape, pl.FP32]:
        y = pl.add(x, 1.0)
        return y

    same(f, "add")


def test_shapes_built_from_nested_values_indexing_unpacking_and_concatenation():
    layouts = ((8, 8), (16, 128))
    rows = [16]

    @pl.function
    def f(x: pl.Tensor[layouts[1], pl.FP32]) -> pl.Tensor[[*rows, 128], pl.FP32]:
        y: pl.Tensor[rows + [128], pl.FP32] = pl.add(x, 1.0)
        return y

    same(f, "add")


def test_a_float_from_a_closure_cell_as_an_op_argument():
    def build(scale: float):
        @pl.function
        def f(x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            y = pl.mul(x, scale)
            return y

        return f

    same(build(2.0), "scale")


def test_a_dtype_held_in_a_variable_as_an_op_argument():
    dt = pl.FP32
    src = pl.FP16

    @pl.function
    def f(x: pl.Tensor[[16, 128], src]) -> pl.Tensor[[16, 128], dt]:
        y = pl.cast(x, dt)
        return y

    same(f, "cast")


def test_a_dtype_bound_in_the_body_is_a_parse_time_constant():
    @pl.function
    def f(x: pl.Tensor[[16, 128], pl.FP16]) -> pl.Tensor[[16, 128], pl.FP32]:
        dt = pl.FP32
        y = pl.cast(x, dt)
        return y

    same(f, "cast")  # no statement for `dt`


def test_enum_members_valid_shapes_and_offsets_held_in_variables():
    vshape = [16, 8]
    mem = pl.Mem.Vec
    atomic = pl.AtomicType.Add
    origin = (0, 0)

    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[16, 128], pl.FP32], o: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, mem, pl.TileView(valid_shape=vshape)] = pl.load(
            x, origin, [16, 128], valid_shape=vshape, target_memory=mem)
        o = pl.store(t, origin, o, atomic=atomic)
        return o

    same(k, "load")


def test_enum_members_bound_in_the_body():
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[16, 128], pl.FP32], o: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        mem = pl.Mem.Vec
        add = pl.AtomicType.Add
        t: pl.Tile[[16, 128], pl.FP32, mem, pl.TileView(valid_shape=[16, 8])] = pl.load(
            x, [0, 0], [16, 128], valid_shape=[16, 8], target_memory=mem)
        o = pl.store(t, [0, 0], o, atomic=add)
        return o

    same(k, "load")


def test_a_list_indexed_by_a_constant_expression():
    bufs = [16, 32]
    i = 3

    @pl.function
    def f(x: pl.Tensor[[bufs[i % 2], 64], pl.FP32]) -> pl.Tensor[[bufs[0], 64], pl.FP32]:
        y = pl.slice(x, [bufs[-2], 64], [bufs[i - 3], 0])
        return y

    same(f, "bufs")


def test_str_bool_and_enum_values_in_scope_arguments():
    hint = "rows"
    flag = True
    mode = pl.SplitMode.UP_DOWN

    @pl.function
    def f(x: pl.Tensor[[16, 128], pl.FP32], o: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint=hint, optimizations=[pl.split(mode)]):
            t = pl.load(x, [0, 0], [16, 128], clamp=flag)
            o = pl.store(t, [0, 0], o)
        return o

    same(f, "scope")


def test_none_held_in_a_variable_is_an_omitted_argument():
    nothing = None

    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[16, 128], pl.FP32], o: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 8])] = pl.load(
            x, [0, 0], [16, 128], valid_shape=[16, 8], target_memory=pl.Mem.Vec)
        o = pl.store(t, [0, 0], o, atomic=pl.AtomicType.Add, shapes=nothing)
        return o

    same(k, "load")


def test_dynamic_dims_and_python_arithmetic_on_them():
    m = pl.dynamic("M")
    rows = m * 2  # recorded when computed, rebuilt as `M * 2`
    cols = pl.min(m, 64)

    @pl.function
    def f(x: pl.Tensor[[rows, cols], pl.FP32]) -> pl.Tensor[[m * 2, pl.min(m, 64)], pl.FP32]:
        y = pl.add(x, 1.0)
        return y

    same(f, "dynamic")


def _scaled_class(rows: int, scale: float) -> type:
    class Scaled:
        @pl.function
        def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            for _ in pl.range(rows // 16):
                x = pl.mul(x, scale)
            return x

    return Scaled


def test_a_program_decorated_away_from_its_values_reads_the_methods_closure_cells():
    # The decorating frame (this test) binds neither `rows` nor `scale`: they are the methods' cells.
    same(pl.program(_scaled_class(32, 2.0)), "program")


def test_a_parametrised_builder_gives_one_program_per_parameter():
    def build(rows: int):
        @pl.function
        def f(x: pl.Tensor[[rows, 128], pl.FP32]) -> pl.Tensor[[rows, 128], pl.FP32]:
            y = pl.add(x, 1.0)
            return y

        return f

    same(build(16), "add")
    assert [d.value for d in build(32).params[0].type.shape] == [32, 128]


def test_numpy_numbers_are_plain_numbers():
    rows, scale = np.int64(16), np.float64(2.0)

    @pl.function
    def f(x: pl.Tensor[[rows, 128], pl.FP32]) -> pl.Tensor[[rows, 128], pl.FP32]:
        y = pl.mul(x, scale)
        return y

    same(f, "scale")


# -- text path: module-level constants read from the AST -----------------------------------------------------
TEXT = {
    "add": ("SHAPE = (16, 128)\nDT = pl.FP32\n", """
        @pl.function
        def f(x: pl.Tensor[SHAPE, DT]) -> pl.Tensor[SHAPE, DT]:
            y = pl.add(x, 1.0)
            return y
    """),
    "add_nested": ("LAYOUTS = ((8, 8), (16, 128))\nROWS = [LAYOUTS[1][0]]\nCOLS = LAYOUTS[0][0] * 16\n", """
        @pl.function
        def f(x: pl.Tensor[LAYOUTS[1], pl.FP32]) -> pl.Tensor[[*ROWS, COLS], pl.FP32]:
            y: pl.Tensor[ROWS + [128], pl.FP32] = pl.add(x, 1.0)
            return y
    """),
    "scale": ("ROWS = 16\nSCALE = ROWS / 8\nROWS += 0\n", """
        @pl.function
        def f(x: pl.Tensor[[ROWS, ROWS * 8], pl.FP32]) -> pl.Tensor[[ROWS, 128], pl.FP32]:
            y = pl.mul(x, SCALE)
            return y
    """),
    "cast": ("SRC, DT = pl.FP16, pl.FP32\n", """
        @pl.function
        def f(x: pl.Tensor[[16, 128], SRC]) -> pl.Tensor[[16, 128], DT]:
            y = pl.cast(x, DT)
            return y
    """),
    "load": ("VSHAPE = [16, 8]\nMEM = pl.Mem.Vec\nATOMIC = pl.AtomicType.Add\nORIGIN = (0, 0)\n", """
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Tensor[[16, 128], pl.FP32], o: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            t: pl.Tile[[16, 128], pl.FP32, MEM, pl.TileView(valid_shape=VSHAPE)] = pl.load(
                x, ORIGIN, [16, 128], valid_shape=VSHAPE, target_memory=MEM)
            o = pl.store(t, ORIGIN, o, atomic=ATOMIC)
            return o
    """),
    "bufs": ("BUFS = [16, 32]\nI = 3\n", """
        @pl.function
        def f(x: pl.Tensor[[BUFS[I % 2], 64], pl.FP32]) -> pl.Tensor[[BUFS[0], 64], pl.FP32]:
            y = pl.slice(x, [BUFS[-2], 64], [BUFS[I - 3], 0])
            return y
    """),
    "scope": ("HINT = 'ro' + 'ws'\nFLAG = not False\nMODE = pl.SplitMode.UP_DOWN\n", """
        @pl.function
        def f(x: pl.Tensor[[16, 128], pl.FP32], o: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint=HINT, optimizations=[pl.split(MODE)]):
                t = pl.load(x, [0, 0], [16, 128], clamp=FLAG)
                o = pl.store(t, [0, 0], o)
            return o
    """),
    "dynamic": ("M = pl.dynamic('M')\nROWS = M * 2\n", """
        @pl.function
        def f(x: pl.Tensor[[ROWS, pl.min(M, 64)], pl.FP32]) -> pl.Tensor[[M * 2, pl.min(M, 64)], pl.FP32]:
            y = pl.add(x, 1.0)
            return y
    """),
    "dynamic_pure_calls": ("M = pl.dynamic('M')\nROWS = M * 2\nCOLS = pl.min(M, 64)\n", """
        @pl.function
        def f(x: pl.Tensor[[ROWS, COLS], pl.FP32]) -> pl.Tensor[[M * 2, pl.min(M, 64)], pl.FP32]:
            y = pl.add(x, 1.0)
            return y
    """),
    "program": ("ROWS = 32\nSCALE = 2.0\n", """
        @pl.program
        class Scaled:
            @pl.function
            def main(self, x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
                for _ in pl.range(ROWS // 16):
                    x = pl.mul(x, SCALE)
                return x
    """),
}


@pytest.mark.parametrize("case", sorted(TEXT))
def test_the_text_path_reads_module_constants(case):
    constants, body = TEXT[case]
    built = pl.parse("import pypto.language as pl\n" + constants + textwrap.dedent(body))
    same(built, case.split("_")[0])


# -- an enum a plugin adds to an op namespace (`pl.tile.MaskPattern`) ------------------------------------------
class Pattern(enum.IntEnum):
    P0101 = 1
    P1010 = 2


@pytest.fixture
def tile_pattern_enum():
    """A plugin may register any object under a DSL name: `pl.tile.Pattern` is then this enum."""
    registry = op_registry()
    registry.register_dsl("tile.Pattern", Pattern, owner="test_enclosing_values")
    yield
    registry.unregister_owner("test_enclosing_values")


SCALAR_LITERAL = f"""
    @pl.function
    def f(x: {T16}) -> {T16}:
        n: pl.Scalar[pl.INT32] = 1
        return x
"""


def test_an_op_namespace_enum_member_held_in_a_variable(tile_pattern_enum):
    pattern = pl.tile.Pattern.P0101

    @pl.function
    def f(x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
        n: pl.Scalar[pl.INT32] = pattern
        return x

    expected = pl.parse("import pypto.language as pl\n" + textwrap.dedent(SCALAR_LITERAL))
    ir.assert_structural_equal(f, expected)
    body = "PATTERN = pl.tile.Pattern.P0101\n" + textwrap.dedent(SCALAR_LITERAL).replace("= 1", "= PATTERN")
    ir.assert_structural_equal(pl.parse("import pypto.language as pl\n" + body), expected)


# -- unsupported values ------------------------------------------------------------------------------------
class Config:
    rows = 16


@pytest.mark.parametrize("value, type_name", [
    ({"rows": 16}, "dict"),
    ({16}, "set"),
    (Config(), r"[\w.]*Config"),
    (lambda: 16, "function"),
    (np.zeros(4), r"numpy\.ndarray"),
    (1j, "complex"),
    ([16, {"rows": 16}], r"list whose element bad\[1\] is a dict"),
    ((16, (8, [object()])), r"tuple whose element bad\[1\]\[1\]\[0\] is an object"),
], ids=["dict", "set", "object", "function", "ndarray", "complex", "nested_dict", "deeply_nested"])
def test_a_value_of_an_unsupported_type_is_a_located_error(value, type_name):
    bad = value
    with pytest.raises(ParserTypeError) as info:
        @pl.function
        def f(x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[16, 128], pl.FP32]:
            y = pl.mul(x, bad)
            return y

    err = info.value
    assert re.match(f"'bad' is a Python {type_name};", err.message), err.message
    assert "int, float, bool, str, None, lists and tuples" in err.message
    assert err.span["filename"] == __file__
    assert "y = pl.mul(x, bad)" in str(err)  # the caret is under the use


@pytest.mark.parametrize("where", ["shape", "dtype", "memory"])
def test_unsupported_values_in_annotations_name_the_variable(where):
    bad = {"rows": 16}
    with pytest.raises(ParserTypeError, match="'bad' is a Python dict"):
        if where == "shape":
            @pl.function
            def f(x: pl.Tensor[bad, pl.FP32]):
                pass
        elif where == "dtype":
            @pl.function
            def g(x: pl.Tensor[[16], bad]):
                pass
        else:
            @pl.function(type=pl.FunctionType.InCore)
            def h(x: pl.Tile[[16, 16], pl.FP32, bad]):
                pass


def test_a_wrong_kind_of_constant_says_what_it_holds():
    dt = "fp32"
    with pytest.raises(ParserTypeError, match=r"expected a dtype such as pl.FP32, got 'dt' \(which holds the str"):
        @pl.function
        def f(x: pl.Tensor[[16], dt]):
            pass


def test_a_python_list_indexed_by_a_dsl_variable_is_an_error():
    bufs = [16, 32]
    with pytest.raises(ParserTypeError, match="'bufs' is a Python list: its index must be an integer constant"):
        @pl.function
        def f(x: pl.Tensor[[32, 64], pl.FP32], i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
            y = pl.slice(x, [bufs[i], 64], [0, 0])
            return y


def test_an_index_out_of_range_is_an_error():
    bufs = [16, 32]
    with pytest.raises(ParserSyntaxError, match=r"index 2 is out of range for 'bufs' \(length 2\)"):
        @pl.function
        def f(x: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            y = pl.slice(x, [bufs[2], 64], [0, 0])
            return y


def test_a_body_constant_cannot_be_chosen_by_a_run_time_if():
    with pytest.raises(ParserSyntaxError, match="inside an if"):
        @pl.function
        def f(x: pl.Tensor[[16], pl.FP16], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16], pl.FP32]:
            if n > 0:
                dt = pl.FP32
            y = pl.cast(x, dt)
            return y


def test_a_body_constant_cannot_rebind_a_dsl_variable():
    with pytest.raises(ParserTypeError, match="Cannot reassign 'x'"):
        @pl.function
        def f(x: pl.Tensor[[16], pl.FP16]):
            x = pl.FP32


def test_strict_ssa_rejects_a_second_body_constant():
    with pytest.raises(SSAViolationError, match="assigned twice"):
        @pl.function(strict_ssa=True)
        def f(x: pl.Tensor[[16], pl.FP16]):
            dt = pl.FP32
            dt = pl.FP16


def text(constants: str, use: str = "[N, 128]") -> str:
    return ("import pypto.language as pl\n" + constants +
            f"\n@pl.function\ndef f(x: pl.Tensor[{use}, pl.FP32]):\n    pass\n")


@pytest.mark.parametrize("constants, cls, reason", [
    ("N = make_n()", UnsupportedFeatureError, "is computed by calling 'make_n(...)'"),
    ("N = {'rows': 16}", ParserTypeError, "is a Python dict"),
    ("N = {16}", ParserTypeError, "is a Python set"),
    ("N = [i for i in range(4)]", ParserTypeError, "is a Python list comprehension"),
    ("import numpy as np\nN = np.int64(16)", UnsupportedFeatureError, "computed by calling 'np.int64(...)'"),
    ("import numpy\nN = numpy.pi", UnsupportedFeatureError, "imported from 'numpy', a module the text path"),
    ("from math import pi as N", UnsupportedFeatureError, "imported from 'math'"),
    ("if True:\n    N = 16", UnsupportedFeatureError, "bound inside a module-level 'if' statement"),
    ("for N in [16]:\n    pass", UnsupportedFeatureError, "bound inside a module-level 'for' statement"),
    ("N = 16\nN = make_n()", UnsupportedFeatureError, "computed by calling 'make_n(...)'"),
    ("K = make()\nN = K + 1", UnsupportedFeatureError, "computed from 'K', which is computed by calling"),
    ("N = 2 ** 10 ** 9", UnsupportedFeatureError, "not a constant expression"),
    ("N = [0] * 10 ** 9", UnsupportedFeatureError, "not a constant expression"),
    ("def N():\n    return 16", UnsupportedFeatureError, "a function defined in the file"),
    ("N, K = make()", UnsupportedFeatureError, "computed by calling 'make(...)'"),
], ids=["call", "dict", "set", "comprehension", "numpy_call", "numpy_attr", "from_import", "if", "for",
        "reassigned", "derived", "huge_pow", "huge_list", "def", "unpacked_call"])
def test_text_constants_that_cannot_be_read_are_located_errors(constants, cls, reason):
    source = text(constants)
    with pytest.raises(cls) as info:
        pl.parse(source, filename="kernel.py")
    err = info.value
    assert err.message.startswith("'N' (module level, line ")
    assert reason in err.message and "never runs the file" in err.message
    assert err.span["filename"] == "kernel.py"
    assert err.span["line"] == source.splitlines().index("def f(x: pl.Tensor[[N, 128], pl.FP32]):") + 1


def test_a_list_changed_after_it_is_read_is_not_trusted():
    source = text("SHAPE = [16]\nSHAPE.append(128)", use="SHAPE")
    with pytest.raises(UnsupportedFeatureError, match=r"'SHAPE' .* is changed by 'SHAPE.append\(128\)'"):
        pl.parse(source)


def test_an_unreadable_name_in_a_decorator_says_why():
    source = ("import pypto.language as pl\nKIND = pick()\n"
              "@pl.function(type=KIND)\ndef f(x: pl.Tensor[[16], pl.FP32]):\n    pass\n")
    with pytest.raises(ParserSyntaxError, match=r"cannot evaluate 'KIND' in a decorator: 'KIND' .*calling 'pick"):
        pl.parse(source)


@pytest.mark.parametrize("expr, reason", [
    ("2 ** 10 ** 9", "larger than 65536 bits"),
    ("[0] * 10 ** 9", "larger than 65536 elements"),
    ("1 // 0", "division or modulo by zero"),
], ids=["pow", "repeat", "zero_division"])
def test_constant_folding_in_a_body_refuses_huge_results_instead_of_computing_them(expr, reason):
    source = f"import pypto.language as pl\n@pl.function\ndef f(x: pl.Scalar[pl.INDEX]):\n    n = {expr}\n"
    with pytest.raises(ParserSyntaxError, match=f"cannot fold .*{reason}"):
        pl.parse(source)
