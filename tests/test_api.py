"""The REST API through a real HTTP client against the app served on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
import json
import threading
from typing import Iterator

import httpx
import pytest

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.errors import BrainUnavailable
from pet.events import Completion

pytestmark = pytest.mark.slow


@pytest.fixture
def served(pet_home):
    """Start the real app with a scripted brain; yields (app, client)."""
    running = []

    def start(model, plugin: str | None = None, **settings):
        if plugin:
            (pet_home / "tools").mkdir(parents=True, exist_ok=True)
            (pet_home / "tools" / "dice.py").write_text(plugin, encoding="utf-8")
        app = build(load_settings({"reflexes": False, "scheduler": "paused", **settings}), brain=model)
        server = start_in_thread(app, port=0)
        client = httpx.Client(base_url=server.url, trust_env=False, timeout=30)
        running.append((app, server, client))
        return app, client

    yield start
    for app, server, client in running:
        client.close()
        server.stop()
        app.close()


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, dict]]:
    """A small reader of server-sent events, apart from the product's own."""
    name, data = None, []
    for line in lines:
        if line == "":
            if name is not None:
                yield name, json.loads("".join(data))
            name, data = None, []
        elif line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: "):
            data.append(line[len("data: ") :])


def calc_script() -> list:
    return [Completion("", (call("calculate", expression="6*7"),)), "Six times seven is 42."]


def test_chat_answers_as_json_with_its_tool_steps_and_trace(served):
    app, client = served(ScriptedModel(calc_script()))
    response = client.post("/api/chat", json={"message": "what is six times seven?"})
    assert response.status_code == 200
    body = response.json()
    assert body["reply"] == "Six times seven is 42." and body["partial"] is False
    assert body["conversation_id"] == app.current_conversation() and body["pet_id"] == app.pet.id
    [step] = body["tools"]
    assert (step["name"], step["arguments"], step["ok"], step["content"]) == (
        "calculate",
        {"expression": "6*7"},
        True,
        "42",
    )
    assert body["trace_id"] is not None and app.traces.get(body["trace_id"])["reply"] == body["reply"]
    history = [
        (m.message.role, m.message.content) for m in app.conversations.history(body["conversation_id"])
    ]
    assert history[0] == ("user", "what is six times seven?") and history[-1] == ("assistant", body["reply"])


