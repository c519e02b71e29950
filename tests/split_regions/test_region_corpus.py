"""A corpus of `pl.split_aiv` region programs (tests/split_regions/programs/*.py) through the `tile` preset
plus `lower_auto_vector_split`, on both backends (round trip + check-run + the verifiers after every pass).

Each program's first line says its body form (`# form: none | full | per-lane — ...`), which decides
what the region path must have done (plugins/pass_split/vector_split/region_path.py):
* every program computes the same outputs before and after (seeds 0 and 1);
* every region is still a `SplitAivScopeStmt` of its InCore kernel (the wrapper is kept, same modes, same
  count as in the source), and the kernel carries attr `split_aiv`;
* NONE regions are passed through untouched;
* full-width UP_DOWN / LEFT_RIGHT regions load half of what they loaded before the pass on the split
  axis (rows for UP_DOWN, columns for LEFT_RIGHT; ceil-halved when ragged; a broadcast operand of
  extent 1 on that axis stays whole);
* per-lane UP_DOWN / LEFT_RIGHT regions keep their loads as written (never halved a second time).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from pypto_core.config import parse_config_text, resolve_config
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, SplitMode
from pypto_core.ir.function import Function, Program
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import free_vars_in_order
from pypto_core.ir.visitor import IRVisitor
from pypto_core.language.api import parse
from pypto_core.language.printer import python_print
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.instruments.callback import CallbackInstrument
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.manager import PassManager

from ..tile.test_tile_corpus import assert_same_results

PROGRAM_DIR = Path(__file__).resolve().parent / "programs"
PROGRAMS = sorted(PROGRAM_DIR.glob("*.py"))
BACKENDS = ("Ascend910B", "Ascend950")
FORMS = ("none", "full", "per-lane")
MIN_PROGRAMS = 24
MIN_PER_FORM = 6
LAVS = "lower_auto_vector_split"
FORM_MARKER = re.compile(r"^# form: (none|full|per-lane) — \S")


def form_of(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    found = FORM_MARKER.match(first)
    assert found, f"{path.name}: the first line must be '# form: none | full | per-lane — <what it exercises>'"
    return found.group(1)


@dataclass(frozen=True)
class Compiled:
    source: Program
    before_split: Program  # after the tile preset, the input of lower_auto_vector_split
    after: Program


@cache
def compile_program(path: Path, backend: str) -> Compiled:
    loaded = parse_config_text(f'backend = "{backend}"\nverify = "check-run"\n[pipeline]\n'
                               f'passes = ["tile", "{LAVS}"]\n', "<split regions>")
    resolved = resolve_config(loaded)
    seen: dict[str, Program] = {}

    def before_pass(p, program) -> None:
        if getattr(p, "factory_name", "") == LAVS:
            seen["before_split"] = program

    manager = PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                          instruments=[make_roundtrip_instrument(), CallbackInstrument(before_pass=before_pass)])
    source = parse(path.read_text(encoding="utf-8"), str(path))
    after = manager.run(source)
    assert "before_split" in seen, f"{LAVS} did not run"
    return Compiled(source, seen["before_split"], after)


# -- what the regions hold ----------------------------------------------------------------------------------

def regions_of(node: Function | S.Stmt) -> list[S.SplitAivScopeStmt]:
    found: list[S.SplitAivScopeStmt] = []

    class Walk(IRVisitor):
        def visit_scope_stmt(self, s: S.ScopeStmt) -> None:
            if isinstance(s, S.SplitAivScopeStmt):
                found.append(s)
            super().visit_scope_stmt(s)

    walk = Walk()
    if isinstance(node, Function):
        walk.visit_function(node)
    else:
        walk.visit_stmt(node)
    return found


def is_load(value: E.Expr) -> bool:
    """A GM -> tile transfer (`traits.gm_transfer` producing a tile): a tile.load."""
    opdef = opdef_of(value) if isinstance(value, E.Call) else None
    return opdef is not None and opdef.traits.gm_transfer and isinstance(value.type, TileType)


@dataclass(frozen=True, eq=False)  # Vars compare by identity (`==` on an Expr builds an Eq node)
class Load:
    var: E.Var
    tensor: str
    shape: tuple[int, ...]


def loads_in(stmt: S.Stmt) -> list[Load]:
    found: list[Load] = []

    class Walk(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            if is_load(s.value):
                tensor = s.value.args[0]  # type: ignore[union-attr]
                shape = tuple(int(d.value) for d in s.var.type.shape)  # type: ignore[union-attr]
                found.append(Load(s.var, getattr(tensor, "name_hint", "?"), shape))
            super().visit_assign_stmt(s)

    Walk().visit_stmt(stmt)
    return found


def loads_for(func: Function, region: S.SplitAivScopeStmt) -> list[Load]:
    """The loads a region's vector work reads: its own, and those made outside it whose tiles it uses."""
    inside = loads_in(region)
    used = {id(v) for v in free_vars_in_order([region.body])}
    own = {id(ld.var) for ld in inside}
    outside = [ld for ld in loads_in(func.body) if id(ld.var) in used and id(ld.var) not in own]
    return inside + outside


