"""OptimizeOrchTensors, Pattern 1 (docs/passes/optimize_orch_tensors.md): an InCore call writes into an input
buffer nobody reads again instead of a fresh tensor.create -- found through a caller's loop or in the callee
alone -- and never where the input's old contents are still seen."""

from __future__ import annotations

from pypto_plugins.pass_dispatch.tests.orch_helpers import assert_optimized, assert_unchanged, optimize

KERNEL = '''    @pl.function(type=pl.FunctionType.InCore)
    def step(a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        s: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], o)
        return s
'''
MERGED_KERNEL = '''    @pl.function(type=pl.FunctionType.InCore)
    def step(a: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        s: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], a)
        return s
'''


def _loop_program(kernel: str, body: str, after: str = "", params: str = "") -> str:
    return f'''@pl.program
class P:
{kernel}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]{params}) -> pl.Tensor[[16, 64], pl.FP32]:
        for i, (acc,) in pl.range(3, init_values=(x,)):
{body}
{after}'''


LOOP_BODY = '''            c: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
            r: pl.Tensor[[16, 64], pl.FP32] = self.step(acc, c)
            acc_rv: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(r)'''
RETURN = "        return acc_rv\n"


def test_loop_case_merges_the_out_parameter_into_the_carried_input():
    assert_optimized(_loop_program(KERNEL, LOOP_BODY, RETURN),
                     _loop_program(MERGED_KERNEL, '''            r: pl.Tensor[[16, 64], pl.FP32] = self.step(acc)
            acc_rv: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(r)''', RETURN))


