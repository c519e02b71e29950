"""The property sets PyPTO names (docs/architecture.md, the pass manager)."""

from __future__ import annotations

from pypto_core.passes.properties import IRPropertySet

# What `run_verifier()` checks when no properties are given.
DEFAULT_VERIFY = ("SSAForm", "TypeChecked", "NoNestedCalls", "BreakContinueValid", "NoRedundantBlocks",
                  "UseAfterDef", "OutParamNotShadowed", "NoNestedInCore", "TileTypeCoherence", "ArrayNotEscaped")

# Properties every pass must preserve: VerificationInstrument checks them before and after each pass.
STRUCTURAL = ("TypeChecked", "BreakContinueValid", "NoRedundantBlocks", "UseAfterDef", "OutParamNotShadowed",
              "NoNestedInCore", "InOutUseValid", "PipelineLoopValid", "ArrayNotEscaped",
              "ManualDepsOnSubmitOnly", "AtomicAddDtypeValid")

# Properties PassPipeline.run verifies when a pass produces them.
VERIFIED = ("SSAForm", "TypeChecked", "MixedKernelExpanded", "AllocatedMemoryAddr", "BreakContinueValid",
            "NoRedundantBlocks", "InOutUseValid", "CallDirectionsResolved", "ManualDepsOnSubmitOnly",
            "ReturnParamsExplicit", "AivSplitValid", "HardSyncallOccupancyValid", "IterArgCarryClassified",
            "RuntimeScopesMaterialized", "AccToGmStoreValid", "AtomicAddDtypeValid", "TileMemoryInferred")


def get_default_verify_properties() -> IRPropertySet:
    return IRPropertySet(DEFAULT_VERIFY)


def get_structural_properties() -> IRPropertySet:
    return IRPropertySet(STRUCTURAL)


def get_verified_properties() -> IRPropertySet:
    return IRPropertySet(VERIFIED)
