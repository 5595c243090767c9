"""The morning brief: todo files, calendar files, the plain brief, the
model's reword and its fallbacks, and `python run.py brief --now`."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import threading
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pet.brain.scripted import ScriptedModel
from pet.cli import main
from pet.errors import BrainUnavailable
from pet.events import Completion, ToolCall
from pet.persona.model import load_persona
from pet.scheduler.agenda import events_on, read_agenda
from pet.scheduler.brief import DueReminder, make_brief, send_brief
from pet.scheduler.todos import order, read_todos
from pet.todos import Todo, parse_markdown, parse_todotxt

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "example"
SHANGHAI = ZoneInfo("Asia/Shanghai")
BERLIN = ZoneInfo("Europe/Berlin")
# Thursday 2026-03-05, 09:00 in Shanghai
NOW = dt.datetime(2026, 3, 5, 9, 0, tzinfo=SHANGHAI)
TODAY = NOW.date()


def persona(timezone: str = "Asia/Shanghai", languages: tuple[str, ...] = ("zh", "en")):
    return dataclasses.replace(load_persona("xiaoqian"), timezone=timezone, languages=languages,
                               adopted=dt.date(2026, 1, 1))


def ics(*events: str) -> str:
    body = "\n".join(f"BEGIN:VEVENT\nUID:{i}@test\nDTSTAMP:20260101T000000Z\n{e.strip()}\nEND:VEVENT"
                     for i, e in enumerate(events))
    return f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n{body}\nEND:VCALENDAR\n"


def summaries(events) -> list[str]:
    return [e.summary for e in events]


# --- todo files -----------------------------------------------------------------------


def test_markdown_checklist_open_items_only_with_nesting_and_due_dates():
    text = """# Todo
- [ ] pay rent due:2026-03-01
- [x] buy milk
* [ ] call mum
+ [ ] water plants
1. [ ] numbered item
- [X] done trip
  - [ ] step of a done item
- [ ] report
  - [x] collect numbers
  - [ ] write summary
    - [ ] spell-check
- not a checkbox
```
- [ ] inside a code block
```
- [ ]
"""
    items = parse_markdown(text)
    assert [(t.text, t.depth) for t in items] == [
        ("pay rent", 0), ("call mum", 0), ("water plants", 0), ("numbered item", 0),
        ("report", 0), ("write summary", 1), ("spell-check", 2),
    ]
    assert items[0].due == dt.date(2026, 3, 1)


def test_todotxt_priorities_completion_dates_projects_and_contexts():
    text = """(A) 2026-03-01 Call the landlord +home @phone due:2026-03-05
