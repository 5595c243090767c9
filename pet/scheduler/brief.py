"""The morning brief: today's events, open todos and reminders, in character.

The plain brief is built in code from the workspace files, so it is right
even when no model answers. The model then rewords it in the pet's voice,
tools off; its answer is used only when it arrives within the timeout and
keeps every time and item verbatim, else the plain brief goes out. Problems
with the files (a calendar that does not parse) are appended as they are,
never reworded.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pet.brain.base import TooSlow, complete_within
from pet.events import Completion, Message
from pet.memory.summary import contains
from pet.persona.model import Persona
from pet.persona.prompt import system_prompt
from pet.scheduler.agenda import Event, read_agenda
from pet.scheduler.files import FileProblem
from pet.scheduler.todos import read_todos
from pet.text import detect_language, estimate_tokens
from pet.todos import Todo

if TYPE_CHECKING:
    from pet.app import App
    from pet.brain.base import ChatModel

log = logging.getLogger(__name__)

#: seconds the model may take to reword before the plain brief goes out
DEFAULT_REWORD_TIMEOUT = 20.0
#: todos listed by name; the rest are counted ("… and 4 more")
MAX_TODOS = 20
#: the inbox kind of a brief
BRIEF_KIND = "brief"
#: a reply room beyond the brief's own length, for the pet's flourishes
REPLY_SLACK_TOKENS = 200

Deliver = Callable[[str, str], object]  # (text, kind)

_WEEKDAYS = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "zh": ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"),
}
_WORDS = {
    "en": {
        "morning": "Good morning", "afternoon": "Good afternoon", "evening": "Good evening",
        "today": "{greeting}! Today is {weekday}, {date}.",
        "calendar": "Today's calendar:", "no_events": "No events today.",
        "all_day": "All day: {summary}", "until": "until {end}: {summary}",
        "todos": "Todo ({count} open):", "no_todos": "The todo list is empty.",
        "overdue": " (overdue, was due {date})", "due_today": " (due today)", "due": " (due {date})",
        "more": "… and {count} more",
        "reminders": "Reminders today:",
        "problem": "Note: {name} could not be read: {reason}",
        "signature": "— {name}",
    },
    "zh": {
        "morning": "早上好", "afternoon": "下午好", "evening": "晚上好",
        "today": "{greeting}！今天是 {date}，{weekday}。",
        "calendar": "今天的日程：", "no_events": "今天没有日程。",
        "all_day": "全天：{summary}", "until": "到 {end}：{summary}",
        "todos": "待办（{count} 项未完成）：", "no_todos": "待办清单是空的。",
        "overdue": "（已逾期，原定 {date}）", "due_today": "（今天到期）", "due": "（{date} 到期）",
        "more": "……还有 {count} 项",
        "reminders": "今天的提醒：",
        "problem": "注意：{name} 无法读取：{reason}",
        "signature": "—— {name}",
    },
}
_REWORD_ASK = {
    "en": (
        "Here is today's brief for the person. Rewrite it as a short, warm message in your own voice. "
        "Keep every time, date, name and item exactly as written (copy them verbatim, e.g. \"{example}\"); "
        "do not add, drop or merge events or todos, and invent nothing. Reply with the message only.\n\n"
        "---\n{body}\n---"
    ),
    "zh": (
        "下面是今天给主人的简报。用你自己的口吻把它改写成一条简短、亲切的消息。"
        "每个时间、日期、名字和事项都必须原样照抄（例如“{example}”），"
        "不要增加、删除或合并日程和待办，也不要编造。只回复这条消息。\n\n"
        "---\n{body}\n---"
    ),
}
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCED = re.compile(r"^```[a-z]*\n(.*)\n```$", re.DOTALL)
_TIME = re.compile(r"^(\d{2}):(\d{2})$")
#: todo.txt +project and @context tags, which a reword may leave out
_TAGS = re.compile(r"(?:^|\s+)[+@]\S+")


@dataclass(frozen=True)
class DueReminder:
    at: dt.datetime  # aware
    text: str


@dataclass(frozen=True)
class BriefFacts:
    """What the brief says, read from the workspace; no wording yet."""

    now: dt.datetime  # aware, in the pet's zone
    events: tuple[Event, ...]
    todos: tuple[Todo, ...]
    reminders: tuple[DueReminder, ...] = ()
    problems: tuple[FileProblem, ...] = ()


@dataclass(frozen=True)
class PlainBrief:
    body: str  # what the model rewords
    signature: str  # closes the plain brief; a reworded one speaks for itself
    notes: str  # file problems, appended verbatim to either
    keep: tuple[str, ...]  # must survive a reword verbatim: times, names, items

    @property
    def text(self) -> str:
        return _join(self.body + "\n\n" + self.signature, self.notes)


@dataclass(frozen=True)
class Brief:
    text: str  # what goes to the person
    plain: str
    reworded: bool
    #: why the plain brief went out; empty when the reword was used
    fallback: str = ""


class RewordRejected(Exception):
    """The model's reword cannot be used; the plain brief goes out instead."""


def _join(*parts: str) -> str:
    return "\n\n".join(part for part in parts if part)


