"""pet: a local-first AI pet companion."""

__version__ = "0.1.0"
