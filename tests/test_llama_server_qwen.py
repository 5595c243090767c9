"""The server tier against a real tool-calling model.

`python -m llama_cpp.server` serves the packaged Qwen2.5-Coder-0.5B GGUF on
127.0.0.1 with the chat template from its metadata, so the model writes its
own tool calls. The pet talks to it as to any OpenAI-compatible server, with
reflexes off so that the model, not a pattern, decides: remember a fact,
start a new conversation, ask about it.

Slow (joins a 491 MB model and runs a 0.5B model on the CPU): about a minute
on a quiet 2-core machine.
"""

from __future__ import annotations

import datetime as dt

import pytest

from pet.app import build
from pet.brain import ladder
from pet.config import load_settings
from pet.events import Reply, ToolFinished, ToolStarted
from tests.llamaserver import LlamaServer

pytestmark = pytest.mark.slow

ALIAS = "qwen2.5-coder-0.5b"
NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is not installed")
    if ladder.missing_parts(ladder.SMALL):
        pytest.skip(f"the small model is not installed: {ladder.SMALL.install}")
    gguf = ladder.model_file(ladder.SMALL, tmp_path_factory.mktemp("models-home"))
    # A fixed seed: the same prompt gets the same sampled reply.
    with LlamaServer(gguf, alias=ALIAS, n_ctx=4096, extra=("--seed", "7")) as running:
        yield running


def test_remember_then_recall_in_a_new_conversation_through_the_pet(server, pet_home):
    app = build(load_settings({"base_url": server.base_url, "model": ALIAS, "retries": 0, "reflexes": False}),
                clock=lambda: NOON, scheduler="off")
    try:
        assert app.brain.tier == "server"
        first = list(app.agent.run(app.current_conversation(), "Remember that I like green tea."))
        calls = [e.call.name for e in first if isinstance(e, ToolStarted)]
        assert calls and calls[0] == "remember", first
        results = [e.result for e in first if isinstance(e, ToolFinished)]
        assert results[0].ok, results
        assert [r.name for r in results].count("remember") == 1, "a call the model asked for again was run twice"
        stored = [m.content for m in app.memories.listing(app.pet.id)]
        assert any("green tea" in text.lower() for text in stored), stored
        assert isinstance(first[-1], Reply) and first[-1].text.strip()

        conversation = app.new_conversation()
        second = list(app.agent.run(conversation, "What do I like to drink?"))
        reply = second[-1]
        assert isinstance(reply, Reply)
        recalled = " ".join(e.result.content for e in second if isinstance(e, ToolFinished))
        # The fact reaches the person: through a recall call or from the memories in the prompt.
        assert "tea" in (reply.text + " " + recalled).lower(), second
    finally:
        app.close()
