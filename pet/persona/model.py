"""Persona files: load a TOML file into a validated `Persona`."""

from __future__ import annotations

import datetime as dt
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pet.errors import PersonaError

LANGUAGES = ("zh", "en")
PERSONA_DIR = Path(__file__).resolve().parents[2] / "assets" / "personas"


@dataclass(frozen=True)
class Persona:
    id: str
    name: dict[str, str]  # language -> name
    species: str
    species_name: dict[str, str]
    traits: dict[str, tuple[str, ...]]
    style: dict[str, str]
    catchphrases: dict[str, tuple[str, ...]]
    languages: tuple[str, ...]
    #: None means "first-run": the pet's adoption date is the day it first ran
    adopted: dt.date | None
    timezone: str  # IANA name or "local"
    source: Path | None = None

    def display_name(self, language: str = "zh") -> str:
        return self.name.get(language) or next(iter(self.name.values()))

    def full_name(self) -> str:
        """Both names, e.g. "小钳 (Xiaoqian)"."""
        ordered = [lang for lang in self.languages if lang in self.name] or list(self.name)
        names = list(dict.fromkeys(self.name[lang] for lang in ordered))
        return names[0] + (f" ({' / '.join(names[1:])})" if len(names) > 1 else "")

    def zone(self) -> dt.tzinfo:
        return local_zone() if self.timezone == "local" else ZoneInfo(self.timezone)


def local_zone() -> dt.tzinfo:
    """This computer's zone, as a named zone when it can be found (so that
    daylight-saving changes are right), else the current fixed offset."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        candidates.append(str(Path("/etc/localtime").resolve()).split("zoneinfo/", 1)[1])
    except (OSError, IndexError):
        pass
    for name in candidates:
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return dt.datetime.now().astimezone().tzinfo or dt.timezone.utc


def resolve_persona_path(name_or_path: str) -> Path:
    """A bare name means assets/personas/<name>.toml; anything else is a path."""
    if name_or_path.endswith(".toml") or "/" in name_or_path or "\\" in name_or_path:
        return Path(name_or_path).expanduser().resolve()
    return PERSONA_DIR / f"{name_or_path}.toml"


def load_persona(name_or_path: str) -> Persona:
    path = resolve_persona_path(name_or_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in PERSONA_DIR.glob("*.toml")))
        raise PersonaError(f"{path}: no such persona file (shipped personas: {known})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PersonaError(f"{path}: not valid TOML ({exc})") from None
    return parse_persona(data, path)


def parse_persona(data: dict[str, Any], source: Path | None = None) -> Persona:
    where = str(source) if source else "persona"

    def fail(key: str, problem: str) -> PersonaError:
        return PersonaError(f"{where}: '{key}' {problem}")

    def text(key: str) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise fail(key, "must be a non-empty string")
        return value.strip()

    def per_language(key: str, *, many: bool, required: bool = True) -> dict[str, Any]:
        value = data.get(key, {} if not required else None)
        if not isinstance(value, dict) or (required and not value):
            raise fail(key, f"must be a table of languages, e.g. [{key}] zh = ... en = ...")
        out: dict[str, Any] = {}
        for lang, item in value.items():
            if lang not in LANGUAGES:
                raise fail(f"{key}.{lang}", f"is not a supported language ({', '.join(LANGUAGES)})")
            if many:
                if not isinstance(item, list) or not item or not all(isinstance(s, str) and s.strip() for s in item):
                    raise fail(f"{key}.{lang}", "must be a non-empty list of non-empty strings")
                out[lang] = tuple(s.strip() for s in item)
            else:
                if not isinstance(item, str) or not item.strip():
                    raise fail(f"{key}.{lang}", "must be a non-empty string")
                out[lang] = item.strip()
        return out

    languages = data.get("languages", ["zh", "en"])
    if not isinstance(languages, list) or not languages or any(lang not in LANGUAGES for lang in languages):
        raise fail("languages", f"must be a non-empty list drawn from {list(LANGUAGES)}")

    adopted_raw = data.get("adopted", "first-run")
    if adopted_raw == "first-run":
        adopted = None
    elif isinstance(adopted_raw, dt.datetime):
        adopted = adopted_raw.date()
    elif isinstance(adopted_raw, dt.date):
        adopted = adopted_raw
    else:
        raise fail("adopted", f"must be a date like 2026-11-29 or \"first-run\", got {adopted_raw!r}")

    timezone = data.get("timezone", "local")
    if not isinstance(timezone, str):
        raise fail("timezone", "must be a string such as \"Asia/Shanghai\" or \"local\"")
    if timezone != "local":
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise fail("timezone", f"{timezone!r} is not a known time zone (try \"Asia/Shanghai\")") from None

    persona_id = text("id")
    if not persona_id.replace("-", "").replace("_", "").isalnum():
        raise fail("id", "may hold only letters, digits, - and _")

    return Persona(
        id=persona_id,
        name=per_language("name", many=False),
        species=text("species"),
        species_name=per_language("species_name", many=False, required=False),
        traits=per_language("traits", many=True),
        style=per_language("style", many=False),
        catchphrases=per_language("catchphrases", many=True, required=False),
        languages=tuple(languages),
        adopted=adopted,
        timezone=timezone,
        source=source,
    )
