"""Load: 20 conversations × 20 messages at once, through the HTTP API of the
real server, with the scripted model. Nothing is lost, nothing is out of order
within a conversation, and no conversation hears another's words.

Throughput and p95 latency come from `python tests/bench/load.py`.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from pet.api.server import start_in_thread
from pet.app import App, build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Message, Reply

CONVERSATIONS = 20
MESSAGES = 20
_ASKED = re.compile(r"load c(\d+) m(\d+)")


def ask(conversation: int, index: int) -> str:
    return f"load c{conversation} m{index}"


def answer(conversation: int, index: int) -> str:
    return f"Heard c{conversation} m{index}, snip snap."


def echo(messages: Sequence[Message]) -> str:
    """The scripted model's answer to a turn: it names the message it read.
    Anything else (the history summary) gets a plain line."""
    found = _ASKED.fullmatch(messages[-1].content) if messages[-1].role == "user" else None
    return answer(int(found[1]), int(found[2])) if found else "We talked about numbered messages."


def load_app(**settings) -> App:
    settings.setdefault("scheduler", "off")
    return build(load_settings(settings), brain=ScriptedModel([echo], repeat_last=True))


# --- senders: how one message reaches the pet --------------------------------------------------

Send = Callable[[int, str], str]


def via_api(url: str) -> Send:
    def send(conversation_id: int, text: str) -> str:
        body = json.dumps({"message": text, "conversation_id": conversation_id}).encode()
        request = urllib.request.Request(url + "/api/chat", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())["reply"]

    return send


def via_agent(app: App) -> Send:
    def send(conversation_id: int, text: str) -> str:
        replies = [e for e in app.agent.run(conversation_id, text) if isinstance(e, Reply)]
        return replies[-1].text

    return send


# --- the load -------------------------------------------------------------------------------------


@dataclass
class Turn:
    slot: int  # which of the conversations
    index: int
    reply: str | None = None
    error: str | None = None
    seconds: float = 0.0


@dataclass
class Load:
    turns: list[Turn]
    seconds: float

    @property
    def throughput(self) -> float:
        return len(self.turns) / self.seconds

    def latency(self, share: float) -> float:
        times = sorted(t.seconds for t in self.turns)
        return times[min(len(times) - 1, int(share * len(times)))]


def run_load(send: Send, conversation_ids: list[int], messages: int) -> Load:
    """Each conversation gets its own thread; all start together (a
    barrier) and send `messages` messages one after the other, as a person
    waits for each reply."""
    turns = [[Turn(slot, i) for i in range(messages)] for slot in range(len(conversation_ids))]
    barrier = threading.Barrier(len(conversation_ids) + 1)

    def talk(slot: int) -> None:
        barrier.wait()
        for turn in turns[slot]:
            started = time.perf_counter()
            try:
                turn.reply = send(conversation_ids[slot], ask(slot, turn.index))
            except Exception as exc:  # recorded, and the test says which
                turn.error = f"{type(exc).__name__}: {exc}"
            turn.seconds = time.perf_counter() - started

    threads = [threading.Thread(target=talk, args=(slot,), name=f"load-{slot}") for slot in range(len(turns))]
    for thread in threads:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    return Load([t for row in turns for t in row], time.perf_counter() - started)


def check_load(app: App, conversation_ids: list[int], load: Load, model: ScriptedModel) -> None:
    """Every reply was the right one, every conversation holds exactly its
    messages in order, and the model only ever saw one conversation's words."""
    errors = [t.error for t in load.turns if t.error]
    assert errors == [], errors[:3]
    wrong = [(t.slot, t.index, t.reply) for t in load.turns if t.reply != answer(t.slot, t.index)]
    assert wrong == []
    messages = 1 + max(t.index for t in load.turns)
    for slot, conversation in enumerate(conversation_ids):
        stored = [(m.message.role, m.message.content, m.status) for m in app.conversations.history(conversation)]
        expected = []
        for i in range(messages):
            expected += [("user", ask(slot, i), "ok"), ("assistant", answer(slot, i), "ok")]
        assert stored == expected, f"conversation {conversation} (c{slot}) is not as sent"
    for recorded in model.calls:
        slots = {found[0] for m in recorded.messages for found in _ASKED.findall(m.content)}
        assert len(slots) <= 1, f"one model call saw several conversations: {sorted(slots)}"


# --- tests -----------------------------------------------------------------------------------------


@pytest.fixture
def served():
    app = load_app()
    server = start_in_thread(app, port=0)
    yield app, server.url
    server.stop()
    app.close()


@pytest.mark.slow
def test_twenty_conversations_of_twenty_messages_at_once_lose_nothing_and_keep_order(served):
    app, url = served
    conversations = [app.conversations.create(app.pet.id) for _ in range(CONVERSATIONS)]
    load = run_load(via_api(url), conversations, MESSAGES)
    assert len(load.turns) == CONVERSATIONS * MESSAGES
    check_load(app, conversations, load, app.brain.model)
    # Every turn asked the model once; the summary of long histories may ask more.
    assert len(app.brain.model.calls) >= CONVERSATIONS * MESSAGES


def test_twenty_messages_at_once_in_one_conversation_take_turns():
    """Sent together into one conversation, each message still gets its own
    reply right after it: one turn at a time per conversation."""
    app = load_app()
    try:
        conversation = app.conversations.create(app.pet.id)
        send = via_agent(app)
        replies: dict[int, str] = {}
        barrier = threading.Barrier(MESSAGES)

        def talk(i: int) -> None:
            barrier.wait()
            replies[i] = send(conversation, ask(0, i))

        threads = [threading.Thread(target=talk, args=(i,)) for i in range(MESSAGES)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert replies == {i: answer(0, i) for i in range(MESSAGES)}
        stored = [(m.message.role, m.message.content) for m in app.conversations.history(conversation)]
        assert len(stored) == 2 * MESSAGES
        for user, reply in zip(stored[::2], stored[1::2]):
            index = int(_ASKED.fullmatch(user[1])[2])
            assert (user[0], reply) == ("user", ("assistant", answer(0, index)))
        assert sorted(int(_ASKED.fullmatch(u[1])[2]) for u in stored[::2]) == list(range(MESSAGES))
    finally:
        app.close()
