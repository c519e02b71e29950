"""The pass_ssa plugin: ConvertToSSA and NormalizeStmtStructure (docs/passes/convert_to_ssa.md, normalize_stmt_structure.md)."""
