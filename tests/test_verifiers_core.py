"""The core verifiers (owner <core>) and PyPTO's verifier surface (docs/architecture.md, properties and verifiers)."""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PROPERTY_INFO
from pypto_core.passes.verifiers.use_after_def import verify_use_after_def

from .test_pipeline_toys import support

toy_plugin = support.toy_plugin  # shared fixture

INDEX = ir.ScalarType(ir.DataType.INDEX)


def c(v: int) -> ir.ConstInt:
    return ir.ConstInt(v, ir.DataType.INDEX)


def var(name: str, typ: ir.Type = INDEX) -> ir.Var:
    return ir.Var(name, typ)


def program(*stmts: ir.Stmt, params=(), ret=(INDEX,), ftype=ir.FunctionType.Opaque) -> ir.Program:
    body = stmts[0] if len(stmts) == 1 else ir.SeqStmts(list(stmts))
    return ir.Program([ir.Function("f", list(params), list(ret), body, type=ftype)], "P")


def messages(prop: str, prog: object) -> list[str]:
    diags = passes.PropertyVerifierRegistry.verify([prop], prog)
    assert all(d.rule_name == prop and d.severity is passes.DiagnosticSeverity.Error for d in diags)
    return [d.message for d in diags]


def loop(loop_var, body, iter_args=(), return_vars=()):
    return ir.ForStmt(loop_var, c(0), c(4), c(1), list(iter_args), body, list(return_vars))


# -- SSAForm ---------------------------------------------------------------------------------------------
def test_ssa_accepts_single_definitions_and_carried_loops():
    x, i, acc, nxt, rv = var("x"), var("i"), None, var("nxt"), var("rv")
    acc = ir.IterArg("acc", INDEX, x)
    body = ir.SeqStmts([ir.AssignStmt(nxt, ir.Add(acc, i, ir.DataType.INDEX)), ir.YieldStmt([nxt])])
    prog = program(ir.AssignStmt(x, c(1)), loop(i, body, [acc], [rv]), ir.ReturnStmt([rv]))
    assert messages("SSAForm", prog) == []


def test_ssa_rejects_a_variable_assigned_twice():
    prog = pl.parse('''
@pl.function
def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    y = x + 1
    y = y + 1
    return y
''')
    assert messages("SSAForm", prog) == [
        "Variable 'y' is assigned more than once (2 times), violating SSA form (in function 'f')"]


def test_ssa_lets_one_assignment_rebind_a_parameter_and_reports_each_extra_one():
    # PyPTO's rule: a parameter is in scope but is not a definition (docs/passes/run_verifier.md, the core
    # properties' rules).
    once = pl.parse('''
@pl.function
def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    x = x + 1
    return x
''')
    assert messages("SSAForm", once) == []
    thrice = pl.parse('''
@pl.function
def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    x = x + 1
    x = x + 1
    x = x + 1
    return x
''')
    assert messages("SSAForm", thrice) == [
        "Variable 'x' is assigned more than once (2 times), violating SSA form (in function 'f')",
        "Variable 'x' is assigned more than once (3 times), violating SSA form (in function 'f')"]


def test_ssa_does_not_count_loop_variables_and_iter_args():
    # Scoped, never counted: a loop variable object reused by a second loop is no double definition.
    i, x = var("i"), var("x")
    prog = program(ir.AssignStmt(x, c(0)), loop(i, ir.EvalStmt(i)), loop(i, ir.EvalStmt(i)), ir.ReturnStmt([x]))
    assert messages("SSAForm", prog) == []


def test_ssa_rejects_shadowing_an_enclosing_name():
    x, i, inner_x = var("x"), var("i"), var("x")
    prog = program(ir.AssignStmt(x, c(1)), loop(i, ir.AssignStmt(inner_x, c(2))), ir.ReturnStmt([x]))
    assert messages("SSAForm", prog) == [
        "variable 'x' shadows a variable of the same name in an enclosing scope of function 'f'"]


def test_ssa_rejects_carried_bodies_without_a_matching_yield():
    x, i, rv = var("x"), var("i"), var("rv")
    no_yield = loop(i, ir.EvalStmt(x), [ir.IterArg("a", INDEX, x)], [rv])
    assert messages("SSAForm", program(ir.AssignStmt(x, c(1)), no_yield, ir.ReturnStmt([rv]))) == [
        "for loop carries 1 value(s) but its body does not end with a yield (function 'f')"]
    a, rv2 = ir.IterArg("a", INDEX, x), var("rv")
    two = loop(var("i"), ir.YieldStmt([a, a]), [a], [rv2])
    assert messages("SSAForm", program(ir.AssignStmt(x, c(1)), two, ir.ReturnStmt([rv2]))) == [
        "for loop carries 1 value(s) but its body yields 2 (function 'f')"]


