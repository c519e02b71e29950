"""Property verifiers and their diagnostics (docs/architecture.md, properties and verifiers).

A verifier takes a Program and returns Diagnostics; it never raises for findings. Properties
without a verifier are "declared but unverified" (`pypto list properties` says so).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pypto_core.errors import InternalError, VerificationError
from pypto_core.ir.span import Span
from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.plugins.lazy import plugins_loaded
from pypto_core.plugins.named_registry import NamedRegistry


class DiagnosticSeverity(enum.Enum):
    Error = 0
    Warning = 1
    PerfHint = 2


@dataclass
class Diagnostic:
    severity: DiagnosticSeverity
    rule_name: str
    message: str
    span: Span = field(default_factory=Span.unknown)
    error_code: int = 0
    hint_code: str = ""

    def __str__(self) -> str:
        return f"[{self.severity.name}] {self.rule_name}: {self.message} ({self.span.to_string()})"


Verifier = Callable[[Any], list[Diagnostic]]


@dataclass
class PropertyInfo:
    name: str
    verifier: Verifier | None
    doc: str


PROPERTY_INFO: NamedRegistry[PropertyInfo] = NamedRegistry("IR property")


def register_property(name: str, verifier: Verifier | None = None, doc: str = "", owner: str = "<core>") -> None:
    IRProperty.define(name, doc)
    PROPERTY_INFO.register(name, PropertyInfo(name, verifier, doc), owner)


def property_info(prop: IRProperty | str) -> PropertyInfo | None:
    plugins_loaded()
    return PROPERTY_INFO.get(str(prop))


def error(rule: str, message: str, span: Span | None = None) -> Diagnostic:
    return Diagnostic(DiagnosticSeverity.Error, rule, message, span or Span.unknown())


def warning(rule: str, message: str, span: Span | None = None) -> Diagnostic:
    return Diagnostic(DiagnosticSeverity.Warning, rule, message, span or Span.unknown())


def _as_set(props: Any) -> IRPropertySet:
    if isinstance(props, IRPropertySet):
        return props
    if isinstance(props, (IRProperty, str)):
        return IRPropertySet([props])
    return IRPropertySet(props)


class PropertyVerifierRegistry:
    """Runs the registered verifiers of a set of properties."""

    @staticmethod
    def verify(props: Any, program: Any) -> list[Diagnostic]:
        plugins_loaded()
        out: list[Diagnostic] = []
        for prop in _as_set(props):
            info = PROPERTY_INFO.get(prop.name)
            if info is None or info.verifier is None:
                continue
            try:
                found = info.verifier(program)
            except Exception as exc:  # verifiers must not raise: that is a compiler bug
                raise InternalError(f"the verifier of property {prop.name} raised "
                                    f"{type(exc).__name__}: {exc}") from exc
            out.extend(found)
        return out

    @staticmethod
    def verify_or_throw(props: Any, program: Any) -> None:
        verify_or_raise(props, program)

    @staticmethod
    def generate_report(diags: Sequence[Diagnostic]) -> str:
        errors = sum(1 for d in diags if d.severity is DiagnosticSeverity.Error)
        warnings = sum(1 for d in diags if d.severity is DiagnosticSeverity.Warning)
        lines = ["IR Verification Report", "======================",
                 f"Total diagnostics: {len(diags)} ({errors} errors, {warnings} warnings)", ""]
        for i, d in enumerate(diags, 1):
            lines += [f"[{i}] {d.severity.name.upper()} - {d.rule_name}", f"  Message: {d.message}",
                      f"  Location: {d.span.to_string()}", f"  Error Code: {d.error_code}", ""]
        lines.append(f"Status: FAILED ({errors} error(s) found)" if errors else "Status: PASSED")
        located = render_diagnostics(diags)
        return "\n".join(lines) + (f"\n\n{located}" if located else "")

    @staticmethod
    def has_verifier(prop: IRProperty | str) -> bool:
        info = property_info(prop)
        return info is not None and info.verifier is not None


def render_diagnostics(diags: Sequence[Diagnostic]) -> str:
    """Where the diagnostics whose span is known are, in the located form of every other pypto message
    (`[i] SEVERITY - Rule`, `--> file:line:col`, the source line and a caret), numbered as in the report;
    "" when no span is known.

    `generate_report` keeps PyPTO's report layout (docs/architecture.md, properties and verifiers) and appends this."""
    from pypto_core.diagnostics import render_located

    parts = [render_located(f"[{i}] {d.severity.name.upper()} - {d.rule_name}", d.span)
             for i, d in enumerate(diags, 1) if d.span.is_valid()]
    return "\n".join(["Source locations:", *parts]) if parts else ""


def errors_only(diags: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The Error diagnostics among `diags` (warnings and performance hints left out)."""
    return [d for d in diags if d.severity is DiagnosticSeverity.Error]


def error_findings(props: Any, program: Any) -> list[Diagnostic]:
    """The Error diagnostics the verifiers of `props` find on `program`."""
    if not props:
        return []
    return errors_only(PropertyVerifierRegistry.verify(sorted(props) if isinstance(props, set) else props, program))


def verify_or_raise(props: Any, program: Any, headline: str = "") -> None:
    """Raise pypto.Error (VerificationError) with `headline` and the report when a verifier of `props`
    finds an Error on `program`: the one way every check that verifies properties fails."""
    if _as_set(props).empty():
        return
    diags = PropertyVerifierRegistry.verify(props, program)
    if errors_only(diags):
        report = PropertyVerifierRegistry.generate_report(diags)
        raise VerificationError(f"{headline}:\n{report}" if headline else report)


def verify_properties(props: Any, program: Any, pass_name: str = "") -> None:
    """Raise pypto.Error (VerificationError) with the report when any property fails."""
    where = f" (checked for pass '{pass_name}')" if pass_name else ""
    verify_or_raise(props, program, f"Property verification failed{where}")


def verified_names(props: Iterable[IRProperty]) -> list[str]:
    return [p.name for p in props if PropertyVerifierRegistry.has_verifier(p)]
