"""Entry point of the ops_comm plugin (group `pypto.plugins`, name `ops_comm`)."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.ops_comm.dsl import DSL
from pypto_plugins.ops_comm.ops import OPDEFS
from pypto_plugins.ops_comm.semantics import EVALUATORS


@hookimpl
def pypto_register_ops(registry: Any) -> None:
    for opdef in OPDEFS:
        registry.register_op(opdef)
        registry.register_semantics(opdef.name, EVALUATORS[opdef.name])
    for name, fn in DSL.items():
        registry.register_dsl(name, fn)
