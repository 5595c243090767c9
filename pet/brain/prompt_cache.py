"""The embedded model's reading of its stable prompt, kept on disk.

The first prompt of a session starts with ~1,800 tokens that are the same
from one start to the next: the persona, the growth stage and the tools
(build_context's stable system message; no memories, no messages). Reading
them takes the small model 15-30 s on two cores, and the person's first
message waited for it after every start. llama.cpp can copy what it has read
out of its cache (`llama_state_seq_get_data`, ~24 MB for those tokens) and
back in (`llama_state_seq_set_data`, tens of milliseconds), so the pet keeps
that copy in `<home>/cache/` and a restart reads only what changed.

A kept reading is used only for exactly the same tokens, from the same model
file, context size and llama.cpp bindings, and only when its bytes hash to
what was written; anything else is read again and the file replaced. The file
is written through a temporary file and a rename, so a killed process or a
full disk leaves the old file or none, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

MAGIC = b"pet-prompt-cache 1\n"
#: a shorter stable prompt is quick to read again
MIN_TOKENS = 256


class PromptCache:
    """One kept reading in the folder, for one model file, context size and
    bindings version; keeping another's removes the old one. What llama.cpp
    does with the bytes is pet.brain.embedded's part."""

    def __init__(self, folder: Path, model_file: Path, n_ctx: int, bindings: str):
        self.folder = folder
        try:
            stat = model_file.stat()
            identity = f"{model_file.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{n_ctx}|{bindings}"
        except OSError:
            identity = f"{model_file}|{n_ctx}|{bindings}"
        self.identity = identity
        self.path = folder / f"prompt-{hashlib.sha256(identity.encode()).hexdigest()[:16]}.bin"

    def load(self, tokens: list[int]) -> bytes | None:
        """The kept reading of exactly `tokens`, whole; None when there is none."""
        try:
            with self.path.open("rb") as file:
                if file.readline() != MAGIC:
                    return None
                header = json.loads(file.readline())
                if not isinstance(header, dict):
                    raise ValueError("its header is not a table")
                if header.get("identity") != self.identity or header.get("tokens") != tokens:
                    return None
                state = file.read()
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("could not read the kept prompt reading %s: %s", self.path, exc)
            return None
        if len(state) != header.get("size") or hashlib.sha256(state).hexdigest() != header.get("sha256"):
            log.warning("the kept prompt reading %s is damaged; the prompt is read again", self.path)
            return None
        return state

    def save(self, tokens: list[int], state: bytes) -> bool:
        """Keep `state`, llama.cpp's reading of `tokens`. False, with a
        warning, when it cannot be written."""
        if len(tokens) < MIN_TOKENS:
            return False
        header = {"identity": self.identity, "tokens": tokens, "size": len(state),
                  "sha256": hashlib.sha256(state).hexdigest()}
        temporary = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".prompt-", dir=self.folder)
            with os.fdopen(handle, "wb") as file:
                file.write(MAGIC)
                file.write(json.dumps(header).encode() + b"\n")
                file.write(state)
            os.replace(temporary, self.path)
            # another model's or bindings' reading, or a write a killed process left: only space now
            for other in [*self.folder.glob("prompt-*.bin"), *self.folder.glob(".prompt-*")]:
                if other != self.path:
                    other.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not keep the prompt's reading in %s (%s); the next start reads it again",
                        self.folder, exc)
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            return False
        return True
