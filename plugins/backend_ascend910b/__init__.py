"""The Ascend910B (a2a3) backend plugin."""
