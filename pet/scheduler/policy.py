"""When a reminder's due time is delivered, and how: pure functions of the
reminder, the pet's zone and `now`, so every case is testable with a given
clock.

Repeats keep local wall time: a daily 09:00 reminder stays at 09:00 in the
pet's zone across a daylight-saving change (the UTC instant moves by an
hour). Should a repeat land on a local time the clocks skip, it fires at the
same instant read in the old offset (02:30 on the spring-forward night is
03:30).

Missed firings (the policy, also in the README):

- Due at most `grace` ago: delivered now, marked late when more than a
  minute late.
- Older: reported once, as one "missed" message. A repeat missed several
  times gets one message that says how many, then its next future
  occurrence is scheduled; if its latest occurrence is within the grace
  window, that one is delivered late besides.
- Quiet hours hold messages that can wait (missed reports, the brief) until
  they end. A reminder the person set for a time fires at that time, late
  or on time, quiet hours or not: they asked for that moment.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pet.events import ReminderRecord
from pet.memory.store import InboxEntry
from pet.tools.when import describe

DEFAULT_GRACE = dt.timedelta(minutes=60)
#: delivered later than this after its due time counts as late
ON_TIME = dt.timedelta(minutes=1)
#: the scheduler may wake a hair early; a job this close to its due time fires
EARLY = dt.timedelta(seconds=1)
_STEPS = {"daily": dt.timedelta(days=1), "weekly": dt.timedelta(days=7)}


@dataclass(frozen=True)
class Policy:
    grace: dt.timedelta = DEFAULT_GRACE
    #: (start, end) local times; None: no quiet hours
    quiet: tuple[dt.time, dt.time] | None = None


DEFAULT_POLICY = Policy()


@dataclass(frozen=True)
class Plan:
    """What firing one due time writes, and where the reminder goes next."""

    entries: tuple[InboxEntry, ...]
    #: the next due time (aware, UTC), None when the reminder is done
    next_due: dt.datetime | None


def _wall(day: dt.date, time: dt.time, zone: dt.tzinfo) -> dt.datetime:
    """Local wall time as an aware UTC instant (fold 0: the first of a
    repeated hour; a skipped time reads in the offset before the jump)."""
    return dt.datetime.combine(day, time, zone).astimezone(dt.timezone.utc)


def occurrence(first: dt.datetime, repeat: str, zone: dt.tzinfo, n: int) -> dt.datetime:
    """The n-th occurrence (0 = `first`) of a repeat, at `first`'s local wall time."""
    if n == 0 or repeat not in _STEPS:
        return first.astimezone(dt.timezone.utc)
    local = first.astimezone(zone)
    return _wall(local.date() + _STEPS[repeat] * n, local.time().replace(tzinfo=None), zone)


def due_until(first: dt.datetime, repeat: str, zone: dt.tzinfo,
              now: dt.datetime) -> tuple[int, dt.datetime | None, dt.datetime | None]:
    """How many occurrences from `first` on are due by `now`, the latest of
    them, and the first one after `now` (None for a one-off)."""
    first = first.astimezone(dt.timezone.utc)
    if repeat not in _STEPS:
        return (1, first, None) if first <= now else (0, None, first)
    # Jump near `now` at once (a local day is 23-25 hours, so one step back
    # is safe), then walk: a year of downtime is a few steps, not 365.
    count = max(0, (now - first) // _STEPS[repeat] - 1)
    while (at := occurrence(first, repeat, zone, count)) <= now:
        count += 1
    return count, (occurrence(first, repeat, zone, count - 1) if count else None), at


def quiet_until(now: dt.datetime, zone: dt.tzinfo, quiet: tuple[dt.time, dt.time] | None) -> dt.datetime | None:
    """When the quiet hours `now` falls in end (aware, UTC); None outside them."""
    if quiet is None:
        return None
    start, end = quiet
    local = now.astimezone(zone)
    t = local.time().replace(tzinfo=None)
    if start < end:
        inside, day = start <= t < end, local.date()
    else:  # the window passes midnight
        inside = t >= start or t < end
        day = local.date() + dt.timedelta(days=1) if t >= start else local.date()
    return _wall(day, end, zone) if inside else None


_MISSED = {
    "en": ("Missed while I was away (due {when}): {text}",
           "Missed {count} times while I was away (last due {when}): {text}"),
    "zh": ("我不在的时候错过了这条提醒（原定{when}）：{text}",
           "我不在的时候这条提醒错过了{count}次（最近一次原定{when}）：{text}"),
}


def missed_text(text: str, count: int, last_due: dt.datetime, now: dt.datetime, zone: dt.tzinfo,
                language: str) -> str:
    lang = "zh" if language.startswith("zh") else "en"
    when = describe(last_due.astimezone(zone), now.astimezone(zone), lang)
    one, many = _MISSED[lang]
    return (one if count == 1 else many).format(count=count, when=when, text=text)


def plan(reminder: ReminderRecord, zone: dt.tzinfo, now: dt.datetime, policy: Policy = DEFAULT_POLICY,
         language: str = "en") -> Plan | None:
    """What to write for a reminder pending at `reminder.due_at`, fired at
    `now`; None when it is not due yet."""
    if now + EARLY < reminder.due_at:
        return None
    first, repeat = reminder.due_at, reminder.repeat
    count, last, next_due = due_until(first, repeat, zone, max(now, first))
    assert last is not None
    in_grace = now - last <= policy.grace
    entries: list[InboxEntry] = []
    missed = count - 1 if in_grace else count
    if missed:
        missed_last = occurrence(first, repeat, zone, count - 2) if in_grace else last
        text = missed_text(reminder.text, missed, missed_last, now, zone, language)
        entries.append(InboxEntry("missed", text, missed_last, deliver_at=quiet_until(now, zone, policy.quiet)))
    if in_grace:
        entries.append(InboxEntry("reminder", reminder.text, last, late=now - last > ON_TIME))
    return Plan(tuple(entries), next_due)
