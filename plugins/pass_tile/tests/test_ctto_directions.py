"""ConvertTensorToTileOps re-classifies written parameters and refuses one store mix (docs/passes/
convert_tensor_to_tile_ops.md, rule 8, phase 3 and errors): a kernel's In parameter it writes becomes Out when
nothing reads it, InOut when something does; a user's direction is never downgraded; callers' parameters follow up
the call chain (but a root function's declared interface stays); a GM tensor written by both a tile.store (MTE3) and a tensor.write (scalar) is a located error."""

from __future__ import annotations

import pytest

from pypto import ir

from .ctto_forms import converted, prepared

KERNEL = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.DIRECTION[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        BODY
        return o
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], o: CALLER) -> pl.Tensor[[64, 64], pl.FP32]:
        o = self.k(x, o)
        return o
'''
STORE_IN_A_LOOP = '''for j in pl.range(2):
            v = pl.slice(x, [32, 64], [j * 32, 0])
            o = pl.assemble(o, v, [j * 32, 0])'''
READ_THEN_STORE = '''t = pl.slice(o, [32, 64], [0, 0])
        u = pl.add(t, 1.0)
        o = pl.assemble(o, u, [32, 0])'''


def _source(body: str, direction: str = "In", caller: str = "pl.Out") -> str:
    # the caller's declared direction: the machine compares the outputs the source declares
    text = KERNEL.replace("BODY", body).replace("CALLER", f"{caller}[pl.Tensor[[64, 64], pl.FP32]]" if caller
                                                 else "pl.Tensor[[64, 64], pl.FP32]")
    if direction == "In":
        return text.replace("pl.DIRECTION[pl.Tensor[[64, 64], pl.FP32]]", "pl.Tensor[[64, 64], pl.FP32]")
    return text.replace("pl.DIRECTION", direction)


def _directions(program: ir.Program, name: str) -> list[ir.ParamDirection]:
    return list(program.get_function(name).param_directions)


def test_a_written_parameter_nothing_reads_becomes_out() -> None:
    after = converted(_source(STORE_IN_A_LOOP))
    assert _directions(after, "k") == [ir.ParamDirection.In, ir.ParamDirection.Out]


def test_a_written_parameter_the_kernel_reads_becomes_inout() -> None:
    after = converted(_source(READ_THEN_STORE, caller="pl.InOut"))
    assert _directions(after, "k") == [ir.ParamDirection.In, ir.ParamDirection.InOut]


CHAIN = KERNEL.replace('''    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], o: CALLER) -> pl.Tensor[[64, 64], pl.FP32]:
        o = self.k(x, o)
        return o
''', '''    @pl.function(type=pl.FunctionType.Orchestration)
    def mid(self, x: pl.Tensor[[64, 64], pl.FP32], o: CALLER) -> pl.Tensor[[64, 64], pl.FP32]:
        o = self.k(x, o)
        return o
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o = self.mid(x, o)
        return o
''')


@pytest.mark.parametrize(("body", "caller", "want"), [
    (STORE_IN_A_LOOP, "", ir.ParamDirection.Out),
    (READ_THEN_STORE, "", ir.ParamDirection.InOut),
    (READ_THEN_STORE, "pl.Out", ir.ParamDirection.InOut),  # an Out passed to an InOut slot is InOut
    (STORE_IN_A_LOOP, "pl.InOut", ir.ParamDirection.InOut),  # never downgraded
])
def test_a_called_caller_follows_the_kernels_direction(body: str, caller: str, want: ir.ParamDirection) -> None:
    # Structure only: `mid` declares another direction than it gets, so its outputs differ by design.
    text = CHAIN.replace("BODY", body).replace(
        "o: CALLER", f"o: {caller}[pl.Tensor[[64, 64], pl.FP32]]" if caller else "o: pl.Tensor[[64, 64], pl.FP32]")
    text = text.replace("pl.DIRECTION[pl.Tensor[[64, 64], pl.FP32]]", "pl.Tensor[[64, 64], pl.FP32]")
    after = converted(text, run=False)
    assert _directions(after, "mid") == [ir.ParamDirection.In, want]


def test_a_root_functions_declared_directions_stay() -> None:
    # main is the program's interface: the outputs its caller reads are the ones it declares (PyPTO upgrades them)
    after = converted(_source(STORE_IN_A_LOOP, caller=""), run=False)
    assert _directions(after, "k")[1] is ir.ParamDirection.Out
    assert _directions(after, "main") == [ir.ParamDirection.In, ir.ParamDirection.In]


def test_a_declared_direction_is_never_downgraded() -> None:
    after = converted(_source(STORE_IN_A_LOOP, "pl.InOut", caller="pl.InOut"))
    assert _directions(after, "k") == [ir.ParamDirection.In, ir.ParamDirection.InOut]


def test_a_parameter_only_read_stays_in() -> None:
    after = converted(_source("o = pl.assemble(o, pl.slice(x, [32, 64], [0, 0]), [0, 0])"))
    assert _directions(after, "k")[0] is ir.ParamDirection.In


MIXED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16], pl.INT32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]) -> pl.Tensor[[4, 16], pl.INT32]:
        t = pl.slice(x, [1, 16], [0, 0])
        o = pl.assemble(o, t, [0, 0])
        pl.tensor.write(o, [1, 3], pl.const(5, pl.INT32))
        return o
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.INT32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]) -> pl.Tensor[[4, 16], pl.INT32]:
        o = self.k(x, o)
        return o
'''


def test_mte3_and_scalar_stores_into_one_tensor_are_a_located_error() -> None:
    from pypto import passes
    with pytest.raises(ValueError, match=r"GM tensor 'o__ssa_v0' mixes MTE3 and scalar stores in one InCore function "
                                         r"'k'.*Write it one way") as caught:
        passes.convert_tensor_to_tile_ops()(prepared(MIXED))
    assert "pl.tensor.write(o, [1, 3]" in str(caught.value)  # located at the first scalar write


def test_scalar_writes_alone_are_fine() -> None:
    after = converted(MIXED.replace("        o = pl.assemble(o, t, [0, 0])\n", ""), run_backends=False)
    assert _directions(after, "k")[1] is ir.ParamDirection.Out
