"""The data folder holds a person's conversations and memories: its folders
are owner-only (0700) and its files owner-only (0600) from the moment each
is made. A chmod afterwards would leave a moment when another user of the
machine could open them, and a process umask is shared by every thread and
library, so the modes are given at creation instead.
"""

from __future__ import annotations

import os
import stat
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


#: what the pet keeps in its home (files and folders, the latter with all
#: they hold); the person's own files (the workspace, anything else put
#: there, a home pointed at a folder they use) are left as they are
PET_ENTRIES = ("config.toml", "auth.json", "logs", "exports", "models", "personas", "tls", "plugins", "uploads")


def tighten(home: Path, database: Path | None = None) -> list[Path]:
    """Take group and other access away from an existing home made by an
    older release (or under a loose umask): the home, its database files
    and the pet's own entries (PET_ENTRIES). Symbolic links are not
    followed. Returns the paths changed."""
    targets: list[Path] = [home]
    for name in PET_ENTRIES:
        entry = home / name
        if entry.is_dir() and not entry.is_symlink():
            targets.append(entry)
            targets += entry.rglob("*")
        else:
            targets.append(entry)
    if database is not None:
        targets += [database.with_name(database.name + end) for end in ("", "-wal", "-shm", "-journal")]
    changed = []
    for path in targets:
        try:
            mode = path.lstat().st_mode
        except OSError:
            continue  # absent, or gone meanwhile
        if stat.S_ISLNK(mode) or not mode & 0o077:
            continue
        try:
            path.chmod(stat.S_IMODE(mode) & ~0o077)
        except OSError:
            continue  # another user's file: left for the person to see to
        changed.append(path)
    return changed


#: uploads (voice clips, import files) older than this are deleted at start
UPLOAD_DAYS = 1


def sweep(folder: Path, older_than_seconds: float, now: float | None = None) -> int:
    """Delete the files under `folder` not changed for `older_than_seconds`
    (and the folders that leaves empty); returns how many files went."""
    import time

    limit = (time.time() if now is None else now) - older_than_seconds
    gone = 0
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        try:
            if path.is_symlink() or path.is_file():
                if path.lstat().st_mtime < limit:
                    path.unlink()
                    gone += 1
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        except OSError:
            continue  # in use or gone meanwhile: the next start tries again
    return gone
