"""`passes.l0_tile_chooser`: PyPTO's API surface, its validation messages, and the tiles and cycle costs of
every worked configuration of the reference (docs/passes/auto_tile_matmul_l0.md, the chooser)."""

from __future__ import annotations

import pytest

from pypto import passes
from pypto.pypto_core import passes as core_passes

chooser = passes.l0_tile_chooser
Stationarity = chooser.Stationarity
OS, A_STAT, B_STAT = Stationarity.OutputStationary, Stationarity.AStationary, Stationarity.BStationary


def config_910b(m: int, n: int, k: int, **changes: object) -> object:
    """The reference's 910B-like configuration: l0a = l0b = 64 KB, l0c = 128 KB, everything else default."""
    cfg = chooser.L0TileConfig()
    cfg.M, cfg.N, cfg.K = m, n, k
    cfg.l0a_bytes = cfg.l0b_bytes = 65536
    cfg.l0c_bytes = 131072
    for name, value in changes.items():
        setattr(cfg, name, value)
    return cfg


GATES = {"allow_a_stationary": True, "allow_b_stationary": True}
ALL_GATES = {**GATES, "allow_double_buffer_c": True}

# (M, N, K, changes) -> ((m, n, k), stationarity, dbC, cost)
REFERENCE = [
    ((16, 256, 512, {}), ((16, 256, 64), OS, False, 3499)),
    ((128, 128, 256, {}), ((128, 128, 128), OS, False, 2006)),
    ((512, 512, 512, {}), ((128, 256, 64), OS, False, 44310)),
    ((512, 512, 512, GATES), ((128, 256, 64), OS, False, 44310)),
    ((512, 512, 512, ALL_GATES), ((32, 64, 512), B_STAT, True, 39520)),
    ((128, 512, 64, ALL_GATES), ((64, 256, 64), OS, True, 3155)),
    ((128, 128, 464, {"allow_k_boundary": True}), ((128, 128, 96), OS, False, 3040)),
    ((128, 128, 464, {}), ((128, 128, 16), OS, False, 3199)),
    ((64, 64, 512, {"bytes_a": 4, "bytes_b": 4}), ((64, 64, 128), OS, False, 2994)),
    ((16, 1152, 256, {"bytes_a": 1, "bytes_b": 1, "l0c_align_m": 32}), ((16, 768, 32), OS, False, 4844)),
    ((16, 64, 2048, {"c_read": True}), ((16, 64, 256), OS, False, 3810)),
    ((128, 256, 128, {"max_n": 64}), ((128, 64, 128), OS, False, 4042)),
    ((8, 64, 64, {"allow_padding": True}), ((16, 64, 64), OS, False, 339)),
    ((64, 64, 64, {}), ((64, 64, 64), OS, False, 608)),
]


@pytest.mark.parametrize("problem, expected", REFERENCE, ids=[f"{p[0]}x{p[1]}x{p[2]}-{sorted(p[3])}"
                                                             for p, _ in REFERENCE])
def test_the_reference_configurations_give_pyptos_tile_and_cost(problem, expected):
    m, n, k, changes = problem
    result = chooser.choose_l0_tile(config_910b(m, n, k, **changes))
    tile, stationarity, dbc, cost = expected
    assert ((result.m, result.n, result.k), result.stationarity, result.double_buffer_c,
            result.estimated_cost_cycles) == (tile, stationarity, dbc, cost)


def test_traffic_padded_volume_and_held_operand_of_the_reference():
    first = chooser.choose_l0_tile(config_910b(16, 256, 512))
    assert (first.estimated_traffic_bytes, first.padded_compute_volume) == (294912, 2097152)
    assert first.perf_hint == ""
    big = chooser.choose_l0_tile(config_910b(512, 512, 512))
    assert big.os_holds_a is False
    assert chooser.choose_l0_tile(config_910b(16, 64, 2048, c_read=True)).estimated_traffic_bytes == 335872


def test_c_read_changes_the_traffic_but_not_the_cost():
    plain = chooser.choose_l0_tile(config_910b(16, 64, 2048))
    read = chooser.choose_l0_tile(config_910b(16, 64, 2048, c_read=True))
    assert plain.estimated_cost_cycles == read.estimated_cost_cycles
    assert read.estimated_traffic_bytes - plain.estimated_traffic_bytes == 4 * 16 * 64


