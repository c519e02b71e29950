"""Calls between functions (docs/dsl.md, programs), tuple results, and op calls with every printed kwarg spelling
(docs/dsl.md, the printed form), including subscript-assignment desugaring (docs/dsl.md, scopes: pl.at)."""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType
from pypto_core.language.roundtrip import assert_roundtrip, missing_ops

T64 = "pl.Tensor[[64], pl.FP32]"
T2 = "pl.Tensor[[64, 128], pl.FP32]"


def needs(*ops: str):
    return pytest.mark.skipif(bool(missing_ops(*ops)), reason=f"ops not registered yet: {missing_ops(*ops)}")


CALL_CASES = {
    "self_calls_and_tuples": f"""
        import pypto.language as pl

        @pl.program
        class Calls:
            @pl.function
            def pair(self, a: {T64}, s: pl.Scalar[pl.INDEX]) -> tuple[{T64}, pl.Scalar[pl.INDEX]]:
                b = pl.add(a, 1.0)
                return b, s + 1

            @pl.function
            def none(self, a: {T64}):
                pass

            @pl.function
            def main(self, x: {T64}, n: pl.Scalar[pl.INDEX]) -> {T64}:
                y, m = self.pair(x, n)
                t = self.pair(y, m)
                z = t[0]
                k = t[1]
                self.none(z)
                return z
    """,
    "dynamic_dims_substituted_in_callee_results": """
        import pypto.language as pl

        M = pl.dynamic("M")

        @pl.program
        class Dyn:
            @pl.function
            def g(self, a: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:
                return a

            @pl.function
            def main(self, x: pl.Tensor[[128, 64], pl.FP32], k: pl.Scalar[pl.INDEX],
                     w: pl.Tensor[[k, 64], pl.FP32]) -> pl.Tensor[[128, 64], pl.FP32]:
                y = self.g(x)
                v = self.g(w)
                return y
    """,
    "call_attrs": f"""
        import pypto.language as pl

        @pl.program
        class Attrs:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
                r = self.k(a, out, attrs={{"arg_directions": [pl.adir.input, pl.adir.output_existing], "dump_vars": [a], "note": "x", "level": 2}})
                return r
    """,
    "subworker_calls_print_with_self": f"""
        import pypto.language as pl

        @pl.program
        class Group:
            @pl.function(type=pl.FunctionType.AIC)
            def k_aic(a: {T64}):
                pass

            @pl.function(type=pl.FunctionType.AIV)
            def k_aiv(a: {T64}) -> {T64}:
                return a

            @pl.function(type=pl.FunctionType.Group)
            def k(a: {T64}) -> {T64}:
                self.k_aic(a)
                r = self.k_aiv(a)
                return r
    """,
    "recursive_and_mutual_calls_keep_name_order": f"""
        import pypto.language as pl

        @pl.program
        class Cycle:
            @pl.function
            def b(self, a: {T64}) -> {T64}:
                r: {T64} = self.c(a)
                return r

            @pl.function
            def c(self, a: {T64}) -> {T64}:
                r = self.b(a)
                return r
    """,
}


@pytest.mark.parametrize("name", sorted(CALL_CASES))
def test_call_roundtrip(name):
    assert_roundtrip(textwrap.dedent(CALL_CASES[name]))


def parse(src: str):
    return pl.parse(textwrap.dedent(src))


def test_self_call_types_and_unpacking():
    p = parse(CALL_CASES["self_calls_and_tuples"])
    stmts = ir.flatten_to_stmts(p.get_function("main").body)
    tmp, y, m, t, z, k, none_call, _ = stmts
    assert tmp.var.name_hint == "_tuple_tmp" and isinstance(tmp.var.type, T.TupleType)
    assert tmp.value.op.name == "pair" and isinstance(tmp.value.op, ir.GlobalVar)
    assert isinstance(y.value, ir.TupleGetItemExpr) and y.value.tuple is tmp.var and y.value.index == 0
    assert m.var.type == T.ScalarType(DataType.INDEX)
    assert isinstance(z.value, ir.TupleGetItemExpr) and z.value.tuple is t.var
    assert isinstance(none_call, S.EvalStmt) and isinstance(none_call.expr.type, T.UnknownType)
    text = ir.python_print(p)
    assert "_tuple_tmp: pl.Tuple[pl.Tensor[[64], pl.FP32], pl.Scalar[pl.INDEX]] = self.pair(x, n)" in text
    assert "y: pl.Tensor[[64], pl.FP32] = _tuple_tmp[0]" in text
    assert "z: pl.Tensor[[64], pl.FP32] = t[0]" in text


def test_dynamic_dims_of_the_callee_are_replaced_by_the_arguments():
    p = parse(CALL_CASES["dynamic_dims_substituted_in_callee_results"])
    main = p.get_function("main")
    y, v, _ = ir.flatten_to_stmts(main.body)
    assert y.var.type.shape[0].value == 128
    assert v.var.type.shape[0] is main.params[1]


