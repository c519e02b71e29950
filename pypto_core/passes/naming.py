"""How messages name a pass: the name users write, its class-level name, and the plugin it comes from."""

from __future__ import annotations

from typing import Any

UNREGISTERED = "<unregistered>"


def pass_label(p: Any) -> str:
    """The name users write for a pass: its pipeline (factory) name (`convert_to_ssa`), else its class-level
    name (`ConvertToSSA`), else its class's name."""
    factory = getattr(p, "factory_name", "")
    return str(factory) if factory else pass_class_name(p)


def pass_class_name(p: Any) -> str:
    """The class-level name PyPTO's `get_name()` gives (`ConvertToSSA`)."""
    get = getattr(p, "get_name", None)
    return str((get() if callable(get) else getattr(p, "name", "")) or type(p).__name__)


def pass_origin(p: Any) -> tuple[str, str]:
    """(plugin, distribution) that registered the pass's class; `<unregistered>` for a pass no plugin
    registered (one built in a test or a notebook)."""
    from pypto_core.passes.registry import PASSES
    from pypto_core.plugins.host import plugin_host

    owner = PASSES.owner(getattr(p, "factory_name", "") or "") or UNREGISTERED
    return owner, plugin_host().distribution_of(owner)


def describe_pass(p: Any) -> str:
    """`'convert_to_ssa' (ConvertToSSA, from plugin 'pass_ssa' / pypto 0.1.0)`: the pipeline name, the
    class and the plugin; an unregistered pass is named as it was written."""
    label = pass_label(p)
    cls_name = pass_class_name(p)
    owner, dist = pass_origin(p)
    details = [cls_name] if cls_name and cls_name != label else []
    if owner != UNREGISTERED:
        details.append(f"from plugin '{owner}'" + (f" / {dist}" if dist else ""))
    return f"'{label}'" + (f" ({', '.join(details)})" if details else "")