def test_padding_sets_the_perf_hint():
    result = chooser.choose_l0_tile(config_910b(8, 64, 64, allow_padding=True))
    assert result.perf_hint == ("Matmul shape (M=8, N=64, K=64) is below the cube minimum tile dimension 16; tile "
                                "shape padded up to (16, 64, 64). Consider reshaping or fusing with adjacent ops "
                                "to amortise the padding.")


def test_without_the_k_boundary_only_divisors_of_k_are_tried():
    result = chooser.choose_l0_tile(config_910b(128, 128, 464))
    assert 464 % result.k == 0
    boundary = chooser.choose_l0_tile(config_910b(128, 128, 464, allow_k_boundary=True))
    assert boundary.k == 96 and 464 % boundary.k != 0


def test_a_bigger_l0c_or_faster_drain_changes_the_choice():
    """The choice is a function of the capacities and the cost figures only: a backend's own data moves it."""
    base = chooser.choose_l0_tile(config_910b(256, 256, 256))
    wide = chooser.choose_l0_tile(config_910b(256, 256, 256, l0c_bytes=262144))
    assert (base.m, base.n) != (wide.m, wide.n) or base.estimated_cost_cycles != wide.estimated_cost_cycles
    slow = chooser.choose_l0_tile(config_910b(256, 256, 256, bw_a=10.0, bw_b=10.0))
    assert slow.estimated_cost_cycles > base.estimated_cost_cycles


def test_every_chosen_tile_fits_its_l0_buffers():
    for (m, n, k, changes), _ in REFERENCE:
        cfg = config_910b(m, n, k, **changes)
        r = chooser.choose_l0_tile(cfg)
        db_a = 1 if r.stationarity is A_STAT else 2
        db_b = 1 if r.stationarity is B_STAT else 2
        db_c = 2 if r.double_buffer_c else 1
        assert r.m * r.k * cfg.bytes_a * db_a <= cfg.l0a_bytes
        assert r.k * r.n * cfg.bytes_b * db_b <= cfg.l0b_bytes
        rows = -(-r.m // cfg.l0c_align_m) * cfg.l0c_align_m
        assert rows * r.n * cfg.bytes_c * db_c <= cfg.l0c_bytes


# -- validation -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("changes, message", [
    ({"M": 0}, "M, N, K must all be positive (got 0, 64, 64)"),
    ({"l0a_bytes": 0}, "L0 capacities must be positive"),
    ({"bytes_c": 0}, "element byte sizes must be positive"),
    ({"min_k": 0}, "minimum tile dimensions must be positive"),
    ({"max_n": 8}, "max_n must be zero (unbounded) or at least min_n (got max_n=8, min_n=16)"),
    ({"max_n": 32, "max_n_pipelined": 64}, "max_n_pipelined must be non-negative and no greater than max_n"),
    ({"max_n_pipelined": 32, "max_n_nested_pipelined": 64},
     "max_n_nested_pipelined must be non-negative and no greater than max_n_pipelined"),
    ({"l0c_align_m": 0}, "tile and physical L0C alignments must be positive"),
    ({"bw_b": 0.0}, "roofline bandwidths must be strictly positive"),
    ({"drain_c0_bytes": 0}, "drain params must be non-negative with a positive fractal C0"),
    ({"M": 8}, "allow_padding=false but M=8 is below the cube minimum tile dimension 16. The pass should skip "
               "this matmul with a perf hint instead of calling the chooser."),
    ({"N": 8}, "allow_padding=false but N=8 is below the cube minimum tile dimension 16"),
    ({"K": 8}, "allow_padding=false but K=8 is below the cube minimum tile dimension 16"),
    ({"l0a_bytes": 512}, "L0a capacity 128 elements is too small to fit the minimum tile (16 x 16)"),
    ({"l0b_bytes": 512}, "L0b capacity 128 elements is too small to fit the minimum tile (16 x 16)"),
    ({"l0c_bytes": 512}, "L0c capacity 128 elements is too small to fit the minimum physical tile footprint "
                         "(256 elements for logical 16 x 16)"),
])
def test_an_invalid_configuration_is_a_value_error_with_pyptos_message(changes, message):
    cfg = config_910b(64, 64, 64, **changes)
    with pytest.raises(ValueError) as info:
        chooser.choose_l0_tile(cfg)
    assert str(info.value).startswith("ChooseL0Tile: " + message), str(info.value)


