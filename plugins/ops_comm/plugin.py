"""Entry point of the ops_comm plugin (its ops land with issue 9)."""