def test_call_attrs_and_bare_callee_outside_a_program():
    p = parse(CALL_CASES["call_attrs"])
    (r, _) = ir.flatten_to_stmts(p.get_function("main").body)
    assert r.value.attrs["dump_vars"][0] is p.get_function("main").params[0]
    assert r.value.attrs["level"] == 2 and r.value.attrs["note"] == "x"
    assert [d.name for d in r.value.arg_directions] == ["Input", "OutputExisting"]
    text = ir.python_print(p)
    assert ('self.k(a, out, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing], "dump_vars": [a], '
            '"note": "x", "level": 2})') in text
    alone = ir.python_print(p.get_function("main"))  # a Function printed on its own has no `self`
    assert "r: pl.Tensor[[64], pl.FP32] = k(a, out, attrs=" in alone and "def main(a: " in alone


def test_subworkers_drop_self_but_call_through_it():
    text = ir.python_print(parse(CALL_CASES["subworker_calls_print_with_self"]))
    assert "    def k(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        self.k_aic(a)" in text


def test_cyclic_calls_print_in_name_order():
    text = ir.python_print(parse(CALL_CASES["recursive_and_mutual_calls_keep_name_order"]))
    assert text.index("def b(") < text.index("def c(")
    assert "r: pl.UnknownType = self.c(a)" not in text  # annotated: the call has the annotated type


