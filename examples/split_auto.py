# A mixed kernel split across the two AIV lanes with pl.split: the vector work (add, sub, exp) is
# halved by rows, the matmul stays whole on the cube:
#   pypto compile --pipeline tile,lower_auto_vector_split examples/split_auto.py
#   pypto run --pipeline tile,lower_auto_vector_split --verify check-run examples/split_auto.py
# and on into an AIC + AIV + Group kernel with cross-core transfers:
#   pypto run --pipeline tile,lower_auto_vector_split,expand_mixed_kernel --verify check-run examples/split_auto.py
import pypto.language as pl


@pl.program
class SplitAuto:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
             output: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            a_plus_b = pl.add(a, b)
            sub = pl.sub(a, b)
            out = pl.matmul(a_plus_b, sub)
            y = pl.exp(out)
            output = pl.assemble(output, y, [0, 0])
        return output
