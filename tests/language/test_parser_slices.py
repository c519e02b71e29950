"""Parser forms: Python slices on tensors and tiles, subscript assignment, a static
annotation on a value of dynamic shape, enum members used as values.

A slice builds what the explicit `pl.slice(x, shape, offset)` spelling builds (`tensor.slice` /
`tile.slice`); `out[...] = x` builds `pl.assemble(out, x, offsets)` (docs/dsl.md, scopes: pl.at).
Every form is compared with its explicit spelling by structural equality.
"""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import (
    ParserSyntaxError,
    ParserTypeError,
    SSAViolationError,
    UnsupportedFeatureError,
)

PRELUDE = 'import pypto.language as pl\nN = pl.dynamic("N")\nM = pl.dynamic("M")\nHALF = 64\n'
T = "pl.Tensor[[16, 128], pl.FP32]"


def parse(body: str):
    return pl.parse(PRELUDE + textwrap.dedent(body))


def kernel(*lines: str, params: str = f"x: {T}", ret: str = T, incore: bool = False) -> str:
    decorator = "@pl.function(type=pl.FunctionType.InCore)" if incore else "@pl.function"
    body = "\n".join(f"    {line}" for line in lines)
    return f"{decorator}\ndef f({params}) -> {ret}:\n{body}\n"


def same(sugar: str, explicit: str) -> None:
    ir.assert_structural_equal(parse(sugar), parse(explicit))


def ops_of(func) -> list[str]:
    return [s.value.op.name for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.AssignStmt)
            and isinstance(s.value, ir.Call) and hasattr(s.value.op, "name")]


# -- slices as values --------------------------------------------------------------------------------------
TENSOR_SLICES = {
    "columns": ("y = x[:, 0:HALF]", "y = pl.slice(x, [16, 64], [0, 0])"),
    "rows_only": ("y = x[8:16]", "y = pl.slice(x, [8, 128], [8, 0])"),
    "open_ends": ("y = x[4:, :96]", "y = pl.slice(x, [12, 96], [4, 0])"),
    "negative": ("y = x[:, -32:]", "y = pl.slice(x, [16, 32], [0, 96])"),
    "ellipsis": ("y = x[..., 64:128]", "y = pl.slice(x, [16, 64], [0, 64])"),
    "whole": ("y = x[:]", "y = pl.slice(x, [16, 128], [0, 0])"),
    "index_drops_the_axis": ("y = x[3, 0:HALF]", "y = pl.slice(x, [1, 64], [3, 0], drop_dims=[0])"),
    "step_one": ("y = x[0:8:1, :]", "y = pl.slice(x, [8, 128], [0, 0])"),
}


@pytest.mark.parametrize("case", sorted(TENSOR_SLICES))
def test_a_tensor_slice_is_the_explicit_pl_slice(case):
    sugar, explicit = TENSOR_SLICES[case]
    sugar_f, explicit_f = (kernel(line, "return x") for line in (sugar, explicit))
    same(sugar_f, explicit_f)
    assert ops_of(parse(sugar_f)) == ["tensor.slice"]


def test_a_tile_slice_is_tile_slice():
    load = "t = pl.load(x, [0, 0], [16, 128])"
    sugar = kernel(load, "a = t[:, 0:HALF]", "b = t[2, 64:]", "return x", incore=True)
    explicit = kernel(load, "a = pl.tile.slice(t, [16, 64], [0, 0])",
                      "b = pl.slice(t, [1, 64], [2, 64], drop_dims=[0])", "return x", incore=True)
    same(sugar, explicit)
    assert ops_of(parse(sugar)) == ["tile.load", "tile.slice", "tile.slice"]


