"""`pl.dump_tag(t)` (docs/dsl.md, scopes: pl.at): a parse-time marker; every later scope or dispatch of the
function that consumes `t` lists it in its `dump_vars`; OutlineIncoreScopes hands a scope's list to the call of
the kernel it outlines."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

HEAD = '''import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out = pl.store(pl.load(x, [0], [64]), [0], out)
        return out

    @pl.function(type=pl.FunctionType.FTYPE)
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
'''


def parse(body: str, ftype: str = "Opaque") -> ir.Program:
    text = HEAD.replace("FTYPE", ftype) + "".join(f"        {line}\n" for line in body.strip().splitlines())
    return pl.parse(text + "        return out\n", "dump_tag.py")


def main_text(program: ir.Program) -> str:
    return ir.python_print(program.get_function("main"))


def test_a_tagged_tensor_joins_every_later_scope_and_dispatch_that_consumes_it():
    program = parse('''
with pl.at(level=pl.Level.CORE_GROUP):
    out = pl.assemble(out, x, [0])
y = pl.add(x, x)
pl.dump_tag(y)
with pl.at(level=pl.Level.CORE_GROUP, dumps=[x]):
    out = pl.assemble(out, pl.add(y, x), [0])
with pl.at(level=pl.Level.CORE_GROUP):
    out = pl.assemble(out, x, [0])
out = self.k(y, out)
''')
    text = main_text(program)
    # Before the tag nothing is listed; after it, only consumers of y list it (after the explicit dumps).
    assert text.count("dumps=") == 1 and "dumps=[x, y]" in text
    assert 'k(y, out, attrs={"dump_vars": [y]})' in text
    ir.assert_structural_equal(pl.parse(ir.python_print(program)), program)


def test_the_wrapper_of_a_top_level_region_lists_the_tagged_tensors_it_consumes():
    program = parse('''
pl.dump_tag(x)
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
    out = pl.assemble(out, pl.exp(x), [0])
''')
    (scope,) = [s for s in ir.flatten_to_stmts(program.get_function("main").body) if isinstance(s, ir.InCoreScopeStmt)]
    assert [v.name_hint for v in scope.attrs["dump_vars"]] == ["x"]


def test_outlining_hands_the_scopes_dump_vars_to_the_kernel_call():
    program = parse('''
y = pl.add(x, x)
pl.dump_tag(y)
with pl.at(level=pl.Level.CORE_GROUP, dumps=[x]):
    t = pl.add(y, x)
    out = pl.assemble(out, t, [0])
''')
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
    assert 'main_incore_0(y__ssa_v0, x__ssa_v0, out__ssa_v0, attrs={"dump_vars": [x__ssa_v0, y__ssa_v0]})' \
        in main_text(outlined)
    same_results(program, outlined)  # bookkeeping only: the program computes the same


def test_a_dumped_value_the_scope_defines_itself_is_not_on_the_call():
    program = parse('''
with pl.at(level=pl.Level.CORE_GROUP, dumps=[x]):
    t = pl.add(x, x)
    out = pl.assemble(out, t, [0])
''').get_function("main")
    scope = next(s for s in ir.flatten_to_stmts(program.body) if isinstance(s, ir.InCoreScopeStmt))
    inner = ir.flatten_to_stmts(scope.body)[0].var  # t, defined inside the scope
    rewritten = program.with_fields(body=ir.SeqStmts([scope.with_fields(attrs={"dump_vars": [inner]}),
                                                      *ir.flatten_to_stmts(program.body)[1:]]))
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(ir.Program([rewritten], "P")))
    assert "dump_vars" not in main_text(outlined)


@pytest.mark.parametrize("body, message", [
    ("pl.dump_tag(1)", "pl.dump_tag applies to a tensor variable"),
    ("pl.dump_tag(x, x)", r"pl.dump_tag takes one tensor variable: pl.dump_tag\(t\)"),
])
def test_a_malformed_tag_is_a_located_error(body: str, message: str):
    with pytest.raises(ValueError, match=message) as info:
        parse(body + "\nout = self.k(x, out)")
    assert "dump_tag.py:13" in str(info.value)


def test_a_kernel_cannot_tag():
    text = HEAD.replace("FTYPE", "Opaque").replace("        out = pl.store(pl.load(x, [0], [64]), [0], out)\n",
                                                  "        pl.dump_tag(x)\n        out = pl.store(pl.load(x, [0], [64]), [0], out)\n")
    with pytest.raises(ValueError, match=r"pl.dump_tag marks tensors of host-side code; 'k' is InCore"):
        pl.parse(text + "        return out\n", "dump_tag.py")
