"""OutlineIncoreScopes' rules shared with PyPTO (docs/passes/outline_incore_scopes.md: control flow, names,
parameters, function types), under the default instruments (verification + round trip) and on the reference
machine (the outlined program computes what the written one does)."""

from __future__ import annotations

from pypto import ir

from .helpers import expect, function, outline

HEADER = "import pypto.language as pl\n\n"


def _calls(func: ir.Function) -> list[str]:
    out = []
    for s in ir.flatten_to_stmts(func.body):
        value = s.value if isinstance(s, ir.AssignStmt) else s.expr if isinstance(s, ir.EvalStmt) else None
        if isinstance(value, ir.Call) and isinstance(value.op, ir.GlobalVar):
            out.append(value.op.name)
    return out


def test_user_rebinding_in_an_if_is_the_only_merge():
    # Control flow: ConvertToSSA's phi for `out` is the slot, no second phi.
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        if n > 0:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0], [64])
                out = pl.store(pl.add(t, 1.0), [0], out)
        else:
            with pl.at(level=pl.Level.CORE_GROUP):
                u = pl.load(a, [0], [64])
                out = pl.store(pl.mul(u, 2.0), [0], out)
        return out
''')
    (branch,) = [s for s in ir.flatten_to_stmts(function(after, "main").body) if isinstance(s, ir.IfStmt)]
    assert len(branch.return_vars) == 1
    expect(after, HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        o1 = pl.store(pl.add(t, 1.0), [0], out)
        out__store = o1
        return out
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        o1 = pl.store(pl.mul(t, 2.0), [0], out)
        out__store = o1
        return out
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        if n > 0:
            o1 = self.main_incore_0(a, out)
            o_phi = pl.yield_(o1)
        else:
            o2 = self.main_incore_1(a, out)
            o_phi = pl.yield_(o2)
        return o_phi
''')


def test_store_without_rebinding_in_an_if_inside_a_loop_still_gets_its_merge():
    # The other side of that rule: with no user rebinding there is no slot yet, so the if gets one,
    # while the user's iter_arg `acc` is the loop's slot.
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        for i, (acc,) in pl.range(4, init_values=(out,)):
            if i > 1:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0], [64])
                    pl.store(t, [0], acc)
            res = pl.yield_(acc)
        return res
''')
    (loop,) = [s for s in ir.flatten_to_stmts(function(after, "main").body) if isinstance(s, ir.ForStmt)]
    (branch,) = [s for s in ir.flatten_to_stmts(loop.body) if isinstance(s, ir.IfStmt)]
    assert (len(loop.iter_args), len(branch.return_vars)) == (1, 1)


def test_named_scopes_advance_the_default_counter():
    # Names: unnamed, named, unnamed -> main_incore_0, k, main_incore_2.
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.load(a, [0], [64]), [0], out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            out = pl.store(pl.add(pl.load(out, [0], [64]), 1.0), [0], out)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.mul(pl.load(out, [0], [64]), 2.0), [0], out)
        return out
''')
    assert _calls(function(after, "main")) == ["main_incore_0", "k", "main_incore_2"]


def test_kernel_without_outputs_round_trips_and_runs():
    # Parameters: no bare `return`, no return type; the caller calls it as a statement.
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0], [64])
            u = pl.exp(t)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.load(a, [0], [64]), [0], out)
        return out
''')
    k = function(after, "main_incore_0")
    assert not any(isinstance(s, ir.ReturnStmt) for s in ir.flatten_to_stmts(k.body))
    first = ir.flatten_to_stmts(function(after, "main").body)[0]
    assert isinstance(first, ir.EvalStmt)


def test_assemble_and_write_keep_their_statements():
    # Parameters: only tile.store gets `<target>__store`.
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[16], pl.FP32], big: pl.Out[pl.Tensor[[64], pl.FP32]], b: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            big = pl.assemble(big, a, [16])
            v = pl.tensor.read(a, [3])
            pl.tensor.write(b, [5], v)
        r = pl.add(big, b)
        return r
''')
    text = ir.python_print(function(after, "main_incore_0"), format=False)
    assert "__store" not in text, text
    assert "pl.tensor.assemble(big__ssa_v0, a__ssa_v0, [16])" in text, text


def test_nested_dim_reads_fold_everywhere_and_the_view_follows():
    # Function types: folded reads inside a loop, an if and the scope; a folded read leaves no binding behind.
    after = outline(HEADER + '''
M = pl.dynamic("M")

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        if n > 0:
            m = pl.tensor.dim(a, 0)
            s = pl.slice(a, [64, 64], [0, 0], valid_shape=[m, 64])
            for i in pl.range(m // 64):
                with pl.at(level=pl.Level.CORE_GROUP):
                    rows = pl.tensor.dim(a, 0)
                    t = pl.load(s, [0, 0], [64, 64])
                    out = pl.store(t, [rows - rows, 0], out)
        return out
''', run=False)
    text = ir.python_print(after, format=False)
    assert "tensor.dim" not in text and "m__ssa" not in text and "rows__ssa" not in text, text
    assert text.count('pl.dynamic(') == 1, text
    signature = next(line for line in text.splitlines() if "def main_incore_0(" in line)
    assert "pl.TensorView(valid_shape=[M, 64])" in signature, text
    (branch,) = [s for s in ir.flatten_to_stmts(function(after, "main").body) if isinstance(s, ir.IfStmt)]
    (loop,) = [s for s in ir.flatten_to_stmts(branch.then_body) if isinstance(s, ir.ForStmt)]
    assert loop.loop_var.type.dtype == ir.INDEX  # typed from `M // 64`, as the parser types it


def test_graph_parent_is_outlined_and_stays_graph():
    # Function types: a Graph parent stays Graph.
    after = outline(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Graph)
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0], [64])
                pl.store(pl.add(t, 1.0), [0], out)
        return out
''')
    main = function(after, "main")
    assert main.func_type == ir.FunctionType.Graph
    (loop,) = [s for s in ir.flatten_to_stmts(main.body) if isinstance(s, ir.ForStmt)]
    assert len(loop.iter_args) == 1  # the store target's carry applies in a Graph parent too
    assert function(after, "main_incore_0").func_type == ir.FunctionType.InCore