def test_a_window_that_moves_with_the_loop_keeps_a_constant_extent():
    loop = ["t = pl.load(x, [0, 0], [16, 256])", "for i in pl.range(4):"]
    sugar = kernel(*loop, "    w = t[:, i * 64:(i + 1) * 64]", "    v = t[0:8, i * 64:i * 64 + 64]", "return x",
                   params="x: pl.Tensor[[16, 256], pl.FP32]", ret="pl.Tensor[[16, 256], pl.FP32]", incore=True)
    explicit = kernel(*loop, "    w = pl.slice(t, [16, 64], [0, i * 64])", "    v = pl.slice(t, [8, 64], [0, i * 64])",
                      "return x", params="x: pl.Tensor[[16, 256], pl.FP32]", ret="pl.Tensor[[16, 256], pl.FP32]",
                      incore=True)
    same(sugar, explicit)


def test_slices_of_a_dynamic_tensor():
    params, ret = "x: pl.Tensor[[N, M], pl.FP32], k: pl.Scalar[pl.INDEX]", "pl.Tensor[[N, M], pl.FP32]"
    sugar = kernel("a = x[0:16]", "b = x[:, -8:]", "c = x[k:k + 4, :]", "d = x[:, k:]", "return x",
                   params=params, ret=ret)
    explicit = kernel("a = pl.slice(x, [16, M], [0, 0])", "b = pl.slice(x, [N, 8], [0, M - 8])",
                      "c = pl.slice(x, [4, M], [k, 0])", "d = pl.slice(x, [N, M - k], [0, k])", "return x",
                      params=params, ret=ret)
    same(sugar, explicit)


def test_slice_bounds_from_the_enclosing_scope():
    half, rows = 64, (8, 16)

    @pl.function
    def f(x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[8, 64], pl.FP32]:
        y = x[rows[0]:rows[1], half:]
        return y

    @pl.function
    def g(x: pl.Tensor[[16, 128], pl.FP32]) -> pl.Tensor[[8, 64], pl.FP32]:
        y = pl.slice(x, [8, 64], [8, 64])
        return y

    ir.assert_structural_equal(f, g)


# -- subscript assignment -----------------------------------------------------------------------------------
OUT = "out: pl.Tensor[[32, 128], pl.FP32]"
ASSIGNS = {
    "window": ("out[16:32, 0:128] = x", "out = pl.assemble(out, x, [16, 0])"),
    "rows_only": ("out[0:16] = x", "out = pl.assemble(out, x, [0, 0])"),
    "open_end": ("out[16:, ...] = x", "out = pl.assemble(out, x, [16, 0])"),
    "whole": ("out[:] = out2", "out = pl.assemble(out, out2, [0, 0])"),
    "ellipsis": ("out[...] = out2", "out = pl.assemble(out, out2, [0, 0])"),
    "index": ("out[n, 0] = x", "out = pl.assemble(out, x, [n, 0])"),
    "whole_places_a_smaller_value": ("out[:] = x", "out = pl.assemble(out, x, [0, 0])"),
}


@pytest.mark.parametrize("case", sorted(ASSIGNS))
def test_subscript_assignment_is_the_explicit_assemble(case):
    sugar, explicit = ASSIGNS[case]
    params = f"x: {T}, {OUT}, out2: pl.Tensor[[32, 128], pl.FP32], n: pl.Scalar[pl.INDEX]"
    ret = "pl.Tensor[[32, 128], pl.FP32]"
    same(kernel(sugar, "return out", params=params, ret=ret), kernel(explicit, "return out", params=params, ret=ret))


def test_subscript_assignment_into_a_tile_is_tile_assemble():
    lines = ["t = pl.load(out, [0, 0], [32, 128])", "s = pl.load(x, [0, 0], [16, 128])"]
    params, ret = f"x: {T}, {OUT}", "pl.Tensor[[32, 128], pl.FP32]"
    sugar = kernel(*lines, "t[16:32, :] = s", "return out", params=params, ret=ret, incore=True)
    explicit = kernel(*lines, "t = pl.tile.assemble(t, s, [16, 0])", "return out", params=params, ret=ret, incore=True)
    same(sugar, explicit)