def incore_functions(program: Program) -> list[Function]:
    return [f for f in program.functions.values() if f.func_type is FunctionType.InCore]


def split_axis(mode: SplitMode) -> int:
    return 0 if mode is SplitMode.UP_DOWN else 1


def check_full_width_region(name: str, before: list[Load], after: list[Load], mode: SplitMode) -> list[str]:
    axis = split_axis(mode)
    problems: list[str] = []
    halved = 0
    for load in after:
        candidates = [b for b in before if b.tensor == load.tensor and len(b.shape) == len(load.shape)]
        if not candidates:
            problems.append(f"{name}: {load.var.name_hint} loads {load.tensor}, which the region did not read before")
            continue
        wants = set()
        for b in candidates:
            want = list(b.shape)
            want[axis] = b.shape[axis] if b.shape[axis] == 1 else (b.shape[axis] + 1) // 2
            wants.add(tuple(want))
        if load.shape not in wants:
            problems.append(f"{name}: {load.var.name_hint} = load of {load.tensor} is {list(load.shape)}, want one of "
                            f"{sorted(list(w) for w in wants)} (half of {[list(b.shape) for b in candidates]} on "
                            f"dim {axis})")
        halved += any(load.shape[axis] < b.shape[axis] for b in candidates)
    if not halved:
        problems.append(f"{name}: no load of this full-width {mode.name} region was halved on dim {axis}")
    return problems


def region_problems(compiled: Compiled, form: str) -> list[str]:
    problems: list[str] = []
    source_regions = sum(len(regions_of(f)) for f in compiled.source.functions.values())
    after_regions = sum(len(regions_of(f)) for f in incore_functions(compiled.after))
    if after_regions != source_regions:
        problems.append(f"the source has {source_regions} pl.split_aiv regions, the lowered InCore functions "
                        f"{after_regions}")
    for func in incore_functions(compiled.after):
        after = regions_of(func)
        if not after:
            continue
        if func.attrs.get("split_aiv") is not True:
            problems.append(f"{func.name}: has regions but no attr split_aiv ({dict(func.attrs)})")
        pre_func = next((f for f in incore_functions(compiled.before_split) if f.name == func.name), None)
        if pre_func is None:
            problems.append(f"{func.name}: not found before {LAVS}")
            continue
        before = regions_of(pre_func)
        modes_before = [SplitMode(int(r.split)).name for r in before]
        modes_after = [SplitMode(int(r.split)).name for r in after]
        if modes_before != modes_after:
            problems.append(f"{func.name}: region modes {modes_before} before {LAVS}, {modes_after} after")
            continue
        for k, (pre, post) in enumerate(zip(before, after)):
            name = f"{func.name} region {k} ({SplitMode(int(post.split)).name})"
            mode = SplitMode(int(post.split))
            if mode is SplitMode.NONE:
                if python_print(pre) != python_print(post):
                    problems.append(f"{name}: a task-parallel region was changed:\n{python_print(post)}")
            elif form == "full":
                problems += check_full_width_region(name, loads_for(pre_func, pre), loads_in(post), mode)
            elif form == "per-lane":
                shapes_before = [(ld.tensor, ld.shape) for ld in loads_in(pre)]
                shapes_after = [(ld.tensor, ld.shape) for ld in loads_in(post)]
                if shapes_before != shapes_after:
                    problems.append(f"{name}: a per-lane region's loads changed from {shapes_before} to "
                                    f"{shapes_after} (halved a second time?)")
    return problems


# -- the tests ----------------------------------------------------------------------------------------------

def test_the_corpus_has_enough_programs_of_every_form():
    forms = [form_of(p) for p in PROGRAMS]
    assert len(PROGRAMS) >= MIN_PROGRAMS, f"only {len(PROGRAMS)} programs in {PROGRAM_DIR}"
    counts = {f: forms.count(f) for f in FORMS}
    assert all(n >= MIN_PER_FORM for n in counts.values()), f"programs per form: {counts}"


def test_every_program_has_a_named_core_group_scope_with_a_region():
    for path in PROGRAMS:
        text = path.read_text(encoding="utf-8")
        assert "pl.at(level=pl.Level.CORE_GROUP" in text and "name_hint=" in text, path.name
        assert "pl.split_aiv(2, mode=pl.SplitMode." in text, path.name


# Defects this corpus found, still open (strict: a fix makes the xfail fail, so drop it then).
KNOWN_DEFECTS: dict[str, str] = {}


def _program_param(path: Path):
    reason = KNOWN_DEFECTS.get(path.stem)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", [_program_param(p) for p in PROGRAMS])
def test_region_program(path: Path, backend: str):
    form = form_of(path)
    compiled = compile_program(path, backend)
    assert incore_functions(compiled.after), "no InCore function after outlining"
    assert_same_results(compiled.source, compiled.after, backend)
    problems = region_problems(compiled, form)
    assert not problems, "\n".join(problems)
