"""The pass_canonicalize plugin: CtrlFlowTransform and Simplify (docs/passes/ctrl_flow_transform.md, simplify.md)."""
