"""Named pipeline presets (`[pipeline] preset = "default"`)."""
