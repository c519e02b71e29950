"""Communication ops the seeds name (pld.system.notify / wait, pld.tile.put)."""
