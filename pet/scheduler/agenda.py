"""Today's events from the workspace calendar files (*.ics), in the pet's zone.

icalendar parses the file and recurring_ical_events expands repeats (RRULE,
RDATE, EXDATE, moved occurrences), so one weekly meeting gives one event on
the days it happens. Times with a TZID or in UTC are converted to the pet's
zone; floating times (no zone) are taken as the pet's local time.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from pathlib import Path

import icalendar
import recurring_ical_events

from pet.scheduler.files import FileProblem, UnreadableFile, read_text, shorten

log = logging.getLogger(__name__)

CALENDAR_FILE = "calendar.ics"
CALENDAR_PATTERN = "*.ics"


@dataclass(frozen=True)
class Event:
    summary: str
    #: aware, in the pet's zone; None for an all-day event
    start: dt.datetime | None
    end: dt.datetime | None = None
    location: str = ""

    @property
    def all_day(self) -> bool:
        return self.start is None


@dataclass(frozen=True)
class Agenda:
    events: tuple[Event, ...]
    problems: tuple[FileProblem, ...] = ()


def _local(value: dt.date | dt.datetime, zone: dt.tzinfo) -> dt.datetime | None:
    if not isinstance(value, dt.datetime):
        return None  # a date: the event lasts whole days
    if value.tzinfo is None:
        return value.replace(tzinfo=zone)
    return value.astimezone(zone)


def events_on(data: str | bytes, day: dt.date, zone: dt.tzinfo) -> list[Event]:
    """The events of one calendar's text that take place on `day` in `zone`,
    all-day ones first, then by start time. Raises ValueError (and whatever
    the libraries raise for a broken file)."""
    calendar = icalendar.Calendar.from_ical(data)
    start = dt.datetime.combine(day, dt.time(), zone)
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), zone)
    events: list[Event] = []
    for occurrence in recurring_ical_events.of(calendar).between(start, end):
        if str(occurrence.get("STATUS", "")).upper() == "CANCELLED":
            continue
        begin = _local(occurrence.DTSTART, zone)
        finish = _local(occurrence.DTEND, zone) if "DTEND" in occurrence else None
        if begin is not None and finish is not None and finish <= begin:
            finish = None
        summary = " ".join(str(occurrence.get("SUMMARY", "")).split()) or "(untitled)"
        location = " ".join(str(occurrence.get("LOCATION", "")).split())
        if begin is not None and begin < start and (finish is None or finish >= end):
            begin = finish = None  # a timed event spanning the whole day reads as all-day
        events.append(Event(summary, begin, finish, location))
    return sorted(events, key=_in_order)


_LAST = dt.datetime.max.replace(tzinfo=dt.UTC)


def _in_order(event: Event) -> tuple[bool, dt.datetime, str]:
    """All-day events first, then by start time."""
    return not event.all_day, event.start or _LAST, event.summary


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"an entry is missing {exc.args[0]}"
    return shorten(str(exc)) or type(exc).__name__


def read_agenda(workspace: Path, day: dt.date, zone: dt.tzinfo) -> Agenda:
    """Today's events of every .ics file in `workspace` (calendar.ics first);
    a file that cannot be read or parsed adds a problem, not an exception."""
    paths = sorted(workspace.glob(CALENDAR_PATTERN), key=lambda p: (p.name != CALENDAR_FILE, p.name))
    events: list[Event] = []
    problems: list[FileProblem] = []
    for path in paths:
        try:
            text = read_text(path)
            if text is None:
                continue
            events += events_on(text, day, zone)
        except UnreadableFile as exc:
            problems.append(exc.problem)
        # icalendar and recurring_ical_events raise ValueError, KeyError and
        # their own types for broken files; any of them means "this file".
        except Exception as exc:
            log.warning("calendar %s could not be read", path, exc_info=True)
            problems.append(FileProblem(path.name, _reason(exc)))
    return Agenda(tuple(sorted(events, key=_in_order)), tuple(problems))
