"""Which `pl` spellings build each op: `tile.adds` is built by `pl.add`, `pl.adds`, `pl.tile.add` and
`pl.tile.adds` (docs/plugins.md, an op).

A derived builder names its op; a hand-written one chooses between ops in its code. The index reads the op
names a builder's code mentions -- its constants, its closure and the functions it calls, a few levels
deep -- and keeps those that are registered ops; a DSL name that is itself an op name
spells that op. It is for people browsing the ops (`pypto list ops`, the op reference); no pass decides
anything by it.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Any

_DEPTH = 4  # helpers of helpers: deep enough for the bundled builders, bounded for any plugin's
# DSL names under a module of their own: `pld.system.notify` is written with `import
# pypto.language.distributed as pld`, every other name under `pl.`.
_OWN_MODULES = ("pld",)


def spelling(dsl_name: str) -> str:
    """How a program writes a DSL name: `pl.tile.add`, `pld.system.notify`."""
    return dsl_name if dsl_name.split(".", 1)[0] in _OWN_MODULES else f"pl.{dsl_name}"


def _code_strings(code: types.CodeType) -> Iterable[str]:
    stack = [code]
    while stack:
        c = stack.pop()
        for const in c.co_consts:
            if isinstance(const, str):
                yield const
            elif isinstance(const, types.CodeType):
                stack.append(const)


def _code_names(code: types.CodeType) -> Iterable[str]:
    stack = [code]
    while stack:
        c = stack.pop()
        yield from c.co_names
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))


def mentioned_strings(fn: Callable[..., Any], depth: int = _DEPTH, seen: set[int] | None = None) -> set[str]:
    """The strings a function's code mentions: constants, closure cells (an OpDef by its name; a namespace
    constant joined to a closed-over name, as an f-string builds it) and, through the functions it names,
    theirs."""
    seen = seen if seen is not None else set()
    fn = getattr(fn, "__wrapped__", fn)
    if id(fn) in seen or depth < 0:
        return set()
    seen.add(id(fn))
    out: set[str] = set()
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        out.update(_code_strings(code))
        module_globals = getattr(fn, "__globals__", {})
        for name in _code_names(code):
            value = module_globals.get(name)
            if isinstance(value, str):
                out.add(value)
            elif isinstance(value, types.FunctionType):
                out |= mentioned_strings(value, depth - 1, seen)
    prefixes = [x for x in out if x.endswith(".")]  # f"tensor.{name}": a namespace and a closed-over name
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, str):
            out.add(value)
            out.update(prefix + value for prefix in prefixes)
        elif isinstance(getattr(value, "name", None), str):
            out.add(value.name)
        elif isinstance(value, types.FunctionType):
            out |= mentioned_strings(value, depth - 1, seen)
    return out


def dsl_spellings() -> dict[str, list[str]]:
    """Each registered op -> the spellings (`pl.add`, `pld.system.notify`) whose builder can build it, sorted."""
    from pypto_core.ops.registry import op_registry

    registry = op_registry()
    ops = set(registry.ops)
    found: dict[str, set[str]] = {}
    for name, entry in registry.dsl.items():
        built = {s for s in mentioned_strings(entry.function) if s in ops}
        if name in ops:
            built.add(name)
        for op in built:
            found.setdefault(op, set()).add(spelling(name))
    return {op: sorted(spellings) for op, spellings in found.items()}


__all__ = ["dsl_spellings", "mentioned_strings", "spelling"]
