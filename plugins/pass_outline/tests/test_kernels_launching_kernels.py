"""A kernel calling a function that launches kernels of its own.

The case: a `pl.split_aiv` region (a kernel once outlined) calls an Opaque helper with a pl.at scope; the
helper becomes an Orchestration function launching a mixed kernel, run from the region's AIV lanes, and, left
alone, the machine finds the cube's pipe setup on an AIV lane after ExpandMixedKernel. Rule
(plugins/pass_outline/launches.py): a call from a kernel to a function that launches kernels, directly or
through host-side functions that call one, is a located ValueError at OutlineIncoreScopes.
"""

from __future__ import annotations

import pytest

from pypto_core.errors import UserError
from tests.fuzz.oracle import check_text

from .helpers import outline

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n"
HELPER = '''    @pl.function
    def helper(self, a: pl.Tensor[[64, 16], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 16], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.matmul(w, a)
        return y

'''
MAIN = ("    @pl.function\n    def main(self, a: pl.Tensor[[64, 16], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16])"
        " -> pl.Tensor[[64, 16], pl.FP16]:\n")

FROM_A_REGION = HEAD + HELPER + MAIN + '''        for _a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = self.helper(a, w)
        return h
'''

FROM_A_SCOPE = HEAD + HELPER + MAIN + '''        with pl.at(level=pl.Level.CORE_GROUP):
            h = self.helper(a, w)
        return h
'''

THROUGH_A_HOST_FUNCTION = HEAD + HELPER + '''    @pl.function
    def middle(self, a: pl.Tensor[[64, 16], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16]) -> pl.Tensor[[64, 16], pl.FP16]:
        m = self.helper(a, w)
        return m

''' + MAIN + '''        with pl.at(level=pl.Level.CORE_GROUP):
            h = self.middle(a, w)
        return h
'''


@pytest.mark.parametrize("src, callee, line", [(FROM_A_REGION, "helper", 14), (FROM_A_SCOPE, "helper", 14),
                                               (THROUGH_A_HOST_FUNCTION, "middle", 19)],
                         ids=["from-a-region", "from-a-scope", "through-a-host-function"])
def test_a_kernel_calling_a_kernel_launcher_is_located(src: str, callee: str, line: int) -> None:
    with pytest.raises(UserError, match=rf"this call of '{callee}' is inside a kernel .* launches kernels of its "
                                        rf"own .* call '{callee}' outside the scope or region") as caught:
        outline(src, run=False)
    assert caught.value.span.begin_line == line  # type: ignore[attr-defined]


def test_a_launcher_called_from_a_region_is_rejected_not_miscompiled() -> None:
    outcome = check_text(FROM_A_REGION, "Ascend950")
    assert outcome.finding is None, outcome.finding
    assert outcome.status == "pipeline-rejected", outcome


def test_calling_the_launcher_from_the_orchestration_compiles() -> None:
    src = HEAD + HELPER + MAIN + "        h = self.helper(a, w)\n        return h\n"
    outline(src)
    assert check_text(src, "Ascend910B").status == "compiled"
