"""Numbers people and models type never crash a request: huge, negative,
zero, fractional, written with full-width or Arabic-Indic digits, or not
numbers at all. Every slash command, the reflexes that read a number, every
tool argument that holds one, the panels behind the web UI and the REST
routes that take ids each answer with a clear message: no exception, no
error logged, no HTTP 5xx.

Ids past SQLite's 64 bits are "no such memory/reminder"; delays past a year
are "too far away", in the message's language."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pet.api.server import start_in_thread
from pet.app import App, build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Completion, Message, Reply, ToolCall, ToolFinished
from pet.ui.inbox_tab import InboxPanel
from pet.ui.memory_tab import MemoryPanel
from pet.ui.persona_tab import PersonaPanel
from pet.ui.pond_tab import PondLine, PondPanel
from pet.ui.trace_tab import TracePanel

pytestmark = pytest.mark.slow

HUGE = "99999999999999999999"
#: numbers as text, the way a person or a model might write them
TYPED = [
    HUGE, "9223372036854775807", "9223372036854775808", "-9223372036854775809", "9" * 400, "9" * 5000,
    "-1", "0", "1.5", "1e400", "１２３", "９" * 20, "٣", "٣" * 25, "३", "²", "一百亿亿亿", "NaN", "1_000",
]
#: numbers as JSON values a model might put in an integer or number argument
VALUES: list[Any] = [10**20, -(10**20), 2**63, 2**63 - 1, 0, -1, 1.5, 1e308, float("inf"), float("nan")]

SLASH = [
    "/approve {n}", "/approve #{n}", "/cancel {n}", "/cancel #{n}", "/forget {n}", "/forget #{n}",
    "/undo {n}", "/recall {n}", "/remember the number {n}", "/remind in {n} minutes drink tea",
    "/remind in {n} days drink tea", "/remind {n}分钟后 喝水", "/remind {n}天后 喝水", "/remind at {n} tea",
    "/todo buy {n} eggs", "/todos {n}", "/reminders {n}", "/help {n}", "/yes {n}", "/no {n}", "/new {n}", "/{n}",
]
SENTENCES = [
    "remind me in {n} minutes to drink water", "remind me in {n} hours and {n} minutes to stretch",
    "提醒我{n}分钟后喝水", "{n}小时后提醒我喝水", "cancel reminder {n}", "取消{n}号提醒", "forget #{n}",
    "what is {n} + 1", "{n} * {n}",
]
#: what a crash looks like once the registry or the loop has turned it into text
CRASH_SIGNS = ("Traceback", "OverflowError", "ValueError", "TypeError", "Exception", "failed: ")


def assert_clear(text: str, case: str) -> None:
    assert text.strip(), f"{case}: empty answer"
    assert not any(sign in text for sign in CRASH_SIGNS), f"{case}: {text[:300]}"


def assert_nothing_logged(caplog: pytest.LogCaptureFixture, case: str) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, f"{case}: {errors[0].getMessage()[:300]}"


#: the tool call the scripted model makes next, if any
PLANNED: list[ToolCall] = []


def model(messages: list[Message]) -> Completion | str:
    """Makes the planned call once the person has spoken, then says it is done.
    "ok" words nothing, so reflex replies stay the tools' own words."""
    if PLANNED and messages[-1].role == "user":
        return Completion("", (PLANNED[0],))
    return "ok"


@pytest.fixture
def app() -> Iterator[App]:
    application = build(load_settings({"scheduler": "off"}), brain=ScriptedModel([model], repeat_last=True))
    application.memories.remember(application.pet.id, "likes oolong tea")
    yield application
    application.close()


@pytest.fixture
def shown_every_tool() -> Iterator[App]:
    """`app` with the reflexes off: the model is shown every tool ("go" is small talk to the router, which
    offers none, and a call to a tool not offered is not run)."""
    application = build(load_settings({"scheduler": "off", "reflexes": False}),
                        brain=ScriptedModel([model], repeat_last=True))
    application.memories.remember(application.pet.id, "likes oolong tea")
    yield application
    application.close()


def say(app: App, text: str) -> str:
    # a fresh conversation each time: a long one would only make each turn slower
    events = list(app.agent.run(app.conversations.create(app.pet.id), text))
    replies = [e for e in events if isinstance(e, Reply)]
    for finished in (e for e in events if isinstance(e, ToolFinished)):
        assert_clear(finished.result.content, f"{text[:60]!r} -> {finished.result.name}")
    return replies[-1].text if replies else ""


def test_every_slash_command_and_number_sentence_answers_clearly(app, caplog):
    cases = [t.format(n=n) for t in SLASH + SENTENCES for n in TYPED]
    assert len(cases) >= 550
    for text in cases:
        answer = say(app, text)
        assert_clear(answer, repr(text[:60]))
    assert_nothing_logged(caplog, "slash commands")


def test_a_huge_id_is_a_missing_one_and_a_huge_delay_is_too_far(app):
    assert say(app, f"/approve {HUGE}") == say(app, "/approve 424242").replace("424242", HUGE)
    assert say(app, f"/cancel {HUGE}") == say(app, "/cancel 424242").replace("424242", HUGE)
    assert say(app, f"/forget #{HUGE}") == say(app, "/forget #424242").replace("424242", HUGE)
    assert "too far away" in say(app, f"remind me in {HUGE} minutes to drink water")
    assert "太远" in say(app, f"提醒我{HUGE}分钟后喝水")
    assert not app.reminders.pending(app.pet.id)