# -- errors ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line, cls, message", [
    ("y = x[0:16:2, :]", UnsupportedFeatureError, "slice steps are not supported"),
    ("y = x[1, 2]", UnsupportedFeatureError, "indexes every axis"),
    ("y = x[0:4, 0:4, 0:4]", ParserSyntaxError, "has 3 indices for a 2-D value"),
    ("y = x[..., 0:4, ...]", ParserSyntaxError, "at most one '...'"),
    ("y = x[4:4, :]", ParserSyntaxError, "selects nothing on axis 0"),
    ("y = x[:, 0:256]", ParserSyntaxError, "runs past the end of axis 1 of 'x' (extent 128)"),
    ("y = x[:, 0:1.5]", ParserTypeError, "a slice bound must be an integer scalar"),
    ("x[0:8, :] = x", ParserTypeError, "Subscript-write shape mismatch on source axis 0: window expects 8 elements, "
                                       "source has 16"),
    ("s = pl.const(1, pl.INDEX)\n    s[0:1] = x", ParserTypeError, "only a tensor or a tile can be assigned into"),
], ids=["step", "all_indices", "too_many", "two_ellipses", "empty", "past_end", "float_bound", "wrong_window",
        "scalar_target"])
def test_bad_subscripts_are_located_errors(line, cls, message):
    source = kernel(line, "return x")
    with pytest.raises(cls) as info:
        parse(source)
    assert message in info.value.message
    assert info.value.span is not None and info.value.span["line"] > PRELUDE.count("\n")


def test_subscript_assignment_is_rejected_in_strict_ssa():
    source = kernel("x[0:16, :] = x", "return x").replace("@pl.function", "@pl.function(strict_ssa=True)")
    with pytest.raises(SSAViolationError, match="subscript assignment"):
        parse(source)


# -- a static annotation on a dynamic value ----------------------------------------------------------------
def test_a_static_annotation_on_a_value_of_dynamic_shape_is_accepted():
    params, ret = "x: pl.Tensor[[N, M], pl.FP32]", "pl.Tensor[[N, M], pl.FP32]"
    annotated = parse(kernel("y: pl.Tensor[[64, 128], pl.FP32] = pl.add(x, 1.0)", "return y", params=params, ret=ret))
    plain = parse(kernel("y = pl.add(x, 1.0)", "return y", params=params, ret=ret))
    ir.assert_structural_equal(annotated, plain)  # the annotation is a check; y keeps the type [N, M]


def test_a_static_tile_annotation_on_a_dynamic_window_gives_the_tile_its_shape():
    source = kernel("t = pl.load(x, [0, 0], [16, 128])", "w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = t[:, k:k + 64]",
                    "return x", params=f"x: {T}, k: pl.Scalar[pl.INDEX]", incore=True)
    assign = ir.flatten_to_stmts(parse(source).body)[1]
    assert [d.value for d in assign.var.type.shape] == [16, 64]


@pytest.mark.parametrize("annotation", ["pl.Tensor[[64, 64], pl.FP32]", "pl.Tensor[[64], pl.FP32]",
                                        "pl.Tensor[[N, M], pl.FP16]"], ids=["static_dim", "rank", "dtype"])
def test_annotations_that_contradict_what_is_known_are_still_errors(annotation):
    params = "x: pl.Tensor[[N, 128], pl.FP32]"
    with pytest.raises(ParserTypeError, match="does not match the value's type"):
        parse(kernel(f"y: {annotation} = pl.add(x, 1.0)", "return y", params=params, ret="pl.Tensor[[N, 128], pl.FP32]"))


# -- enum members used as values ---------------------------------------------------------------------------
def test_enum_members_as_values_in_the_body_and_as_arguments():
    lines = ["mem = pl.Mem.Vec", "mode = pl.AtomicType.Add", "t = pl.load(x, [0, 0], [16, 128], target_memory=mem)",
             "x = pl.store(t, [0, 0], x, atomic=mode)", "return x"]
    explicit = ["t = pl.load(x, [0, 0], [16, 128], target_memory=pl.Mem.Vec)",
                "x = pl.store(t, [0, 0], x, atomic=pl.AtomicType.Add)", "return x"]
    same(kernel(*lines, incore=True), kernel(*explicit, incore=True))


def test_an_int_enum_in_scalar_arithmetic_is_its_value():
    same(kernel("n = pl.PipeType.V + 1", "return x"), kernel("n = 5", "return x"))
