"""The pass_prefix plugin: InlineFunctions, UnrollLoops and FlattenCallExpr, the passes of PyPTO's default
pipeline around convert_to_ssa (docs/passes/inline_functions.md, unroll_loops.md, flatten_call_expr.md)."""
