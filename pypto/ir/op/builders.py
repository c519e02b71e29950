"""The IR builders an op namespace's plugins registered, as `pypto.ir.op.<ns>_ops.<name>`.

A builder called without `span` gets the caller's line (as in PyPTO, where span defaults to the caller location), so a
pass's error about IR a test built by hand points at the line that built it. The DSL parser calls the registered
functions directly with its own spans.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import Any

from pypto_core.ir.span import Span

_WRAPPED: dict[Callable[..., Any], Callable[..., Any]] = {}


def lookup(namespace: str, name: str) -> Callable[..., Any]:
    from pypto_core.ops.registry import op_registry

    table = op_registry().builders.get(namespace, {})
    fn = table.get(name) or table.get(name.rstrip("_"))
    if fn is None:
        raise AttributeError(f"no {namespace} builder '{name}' is registered (is the op plugin loaded?)")
    wrapped = _WRAPPED.get(fn)
    if wrapped is None:
        wrapped = _WRAPPED[fn] = _with_caller_span(fn)
    return wrapped


def _with_caller_span(fn: Callable[..., Any]) -> Callable[..., Any]:
    try:
        # A builder registered through dsl_entry accepts anything; its target has the real signature.
        signature = inspect.signature(getattr(fn, "dsl_target", fn))
    except (TypeError, ValueError):
        return fn
    if "span" not in signature.parameters:
        return fn

    @functools.wraps(fn)
    def build(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return fn(*args, **kwargs)  # the builder reports the bad call itself
        if bound.arguments.get("span") is None:
            caller = sys._getframe(1)
            bound.arguments["span"] = Span(caller.f_code.co_filename, caller.f_lineno, 1)
        return fn(*bound.args, **bound.kwargs)

    return build
