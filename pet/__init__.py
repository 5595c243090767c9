"""pet: a local-first AI pet companion."""

from pet.telemetry import switch_off as _switch_off

# First, before any dependency loads: some read their switch only once, as they load.
_switch_off()

__version__ = "0.1.0"