def test_ssa_rejects_an_if_with_return_vars_and_no_else():
    x, rv = var("x"), var("rv")
    cond = ir.Lt(x, c(2), ir.DataType.BOOL)
    prog = program(ir.AssignStmt(x, c(1)), ir.IfStmt(cond, ir.YieldStmt([x]), None, [rv]), ir.ReturnStmt([rv]))
    assert messages("SSAForm", prog) == ["if with 1 return_vars has no else branch (function 'f')"]


def test_ssa_rejects_a_use_outside_the_defining_scope():
    i, t = var("i"), var("t")
    prog = program(loop(i, ir.AssignStmt(t, c(1))), ir.ReturnStmt([t]))
    assert messages("SSAForm", prog) == ["variable 't' is used outside the scope that defines it in function 'f'"]


def test_ssa_keeps_split_aiv_and_incore_scopes_transparent():
    t = var("t")
    scope = ir.InCoreScopeStmt(body=ir.SplitAivScopeStmt(ir.SplitMode.UP_DOWN, body=ir.AssignStmt(t, c(1))))
    assert messages("SSAForm", program(scope, ir.ReturnStmt([t]))) == []


# -- UseAfterDef -------------------------------------------------------------------------------------------
def test_use_before_definition_and_undefined_use():
    t, ghost = var("t"), var("ghost")
    prog = program(ir.EvalStmt(t), ir.AssignStmt(t, c(1)), ir.ReturnStmt([ghost]))
    assert messages("UseAfterDef", prog) == [
        "variable 't' is used where its definition does not dominate the use (defined later, or inside a loop "
        "body or a branch it is not carried out of) in function 'f'",
        "variable 'ghost' is used but never defined in function 'f'"]


def test_loop_var_and_iter_args_are_only_visible_in_the_body():
    x, i, rv = var("x"), var("i"), var("rv")
    a = ir.IterArg("a", INDEX, x)
    prog = program(ir.AssignStmt(x, c(0)), loop(i, ir.YieldStmt([a]), [a], [rv]), ir.ReturnStmt([rv]))
    assert messages("UseAfterDef", prog) == []
    leak = program(ir.AssignStmt(x, c(0)), loop(i, ir.YieldStmt([a]), [a], [rv]), ir.ReturnStmt([a]))
    assert [m.split(" is ")[0] for m in messages("UseAfterDef", leak)] == ["variable 'a'"]
    after = program(loop(i, ir.EvalStmt(i)), ir.ReturnStmt([i]))
    assert [m.split(" is ")[0] for m in messages("UseAfterDef", after)] == ["variable 'i'"]


def test_a_value_defined_in_both_branches_is_defined_after_the_if():
    prog = pl.parse('''
@pl.function
def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    if n > 2:
        w = n + 1
    else:
        w = n + 3
    return w
''')
    assert messages("UseAfterDef", prog) == []
    one_branch = pl.parse('''
@pl.function
def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    if n > 2:
        w = n + 1
    return w
''')
    # Before ConvertToSSA a branch's definition leaks and ConvertToSSA merges it from a value of the same type
    # object visible before the if (docs/passes/convert_to_ssa.md, escaping variables); `n + 1` has a type
    # object of its own, so nothing can stand for `w` on the other path: reported, with the fix.
    assert messages("UseAfterDef", one_branch) == [
        "variable 'w' is assigned only inside one branch of the if at <string>:4:5 and used after it in "
        "function 'f', and nothing before it can stand for it when the other branch runs: no Out/InOut "
        "parameter and no variable visible there has its type, so this use would read 'w__FREE_VAR' after "
        "ConvertToSSA; give it a value before the if"]
    stored = pl.parse('''
@pl.function
def f(x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]], n: pl.Scalar[pl.INDEX]
      ) -> pl.Tensor[[16], pl.FP32]:
    if n > 2:
        w = pl.store(pl.load(x, [0], [16]), [0], out)
    return w
''')
    # `w` is typed with `out`'s type object (a store returns its target's): the Out parameter stands for it.
    assert messages("UseAfterDef", stored) == []
    assert len(verify_use_after_def(stored, strict=True)) == 1


