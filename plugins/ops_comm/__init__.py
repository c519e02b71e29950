"""Communication ops PyPTO names (pld.system.notify / wait, pld.tile.put)."""
