"""Regression of SplitVectorKernel's Ascend910B no-split dual-AIV replay found by the program generator
(tests/fuzz; docs/passes/split_vector_kernel.md, what it does).

The program: an InCore function whose body is a `with pl.at(level=pl.Level.CORE_GROUP)` scope holding a
dead matmul and a tensor alias `v14 = x13` (Ascend950 needs no replay). A lane-1 replay re-emitting lane 0's
statements verbatim would break SSAForm after SplitVectorKernel on Ascend910B in two places:

* a scope statement falling through `Lane1Replay.stmt` unchanged would make lane 1 run lane 0's whole scope --
  the same variables defined in both branches of the dispatch, a real load and a real GM store on lane 1,
  lane 0's tiles and loop variables read on lane 1;
* an assignment whose value lane 1 leaves unchanged (the tensor alias; a scalar), kept as the same
  statement, would define lane 0's variable a second time.

Rule: lane 1 defines only fresh variables -- every assignment is renamed, a value it leaves unchanged
included -- and a scope is the same scope around lane 1's replay of its body (in the same replacement map:
what a scope defines stays visible after it), so stores inside it are dropped and loads become empty tiles.

Each program goes through the whole `default` pipeline with check-run and the round trip after every pass,
on both backends, and its outputs are compared with the program as written on the reference machine.
"""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Program
from pypto_core.ir.utils import collect_def_vars

from .emk_helpers import BACKENDS
from .pipeline_checks import compile_and_compare

HEADER = "import pypto.language as pl\n\n@pl.program\n"

# The program as the generator wrote it.
REPRODUCER = HEADER + '''\
class Gen34:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x10: pl.Tensor[[32, 32], pl.FP16], x11: pl.Tensor[[32, 16], pl.FP16], x13: pl.Tensor[[32, 16], pl.FP16], out15: pl.Out[pl.Tensor[[32, 16], pl.FP16]], out17: pl.Out[pl.Tensor[[16, 32], pl.BF16]], out22: pl.Out[pl.Tensor[[16, 16], pl.FP16]], out29: pl.Out[pl.Tensor[[32, 64], pl.BF16]], out32: pl.Out[pl.Tensor[[32, 1], pl.FP16]], out34: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP16], pl.Tensor[[16, 32], pl.BF16], pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[32, 64], pl.BF16], pl.Tensor[[32, 1], pl.FP16], pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[32, 16], pl.FP16]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v12 = pl.matmul(x10, x11)
            v14 = x13
            out15 = pl.assemble(out15, v14, [0, 0])
        return out15, out17, out22, out29, out32, out34, v14
'''

# variant: no scope; the alias (unchanged on lane 1) alone used to be defined by both branches
ALIAS_WITHOUT_SCOPE = HEADER + '''\
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], c: pl.Tensor[[32, 16], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 16], pl.FP16]]) -> tuple[pl.Tensor[[32, 16], pl.FP16], pl.Tensor[[32, 16], pl.FP16]]:
        m = pl.matmul(a, b)
        v = c
        w = v
        out = pl.assemble(out, w, [0, 0])
        return out, v
'''

# variant: a real mixed kernel inside the scope -- the tpop / tfree of lane 1 stay inside its replayed scope,
# the load before the scope becomes an empty tile that the replayed scope (not lane 0's) reads
MIXED_IN_SCOPE = HEADER + '''\
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], c: pl.Tensor[[32, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.matmul(a, b)
            s = pl.add(m, c)
            out = pl.assemble(out, s, [0, 0])
        return out
'''

# variant: a loop inside the scope -- lane 1's loop needs its own loop variable and carries
LOOP_IN_SCOPE = HEADER + '''\
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], c: pl.Tensor[[16, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.matmul(a, b)
            for i in pl.range(2):
                out = pl.assemble(out, c, [i * 16, 0])
        return out
'''

# A tile alias of a cast matmul result (`v36 = v33`) must not keep lane 0's type on lane 1, where its value is an
# empty tile: the printed annotation would say one thing and re-parsing give the other. An alias of an emptied tile
# is empty too.
TILE_ALIAS = HEADER + '''\
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP16]]) -> pl.Tensor[[32, 64], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            c = pl.matmul(a, b)
            d = c
            out = pl.assemble(out, d, [0, 0])
        return out
'''

TILE_ALIAS_CHAIN = HEADER + '''\
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 16], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            c = pl.matmul(a, b)
            d = c
            e = d
            out = pl.assemble(out, pl.exp(e), [0, 0])
        return out
'''

CASES = {"reproducer": REPRODUCER, "alias_without_scope": ALIAS_WITHOUT_SCOPE, "mixed_in_scope": MIXED_IN_SCOPE,
         "loop_in_scope": LOOP_IN_SCOPE, "tile_alias": TILE_ALIAS, "tile_alias_chain": TILE_ALIAS_CHAIN}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_lane_1_replay_compiles_and_computes_the_same(case: str, backend: str) -> None:
    compile_and_compare(CASES[case], backend)


def _dispatch(program: Program) -> ir.IfStmt:
    """The `if subblock_idx == 0: ... else: ...` of the one AIV function (Ascend910B)."""
    aiv = [f for f in program.functions.values() if f.func_type is FunctionType.AIV]
    assert len(aiv) == 1, [f.name for f in aiv]
    ifs = [s for s in ir.flatten_to_stmts(aiv[0].body) if isinstance(s, ir.IfStmt)]
    assert len(ifs) == 1, "no lane dispatch"
    assert ifs[0].else_body is not None
    return ifs[0]


def _op_names(stmt: ir.Stmt) -> list[str]:
    found: list[str] = []

    class Walk(ir.IRVisitor):
        def visit_call(self, call: ir.Call) -> None:
            if not isinstance(call.op, ir.GlobalVar):
                found.append(call.op.name)
            super().visit_call(call)

    Walk().visit_stmt(stmt)
    return found


def _scopes(stmt: ir.Stmt) -> int:
    return sum(isinstance(s, ir.ScopeStmt) for s in ir.flatten_to_stmts(stmt))


@pytest.mark.parametrize("case", sorted(CASES))
def test_lane_1_defines_fresh_variables_and_writes_nothing(case: str) -> None:
    dispatch = _dispatch(compile_and_compare(CASES[case], "Ascend910B"))
    lane0, lane1 = dispatch.then_body, dispatch.else_body
    assert lane1 is not None
    shared = {id(v) for v in collect_def_vars(lane0)} & {id(v) for v in collect_def_vars(lane1)}
    assert not shared, "both lanes define the same variables"
    lane0_ops, lane1_ops = _op_names(lane0), _op_names(lane1)
    assert "tile.store" in lane0_ops
    assert "tile.store" not in lane1_ops and "tile.load" not in lane1_ops, lane1_ops
    assert _scopes(lane1) == _scopes(lane0)  # a scope is replayed as a scope
    cross = ("tile.tpop_from_aic", "system.tfree_to_aic")
    assert [n for n in lane1_ops if n in cross] == [n for n in lane0_ops if n in cross]  # the handshake stays


@pytest.mark.parametrize("case", ["tile_alias"])
def test_a_tile_alias_on_lane_1_is_as_empty_as_its_value(case: str) -> None:
    lane1 = _dispatch(compile_and_compare(CASES[case], "Ascend910B")).else_body
    aliases = [s for s in ir.flatten_to_stmts(lane1) if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Var)
               and isinstance(s.var.type, ir.TileType)]
    assert aliases, "no tile alias on lane 1"
    for s in aliases:
        ir.assert_structural_equal(s.var.type, s.value.type)