def test_loop_case_follows_the_tuple_item_of_a_two_result_call():
    kernel = '''    @pl.function(type=pl.FunctionType.InCore)
    def step(a: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 2.0)
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        s1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(w, [0, 0], o1)
        s2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], o2)
        return s1, s2
'''
    body = '''            c1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
            c2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
            r: pl.Tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]] = self.step(acc, c1, c2)
            side: pl.Tensor[[16, 64], pl.FP32] = r[0]
            nxt: pl.Tensor[[16, 64], pl.FP32] = r[1]
            acc_rv: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(nxt)'''
    merged = kernel.replace("o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) ->", "o2_gone) ->")
    merged = merged.replace("a: pl.Tensor[[16, 64], pl.FP32], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]], o2_gone",
                            "a: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], o1: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
    merged = merged.replace("pl.tile.store(u, [0, 0], o2)", "pl.tile.store(u, [0, 0], a)")
    merged_body = body.replace('''            c2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)\n''', "")
    merged_body = merged_body.replace("self.step(acc, c1, c2)", "self.step(acc, c1)")
    assert_optimized(_loop_program(kernel, body, RETURN), _loop_program(merged, merged_body, RETURN))


def test_loop_case_keeps_an_input_read_again_in_the_loop():
    # Written in place, the second call would read step's result instead of acc.
    src = f'''@pl.program
class P:
{KERNEL}
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        for i, (acc, seen) in pl.range(3, init_values=(x, y)):
            c: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
            r: pl.Tensor[[16, 64], pl.FP32] = self.step(acc, c)
            c3: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
            again: pl.Tensor[[16, 64], pl.FP32] = self.step(acc, c3)
            acc_rv, seen_rv = pl.yield_(r, again)
        total: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(acc_rv, seen_rv)
        return total
'''
    assert_unchanged(src)


def test_loop_case_keeps_an_initial_buffer_read_after_the_loop():
    after = '''        total: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(acc_rv, x)
        return total
'''
    assert_unchanged(_loop_program(KERNEL, LOOP_BODY, after))


def test_a_create_with_an_initial_value_is_not_a_fresh_buffer():
    body = LOOP_BODY.replace("pl.tensor.create([16, 64], dtype=pl.FP32)",
                             "pl.tensor.create([16, 64], dtype=pl.FP32, init_value=0.0)")
    assert_unchanged(_loop_program(KERNEL, body, RETURN))


def test_a_callee_that_writes_before_it_reads_keeps_its_out_parameter():
    # Row halves swapped: written in place, the second load would read what the first store wrote.
    kernel = '''    @pl.function(type=pl.FunctionType.InCore)
    def step(a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        top: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
        s1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(top, [8, 0], o)
        bottom: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [8, 0], [8, 64], [8, 64], target_memory=pl.Mem.Vec)
        s2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(bottom, [0, 0], o)
        return s2
'''
    assert_unchanged(_loop_program(kernel, LOOP_BODY, RETURN))


def test_another_call_site_writing_a_caller_buffer_keeps_the_out_parameter():
    after = '''        c0: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        y2: pl.Tensor[[16, 64], pl.FP32] = self.step(y, out)
        return acc_rv
'''
    src = _loop_program(KERNEL, LOOP_BODY, after, params=", y: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
    assert_unchanged(src)


STANDALONE = '''@pl.program
class S:
    @pl.function(type=pl.FunctionType.InCore)
    def twice(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for i, (a,) in pl.range(2, init_values=(t,)):
            a2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(a, 1.0)
            a_rv: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(a2)
        for j, (b,) in pl.range(2, init_values=(a_rv,)):
            b2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(b, 3.0)
            b_rv: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(b2)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(b_rv, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.adds(x, 1.0)
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        z: pl.Tensor[[16, 64], pl.FP32] = self.twice(y, o)
        return z
'''


def test_standalone_case_follows_two_loop_hops_back_to_the_full_load():
    expected = STANDALONE.replace(
        "x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n        t",
        "x: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n        t")
    expected = expected.replace("pl.tile.store(b_rv, [0, 0], out)", "pl.tile.store(b_rv, [0, 0], x)")
    expected = expected.replace('''        o: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)\n''', "")
    expected = expected.replace("self.twice(y, o)", "self.twice(y)")
    assert_optimized(STANDALONE, expected)


def test_standalone_case_needs_a_loop_between_load_and_store():
    src = '''@pl.program
class S:
    @pl.function(type=pl.FunctionType.InCore)
    def once(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.adds(x, 1.0)
        o: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        z: pl.Tensor[[16, 64], pl.FP32] = self.once(y, o)
        return z
'''
    assert_unchanged(src)


def test_standalone_case_needs_a_full_load():
    # A window of a bigger input: the output is not that input.
    src = STANDALONE.replace("pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)",
                             "pl.tile.load(x, [16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)")
    src = src.replace("def twice(x: pl.Tensor[[16, 64], pl.FP32]", "def twice(x: pl.Tensor[[32, 64], pl.FP32]")
    src = src.replace("def main(self, x: pl.Tensor[[16, 64], pl.FP32]", "def main(self, x: pl.Tensor[[32, 64], pl.FP32]")
    src = src.replace("y: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.adds", "y: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.adds")
    assert_unchanged(src)


def test_standalone_case_keeps_an_input_the_caller_reads_again():
    src = STANDALONE.replace("        return z\n", '''        w: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(z, y)
        return w
''')
    assert_unchanged(src)


def test_a_call_in_a_loop_keeps_an_input_from_outside_the_loop():
    # Written in place, the second iteration would read what the first wrote into y.
    src = STANDALONE.replace('''        o: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        z: pl.Tensor[[16, 64], pl.FP32] = self.twice(y, o)
        return z
''', '''        for k, (s,) in pl.range(2, init_values=(x,)):
            o: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
            z: pl.Tensor[[16, 64], pl.FP32] = self.twice(y, o)
            zs: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(z, s)
            s_rv: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(zs)
        return s_rv
''')
    assert_unchanged(src)


def test_a_kernel_returning_its_out_parameter_after_the_store_maps_it_too():
    # The form pypto's ConvertTensorToTileOps returns: the parameter, not the store's result.
    kernel = KERNEL.replace("        return s\n", "        return o\n")
    merged = MERGED_KERNEL.replace("        return s\n", "        return a\n")
    assert_optimized(_loop_program(kernel, LOOP_BODY, RETURN),
                     _loop_program(merged, '''            r: pl.Tensor[[16, 64], pl.FP32] = self.step(acc)
            acc_rv: pl.Tensor[[16, 64], pl.FP32] = pl.yield_(r)''', RETURN))


def test_a_kernel_both_lanes_run_keeps_its_out_parameter():
    """A split_aiv kernel runs whole on both AIV lanes at once: merged, one lane's store into the input could
    come before the other lane's load of it (a GM race on the machine; fuzz finding). Never merged."""
    kernel = '''    @pl.function(type=pl.FunctionType.InCore)
    def step(a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        for _lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.neg(t)
        s: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], o)
        return s
'''
    assert_unchanged(_loop_program(kernel, LOOP_BODY, RETURN))
    # the same kernel run by one core is merged
    one_core = kernel.replace('''        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})\n''', "")
    _, after = optimize(_loop_program(one_core, LOOP_BODY, RETURN))
    assert [str(d) for d in after.get_function("step").param_directions] == ["ParamDirection.InOut"]