def model_turns() -> list[ToolCall]:
    calls: list[ToolCall] = []
    for n in [*TYPED, *VALUES]:
        text = n if isinstance(n, str) else repr(n)
        calls += [
            ToolCall("read_file", {"path": "notes.md", "start_line": n}),
            ToolCall("cancel_reminder", {"which": n}),
            ToolCall("forget", {"what": n}),
            ToolCall("recall", {"query": n}),
            ToolCall("remember", {"content": f"the number {text}"}),
            ToolCall("set_reminder", {"text": "tea", "when": f"in {text} minutes"}),
            ToolCall("set_reminder", {"text": "tea", "when": f"{text}天后"}),
            ToolCall("calculate", {"expression": f"{text} + 1"}),
            ToolCall("add_todo", {"text": text}),
        ]
    return calls


def test_every_number_argument_a_model_may_send_is_a_clear_result(shown_every_tool, caplog):
    app = shown_every_tool
    (app.settings.workspace_dir).mkdir(parents=True, exist_ok=True)
    (app.settings.workspace_dir / "notes.md").write_text("one\ntwo\n", encoding="utf-8")
    calls = model_turns()
    assert len(calls) >= 250
    try:
        for tool_call in calls:
            PLANNED[:] = [tool_call]
            conversation = app.conversations.create(app.pet.id)  # nothing read before: no call waits
            # the message gives the words of the call (a call to keep words nobody said is not run; a reminder or a
            # forget nobody asked for is not run)
            said = {"set_reminder": "remind me: ", "forget": "forget: "}.get(tool_call.name, "go: ") + "; ".join(
                str(value) for value in tool_call.arguments.values())
            events = list(app.agent.run(conversation, said))
            [finished] = [e for e in events if isinstance(e, ToolFinished) and e.result.name != "note"]
            assert_clear(finished.result.content, f"{tool_call.name} {str(tool_call.arguments)[:80]}")
            assert any(isinstance(e, Reply) for e in events)
    finally:
        PLANNED.clear()
    assert_nothing_logged(caplog, "tool arguments")


def test_the_web_panels_answer_every_number(app, caplog):
    memory, inbox, trace = MemoryPanel(app), InboxPanel(app), TracePanel(app)
    persona, pond = PersonaPanel(app), PondPanel(app)
    pond.lines = [PondLine(app.pet.id, "Pet", "hello")]
    for n in [*TYPED, *VALUES]:
        for action in (memory.pin, memory.forget, memory.approve, inbox.cancel, persona.switch):
            assert_clear(action(n), f"{action.__qualname__}({str(n)[:40]})")
        assert_clear(memory.edit(n, "likes green tea"), f"edit({str(n)[:40]})")
        memory.undo(n)
        memory.rows(f"#{n}")
        trace.trace(n)
        trace.show(n, n)
        assert_clear(pond.keep(n, n), f"pond.keep({str(n)[:40]})")
    assert_nothing_logged(caplog, "panels")


@pytest.fixture
def client(pet_home) -> Iterator[httpx.Client]:
    application = build(load_settings({"scheduler": "paused"}), brain=ScriptedModel(["ok"], repeat_last=True))
    server = start_in_thread(application, port=0)
    with httpx.Client(base_url=server.url, trust_env=False, timeout=30) as http:
        yield http
    server.stop()
    application.close()


def test_the_rest_routes_answer_every_number_without_a_server_error(client):
    sent = 0

    def check(response: httpx.Response) -> None:
        nonlocal sent
        sent += 1
        case = f"{response.request.method} {str(response.request.url)[:100]}"
        assert response.status_code < 500, f"{case}: {response.status_code} {response.text[:300]}"
        body = response.json()
        if response.status_code >= 400:
            assert_clear(str(body.get("detail")), case)
        elif "reply" in body:
            assert_clear(body["reply"], case)

    for n in TYPED:
        for template in SLASH + SENTENCES[:4] if n in (HUGE, "9" * 5000, "-1", "1.5", "１２３", "٣") else ():
            check(client.post("/api/chat", json={"message": template.format(n=n)}))
        for path in (f"/api/memories/{n}", f"/api/reminders/{n}"):
            check(client.delete(path))
        check(client.get(f"/api/debug/{n}"))
        check(client.get("/api/memories", params={"pet": n}))
        check(client.get("/api/tools", params={"pet": n}))
        check(client.post("/api/reminders", json={"text": "tea", "when": f"in {n} minutes"}))
        check(client.post("/api/reminders", json={"text": "tea", "when": f"{n}分钟后"}))
    for value in VALUES[:6]:
        check(client.post("/api/chat", json={"message": "hi", "conversation_id": value}))
        check(client.post("/api/chat", json={"message": "hi", "pet": value}))
        check(client.post("/api/conversations", json={"pet": value}))
    check(client.post("/api/reminders", json={"text": "tea", "due_at": "9999-12-31T23:59:59+00:00"}))
    check(client.post("/api/reminders", json={"text": "tea", "due_at": "0001-01-01T00:00:00-14:00"}))
    # the connection is still good after all that
    assert client.get("/api/reminders").status_code == 200
    assert sent >= 300
