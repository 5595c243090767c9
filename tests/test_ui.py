"""The chat UI through gradio_client against the app served on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest
from serving import stop_server

from pet.api.server import make_server, start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.errors import ConfigError
from pet.events import Completion

pytestmark = pytest.mark.slow


def text_of(message: dict) -> str:
    """Gradio may send content as a string or as a list of typed parts."""
    content = message["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content


@pytest.fixture
def served():
    """Start the real app with a scripted brain; yields (app, model, client)."""
    from serving import gradio_client

    running = []

    def start(model):
        # Reflexes off: these tests script the model's tool calls themselves.
        app = build(load_settings({"reflexes": False}), brain=model)
        server = start_in_thread(app, port=0)
        running.append((app, server))
        return app, gradio_client(server.url)

    yield start
    for app, server in running:
        stop_server(server)
        app.close()


def test_a_message_gets_a_streamed_reply_that_is_stored(served):
    app, client = served(ScriptedModel(["Hello there, I am a crayfish with opinions."]))
    job = client.submit("hi!", api_name="/chat")
    final = job.result(timeout=30)
    assert final[-1]["content"] == "Hello there, I am a crayfish with opinions."
    partials = [o[-1]["content"] for o in job.outputs() if o]
    assert len(partials) >= 3  # the reply arrived in pieces
    assert partials[0] != partials[-1] and partials[-1].startswith(partials[0])
    history = app.conversations.history(app.current_conversation())
    assert [(m.message.role, m.message.content) for m in history] == [
        ("user", "hi!"),
        ("assistant", "Hello there, I am a crayfish with opinions."),
    ]


def test_tool_steps_are_shown_with_their_result(served):
    model = ScriptedModel([Completion("", (call("remember", content="codes after 11pm"),)), "Clamped tight!"])
    app, client = served(model)
    final = client.predict("remember that I code after 11pm", api_name="/chat")
    tool, text = final
    assert tool["metadata"]["title"] == "🔧 remembered"
    assert "Saved memory #1: codes after 11pm" in tool["content"]
    assert text["content"] == "Clamped tight!"


def test_history_is_back_on_screen_after_a_restart(served):
    app, client = served(ScriptedModel(["First answer."]))
    client.predict("first question", api_name="/chat")

    _, restarted = served(ScriptedModel([]))  # same PET_HOME, a new process-like app
    shown = restarted.predict(api_name="/load_history")
    assert [(m["role"], text_of(m)) for m in shown] == [("user", "first question"), ("assistant", "First answer.")]


def test_clearing_the_chat_starts_a_new_conversation(served):
    app, client = served(ScriptedModel(["one"]))
    client.predict("hello", api_name="/chat")
    pet = app.first_pet().record.id
    before = app.conversations.latest(pet)
    client.predict(api_name="/new_conversation")
    assert app.conversations.latest(pet) != before
    assert client.predict(api_name="/load_history") == []


def test_a_huge_message_gets_a_clear_message_in_the_chat(served):
    app, client = served(ScriptedModel([]))
    final = client.predict("x" * 200_000, api_name="/chat")
    assert "200,000 characters" in final[-1]["content"]


def test_the_page_shows_the_pet_and_its_brain(served):
    app, client = served(ScriptedModel([]))
    with urllib.request.urlopen(client.src.rstrip("/") + "/config", timeout=10) as response:
        config = json.loads(response.read())
    text = json.dumps(config, ensure_ascii=False)
    assert "小钳 (Xiaoqian)" in text
    assert "`scripted`" in text
    with urllib.request.urlopen(client.src.rstrip("/") + "/healthz", timeout=10) as response:
        assert json.loads(response.read())["brain"] == "scripted"


def test_served_on_loopback_only():
    app = build(load_settings({"brain": "embedded"}), brain=ScriptedModel([]))
    server = start_in_thread(app, port=0)
    try:
        assert server.url.startswith("http://127.0.0.1:")
    finally:
        server.stop()
    lan = build(load_settings(), brain=ScriptedModel([]))
    object.__setattr__(lan, "settings", load_settings({"host": "0.0.0.0"}))
    with pytest.raises(ConfigError, match="refusing to listen on 0.0.0.0"):
        make_server(lan)


def test_gradio_analytics_are_off_when_the_ui_loads():
    env = {k: v for k, v in os.environ.items() if k != "GRADIO_ANALYTICS_ENABLED"}
    code = "import os, pet.ui.chat; print(os.environ['GRADIO_ANALYTICS_ENABLED'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
