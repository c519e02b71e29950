"""The Pass base class (docs/architecture.md, the pass manager).

A pass is a class with a `name` (`ConvertToSSA`), a `factory_name` (`convert_to_ssa`, the name used in
`pypto.toml`, `--pipeline` and `passes.<factory_name>()`), its required / produced / invalidated
properties, a typed options model, and `run(program, ctx) -> Program`. Calling a pass object runs it
with the instruments of the active PassContext.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from pypto_core.passes.properties import IRPropertySet

if TYPE_CHECKING:
    from pypto_core.ir.function import Program
    from pypto_core.passes.context import PassContext


class PassOptions(BaseModel):
    """Typed options of a pass; unknown option names are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Pass:
    name: ClassVar[str] = ""
    factory_name: ClassVar[str] = ""
    required: ClassVar[tuple[str, ...]] = ()
    produced: ClassVar[tuple[str, ...]] = ()
    invalidated: ClassVar[tuple[str, ...]] = ()
    Options: ClassVar[type[PassOptions]] = PassOptions
    description: ClassVar[str] = ""
    # The pass may reorder floating-point accumulations (split a K loop): check-run compares its outputs at
    # the reordered-accumulation tolerance (pypto_core/interp/tolerance.py).
    reorders_accumulation: ClassVar[bool] = False

    def __init__(self, options: PassOptions | None = None, **kwargs: Any) -> None:
        if options is not None and kwargs:
            raise TypeError(f"{self.name}: give either an options object or keyword options, not both")
        if options is None:
            try:
                options = self.Options(**kwargs)
            except ValidationError as exc:
                raise ValueError(f"invalid options for pass {self.factory_name or self.name}: "
                                 f"{_validation_text(exc)}") from None
        self.options = options

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own_run = cls.__dict__.get("run")
        if own_run is not None and not getattr(own_run, "_accepts_no_ctx", False):
            cls.run = _ctx_optional(own_run)  # type: ignore[method-assign]

    # -- the transform --------------------------------------------------------------------------
    def run(self, program: Program, ctx: PassContext) -> Program:
        """The transform. Subclasses override it; `p.run(program)` alone behaves like `p(program)`."""
        raise NotImplementedError(f"pass {self.name} does not implement run()")

    def __call__(self, program: Program) -> Program:
        from pypto_core.passes.context import run_pass

        return run_pass(self, program)

    # -- PyPTO's accessors (docs/architecture.md, the pass manager) ----------------------------------------------------------
    def get_name(self) -> str:
        return self.name

    def get_required_properties(self) -> IRPropertySet:
        return IRPropertySet(self.required)

    def get_produced_properties(self) -> IRPropertySet:
        return IRPropertySet(self.produced)

    def get_invalidated_properties(self) -> IRPropertySet:
        return IRPropertySet(self.invalidated)

    def __repr__(self) -> str:
        opts = self.options.model_dump()
        return f"{self.factory_name or self.name}({', '.join(f'{k}={v!r}' for k, v in opts.items())})"


def _ctx_optional(run: Any) -> Any:
    """PyPTO calls `p.run(program)` (docs/architecture.md, the pass manager); without a context that means "run with instruments"."""

    @functools.wraps(run)
    def run_with_optional_ctx(self: Pass, program: Program, ctx: PassContext | None = None) -> Program:
        if ctx is None:
            from pypto_core.passes.context import run_pass

            return run_pass(self, program)
        return run(self, program, ctx)

    run_with_optional_ctx._accepts_no_ctx = True  # type: ignore[attr-defined]
    return run_with_optional_ctx


def _validation_text(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', '')}")
    return "; ".join(parts)