x 2026-03-02 2026-03-01 Pay the bill +home
(B) Renew library card @town
Water the plants
xylophone lesson
Fix the form due:2026-02-31
"""
    items = parse_todotxt(text)
    assert [(t.text, t.priority, t.due) for t in items] == [
        ("Call the landlord +home @phone", "A", dt.date(2026, 3, 5)),
        ("Renew library card @town", "B", None),
        ("Water the plants", None, None),
        ("xylophone lesson", None, None),  # a leading "x" without a space is not "done"
        ("Fix the form due:2026-02-31", None, None),  # not a real date: left for the person to see
    ]


def test_overdue_and_due_today_come_first_and_sub_items_move_with_their_parent():
    items = [
        Todo("someday", "todo.md"),
        Todo("(B) task", "todo.txt", priority="B"),
        Todo("report", "todo.md", due=dt.date(2026, 3, 10)),
        Todo("write summary", "todo.md", due=dt.date(2026, 3, 5), depth=1),
        Todo("rent", "todo.md", due=dt.date(2026, 3, 1)),
        Todo("tax", "todo.md", due=dt.date(2026, 2, 1)),
    ]
    assert [t.text for t in order(items, TODAY)] == [
        "tax", "rent", "report", "write summary", "(B) task", "someday",
    ]


def test_missing_todo_files_are_an_empty_list(tmp_path):
    assert read_todos(tmp_path, TODAY).items == ()
    assert read_todos(tmp_path / "no-such-folder", TODAY).problems == ()


def test_a_todo_file_that_is_not_utf8_is_named_and_the_other_still_read(tmp_path):
    (tmp_path / "todo.txt").write_bytes(b"(A) caf\xe9 run\n")
    (tmp_path / "todo.md").write_text("- [ ] buy milk\n", encoding="utf-8")
    todos = read_todos(tmp_path, TODAY)
    assert [t.text for t in todos.items] == ["buy milk"]
    [problem] = todos.problems
    assert problem.name == "todo.txt" and "not UTF-8" in problem.reason


# --- calendar files ----------------------------------------------------------------------

WEEKLY = """
SUMMARY:Standup
DTSTART;TZID=Asia/Shanghai:20260226T100000
DTEND;TZID=Asia/Shanghai:20260226T101500
RRULE:FREQ=WEEKLY;BYDAY=TH
EXDATE;TZID=Asia/Shanghai:20260305T100000
"""


def test_a_weekly_event_repeats_and_skips_its_exdate():
    calendar = ics(WEEKLY)
    assert events_on(calendar, TODAY, SHANGHAI) == []  # 2026-03-05 is excluded
    [event] = events_on(calendar, dt.date(2026, 3, 12), SHANGHAI)
    assert event.summary == "Standup"
    assert (event.start, event.end) == (dt.datetime(2026, 3, 12, 10, 0, tzinfo=SHANGHAI),
                                        dt.datetime(2026, 3, 12, 10, 15, tzinfo=SHANGHAI))
    assert events_on(calendar, dt.date(2026, 3, 11), SHANGHAI) == []


def test_all_day_events_belong_to_their_date_in_any_zone():
    calendar = ics("SUMMARY:Mum's birthday\nDTSTART;VALUE=DATE:20260305\nDTEND;VALUE=DATE:20260306",
                   "SUMMARY:Trip\nDTSTART;VALUE=DATE:20260304\nDTEND;VALUE=DATE:20260307")
    for zone in (SHANGHAI, ZoneInfo("America/Los_Angeles"), ZoneInfo("Pacific/Auckland")):
        events = events_on(calendar, TODAY, zone)
        assert summaries(events) == ["Mum's birthday", "Trip"]
        assert all(e.all_day for e in events)
        assert summaries(events_on(calendar, dt.date(2026, 3, 7), zone)) == []


def test_events_in_other_zones_are_shown_in_the_pets_zone_sorted_by_time():
    calendar = ics(
        "SUMMARY:Berlin call\nDTSTART;TZID=Europe/Berlin:20260305T090000\nDTEND;TZID=Europe/Berlin:20260305T093000",
        "SUMMARY:UTC sync\nDTSTART:20260305T010000Z\nDTEND:20260305T020000Z",
        "SUMMARY:Floating lunch\nDTSTART:20260305T120000",
        "SUMMARY:Late UTC\nDTSTART:20260305T170000Z",  # 01:00 on the 6th in Shanghai
        "SUMMARY:Early UTC\nDTSTART:20260304T170000Z",  # 01:00 on the 5th in Shanghai
        "SUMMARY:Holiday\nDTSTART;VALUE=DATE:20260305",
    )
    events = events_on(calendar, TODAY, SHANGHAI)
    assert [(e.summary, e.start and e.start.strftime("%H:%M")) for e in events] == [
        ("Holiday", None),
        ("Early UTC", "01:00"),
        ("UTC sync", "09:00"),
        ("Floating lunch", "12:00"),  # no zone: the pet's local time
        ("Berlin call", "16:00"),
    ]
    assert all(e.start is None or e.start.utcoffset() == dt.timedelta(hours=8) for e in events)


def test_a_repeat_in_another_zone_follows_that_zones_daylight_saving():
    # New York moves its clocks on 2026-03-08; Shanghai does not.
    calendar = ics("SUMMARY:NY standup\nDTSTART;TZID=America/New_York:20260226T090000\nRRULE:FREQ=WEEKLY;BYDAY=TH")
    assert events_on(calendar, dt.date(2026, 3, 5), SHANGHAI)[0].start.hour == 22
    assert events_on(calendar, dt.date(2026, 3, 12), SHANGHAI)[0].start.hour == 21


def test_the_pets_own_daylight_saving_day_has_the_right_bounds():
    # 2026-03-29 in Berlin has 23 hours: 02:00 jumps to 03:00.
    day = dt.date(2026, 3, 29)
    calendar = ics(
        "SUMMARY:Before\nDTSTART:20260328T225900Z",  # 23:59 on the 28th (CET)
        "SUMMARY:First\nDTSTART:20260328T230000Z",  # 00:00 on the 29th
        "SUMMARY:After jump\nDTSTART;TZID=Europe/Berlin:20260329T033000",
        "SUMMARY:Last\nDTSTART:20260329T215900Z",  # 23:59 CEST
        "SUMMARY:Next day\nDTSTART:20260329T220000Z",
        "SUMMARY:Daily\nDTSTART;TZID=Europe/Berlin:20260327T080000\nRRULE:FREQ=DAILY",
    )
    events = events_on(calendar, day, BERLIN)
    assert [(e.summary, e.start.strftime("%H:%M %z")) for e in events] == [
        ("First", "00:00 +0100"), ("After jump", "03:30 +0200"), ("Daily", "08:00 +0200"), ("Last", "23:59 +0200"),
    ]


def test_an_unparseable_calendar_is_a_problem_not_an_exception(tmp_path):
    (tmp_path / "calendar.ics").write_text("this is not a calendar\n", encoding="utf-8")
    (tmp_path / "work.ics").write_text(ics("SUMMARY:Review\nDTSTART:20260305T020000Z"), encoding="utf-8")
    agenda = read_agenda(tmp_path, TODAY, SHANGHAI)
    assert summaries(agenda.events) == ["Review"]
    [problem] = agenda.problems
    assert problem.name == "calendar.ics" and problem.reason


def test_the_shipped_example_calendar_and_todo_list():
    thursday = read_agenda(ASSETS, dt.date(2026, 1, 8), SHANGHAI)
    assert [(e.summary, e.start.strftime("%H:%M")) for e in thursday.events] == [
        ("站会 Team standup", "10:00"), ("Call with the Berlin office", "16:00"),
    ]
    assert thursday.problems == ()
    holiday = read_agenda(ASSETS, dt.date(2026, 2, 17), SHANGHAI)  # an EXDATE of the standup
    assert holiday.events == ()
    sunday = read_agenda(ASSETS, dt.date(2026, 1, 11), SHANGHAI)
    assert [(e.summary, e.all_day) for e in sunday.events] == [("洗衣日 Laundry day", True)]
    todos = read_todos(ASSETS, dt.date(2026, 1, 8))
    assert todos.items[0].text == "交房租" and "买牛奶" not in [t.text for t in todos.items]
    assert {"todo.md", "todo.txt"} == {t.source for t in todos.items}


# --- the plain brief -----------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "todo.md").write_text("- [ ] Pay rent due:2026-03-01\n- [ ] 给小钳换水\n", encoding="utf-8")
    (folder / "todo.txt").write_text("(A) Call Alice about the trip +travel due:2026-03-05\n", encoding="utf-8")
    (folder / "calendar.ics").write_text(ics(
        "SUMMARY:Dentist\nDTSTART;TZID=Asia/Shanghai:20260305T143000\nDTEND;TZID=Asia/Shanghai:20260305T153000",
        "SUMMARY:Berlin call\nDTSTART;TZID=Europe/Berlin:20260305T090000",
        "SUMMARY:Mum's birthday\nDTSTART;VALUE=DATE:20260305",
    ), encoding="utf-8")
    return folder


def test_the_plain_brief_lists_date_events_todos_and_reminders_in_english(workspace):
    reminder = DueReminder(dt.datetime(2026, 3, 5, 10, 0, tzinfo=dt.UTC), "take the medicine")
    brief = make_brief(persona(), None, workspace, NOW, language="en", reminders=[reminder])
    assert not brief.reworded and brief.text == brief.plain
    assert brief.text == """Good morning! Today is Thursday, 2026-03-05.