def brief_language(persona: Persona, language: str | None = None) -> str:
    wanted = language or persona.languages[0]
    return wanted if wanted in _WORDS else "en"


def gather(workspace: Path, now: dt.datetime, reminders: Sequence[DueReminder] = ()) -> BriefFacts:
    """Read the todo and calendar files for the day of `now` (aware, in the
    pet's zone). Never raises for a bad file: its problem is in the facts."""
    assert now.tzinfo is not None, "now must be aware, in the pet's zone"
    agenda = read_agenda(workspace, now.date(), now.tzinfo)
    todos = read_todos(workspace, now.date())
    return BriefFacts(now, agenda.events, todos.items, tuple(reminders), agenda.problems + todos.problems)


def _hhmm(moment: dt.datetime, zone: dt.tzinfo) -> str:
    return moment.astimezone(zone).strftime("%H:%M")


def plain_brief(facts: BriefFacts, language: str, pet_name: str) -> PlainBrief:
    """The brief as code writes it; deterministic for the same facts."""
    words = _WORDS[language]
    now, zone, today = facts.now, facts.now.tzinfo, facts.now.date()
    assert zone is not None
    keep: list[str] = []
    greeting = words["morning" if now.hour < 12 else "afternoon" if now.hour < 18 else "evening"]
    lines = [words["today"].format(greeting=greeting, weekday=_WEEKDAYS[language][now.weekday()],
                                   date=today.isoformat()), ""]

    if facts.events:
        lines.append(words["calendar"])
        for event in facts.events:
            keep.append(event.summary)
            where = f" ({event.location})" if event.location and language == "en" else (
                f"（{event.location}）" if event.location else "")
            if event.start is None:
                lines.append("- " + words["all_day"].format(summary=event.summary) + where)
                continue
            end = _hhmm(event.end, zone) if event.end else ""
            if event.start.date() < today:
                keep.append(end)
                lines.append("- " + words["until"].format(end=end, summary=event.summary) + where)
                continue
            start = _hhmm(event.start, zone)
            keep += [start, end] if end else [start]
            span = f"{start}–{end}" if end else start
            lines.append(f"- {span} {event.summary}{where}")
    else:
        lines.append(words["no_events"])
    lines.append("")

    if facts.todos:
        lines.append(words["todos"].format(count=len(facts.todos)))
        for todo in facts.todos[:MAX_TODOS]:
            keep.append(_TAGS.sub("", todo.text).strip() or todo.text)
            mark = f"({todo.priority}) " if todo.priority else ""
            if todo.overdue(today):
                when = words["overdue"].format(date=todo.due.isoformat())  # type: ignore[union-attr]
            elif todo.due_today(today):
                when = words["due_today"]
            elif todo.due:
                when = words["due"].format(date=todo.due.isoformat())
            else:
                when = ""
            lines.append(f"{'  ' * todo.depth}- {mark}{todo.text}{when}")
        if len(facts.todos) > MAX_TODOS:
            lines.append(words["more"].format(count=len(facts.todos) - MAX_TODOS))
    else:
        lines.append(words["no_todos"])

    if facts.reminders:
        lines += ["", words["reminders"]]
        for reminder in sorted(facts.reminders, key=lambda r: r.at):
            at = _hhmm(reminder.at, zone)
            keep += [at, reminder.text]
            lines.append(f"- {at} {reminder.text}")

    notes = "\n".join(words["problem"].format(name=p.name, reason=p.reason) for p in facts.problems)
    return PlainBrief(
        body="\n".join(lines).strip(),
        signature=words["signature"].format(name=pet_name),
        notes=notes,
        keep=tuple(dict.fromkeys(item for item in keep if item)),
    )


# --- the reword ---------------------------------------------------------------------


def _kept(text: str, item: str) -> bool:
    """Whether `item` survives in `text`: a time as written or without its
    leading zero ("09:00" or "9:00", not inside "19:00"), anything else
    verbatim up to case and spacing."""
    time = _TIME.match(item)
    if time:
        hour = time.group(1).lstrip("0") or "0"
        pattern = rf"(?<![\d:])0?{hour}:{time.group(2)}(?![\d:])"
        return re.search(pattern, text) is not None
    return contains(text.casefold(), item.casefold())


def check_reword(answer: str, plain: PlainBrief, language: str) -> str:
    """The usable text of the model's answer; raises RewordRejected saying why not."""
    text = _THINK.sub("", answer).strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text:
        raise RewordRejected("the model's answer was empty")
    if "\ufffd" in text or len(text) > 4 * len(plain.body) + 400:
        raise RewordRejected("the model's answer was garbled or far too long")
    lost = [item for item in plain.keep if not _kept(text, item)]
    if lost:
        raise RewordRejected("the model's answer dropped " + ", ".join(repr(item) for item in lost[:5]))
    own_words = text
    for item in plain.keep:
        own_words = own_words.replace(item, " ")
    if detect_language(own_words, default=language) != language:
        raise RewordRejected(f"the model's answer was not in {language}")
    return text


