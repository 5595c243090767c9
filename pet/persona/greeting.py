"""The greeting on the first message of a local day. Pure: no clock, no
randomness. Variety comes from the date, so one day always gives the same
greeting and the next day a different memory (they are taken in turn)."""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from pet.events import MemoryRecord
from pet.persona.growth import anniversaries_on, days_together, stage_for
from pet.persona.messages import say
from pet.persona.model import Persona

#: a memory is "older" (worth a "remember when…") from this many days on
MIN_MEMORY_AGE_DAYS = 3
#: longer memories are cut when quoted
QUOTE_CHARS = {"zh": 40, "en": 90}

_SALUTATIONS = {  # (from hour, words); the last one that has started wins
    "zh": ((0, "这么晚还没睡呀？"), (5, "早上好！"), (11, "中午好！"), (13, "下午好！"), (18, "晚上好！"), (23, "这么晚还没睡呀？")),
    "en": ((0, "Still up this late?"), (5, "Good morning!"), (11, "Hi there!"), (13, "Good afternoon!"),
           (18, "Good evening!"), (23, "Still up this late?")),
}
_TOGETHER = {
    "zh": ("我们已经一起生活{n}天啦。", "{name}已经陪了你{n}天啦。", "不知不觉，我们在一起{n}天了。"),
    "en": ("We've lived together for {n} {days} now.", "{name} has kept you company for {n} {days}.",
           "That makes {n} {days} together."),
}
_REMEMBER = {
    "zh": "还记得你{ago}跟我说过「{content}」吗？",
    "en": "Remember when you told me \"{content}\" {ago}?",
}


def first_meeting(persona: Persona, language: str) -> str:
    """What the pet says the very first time it meets its person."""
    return say("first_meeting", persona.language(language), persona)


def _aware(moment: dt.datetime) -> dt.datetime:
    # The database keeps naive UTC times.
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def _quote(content: str, lang: str) -> str:
    text = " ".join(content.split()).rstrip("。.！!？?，,；;～~ ")
    limit = QUOTE_CHARS.get(lang, 90)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def memory_of_the_day(
    memories: Sequence[MemoryRecord], today: dt.date, zone: dt.tzinfo
) -> tuple[MemoryRecord, int] | None:
    """An active memory in the person's own words from at least
    MIN_MEMORY_AGE_DAYS local days before `today`, and how many days ago it was.
    Memories are taken in turn by id, one a day, so the choice depends only on
    the set of memories and the date."""
    eligible: list[tuple[MemoryRecord, int]] = []
    for memory in sorted(memories, key=lambda m: m.id):
        if memory.status != "active" or memory.deleted_at is not None or memory.asserted_by != "person":
            continue
        if memory.created_at is None:
            continue
        ago = (today - _aware(memory.created_at).astimezone(zone).date()).days
        if ago >= MIN_MEMORY_AGE_DAYS:
            eligible.append((memory, ago))
    return eligible[today.toordinal() % len(eligible)] if eligible else None


def first_of_day(persona: Persona, now: dt.datetime, last_seen: dt.datetime | None) -> bool:
    """Whether a message at `now` is the person's first of the pet's local
    day, given their previous one at `last_seen` (None: never). Naive times
    are taken as UTC."""
    zone = persona.zone()
    return last_seen is None or _aware(last_seen).astimezone(zone).date() < _aware(now).astimezone(zone).date()


def greeting(
    persona: Persona,
    now: dt.datetime,
    adopted: dt.date,
    language: str,
    last_seen: dt.datetime | None,
    memories: Sequence[MemoryRecord] = (),
) -> str | None:
    """A greeting when `now` is the first message of a local day in the pet's
    zone, else None. `last_seen` is the time of the person's previous message
    (None: they never wrote). Naive times are taken as UTC."""
    if not first_of_day(persona, now, last_seen):
        return None
    zone = persona.zone()
    local_now = _aware(now).astimezone(zone)
    today = local_now.date()

    lang = persona.language(language)
    name = persona.display_name(lang)
    days = days_together(adopted, today)
    seed = today.toordinal()
    parts: list[str] = []
    if last_seen is None and days == 0:
        parts.append(first_meeting(persona, lang))
    else:
        if last_seen is None:  # adopted earlier (a dated persona file), first words only now
            parts.append(say("hello", lang, persona))
        else:
            parts.append(next(words for hour, words in reversed(_SALUTATIONS[lang]) if local_now.hour >= hour))
        if days == 0:
            parts.append(say("first_day", lang, persona))
        else:
            together = _TOGETHER[lang][seed % len(_TOGETHER[lang])]
            parts.append(together.format(n=days, name=name, days="day" if days == 1 else "days"))
        stage = stage_for(persona, days)
        if days > 0 and stage.days == days and stage.name:
            parts.append(say("grew", lang, persona, stage=stage.display_name(lang)))
    for anniversary in anniversaries_on(persona, adopted, today):
        parts.append(anniversary.line.get(lang) or next(iter(anniversary.line.values())))
    chosen = memory_of_the_day(memories, today, zone)
    if chosen:
        memory, ago = chosen
        when = f"{ago}天前" if lang == "zh" else f"{ago} days ago"
        parts.append(_REMEMBER[lang].format(ago=when, content=_quote(memory.content, lang)))
    return ("" if lang == "zh" else " ").join(parts)
