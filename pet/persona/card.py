"""Character Card V2 ("chara_card_v2", the JSON SillyTavern users share).

Export renders the persona into the card's text fields (in its first
language, other languages as alternate greetings) and keeps the whole persona
table, stages and anniversaries included, in `data.extensions["pet"]`; import
reads that back to an equal Persona. A card made by another tool (no "pet"
extension; V1 cards with fields at the root work too) becomes a persona built
from its name, description, scenario and personality.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
import zlib
from pathlib import Path
from typing import Any

from pet.errors import PersonaError
from pet.persona.greeting import first_meeting
from pet.persona.model import Persona, dialogue, parse_persona, persona_data
from pet.text import detect_language

SPEC = "chara_card_v2"
SPEC_VERSION = "2.0"
EXTENSION = "pet"
EXTENSION_VERSION = 1

TEXT_FIELDS = (
    "name", "description", "personality", "scenario", "first_mes", "mes_example",
    "creator_notes", "system_prompt", "post_history_instructions", "creator", "character_version",
)
LIST_FIELDS = ("alternate_greetings", "tags")
#: V1 fields, mirrored at the root of an exported card for older tools
V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")

#: the speaking style of a persona built from a card that has none
DEFAULT_STYLE = {
    "zh": "保持角色，简短回答，一到三句话。",
    "en": "Stay in character; reply briefly, in one to three sentences.",
}
_PERSON = {"zh": "主人", "en": "your person"}
_TRAIT_SPLIT = re.compile(r"[,，、;；\n]+")
MAX_TRAITS = 12
MAX_TRAIT_CHARS = 80


# --- export -------------------------------------------------------------------


def _json_ready(data: dict[str, Any]) -> dict[str, Any]:
    if isinstance(data.get("adopted"), dt.date):
        data = {**data, "adopted": data["adopted"].isoformat()}
    return data


def _scenario(persona: Persona, lang: str) -> str:
    stages = [s for s in persona.stages if s.name]
    if lang == "zh":
        when = f"{persona.adopted.isoformat()}" if persona.adopted else "第一次运行的那天"
        text = f"{{{{char}}}}在{when}被{{{{user}}}}领养，住在{{{{user}}}}的电脑里，陪伴的日子越久就越成长。"
        if stages:
            text += "成长阶段：" + "；".join(f"第{s.days}天起「{s.display_name(lang)}」" for s in stages) + "。"
        return text
    when = f"on {persona.adopted.isoformat()}" if persona.adopted else "the day it first ran"
    text = (f"{{{{user}}}} adopted {{{{char}}}} {when}; {{{{char}}}} lives on {{{{user}}}}'s computer "
            "and grows with the days they spend together.")
    if stages:
        text += " Stages: " + "; ".join(f"from day {s.days}, {s.display_name(lang)}" for s in stages) + "."
    return text


def _mes_example(persona: Persona, lang: str) -> str:
    """The example dialogue of the pet's first stage (other stages and
    languages travel in the extension), else its catchphrases as lines."""
    first = persona.stages[0].examples if persona.stages else {}
    text = first.get(lang) or persona.examples.get(lang)
    if text:
        out, last = "", "char"
        for speaker, words in dialogue(text):
            if speaker == "user" and last == "char":
                out += "<START>\n"  # a new scene starts with the person
            out += f"{{{{{speaker}}}}}: {words}\n"
            last = speaker
        return out
    return "".join(f"<START>\n{{{{char}}}}: {line}\n" for line in persona.catchphrases.get(lang, ()))


def persona_to_card(persona: Persona) -> dict[str, Any]:
    """The persona as a Character Card V2 dict (JSON-ready)."""
    lang = persona.languages[0]
    species = persona.species_name.get(lang) or persona.species
    style = persona.style.get(lang) or next(iter(persona.style.values()))
    about = persona.description.get(lang, "")
    if lang == "zh":
        names = " / ".join(dict.fromkeys(persona.name[k] for k in persona.languages if k in persona.name))
        description = f"{{{{char}}}}（{names}）是一只{species}，是{{{{user}}}}的电脑宠物。{about}说话风格：{style}"
        personality = "、".join(persona.traits.get(lang) or next(iter(persona.traits.values())))
    else:
        description = (f"{{{{char}}}} ({persona.full_name()}) is a {species} who lives on {{{{user}}}}'s computer "
                       f"as their pet. {about + ' ' if about else ''}Speaking style: {style}")
        personality = ", ".join(persona.traits.get(lang) or next(iter(persona.traits.values())))
    data: dict[str, Any] = {
        "name": persona.display_name(lang),
        "description": description,
        "personality": personality,
        "scenario": _scenario(persona, lang),
        "first_mes": first_meeting(persona, lang),
        "mes_example": _mes_example(persona, lang),
        "creator_notes": (
            "A pet from \"pet\", a local-first AI pet companion. Its growth stages, anniversaries and "
            f"every language it speaks are kept in extensions.{EXTENSION}; pet reads them back unchanged."
        ),
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [first_meeting(persona, other) for other in persona.languages[1:]],
        "tags": list(dict.fromkeys(["pet", persona.species])),
        "creator": "",
        "character_version": "",
        "extensions": {EXTENSION: {"version": EXTENSION_VERSION, "persona": _json_ready(persona_data(persona))}},
    }
    card: dict[str, Any] = {"spec": SPEC, "spec_version": SPEC_VERSION, "data": data}
    card.update({key: data[key] for key in V1_FIELDS})  # older tools read the root
    return card


def write_card(persona: Persona, path: Path) -> Path:
    Path(path).write_text(json.dumps(persona_to_card(persona), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return Path(path)


# --- import -------------------------------------------------------------------


def _card_data(card: Any, where: str) -> dict[str, Any]:
    """The card's data object, with every field it has of the right type."""
    if not isinstance(card, dict):
        raise PersonaError(f"{where}: a character card is a JSON object, got {type(card).__name__}")
    spec = card.get("spec")
    if spec is None and "name" in card and "data" not in card:
        data, prefix = card, ""  # a V1 card: the fields sit at the root
    elif spec in (SPEC, "chara_card_v3"):  # V3 keeps every V2 field in the same place
        nested, prefix = card.get("data"), "data."
        if not isinstance(nested, dict):
            raise PersonaError(f"{where}: 'data' must be an object holding the card's fields")
        data = nested
    else:
        raise PersonaError(f"{where}: 'spec' is {spec!r}; this reads Character Card V2 cards (spec = \"{SPEC}\")")
    for key in TEXT_FIELDS:
        if key in data and not isinstance(data[key], str):
            raise PersonaError(f"{where}: '{prefix}{key}' must be a string, got {type(data[key]).__name__}")
    for key in LIST_FIELDS:
        if key in data and not (isinstance(data[key], list) and all(isinstance(s, str) for s in data[key])):
            raise PersonaError(f"{where}: '{prefix}{key}' must be a list of strings")
    if "extensions" in data and not isinstance(data["extensions"], dict):
        raise PersonaError(f"{where}: '{prefix}extensions' must be an object (use {{}} for none)")
    if not data.get("name", "").strip():
        raise PersonaError(f"{where}: '{prefix}name' is missing or empty: a card needs the character's name")
    return data