def test_a_value_carried_out_of_a_loop_in_a_scope_is_visible_after_the_scope_only_when_used_inside():
    cut = pl.parse('''
@pl.function
def f(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            k = pl.add(a, 1.0)
    r = pl.add(k, a)
    return r
''')
    (message,) = messages("UseAfterDef", cut)
    assert message.startswith("variable 'k' is assigned only inside the loop at <string>:5:9, which is inside the "
                              "scope at <string>:4:5, and used after that scope")
    used_inside = pl.parse('''
@pl.function
def f(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(4):
            k = pl.add(a, 1.0)
        q = pl.add(k, a)
    r = pl.add(k, q)
    return r
''')
    assert messages("UseAfterDef", used_inside) == []


def test_if_return_vars_and_dynamic_dims_are_defined():
    prog = pl.parse('''
import pypto.language as pl
M = pl.dynamic("M")

@pl.function
def f(x: pl.Tensor[[M], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    if n > M:
        r = pl.yield_(n)
    else:
        r = pl.yield_(M)
    return r
''')
    assert messages("UseAfterDef", prog) == []


# -- TypeChecked -----------------------------------------------------------------------------------------
def test_type_checked_never_compares_an_assignment_that_is_assign_type_symmetry():
    # PyPTO's TypeCheck does not look at assignments; AssignTypeSymmetry (in no default set) does.
    x = var("x", ir.ScalarType(ir.DataType.FP32))
    prog = program(ir.AssignStmt(x, c(1)), ir.ReturnStmt([x]), ret=(ir.ScalarType(ir.DataType.FP32),))
    assert messages("TypeChecked", prog) == []
    assert messages("AssignTypeSymmetry", prog) == [
        "'x' has type pl.Scalar[pl.FP32] but is assigned a value of type pl.Scalar[pl.INDEX] (function 'f')"]
    for names in (passes.get_default_verify_properties(), passes.get_structural_properties(),
                  passes.get_verified_properties()):
        assert not names.contains(passes.IRProperty.AssignTypeSymmetry)


def test_type_checked_ignores_memory_spaces():
    # A hand-built `full: Tile[Vec] = tile.aic_gather(...)`-like assignment of a Mat value, and an if whose
    # branches yield tiles of two spaces: no TypeChecked finding.
    vec = ir.TileType([16, 16], ir.DataType.FP32, memory_space=ir.MemorySpace.Vec)
    mat = ir.TileType([16, 16], ir.DataType.FP32, memory_space=ir.MemorySpace.Mat)
    a, b, full, phi, n = var("a", vec), var("b", mat), var("full", vec), var("phi", vec), var("n")
    merge = ir.IfStmt(ir.Gt(n, c(0), ir.DataType.BOOL), ir.YieldStmt([a]), ir.YieldStmt([b]), [phi])
    prog = program(ir.AssignStmt(full, b), merge, ir.ReturnStmt([phi]), params=[a, b, n], ret=(vec,))
    assert messages("TypeChecked", prog) == []
    assert len(messages("AssignTypeSymmetry", prog)) == 1


def test_type_checked_compares_carries_merges_bounds_and_conditions():
    t16 = ir.TileType([16, 16], ir.DataType.FP32, memory_space=ir.MemorySpace.Vec)
    t8 = ir.TileType([8, 16], ir.DataType.FP32, memory_space=ir.MemorySpace.Vec)
    half = ir.TileType([16, 16], ir.DataType.FP32, None, ir.TileView(valid_shape=[8, 16]), ir.MemorySpace.Vec)
    a, b, n, i = var("a", t16), var("b", t8), var("n"), var("i")
    acc, rv = ir.IterArg("acc", t16, a), var("rv", t16)
    loop = ir.ForStmt(i, c(0), c(4), c(1), [acc], ir.YieldStmt([b]), [rv])
    phi = var("phi", t16)
    merge = ir.IfStmt(n, ir.YieldStmt([a]), ir.YieldStmt([var("h", half)]), [phi])
    prog = program(loop, merge, ir.ReturnStmt([rv]), params=[a, b, n], ret=(t16,))
    assert messages("TypeChecked", prog) == [
        "loop carry 'acc': the yielded value is pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] but the iter_arg is "
        "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] (another shape) (function 'f')",
        "the if condition must be a BOOL scalar, got pl.Scalar[pl.INDEX] (function 'f')",
        "if result 'phi': the else branch's value is pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, "
        "pl.TileView(valid_shape=[8, 16])] but the return var is pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] "
        "(another valid shape) (function 'f')"]


