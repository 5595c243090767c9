"""Reminders that really fire: rows first, jobs second, each due time once.

Every test drives the firing with an injected clock on a paused scheduler
(the job function is called as APScheduler would call it), on a real SQLite
file. Only the last tests start a running scheduler, to see it stop.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pet.app import App, build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import ConfigError, StorageError
from pet.events import ToolCall
from pet.persona.model import PERSONA_DIR
from pet.scheduler.core import fire_reminder, reminder_job_id
from pet.tools.registry import ToolContext

UTC = dt.timezone.utc
NEW_YORK = ZoneInfo("America/New_York")
SHANGHAI = ZoneInfo("Asia/Shanghai")
ROOT = Path(__file__).resolve().parents[1]


class Clock:
    def __init__(self, now: dt.datetime):
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
def zone(tmp_path, monkeypatch):
    """Give the default pet a timezone: zone("America/New_York")."""

    def use(name: str) -> None:
        text = (PERSONA_DIR / "xiaoqian.toml").read_text(encoding="utf-8")
        path = tmp_path / f"xiaoqian-{name.replace('/', '-')}.toml"
        path.write_text(text.replace('timezone = "local"', f'timezone = "{name}"'), encoding="utf-8")
        monkeypatch.setenv("PET_PERSONA", str(path))

    return use


@pytest.fixture
def apps():
    """Build apps on the test's home (an injected clock: the scheduler is paused); all closed at the end."""
    built: list[App] = []

    def make(clock, **settings) -> App:
        scheduler = settings.pop("scheduler", None)
        app = build(load_settings(settings or None), brain=ScriptedModel([]), clock=clock, scheduler=scheduler)
        built.append(app)
        return app

    yield make
    for app in built:
        app.close()


def fire(app: App, reminder_id: int, due: dt.datetime) -> None:
    """What the scheduler's job does at `due` (the app's clock says when it runs)."""
    fire_reminder(app.scheduler.key, reminder_id, due.astimezone(UTC).isoformat())


def job_times(app: App) -> dict[str, dt.datetime]:
    return {job.id: job.next_run for job in app.scheduler.jobs()}


def stored_jobs(app: App) -> dict[str, float]:
    """The job table itself, read with sqlite3: id -> next run (a UTC timestamp)."""
    with closing(sqlite3.connect(app.settings.database_path)) as conn, conn:
        return dict(conn.execute("SELECT id, next_run_time FROM apscheduler_jobs"))


def local(day: str, hhmm: str, zone: dt.tzinfo) -> dt.datetime:
    return dt.datetime.fromisoformat(f"{day}T{hhmm}").replace(tzinfo=zone)


# --- firing and repeats ---------------------------------------------------------------