def persona_from_card(card: Any, *, source: str = "card", persona_id: str | None = None) -> Persona:
    """A Persona from a Character Card V2 dict. `source` names the card in
    errors (e.g. its file); `persona_id` replaces the id the card would give."""
    data = _card_data(card, source)
    ours = data.get("extensions", {}).get(EXTENSION)
    if ours is not None:
        persona = _from_extension(ours, f"{source} data.extensions.{EXTENSION}")
    else:
        persona = _from_text(data, source)
    if persona_id is not None:
        table = persona_data(persona) | {"id": persona_id}
        persona = parse_persona(table, source)
    return persona


def _from_extension(ours: Any, where: str) -> Persona:
    if not isinstance(ours, dict) or not isinstance(ours.get("persona"), dict):
        raise PersonaError(f"{where}: must be an object with a 'persona' table (written by pet's export)")
    version = ours.get("version")
    if version != EXTENSION_VERSION:
        raise PersonaError(f"{where}: 'version' is {version!r}; this pet reads version {EXTENSION_VERSION}")
    table = dict(ours["persona"])
    adopted = table.get("adopted")
    if isinstance(adopted, str) and adopted != "first-run":
        try:
            table["adopted"] = dt.date.fromisoformat(adopted)
        except ValueError:
            pass  # parse_persona names the key and the problem
    return parse_persona(table, f"{where}.persona")


