"""The DSL's module names: the one place the core knows how user programs import the DSL.

Programs write `import pypto.language as pl` (and `pypto.language.distributed as pld`, `import pypto`).
The core provides those namespaces itself -- `pypto_core.language.pl`, `.pld` and `.dsl_root` -- and the
`pypto` package re-exports them, so the core parses without importing `pypto`. A namespace is recognised by
its mark, the module attribute `__pypto_dsl__` ("pl", "pld" or "root"), never by identity or by the
package a program imported it from: `pypto.language` and `pypto_core.language.pl` are the same namespace.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

DSL_MARK = "__pypto_dsl__"
# The package name user programs import the DSL from, and the core package that provides it.
DSL_PACKAGE = "pypto"
CORE_PACKAGE = "pypto_core"
# The modules `import` / `from ... import` in a program read as text resolve to (docs/dsl.md, the text path).
_TEXT_IMPORTS = {
    "pypto": "pypto_core.language.dsl_root",
    "pypto.language": "pypto_core.language.pl",
    "pypto.language.distributed": "pypto_core.language.pld",
}


def dsl_mark(value: Any) -> str | None:
    """"pl", "pld" or "root" for a DSL namespace module, else None."""
    if not isinstance(value, types.ModuleType):
        return None
    mark = getattr(value, DSL_MARK, None)
    return mark if isinstance(mark, str) else None


def is_dsl_package_name(module_name: str) -> bool:
    """A module name a program may import the DSL from (`pypto`, `pypto.language`, `pypto_core.ir`, ...)."""
    return module_name.split(".")[0] in (DSL_PACKAGE, CORE_PACKAGE)


def is_own_module(module: types.ModuleType) -> bool:
    """A module of pypto (or of its core): attribute access on it is safe to follow while reading constants."""
    return dsl_mark(module) is not None or is_dsl_package_name(module.__name__)


def is_own_class(cls: type) -> bool:
    """A class defined by pypto's core (DataType, the enums): a name for `X.member`, not a value itself."""
    return is_dsl_package_name(cls.__module__)


def import_for_text(name: str) -> types.ModuleType | None:
    """The module `import <name>` binds in a program read as text, or None when the text path does not
    import it: the DSL namespaces, and any other `pypto.<rest>` as the core's `pypto_core.<rest>`."""
    target = _TEXT_IMPORTS.get(name)
    if target is None:
        if not is_dsl_package_name(name):
            return None
        target = CORE_PACKAGE + name[len(DSL_PACKAGE):] if name.split(".")[0] == DSL_PACKAGE else name
    try:
        return importlib.import_module(target)
    except ImportError:
        return None
