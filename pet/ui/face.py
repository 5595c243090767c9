"""The pet's face: the avatar for its species and growth stage, and a small
growth card (days together, stage, next milestone) as self-contained HTML.

Avatars live in assets/avatars/<species>/stage-<days>.svg (or .png), one per
stage start day; a stage without its own file shows the nearest earlier one,
and a species without a folder shows assets/avatars/default/. Pure functions:
no gradio here, so the chat can pass paths to gr.Chatbot(avatar_images=...)
and the card can go into a gr.HTML.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import re
from pathlib import Path

from pet.persona.growth import growth_card, stage_for
from pet.persona.model import Persona

AVATAR_DIR = Path(__file__).resolve().parents[2] / "assets" / "avatars"
DEFAULT_SPECIES = "default"
#: the person's side of the chat
PERSON_AVATAR = AVATAR_DIR / "person.svg"
#: preferred first when a stage has both
AVATAR_SUFFIXES = (".svg", ".png")
CARD_AVATAR_PX = 96
#: the face beside the chat on a computer's screen
STAGE_AVATAR_PX = 200

_STAGE_FILE = re.compile(r"stage-(\d+)")
# A species names a folder; it may come from an imported card, so only plain
# names are looked up (nothing like "../x" can leave assets/avatars).
_SPECIES = re.compile(r"[a-z0-9][a-z0-9_-]*")
_MIME = {".svg": "image/svg+xml", ".png": "image/png"}

_TEXT = {
    "zh": {
        "first_day": "在一起的第一天",
        "day": "在一起第 {n} 天",
        "next": "下一站：{stage}（第 {at} 天）",
        "left": "还有 {n} 天",
        "grown": "已经完全长大啦，往后每一天都是我们的",
        "avatar": "{name}的头像",
    },
    "en": {
        "first_day": "Our first day together",
        "day": "Day {n} together",
        "next": "Next: {stage} (day {at})",
        "left": "{n} day to go",
        "left_many": "{n} days to go",
        "grown": "Fully grown: every day from here is a bonus",
        "avatar": "{name}'s avatar",
    },
}


def species_folder(species: str) -> str:
    """The avatar folder name for a species ("Red panda" -> "red-panda")."""
    name = "-".join(species.strip().lower().split())
    return name if _SPECIES.fullmatch(name) else DEFAULT_SPECIES


def _stage_files(folder: Path) -> dict[int, Path]:
    """Stage start day -> avatar file, for the files present in `folder`."""
    found: dict[int, Path] = {}
    for suffix in reversed(AVATAR_SUFFIXES):  # so the preferred suffix wins a tie
        for path in folder.glob(f"stage-*{suffix}"):
            match = _STAGE_FILE.fullmatch(path.stem)
            if match and path.is_file():
                found[int(match.group(1))] = path
    return found


def _nearest(folder: Path, days: int) -> Path | None:
    files = _stage_files(folder) if folder.is_dir() else {}
    earlier = [start for start in files if start <= days]
    return files[max(earlier)] if earlier else None


def avatar_path(persona: Persona, days: int) -> Path:
    """The avatar for the pet's species and its stage after `days` days together."""
    stage_days = stage_for(persona, days).days
    for species in dict.fromkeys((species_folder(persona.species), DEFAULT_SPECIES)):
        path = _nearest(AVATAR_DIR / species, stage_days)
        if path:
            return path
    raise FileNotFoundError(
        f"No avatar in {AVATAR_DIR / DEFAULT_SPECIES}: restore assets/avatars/default/stage-0.svg"
    )


def chat_avatars(persona: Persona, days: int) -> tuple[Path, Path]:
    """(person, pet), the order gr.Chatbot(avatar_images=...) expects."""
    return PERSON_AVATAR, avatar_path(persona, days)