Today's calendar:
- All day: Mum's birthday
- 14:30–15:30 Dentist
- 16:00 Berlin call

Todo (3 open):
- Pay rent (overdue, was due 2026-03-01)
- (A) Call Alice about the trip +travel (due today)
- 给小钳换水

Reminders today:
- 18:00 take the medicine

— Xiaoqian"""


def test_the_plain_brief_speaks_the_pets_first_language(workspace):
    brief = make_brief(persona(), None, workspace, NOW.astimezone(dt.UTC))
    assert brief.text.startswith("早上好！今天是 2026-03-05，星期四。")
    assert "- 全天：Mum's birthday" in brief.text and "- 14:30–15:30 Dentist" in brief.text
    assert "- Pay rent（已逾期，原定 2026-03-01）" in brief.text
    assert brief.text.endswith("—— 小钳")


def test_an_unparseable_calendar_still_sends_the_todos_with_a_clear_note(workspace):
    (workspace / "calendar.ics").write_text("BEGIN:VCALENDAR\nthis is broken\n", encoding="utf-8")
    sent: list[tuple[str, str]] = []
    brief = send_brief(persona(), None, workspace, NOW, lambda text, kind: sent.append((text, kind)), language="en")
    [(text, kind)] = sent
    assert kind == "brief" and text == brief.text
    assert "Note: calendar.ics could not be read: " in text
    assert "Pay rent" in text and "Call Alice about the trip" in text
    assert "No events today." in text


def test_an_empty_workspace_gives_a_short_brief(tmp_path):
    brief = make_brief(persona(), None, tmp_path / "nothing-here", NOW, language="en")
    assert "No events today." in brief.text and "The todo list is empty." in brief.text


# --- the model's reword --------------------------------------------------------------------

GOOD_REWORD = (
    "Morning, human! Snip snap, it's Thursday 2026-03-05 and Mum's birthday! "
    "Dentist at 14:30–15:30, Berlin call at 16:00. Pay rent (it's late!), "
    "Call Alice about the trip today, and 给小钳换水 please."
)


def test_a_reword_that_keeps_everything_is_sent(workspace):
    model = ScriptedModel([GOOD_REWORD])
    brief = make_brief(persona(), model, workspace, NOW, language="en")
    assert brief.reworded and brief.text == GOOD_REWORD and brief.fallback == ""
    [call] = model.calls
    assert call.tools == ()
    system, user = call.messages
    assert system.role == "system" and "Xiaoqian" in system.content and "Tools:" not in system.content
    assert "- 14:30–15:30 Dentist" in user.content and "exactly as written" in user.content


def test_a_reword_keeps_file_problems_verbatim_below_it(workspace):
    (workspace / "calendar.ics").write_text("garbage", encoding="utf-8")
    reword = "Morning! No events. Pay rent, Call Alice about the trip and 给小钳换水."
    brief = make_brief(persona(), ScriptedModel([reword]), workspace, NOW, language="en")
    assert brief.reworded
    assert brief.text.startswith(reword) and "\n\nNote: calendar.ics could not be read: " in brief.text


def test_times_may_lose_a_leading_zero_and_items_their_case(tmp_path):
    (tmp_path / "calendar.ics").write_text(ics("SUMMARY:Yoga\nDTSTART;TZID=Asia/Shanghai:20260305T090000"),
                                           encoding="utf-8")
    brief = make_brief(persona(), ScriptedModel(["Yoga at 9:00, then rest!"]), tmp_path, NOW, language="en")
    assert brief.reworded
    brief = make_brief(persona(), ScriptedModel(["yoga at 19:00!"]), tmp_path, NOW, language="en")
    assert not brief.reworded and "'09:00'" in brief.fallback


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (BrainUnavailable("No model server at http://127.0.0.1:11434"), "the model failed: No model server"),
        ("", "empty"),
        ("   \n", "empty"),
        ("<think>Let me see…</think>", "empty"),
        (Completion(text="", tool_calls=(ToolCall("list_todos", {}),)), "empty"),
        ("\ufffd\ufffd" + GOOD_REWORD, "garbled"),
        (GOOD_REWORD * 20, "too long"),
        (GOOD_REWORD.replace("16:00", "4 pm"), "dropped '16:00'"),
        (GOOD_REWORD.replace("给小钳换水", "change the water"), "dropped '给小钳换水'"),
        ("早上好！" + "今天要做很多事情，加油！" * 3 + " 14:30 15:30 16:00 Dentist Berlin call Mum's birthday "
         "Pay rent Call Alice about the trip 给小钳换水", "not in en"),
    ],
)
def test_a_failed_or_unfaithful_reword_sends_the_plain_brief(workspace, answer, why):
    plain = make_brief(persona(), None, workspace, NOW, language="en").plain
    brief = make_brief(persona(), ScriptedModel([answer]), workspace, NOW, language="en")
    assert not brief.reworded
    assert brief.text == plain
    assert why in brief.fallback


def test_a_slow_model_is_not_waited_for(workspace):
    release = threading.Event()

    def slow(messages):
        release.wait(5)
        return GOOD_REWORD

    model = ScriptedModel([slow])
    try:
        brief = make_brief(persona(), model, workspace, NOW, language="en", timeout=0.05)
    finally:
        release.set()
    assert not brief.reworded and "longer than 0.05 s" in brief.fallback
    assert "- 14:30–15:30 Dentist" in brief.text


# --- pet brief --now --------------------------------------------------------------------------


def test_pet_brief_now_prints_the_reworded_brief(workspace, capsys, pet_home):
    from fakeserver import FakeOpenAIServer, Text

    shutil.copy(ASSETS / "todo.md", workspace / "todo.md")

    def echo(body):  # a faithful pet: repeats the brief it was asked to reword
        ask = body["messages"][-1]["content"]
        return Text("小钳报到！" + ask.split("---\n", 1)[1].rsplit("\n---", 1)[0])

    with FakeOpenAIServer() as server:
        server.enqueue(echo)
        code = main(["brief", "--now", "--workspace", str(workspace),
                     "--brain", "server", "--base-url", server.base_url])
        assert server.requests[0].get("tools") in (None, [])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("小钳报到！")
    assert "交房租" in out and "Write the summary" in out


def test_pet_brief_now_falls_back_to_the_plain_brief(workspace, capsys):
    from fakeserver import FakeOpenAIServer, Text

    with FakeOpenAIServer() as server:
        server.enqueue(Text(""))
        code = main(["brief", "--now", "--workspace", str(workspace),
                     "--brain", "server", "--base-url", server.base_url])
    captured = capsys.readouterr()
    assert code == 0
    assert "今天是" in captured.out and "Pay rent" in captured.out and captured.out.rstrip().endswith("—— 小钳")
    assert "plain brief: the model's answer was empty" in captured.err


def test_pet_brief_without_now_explains_itself(capsys):
    assert main(["brief"]) == 2
    assert "--now" in capsys.readouterr().err


# --- the daily job in the running app ------------------------------------------------------


def test_the_daily_job_puts_one_brief_per_morning_in_the_inbox(workspace, shanghai_persona, monkeypatch):
    from apscheduler.util import ref_to_obj

    from pet.app import build
    from pet.config import load_settings
    from pet.scheduler.brief import run_brief_job
    from pet.scheduler.core import BRIEF_JOB, run_for_home

    monkeypatch.setenv("PET_WORKSPACE", str(workspace))

    def clock():
        return NOW.astimezone(dt.UTC)

    model = ScriptedModel([BrainUnavailable("down"), GOOD_REWORD])
    app = build(load_settings(), brain=model, clock=clock)  # an injected clock: the scheduler is paused
    try:
        pet = app.pet.id
        app.reminders.add(pet, "take the medicine", dt.datetime(2026, 3, 5, 20, 0, tzinfo=SHANGHAI))
        app.reminders.add(pet, "yesterday's call", dt.datetime(2026, 3, 4, 20, 0, tzinfo=SHANGHAI))
        [job] = [j for j in app.scheduler.jobs() if j.id == f"brief-{pet}"]
        assert job.args[1] == BRIEF_JOB and ref_to_obj(BRIEF_JOB) is run_brief_job
        assert job.next_run.astimezone(SHANGHAI).strftime("%H:%M") == "09:00"

        run_for_home(app.scheduler.key, BRIEF_JOB, pet)  # what the job does at 09:00
        run_for_home(app.scheduler.key, BRIEF_JOB, pet)  # a second run that morning
        assert len(model.calls) == 1  # the second run stops before asking the model
        [row] = [m for m in app.inbox.recent(pet, now=clock()) if m.kind == "brief"]
        assert row.due_at == dt.datetime(2026, 3, 5, 9, 0, tzinfo=SHANGHAI)
        assert "- 20:00 take the medicine" in row.text and "yesterday's call" not in row.text
        assert "Pay rent" in row.text and row.text.endswith("—— 小钳")  # the model was down: plain
    finally:
        app.close()


def test_pet_brief_now_stores_the_brief_in_the_inbox(workspace, capsys):
    from pet.app import build
    from pet.config import load_settings

    assert main(["brief", "--now", "--plain", "--workspace", str(workspace)]) == 0
    printed = capsys.readouterr().out.strip()
    app = build(load_settings(), brain=ScriptedModel([]), scheduler="off")
    try:
        [row] = app.inbox.recent(app.pet.id)
        assert (row.kind, row.text) == ("brief", printed)
    finally:
        app.close()


@pytest.mark.slow
def test_a_rewording_past_its_time_limit_ends_without_a_native_crash(workspace, pet_home):
    """The embedded model still generating in a worker thread when the command
    ends used to take the process down with a segmentation fault (rc 139; 1
    run in 3 on a 2-core machine with this long list). Now it is stopped and
    closed before the process exits."""
    import subprocess
    import sys

    tasks = [f"- [ ] task {n}: call the plumber about the kitchen sink and buy {n} apples" for n in range(60)]
    (workspace / "todo.md").write_text("# Todo\n" + "\n".join(tasks) + "\n", encoding="utf-8")
    env = {**os.environ, "PET_BRIEF_REWORD_TIMEOUT": "0.5", "PET_HOME": str(pet_home)}
    for _ in range(4):
        done = subprocess.run(
            [sys.executable, "run.py", "brief", "--now", "--brain", "embedded", "--workspace", str(workspace)],
            cwd=Path(__file__).resolve().parents[1], env=env, capture_output=True, text=True, timeout=300,
        )
        assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
        assert "plain brief: the model took longer than 0.5 s" in done.stderr
        assert "task 0:" in done.stdout
