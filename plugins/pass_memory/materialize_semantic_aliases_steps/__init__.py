"""The steps of MaterializeSemanticAliases (docs/passes/materialize_semantic_aliases.md), one module each."""