OP_CASES = {
    "matmul_chain": ("""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16],
              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            ta = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
            la = pl.move(ta, target_memory=pl.Mem.Left)
            rb = pl.move(tb, target_memory=pl.Mem.Right)
            c = pl.matmul(la, rb)
            c2 = pl.matmul_acc(c, la, rb)
            r = pl.store(c2, [0, 0], out)
            return r
    """, ("tile.load", "tile.move", "tile.matmul", "tile.matmul_acc", "tile.store", "matmul", "matmul_acc")),
    "reductions_and_broadcasts": (f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}, out: pl.Out[pl.Tensor[[64, 1], pl.FP32]]) -> pl.Tensor[[64, 1], pl.FP32]:
            t = pl.load(a, [0, 0], [64, 128])
            tmp = pl.tile.create([64, 128], dtype=pl.FP32)
            s = pl.row_sum(t, tmp)
            m = pl.col_max(t)
            e = pl.row_expand_mul(t, s)
            r = pl.store(s, [0, 0], out)
            return r
    """, ("tile.row_sum", "tile.col_max", "tile.row_expand_mul", "tile.create")),
    "tile_views": (f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}, n: pl.Scalar[pl.INDEX]) -> {T2}:
            t = pl.load(a, [0, 0], [64, 128])
            partial = pl.load(a, [0, 0], [64, 128], valid_shape=[n, 128])
            s = pl.slice(t, [32, 64], [0, 0])
            s2 = pl.tile.slice(t, [32, 64], [0, 0], valid_shape=[16, 64])
            rs = pl.reshape(t, [128, 64])
            tr = pl.transpose(t, 0, 1)
            rv = pl.tile.reinterpret_view(t, dtype=pl.INT32)
            sv = pl.tile.set_validshape(t, 32, 64)
            tv = pl.tile.transpose_view(t)
            return a
    """, ("tile.slice", "tile.reshape", "tile.transpose", "tile.reinterpret_view", "tile.set_validshape",
          "tile.transpose_view", "slice", "reshape", "transpose")),
    "casts_with_modes": (f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}) -> {T2}:
            t = pl.load(a, [0, 0], [64, 128])
            c = pl.cast(t, pl.FP16)
            c2 = pl.tile.cast(t, pl.INT32, mode="floor")
            ta = pl.tensor.cast(a, pl.BF16, mode="rint")
            return a
    """, ("tile.cast", "tensor.cast", "cast")),
    "store_forms": (f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}, out: pl.Out[{T2}]) -> {T2}:
            t = pl.load(a, [0, 0], [64, 128], clamp=True)
            r = pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
            r2 = pl.tile.store(t, [0, 0], out, [64, 128])
            pl.store(t, [0, 0], out)
            return r
    """, ("tile.store",)),
    "tensor_level_ops": (f"""
        @pl.function
        def f(a: {T2}) -> {T2}:
            t = pl.create_tensor([64, 128], dtype=pl.FP32)
            u = pl.tensor.full([64, 128], dtype=pl.FP32, value=0.0)
            v = pl.tensor.slice(a, [32, 128], [0, 0])
            w = pl.assemble(t, v, [0, 0])
            d = pl.tensor.dim(a, 0)
            r = pl.tensor.read(a, [0, 0])
            a2 = pl.tensor.add(a, 3.0)
            a3 = pl.tensor.muls(a, 3.0)
            return w
    """, ("tensor.create", "tensor.full", "tensor.slice", "tensor.assemble", "tensor.dim", "tensor.read",
          "create_tensor", "assemble")),
    "generators": (f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}) -> {T2}:
            z = pl.tile.full([64, 128], dtype=pl.FP32, value=0.0)
            i = pl.tile.full([64, 128], dtype=pl.INT32, value=7)
            c = pl.tile.create([64, 128], dtype=pl.FP16, target_memory=pl.Mem.Mat)
            return a
    """, ("tile.full", "tile.create")),
    "op_call_attrs": ("""
        @pl.function(type=pl.FunctionType.InCore)
        def f(x: pl.Tensor[[64], pl.FP32], q: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc],
              out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            pl.func_attr({"split_aiv": True})
            t = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec, attrs={"core_placement": "aiv"})
            u = pl.tile.adds(t, 1.0, attrs={"core_placement": "aiv", "k": 1})
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.tile.aiv_shard(q, attrs={"core_placement": "aiv"})
            r = pl.tile.store(u, [0], out, attrs={"core_placement": "aiv"})
            return r
    """, ("tile.load", "tile.adds", "tile.store", "tile.aiv_shard", "tile.get_subblock_idx")),
    "cross_core_scaffolding": ("""
        @pl.function(type=pl.FunctionType.AIV)
        def f(q: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
            buf = pl.system.reserve_buffer(name="c2v", size=131072, base=pl.AUTO)
            pl.system.aiv_initialize_pipe(buf, 0, dir_mask=1, slot_size=65536, slot_num=2)
            half: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
            pl.system.tfree_to_aic(half)
            pl.system.sync_set(0, pipe=pl.PipeType.MTE2)
            pl.system.syncall(core_type="aiv_only")
            r = pl.store(half, [0, 0], out)
            return r
    """, ("system.reserve_buffer", "system.aiv_initialize_pipe", "tile.tpop_from_aic", "system.tfree_to_aic",
          "system.sync_set", "system.syncall")),
}


@pytest.mark.parametrize("name", sorted(OP_CASES))
def test_op_roundtrip(name):
    source, ops = OP_CASES[name]
    if missing_ops(*ops):
        pytest.skip(f"ops not registered yet: {missing_ops(*ops)}")
    assert_roundtrip(textwrap.dedent(source))


@pytest.mark.parametrize(("name", "printed"), [
    ("casts_with_modes", "pl.tile.cast(t, target_type=pl.INT32, mode='floor')"),
    ("store_forms", "pl.tile.store(t, [0, 0], out, atomic=pl.AtomicType.Add)"),
    ("store_forms", "pl.tile.load(a, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec, clamp=True)"),
    ("tensor_level_ops", "pl.tensor.full([64, 128], dtype=pl.FP32, value=0.0)"),
    ("tensor_level_ops", "a2: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.adds(a, 3.0)"),
    ("tile_views", "pl.tile.reinterpret_view(t, dtype=pl.INT32)"),
    ("generators", "pl.tile.full([64, 128], dtype=pl.INT32, value=7)"),
    ("cross_core_scaffolding", "pl.system.reserve_buffer(name='c2v', size=131072, base=-1)"),
    ("cross_core_scaffolding", "pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, "
                               "slot_size=65536, slot_num=2)"),
    ("cross_core_scaffolding", "pl.system.sync_set(0, pipe=pl.PipeType.MTE2)"),
    ("op_call_attrs", 'pl.tile.adds(t, 1.0, attrs={"core_placement": "aiv", "k": 1})'),
    ("op_call_attrs", 'pl.tile.aiv_shard(q, attrs={"core_placement": "aiv"})'),
])
def test_op_spellings(name, printed):
    source, ops = OP_CASES[name]
    if missing_ops(*ops):
        pytest.skip(f"ops not registered yet: {missing_ops(*ops)}")
    assert printed in ir.python_print(parse(source))


@needs("tensor.assemble", "assemble", "tile.load", "tile.assemble")
def test_subscript_assignment_desugars_to_assemble():
    f = parse(f"""
        @pl.function
        def f(a: {T2}, b: pl.Tensor[[32, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> {T2}:
            a[0:32, 0:128] = b
            a[n:n + 32, :] = b
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [64, 128])
                s = pl.load(b, [0, 0], [32, 128])
                t[32:64, 0:128] = s
            return a
    """)
    first, second, scope, _ = ir.flatten_to_stmts(f.body)
    a = f.params[0]
    for stmt in (first, second):
        assert stmt.var is a and stmt.value.op.name == "tensor.assemble"
        assert stmt.value.args[0] is a and stmt.value.args[1] is f.params[1]
    assert [o.value for o in first.value.args[2].elements] == [0, 0]
    assert second.value.args[2].elements[0] is f.params[2]
    tile_assign = ir.flatten_to_stmts(scope.body)[2]
    assert tile_assign.value.op.name == "tile.assemble" and [o.value for o in tile_assign.value.args[2].elements] == [32, 0]
    assert "    a: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.assemble(a, b, [0, 0])" in ir.python_print(f)
    assert_roundtrip(f)


def test_tuple_getitem_prints_and_parses():
    pair = T.TupleType([T.ScalarType(DataType.INDEX), T.ScalarType(DataType.FP32)])
    t = E.Var("t", pair)
    x = E.Var("x", T.ScalarType(DataType.FP32))
    func = ir.Function("f", [t], [x.type], S.SeqStmts([S.AssignStmt(x, E.TupleGetItemExpr(t, 1)),
                                                       S.ReturnStmt([x])]))
    assert "x: pl.Scalar[pl.FP32] = t[1]" in ir.python_print(func)
    assert_roundtrip(func)
