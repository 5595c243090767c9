"""The data folder holds a person's conversations and memories: its folders
are owner-only (0700) and its files owner-only (0600) from the moment each
is made. A chmod afterwards would leave a moment when another user of the
machine could open them, and a process umask is shared by every thread and
library, so the modes are given at creation instead.
"""

from __future__ import annotations

import os
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dir(path: Path) -> Path:
    """Make `path` and its missing parents owner-only folders. Folders that
    exist already keep their mode: they may be the person's own choice."""
    missing: list[Path] = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            pass  # made a moment ago by another thread; is_dir() below says if it is usable
    if not path.is_dir():
        raise NotADirectoryError(f"{path} is not a folder")
    return path


def private_opener(path: str, flags: int) -> int:
    """For open(..., opener=private_opener): a file it creates is owner-only."""
    return os.open(path, flags, PRIVATE_FILE)


def private_file(path: Path) -> Path:
    """Create `path` empty and owner-only unless it exists, so a program
    that opens it afterwards (SQLite, a log handler) keeps that mode."""
    private_dir(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        pass
    return path
