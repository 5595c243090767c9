"""Persona files: load a TOML file into a validated `Persona`.

A persona has a base character (name, species, traits, speaking style, per
language) and grows: `[[stages]]`, keyed by days since adoption, add or drop
traits and set the behaviours of that stage; `[[anniversaries]]` mark days
worth a word (a count of days together, or a month-day every year).
Validation errors name the file, the key (e.g. `stages[2].days`) and what is
wrong. `persona_data` is the inverse of `parse_persona`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pet.errors import PersonaError
from pet.persona.messages import CATALOGUE, fields_of

LANGUAGES = ("zh", "en")
PERSONA_DIR = Path(__file__).resolve().parents[2] / "assets" / "personas"

PerLanguage = dict[str, str]
PerLanguageList = dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class Stage:
    """A growth stage, from `days` since adoption until the next stage.

    Traits accumulate: each stage drops and adds to the traits of the stage
    before. Behaviours belong to this stage only (a shy newcomer's habits
    should not outlive its first week)."""

    days: int
    name: PerLanguage = field(default_factory=dict)
    add_traits: PerLanguageList = field(default_factory=dict)
    drop_traits: PerLanguageList = field(default_factory=dict)
    behaviours: PerLanguageList = field(default_factory=dict)
    #: example dialogue of this stage, per language, as a card's mes_example
    #: ("<START>", "{{user}}: …", "{{char}}: …" lines)
    examples: PerLanguage = field(default_factory=dict)

    def display_name(self, language: str) -> str:
        return self.name.get(language) or next(iter(self.name.values()), "")


@dataclass(frozen=True)
class Anniversary:
    """A day worth a word: `days` together (e.g. 100), or every year on
    `date` ("MM-DD", e.g. "05-20"). `line` says what makes it special."""

    line: PerLanguage
    days: int | None = None
    date: str | None = None


@dataclass(frozen=True)
class Replies:
    """The pet's own lines for one kind of small talk (`topic`): what the
    person may say (`when`, examples per language) and what the pet answers
    (`say`, any one of them fits). pet.persona.replies picks them."""

    topic: str
    when: PerLanguageList
    say: PerLanguageList


@dataclass(frozen=True)
class Persona:
    id: str
    name: dict[str, str]  # language -> name
    species: str
    species_name: dict[str, str]
    traits: dict[str, tuple[str, ...]]  # the base traits, before any stage
    style: dict[str, str]
    catchphrases: dict[str, tuple[str, ...]]
    languages: tuple[str, ...]
    #: None means "first-run": the pet's adoption date is the day it first ran
    adopted: dt.date | None
    timezone: str  # IANA name or "local"
    #: where the persona was read from; not part of what the persona is
    source: Path | None = field(default=None, compare=False)
    #: who the pet is, in a few sentences (optional; cards bring one)
    description: dict[str, str] = field(default_factory=dict)
    #: sorted by days; empty means one implicit stage from day 0
    stages: tuple[Stage, ...] = ()
    anniversaries: tuple[Anniversary, ...] = ()
    #: the pet's emoji in the program's lines ("" means a neutral one)
    emoji: str = ""
    #: the pet's own wording of program lines (pet.persona.messages), by key
    lines: dict[str, PerLanguage] = field(default_factory=dict)
    #: example dialogue for every stage that has none of its own (mes_example format)
    examples: PerLanguage = field(default_factory=dict)
    #: small talk the pet answers in its own lines when the model is a small one
    replies: tuple[Replies, ...] = ()

    def display_name(self, language: str = "zh") -> str:
        return self.name.get(language) or next(iter(self.name.values()))

    def full_name(self) -> str:
        """Both names, e.g. "小钳 (Xiaoqian)"."""
        ordered = [lang for lang in self.languages if lang in self.name] or list(self.name)
        names = list(dict.fromkeys(self.name[lang] for lang in ordered))
        return names[0] + (f" ({' / '.join(names[1:])})" if len(names) > 1 else "")

    def zone(self) -> dt.tzinfo:
        return local_zone() if self.timezone == "local" else ZoneInfo(self.timezone)

    def language(self, wanted: str) -> str:
        """`wanted` when the persona speaks it, else its first language."""
        return wanted if wanted in self.languages else self.languages[0]


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


# --- validation ---------------------------------------------------------------

TOP_KEYS = (
    "id", "species", "adopted", "timezone", "languages", "name", "species_name", "description",
    "traits", "style", "catchphrases", "stages", "anniversaries", "emoji", "lines", "examples", "replies",
)
#: an emoji may be a few code points (a flag, a skin tone, a joined family)
MAX_EMOJI_CHARS = 8
STAGE_KEYS = ("days", "name", "add_traits", "drop_traits", "behaviours", "examples")
#: who speaks a line of example dialogue
USER_MACRO, CHAR_MACRO = "{{user}}", "{{char}}"
ANNIVERSARY_KEYS = ("days", "date", "line")
REPLIES_KEYS = ("topic", "when", "say")


def _closest(key: str, known: tuple[str, ...]) -> str:
    match = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f"did you mean '{match[0]}'?" if match else f"known keys: {', '.join(known)}"


class _Reader:
    """Reads values out of a persona table; every failure names file and key."""

    def __init__(self, where: str, languages: tuple[str, ...]):
        self.where = where
        self.languages = languages

    def fail(self, key: str, problem: str) -> PersonaError:
        return PersonaError(f"{self.where}: '{key}' {problem}")

    def known_keys(self, table: dict[str, Any], known: tuple[str, ...], prefix: str = "") -> None:
        for key in table:
            if key not in known:
                raise self.fail(prefix + key, f"is not a known key ({_closest(key, known)})")

    def text(self, table: dict[str, Any], key: str, prefix: str = "") -> str:
        value = table.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(prefix + key, "must be a non-empty string")
        return value.strip()

    def days(self, value: Any, key: str, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be a whole number of days, got {value!r}")
        if value < minimum:
            raise self.fail(key, f"must be {minimum} or more, got {value}")
        return value

    def per_language(self, value: Any, key: str, *, many: bool, required: bool = True) -> dict[str, Any]:
        """A table of languages; when given it must cover every persona language."""
        if value is None and not required:
            return {}
        if not isinstance(value, dict) or (required and not value):
            example = '["…"]' if many else '"…"'
            raise self.fail(key, f"must be a table of languages, e.g. [{key}] zh = {example} en = {example}")
        out: dict[str, Any] = {}
        for lang, item in value.items():
            if lang not in LANGUAGES:
                raise self.fail(f"{key}.{lang}", f"is not a supported language ({', '.join(LANGUAGES)})")
            if many:
                if not isinstance(item, list) or not item or not all(isinstance(s, str) and s.strip() for s in item):
                    raise self.fail(f"{key}.{lang}", "must be a non-empty list of non-empty strings")
                out[lang] = tuple(s.strip() for s in item)
            else:
                if not isinstance(item, str) or not item.strip():
                    raise self.fail(f"{key}.{lang}", "must be a non-empty string")
                out[lang] = item.strip()
        missing = [lang for lang in self.languages if lang not in out]
        if missing and (required or out):
            raise self.fail(
                key,
                f"is missing language {', '.join(repr(m) for m in missing)} "
                f"(the persona speaks {', '.join(self.languages)})",
            )
        return out

    def table_list(self, value: Any, key: str) -> list[dict[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise self.fail(key, f"must be an array of tables: write each one under [[{key}]]")
        return value


def parse_persona(data: dict[str, Any], source: Path | str | None = None) -> Persona:
    """Validate a persona table (as read from TOML). `source` names where it came
    from in error messages: a path, or words such as "card data.extensions.pet"."""
    where = str(source) if source else "persona"
    read = _Reader(where, ())
    if not isinstance(data, dict):
        raise PersonaError(f"{where}: must be a table of persona keys, got {type(data).__name__}")
    read.known_keys(data, TOP_KEYS)

    languages = data.get("languages", ["zh", "en"])
    if (
        not isinstance(languages, list) or not languages
        or any(lang not in LANGUAGES for lang in languages) or len(set(languages)) != len(languages)
    ):
        raise read.fail("languages", f"must be a non-empty list drawn from {list(LANGUAGES)}, without repeats")
    read.languages = tuple(languages)

    adopted_raw = data.get("adopted", "first-run")
    if adopted_raw == "first-run":
        adopted = None
    elif isinstance(adopted_raw, dt.datetime):
        adopted = adopted_raw.date()
    elif isinstance(adopted_raw, dt.date):
        adopted = adopted_raw
    else:
        raise read.fail("adopted", f"must be a date like 2026-11-29 or \"first-run\", got {adopted_raw!r}")

    timezone = data.get("timezone", "local")
    if not isinstance(timezone, str):
        raise read.fail("timezone", "must be a string such as \"Asia/Shanghai\" or \"local\"")
    if timezone != "local":
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise read.fail("timezone", f"{timezone!r} is not a known time zone (try \"Asia/Shanghai\")") from None

    persona_id = read.text(data, "id")
    if not persona_id.replace("-", "").replace("_", "").isalnum() or not persona_id.isascii():
        raise read.fail("id", "may hold only letters, digits, - and _")

    traits = read.per_language(data.get("traits"), "traits", many=True)
    return Persona(
        id=persona_id,
        name=read.per_language(data.get("name"), "name", many=False),
        species=read.text(data, "species"),
        species_name=read.per_language(data.get("species_name"), "species_name", many=False, required=False),
        traits=traits,
        style=read.per_language(data.get("style"), "style", many=False),
        catchphrases=read.per_language(data.get("catchphrases"), "catchphrases", many=True, required=False),
        languages=tuple(languages),
        adopted=adopted,
        timezone=timezone,
        source=Path(source) if isinstance(source, Path) else None,
        description=read.per_language(data.get("description"), "description", many=False, required=False),
        stages=_stages(read, data.get("stages"), traits),
        anniversaries=_anniversaries(read, data.get("anniversaries")),
        emoji=_emoji(read, data.get("emoji", "")),
        lines=_lines(read, data.get("lines")),
        examples=_examples(read, data.get("examples"), "examples"),
        replies=_replies(read, data.get("replies")),
    )


def _replies(read: _Reader, value: Any) -> tuple[Replies, ...]:
    found = []
    for index, table in enumerate(read.table_list(value, "replies")):
        key = f"replies[{index}]"
        read.known_keys(table, REPLIES_KEYS, key + ".")
        found.append(Replies(read.text(table, "topic", key + "."),
                             read.per_language(table.get("when"), f"{key}.when", many=True),
                             read.per_language(table.get("say"), f"{key}.say", many=True)))
    return tuple(found)


def dialogue(text: str) -> list[tuple[str, str]]:
    """Example dialogue in a card's mes_example format as (speaker, words)
    pairs, speaker "user" or "char"; "<START>" lines only separate scenes.
    ValueError names the first line that is neither."""
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.upper() == "<START>":
            continue
        for speaker, macro in (("user", USER_MACRO), ("char", CHAR_MACRO)):
            if line.lower().startswith(macro + ":"):
                words = line[len(macro) + 1:].strip()
                if words:
                    pairs.append((speaker, words))
                break
        else:
            raise ValueError(f"line {line[:40]!r} does not start with {USER_MACRO}: or {CHAR_MACRO}:")
    return pairs


def _examples(read: _Reader, value: Any, key: str) -> PerLanguage:
    examples: PerLanguage = read.per_language(value, key, many=False, required=False)
    for lang, text in examples.items():
        try:
            pairs = dialogue(text)
        except ValueError as exc:
            raise read.fail(f"{key}.{lang}", f"is not example dialogue: {exc}") from None
        if not any(speaker == "char" for speaker, _ in pairs):
            raise read.fail(f"{key}.{lang}", f"has no line of the pet's ({CHAR_MACRO}: …)")
    return examples


def _emoji(read: _Reader, value: Any) -> str:
    if not isinstance(value, str) or len(value.strip()) > MAX_EMOJI_CHARS or value.strip().isalnum():
        raise read.fail("emoji", f"must be one emoji such as \"🐱\", got {value!r}")
    return value.strip()


def _lines(read: _Reader, value: Any) -> dict[str, PerLanguage]:
    """The persona's wording of program lines; each may use only the
    placeholders its catalogue line knows."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise read.fail("lines", 'must be a table of lines, e.g. [lines] turn_cap.zh = "…" turn_cap.en = "…"')
    lines: dict[str, PerLanguage] = {}
    for key, table in value.items():
        if key not in CATALOGUE:
            raise read.fail(f"lines.{key}", f"is not a known line ({_closest(key, tuple(CATALOGUE))})")
        lines[key] = read.per_language(table, f"lines.{key}", many=False)
        allowed = fields_of(key)
        for lang, template in lines[key].items():
            try:
                used = {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
            except ValueError as exc:
                problem = f"is not a valid template ({exc}); write {{{{ and }}}} for braces"
                raise read.fail(f"lines.{key}.{lang}", problem) from None
            unknown = sorted(used - allowed)
            if unknown:
                raise read.fail(
                    f"lines.{key}.{lang}",
                    f"uses {', '.join('{' + u + '}' for u in unknown)}; it may use "
                    + ", ".join("{" + f + "}" for f in sorted(allowed)),
                )
    return lines


def _stages(read: _Reader, value: Any, base_traits: PerLanguageList) -> tuple[Stage, ...]:
    stages: list[Stage] = []
    traits = {lang: list(items) for lang, items in base_traits.items()}
    for i, table in enumerate(read.table_list(value, "stages")):
        key = f"stages[{i}]"
        read.known_keys(table, STAGE_KEYS, f"{key}.")
        if "days" not in table:
            raise read.fail(f"{key}.days", "is missing: say from which day since adoption this stage starts")
        days = read.days(table["days"], f"{key}.days", 0)
        if i == 0 and days != 0:
            raise read.fail(f"{key}.days", f"must be 0: the first stage starts on adoption day (got {days})")
        if stages and days <= stages[-1].days:
            raise read.fail(
                f"{key}.days",
                f"is {days}, not after stages[{i - 1}].days ({stages[-1].days}): "
                "list stages once each, in order of days",
            )
        drop = read.per_language(table.get("drop_traits"), f"{key}.drop_traits", many=True, required=False)
        add = read.per_language(table.get("add_traits"), f"{key}.add_traits", many=True, required=False)
        for lang, items in drop.items():
            for trait in items:
                if trait not in traits.get(lang, []):
                    have = ", ".join(traits.get(lang, [])) or "none"
                    raise read.fail(f"{key}.drop_traits.{lang}", f"drops {trait!r}, which is not a trait by then ({have})")
                traits[lang].remove(trait)
        for lang, items in add.items():
            for trait in items:
                if trait in traits.get(lang, []):
                    raise read.fail(f"{key}.add_traits.{lang}", f"adds {trait!r}, which is already a trait by then")
                traits.setdefault(lang, []).append(trait)
        stages.append(Stage(
            days=days,
            name=read.per_language(table.get("name"), f"{key}.name", many=False),
            add_traits=add,
            drop_traits=drop,
            behaviours=read.per_language(table.get("behaviours"), f"{key}.behaviours", many=True, required=False),
            examples=_examples(read, table.get("examples"), f"{key}.examples"),
        ))
    return tuple(stages)


def _anniversaries(read: _Reader, value: Any) -> tuple[Anniversary, ...]:
    found: list[Anniversary] = []
    seen: dict[int | str, int] = {}
    for i, table in enumerate(read.table_list(value, "anniversaries")):
        key = f"anniversaries[{i}]"
        read.known_keys(table, ANNIVERSARY_KEYS, f"{key}.")
        if ("days" in table) == ("date" in table):
            raise read.fail(key, "needs exactly one of days = 100 (days together) or date = \"05-20\" (every year)")
        days = date = None
        if "days" in table:
            days = read.days(table["days"], f"{key}.days", 1)
        else:
            date = _month_day(read, table["date"], f"{key}.date")
        when = days if days is not None else date
        assert when is not None
        if when in seen:
            raise read.fail(f"{key}.{'days' if days is not None else 'date'}",
                            f"repeats anniversaries[{seen[when]}] ({when}): give each day one anniversary")
        seen[when] = i
        found.append(Anniversary(read.per_language(table.get("line"), f"{key}.line", many=False), days, date))
    return tuple(found)


def _month_day(read: _Reader, value: Any, key: str) -> str:
    problem = f"must be a month and day as \"MM-DD\" (e.g. \"05-20\"), got {value!r}"
    if not isinstance(value, str) or len(value) != 5 or value[2] != "-":
        raise read.fail(key, problem)
    try:
        dt.date(2000, int(value[:2]), int(value[3:]))  # a leap year, so 02-29 is allowed
    except ValueError:
        raise read.fail(key, problem) from None
    return value


# --- the inverse --------------------------------------------------------------


def persona_data(persona: Persona) -> dict[str, Any]:
    """The persona as the table a TOML file holds (parse_persona reads it back
    to an equal Persona). Optional keys that are empty are left out."""

    def lists(table: PerLanguageList) -> dict[str, list[str]]:
        return {lang: list(items) for lang, items in table.items()}

    data: dict[str, Any] = {
        "id": persona.id,
        "species": persona.species,
        "adopted": persona.adopted if persona.adopted else "first-run",
        "timezone": persona.timezone,
        "languages": list(persona.languages),
        "name": dict(persona.name),
    }
    optional: dict[str, Any] = {
        "species_name": dict(persona.species_name),
        "description": dict(persona.description),
    }
    data.update({k: v for k, v in optional.items() if v})
    data["traits"] = lists(persona.traits)
    data["style"] = dict(persona.style)
    if persona.catchphrases:
        data["catchphrases"] = lists(persona.catchphrases)
    if persona.stages:
        data["stages"] = [
            {"days": s.days, "name": dict(s.name)}
            | {k: lists(v) for k, v in
               (("drop_traits", s.drop_traits), ("add_traits", s.add_traits), ("behaviours", s.behaviours)) if v}
            | ({"examples": dict(s.examples)} if s.examples else {})
            for s in persona.stages
        ]
    if persona.emoji:
        data["emoji"] = persona.emoji
    if persona.examples:
        data["examples"] = dict(persona.examples)
    if persona.lines:
        data["lines"] = {key: dict(table) for key, table in persona.lines.items()}
    if persona.replies:
        data["replies"] = [{"topic": r.topic, "when": lists(r.when), "say": lists(r.say)} for r in persona.replies]
    if persona.anniversaries:
        data["anniversaries"] = [
            ({"days": a.days} if a.days is not None else {"date": a.date}) | {"line": dict(a.line)}
            for a in persona.anniversaries
        ]
    return data
