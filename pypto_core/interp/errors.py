"""Errors of the reference machine."""

from __future__ import annotations

from pypto_core.errors import UserError, VerificationError
from pypto_core.passes.manager import PassVerificationError


class MachineError(UserError):
    """The program cannot be executed as written: an op without semantics, a read of an undefined
    variable, an out-of-bounds window, a cross-core op outside a core group, ... Carries the span of
    the op being executed when known."""


class DeadlockError(MachineError):
    """Every coroutine of a core group is blocked; the message says which op waits on which FIFO."""


class CheckRunError(VerificationError):
    """The check-run instrument could not execute the program it was given."""


class PassCheckRunError(CheckRunError, PassVerificationError):
    """A pass changed what the program computes (or left it unable to run): a bug in that pass.

    A PassVerificationError, so that the pass manager and the CLI report it as the pass's fault."""

    def __init__(self, message: str, pass_name: str, owner: str = "", output: str = "",
                 index: tuple[int, ...] | None = None) -> None:
        PassVerificationError.__init__(self, message, pass_name, owner)
        self.pass_name = pass_name
        self.output = output
        self.index = index
