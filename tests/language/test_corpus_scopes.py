"""Scopes and function-level directives (docs/dsl.md, scopes: pl.at; splitting vector work): `pl.at`, `pl.split`, `pl.cross_core_slot`,
`pl.split_aiv` and its placement rule, `pl.set_cache_policy`, `pl.func_attr`, decorator keywords."""

import textwrap
import warnings

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CachePolicy, FunctionType, Level, MemorySpace, Role, SplitMode
from pypto_core.language.roundtrip import assert_roundtrip, missing_ops

T = "pl.Tensor[[64], pl.FP32]"
T2 = "pl.Tensor[[128, 64], pl.FP32]"
REGION_OPS = ("tile.get_subblock_idx",)
SHARD_OPS = ("tile.get_subblock_idx", "tile.aiv_shard", "tile.aic_gather", "tensor.aiv_shard")


def needs(*ops: str):
    return pytest.mark.skipif(bool(missing_ops(*ops)), reason=f"ops not registered yet: {missing_ops(*ops)}")


CASES = {
    "incore_plain": f"""
        @pl.function
        def f(x: {T}) -> {T}:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0], [64])
                y = pl.store(t, [0], x)
            return y
    """,
    "incore_all_keywords": f"""
        @pl.function
        def f(x: {T}, z: {T}) -> {T}:
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)], name_hint="kern", no_dep_args=[z], dumps=[x], allow_early_resolve=True, windowize=True):
                t = pl.load(x, [0], [64])
                y = pl.store(t, [0], x)
            return y
    """,
    "incore_positional_level_and_namespaced_split": f"""
        @pl.function
        def f(x: {T}) -> {T}:
            with pl.at(pl.Level.CORE_GROUP, optimizations=[pl.optimizations.split(pl.SplitMode.LEFT_RIGHT)]):
                t = pl.load(x, [0], [64])
                y = pl.store(t, [0], x)
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=8)], allow_early_resolve=False):
                u = pl.load(y, [0], [64])
            return y
    """,
    "hierarchy_scopes": f"""
        @pl.function
        def f(x: {T}) -> {T}:
            with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator, name_hint="h"):
                y = pl.add(x, 1.0)
            with pl.at(pl.Level.HOST):
                z = pl.add(y, 1.0)
            return z
    """,
    "hierarchy_keywords_and_cluster": f"""
        @pl.function
        def f(x: {T}, z: {T}) -> {T}:
            with pl.at(level=pl.Level.CHIP, role=pl.Role.Orchestrator, name_hint="h", allow_early_resolve=True,
                       windowize=True, no_dep_args=[z], dumps=[x]):
                pl.set_cache_policy(z, pl.CachePolicy.BYPASS)
                y = pl.add(x, 1.0)
            with pl.cluster(name_hint="c"):
                y = pl.add(y, 1.0)
            with pl.cluster():
                y = pl.add(y, 1.0)
            return y
    """,
    "cache_policy": f"""
        @pl.function
        def f(x: {T}, w: {T}) -> {T}:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.set_cache_policy(w, pl.CachePolicy.BYPASS)
                t = pl.load(x, [0], [64])
                u = pl.load(w, [0], [64])
                y = pl.store(pl.add(t, u), [0], x)
            return y
    """,
    "cache_policy_on_scope_local_tensor": f"""
        @pl.function
        def f(x: {T}) -> {T}:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0], [64])
                y = pl.store(t, [0], x)
                pl.set_cache_policy(y, pl.CachePolicy.BYPASS)
                u = pl.load(y, [0], [64])
            return y
    """,
    "nested_scope_in_loop_and_if": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            for i in pl.range(n):
                if i > 0:
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
                        t = pl.load(x, [0], [64])
                        x = pl.store(pl.tile.muls(t, 2.0), [0], x)
            return x
    """,
    "func_attr_values": f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}, n: pl.Scalar[pl.INDEX]) -> {T2}:
            \"\"\"Docstrings may precede pl.func_attr.\"\"\"
            pl.func_attr({{"split": pl.SplitMode.UP_DOWN, "split_aiv": True, "slot_num": 4, "name": "x", "ratio": 0.5}})
            pl.func_attr({{"mem": pl.Mem.Vec, "dt": pl.FP32, "dims": [1, 2], "who": n, "whos": [a, n], "off": n + 1}})
            return a
    """,
    "func_attr_split_none_dropped": f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}) -> {T2}:
            pl.func_attr({{"split": pl.SplitMode.NONE, "dual_aiv_dispatch": True}})
            return a
    """,
    "decorator_keywords": f"""
        import pypto.language as pl

        @pl.program
        class Kernels:
            @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker, auto_scope=False)
            def k_aic(self, a: {T2}):
                pass

            @pl.function(type=pl.FunctionType.AIV)
            def k_aiv(a: {T2}) -> {T2}:
                return a

            @pl.function(type=pl.FunctionType.Group)
            def k(self, a: {T2}) -> {T2}:
                self.k_aic(a)
                r = self.k_aiv(a)
                return r

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {T2}) -> {T2}:
                r = self.k(a)
                return r

            @pl.function(level=pl.Level.CHIP_DIE)
            def opaque_with_level(self, a: {T2}) -> {T2}:
                return a
    """,
    "external_source": """
        @pl.function(type=pl.FunctionType.AIV, external_source="kernels/k.cpp")
        def k(a: pl.Tensor[[16], pl.FP32]):
            ...
    """,
}

REGION_CASES = {
    "region_in_named_scope": f"""
        @pl.function
        def f(a: {T2}, out: pl.Out[{T2}]) -> {T2}:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_exp", optimizations=[pl.cross_core_slot(slot_num=4)]):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    base = aiv_id * 64
                    t = pl.load(a, [base, 0], [64, 64])
                    out = pl.store(pl.exp(t), [base, 0], out)
            return out
    """,
    "region_wrapped_at_top_level": f"""
        @pl.function
        def f(a: {T2}, out: pl.Out[{T2}]) -> {T2}:
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [aiv_id * 64, 0], [64, 64])
                out = pl.store(t, [aiv_id * 64, 0], out)
            return out
    """,
    "region_wrapped_inside_plain_loop": f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def f(a: {T2}, out: pl.Out[{T2}]) -> {T2}:
            for i in pl.range(2):
                for lane in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    t = pl.load(a, [i * 64, lane * 32], [64, 32])
            return out
    """,
    "region_in_place_in_incore_function": f"""
        @pl.function(type=pl.FunctionType.InCore)
        def f(a: {T2}, out: pl.Out[{T2}]) -> {T2}:
            pl.func_attr({{"split_aiv": True}})
            for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                t = pl.load(a, [0, 0], [64, 64])
            for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                pass
            return out
    """,
    "region_through_loop_and_if_in_scope": f"""
        @pl.function
        def f(a: {T2}, out: pl.Out[{T2}], n: pl.Scalar[pl.INDEX]) -> {T2}:
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.pipeline(2, stage=2):
                    if n > 0:
                        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                            t = pl.load(a, [i * 64 + aiv_id * 32, 0], [32, 64])
            return out
    """,
}

