"""The error classes every part of pypto raises (docs/dsl.md, errors; docs/dsl.md, errors)."""

from __future__ import annotations


class Error(Exception):
    """A pypto error that is not a plain user ValueError: verification failures and the like."""


class VerificationError(Error):
    """IR verification found errors (docs/dsl.md, errors: catch it as `pypto.Error`)."""


class InternalError(RuntimeError):
    """A compiler invariant broke: a bug in pypto or in a plugin, never a user mistake."""


class UserError(ValueError):
    """A program or configuration a user can fix. Carries the source span when one is known."""

    def __init__(self, message: str, span: object | None = None) -> None:
        self.message = message
        self.span = span
        super().__init__(self._render())

    def _render(self) -> str:
        from pypto_core.diagnostics import render_located

        return render_located(self.message, self.span)


def internal_check(condition: object, message: str) -> None:
    """Raise InternalError when an invariant does not hold."""
    if not condition:
        raise InternalError(message)
