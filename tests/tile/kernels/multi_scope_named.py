# Two named scopes (name_hint) with tensor work between them at orchestration level.
import pypto.language as pl


@pl.program
class MultiScopeNamed:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="prologue"):
            t = pl.sub(x, y)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="epilogue"):
            r = pl.add(pl.exp(t), y)
            out = pl.assemble(out, r, [0, 0])
        return out