def test_type_checked_bounds_valid_shapes():
    wide = ir.TileType([16, 16], ir.DataType.FP32, None, ir.TileView(valid_shape=[32, 16]), ir.MemorySpace.Vec)
    (message,) = messages("TypeChecked", program(ir.ReturnStmt([c(0)]), params=[var("w", wide)]))
    assert message.startswith("parameter 'w' has type pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, "
                              "pl.TileView(valid_shape=[32, 16])]: its valid extent 32 on axis 0 is outside 0..16")


def test_annotation_relaxations_are_accepted():
    index_as_int64 = var("n", ir.ScalarType(ir.DataType.INT64))
    tile = ir.TileType([16, 16], ir.DataType.FP32)
    tile_vec = var("t", ir.TileType([16, 16], ir.DataType.FP32, memory_space=ir.MemorySpace.Vec))
    src = var("src", tile)
    unknown = var("u", INDEX)
    unknown_call = ir.Call(ir.GlobalVar("g"), [])
    prog = program(ir.AssignStmt(index_as_int64, c(1)), ir.AssignStmt(tile_vec, src),
                   ir.AssignStmt(unknown, unknown_call), ir.ReturnStmt([index_as_int64]), params=[src])
    assert messages("AssignTypeSymmetry", prog) == []


def test_parsed_programs_are_type_checked():
    prog = pl.parse(open(__file__.replace("tests/test_verifiers_core.py", "examples/basic.py")).read())
    assert messages("TypeChecked", prog) == []


# -- NoNestedInCore, SplitIncoreOrch, statement structure ------------------------------------------------
def test_nested_incore_scope():
    inner = ir.InCoreScopeStmt(body=ir.ReturnStmt([c(0)]))
    prog = program(ir.InCoreScopeStmt(body=inner))
    assert [m.startswith("Nested InCore scope in function 'f'") for m in messages("NoNestedInCore", prog)] == [True]
    assert messages("NoNestedInCore", program(ir.InCoreScopeStmt(body=ir.ReturnStmt([c(0)])))) == []


def test_split_incore_orch_looks_at_opaque_orchestration_and_graph_functions():
    scope = ir.InCoreScopeStmt(body=ir.ReturnStmt([c(0)]))
    for ftype in (ir.FunctionType.Opaque, ir.FunctionType.Orchestration, ir.FunctionType.Graph):
        (msg,) = messages("SplitIncoreOrch", program(scope, ftype=ftype))
        assert msg.startswith(f"InCore ScopeStmt left in {ftype.name} function 'f'")
    assert messages("SplitIncoreOrch", program(scope, ftype=ir.FunctionType.InCore)) == []


def test_block_structure_rules():
    x = var("x")
    single = program(ir.SeqStmts([ir.ReturnStmt([c(1)])]))
    nested = program(ir.SeqStmts([ir.AssignStmt(x, c(1))]), ir.ReturnStmt([x]))
    flat_nested = program(ir.SeqStmts([ir.AssignStmt(x, c(1)), ir.EvalStmt(x)]), ir.ReturnStmt([x]))
    assert len(messages("NoRedundantBlocks", single)) == 1
    assert len(messages("NormalizedStmtStructure", single)) == 1
    # A two-statement block inside a block is not redundant, but it is not normalized either.
    assert messages("NoRedundantBlocks", flat_nested) == []
    assert messages("NormalizedStmtStructure", flat_nested) == [
        "a block nested directly in a block in function 'f' (flatten it)"]
    assert len(messages("NormalizedStmtStructure", nested)) == 2


# -- kernel return rules -------------------------------------------------------------------------------
KERNEL = '''
import pypto.language as pl

@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    t = pl.load(x, [0], [64])
    r = pl.store(t, [0], out)
    alias = r
    return RESULT
'''


def test_return_params_explicit():
    assert messages("ReturnParamsExplicit", pl.parse(KERNEL.replace("RESULT", "out"))) == []
    for returned in ("r", "alias"):
        assert messages("ReturnParamsExplicit", pl.parse(KERNEL.replace("RESULT", returned))) == [
            f"InCore function 'k' returns '{returned}', which is parameter 'out' written in place; "
            "return 'out' itself"]
    opaque = KERNEL.replace("(type=pl.FunctionType.InCore)", "").replace("RESULT", "r")
    assert messages("ReturnParamsExplicit", pl.parse(opaque)) == []


