# Two CORE_GROUP scopes in one function: the second reads the first one's Out tensor.
import pypto.language as pl


@pl.program
class MultiScopeTwo:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
             tmp: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.add(a, b)
            tmp = pl.assemble(tmp, s, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            e = pl.exp(tmp)
            out = pl.assemble(out, pl.mul(e, a), [0, 0])
        return tmp, out
