"""The model server fails; the chat says what happened and the app keeps serving.

The app runs with `--brain server` against tests/fakeserver.py on 127.0.0.1
and is driven through gradio_client, as a browser would. How the brain itself
reads each failure is tests/test_openai_compat.py's subject; here it is what
the person sees in the chat, what is kept, and that the next message, the
other tabs and the API are answered (also while the model hangs).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest
from fakeserver import BadChunk, DieMidStream, FakeOpenAIServer, Garbage, Hang, Status, Text
from serving import stop_server

from pet.agent.guards import fallback_line
from pet.api.server import start_in_thread
from pet.app import build
from pet.config import load_settings
from pet.persona.model import load_persona
from pet.ui.render import CUT_SHORT

pytestmark = pytest.mark.slow

#: the pet's line when the model failed before saying anything (marked cut short, as the turn was)
BRAIN_DOWN = fallback_line("brain_down", "en", load_persona("xiaoqian")) + CUT_SHORT
#: what the person sees for each failure: (a notice, the pet's line)
FAULTS = {
    "hangs": (Hang(30), "did not answer within 1 s", BRAIN_DOWN),
    "answers garbage": (Garbage(), "is this an OpenAI-compatible server?", BRAIN_DOWN),
    "answers 500": (Status(500, "CUDA out of memory"), "answered 500: ", BRAIN_DOWN),
    "drops the connection mid-stream": (DieMidStream(("Once ", "upon ")), "in the middle of the answer",
                                        "Once upon" + CUT_SHORT),
    "sends a broken chunk": (BadChunk(("Once ", "upon ")), "not JSON", "Once upon" + CUT_SHORT),
}


def text_of(message: dict) -> str:
    content = message["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content


def post(url: str, payload: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.fixture
def brain():
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def served():
    """The app on a server brain at `base_url`, served on 127.0.0.1; yields
    start(base_url, **settings) -> (app, url, client). Short timeouts, no retries."""
    from serving import gradio_client

    running = []

    def start(base_url: str, **settings):
        settings = {"brain": "server", "base_url": base_url, "model": "fake-model", "read_timeout": 1.0,
                    "connect_timeout": 1.0, "retries": 0, "reflexes": False, "scheduler": "off", **settings}
        app = build(load_settings(settings))
        server = start_in_thread(app, port=0)
        client = gradio_client(server.url)
        running.append((app, server, client))
        return app, server.url, client

    yield start
    for app, server, client in running:
        stop_server(server)  # first: the server ends the client's heartbeat stream, so it closes at once
        client.close()
        app.close()


def words(text: str) -> str:
    return " ".join(text.split())


def chat_turn(client, text: str) -> tuple[list[str], str]:
    """One message through the UI: (the notices shown, the pet's last line)."""
    final = client.predict(text, api_name="/chat")
    shown = [text_of(m) for m in final]
    notices = [line for line in shown if line.startswith(("❌", "⚠️"))]
    said = [line for line in shown if line not in notices]
    return notices, said[-1]


def test_the_chat_says_what_went_wrong_and_the_next_message_is_answered(brain, served):
    _, _, client = served(brain.base_url)
    asked = []
    for fault, (behaviour, says, line) in FAULTS.items():
        brain.enqueue(behaviour)
        notices, said = chat_turn(client, f"tell me a story ({fault})")
        assert len(notices) == 1 and notices[0].startswith("❌"), (fault, notices)
        assert says in notices[0], fault
        assert brain.base_url in notices[0], fault  # which server failed
        assert words(said) == line, fault

        brain.enqueue(Text(f"Better now ({fault})."))
        assert chat_turn(client, "and now?") == ([], f"Better now ({fault})."), fault
        # What was said stays, marked cut short; so does the pet's line when nothing was said.
        asked += [f"tell me a story ({fault})", line]
        asked += ["and now?", f"Better now ({fault})."]
        history = client.predict(api_name="/load_history")
        assert [words(text_of(m)) for m in history] == asked, fault
    brain.assert_complete()


def test_no_server_at_all_is_named_with_what_to_do(brain, served):
    base_url = brain.base_url
    brain.stop()  # nothing listens there any more
    _, url, client = served(base_url)

    notices, said = chat_turn(client, "hello?")
    assert notices == [(f"❌ *No model server answers at {base_url} — start Ollama (`ollama serve`) "
                        "or run with --brain embedded*")]
    assert said == BRAIN_DOWN
    # The rest of the app does not depend on the model.
    saved = post(url + "/api/memories", {"content": "likes sea salt"})
    assert saved["created"] is True
    table = client.predict("sea salt", "all", api_name="/memory_list")
    assert [row[1] for row in table["data"]] == ["likes sea salt"]


def test_while_the_model_hangs_the_rest_of_the_app_answers(brain, served):
    release = threading.Event()

    def held(_body):  # the model thinks until the test lets it answer
        release.wait(60)
        return Text("Sorry, I was miles away.")

    brain.enqueue(held, Text("The other chat is answered."), Text("Doudou is here."))
    app, url, client = served(brain.base_url, read_timeout=90.0)
    doudou = app.create_pet("Doudou")
    from serving import gradio_client

    other = gradio_client(url)  # a second browser tab
    try:
        job = client.submit("are you there?", api_name="/chat")
        deadline = time.monotonic() + 60
        while brain.hits < 1:
            assert time.monotonic() < deadline, "the chat never reached the model"
            assert not job.done(), job.result()
            time.sleep(0.05)

        # While that turn waits for the model: the memory tab, the history, another
        # conversation's chat over the API, the health check, the page and another
        # pet's chat in another tab all answer.
        app.memories.remember(app.pet.id, "likes oolong tea")
        table = other.predict("oolong", "all", api_name="/memory_list")
        assert [row[1] for row in table["data"]] == ["likes oolong tea"]
        assert [text_of(m) for m in other.predict(api_name="/load_history")] == ["are you there?"]
        conversation = post(url + "/api/conversations", {})["conversation_id"]
        assert post(url + "/api/chat", {"message": "hi", "conversation_id": conversation})["reply"] == (
            "The other chat is answered.")
        with urllib.request.urlopen(url + "/healthz", timeout=30) as response:
            assert json.loads(response.read())["status"] == "ok"
        with urllib.request.urlopen(url + "/", timeout=30) as response:
            assert response.status == 200
        # The other tab talks with another pet: its chat does not queue behind the held turn.
        other.predict(doudou.record.id, api_name="/switch_pet")
        assert text_of(other.predict("hello Doudou", api_name="/chat")[-1]) == "Doudou is here."
        assert not job.done(), "the held turn ended before the model answered"
    finally:
        release.set()
        other.close()
    final = job.result(timeout=60)
    assert text_of(final[-1]) == "Sorry, I was miles away."
    brain.assert_complete()
