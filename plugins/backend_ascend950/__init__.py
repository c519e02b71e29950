"""The Ascend950 (a5) backend plugin."""
