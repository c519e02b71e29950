"""Threading renamed write targets through loops and ifs (docs/passes/outline_incore_scopes.md, control flow)."""

from __future__ import annotations

from pypto import ir

from .helpers import expect, function, outline

HEADER = "import pypto.language as pl\n\n"
SIG = ("self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]"
       ") -> pl.Tensor[[256, 128], pl.FP32]")


def _program(body: str) -> str:
    return HEADER + f"@pl.program\nclass P:\n    @pl.function\n    def k({SIG}:\n" + body


STORE = ("                t = pl.load(a, [0, 0], [64, 128])\n"
         "                out = pl.store(t, [0, 0], out)\n")


def test_sibling_scopes_writing_one_target_share_one_slot():
    after = outline(_program(
        "        for i in pl.range(4):\n"
        "            with pl.at(level=pl.Level.CORE_GROUP):\n" + STORE +
        "            with pl.at(level=pl.Level.CORE_GROUP):\n" + STORE +
        "        return out\n"))
    expect(after, HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k_incore_0(a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 128])
        o2 = pl.store(t, [0, 0], out)
        out__store = o2
        return out
    @pl.function(type=pl.FunctionType.InCore)
    def k_incore_1(a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 128])
        o2 = pl.store(t, [0, 0], out)
        out__store = o2
        return out
    @pl.function(type=pl.FunctionType.Orchestration)
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i, (o_it,) in pl.range(4, init_values=(out,)):
            o1 = self.k_incore_0(a, o_it)
            o2 = self.k_incore_1(a, o1)
            o_rv = pl.yield_(o2)
        return o_rv
''')


def test_target_defined_inside_the_loop_stays_local():
    after = outline(_program(
        "        for i in pl.range(4):\n"
        "            scratch = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "            with pl.at(level=pl.Level.CORE_GROUP):\n"
        "                t = pl.load(a, [0, 0], [64, 128])\n"
        "                scratch = pl.store(t, [0, 0], scratch)\n"
        "            with pl.at(level=pl.Level.CORE_GROUP):\n"
        "                u = pl.load(scratch, [0, 0], [64, 128])\n"
        "                out = pl.store(u, [0, 0], out)\n"
        "        return out\n"))
    loop = ir.flatten_to_stmts(function(after, "k").body)[0]
    assert isinstance(loop, ir.ForStmt)
    assert [a.name_hint for a in loop.iter_args] == ["out__iter_v1"]


def test_nested_loops_thread_outward_only_when_defined_outside():
    after = outline(_program(
        "        for i in pl.range(2):\n"
        "            for j in pl.range(2):\n"
        "                with pl.at(level=pl.Level.CORE_GROUP):\n"
        "    " + STORE.replace("\n                ", "\n                    ") +
        "        return out\n"))
    outer = ir.flatten_to_stmts(function(after, "k").body)[0]
    inner = ir.flatten_to_stmts(outer.body)[0]
    assert len(outer.iter_args) == 1 and len(inner.iter_args) == 1
    assert inner.iter_args[0].initValue is outer.iter_args[0]
    outer_yield = ir.flatten_to_stmts(outer.body)[-1]
    assert isinstance(outer_yield, ir.YieldStmt) and outer_yield.value[0] is inner.return_vars[0]


def test_existing_iter_arg_keeps_its_slot():
    after = outline(_program(
        "        for i, (acc,) in pl.range(4, init_values=(out,)):\n"
        "            with pl.at(level=pl.Level.CORE_GROUP):\n"
        "                t = pl.load(a, [0, 0], [64, 128])\n"
        "                acc2 = pl.store(t, [0, 0], acc)\n"
        "            res = pl.yield_(acc2)\n"
        "        return res\n"))
    loop = ir.flatten_to_stmts(function(after, "k").body)[0]
    assert [a.name_hint for a in loop.iter_args] == ["acc"]
    body = ir.flatten_to_stmts(loop.body)
    call_binding, yield_stmt = body[-2], body[-1]
    assert yield_stmt.value[0] is call_binding.var


def test_if_without_else_gets_a_synthesised_else_yielding_the_entry_value():
    after = outline(_program(
        "        n = 3\n"
        "        if n > 2:\n"
        "            with pl.at(level=pl.Level.CORE_GROUP):\n" + STORE +
        "        return out\n"))
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    branch = stmts[1]
    assert isinstance(branch, ir.IfStmt) and branch.else_body is not None
    else_yield = ir.flatten_to_stmts(branch.else_body)[-1]
    assert isinstance(else_yield, ir.YieldStmt)
    assert else_yield.value[0] is function(after, "k").params[1]
    ret = stmts[-1]
    assert ret.value[0] is branch.return_vars[0]


def test_top_level_scope_needs_no_carry():
    after = outline(_program(
        "        with pl.at(level=pl.Level.CORE_GROUP):\n" + STORE.replace("                ", "            ") +
        "        return out\n"))
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    assert [type(s).__name__ for s in stmts] == ["AssignStmt", "ReturnStmt"]
    assert stmts[1].value[0] is stmts[0].var