def test_a_due_reminder_lands_in_the_inbox_once_and_is_done(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    app = apps(clock)
    assert app.scheduler is not None and app.scheduler.paused
    due = clock.now + dt.timedelta(minutes=20)
    reminder = app.reminders.add(app.pet.id, "drink water", due)
    assert job_times(app)[reminder_job_id(reminder.id)] == due

    clock.now = due
    fire(app, reminder.id, due)
    fire(app, reminder.id, due)  # a second run of the same job changes nothing

    [message] = app.inbox.unread(app.pet.id, now=clock.now)
    assert (message.kind, message.text, message.reminder_id, message.due_at, message.late) == (
        "reminder", "drink water", reminder.id, due, False)
    assert app.reminders.pending(app.pet.id) == []
    assert app.reminders.get(reminder.id)[1].status == "done"
    assert reminder_job_id(reminder.id) not in job_times(app)


def test_a_job_that_wakes_early_does_not_fire(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    app = apps(clock)
    due = clock.now + dt.timedelta(minutes=5)
    reminder = app.reminders.add(app.pet.id, "stretch", due)
    fire(app, reminder.id, due)
    assert app.inbox.for_reminder(reminder.id) == []
    assert job_times(app)[reminder_job_id(reminder.id)] == due  # still waiting for its time


@pytest.mark.parametrize("first, expected_utc", [
    # spring forward on 2026-03-08: 09:00 EST is 14:00 UTC, 09:00 EDT is 13:00 UTC
    ("2026-03-07", ["2026-03-07T14:00", "2026-03-08T13:00", "2026-03-09T13:00"]),
    # fall back on 2026-11-01: 09:00 EDT is 13:00 UTC, 09:00 EST is 14:00 UTC
    ("2026-10-31", ["2026-10-31T13:00", "2026-11-01T14:00", "2026-11-02T14:00"]),
])
def test_a_daily_9am_reminder_stays_at_9am_local_across_a_daylight_saving_change(apps, zone, first, expected_utc):
    zone("America/New_York")
    clock = Clock(local(first, "07:00", NEW_YORK))
    app = apps(clock)
    reminder = app.reminders.add(app.pet.id, "take the pill", local(first, "09:00", NEW_YORK), repeat="daily")
    expected = [dt.datetime.fromisoformat(t).replace(tzinfo=UTC) for t in expected_utc]
    for due, following in zip(expected, expected[1:]):
        assert app.reminders.pending(app.pet.id)[0].due_at == due
        clock.now = due
        fire(app, reminder.id, due)
        assert job_times(app)[reminder_job_id(reminder.id)] == following  # the job moved with the row
    messages = app.inbox.for_reminder(reminder.id)
    assert [m.due_at for m in messages] == expected[:2]
    assert {m.due_at.astimezone(NEW_YORK).strftime("%H:%M") for m in messages} == {"09:00"}
    assert not any(m.late for m in messages)


def test_a_shanghai_pet_fires_at_its_local_time_not_utc(apps, zone):
    zone("Asia/Shanghai")  # UTC+8, no daylight saving
    clock = Clock(local("2026-05-01", "06:00", SHANGHAI))
    app = apps(clock)
    due = local("2026-05-01", "08:00", SHANGHAI)
    reminder = app.reminders.add(app.pet.id, "晨跑", due, repeat="daily")
    assert due.astimezone(UTC) == dt.datetime(2026, 5, 1, 0, 0, tzinfo=UTC)
    clock.now = due
    fire(app, reminder.id, due)
    [pending] = app.reminders.pending(app.pet.id)
    assert pending.due_at == dt.datetime(2026, 5, 2, 0, 0, tzinfo=UTC)  # 08:00 in Shanghai, not 08:00 UTC
    assert app.inbox.unread(app.pet.id, now=clock.now)[0].text == "晨跑"


def test_a_weekly_reminder_comes_back_the_same_weekday_and_local_time(apps, zone):
    zone("America/New_York")
    clock = Clock(local("2026-10-26", "08:00", NEW_YORK))  # a Monday; the clocks fall back on Sunday 11-01
    app = apps(clock)
    due = local("2026-10-26", "18:30", NEW_YORK)
    reminder = app.reminders.add(app.pet.id, "team call", due, repeat="weekly")
    clock.now = due
    fire(app, reminder.id, due)
    [pending] = app.reminders.pending(app.pet.id)
    assert pending.due_at.astimezone(NEW_YORK) == local("2026-11-02", "18:30", NEW_YORK)
    assert pending.due_at - due == dt.timedelta(days=7, hours=1)  # a week and the hour given back
    assert job_times(app)[reminder_job_id(reminder.id)] == pending.due_at


# --- downtime, restarts, races ---------------------------------------------------------


def test_a_reminder_due_while_down_within_the_grace_window_is_delivered_late(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    first = apps(clock)
    due = clock.now + dt.timedelta(minutes=10)
    reminder = first.reminders.add(first.pet.id, "take the cake out", due)
    first.close()

    clock.now = due + dt.timedelta(minutes=45)  # the grace window is 60 minutes
    again = apps(clock)  # starting settles what fell due
    [message] = again.inbox.unread(again.pet.id, now=clock.now)
    assert (message.kind, message.text, message.late, message.due_at) == ("reminder", "take the cake out", True, due)
    assert again.reminders.pending(again.pet.id) == []
    assert reminder_job_id(reminder.id) not in stored_jobs(again)


def test_a_reminder_due_while_down_beyond_the_grace_window_is_reported_missed(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    first = apps(clock)
    due = clock.now + dt.timedelta(minutes=10)
    reminder = first.reminders.add(first.pet.id, "call the plumber", due)
    first.close()

    clock.now = due + dt.timedelta(hours=3)
    again = apps(clock)
    [message] = again.inbox.unread(again.pet.id, now=clock.now)
    assert message.kind == "missed" and message.reminder_id == reminder.id and message.due_at == due
    assert "call the plumber" in message.text and "Missed" in message.text
    assert again.reminders.get(reminder.id)[1].status == "done"


def test_the_grace_window_is_a_setting(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    first = apps(clock)
    due = clock.now + dt.timedelta(minutes=10)
    first.reminders.add(first.pet.id, "feed the cat", due)
    first.close()
    clock.now = due + dt.timedelta(minutes=45)
    again = apps(clock, reminder_grace_minutes=30)
    assert [m.kind for m in again.inbox.unread(again.pet.id, now=clock.now)] == ["missed"]


def test_a_daily_reminder_missed_for_days_is_one_report_then_the_next_occurrence(apps, zone):
    zone("America/New_York")
    clock = Clock(local("2026-03-05", "08:00", NEW_YORK))
    first = apps(clock)
    reminder = first.reminders.add(first.pet.id, "water the plants", local("2026-03-05", "09:00", NEW_YORK),
                                   repeat="daily")
    first.close()

    clock.now = local("2026-03-09", "09:20", NEW_YORK)  # down 4 days, across the spring-forward night
    again = apps(clock)
    missed, late = again.inbox.unread(again.pet.id, now=clock.now)
    assert missed.kind == "missed" and "Missed 4 times" in missed.text
    assert missed.due_at == local("2026-03-08", "09:00", NEW_YORK)
    assert (late.kind, late.late, late.due_at) == ("reminder", True, local("2026-03-09", "09:00", NEW_YORK))
    [pending] = again.reminders.pending(again.pet.id)
    assert pending.due_at == local("2026-03-10", "09:00", NEW_YORK)
    assert stored_jobs(again)[reminder_job_id(reminder.id)] == pending.due_at.timestamp()


def test_no_double_firing_after_a_restart(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    first = apps(clock)
    due = clock.now + dt.timedelta(minutes=5)
    reminder = first.reminders.add(first.pet.id, "leave for the train", due, repeat="daily")
    clock.now = due + dt.timedelta(seconds=2)
    fire(first, reminder.id, due)
    first.close()

    again = apps(clock)  # same home; starting reconciles
    again.scheduler.reconcile()
    fire(again, reminder.id, due)  # the old job, run once more
    assert [m.due_at for m in again.inbox.for_reminder(reminder.id)] == [due]
    assert again.reminders.pending(again.pet.id)[0].due_at == due + dt.timedelta(days=1)


def test_two_schedulers_firing_the_same_due_time_at_once_deliver_it_once(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    one, two = apps(clock), apps(clock)  # two apps, two engines, one database file
    due = clock.now + dt.timedelta(minutes=1)
    reminder = one.reminders.add(one.pet.id, "stand up", due)
    clock.now = due
    start = threading.Barrier(2)
    results = []

    def race(app: App) -> None:
        start.wait()
        results.append(app.scheduler.delivery.fire(reminder.id, due))

    threads = [threading.Thread(target=race, args=(app,)) for app in (one, two)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r is None for r in results) == [False, True]  # one delivered, one found it done
    assert len(one.inbox.for_reminder(reminder.id)) == 1


def test_the_database_refuses_a_second_message_for_one_due_time(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    app = apps(clock)
    due = clock.now + dt.timedelta(minutes=1)
    reminder = app.reminders.add(app.pet.id, "stand up", due)
    app.inbox.add(app.pet.id, "stand up", kind="reminder", reminder_id=reminder.id, due_at=due, now=due)
    with pytest.raises(StorageError):
        app.inbox.add(app.pet.id, "stand up", kind="reminder", reminder_id=reminder.id, due_at=due, now=due)


# --- jobs follow the rows --------------------------------------------------------------


def test_jobs_live_in_the_database_and_follow_set_and_cancel(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    app = apps(clock)
    context = ToolContext(pet_id=app.pet.id, conversation_id=app.current_conversation())
    result = app.tools.execute(ToolCall("set_reminder", {"text": "call mom", "when": "in 20 minutes"}, "c1"), context)
    assert result.ok, result.content
    [reminder] = app.reminders.pending(app.pet.id)
    job = reminder_job_id(reminder.id)
    assert stored_jobs(app)[job] == reminder.due_at.timestamp()
    assert "brief-1" in stored_jobs(app)  # the morning brief is a job there too

    result = app.tools.execute(ToolCall("cancel_reminder", {"which": f"#{reminder.id}"}, "c2"), context)
    assert result.ok, result.content
    assert job not in stored_jobs(app)
    assert job not in job_times(app)


def test_starting_syncs_the_jobs_with_the_pending_rows(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    app = apps(clock, scheduler="off")  # rows written with no scheduler to hear of them
    assert app.scheduler is None
    kept = app.reminders.add(app.pet.id, "kept", clock.now + dt.timedelta(hours=1))
    dropped = app.reminders.add(app.pet.id, "dropped", clock.now + dt.timedelta(hours=2))
    app.reminders.cancel(app.pet.id, dropped.id)
    with closing(sqlite3.connect(app.settings.database_path)) as conn, conn:  # a stale job, as if the cancel came while off
        conn.execute("CREATE TABLE IF NOT EXISTS apscheduler_jobs (id VARCHAR(191) PRIMARY KEY, "
                     "next_run_time FLOAT, job_state BLOB NOT NULL)")
    again = apps(clock)
    again.scheduler._add(dropped.id, dropped.due_at)
    assert reminder_job_id(dropped.id) in stored_jobs(again)
    again.scheduler.sync()
    assert set(stored_jobs(again)) == {reminder_job_id(kept.id), "brief-1"}


def test_a_running_scheduler_stops_its_thread_on_close():
    app = build(load_settings(), brain=ScriptedModel([]))  # the real clock: the scheduler runs
    try:
        assert app.scheduler.running and not app.scheduler.paused
        thread = app.scheduler.thread
        assert thread.is_alive()
    finally:
        app.close()
    assert not thread.is_alive()
    app.scheduler.shutdown()  # a second shutdown is harmless


def test_the_scheduler_setting(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    assert apps(clock, scheduler="off").scheduler is None
    assert apps(clock).scheduler.paused  # an injected clock: "on" starts paused
    with pytest.raises(ConfigError, match="scheduler must be one of"):
        load_settings({"scheduler": "sometimes"})
    with pytest.raises(ConfigError, match="quiet_hours"):
        load_settings({"quiet_hours": "10pm-7am"})
    with pytest.raises(ConfigError, match="reminder_grace_minutes"):
        load_settings({"reminder_grace_minutes": -5})


# --- quiet hours and the inbox -----------------------------------------------------------


def test_quiet_hours_hold_a_missed_report_but_not_a_reminder(apps, zone):
    zone("America/New_York")
    clock = Clock(local("2026-05-01", "21:00", NEW_YORK))
    first = apps(clock)
    missed = first.reminders.add(first.pet.id, "send the invoice", local("2026-05-01", "21:30", NEW_YORK))
    first.close()

    clock.now = local("2026-05-01", "23:30", NEW_YORK)  # inside 22:00-07:00, two hours late
    app = apps(clock, quiet_hours="22:00-07:00")
    assert app.inbox.unread(app.pet.id, now=clock.now) == []
    [held] = app.inbox.held(app.pet.id, now=clock.now)
    assert held.kind == "missed" and held.reminder_id == missed.id
    assert held.deliver_at == local("2026-05-02", "07:00", NEW_YORK)

    urgent = app.reminders.add(app.pet.id, "take the medicine", local("2026-05-01", "23:45", NEW_YORK))
    clock.now = urgent.due_at
    fire(app, urgent.id, urgent.due_at)
    assert [m.text for m in app.inbox.unread(app.pet.id, now=clock.now)] == ["take the medicine"]

    morning = local("2026-05-02", "07:00", NEW_YORK)
    assert [m.kind for m in app.inbox.unread(app.pet.id, now=morning)] == ["reminder", "missed"]


def test_quiet_hours_are_the_pets_local_hours(apps, zone):
    zone("Asia/Shanghai")
    clock = Clock(dt.datetime(2026, 5, 1, 23, 30, tzinfo=UTC))  # 07:30 in Shanghai: quiet hours are over
    app = apps(clock, quiet_hours="22:00-07:00")
    message = app.inbox.add(app.pet.id, "Good morning!", kind="brief", now=clock.now)
    assert message.deliver_at == clock.now
    clock.now = dt.datetime(2026, 5, 1, 14, 30, tzinfo=UTC)  # 22:30 in Shanghai
    held = app.inbox.add(app.pet.id, "Good morning!", kind="brief", now=clock.now)
    assert held.deliver_at == dt.datetime(2026, 5, 1, 23, 0, tzinfo=UTC)  # 07:00 in Shanghai
    urgent = app.inbox.add(app.pet.id, "Now!", kind="brief", urgent=True, now=clock.now)
    assert urgent.deliver_at == clock.now


def test_the_inbox_poll_returns_each_message_once_in_the_order_they_show(apps):
    clock = Clock(dt.datetime(2026, 5, 1, 23, tzinfo=UTC))
    app = apps(clock, quiet_hours="22:00-07:00")  # the default pet's zone is this machine's; pin it below
    app.inbox.hold = lambda pet_id, now: dt.datetime(2026, 5, 2, 7, tzinfo=UTC) if now.hour >= 22 else None
    pet = app.pet.id
    held = app.inbox.add(pet, "brief", kind="brief", now=clock.now)
    first = app.inbox.add(pet, "one", kind="reminder", now=clock.now)
    seen = app.inbox.since(pet, 0, now=clock.now)
    assert [m.id for m in seen] == [first.id]
    later = dt.datetime(2026, 5, 2, 7, 5, tzinfo=UTC)
    second = app.inbox.add(pet, "two", kind="reminder", now=later)
    # the held brief (an older id) shows at 07:00, before "two"
    assert [m.id for m in app.inbox.since(pet, seen[-1].id, now=later)] == [held.id, second.id]
    assert app.inbox.since(pet, second.id, now=later) == []

    assert app.inbox.unread_count(pet, now=later) == 3
    assert app.inbox.mark_read([first.id, held.id]) == 2
    assert app.inbox.mark_read([first.id]) == 0
    assert [m.id for m in app.inbox.unread(pet, now=later)] == [second.id]
    assert [m.id for m in app.inbox.recent(pet, 2, now=later)] == [second.id, held.id]
    assert app.inbox.add(pet, "brief", kind="brief", due_at=later, once=True, now=later) is not None
    assert app.inbox.add(pet, "brief", kind="brief", due_at=later, once=True, now=later) is None


# --- schema and boundaries -------------------------------------------------------------


def test_a_version_1_database_gets_the_inbox(tmp_path):
    from test_migrations import v1_database

    from pet.memory.db import open_database

    path = v1_database(tmp_path / "old.db")
    open_database(f"sqlite:///{path}").close()
    with closing(sqlite3.connect(path)) as conn, conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(inbox)")}
        indexes = {row[1]: row[2] for row in conn.execute("PRAGMA index_list(inbox)")}
    assert {"pet_id", "kind", "text", "reminder_id", "due_at", "created_at", "deliver_at", "late",
            "read_at"} <= columns
    assert 1 in indexes.values()  # the unique (reminder_id, due_at)


def test_apscheduler_is_imported_by_the_scheduler_core_only():
    from test_boundaries import imported_libraries

    importers = [path.relative_to(ROOT).as_posix() for path in (ROOT / "pet").rglob("*.py")
                 if "apscheduler" in imported_libraries(path.read_text(encoding="utf-8"))]
    assert importers == ["pet/scheduler/core.py"]


def test_an_export_imported_again_after_reading_the_inbox_adds_nothing(apps, tmp_path):
    from pet.memory.portable import export_to, import_from

    clock = Clock(dt.datetime(2026, 5, 1, 12, tzinfo=UTC))
    app = apps(clock)
    reminder = app.reminders.add(app.pet.id, "stand up", clock.now + dt.timedelta(minutes=1))
    clock.now += dt.timedelta(minutes=1)
    fire(app, reminder.id, reminder.due_at)
    export_to(app.db, tmp_path / "home.json")
    app.inbox.mark_read([m.id for m in app.inbox.unread(app.pet.id, now=clock.now)])
    report = import_from(app.db, tmp_path / "home.json")
    assert (report.tables["inbox"].added, report.tables["inbox"].skipped) == (0, 1)
