"""Type annotations and their rules (docs/dsl.md, functions; tiles): parameters, returns, assignments, views, dynamic dims."""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace, PadValue, ParamDirection, TensorLayout, TileLayout
from pypto_core.language.roundtrip import assert_roundtrip

CASES = {
    "param_kinds": """
        @pl.function
        def f(a: pl.Tensor[[64, 128], pl.FP32], b: pl.Out[pl.Tensor[[64], pl.FP16]],
              c: pl.InOut[pl.Tensor[[8, 8, 8], pl.BF16]], s: pl.Scalar[pl.INT32],
              t: pl.Tile[[16, 16], pl.FP32], u: pl.Tuple[pl.Scalar[pl.INDEX], pl.Tensor[[4], pl.INT8]]
              ) -> tuple[pl.Tensor[[64, 128], pl.FP32], pl.Scalar[pl.INT32]]:
            return a, s
    """,
    "no_return_annotation": """
        @pl.function
        def f(a: pl.Tensor[[64], pl.FP32]):
            b = pl.add(a, a)
    """,
    "tile_trailing_args_any_order": """
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec],
              b: pl.Tile[[128, 128], pl.FP32, pl.TileView(valid_shape=[127, 128]), pl.Mem.Mat],
              c: pl.Tile[[16, 128], pl.FP16, pl.TileView(blayout=pl.TileLayout.col_major), pl.MemorySpace.Vec],
              d: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec],
              e: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(fractal=512)],
              g: pl.Tile[[16, 16], pl.FP32, pl.Mem.Right],
              h: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left, pl.TileView(pad=pl.PadValue.max, compact=pl.CompactMode.normal)],
              k: pl.Tile[[16, 16], pl.INT8, pl.TileView(stride=[16, 1], start_offset=32)]) -> pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]:
            return a
    """,
    "tile_memref": """
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.MemRef("ub", 0, 1024)],
              b: pl.Tile[[16, 16], pl.FP32, pl.MemRef("ub", 1024, 1024, slots=2)[1], pl.Mem.Vec]) -> pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]:
            return a
    """,
    "tensor_views": """
        @pl.function
        def f(a: pl.Tensor[[128, 128], pl.FP32, pl.NZ],
              b: pl.Tensor[[128, 128], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.TensorLayout.ND,
                                                              valid_shape=[100, 128], pad=pl.PadValue.zero)],
              c: pl.Tensor[[128, 128], pl.FP32, pl.TensorView()],
              d: pl.Tensor[[128, 128], pl.FP32, pl.TensorView(valid_shape=[128, 128], layout=pl.DN)]) -> pl.Tensor[[128, 128], pl.FP32]:
            return a
    """,
    "dynamic_dims": """
        import pypto.language as pl

        M = pl.dynamic("M")
        N = pl.dynamic("N")

        @pl.program
        class Dyn:
            @pl.function
            def g(self, a: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
                b = pl.add(a, 1.0)
                return b

            @pl.function
            def main(self, a: pl.Tensor[[M, 128], pl.FP32], c: pl.Tensor[[M + 1, N * 2], pl.FP32],
                     k: pl.Scalar[pl.INDEX], d: pl.Tensor[[k, 64], pl.FP16]) -> pl.Tensor[[M, 128], pl.FP32]:
                r = self.g(a)
                return r
    """,
    "composite_const_dims": """
        @pl.function
        def f(a: pl.Tensor[[pl.const(32, pl.INDEX) + pl.const(32, pl.INDEX), 8], pl.FP32]) -> pl.Tensor[[64, 8], pl.FP32]:
            return a
    """,
    "tile_annotation_adds_view": """
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: pl.Tile[[64], pl.FP32], b: pl.Tile[[64], pl.FP32]) -> pl.Tile[[64], pl.FP32, pl.Mem.Vec]:
            c: pl.Tile[[64], pl.FP32, pl.TileView(valid_shape=[32])] = pl.tile.add(a, b)
            d = pl.tile.add(a, b)
            e: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = a
            return c
    """,
    "tile_annotation_on_load": """
        @pl.function(type=pl.FunctionType.InCore)
        def f(x: pl.Tensor[[128, 128], pl.FP32]) -> pl.Tensor[[128, 128], pl.FP32]:
            t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128])] = pl.load(x, [0, 0], [128, 128])
            u: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            return x
    """,
    "tensor_annotation_with_view_wins": """
        @pl.function
        def f(x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            y: pl.Tensor[[64, 64], pl.FP32, pl.DN] = pl.add(x, 1.0)
            z: pl.Tensor[[64, 64], pl.FP32] = y
            return z
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_roundtrip(name):
    assert_roundtrip(textwrap.dedent(CASES[name]))


def parse(src: str):
    return pl.parse(textwrap.dedent(src))


def test_param_types_and_directions():
    f = parse(CASES["param_kinds"])
    assert f.param_directions == (ParamDirection.In, ParamDirection.Out, ParamDirection.InOut, ParamDirection.In,
                                  ParamDirection.In, ParamDirection.In)
    a, b, _, s, t, u = (p.type for p in f.params)
    assert isinstance(a, T.TensorType) and [d.value for d in a.shape] == [64, 128] and a.dtype is DataType.FP32
    assert a.tensor_view is None and a.memref is None
    assert b.dtype is DataType.FP16
    assert s == T.ScalarType(DataType.INT32)
    assert isinstance(t, T.TileType) and t.memory_space is None and t.tile_view is None
    assert isinstance(u, T.TupleType) and len(u.types) == 2
    assert len(f.return_types) == 2


def test_implicit_views_are_canonicalised():
    f = parse(CASES["tile_trailing_args_any_order"])
    a, b, c, d, e, g, h, k = (p.type for p in f.params)
    assert a.memory_space is MemorySpace.Vec and a.tile_view is None
    # An omitted layout field means the implicit one of the memory space: Mat is col/row.
    assert b.memory_space is MemorySpace.Mat
    assert b.tile_view.blayout is TileLayout.col_major and b.tile_view.slayout is TileLayout.row_major
    assert [x.value for x in b.tile_view.valid_shape] == [127, 128]
    assert c.tile_view.blayout is TileLayout.col_major and c.dtype is DataType.FP16
    assert d.tile_view is None  # [16, 1] is col_major implicitly
    assert e.tile_view is not None and e.tile_view.fractal == 512  # Acc's implicit fractal is 1024
    assert g.tile_view is None
    assert h.tile_view.pad is PadValue.max
    assert [x.value for x in k.tile_view.stride] == [16, 1] and k.tile_view.start_offset.value == 32


def test_explicit_default_view_equals_no_view():
    f = parse("""
        @pl.function
        def f(a: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec, pl.TileView()],
              b: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView()]) -> pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]:
            return a
    """)
    assert f.params[0].type.tile_view is None and f.params[1].type.tile_view is None
    assert f.params[0].type == T.TileType([16, 128], DataType.FP32, memory_space=MemorySpace.Vec)


def test_tensor_views():
    f = parse(CASES["tensor_views"])
    a, b, c, d = (p.type for p in f.params)
    assert a.tensor_view.layout is TensorLayout.NZ
    assert [x.value for x in b.tensor_view.valid_shape] == [100, 128] and b.tensor_view.pad is PadValue.zero
    assert c.tensor_view is not None and c.tensor_view.layout is None
    assert d.tensor_view.valid_shape == ()  # equal to the shape: says nothing


def test_dynamic_dims_are_shared_across_functions():
    p = parse(CASES["dynamic_dims"])
    g, main = p.get_function("g"), p.get_function("main")
    m_in_g = g.params[0].type.shape[0]
    m_in_main = main.params[0].type.shape[0]
    assert isinstance(m_in_g, ir.Var) and m_in_g is m_in_main
    k = main.params[2]
    assert main.params[3].type.shape[0] is k  # a scalar parameter as a dim
    text = ir.python_print(p)
    assert 'M = pl.dynamic("M")\nN = pl.dynamic("N")\n' in text
    assert "c: pl.Tensor[[M + pl.const(1, pl.INDEX), N * pl.const(2, pl.INDEX)], pl.FP32]" in text


def test_tile_annotation_retypes_the_call():
    f = parse(CASES["tile_annotation_adds_view"])
    c_stmt, d_stmt, e_stmt, _ = ir.flatten_to_stmts(f.body)
    # The annotation adds a view; the memory space it leaves out comes from the op (docs/dsl.md, tiles).
    assert [v.value for v in c_stmt.var.type.tile_view.valid_shape] == [32]
    assert c_stmt.value.type == c_stmt.var.type  # the Call is rebuilt with the annotated type
    assert c_stmt.var.type.memory_space is d_stmt.var.type.memory_space
    assert d_stmt.var.type.tile_view is None
    assert e_stmt.var.type.memory_space is MemorySpace.Vec and e_stmt.value.type.memory_space is None


def test_tensor_annotation_with_view_wins_and_plain_one_only_checks():
    f = parse(CASES["tensor_annotation_with_view_wins"])
    y, z, _ = ir.flatten_to_stmts(f.body)
    assert y.var.type.tensor_view.layout is TensorLayout.DN
    assert y.value.type == y.var.type  # the call is retyped
    assert z.var.type == y.var.type  # an annotation without a view only checks shape and dtype


def test_annotation_supplies_the_type_of_an_unknown_call():
    p = parse("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                y: pl.Tensor[[64], pl.FP32] = self.later(x)
                z = self.later(x)
                return y

            @pl.function
            def later(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
                return a
    """)
    y, z, _ = ir.flatten_to_stmts(p.get_function("main").body)
    assert isinstance(y.value.type, T.TensorType) and isinstance(y.var.type, T.TensorType)
    assert isinstance(z.var.type, T.UnknownType)  # a later method: no annotation, no type
    assert_roundtrip(p)
