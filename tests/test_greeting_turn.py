"""The day's greeting through the agent, with an injected clock."""

from __future__ import annotations

import datetime as dt
import sqlite3
from contextlib import closing

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Reply, TextDelta

SHANGHAI = dt.timezone(dt.timedelta(hours=8))


class Clock:
    def __init__(self, moment: dt.datetime):
        self.moment = moment

    def __call__(self) -> dt.datetime:
        return self.moment


def make(clock, model):
    # a dated persona would need a file; the shipped one is adopted on first run
    return build(load_settings({"greeting": True, "reflexes": False}), brain=model, clock=clock)


def reply(app, text) -> tuple[str, str]:
    events = list(app.agent.run(app.current_conversation(), text))
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    return streamed, next(e.text for e in events if isinstance(e, Reply))


def test_first_message_of_each_day_is_greeted_and_stored(pet_home):
    clock = Clock(dt.datetime(2026, 12, 1, 9, 0, tzinfo=SHANGHAI))
    model = ScriptedModel(["Hi!", "Sure.", "Morning!", "Yes."])
    app = make(clock, model)
    streamed, final = reply(app, "hello")
    assert final.endswith("Hi!") and final != "Hi!"  # the first meeting comes first
    assert streamed == final
    assert reply(app, "how are you?")[1] == "Sure."  # same day: no second greeting

    clock.moment = dt.datetime(2026, 12, 2, 8, 0, tzinfo=SHANGHAI)
    streamed, final = reply(app, "good morning")
    assert final.endswith("Morning!") and "1" in final.split("\n\n")[0]  # one day together
    assert reply(app, "still there?")[1] == "Yes."
    stored = [m.message.content for m in app.conversations.history(app.current_conversation())
              if m.message.role == "assistant"]
    assert stored[2] == final  # the greeting is part of the stored reply
    app.close()


def test_local_midnight_not_utc_starts_the_day(pet_home, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    # 23:30 and 00:30 Shanghai time: the same UTC day, two local days
    clock = Clock(dt.datetime(2026, 12, 1, 15, 30, tzinfo=dt.timezone.utc))
    app = build(load_settings({"greeting": True, "reflexes": False}), brain=ScriptedModel(["a", "b"]),
                clock=clock)
    assert app.persona.zone().utcoffset(clock.moment.replace(tzinfo=None)) == dt.timedelta(hours=8)
    reply(app, "late")
    clock.moment = dt.datetime(2026, 12, 1, 16, 30, tzinfo=dt.timezone.utc)
    assert reply(app, "after midnight")[1] != "b"
    app.close()


def test_an_older_memory_is_brought_up(pet_home):
    clock = Clock(dt.datetime(2026, 12, 1, 9, 0, tzinfo=SHANGHAI))
    app = make(clock, ScriptedModel(["ok", "ok"]))
    reply(app, "hi")
    memory, _ = app.memories.remember(app.pet.id, "我最喜欢的颜色是蓝色")
    app.close()
    # make the memory ten days old, as if told long ago
    with closing(sqlite3.connect(pet_home / "pet.db")) as conn, conn:
        conn.execute("UPDATE memories SET created_at = '2026-11-20 01:00:00', updated_at = '2026-11-20 01:00:00'")
    clock.moment = dt.datetime(2026, 12, 5, 9, 0, tzinfo=SHANGHAI)
    app = make(clock, ScriptedModel(["ok"]))
    final = reply(app, "早上好")[1]
    assert "蓝色" in final.split("\n\n")[0]
    app.close()
