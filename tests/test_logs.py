"""Structured logs: JSON lines with the turn's context in <home>/logs/pet.log,
rotated, and readable lines on the console."""

from __future__ import annotations

import json
import logging

import pytest

from pet import logs
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import Completion, Reply


@pytest.fixture
def restore_logging():
    """setup_logging changes the root logger; put it back for the other tests."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def lines_of(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_line_of_a_turn_names_pet_conversation_turn_and_step(pet_home, restore_logging, capsys):
    path = logs.setup_logging(pet_home, "INFO")
    model = ScriptedModel([Completion("", (call("calculate", expression="6*7"),)), "It is 42."])
    app = build(load_settings({"reflexes": False}), brain=model, scheduler="off")
    try:
        conversation = app.current_conversation()
        events = list(app.agent.run(conversation, "what is six times seven?"))
        logging.getLogger("pet.test").info("after the turn")
    finally:
        app.close()
    [reply] = [e for e in events if isinstance(e, Reply)]
    written = lines_of(path)
    for line in written:
        assert {"time", "level", "pet", "conversation", "turn", "step", "duration", "message"} <= set(line)
        assert "where" not in line  # the console's rendering stays on the console
    calls = [line for line in written if line["message"].startswith("model call")]
    assert [line["step"] for line in calls] == [0, 1]
    for line in calls:
        assert line["pet"] == app.pet.id and line["conversation"] == conversation
        assert line["turn"] == reply.trace_id and reply.trace_id is not None
        assert isinstance(line["duration"], float) and line["level"] == "INFO"
    [tool] = [line for line in written if line["message"] == "tool calculate ok"]
    assert tool["step"] == 0 and tool["turn"] == reply.trace_id and tool["duration"] >= 0
    # the turn's context stays with the turn: the caller's own lines carry none
    [after] = [line for line in written if line["message"] == "after the turn"]
    assert after["conversation"] is None and after["turn"] is None
    console = capsys.readouterr().err
    assert f"[pet {app.pet.id} · conversation {conversation} · turn {reply.trace_id} · step 1 ·" in console
    assert "{" not in console.splitlines()[-1]  # the console is for people, not JSON


def test_a_turn_left_half_way_releases_its_conversation(pet_home, restore_logging):
    logs.setup_logging(pet_home, "INFO", console=False)
    app = build(load_settings({"reflexes": False}), brain=ScriptedModel(["One long reply."]), scheduler="off")
    try:
        conversation = app.current_conversation()
        turn = app.agent.run(conversation, "hello")
        next(turn)  # the first streamed piece; the person closes the page
        assert app.agent.locks.of(conversation).locked()
        turn.close()
        assert not app.agent.locks.of(conversation).locked()
    finally:
        app.close()


def test_the_log_file_rotates(pet_home, restore_logging, monkeypatch):
    monkeypatch.setattr(logs, "MAX_BYTES", 2_000)
    path = logs.setup_logging(pet_home, "INFO", console=False)
    log = logging.getLogger("pet.test")
    for i in range(200):
        log.info("line %d", i, extra={"duration": 0.5})
    rotated = sorted(path.parent.glob("pet.log*"))
    assert [p.name for p in rotated] == ["pet.log", "pet.log.1", "pet.log.2", "pet.log.3"]
    for file in rotated:
        assert all(line["duration"] == 0.5 for line in lines_of(file))
    assert lines_of(path)[-1]["message"] == "line 199"


def test_extra_fields_and_errors_are_kept(pet_home, restore_logging):
    path = logs.setup_logging(pet_home, "INFO", console=False)
    log = logging.getLogger("pet.test")
    with logs.fields(pet=3, conversation=9):
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("it broke", extra={"tool": "calculate"})
    [line] = lines_of(path)
    assert (line["pet"], line["conversation"], line["tool"], line["level"]) == (3, 9, "calculate", "ERROR")
    assert "ValueError: boom" in line["error"]


def test_an_unwritable_log_folder_leaves_the_console(pet_home, restore_logging, capsys):
    pet_home.mkdir(parents=True)
    (pet_home / "logs").write_text("a file where the folder should be")
    assert logs.setup_logging(pet_home, "INFO") is None
    logging.getLogger("pet.test").warning("still heard")
    err = capsys.readouterr().err
    assert "cannot write the log file" in err and "still heard" in err