SHARD_CASES = {
    "shard_and_gather_in_region": f"""
        @pl.function
        def f(a: {T2}, out: pl.Out[{T2}]) -> {T2}:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [128, 64])
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    h = pl.aiv_shard(t)
                    g = pl.tile.aic_gather(h)
                    ts = pl.tensor.aiv_shard(a)
            return out
    """,
    "outlined_shard_with_split": """
        @pl.function(type=pl.FunctionType.InCore)
        def f(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec]:
            half = pl.tile.aiv_shard(qk, split=1, lane_stride=2)
            whole = pl.aic_gather(half, split=1)
            return half
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_roundtrip(name):
    assert_roundtrip(textwrap.dedent(CASES[name]))


@needs(*REGION_OPS)
@pytest.mark.parametrize("name", sorted(REGION_CASES))
def test_roundtrip_regions(name):
    assert_roundtrip(textwrap.dedent(REGION_CASES[name]))


@needs(*SHARD_OPS)
@pytest.mark.parametrize("name", sorted(SHARD_CASES))
def test_roundtrip_shards(name):
    assert_roundtrip(textwrap.dedent(SHARD_CASES[name]))


def parse(src: str):
    return pl.parse(textwrap.dedent(src))


def first_stmt(func) -> S.Stmt:
    return ir.flatten_to_stmts(func.body)[0]


def test_incore_scope_fields_and_attr_order():
    scope = first_stmt(parse(CASES["incore_all_keywords"]))
    assert isinstance(scope, S.InCoreScopeStmt) and scope.split is SplitMode.UP_DOWN
    assert scope.name_hint == "kern"
    assert list(scope.attrs) == ["allow_early_resolve", "windowize", "arg_direction_overrides_vars", "dump_vars",
                                 "slot_num"]  # slot_num is appended last, as in PyPTO
    assert [v.name_hint for v in scope.attrs["arg_direction_overrides_vars"]] == ["z"]
    assert scope.attrs["slot_num"] == 2


def test_scope_without_options():
    f = parse(CASES["incore_positional_level_and_namespaced_split"])
    first, second, _ = ir.flatten_to_stmts(f.body)
    assert first.split is SplitMode.LEFT_RIGHT and first.attrs == {}
    assert second.split is SplitMode.NONE and second.attrs == {"slot_num": 8}


def test_hierarchy_scope():
    scope = first_stmt(parse(CASES["hierarchy_scopes"]))
    assert isinstance(scope, S.HierarchyScopeStmt)
    assert (scope.level, scope.role, scope.name_hint) == (Level.CHIP, Role.Orchestrator, "h")


def test_deprecated_split_slot_num_alias():
    with pytest.warns(DeprecationWarning, match="cross_core_slot"):
        f = parse(f"""
            @pl.function
            def f(x: {T}) -> {T}:
                with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=4)]):
                    t = pl.load(x, [0], [64])
                return x
        """)
    scope = first_stmt(f)
    assert scope.split is SplitMode.UP_DOWN and scope.attrs == {"slot_num": 4}
    assert "optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]" in ir.python_print(f)


def test_cache_policy_is_a_scope_attr():
    f = parse(CASES["cache_policy"])
    scope = first_stmt(f)
    ((var, policy),) = scope.attrs["cache_policy_vars"]
    assert var is f.params[1] and policy == int(CachePolicy.BYPASS)
    assert all(not isinstance(s, S.EvalStmt) for s in ir.flatten_to_stmts(scope.body))  # no statement emitted
    local = parse(CASES["cache_policy_on_scope_local_tensor"])
    text = ir.python_print(local)
    assert "y: pl.Tensor[[64], pl.FP32] = pl.tile.store(t, [0], x)\n        pl.set_cache_policy(y, " in text


def test_func_attr_values():
    f = parse(CASES["func_attr_values"])
    a, n = f.params
    attrs = dict(f.attrs)
    off = attrs.pop("off")
    assert attrs == {"split": 1, "split_aiv": True, "slot_num": 4, "name": "x", "ratio": 0.5, "mem": MemorySpace.Vec,
                     "dt": DataType.FP32, "dims": [1, 2], "who": n, "whos": [a, n]}
    assert isinstance(off, ir.Add) and off.left is n
    assert f.split is SplitMode.UP_DOWN
    assert f.body == () or isinstance(first_stmt(f), S.ReturnStmt)  # no statement for the directive
    text = ir.python_print(f)
    assert ('pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True, "slot_num": 4, "name": "x", '
            '"ratio": 0.5, "mem": pl.Mem.Vec, "dt": pl.FP32, "dims": [1, 2], "who": n, "whos": [a, n], "off": n + 1})'
            in text)
    dropped = parse(CASES["func_attr_split_none_dropped"])
    assert dropped.attrs == {"dual_aiv_dispatch": True} and dropped.split is None


def test_decorator_attrs_are_normalised_and_warn():
    src = f"""
        @pl.function(type=pl.FunctionType.InCore, attrs={{"split": pl.SplitMode.LEFT_RIGHT, "split_aiv": True}})
        def f(a: {T2}) -> {T2}:
            return a
    """
    f = parse(src)  # text parsing does not warn: the decorator is never called
    assert f.attrs == {"split": 2, "split_aiv": True}
    assert 'pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT, "split_aiv": True})' in ir.python_print(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_roundtrip(f)


def test_decorator_keywords_print():
    p = parse(CASES["decorator_keywords"])
    text = ir.python_print(p)
    assert ("@pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker, auto_scope=False)\n"
            "    def k_aic(a: pl.Tensor[[128, 64], pl.FP32]):\n        pass") in text
    assert "    def main(self, a: " in text  # Orchestrator functions keep self; SubWorkers drop it
    assert "    @pl.function(level=pl.Level.CHIP_DIE)\n    def opaque_with_level(self, a" in text
    # Callees print before callers: k_aic, k_aiv, k, main, then the rest in name order.
    order = [line.split("def ")[1].split("(")[0] for line in text.splitlines() if " def " in line]
    assert order == ["k_aic", "k_aiv", "k", "main", "opaque_with_level"]
    k_aic = p.get_function("k_aic")
    assert k_aic.func_type is FunctionType.AIC and k_aic.attrs == {"auto_scope": False}
    assert p.get_function("k").level is Level.CORE_GROUP


def test_external_source():
    f = parse(CASES["external_source"])
    assert f.attrs == {"external_source": "kernels/k.cpp"}
    assert ir.flatten_to_stmts(f.body) == []
    assert ir.python_print(f).startswith(
        '@pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker, '
        'external_source="kernels/k.cpp")\ndef k(a: pl.Tensor[[16], pl.FP32]):\n    ...')


@needs(*REGION_OPS)
def test_region_placement():
    # Inside a scope: in place; the lane variable is bound by the region's first statement.
    scope = first_stmt(parse(REGION_CASES["region_in_named_scope"]))
    region = scope.body
    assert isinstance(scope, S.InCoreScopeStmt) and isinstance(region, S.SplitAivScopeStmt)
    assert (region.split, region.count, region.name_hint) == (SplitMode.UP_DOWN, 2, "")
    lane_def = ir.flatten_to_stmts(region.body)[0]
    assert isinstance(lane_def, S.AssignStmt) and lane_def.var.name_hint == "aiv_id"
    assert lane_def.value.op.name == "tile.get_subblock_idx" and lane_def.var.type == ir.ScalarType(DataType.INDEX)
    # Top level of an Opaque function: wrapped in a bare InCore scope.
    wrapper = first_stmt(parse(REGION_CASES["region_wrapped_at_top_level"]))
    assert isinstance(wrapper, S.InCoreScopeStmt) and wrapper.split is SplitMode.NONE and wrapper.name_hint == ""
    assert isinstance(wrapper.body, S.SplitAivScopeStmt)
    # Inside a plain loop outside any scope: wrapped inside the loop.
    loop = first_stmt(parse(REGION_CASES["region_wrapped_inside_plain_loop"]))
    assert isinstance(loop.body, S.InCoreScopeStmt) and isinstance(loop.body.body, S.SplitAivScopeStmt)
    # An InCore function: in place, bare (the parser adds no scope around the region).
    f = parse(REGION_CASES["region_in_place_in_incore_function"])
    assert all(isinstance(s, S.SplitAivScopeStmt) for s in ir.flatten_to_stmts(f.body)[:2])
    # Through a pipeline loop and an if inside a scope: in place.
    scope = first_stmt(parse(REGION_CASES["region_through_loop_and_if_in_scope"]))
    inner_if = scope.body.body
    assert isinstance(inner_if, S.IfStmt) and isinstance(inner_if.then_body, S.SplitAivScopeStmt)


@needs(*REGION_OPS)
def test_region_lane_variable_leaks_and_prints_in_header():
    text = ir.python_print(parse(REGION_CASES["region_in_place_in_incore_function"]))
    assert "    for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n        t: " in text
    assert "    for lane_1 in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n        pass" in text
    assert "get_subblock_idx" not in text


@needs(*SHARD_OPS)
def test_shard_inside_region_takes_the_region_mode():
    scope = first_stmt(parse(SHARD_CASES["shard_and_gather_in_region"]))
    region = ir.flatten_to_stmts(scope.body)[1]
    _, h, g, ts = ir.flatten_to_stmts(region.body)
    assert h.value.op.name == "tile.aiv_shard" and h.value.kwargs == {"split": 1}
    assert g.value.op.name == "tile.aic_gather" and g.value.kwargs == {"split": 1}
    assert ts.value.op.name == "tensor.aiv_shard"
    text = ir.python_print(parse(SHARD_CASES["shard_and_gather_in_region"]))
    assert "pl.tile.aiv_shard(t)" in text and "split=" not in text  # re-derived from the region


def test_external_source_is_for_aic_and_aiv_kernels_only():
    # `external_source=path` is for AIC / AIV functions only.
    text = CASES["external_source"].replace("pl.FunctionType.AIV", "pl.FunctionType.InCore")
    assert "pl.FunctionType.InCore" in text
    with pytest.raises(ValueError, match=r"external_source= gives the code of an AIC or AIV kernel; 'k' is InCore"):
        parse(text)
