"""The Trace tab shows the same turn trace as /api/debug: directly and
through gradio_client against the served app."""

from __future__ import annotations

import httpx
import pytest
from serving import stop_server

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import Completion
from pet.ui.trace_tab import TracePanel


def calc_turn(model: ScriptedModel, expression: str, answer: str) -> None:
    model.enqueue(Completion("", (call("calculate", expression=expression),)), answer)


@pytest.fixture
def app():
    application = build(load_settings({"reflexes": False, "scheduler": "off"}), brain=ScriptedModel([]))
    yield application
    application.close()


def test_the_newest_turn_is_shown_with_its_steps(app):
    panel = TracePanel(app)
    picker, summary, whole = panel.show(None)
    assert whole is None and summary.startswith("No turn traced")
    calc_turn(app.brain.model, "6*7", "It is 42.")
    calc_turn(app.brain.model, "1|2", "That is not a sum.")
    conversation = app.current_conversation()
    list(app.agent.run(conversation, "six times seven?"))
    list(app.agent.run(conversation, "one bar two?"))
    first, second = app.traces.recent(conversation)
    picker, summary, whole = panel.show(None)
    assert whole == second and picker.value == second["id"]
    assert [value for _, value in picker.choices] == [second["id"], first["id"]]  # newest first
    assert f"**Turn #{second['id']}**" in summary and "**You:** one bar two?" in summary
    rows = [line for line in summary.splitlines() if line.startswith("| ")][1:]
    sent = len(app.brain.model.calls[-2].messages)
    assert len(rows) == 3 and f"🧠 model 0 · {sent} messages" in rows[0] and "calls calculate" in rows[0]
    # the calculator refused "1|2"; the | in the row cannot break the table
    assert "⚠️ failed tool calculate" in rows[1] and "1\\|2" in rows[1]
    assert "That is not a sum." in rows[2]
    # an older turn, picked by id (as the dropdown sends it)
    _, older, shown = panel.show(str(conversation), str(first["id"]))
    assert shown == first and "→ 42" in older


@pytest.mark.slow
def test_the_tab_in_the_served_page_matches_the_debug_route(pet_home):
    from serving import gradio_client

    model = ScriptedModel([])
    application = build(load_settings({"reflexes": False, "scheduler": "paused"}), brain=model)
    server = start_in_thread(application, port=0)
    try:
        calc_turn(model, "6*7", "It is 42.")
        with httpx.Client(base_url=server.url, trust_env=False, timeout=30) as http:
            turn = http.post("/api/chat", json={"message": "six times seven?"}).json()
            [debug] = http.get(f"/api/debug/{turn['conversation_id']}").json()["traces"]
        client = gradio_client(server.url)
        picked, summary, whole = client.predict(None, api_name="/trace_refresh")
        assert picked["value"] == turn["trace_id"] and whole == debug
        assert "🔧 tool calculate" in summary and f"conversation {turn['conversation_id']}" in summary
        _picked, _summary, whole = client.predict(
            turn["conversation_id"], turn["trace_id"], api_name="/trace_show"
        )
        assert whole == debug
    finally:
        stop_server(server)
        application.close()