def _macros(text: str, name: str, lang: str) -> str:
    """Card macros ({{char}}, {{user}}, V1's <BOT>, <USER>) in plain words."""
    text = re.sub(r"\{\{char\}\}|<BOT>", name, text, flags=re.IGNORECASE)
    text = re.sub(r"\{\{user\}\}|<USER>", _PERSON[lang], text, flags=re.IGNORECASE).strip()
    return re.sub(r"(^|[.!?]\s+)your person", r"\1Your person", text)


def card_id(name: str) -> str:
    """An id for a persona file from a card name: ASCII words joined by "-",
    or "card-" and a checksum of the name when it has no ASCII letters."""
    slug = "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:40].strip("-")
    return slug or f"card-{zlib.crc32(name.encode('utf-8')):08x}"


def _from_text(data: dict[str, Any], where: str) -> Persona:
    name = data["name"].strip()
    fields = {key: data.get(key, "") for key in ("description", "personality", "scenario", "first_mes")}
    lang = detect_language(" ".join(fields.values()) or name, default="en")
    description = _macros(data.get("description", ""), name, lang)
    scenario = _macros(data.get("scenario", ""), name, lang)
    about = "\n\n".join(part for part in (description, scenario) if part)

    traits: list[str] = []
    for piece in _TRAIT_SPLIT.split(_macros(data.get("personality", ""), name, lang)):
        piece = piece.strip(" .。")[:MAX_TRAIT_CHARS].strip()
        if piece and piece not in traits:
            traits.append(piece)
    if not traits and description:
        # No personality field: the description's first sentence stands in.
        traits = [re.split(r"(?<=[.!?。！？])\s*", description)[0][:MAX_TRAIT_CHARS].strip()]
    if not traits:
        raise PersonaError(
            f"{where}: 'data.personality' and 'data.description' are both empty: "
            "nothing to build the character's personality from"
        )
    table: dict[str, Any] = {
        "id": card_id(name),
        "species": "companion",
        "adopted": "first-run",
        "timezone": "local",
        "languages": [lang],
        "name": {lang: name},
        "traits": {lang: traits[:MAX_TRAITS]},
        "style": {lang: DEFAULT_STYLE[lang]},
    }
    if about:
        table["description"] = {lang: about}
    examples = _foreign_examples(data.get("mes_example", ""))
    if examples:
        table["examples"] = {lang: examples}
    return parse_persona(table, where)


def _foreign_examples(text: str) -> str:
    """Another tool's mes_example in the pet's form: V1's <USER>/<BOT> as
    {{user}}/{{char}}, lines of neither speaker (narration) left out; "" when
    no line of the character's is left."""
    text = re.sub(r"<USER>", "{{user}}", re.sub(r"<BOT>", "{{char}}", text, flags=re.IGNORECASE), flags=re.IGNORECASE)
    kept = [line.strip() for line in text.splitlines()
            if line.strip().upper() == "<START>" or re.match(r"\{\{(?:user|char)\}\}:\s*\S", line.strip(), re.I)]
    try:
        pairs = dialogue("\n".join(kept))
    except ValueError:
        return ""
    return "\n".join(kept) if any(speaker == "char" for speaker, _ in pairs) else ""


def read_card(path: Path) -> dict[str, Any]:
    """A card from a .json file, or from the "chara" text chunk of a .png card."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PersonaError(f"{path}: cannot read the card ({exc.strerror or exc})") from None
    text = _png_chara(raw, path) if raw.startswith(b"\x89PNG\r\n\x1a\n") else raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PersonaError(f"{path}: not valid card JSON ({exc})") from None


def _png_chara(raw: bytes, path: Path) -> str:
    at = 8
    while at + 8 <= len(raw):
        length = int.from_bytes(raw[at:at + 4], "big")
        kind, body = raw[at + 4:at + 8], raw[at + 8:at + 8 + length]
        at += 12 + length
        if kind == b"tEXt" and b"\0" in body:
            keyword, value = body.split(b"\0", 1)
            if keyword == b"chara":
                try:
                    return base64.b64decode(value, validate=False).decode("utf-8")
                except (binascii.Error, UnicodeDecodeError):
                    raise PersonaError(f"{path}: the PNG's 'chara' chunk is not base64 JSON") from None
    raise PersonaError(f"{path}: this PNG holds no character card (no 'chara' text chunk)")


def load_card(path: Path, *, persona_id: str | None = None) -> Persona:
    """Read a card file and build its Persona; errors name the file."""
    return persona_from_card(read_card(path), source=str(path), persona_id=persona_id)
