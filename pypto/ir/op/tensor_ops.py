"""IR builders of the `tensor` namespace, looked up in the op registry (filled by plugins); builders.py says how."""

from typing import Any

from pypto.ir.op.builders import lookup


def __getattr__(name: str) -> Any:
    return lookup("tensor", name)