def data_uri(path: Path) -> str:
    """The image inline, so the card needs no file server and no URL."""
    mime = _MIME.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def growth_card_html(persona: Persona, adopted: dt.date, now: dt.datetime, language: str) -> str:
    """A small card: avatar, name, days together, stage and the way to the next
    milestone. Inline CSS only; every persona text is escaped."""
    lang = language if language in _TEXT else "en"
    text = _TEXT[lang]
    if now.tzinfo is not None:  # count days by the pet's own calendar
        now = now.astimezone(persona.zone())
    card = growth_card(persona, adopted, now, lang)
    name = html.escape(persona.display_name(lang))
    day_line = text["first_day"] if card.days == 0 else text["day"].format(n=card.days)
    image = data_uri(avatar_path(persona, card.days))
    alt = html.escape(text["avatar"].format(name=persona.display_name(lang)))

    if card.next_stage is not None and card.next_days is not None and card.days_left is not None:
        begun = stage_for(persona, card.days).days
        percent = round(100 * (card.days - begun) / max(1, card.next_days - begun))
        left_key = "left_many" if card.days_left != 1 and "left_many" in text else "left"
        way = (
            f'<div style="margin-top:6px;font-size:.85em">'
            f'{text["next"].format(stage=html.escape(card.next_stage), at=card.next_days)}'
            f' · {text[left_key].format(n=card.days_left)}</div>'
            f'<div role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="{percent}" '
            f'style="margin-top:4px;height:8px;border-radius:4px;background:rgba(128,128,128,.25);overflow:hidden">'
            f'<div style="width:{percent}%;height:100%;background:#e8643a"></div></div>'
        )
    elif persona.stages:
        way = f'<div style="margin-top:6px;font-size:.85em">{text["grown"]}</div>'
    else:  # a pet without stages does not grow, so it has no way to go
        way = ""
    about = " · ".join(part for part in (day_line, html.escape(card.stage)) if part)

    return (
        f'<div class="pet-growth-card" lang="{lang}" style="display:flex;gap:12px;align-items:center;'
        f'padding:10px 12px;border:1px solid rgba(128,128,128,.35);border-radius:12px;max-width:360px">'
        f'<img src="{image}" alt="{alt}" width="{CARD_AVATAR_PX}" height="{CARD_AVATAR_PX}" '
        f'style="flex:none;width:{CARD_AVATAR_PX}px;height:{CARD_AVATAR_PX}px">'
        f'<div style="flex:1;min-width:0">'
        f'<div style="font-weight:600;font-size:1.1em">{name}</div>'
        f'<div style="font-size:.9em;opacity:.85">{about}</div>'
        f"{way}</div></div>"
    )


def stage_face_html(persona: Persona, adopted: dt.date, now: dt.datetime, language: str) -> str:
    """The pet's face at its stage, large, with its name and stage under it:
    shown beside the chat on a wide screen."""
    lang = language if language in _TEXT else "en"
    if now.tzinfo is not None:
        now = now.astimezone(persona.zone())
    card = growth_card(persona, adopted, now, lang)
    name = html.escape(persona.display_name(lang))
    alt = html.escape(_TEXT[lang]["avatar"].format(name=persona.display_name(lang)))
    day_line = _TEXT[lang]["first_day"] if card.days == 0 else _TEXT[lang]["day"].format(n=card.days)
    about = " · ".join(part for part in (day_line, html.escape(card.stage)) if part)
    way = ""
    if card.next_stage is not None and card.next_days is not None and card.days_left is not None:
        left_key = "left_many" if card.days_left != 1 and "left_many" in _TEXT[lang] else "left"
        way = (f'<div style="font-size:.8em;opacity:.75">'
               f'{_TEXT[lang]["next"].format(stage=html.escape(card.next_stage), at=card.next_days)}'
               f' · {_TEXT[lang][left_key].format(n=card.days_left)}</div>')
    return (
        f'<div class="pet-stage-face" lang="{lang}" data-days="{card.days}" style="text-align:center">'
        f'<img src="{data_uri(avatar_path(persona, card.days))}" alt="{alt}" width="{STAGE_AVATAR_PX}" '
        f'height="{STAGE_AVATAR_PX}" style="width:{STAGE_AVATAR_PX}px;max-width:100%;height:auto">'
        f'<div style="font-weight:600;font-size:1.15em">{name}</div>'
        f'<div style="font-size:.9em;opacity:.85">{about}</div>{way}</div>'
    )
