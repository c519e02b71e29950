"""Print / parse round-trip cases of the elementwise_extra DSL names (merged into test_dsl_roundtrip.CASES).

DSL name -> (body, the op call the printed text must contain). The body may use the parameters of
test_dsl_roundtrip.PARAMS (v, w: [16, 128] FP32 tiles; vi, wi: INT32 tiles; a, b: [64, 128] FP32
tensors; ai: INT32 tensor; f: FP32 scalar; s: INT32 scalar).
"""

from __future__ import annotations

_MASK = "m = pl.tile.cmp(v, w)"
_TMP = "t = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)"

CASES: dict[str, tuple[str, str]] = {
    # -- PyPTO's names for pypto's old spellings (aliases build PyPTO's ops) --
    "tile.maxs": ("x = pl.tile.maxs(v, 2.0)", "pl.tile.maximums(v, 2.0)"),
    "tile.mins": ("x = pl.tile.mins(v, f)", "pl.tile.minimums(v, f)"),
    "tensor.maxs": ("x = pl.tensor.maxs(a, 0.0)", "pl.tensor.maximum(a, 0.0)"),
    "tensor.mins": ("x = pl.tensor.mins(a, f)", "pl.tensor.minimum(a, f)"),
    "tensor.maximums": ("x = pl.tensor.maximums(a, 1.0)", "pl.tensor.maximum(a, 1.0)"),
    "tensor.minimums": ("x = pl.tensor.minimums(a, 1.0)", "pl.tensor.minimum(a, 1.0)"),
    "maxs": ("x = pl.maxs(v, 2.0)\ny = pl.maxs(a, f)", "pl.tensor.maximum(a, f)"),
    "mins": ("x = pl.mins(v, 2.0)\ny = pl.mins(a, f)", "pl.tile.minimums(v, 2.0)"),
    "maximums": ("x = pl.maximums(v, 2.0)\ny = pl.maximums(a, f)", "pl.tensor.maximum(a, f)"),
    "minimums": ("x = pl.minimums(v, 2.0)\ny = pl.minimums(a, f)", "pl.tile.minimums(v, 2.0)"),
    "tensor.maximum": ("x = pl.tensor.maximum(a, b)\ny = pl.tensor.maximum(a, 0.5)", "pl.tensor.maximum(a, 0.5)"),
    "tensor.minimum": ("x = pl.tensor.minimum(a, b)\ny = pl.tensor.minimum(a, f)", "pl.tensor.minimum(a, f)"),
    "maximum": ("x = pl.maximum(v, w)\ny = pl.maximum(a, b)\nz = pl.maximum(a, 0.0)", "pl.tensor.maximum(a, 0.0)"),
    "minimum": ("x = pl.minimum(v, 1.0)\ny = pl.minimum(a, b)", "pl.tile.minimums(v, 1.0)"),
    "tensor.relu": ("x = pl.tensor.relu(a)", "pl.tensor.maximum(a, 0.0)"),
    "relu": ("x = pl.relu(v)\ny = pl.relu(a)\nz = pl.relu(ai)", "pl.tensor.maximum(ai, pl.const(0, pl.INT32))"),
    # rem / rems are tile ops (the divisor's sign); on tensors they are errors naming pl.fmod (ERROR_ONLY)
    "rem": ("x = pl.rem(v, w)", "pl.tile.rem(v, w)"),
    "rems": ("x = pl.rems(vi, 3)", "pl.tile.rems(vi, pl.const(3, pl.INT32))"),
    # -- signature gaps: the scratch of rem / xor, high_precision, cmp_type --
    "tile.rem": ("x = pl.tile.rem(v, w, w)\ny = pl.tile.rem(v, w)", "pl.tile.rem(v, w, w)"),
    "tile.rems": ("x = pl.tile.rems(v, 2.0, w)", "pl.tile.rems(v, 2.0, w)"),
    "tile.xor": ("x = pl.tile.xor(vi, wi, wi)\ny = pl.tile.xor(vi, 3, wi)", "pl.tile.xors(vi, pl.const(3, pl.INT32), wi)"),
    "tile.xors": ("x = pl.tile.xors(vi, s, wi)", "pl.tile.xors(vi, s, wi)"),
    "xor": ("x = pl.xor(vi, wi, tmp=wi)\ny = pl.xor(ai, ai)", "pl.tile.xor(vi, wi, wi)"),
    "tile.div": ("x = pl.tile.div(v, w, high_precision=True)\ny = pl.tile.div(v, 2.0, high_precision=True)",
                 "pl.tile.div(v, w, high_precision=True)"),
    "tensor.div": ("x = pl.tensor.div(a, b, high_precision=True)", "pl.tensor.div(a, b, high_precision=True)"),
    "div": ("x = pl.div(v, w)\ny = pl.div(a, b, high_precision=True)\nz = pl.div(v, w, True)",
            "pl.tensor.div(a, b, high_precision=True)"),
    "tile.log": ("x = pl.tile.log(v, high_precision=True)\ny = pl.tile.log(w)", "pl.tile.log(v, high_precision=True)"),
    "tensor.log": ("x = pl.tensor.log(a, True)", "pl.tensor.log(a, high_precision=True)"),
    "log": ("x = pl.log(v)\ny = pl.log(a, high_precision=True)", "pl.tensor.log(a, high_precision=True)"),
    "tensor.recip": ("x = pl.tensor.recip(a, high_precision=True)", "pl.tensor.recip(a, high_precision=True)"),
    "tensor.rsqrt": ("x = pl.tensor.rsqrt(a, high_precision=True)\ny = pl.tensor.rsqrt(ai)",
                     "pl.tensor.rsqrt(a, high_precision=True)"),
    "rsqrt": ("x = pl.rsqrt(v)\ny = pl.rsqrt(v, w)\nz = pl.rsqrt(a, high_precision=True)",
              "pl.tile.rsqrt(v, w)"),
    "tile.cmp": ("m = pl.tile.cmp(v, w, cmp_type=2)\nn = pl.tile.cmp(v, 0.0, cmp_type='ge')",
                 "pl.tile.cmps(v, 0.0, cmp_type=5)"),
    "tile.cmps": ("m = pl.tile.cmps(v, f, 1)", "pl.tile.cmps(v, f, cmp_type=1)"),
    "tensor.cmp": ("m = pl.tensor.cmp(a, b)\nn = pl.tensor.cmp(a, 1.0, cmp_type=5)", "pl.tensor.cmp(a, 1.0, cmp_type=5)"),
    "tensor.cmps": ("m = pl.tensor.cmps(a, 1.0, cmp_type=5)", "pl.tensor.cmp(a, 1.0, cmp_type=5)"),
    "cmp": ("m = pl.cmp(v, w, cmp_type=3)\nn = pl.cmp(a, b)", "pl.tile.cmp(v, w, cmp_type=3)"),
    "cmps": ("m = pl.cmps(v, 1.0)\nn = pl.cmps(a, f)", "pl.tensor.cmp(a, f, cmp_type=0)"),
    "tile.sel": (f"{_MASK}\nx = pl.tile.sel(m, v, w, w)", "pl.tile.sel(m, v, w, w)"),
    "tile.sels": (f"{_MASK}\nx = pl.tile.sels(m, v, w, 0.0)", "pl.tile.sels(m, v, w, 0.0)"),
    "sel": (f"{_MASK}\n{_TMP}\nx = pl.sel(m, v, w, t)", "pl.tile.sel(m, v, w, t)"),
    # -- new ops --
    **{f"tile.{n}": (f"x = pl.tile.{n}(v, w, v)", f"pl.tile.{n}(v, w, v)") for n in ("addc", "subc")},
    **{n: (f"x = pl.{n}(v, w, w)", f"pl.tile.{n}(v, w, w)") for n in ("addc", "subc")},
    **{f"tile.{n}": (f"x = pl.tile.{n}(v, 2.0, w)", f"pl.tile.{n}(v, 2.0, w)") for n in ("addsc", "subsc")},
    **{n: (f"x = pl.{n}(v, f, w)", f"pl.tile.{n}(v, f, w)") for n in ("addsc", "subsc")},
    "tile.fmod": ("x = pl.tile.fmod(v, w)\ny = pl.tile.fmod(v, 3.0)", "pl.tile.fmods(v, 3.0)"),
    "tile.fmods": ("x = pl.tile.fmods(vi, 3)", "pl.tile.fmods(vi, pl.const(3, pl.INT32))"),
    "tensor.fmod": ("x = pl.tensor.fmod(a, b)\ny = pl.tensor.fmod(a, f)", "pl.tensor.fmods(a, f)"),
    "tensor.fmods": ("x = pl.tensor.fmods(a, 1.5)", "pl.tensor.fmods(a, 1.5)"),
    "fmod": ("x = pl.fmod(v, w)\ny = pl.fmod(a, b)", "pl.tensor.fmod(a, b)"),
    "fmods": ("x = pl.fmods(v, 2.0)\ny = pl.fmods(a, f)", "pl.tile.fmods(v, 2.0)"),
    **{f"tile.{n}": (f"x = pl.tile.{n}(v, w)", f"pl.tile.{n}(v, w)")
       for n in ("part_add", "part_max", "part_min", "part_mul")},
    **{f"tensor.{n}": (f"x = pl.tensor.{n}(a, b)", f"pl.tensor.{n}(a, b)")
       for n in ("part_add", "part_max", "part_min", "part_mul")},
    **{n: (f"x = pl.{n}(v, w)\ny = pl.{n}(a, b)", f"pl.tensor.{n}(a, b)")
       for n in ("part_add", "part_max", "part_min", "part_mul")},
    "tile.prelu": ("x = pl.tile.prelu(v, w, v)", "pl.tile.prelu(v, w, v)"),
    "prelu": ("x = pl.prelu(v, w, w)", "pl.tile.prelu(v, w, w)"),
    "tile.lrelu": ("x = pl.tile.lrelu(v, 0.1)", "pl.tile.lrelu(v, 0.1)"),
    "lrelu": ("x = pl.lrelu(v, f)", "pl.tile.lrelu(v, f)"),
    "tile.expands": ("x = pl.tile.expands(v, 2.0)", "pl.tile.expands(v, 2.0)"),
    "tensor.expands": ("x = pl.tensor.expands(a, f)", "pl.tensor.expands(a, f)"),
    "expands": ("x = pl.expands(vi, 3)\ny = pl.expands(a, 1.0)", "pl.tile.expands(vi, pl.const(3, pl.INT32))"),
}

# DSL names that only explain that PyPTO has no such op (test_elementwise_extra.py checks their errors).
ERROR_ONLY = {"tensor.sel", "tensor.sels", "tensor.rem", "tensor.rems"}
