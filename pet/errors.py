"""The exception tree. Errors are typed by who caused them.

    PetError
    ├── ConfigError          bad settings or config file (the person fixes it)
    ├── PersonaError         a persona file is missing a key or has a bad value
    ├── StorageError         the database cannot be opened or written
    │   └── ExportFileError      an export file cannot be written, read or understood
    ├── BrainError           infrastructure: the model could not be asked
    │   ├── BrainUnavailable     nothing answers at the configured address
    │   ├── BrainTimeout         the server accepted but did not answer in time
    │   ├── ModelNotFound        the server does not have the configured model
    │   └── BrainResponseError   the server answered with an error or garbage
    └── ToolError            raised inside a tool; becomes a tool result the
        └── ToolArgumentError    model sees, never an exception out of a turn

Messages say what to do, not only what went wrong.
"""

from __future__ import annotations


class PetError(Exception):
    """Base of every error this package raises on purpose."""


class ConfigError(PetError):
    pass


class PersonaError(PetError):
    pass


class StorageError(PetError):
    pass


class ExportFileError(StorageError):
    pass


class BrainError(PetError):
    pass


class BrainUnavailable(BrainError):
    pass


class BrainTimeout(BrainError):
    pass


class ModelNotFound(BrainError):
    pass


class BrainResponseError(BrainError):
    pass


class ToolError(PetError):
    """`zh`: the same message in Chinese, which the registry returns when
    the person writes Chinese (str(error) stays the English one)."""

    def __init__(self, message: str, *, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh

    def worded(self, language: str) -> str:
        return self.zh if language == "zh" and self.zh else str(self)


class ToolArgumentError(ToolError):
    pass
