"""The MixedKernelExpanded verifier rule by rule (docs/passes/expand_mixed_kernel.md, the verifier), on AIC /
AIV functions written by hand: pop memory, setup presence before the first transfer, coverage by direction,
buffer counts, initialize_pipe operands, and tpop / tfree pairing per block -- all Errors."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto_core.passes.verifier_registry import DiagnosticSeverity
from pypto_plugins.pass_split.verifiers.mixed_kernel_expanded import verify_mixed_kernel_expanded

SIG = "(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]])"
V2C_SETUP = '''        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='b', size=2048, base=-1)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=1024, slot_num=2)
'''


def aic(name: str, body: str) -> list[str]:
    src = (f"import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIC)\n"
           f"    def {name}{SIG}:\n{body}")
    diags = verify_mixed_kernel_expanded(pl.parse(src))
    assert all(d.severity is DiagnosticSeverity.Error for d in diags)
    return [d.message for d in diags]


GOOD = V2C_SETUP + '''        m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
        l: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(m, target_memory=pl.Mem.Left)
        pl.system.tfree_to_aiv(m)
'''


def test_a_well_formed_aic_function_passes():
    assert aic("c_good", GOOD) == []


def test_an_aic_pop_must_land_in_mat():
    found = aic("c_left", V2C_SETUP + '''        l: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.tpop_from_aiv(split=0)
        pl.system.tfree_to_aiv(l)
''')
    assert found == ["AIC function 'c_left' requires tile.tpop_from_aiv result in MemorySpace::Mat, got "
                     "MemorySpace::Left"]


def test_the_setup_must_come_before_the_first_statement_holding_a_transfer():
    late = GOOD.replace(V2C_SETUP, "") + V2C_SETUP
    found = aic("c_late", late)
    assert "AIC function 'c_late' uses cross-core tile ops but has no 'system.aic_initialize_pipe' call" in found
    assert "AIC function 'c_late' uses V2C cross-core ops but has no 'system.reserve_buffer'" in found
    nested = "        for i in pl.range(2):\n" + "".join("    " + line + "\n" for line in GOOD.replace(
        V2C_SETUP, "").splitlines()) + V2C_SETUP
    assert "AIC function 'c_late' uses cross-core tile ops but has no 'system.aic_initialize_pipe' call" in \
        aic("c_late", nested)


def test_a_c2v_push_needs_the_import_on_the_aic():
    found = aic("c_push", V2C_SETUP + '''        m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        pl.tile.tpush_to_aiv(m, split=0)
''')
    assert "AIC function 'c_push' uses C2V cross-core ops but has no 'system.import_peer_buffer'" in found


def test_coverage_is_by_direction_not_by_pipe_id():
    assert aic("c_id", GOOD.replace("tpop_from_aiv(split=0)", "tpop_from_aiv(split=0, id=1)")
               .replace("tfree_to_aiv(m)", "tfree_to_aiv(m, id=1)")) == []


def test_buffer_counts_follow_the_initialized_directions():
    two = '''        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='b', size=2048, base=-1)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=1024, slot_num=2, id=0)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=1024, slot_num=2, id=1)
'''
    found = aic("c_twopipes", two)
    assert found == ["Function 'c_twopipes' has fewer 'system.reserve_buffer' calls than initialized pipe "
                     "directions require"]
    extra = GOOD + "        imp: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='x', peer_func='p')\n"
    assert aic("c_more", extra) == ["Function 'c_more' has more 'system.import_peer_buffer' calls than "
                                    "initialized pipe directions require"]


@pytest.mark.parametrize("init, message", [
    ("pl.system.aic_initialize_pipe(buf, buf, dir_mask=2, slot_size=1024, slot_num=2)",
     "does not set the C2V direction up (dir_mask=2), so its C2V operand must be the placeholder"),
    ("pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), pl.const(0, pl.INT32), dir_mask=2, slot_size=1024, "
     "slot_num=2)", "sets the V2C direction up (dir_mask=2) but its V2C operand is the placeholder 0"),
])
def test_initialize_pipe_operands_are_checked(init: str, message: str):
    body = GOOD.replace("pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), buf, dir_mask=2, slot_size=1024, "
                        "slot_num=2)", init)
    found = aic("c_init", body)
    assert any(message in m for m in found), found


def test_a_pop_left_outstanding_is_an_error_and_a_free_needs_an_outstanding_pop():
    found = aic("c_nofree", GOOD.replace("        pl.system.tfree_to_aiv(m)\n", ""))
    assert found == ["AIC function 'c_nofree' uses tile.tpop_from_aiv but has no matching 'system.tfree_to_aiv' "
                     "call"]
    twice = aic("c_twice", GOOD + "        pl.system.tfree_to_aiv(m)\n")
    assert twice == ["AIC function 'c_twice' has 'system.tfree_to_aiv' without a matching outstanding tpop on the "
                     "same tile value"]
    alias = aic("c_alias", GOOD.replace("pl.system.tfree_to_aiv(m)", "pl.system.tfree_to_aiv(l)"))
    assert "AIC function 'c_alias' has 'system.tfree_to_aiv' without a matching outstanding tpop on the same tile " \
           "value" in alias


def test_pairing_is_per_block():
    in_loop = V2C_SETUP + '''        for i in pl.range(2):
            m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
        pl.system.tfree_to_aiv(m)
'''
    found = aic("c_block", in_loop)
    assert "AIC function 'c_block' uses tile.tpop_from_aiv but has no matching 'system.tfree_to_aiv' call" in found
    assert "AIC function 'c_block' has 'system.tfree_to_aiv' without a matching outstanding tpop on the same " \
           "tile value" in found
    freed_inside = V2C_SETUP + '''        for i in pl.range(2):
            m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
            pl.system.tfree_to_aiv(m)
'''
    assert aic("c_block", freed_inside) == []


@pytest.mark.parametrize("kwargs, message", [({"slot_size": 0}, "slot_size must be positive, got 0"),
                                             ({"dir_mask": 4}, "dir_mask must be 1 (C2V), 2 (V2C) or 3 (both), got 4")])
def test_setup_kwargs_the_op_would_reject_are_reported_in_built_ir(kwargs: dict, message: str):
    # The op's own checks reject these when a call is built; IR built around them (with_fields) still
    # reaches the verifier.
    from pypto import ir

    src = (f"import pypto.language as pl\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.AIC)\n"
           f"    def c_kw{SIG}:\n{GOOD}")
    program = pl.parse(src)

    class Edit(ir.IRMutator):
        def visit_call(self, call):
            if call.op.name == "system.aic_initialize_pipe":
                return call.with_fields(kwargs={**call.kwargs, **kwargs})
            return super().visit_call(call)

    func = program.get_function("c_kw")
    edited = func.with_fields(body=Edit().visit_stmt(func.body))
    found = [d.message for d in verify_mixed_kernel_expanded(edited)]
    assert any(message in m for m in found), found