def test_no_scalar_kernel_return():
    n = var("n")
    prog = program(ir.ReturnStmt([n]), params=[n], ftype=ir.FunctionType.InCore)
    assert messages("NoScalarKernelReturn", prog) == [
        "InCore function 'f' returns a scalar (pl.Scalar[pl.INDEX]) as result 0; a kernel cannot return a scalar"]
    assert messages("NoScalarKernelReturn", program(ir.ReturnStmt([n]), params=[n])) == []


# -- PyPTO's verifier surface -------------------------------------------------------------------------------
def test_core_verifiers_are_owned_by_the_core():
    for name in ("SSAForm", "TypeChecked", "UseAfterDef", "NoNestedInCore", "NormalizedStmtStructure",
                 "NoRedundantBlocks", "SplitIncoreOrch", "ReturnParamsExplicit", "NoScalarKernelReturn"):
        assert PROPERTY_INFO.owner(name) == "<core>", name


def test_property_set_functions():
    assert str(passes.get_default_verify_properties()) == (
        "{SSAForm, TypeChecked, NoNestedCalls, NoRedundantBlocks, BreakContinueValid, UseAfterDef, "
        "OutParamNotShadowed, NoNestedInCore, TileTypeCoherence, ArrayNotEscaped}")
    assert passes.get_structural_properties().contains(passes.IRProperty.UseAfterDef)
    assert not passes.get_structural_properties().contains(passes.IRProperty.SSAForm)
    assert passes.get_verified_properties().contains(passes.IRProperty.AivSplitValid)


def test_run_verifier_returns_the_program_or_raises_the_report():
    ok = program(ir.ReturnStmt([c(0)]))
    verifier = passes.run_verifier()
    assert verifier.get_name() == "IRVerifier"
    assert verifier(ok) is ok
    bad = program(ir.InCoreScopeStmt(body=ir.ReturnStmt([c(0)])))
    with pytest.raises(pypto.Error) as info:
        passes.run_verifier([passes.IRProperty.SplitIncoreOrch])(bad)
    assert str(info.value) == (
        "IR Verification Report\n======================\nTotal diagnostics: 1 (1 errors, 0 warnings)\n\n"
        "[1] ERROR - SplitIncoreOrch\n  Message: InCore ScopeStmt left in Opaque function 'f': it should have been "
        "outlined into an InCore function\n  Location: <unknown>\n  Error Code: 0\n\nStatus: FAILED (1 error(s) found)")


def test_verify_properties_raises_pypto_error_with_the_diagnostics():
    bad = program(ir.InCoreScopeStmt(body=ir.ReturnStmt([c(0)])))
    with pytest.raises(pypto.Error, match="InCore ScopeStmt"):
        passes.verify_properties(passes.IRPropertySet([passes.IRProperty.SplitIncoreOrch]), bad, "Test")


def test_diagnostics_carry_span_and_codes():
    prog = pl.parse('''
@pl.function
def f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    y = x + 1
    y = y + 1
    return y
''', "prog.py")
    (diag,) = passes.PropertyVerifierRegistry.verify(passes.IRPropertySet([passes.IRProperty.SSAForm]), prog)
    assert (diag.span.filename, diag.span.begin_line) == ("prog.py", 5)
    assert (diag.error_code, diag.hint_code) == (1, "")  # PyPTO's ssa::ErrorType::MULTIPLE_ASSIGNMENT


def test_declared_but_unverified_properties_verify_to_nothing(toy_plugin):
    assert passes.PropertyVerifierRegistry.verify(["ToyOrphan"], program(ir.ReturnStmt([c(0)]))) == []
    assert not passes.PropertyVerifierRegistry.has_verifier("ToyOrphan")
    assert PROPERTY_INFO.owner("ToyOrphan") == "toy_passes"


def test_a_value_cut_by_a_scope_in_a_loop_is_fine_when_the_loop_carries_it_out():
    # Used after the scope inside the loop, and after the loop: ConvertToSSA promotes it at the loop, which
    # carries it through the scope (no placeholder); without the use after the loop, the cut stands.
    src = '''
@pl.function
def f(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    q = pl.add(a, 0.0)
    for j in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                k = pl.add(a, 1.0)
        q = pl.add(k, q)
    r = pl.add(k, q)
    return r
'''
    assert messages("UseAfterDef", pl.parse(src)) == []
    (message,) = messages("UseAfterDef", pl.parse(src.replace("r = pl.add(k, q)", "r = pl.add(a, q)")))
    assert message.startswith("variable 'k' is assigned only inside the loop at <string>:7:13, which is inside the "
                              "scope at <string>:6:9, and used after that scope")
