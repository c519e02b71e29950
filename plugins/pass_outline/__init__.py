"""The pass_outline plugin: OutlineIncoreScopes and OutlineClusterScopes (docs/passes/outline_incore_scopes.md,
outline_cluster_scopes.md)."""
