"""Entry point of the pass_outline plugin: OutlineHierarchyScopes, OutlineIncoreScopes, OutlineClusterScopes."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_outline.outline_cluster_scopes import OutlineClusterScopes, verify_cluster_outlined
from pypto_plugins.pass_outline.outline_hierarchy_scopes import (
    OutlineHierarchyScopes,
    verify_hierarchy_outlined,
    verify_orchestration_references,
)
from pypto_plugins.pass_outline.outline_incore_scopes import OutlineIncoreScopes


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(OutlineHierarchyScopes)
    registry.register_pass(OutlineIncoreScopes)
    registry.register_pass(OutlineClusterScopes)


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    registry.register_property("ClusterOutlined", verify_cluster_outlined, "no pl.cluster scope is left in any function")
    registry.register_property("HierarchyOutlined", verify_hierarchy_outlined,
                               "no Opaque function holds a Hierarchy scope (pl.at with a level other than CORE_GROUP)")
    registry.register_property("OrchestrationReferencesResolved", verify_orchestration_references,
                               "every function an Orchestration function calls is in the program")
