"""The log says what happened, never what the person said: no message text
in a log line, nor in the traceback of a database error."""

from __future__ import annotations

import datetime as dt
import logging
import traceback

import pytest

from pet.brain.scripted import ScriptedModel
from pet.errors import StorageError
from pet.events import Message
from pet.memory.db import open_database
from pet.memory.store import ConversationStore
from pet.memory.summary import summarize

SECRET = "Zebulon Quartermaine"
TURNS = [
    Message("user", f"My landlord is {SECRET}, locker code 7731."),
    Message("assistant", "Got it."),
]
GOOD = f"- The landlord is {SECRET}; the locker code is 7731."


def test_a_summary_retry_is_logged_without_the_dropped_words(caplog):
    dropped = GOOD.replace(SECRET, "someone").replace("7731", "a code")
    model = ScriptedModel([dropped, dropped])
    with caplog.at_level(logging.DEBUG, logger="pet"):
        result = summarize(model, TURNS)
    assert result.method == "extractive" and SECRET in result.text  # the summary keeps them
    lines = [record.getMessage() for record in caplog.records]
    assert "summary attempt 1 dropped 2 must-keep items" in lines
    for line in lines:
        assert SECRET not in line and "7731" not in line, line


def test_a_database_error_carries_no_message_text(tmp_path):
    db = open_database(f"sqlite:///{tmp_path / 'pet.db'}")
    try:
        with pytest.raises(StorageError) as failed:  # no such conversation: a foreign key fails
            ConversationStore(db).append(999, Message("user", f"{SECRET} owes me {dt.date(2026, 5, 1)}"))
    finally:
        db.close()
    logged = "".join(traceback.format_exception(failed.value))  # what log.exception would write
    assert "FOREIGN KEY constraint failed" in logged
    assert SECRET not in logged