def test_the_checks_come_in_pyptos_order():
    with pytest.raises(ValueError, match="M, N, K must all be positive"):
        chooser.choose_l0_tile(config_910b(0, 64, 64, l0a_bytes=0))
    with pytest.raises(ValueError, match="L0 capacities must be positive"):
        chooser.choose_l0_tile(config_910b(64, 64, 64, l0a_bytes=0, bytes_a=0))


def test_no_legal_tile_is_reported():
    # K = 24: no multiple of 16 divides it, and the K boundary is not allowed.
    with pytest.raises(ValueError, match=r"^ChooseL0Tile: no legal \(m, n, k\) tile found for M=16, N=16, K=24"):
        chooser.choose_l0_tile(config_910b(16, 16, 24))
    assert chooser.choose_l0_tile(config_910b(16, 16, 24, allow_padding=True)).k == 32


# -- the API surface ----------------------------------------------------------------------------------------------

def test_the_module_is_the_same_through_both_spellings_of_passes():
    assert core_passes.l0_tile_chooser is passes.l0_tile_chooser
    assert {"L0TileConfig", "L0TileResult", "Stationarity", "choose_l0_tile"} <= set(dir(chooser))


def test_stationarity_members_and_values():
    assert [(s.name, int(s)) for s in Stationarity] == [("OutputStationary", 0), ("AStationary", 1),
                                                        ("BStationary", 2)]
    assert str(Stationarity.AStationary) == "Stationarity.AStationary"


@pytest.mark.parametrize("stationarity", [chooser.Stationarity.AStationary, chooser.Stationarity.BStationary])
def test_stationarity_resolves_in_a_parameter_list(stationarity):
    assert isinstance(stationarity, passes.l0_tile_chooser.Stationarity)


def test_config_defaults():
    cfg = chooser.L0TileConfig()
    assert (cfg.M, cfg.N, cfg.K, cfg.l0a_bytes, cfg.l0b_bytes, cfg.l0c_bytes) == (0,) * 6
    assert (cfg.bytes_a, cfg.bytes_b, cfg.bytes_c) == (2, 2, 4)
    assert (cfg.min_m, cfg.min_n, cfg.min_k, cfg.align_m, cfg.align_n, cfg.align_k, cfg.l0c_align_m) == (16,) * 7
    assert (cfg.box_align_m, cfg.box_align_n) == (1, 1)
    assert (cfg.max_n, cfg.max_n_pipelined, cfg.max_n_nested_pipelined) == (0, 0, 0)
    assert not any((cfg.allow_a_stationary, cfg.allow_b_stationary, cfg.allow_double_buffer_c, cfg.c_read,
                    cfg.allow_padding, cfg.allow_k_boundary))
    assert (cfg.bw_a, cfg.bw_b, cfg.bw_drain) == (129.7, 85.4, 118.0)
    assert (cfg.drain_fixed_cycles, cfg.drain_row_cycles, cfg.drain_penalty_cycles) == (164.0, 4.45, 2.6)
    assert (cfg.drain_c0_bytes, cfg.mad_head, cfg.mad_k_fractal_bytes, cfg.mad_fp32_passes) == (32, 21, 32, 2)
    assert isinstance(cfg.bw_a, float) and isinstance(cfg.mad_head, int)


def test_config_fields_are_typed_and_closed():
    cfg = chooser.L0TileConfig()
    cfg.bw_a = 200  # an int for a float field is accepted
    assert cfg.bw_a == 200.0 and isinstance(cfg.bw_a, float)
    with pytest.raises(TypeError):
        cfg.M = 1.5
    with pytest.raises(AttributeError):
        cfg.no_such_field = 1


def test_the_result_is_read_only_and_has_no_constructor():
    result = chooser.choose_l0_tile(config_910b(64, 64, 64))
    assert (result.m, result.n, result.k, result.stationarity, result.os_holds_a, result.double_buffer_c) == \
        (64, 64, 64, OS, True, False)
    assert isinstance(result.estimated_traffic_bytes, int) and isinstance(result.padded_compute_volume, int)
    with pytest.raises(AttributeError):
        result.m = 16
    with pytest.raises(TypeError):
        chooser.L0TileResult()
