"""Every turn leaves a trace: the exact messages the model was sent, each
tool call and result, timings and token counts, kept in the database."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.errors import BrainUnavailable
from pet.events import Completion, Reply, Usage


def make_app(model, **settings):
    settings.setdefault("reflexes", False)
    return build(load_settings(settings), brain=model)


def run(app, text, conversation=None):
    return list(app.agent.run(conversation or app.current_conversation(), text))


def reply_of(events) -> Reply:
    return next(e for e in events if isinstance(e, Reply))


def test_a_tool_turn_is_traced_step_by_step_with_the_exact_messages():
    model = ScriptedModel([
        Completion("", (call("remember", content="codes after 11pm"),), usage=Usage(812, 9)),
        "Noted: you code after 11pm!",
    ])
    app = make_app(model)
    reply = reply_of(run(app, "remember that I code after 11pm"))

    trace = app.traces.get(reply.trace_id)
    assert trace["text"] == "remember that I code after 11pm"
    assert trace["reply"] == reply.text and trace["partial"] is False
    kinds = [(s["kind"], s.get("name")) for s in trace["steps"]]
    assert kinds == [("model", None), ("tool", "remember"), ("model", None)]
    first, tool, second = trace["steps"]
    # exactly what the model received, call by call
    for step, sent in zip((first, second), model.calls):
        assert [(m["role"], m["content"]) for m in step["messages"]] == [(m.role, m.content) for m in sent.messages]
    assert "remember" in first["tools"]
    assert first["tool_calls"][0]["name"] == "remember"
    assert first["tool_calls"][0]["arguments"] == {"content": "codes after 11pm"}
    # the server's token counts when it gave them, estimates otherwise
    assert (first["prompt_tokens"], first["completion_tokens"], first["tokens_estimated"]) == (812, 9, False)
    assert second["tokens_estimated"] is True and second["prompt_tokens"] > 0
    assert second["text"] == "Noted: you code after 11pm!"
    assert tool["ok"] is True and tool["arguments"] == {"content": "codes after 11pm"}
    assert "codes after 11pm" in tool["content"]
    assert all(s["seconds"] >= 0 for s in trace["steps"])
    assert second["first_token_seconds"] is not None
    assert trace["seconds"] >= sum(s["seconds"] for s in trace["steps"]) * 0.5


def test_traces_are_listed_per_conversation_oldest_first_and_survive_a_restart(tmp_path):
    app = make_app(ScriptedModel(["one", "two"]))
    conversation = app.current_conversation()
    ids = [reply_of(run(app, text, conversation)).trace_id for text in ("first", "second")]
    other = app.new_conversation()
    app.agent.brain.enqueue("three")
    run(app, "elsewhere", other)
    app.close()

    again = make_app(ScriptedModel())
    assert [t["id"] for t in again.traces.recent(conversation)] == ids
    assert [t["text"] for t in again.traces.recent(conversation)] == ["first", "second"]
    assert [t["text"] for t in again.traces.recent(other)] == ["elsewhere"]
    assert [t["text"] for t in again.traces.recent(conversation, limit=1)] == ["second"]


def test_a_reflex_turn_names_its_intent():
    app = make_app(ScriptedModel(), reflexes=True)
    reply = reply_of(run(app, "/new"))
    trace = app.traces.get(reply.trace_id)
    assert trace["reflex"] is not None and trace["steps"] == []


def test_a_failed_model_call_is_in_the_trace_with_its_error():
    app = make_app(ScriptedModel([BrainUnavailable("no model server at 127.0.0.1:9")]))
    events = run(app, "hello?")
    trace = app.traces.get(reply_of(events).trace_id)
    assert trace["partial"] is True
    assert "no model server" in trace["steps"][0]["error"]
    assert any("no model server" in notice for notice in trace["notices"])


def test_a_turn_the_listener_abandons_is_still_closed():
    app = make_app(ScriptedModel(["a long answer that nobody waits for"]))
    conversation = app.current_conversation()
    events = app.agent.run(conversation, "hi")
    next(events)  # the person navigated away after the first delta
    events.close()
    [trace] = app.traces.recent(conversation)
    assert trace["partial"] is True and trace["text"] == "hi"


def test_only_the_newest_traces_are_kept_per_pet():
    app = make_app(ScriptedModel(["ok"] * 5), trace_keep=3)
    for n in range(5):
        run(app, f"message {n}")
    kept = app.traces.recent(app.current_conversation(), limit=10)
    assert [t["text"] for t in kept] == ["message 2", "message 3", "message 4"]


def test_a_model_steps_time_leaves_out_the_listeners_time_at_each_piece_of_text(monkeypatch):
    # a voice turn speaks each sentence while the step's stream waits at its text
    import types

    import pet.agent.loop
    import pet.agent.trace
    from pet.events import TextDelta

    now = [0.0]
    clock = types.SimpleNamespace(perf_counter=lambda: now[0])  # moves only when the listener works
    monkeypatch.setattr(pet.agent.trace, "time", clock)
    monkeypatch.setattr(pet.agent.loop, "time", clock)
    app = make_app(ScriptedModel(["Hello there. I was waiting for you all day long."]))
    events = []
    for event in app.agent.run(app.current_conversation(), "hi"):
        events.append(event)
        if isinstance(event, TextDelta):
            now[0] += 5.0  # the listener speaks the sentence
    (step,) = app.traces.get(reply_of(events).trace_id)["steps"]
    assert step["seconds"] == 0.0


def test_two_pets_taking_turns_are_both_pruned(tmp_path):
    # trace ids are shared by all pets: pruning on ids that are multiples of
    # PRUNE_EVERY never pruned a pet whose turns all fell on odd ids
    import datetime as dt

    from pet.memory.db import open_database
    from pet.memory.store import ConversationStore, PetStore, TraceStore

    db = open_database(f"sqlite:///{tmp_path / 'pond.db'}")
    try:
        pets = PetStore(db)
        one = pets.create("one", "one", dt.date(2026, 1, 1)).id
        two = pets.create("two", "two", dt.date(2026, 1, 1)).id
        chats = {pet: ConversationStore(db).create(pet) for pet in (one, two)}
        traces = TraceStore(db, keep=TraceStore.PRUNE_EVERY)
        for n in range(6 * TraceStore.PRUNE_EVERY):
            pet = (one, two)[n % 2]
            traces.save({"pet_id": pet, "conversation_id": chats[pet], "started_at": None, "steps": []})
        with closing(sqlite3.connect(tmp_path / "pond.db")) as conn, conn:
            counts = dict(conn.execute("SELECT pet_id, count(*) FROM traces GROUP BY pet_id").fetchall())
        assert all(counts[pet] <= traces.keep + TraceStore.PRUNE_EVERY for pet in (one, two)), counts
    finally:
        db.close()


def test_stages_measured_outside_the_agent_join_the_trace():
    app = make_app(ScriptedModel(["hi!"]))
    trace_id = reply_of(run(app, "hello")).trace_id
    app.traces.add_stages(trace_id, {"transcription": 1.25})
    app.traces.add_stages(trace_id, {"first_audio": 0.4})
    assert app.traces.get(trace_id)["stages"] == {"transcription": 1.25, "first_audio": 0.4}


def test_listeners_see_each_finished_trace():
    app = make_app(ScriptedModel(["hi!"]))
    seen = []
    app.traces.listeners.append(seen.append)
    trace_id = reply_of(run(app, "hello")).trace_id
    assert [t["id"] for t in seen] == [trace_id]


def test_the_trace_is_plain_json_in_the_database(tmp_path):
    app = make_app(ScriptedModel(["你好呀"]))
    trace_id = reply_of(run(app, "你好")).trace_id
    path = app.settings.database_path
    app.close()
    with closing(sqlite3.connect(path)) as conn, conn:
        (data,) = conn.execute("SELECT data FROM traces WHERE id = ?", (trace_id,)).fetchone()
    assert json.loads(data)["reply"] == "你好呀"
    assert "你好呀" in data  # readable, not escaped