def _complete_within(model: ChatModel, messages: list[Message], max_tokens: int, timeout: float) -> Completion:
    try:
        return complete_within(model, messages, timeout, max_tokens=max_tokens, name="brief-reword")
    except TooSlow as exc:
        raise RewordRejected(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - whatever it is, the brief still goes out
        raise RewordRejected(f"the model failed: {exc}") from exc


def reword(plain: PlainBrief, model: ChatModel, system: str, language: str, timeout: float) -> str:
    """The model's wording of the brief, checked; raises RewordRejected."""
    example = next((item for item in plain.keep if _TIME.match(item)), plain.keep[0] if plain.keep else "09:00")
    ask = _REWORD_ASK[language].format(example=example, body=plain.body)
    messages = [Message("system", system), Message("user", ask)]
    max_tokens = 2 * estimate_tokens(plain.body) + REPLY_SLACK_TOKENS
    completion = _complete_within(model, messages, max_tokens, timeout)
    return check_reword(completion.text, plain, language)


def make_brief(
    persona: Persona,
    model: ChatModel | None,
    workspace: Path,
    now: dt.datetime,
    *,
    language: str | None = None,
    reminders: Sequence[DueReminder] = (),
    adopted: dt.date | None = None,
    timeout: float = DEFAULT_REWORD_TIMEOUT,
) -> Brief:
    """Today's brief for `persona`. `now` may be in any zone; the brief is
    for the pet's day. `model` None means plain only."""
    now = now.astimezone(persona.zone())
    lang = brief_language(persona, language)
    plain = plain_brief(gather(workspace, now, reminders), lang, persona.display_name(lang))
    if model is None:
        return Brief(plain.text, plain.text, reworded=False, fallback="no model")
    system = system_prompt(persona, now=now, adopted=adopted or persona.adopted or now.date(),
                           language=lang, tools=False)
    try:
        text = reword(plain, model, system, lang, timeout)
    except RewordRejected as exc:
        log.warning("morning brief sent plain: %s", exc)
        return Brief(plain.text, plain.text, reworded=False, fallback=str(exc))
    return Brief(_join(text, plain.notes), plain.text, reworded=True)


def send_brief(
    persona: Persona,
    model: ChatModel | None,
    workspace: Path,
    now: dt.datetime,
    deliver: Deliver,
    **options: object,
) -> Brief:
    """make_brief, then `deliver(text, "brief")` (e.g. an inbox row)."""
    brief = make_brief(persona, model, workspace, now, **options)  # type: ignore[arg-type]
    deliver(brief.text, BRIEF_KIND)
    return brief


# --- in the running app ----------------------------------------------------------------


def reminders_today(app: App, pet_id: int, now: dt.datetime, zone: dt.tzinfo) -> list[DueReminder]:
    """The pet's pending reminders still due later today (local)."""
    today = now.astimezone(zone).date()
    return [
        DueReminder(r.due_at, r.text)
        for r in app.reminders.pending(pet_id)
        if r.due_at >= now and r.due_at.astimezone(zone).date() == today
    ]


def brief_for_app(app: App, pet_id: int, *, plain_only: bool = False) -> Brief:
    """The brief of one pet of a built app, with the app's brain, workspace,
    clock and settings. Not delivered: `run_brief_job` and `python run.py brief --now` do that."""
    runtime = app.runtime(pet_id)
    now = app.clock()
    return make_brief(
        runtime.persona,
        None if plain_only else app.brain.model,
        app.settings.workspace_dir,
        now,
        reminders=reminders_today(app, pet_id, now, runtime.persona.zone()),
        adopted=runtime.adopted_on,
        timeout=app.settings.brief_reword_timeout,
    )


def scheduled_time(now: dt.datetime, brief_time: str) -> dt.datetime:
    """Today's brief time ("09:00") on the local day of `now` (aware, in the pet's zone)."""
    return dt.datetime.combine(now.date(), dt.time.fromisoformat(brief_time), tzinfo=now.tzinfo)


def run_brief_job(pet_id: int) -> None:
    """The daily job (scheduled by PetScheduler.schedule_brief, called by
    reference so it survives restarts): today's brief for `pet_id` into the
    inbox, at most once per morning even when the job runs twice."""
    from pet.scheduler.core import job_context

    app: App = job_context()
    try:
        zone = app.runtime(pet_id).persona.zone()
    except KeyError:
        log.warning("morning brief: there is no pet #%d any more; nothing sent", pet_id)
        return
    due = scheduled_time(app.clock().astimezone(zone), app.settings.brief_time)
    if app.inbox.has(pet_id, BRIEF_KIND, due):  # before the model is asked, not after
        log.info("morning brief of pet #%d for %s was sent already", pet_id, due.isoformat())
        return
    brief = brief_for_app(app, pet_id)
    if app.herald is not None:  # said in the pet's conversation too
        added = app.herald.deliver(pet_id, brief.text, BRIEF_KIND, due_at=due, once=True)
    else:
        added = app.inbox.add(pet_id, brief.text, kind=BRIEF_KIND, due_at=due, once=True, now=app.clock())
    if added is None:
        log.info("morning brief of pet #%d for %s was sent already", pet_id, due.isoformat())
