"""Files shipped in numbered pieces (a registry's size limit per package),
joined once into the pet's home and checked.

The pieces are concatenated through a temporary file beside the target and
renamed into place only when size and sha256 match, so a crash or a full
disk never leaves a half file that looks finished. A stamp file records the
check; later starts compare only the size and modification time.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from pet.private import private_dir, private_opener

_CHUNK = 1 << 20


class JoinMismatch(ValueError):
    """The pieces joined into something else than the expected file."""

    def __init__(self, size: int, sha256: str):
        super().__init__(f"joined into {size:,} bytes with sha256 {sha256[:12]}…")
        self.size = size
        self.sha256 = sha256


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _stamp(target: Path, sha256: str) -> dict[str, object]:
    stat = target.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}


def write_stamp(target: Path, sha256: str, stamp: Path) -> None:
    with open(stamp, "w", encoding="utf-8", opener=private_opener) as out:
        out.write(json.dumps(_stamp(target, sha256)))


def is_verified(target: Path, size: int, sha256: str, stamp: Path, *, rehash: bool = True) -> bool:
    """`target` has the expected size and sha256. The stamp spares reading it
    again; a file touched since its stamp is hashed (and stamped) anew, unless
    `rehash` is off (a look that changes nothing)."""
    if not target.is_file() or target.stat().st_size != size:
        return False
    try:
        if json.loads(stamp.read_text(encoding="utf-8")) == _stamp(target, sha256):
            return True
    except (OSError, ValueError):
        pass
    if not rehash or sha256_of(target) != sha256:
        return False
    write_stamp(target, sha256, stamp)
    return True


def join(
    sources: Sequence[Path],
    target: Path,
    size: int,
    sha256: str,
    stamp: Path,
    *,
    check: Callable[[Path], None] | None = None,
) -> None:
    """Concatenate `sources` in order into `target`. Raises JoinMismatch when
    the result is not `size` bytes with `sha256`; `check` may inspect the
    joined file before it takes the target's name and raise to refuse it.
    Nothing is left behind on failure."""
    private_dir(target.parent)  # models live in the private home
    digest = hashlib.sha256()
    written = 0
    handle, temporary = tempfile.mkstemp(prefix=target.name + ".", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            for source in sources:
                with source.open("rb") as stream:
                    while block := stream.read(_CHUNK):
                        digest.update(block)
                        written += len(block)
                        out.write(block)
        if written != size or digest.hexdigest() != sha256:
            raise JoinMismatch(written, digest.hexdigest())
        if check is not None:
            check(Path(temporary))
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    write_stamp(target, sha256, stamp)
