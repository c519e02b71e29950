"""An in-process plugin with small passes whose properties the manager tests can reason about.

`ToyMarked` holds when every function carries attr toy_mark; `toy_mark` produces it, `toy_unmark`
invalidates it, `toy_liar` claims it without doing the work, `toy_needs_mark` requires it.
"""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto_core.passes.pass_base import Pass, PassOptions
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.plugins import hookimpl


def _functions(program: Any) -> list[ir.Function]:
    return list(program.functions.values())


def verify_toy_marked(program: Any) -> list[Diagnostic]:
    return [error("ToyMarked", f"function '{f.name}' is not marked", f.span)
            for f in _functions(program) if not f.attrs.get("toy_mark")]


def _with_attrs(program: Any, update: dict[str, Any], drop: tuple[str, ...] = ()) -> Any:
    funcs = []
    for f in _functions(program):
        attrs = {k: v for k, v in f.attrs.items() if k not in drop}
        attrs.update(update)
        funcs.append(f.with_fields(attrs=attrs))
    return program.with_functions(funcs)


class ToyMarkOptions(PassOptions):
    label: str = "on"
    times: int = 1


class ToyMark(Pass):
    name = "ToyMark"
    factory_name = "toy_mark"
    produced = ("ToyMarked",)
    Options = ToyMarkOptions

    def run(self, program: Any, ctx: Any) -> Any:
        return _with_attrs(program, {"toy_mark": self.options.label * self.options.times})


class ToyUnmark(Pass):
    name = "ToyUnmark"
    factory_name = "toy_unmark"
    invalidated = ("ToyMarked",)

    def run(self, program: Any, ctx: Any) -> Any:
        return _with_attrs(program, {}, drop=("toy_mark",))


class ToyLiar(Pass):
    """Claims ToyMarked but leaves the program as it is."""

    name = "ToyLiar"
    factory_name = "toy_liar"
    produced = ("ToyMarked",)

    def run(self, program: Any, ctx: Any) -> Any:
        return program


class ToySSALiar(Pass):
    """Claims SSAForm (a property PassPipeline verifies) but leaves the program as it is."""

    name = "ToySSALiar"
    factory_name = "toy_ssa_liar"
    produced = ("SSAForm",)

    def run(self, program: Any, ctx: Any) -> Any:
        return program


class ToyNeedsMark(Pass):
    name = "ToyNeedsMark"
    factory_name = "toy_needs_mark"
    required = ("ToyMarked",)

    def run(self, program: Any, ctx: Any) -> Any:
        return program


class ToyNeedsOrphan(Pass):
    """Requires a property no registered pass produces."""

    name = "ToyNeedsOrphan"
    factory_name = "toy_needs_orphan"
    required = ("ToyOrphan",)

    def run(self, program: Any, ctx: Any) -> Any:
        return program


class ToyBreakTypes(Pass):
    """Gives each function's first return type a valid region beyond its shape: the result violates the
    structural TypeChecked (and nothing else)."""

    name = "ToyBreakTypes"
    factory_name = "toy_break_types"

    def run(self, program: Any, ctx: Any) -> Any:
        funcs = []
        for f in _functions(program):
            first = f.return_types[0]
            assert isinstance(first, ir.TensorType)
            wide = [ir.ConstInt(2 * d.value, ir.DataType.INDEX) for d in first.shape]
            bad = ir.TensorType(first.shape, first.dtype, tensor_view=ir.TensorView(valid_shape=wide))
            funcs.append(f.with_fields(return_types=(bad, *f.return_types[1:])))
        return program.with_functions(funcs)


class ToyReject(Pass):
    name = "ToyReject"
    factory_name = "toy_reject"

    def run(self, program: Any, ctx: Any) -> Any:
        raise ValueError("toy_reject: this program uses a feature the toy pass does not support")


class ToyCrash(Pass):
    name = "ToyCrash"
    factory_name = "toy_crash"

    def run(self, program: Any, ctx: Any) -> Any:
        return {}["missing"]


class ToyBackendProbe(Pass):
    """Records which backend the PassContext offers (passes read it from there)."""

    name = "ToyBackendProbe"
    factory_name = "toy_backend_probe"
    seen: list[str] = []

    def run(self, program: Any, ctx: Any) -> Any:
        ToyBackendProbe.seen.append(ctx.backend.name)
        return program


ALL_PASSES = (ToyMark, ToyUnmark, ToyLiar, ToySSALiar, ToyNeedsMark, ToyNeedsOrphan, ToyBreakTypes, ToyReject, ToyCrash,
              ToyBackendProbe)


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    registry.register_property("ToyMarked", verify_toy_marked, "every function carries attr toy_mark")
    registry.register_property("ToyOrphan", None, "declared, never produced")


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    for cls in ALL_PASSES:
        registry.register_pass(cls)


@hookimpl
def pypto_register_pipelines(registry: Any) -> None:
    registry.register_pipeline("toy_marking", ["toy_mark", "toy_needs_mark"])
    registry.register_pipeline("toy_dangling", ["toy_mark", "toy_no_such_pass"])