def test_a_streamed_turn_arrives_as_server_sent_events_while_it_runs(served):
    seen_tool = threading.Event()
    released = []

    def second_answer(_messages):
        # the model only answers once the client has the tool's result: the
        # events must reach it while the turn is still running
        released.append(seen_tool.wait(timeout=20))
        # not the question restated: the echo guard holds a reply back while it may be one;
        # and the figure guard holds each sentence of a sum's answer until it ends
        return "That makes 42. Easy for my claws, see them snap!"

    app, client = served(
        ScriptedModel([Completion("", (call("calculate", expression="6*7"),)), second_answer])
    )
    events = []
    with client.stream("POST", "/api/chat", json={"message": "six times seven?", "stream": True}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for name, data in sse_events(response.iter_lines()):
            events.append((name, data))
            if name == "tool_finished":
                seen_tool.set()
    assert released == [True]
    names = [name for name, _ in events]
    assert names[0] == "start" and names[-1] == "reply"
    assert names.index("tool_started") < names.index("tool_finished") < names.index("delta")
    started = dict(events)["tool_started"]
    assert started["name"] == "calculate" and started["arguments"] == {"expression": "6*7"}
    assert dict(events)["tool_finished"]["content"] == "42" and dict(events)["tool_finished"]["ok"] is True
    reply = dict(events)["reply"]
    text = "".join(data["text"] for name, data in events if name == "delta")
    assert text == reply["text"] == "That makes 42. Easy for my claws, see them snap!"
    assert len([n for n in names if n == "delta"]) > 1  # in pieces, not one lump
    assert reply["trace_id"] == app.traces.recent(reply["conversation_id"], limit=1)[0]["id"]


def test_a_client_leaving_a_stream_ends_the_turn_and_frees_the_conversation(served):
    import gc

    thinking, release = threading.Event(), threading.Event()

    def slow(_messages):
        thinking.set()
        release.wait(timeout=20)
        return "a long answer " * 20

    app, client = served(ScriptedModel([slow, "still here"]), greeting=False)
    ended = threading.Event()
    app.traces.listeners.append(lambda trace: ended.set())
    # Without an explicit close only a collection of cycles would end the
    # abandoned turn; with the collector off, nothing else can.
    gc.disable()
    try:
        with client.stream("POST", "/api/chat", json={"message": "tell me a story", "stream": True}) as response:
            assert response.status_code == 200
            assert thinking.wait(timeout=20)  # the turn holds its conversation now
        release.set()  # the client has gone; the model answers into nothing
        assert ended.wait(timeout=20), "the abandoned turn never ended"
    finally:
        gc.enable()
    [abandoned] = app.traces.recent(app.current_conversation(), limit=1)
    assert abandoned["text"] == "tell me a story" and abandoned["partial"] is True
    answer = client.post("/api/chat", json={"message": "are you there?"})
    assert answer.status_code == 200 and answer.json()["reply"] == "still here"


def test_a_failing_model_streams_a_notice_and_a_partial_reply(served):
    app, client = served(ScriptedModel([BrainUnavailable("No model server answers — start Ollama")]))
    with client.stream("POST", "/api/chat", json={"message": "hi", "stream": True}) as response:
        events = list(sse_events(response.iter_lines()))
    notices = [data for name, data in events if name == "notice"]
    assert notices and notices[0]["level"] == "error" and "start Ollama" in notices[0]["text"]
    assert dict(events)["reply"]["partial"] is True


def test_new_starts_a_conversation_that_later_turns_follow(served):
    app, client = served(ScriptedModel(["First!", "Second!", "Third!"]))
    first = client.post("/api/chat", json={"message": "hello"}).json()
    new = client.post("/api/chat", json={"message": "/new"}).json()
    assert new["conversation_id"] != first["conversation_id"]
    assert app.conversations.latest(app.pet.id) == new["conversation_id"]  # the latest, which later turns get
    again = client.post("/api/chat", json={"message": "hi again"}).json()
    assert again["conversation_id"] == new["conversation_id"] and again["reply"] == "Second!"
    older = client.post(
        "/api/chat", json={"message": "back here", "conversation_id": first["conversation_id"]}
    )
    assert older.status_code == 200 and older.json()["conversation_id"] == first["conversation_id"]
    said = [m.message.content for m in app.conversations.history(first["conversation_id"])]
    assert said[-2:] == ["back here", "Third!"]


def test_conversations_and_pets_are_checked(served):
    app, client = served(ScriptedModel(["Hi from Doudou!"]))
    doudou = app.create_pet("Doudou")
    response = client.post("/api/chat", json={"message": "hello", "pet": "doudou"})
    assert response.status_code == 200 and response.json()["pet_id"] == doudou.record.id
    mine = response.json()["conversation_id"]
    assert app.conversations.pet_of(mine) == doudou.record.id
    wrong = client.post("/api/chat", json={"message": "hello", "pet": app.pet.id, "conversation_id": mine})
    assert wrong.status_code == 409 and "belongs to pet" in wrong.json()["detail"]
    missing = client.post("/api/chat", json={"message": "hello", "conversation_id": 9999})
    assert missing.status_code == 404 and "no conversation 9999" in missing.json()["detail"]
    nobody = client.post("/api/chat", json={"message": "hello", "pet": "nobody"})
    assert nobody.status_code == 404 and "doudou" in nobody.json()["detail"]
    assert client.get("/api/tools", params={"pet": str(doudou.record.id)}).status_code == 200
    assert client.get("/api/tools", params={"pet": "²"}).status_code == 404  # a digit to Python, not a number
    fresh = client.post("/api/conversations", json={"pet": "doudou"})
    assert (
        fresh.status_code == 201
        and app.conversations.pet_of(fresh.json()["conversation_id"]) == doudou.record.id
    )


@pytest.mark.parametrize(
    "body, field",
    [
        ({"message": ""}, "message"),
        ({}, "message"),
        ({"message": 5}, "message"),
        ({"message": "hi", "stream": "maybe"}, "stream"),
        ({"message": "hi", "conversation_id": 0}, "conversation_id"),
        ({"message": "hi", "conversation_id": 2**70}, "conversation_id"),
        ({"message": "hi", "mood": "happy"}, "mood"),
    ],
)
def test_bad_chat_requests_get_a_clear_422(served, body, field):
    app, client = served(ScriptedModel([]))
    response = client.post("/api/chat", json=body)
    assert response.status_code == 422
    assert field in response.json()["detail"] and response.json()["detail"].startswith("bad request")
    assert app.conversations.history(app.current_conversation()) == []  # nothing half-done


def test_a_body_that_is_not_json_is_refused(served):
    _app, client = served(ScriptedModel([]))
    response = client.post("/api/chat", content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and "JSON" in response.json()["detail"]
    lone = client.post(
        "/api/chat", content=b'{"message": "\\ud800"}', headers={"Content-Type": "application/json"}
    )
    assert lone.status_code == 422 and "unicode" in lone.json()["detail"]  # the database could not keep it


def test_tools_lists_schemas_side_effects_and_plugins(served):
    plugin = (
        "from pet.tools.plugins import tool\n\n@tool(side_effect=False)\n"
        'def roll_dice(sides: int = 6) -> str:\n    """Roll a die."""\n    return "4"\n'
    )
    app, client = served(ScriptedModel([]), plugin=plugin)
    tools = {t["name"]: t for t in client.get("/api/tools").json()}
    assert set(tools) == set(app.tools.names())
    assert tools["remember"]["side_effect"] is True and tools["recall"]["side_effect"] is False
    assert tools["remember"]["parameters"]["required"] == ["content"]
    assert tools["roll_dice"]["plugin"] is True and tools["calculate"]["plugin"] is False
    assert tools["roll_dice"]["parameters"]["properties"]["sides"]["type"] == "integer"


def test_debug_shows_the_exact_messages_tool_calls_timings_and_tokens(served):
    model = ScriptedModel(calc_script())
    app, client = served(model)
    turn = client.post("/api/chat", json={"message": "what is six times seven?"}).json()
    response = client.get(f"/api/debug/{turn['conversation_id']}")
    assert response.status_code == 200
    [trace] = response.json()["traces"]
    assert trace == app.traces.get(turn["trace_id"])  # nothing lost on the way
    assert trace["id"] == turn["trace_id"] and trace["text"] == "what is six times seven?"
    first, tool, second = trace["steps"]
    assert [first["kind"], tool["kind"], second["kind"]] == ["model", "tool", "model"]
    # exactly what the scripted model received
    sent = [m.content for m in model.calls[0].messages]
    assert [m["content"] for m in first["messages"]] == sent and first["messages"][-1]["role"] == "user"
    assert first["tool_calls"][0]["name"] == "calculate" and "calculate" in first["tools"]
    assert (tool["name"], tool["arguments"], tool["content"], tool["ok"]) == (
        "calculate",
        {"expression": "6*7"},
        "42",
        True,
    )
    assert first["prompt_tokens"] > 0 and first["seconds"] >= 0 and trace["seconds"] >= first["seconds"]
    assert second["text"] == "Six times seven is 42."
    assert client.get("/api/debug/9999").status_code == 404
    assert client.get("/api/debug/0").status_code == 422


def test_memories_can_be_listed_created_and_forgotten(served):
    app, client = served(ScriptedModel([]))
    made = client.post(
        "/api/memories", json={"content": "  likes   green tea ", "tag": "food", "pinned": True}
    )
    assert made.status_code == 201
    memory = made.json()["memory"]
    assert (memory["content"], memory["tag"], memory["pinned"]) == ("likes green tea", "food", True)
    # the person's own act: active at once, never waiting for approval
    assert (memory["asserted_by"], memory["status"]) == ("person", "active")
    again = client.post("/api/memories", json={"content": "likes green tea"})
    assert again.status_code == 200 and again.json()["created"] is False
    listed = client.get("/api/memories").json()
    assert [m["id"] for m in listed] == [memory["id"]]
    assert app.memories.get(app.pet.id, memory["id"]).content == "likes green tea"
    gone = client.delete(f"/api/memories/{memory['id']}")
    assert gone.status_code == 200 and client.get("/api/memories").json() == []
    assert [m["id"] for m in client.get("/api/memories", params={"forgotten": "true"}).json()] == [
        memory["id"]
    ]
    assert client.delete(f"/api/memories/{memory['id']}").status_code == 404
    blank = client.post("/api/memories", json={"content": "   "})
    assert blank.status_code == 422 and "blank" in blank.json()["detail"]
    assert client.post("/api/memories", json={"content": "x" * 1001}).status_code == 422


def test_reminders_can_be_listed_set_and_cancelled(served):
    app, client = served(ScriptedModel([]))
    made = client.post("/api/reminders", json={"text": "call mom", "when": "in 20 minutes"})
    assert made.status_code == 201
    reminder = made.json()
    assert reminder["text"] == "call mom" and reminder["repeat"] == "none" and reminder["status"] == "pending"
    assert [r.id for r in app.reminders.pending(app.pet.id)] == [reminder["id"]]
    from pet.scheduler.core import reminder_job_id

    assert reminder_job_id(reminder["id"]) in [job.id for job in app.scheduler.jobs()]  # it will fire
    year = dt.date.today().year + 2
    exact = client.post(
        "/api/reminders",
        json={"text": "stretch", "due_at": f"{year}-01-01T09:00:00+08:00", "repeat": "daily"},
    ).json()
    assert exact["due_at"].startswith(f"{year}-01-01T01:00:00") and exact["repeat"] == "daily"
    assert [r["id"] for r in client.get("/api/reminders").json()] == [reminder["id"], exact["id"]]
    for body, words in [
        ({"text": "x", "due_at": "2001-01-01T00:00:00Z"}, "has passed"),
        ({"text": "x"}, "one of the two"),
        ({"text": "x", "when": "soon-ish", "due_at": f"{year}-01-01T00:00:00Z"}, "one of the two"),
        ({"text": "x", "when": "purple o'clock"}, "as a time"),
        ({"text": "x", "due_at": "9999-12-31T23:59:59-12:00"}, "too far ahead"),
        ({"text": "x", "when": "in 5 minutes", "repeat": "hourly"}, "repeat"),
    ]:
        refused = client.post("/api/reminders", json=body)
        assert refused.status_code == 422 and words in refused.json()["detail"], (body, refused.text)
    cancelled = client.delete(f"/api/reminders/{reminder['id']}")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert client.delete(f"/api/reminders/{reminder['id']}").status_code == 409
    assert client.delete("/api/reminders/9999").status_code == 404
    assert [r.id for r in app.reminders.pending(app.pet.id)] == [exact["id"]]
    assert reminder_job_id(reminder["id"]) not in [job.id for job in app.scheduler.jobs()]


def metric(text: str, line_start: str) -> float:
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(line_start)]
    assert len(values) == 1, line_start
    return values[0]


def test_metrics_count_turns_model_latency_tool_calls_and_errors(served):
    model = ScriptedModel([*calc_script(), BrainUnavailable("the server went away")])
    app, client = served(model)
    client.post("/api/chat", json={"message": "six times seven?"})
    client.post("/api/chat", json={"message": "and now?"})
    response = client.get("/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert metric(text, 'pet_turns_total{outcome="ok",path="model"}') == 1
    assert metric(text, 'pet_turns_total{outcome="partial",path="model"}') == 1
    assert metric(text, 'pet_model_call_seconds_count{purpose="reply"}') == 3
    assert metric(text, 'pet_tool_calls_total{outcome="ok",tool="calculate"}') == 1
    assert metric(text, 'pet_errors_total{kind="model"}') == 1
    assert metric(text, 'pet_errors_total{kind="turn"}') == 1
    assert metric(text, 'pet_model_call_seconds_bucket{le="+Inf",purpose="reply"}') == 3


def test_routes_win_over_the_ui_and_the_document_describes_them(served):
    _app, client = served(ScriptedModel([]))
    assert "<html" in client.get("/").text.lower()  # the UI still owns "/"
    assert client.get("/healthz").json()["status"] == "ok"
    document = client.get("/openapi.json").json()
    assert {
        "/api/chat",
        "/api/tools",
        "/api/debug/{conversation_id}",
        "/api/memories",
        "/api/memories/{memory_id}",
        "/api/reminders",
        "/api/reminders/{reminder_id}",
        "/metrics",
    } <= set(document["paths"])
    chat = document["components"]["schemas"]["ChatRequest"]
    assert chat["required"] == ["message"] and chat["additionalProperties"] is False


def test_made_up_tool_names_cannot_grow_the_metrics_without_end():
    from pet.api.metrics import MAX_TOOL_LABELS, PetMetrics

    metrics = PetMetrics()
    for n in range(MAX_TOOL_LABELS + 50):
        metrics.record_turn({"steps": [{"kind": "tool", "name": f"invented_{n}", "ok": False}]})
    text = metrics.exposition().decode()
    named = {line.split('tool="')[1].split('"')[0] for line in text.splitlines()
             if line.startswith("pet_tool_calls_total{")}
    assert len(named) == MAX_TOOL_LABELS + 1 and "other" in named
    assert 'pet_tool_calls_total{outcome="error",tool="other"} 50.0' in text


def test_conversations_are_listed_renamed_deleted_and_restored(served):
    app, client = served(ScriptedModel(["One.", "Two.", "Three."]))
    first = client.post("/api/chat", json={"message": "first   words of the first"}).json()["conversation_id"]
    second = client.post("/api/conversations", json={}).json()["conversation_id"]
    client.post("/api/chat", json={"message": "second one", "conversation_id": second})
    listed = client.get("/api/conversations").json()
    assert [(c["id"], c["title"]) for c in listed] == [(second, "second one"), (first, "first words of the first")]

    renamed = client.patch(f"/api/conversations/{first}", json={"title": "  tea  talk "})
    assert renamed.status_code == 200 and renamed.json()["title"] == "tea talk"
    assert client.patch(f"/api/conversations/{first}", json={"title": "   "}).status_code == 422

    gone = client.delete(f"/api/conversations/{second}")
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    assert [c["id"] for c in client.get("/api/conversations").json()] == [first]
    assert len(app.conversations.history(second)) == 2  # deleted from the list, not erased
    # a request naming no conversation talks in the latest one on the list
    assert client.post("/api/chat", json={"message": "where am I?"}).json()["conversation_id"] == first
    back = client.post(f"/api/conversations/{second}/restore")
    assert back.status_code == 200 and back.json()["deleted"] is False
    assert second in [c["id"] for c in client.get("/api/conversations").json()]
    assert client.delete("/api/conversations/999").status_code == 404


def test_a_request_naming_no_pet_talks_with_the_first_whatever_the_pages_chose(served):
    app, client = served(ScriptedModel(["Xiaoqian here.", "Doudou here."]))
    doudou = app.create_pet("Doudou")
    app.switch_pet(doudou.record.id)  # what a page or the terminal chose last
    body = client.post("/api/chat", json={"message": "who is there?"}).json()
    assert body["pet_id"] == app.first_pet().record.id != doudou.record.id
    named = client.post("/api/chat", json={"message": "and you?", "pet": "doudou"}).json()
    assert named["pet_id"] == doudou.record.id and named["reply"] == "Doudou here."
