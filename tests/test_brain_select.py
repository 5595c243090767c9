"""`--brain auto` picks the server when it answers with the model, else embedded;
a whole turn then runs against the real server protocol."""

from __future__ import annotations

import socket

from fakeserver import FakeOpenAIServer, Text, ToolCalls

from pet.app import build
from pet.brain.select import BRAIN_KINDS, choose_brain
from pet.config import BRAINS, load_settings
from pet.events import Message, Reply, ToolFinished


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_auto_uses_a_server_that_answers_with_the_model():
    with FakeOpenAIServer(models=["qwen2.5:3b"]) as server:
        choice = choose_brain(load_settings({"base_url": server.base_url}))
    assert choice.tier == "server"
    assert choice.model.label == "server: qwen2.5:3b"


def test_auto_falls_back_to_embedded_when_nothing_answers():
    url = closed_port_url()
    choice = choose_brain(load_settings({"base_url": url}))
    assert choice.tier == "embedded"
    assert url in choice.reason


def test_auto_falls_back_to_embedded_when_the_server_lacks_the_model():
    with FakeOpenAIServer(models=["llama3.2:1b"]) as server:
        choice = choose_brain(load_settings({"base_url": server.base_url, "model": "qwen2.5:3b"}))
    assert choice.tier == "embedded"
    assert "ollama pull qwen2.5:3b" in choice.reason


def test_forced_tiers_are_respected_without_probing():
    url = closed_port_url()
    assert choose_brain(load_settings({"brain": "server", "base_url": url})).tier == "server"
    assert choose_brain(load_settings({"brain": "embedded", "base_url": url})).tier == "embedded"


def test_every_brain_the_settings_accept_can_be_made():
    assert BRAINS == ("auto", *BRAIN_KINDS)


def test_a_turn_with_a_native_tool_call_through_the_server(pet_home):
    with FakeOpenAIServer(models=["qwen2.5:3b"]) as server:
        server.enqueue(
            ToolCalls(("remember", '{"content": "codes after 11pm"}')),
            Text("本钳记住啦～ 你晚上11点后写代码！"),
        )
        app = build(load_settings({"base_url": server.base_url, "retries": 0, "reflexes": False}))
        assert app.brain.tier == "server"
        events = list(app.agent.run(app.current_conversation(), "记住：我晚上11点以后写代码"))
        server.assert_complete()
        first, second = server.requests
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.ok and "codes after 11pm" in result.content
    assert events[-1] == Reply("本钳记住啦～ 你晚上11点后写代码！", message_id=events[-1].message_id)
    assert first["stream"] is True
    assert {t["function"]["name"] for t in first["tools"]} >= {"remember", "recall", "forget"}
    assert "Simplified Chinese" in first["messages"][0]["content"]
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and "已记住 #1：codes after 11pm" in tool_message["content"]
    app.close()


def test_the_server_brain_caps_reply_length_from_settings():
    with FakeOpenAIServer(models=["qwen2.5:3b"]) as server:
        server.enqueue(Text("hi"), Text("hello"))
        choice = choose_brain(load_settings({"base_url": server.base_url, "max_reply_tokens": 300}))
        try:
            choice.model.complete([Message("user", "hi")])
            choice.model.complete([Message("user", "hi")], max_tokens=40)
        finally:
            choice.model.close()
        first, second = server.requests
    assert first["max_tokens"] == 300  # the default cap
    assert second["max_tokens"] == 40  # a call's own limit wins


def test_an_app_closes_the_model_it_made_but_not_one_it_was_given(pet_home):
    """A benchmark runs many apps on one model: closing one must leave the model working."""
    from pet.app import build
    from pet.brain.embedded import EmbeddedChatModel
    from pet.config import load_settings

    given = EmbeddedChatModel(None)
    build(load_settings(), brain=given, scheduler="off").close()
    assert not given._closing.is_set()

    made = build(load_settings({"brain": "embedded"}), scheduler="off")
    model = made.brain.model
    made.close()
    assert model._closing.is_set()


def test_the_embedded_brain_keeps_replies_brief_and_reflex_results_plain(pet_home):
    """Its wording of a reflex's result came late on 2 cores every time, and
    its prompt (no tools) evicted the conversation's from the cache; a server
    model words results and may tell a long story."""
    embedded = build(load_settings({"brain": "embedded"}), scheduler="off")
    server = build(load_settings({"brain": "server", "base_url": closed_port_url()}), scheduler="off")
    try:
        assert embedded.agent.config.wording_seconds == 0 and embedded.agent.config.reply_sentences == 4
        assert server.agent.config.wording_seconds > 0 and server.agent.config.reply_sentences == 0
    finally:
        embedded.close()
        server.close()
