"""Malformed structure is a located error at parse time instead of an InternalError or a silent change later
(misplaced yields, one-sided yields, a return inside a scope, loop variables changing type, yield
annotations that do not fit, calls of later methods with the wrong arity)."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.ir import types as T
from pypto_core.language.api import parse

T16 = "pl.Tensor[[16, 64], pl.FP32]"


def fn(body: str, params: str = f"x: {T16}, n: pl.Scalar[pl.INDEX]") -> str:
    return "import pypto.language as pl\n" + "@pl.function\n" + f"def f({params}) -> {T16}:\n" + body


def located(text: str, message: str, line: int) -> None:
    with pytest.raises(ValueError) as info:
        parse(text, "prog.py")
    rendered = str(info.value)
    assert message in rendered, rendered
    assert f"--> prog.py:{line}:" in rendered, rendered


def test_a_statement_after_a_yield():
    located(fn("    for i, (a,) in pl.range(n, init_values=(x,)):\n        y = pl.add(a, 1.0)\n"
               "        o = pl.yield_(y)\n        z = pl.add(y, 1.0)\n    return o\n"),
            "pl.yield_ must be the last statement of its body", 7)
    located(fn("    if n > 0:\n        y = pl.yield_(x)\n        z = pl.add(x, 1.0)\n    else:\n"
               "        y = pl.yield_(x)\n    return y\n"), "pl.yield_ must be the last statement", 6)


@pytest.mark.parametrize(("then", "orelse", "line"), [
    ("        z = pl.add(x, 1.0)\n", "        y = pl.yield_(x)\n", 5),
    ("        y = pl.yield_(x)\n", "        z = pl.add(x, 1.0)\n", 7),
])
def test_an_if_that_yields_in_only_one_branch(then, orelse, line):
    located(fn(f"    if n > 0:\n{then}    else:\n{orelse}    return x\n"), "does not end with pl.yield_", line)


def test_a_nested_if_whose_outer_branch_does_not_yield():
    body = ("    if n > 0:\n        if n > 1:\n            y = pl.yield_(x)\n        else:\n            y = pl.yield_(x)\n"
            "    else:\n        y = pl.yield_(x)\n    return y\n")
    located(fn(body), "the then-branch of this if does not end with pl.yield_", 5)


@pytest.mark.parametrize("kind", ["pl.at(level=pl.Level.CORE_GROUP)", "pl.cluster()"])
def test_a_return_inside_a_scope(kind):
    located(fn(f"    with {kind}:\n        y = pl.add(x, 1.0)\n        return y\n"), "'return' inside a", 6)


def test_the_loop_variable_may_not_change_type():
    located(fn("    for i in pl.range(n):\n        i = pl.cast(i, pl.INT64)\n        x = pl.add(x, 1.0)\n    return x\n"),
            "the loop variable 'i' is pl.Scalar[pl.INDEX]", 5)


def test_the_loop_variable_may_be_rebound_with_its_own_type():
    prog = parse(fn("    for i in pl.range(n):\n        i = i + 1\n        x = pl.add(x, 1.0)\n    return x\n"))
    assert passes.convert_to_ssa()(prog)


def test_a_yield_annotation_must_fit_the_value():
    located(fn("    for i, (a,) in pl.range(n, init_values=(x,)):\n        y = pl.add(a, 1.0)\n"
               "        o: pl.Tensor[[7, 64], pl.FP32] = pl.yield_(y)\n    return o\n"),
            "does not match the value's type", 6)


def test_a_call_of_a_later_method_keeps_unknown_type_but_checks_arity():
    head = "import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function\n"
    later = f"    @pl.function\n    def g(self, x: {T16}) -> {T16}:\n        return x\n"
    bad = head + f"    def f(self, x: {T16}) -> {T16}:\n        y = self.g(x, x)\n        return y\n" + later
    located(bad, "function 'g' takes 1 argument(s), got 2", 6)
    good = parse(head + f"    def f(self, x: {T16}) -> {T16}:\n        y = self.g(x)\n        return y\n" + later)
    assert isinstance(good.get_function("f").body.stmts[0].var.type, T.UnknownType)  # no annotation, no type


def _two_methods(caller_body: str, later_ret: str = T16) -> str:
    return ("import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function\n"
            f"    def f(self, x: {T16}, out: pl.Out[{T16}]) -> {T16}:\n{caller_body}"
            f"    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def g(self, x: {T16}, out: pl.Out[{later_ret}]) -> {later_ret}:\n        return out\n")


def test_a_later_call_rebinding_a_typed_name_takes_its_type_and_prints_back():
    from pypto_core.ir.structural import assert_structural_equal

    prog = parse(_two_methods("        out = self.g(x, out)\n        return out\n"))
    call = prog.get_function("f").body.stmts[0].value
    assert isinstance(call.type, T.TensorType)
    assert_structural_equal(prog, parse(prog.as_python()))  # the printer puts g first


def test_a_later_call_whose_return_differs_from_the_name_it_rebinds():
    text = ("import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function\n"
            f"    def f(self, x: {T16}, out: pl.Out[{T16}]) -> {T16}:\n        out = self.g(x)\n        return out\n"
            f"    @pl.function\n    def g(self, x: {T16}) -> pl.Tensor[[8, 64], pl.FP32]:\n"
            "        y = pl.slice(x, [8, 64], [0, 0])\n        return y\n")
    located(text, "'g' returns pl.Tensor[[8, 64], pl.FP32], but its result is used as", 6)


@pytest.mark.parametrize(("arg", "why"), [
    ("n", "is a scalar, but parameter 'x' is a tensor"),
    ("h", "holds FP16, but parameter 'x' is"),
    ("w", "is pl.Tensor[[16, 32], pl.FP32], but parameter 'x' is"),
    # Unchecked, a list literal passed for a tensor would run on the machine by numpy broadcasting, then fail
    # once the callee loaded it as a tile.
    ("[3]", "is a tuple, but parameter 'x' is a tensor"),
    ("[n, 4]", "is a tuple, but parameter 'x' is a tensor"),
])
def test_a_call_argument_must_fit_its_parameter(arg, why):
    # Unchecked, an FP16 tensor passed for an INDEX parameter would be accepted and miscompiled.
    head = "import pypto.language as pl\n@pl.program\nclass P:\n"
    g = f"    @pl.function\n    def g(self, x: {T16}) -> {T16}:\n        return x\n"
    f = (f"    @pl.function\n    def f(self, x: {T16}, n: pl.Scalar[pl.INDEX], h: pl.Tensor[[16, 64], pl.FP16], "
         f"w: pl.Tensor[[16, 32], pl.FP32]) -> {T16}:\n        y = self.g({arg})\n        return y\n")
    located(head + g + f, f"argument 1 of 'g' {why}", 9)
    located(head + f + g, f"argument 1 of 'g' {why}", 6)  # g defined later: checked once it is parsed


def test_an_op_whose_result_would_have_a_negative_dim():
    located(fn("    t = pl.load(x, [0, 0], [16, -16])\n    return x\n").replace(
        "@pl.function\n", "@pl.function(type=pl.FunctionType.InCore)\n"),
        "the result would have a dimension of -16", 4)


@pytest.mark.parametrize("call", ["pl.load(x, [16, 32], [0, 0])", "pl.load(x, [0, 0], [16, 0])"])
def test_an_op_whose_result_would_have_a_zero_dim(call):
    # Swapped shape / offset arguments: unchecked, a [0, 0] tile would print an annotation that does not parse
    # back; op results are bounded like written types, 1..MAX_DIM (docs/limits.md, the text path).
    located(fn(f"    t = {call}\n    return x\n").replace(
        "@pl.function\n", "@pl.function(type=pl.FunctionType.InCore)\n"),
        "the result would have a dimension of 0, outside 1..2147483647", 4)


def test_an_op_whose_result_would_have_a_negative_valid_extent():
    # Unchecked, tile.load with valid_shape [-1] would print an annotation that does not parse.
    located(fn("    t = pl.tile.load(x, [0, 0], [16, 64], [-1, 64])\n    return x\n").replace(
        "@pl.function\n", "@pl.function(type=pl.FunctionType.InCore)\n"),
        "the result would have a valid extent of -1, outside 0..2147483647", 4)


def test_a_tensor_as_a_shape_entry():
    located(fn("    y = pl.reshape(x, n)\n    return x\n").replace("n: pl.Scalar[pl.INDEX]", f"n: {T16}"),
            "a shape, offset or index entry must be an integer scalar", 4)


def test_a_float_as_a_shape_entry():
    located(fn("    t = pl.load(x, [0, 0], [0.0, 64])\n    return x\n").replace(
        "@pl.function\n", "@pl.function(type=pl.FunctionType.InCore)\n"), "a shape, offset or index entry must be an integer", 4)


def test_if_branches_must_yield_one_type():
    located(fn("    if n > 5:\n        r = pl.yield_(pl.sub(x, x))\n    else:\n        r = pl.yield_(0)\n    return r\n"),
            "this branch yields pl.Scalar[pl.INDEX] for 'r', but the other branch yields pl.Tensor", 7)


def test_a_slice_of_an_empty_window():
    located(fn("    s = pl.slice(x, [8, 0], [0, 0])\n    return x\n"), "reads an empty window: extent 0 in dimension 1", 4)


def test_a_return_inside_a_loop():
    # ExpandMixedKernel would lose the output of a kernel returning from inside a loop.
    located(fn("    for i in pl.range(2):\n        return x\n    return x\n"), "'return' inside a loop is not supported", 5)


def test_a_statement_call_of_a_later_method_is_typed_once_the_program_is_parsed():
    # Functions reordered: a Group calling its AIV function, defined below it, as a statement must not keep
    # UnknownType, since the printed program (callees first) parses it typed.
    from pypto import ir

    text = ("import pypto.language as pl\n@pl.program\nclass P:\n"
            "    @pl.function\n"
            f"    def f(self, x: {T16}, out: pl.Out[{T16}]) -> {T16}:\n        self.g(x, out)\n        return out\n"
            f"    @pl.function\n    def g(self, x: {T16}, out: pl.Out[{T16}]) -> {T16}:\n"
            "        out = pl.assemble(out, pl.neg(x), [0, 0])\n        return out\n")
    program = parse(text)
    call = ir.flatten_to_stmts(program.get_function("f").body)[0].expr
    assert isinstance(call.type, T.TensorType) and [d.value for d in call.type.shape] == [16, 64]
    ir.assert_structural_equal(program, parse(ir.python_print(program)))


@pytest.mark.parametrize("opening, where", [
    ("for _a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):", "pl.split_aiv region"),
    ("for _n in pl.split_aiv(2, mode=pl.SplitMode.NONE):", "pl.split_aiv region"),
])
def test_a_loop_yield_inside_a_region_of_the_body_is_located(opening, where):
    # Unchecked, the loop's yield wrapped in a region would be accepted and printed as a bare pl.yield_ that
    # does not parse back.
    body = ("    for i, (a,) in pl.range(3, init_values=(x,)):\n"
            f"        {opening}\n"
            "            r = pl.yield_(pl.add(a, 1.0))\n"
            "    return r\n")
    located(fn(body), f"pl.yield_ gives the loop's next values, but it is inside a {where}", 6)


def test_a_statement_after_a_return_is_located():
    # Lines swapped: unchecked, a store after `return out` would be accepted, never run as written, and
    # ExpandMixedKernel would then compute something else.
    located(fn("    y = pl.add(x, 1.0)\n    return y\n    z = pl.add(y, 2.0)\n"),
            "this statement follows a return in the same block, so it never runs", 6)
    located(fn("    if n > 2:\n        return x\n        w = pl.neg(x)\n    return x\n"),
            "this statement follows a return in the same block", 6)


def test_a_parameter_named_self_after_the_receiver_is_located():
    # Unchecked, `def k(self, self: T, ...)` would parse with a parameter named self, which the printed form
    # (no receiver) would then read back as the receiver and drop.
    text = ("import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function\n"
            f"    def f(self, self: {T16}) -> {T16}:\n        return self\n")
    located(text, "a parameter may not be named 'self'", 5)


@pytest.mark.parametrize("loop", [
    "    for i, (a,) in pl.range(3, init_values=(x,)):\n",
    "    for (a,) in pl.while_(init_values=(x,)):\n        pl.cond(n > 0)\n",
])
@pytest.mark.parametrize(("scope", "kind", "word"), [
    ("with pl.at(level=pl.Level.CORE_GROUP):", "pl.at(...) scope", "scope"),
    ("with pl.at(level=pl.Level.CORE_GROUP, name_hint='k'):\n            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):",
     "pl.at(...) scope", "scope"),
    ("for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):", "pl.split_aiv region", "region"),
])
def test_a_loop_yield_inside_a_scope_of_the_loop_body(loop, scope, kind, word):
    # A loop's yield ending a pl.at scope of the loop body would print bare, and, printed with its targets, fail
    # ConvertToSSA's SSAForm check (the scope's body becomes a kernel, which cannot give its caller's loop the next
    # values; docs/dsl.md, loops and carries). It is a located error naming the fix.
    inner = "                " if "\n" in scope else "            "
    text = fn(loop + "        v = pl.add(a, 1.0)\n        " + scope + "\n" + inner + "w = pl.add(v, a)\n"
              + inner + "r = pl.yield_(w)\n    return x\n")
    line = text.count("\n", 0, text.index("r = pl.yield_")) + 1
    located(text, f"inside a {kind} in the loop body; compute the values there and write the pl.yield_ after "
                  f"the {word}, as the last statement of the loop body", line)


def test_a_loop_yield_after_a_scope_of_the_loop_body_runs():
    from pypto import ir

    body = ("    for i, (a,) in pl.range(3, init_values=(x,)):\n"
            "        with pl.at(level=pl.Level.CORE_GROUP):\n"
            "            v = pl.add(a, 1.0)\n"
            "        r = pl.yield_(v)\n"
            "    return r\n")
    program = parse(fn(body))
    ir.assert_structural_equal(program, parse(ir.python_print(program)))
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
    assert len(outlined.functions) == 2


def test_a_loop_yield_inside_a_loop_inside_a_region_inside_a_loop_is_fine():
    # The check above looks the loop up by identity: by equality, an inner loop's own yield (in a region inside
    # an outer carried loop) would be taken for the outer loop's and rejected.
    from pypto import ir

    body = ("    for w, (o,) in pl.range(2, init_values=(x,)):\n"
            "        for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
            "            for i, (a,) in pl.range(aiv, 4, 2, init_values=(o,)):\n"
            "                r = pl.yield_(pl.add(a, 1.0))\n"
            "        o2 = pl.yield_(o)\n"
            "    return o2\n")
    program = parse(fn(body))
    ir.assert_structural_equal(program, parse(ir.python_print(program)))


@pytest.mark.parametrize("init, cond, value", [("0", "k < 2", "-0.5"), ("0.0", "k < 2.0", "1")])
def test_a_scalar_carry_keeps_its_kind(init, cond, value):
    # Unchecked, `k = pl.yield_(-0.0)` into an INDEX counter would be accepted, and the while loop
    # `pl.cond(k < 2)` would then never end on the reference machine.
    body = (f"    for (k, a) in pl.while_(init_values=({init}, x)):\n"
            f"        pl.cond({cond})\n"
            f"        k2, a2 = pl.yield_({value}, a)\n"
            "    return a2\n")
    located(fn(body), "the loop carries 'k' as", 6)


@pytest.mark.parametrize("yielded", ["pl.row_sum(a)", "pl.cast(a, pl.FP16)"])
def test_a_loop_yields_a_value_of_its_carrys_type(yielded):
    # A [1, 32] value yielded into a [16, 32] carry of a loop that runs zero times: unchecked, the result would
    # be the init on the machine and the yielded type after ConvertTensorToTileOps.
    located(fn(f"    for i, (a,) in pl.range(4, 1, init_values=(x,)):\n        r = pl.yield_({yielded})\n    return r\n"),
            "the loop carries 'a' as pl.Tensor[[16, 64], pl.FP32] but yields a pl.Tensor[[16, ", 5)



@pytest.mark.parametrize(("init", "yielded", "carried", "given"), [
    # Unchecked, a tensor yielded into a carry started from a scalar would reach ConvertTensorToTileOps.
    ("1", "pl.neg(x)", "pl.Scalar[pl.INDEX]", "pl.Tensor[[16, 64], pl.FP32]"),
    ("x", "1", "pl.Tensor[[16, 64], pl.FP32]", "pl.Scalar[pl.INDEX]"),
    ("x", "n", "pl.Tensor[[16, 64], pl.FP32]", "pl.Scalar[pl.INDEX]"),
])
def test_a_loop_carry_keeps_its_kind_scalar_or_tensor(init, yielded, carried, given):
    located(fn(f"    for i, (a,) in pl.range(3, init_values=({init},)):\n        r = pl.yield_({yielded})\n    return x\n"),
            f"the loop carries 'a' as {carried} but yields a {given} value into 'r'", 5)


def test_a_while_carry_keeps_its_kind_scalar_or_tensor():
    located(fn("    for (a,) in pl.while_(init_values=(x,)):\n        pl.cond(False)\n        r = pl.yield_(1)\n"
               "    return x\n"),
            "the loop carries 'a' as pl.Tensor[[16, 64], pl.FP32] but yields a pl.Scalar[pl.INDEX] value into 'r'", 6)



@pytest.mark.parametrize(("bounds", "column", "shown"), [
    # Unchecked, pl.range(1e30) would be accepted and fail in ConvertToSSA (OverflowError).
    ("1e30", 23, "'1e+30' of type pl.Scalar[pl.FP32]"),
    ("0, 2.5", 26, "'2.5' of type pl.Scalar[pl.FP32]"),
    ("0, 4, True", 29, "'True' of type pl.Scalar[pl.BOOL]"),
    ("f", 23, "'f' of type pl.Scalar[pl.FP32]"),
])
def test_a_loop_bound_is_an_integer(bounds, column, shown):
    text = fn(f"    for i in pl.range({bounds}):\n        x = pl.abs(x)\n    return x\n",
              params=f"x: {T16}, f: pl.Scalar[pl.FP32]")
    located(text, f"a loop bound must be an integer, got {shown}", 4)
    with pytest.raises(ValueError, match=f"prog.py:4:{column}"):
        parse(text, "prog.py")



@pytest.mark.parametrize("orelse", ["", "    else:\n        pl.yield_(x, x)\n"])
def test_a_bare_yield_in_an_if_no_branch_names_is_located(orelse):
    # Unchecked, `if c: pl.yield_(a, b)` (a misplaced loop yield) would give an if with no results whose branch
    # yields two values, and ConvertToSSA's SSAForm check would fail on it.
    located(fn("    if n > 0:\n        pl.yield_(x, x)\n" + orelse + "    return x\n"),
            "this pl.yield_ gives 2 value(s), but no branch of the if names its results", 5)



@pytest.mark.parametrize(("annotation", "op", "message"), [
    # Unchecked, the annotation's space would be taken, and the passes and the machine would each read another.
    ("pl.Tile[[16, 64], pl.FP32, pl.Mem.Left]", "pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)",
     "the annotation places the tile in Left, but the value is in Vec"),
    ("pl.Tile[[16, 64], pl.FP32, pl.Mem.Right]", "pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat)",
     "the annotation places the tile in Right, but the value is in Mat"),
])
def test_a_tile_annotation_in_another_memory_space_than_its_value_is_located(annotation, op, message):
    located(fn(f"    t: {annotation} = {op}\n    return x\n"), message, 4)


def test_a_tile_annotation_may_add_the_memory_space():
    parse(fn("    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])\n    return x\n"))


@pytest.mark.parametrize("ret", ["pl.Tensor[[16, 64], pl.INT64]", "pl.Tensor[[8, 64], pl.FP32]"])
def test_a_returned_tensor_is_not_compared_with_the_annotation(ret):
    # PyPTO's parser does not compare them (docs/dsl.md, functions): the return type stays as annotated.
    func = parse("import pypto.language as pl\n@pl.function\n"
                 f"def f(x: {T16}, n: pl.Scalar[pl.INDEX]) -> {ret}:\n    return x\n")
    assert ir.python_print(func.return_types[0]) == ret


@pytest.mark.parametrize(("ret", "returned", "message"), [
    # Unchecked, the caller would read a tensor as the declared scalar (a loop bound): the machine cannot run it.
    ("pl.Scalar[pl.INDEX]", "x", "the return value is a pl.Tensor[[16, 64], pl.FP32], but the function declares "
                                 "pl.Scalar[pl.INDEX]"),
    ("tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]", "x",
     "this return gives 1 value(s), but the function declares 2"),
    ("tuple[pl.Tensor[[16, 64], pl.FP32], pl.Scalar[pl.FP32]]", "x, n", "return value 1 is a pl.Scalar[pl.INDEX]"),
])
def test_a_return_gives_what_the_annotation_declares(ret, returned, message):
    text = ("import pypto.language as pl\n@pl.function\n"
            f"def f(x: {T16}, n: pl.Scalar[pl.INDEX]) -> {ret}:\n    return {returned}\n")
    located(text, message, 4)


def test_a_return_of_an_index_like_scalar_and_of_a_callees_tuple_is_fine():
    parse("import pypto.language as pl\n@pl.function\n"
          f"def f(x: {T16}, n: pl.Scalar[pl.INDEX]) -> tuple[{T16}, pl.Scalar[pl.INT64]]:\n    return x, n\n")


BARE_AND_NAMED = ("    if n > 0:\n        {then}\n    else:\n        {orelse}\n    return r\n")


@pytest.mark.parametrize(("then", "orelse", "line", "message"), [
    # Unchecked, a bare yield of another shape would print under the other branch's annotation.
    ("pl.yield_(pl.slice(x, [8, 64], [0, 0]))", "r = pl.yield_(x)", 5,
     "this branch yields pl.Tensor[[8, 64], pl.FP32] for 'r', but the other branch yields pl.Tensor[[16, 64], pl.FP32]"),
    ("r = pl.yield_(x)", "pl.yield_(pl.slice(x, [8, 64], [0, 0]))", 7,
     "this branch yields pl.Tensor[[8, 64], pl.FP32] for 'r', but the other branch yields pl.Tensor[[16, 64], pl.FP32]"),
    ("pl.yield_(n)", "r = pl.yield_(x)", 5, "this branch yields pl.Scalar[pl.INDEX] for 'r'"),
    ("pl.yield_(x, x)", "r = pl.yield_(x)", 5,
     "this pl.yield_ gives 2 value(s), but the other branch yields 1 into r"),
])
def test_a_bare_yield_gives_what_the_other_branch_binds(then, orelse, line, message):
    located(fn(BARE_AND_NAMED.format(then=then, orelse=orelse)), message, line)


def test_a_bare_yield_of_the_same_type_merges_and_prints_back():
    from pypto import ir

    program = parse(fn(BARE_AND_NAMED.format(then="pl.yield_(pl.add(x, 1.0))", orelse="r = pl.yield_(x)")))
    printed = ir.python_print(program)
    ir.assert_structural_equal(program, parse(printed))


def test_a_called_method_returning_another_dtype_is_located_at_its_return():
    # Accepted alone (PyPTO), but a caller would compute on the declared type while the program as written
    # gives the returned value: the passes would compile another result (the fuzz finding
    # return-of-another-dtype).
    text = ("import pypto.language as pl\n@pl.program\nclass P:\n"
            "    @pl.function\n"
            f"    def g(self, x: {T16}) -> pl.Tensor[[16, 64], pl.INT64]:\n"
            "        return x\n"
            "    @pl.function\n"
            f"    def main(self, x: {T16}) -> pl.Tensor[[16, 64], pl.INT64]:\n"
            "        y = self.g(x)\n"
            "        return y\n")
    located(text, "the return value of 'g' is a pl.Tensor[[16, 64], pl.FP32], but the function declares "
                  "pl.Tensor[[16, 64], pl.INT64], and 'main' calls it (at prog.py:9:13)", 6)
