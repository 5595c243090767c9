"""memory.db.example: the demo home, rebuilt from assets/example/home.json."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3

import pytest

from pet.memory.db import SCHEMA_VERSION, open_database
from pet.memory.example import FIXTURE, TARGET, build_example
from pet.memory.portable import dumps, export_home
from pet.memory.recall import memory_key
from pet.memory.store import ConversationStore, MemoryStore, PetStore

REBUILD = "rebuild it: python -m pet.memory.example"


@pytest.fixture
def committed_copy(tmp_path):
    """The committed file, copied: opening a database may write to it."""
    path = tmp_path / "committed.db"
    shutil.copyfile(TARGET, path)
    db = open_database(f"sqlite:///{path}")
    yield db
    db.close()


def test_the_committed_example_is_one_file_at_the_current_schema_version():
    conn = sqlite3.connect(f"file:{TARGET}?mode=ro", uri=True)
    try:
        versions = [v for (v,) in conn.execute("SELECT version FROM schema_version")]
        assert versions == [SCHEMA_VERSION], REBUILD
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # no -wal file needed
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def test_rebuilding_the_example_gives_the_same_content(committed_copy, tmp_path):
    rebuilt_path = tmp_path / "rebuilt.db"
    build_example(rebuilt_path)
    rebuilt = open_database(f"sqlite:///{rebuilt_path}")
    try:
        assert dumps(export_home(rebuilt)) == dumps(export_home(committed_copy)), REBUILD
    finally:
        rebuilt.close()


def test_the_example_holds_exactly_the_fixture(committed_copy):
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))["tables"]
    exported = export_home(committed_copy)["tables"]
    for name, rows in exported.items():
        assert len(rows) == len(fixture.get(name, [])), name
        for row, written in zip(rows, fixture.get(name, [])):
            assert row | written == row, (name, written)  # columns the fixture leaves out take defaults
    for memory in fixture["memories"]:
        assert memory["key"] == memory_key(memory["content"])  # as the store would have written it


def test_the_example_is_a_bilingual_demo_of_xiaoqian(committed_copy):
    db = committed_copy
    pet = PetStore(db).ensure("xiaoqian", "xiaoqian", dt.date(2030, 1, 1))  # found, not created
    assert pet.id == 1 and pet.adopted_on.isoformat() == "2026-10-01"
    memories = MemoryStore(db)
    assert [m.content for m in memories.pinned(pet.id)] == ["我叫林安，朋友们叫我安安"]
    assert memories.search(pet.id, "乌龙茶")[0].content == "喜欢喝乌龙茶"
    assert memories.search(pet.id, "sister birthday")[0].content == "My sister Xiaoyu's birthday is March 5"
    conversation = ConversationStore(db).latest(pet.id)
    history = ConversationStore(db).history(conversation)
    users = [m.message.content for m in history if m.message.role == "user"]
    assert any("乌龙茶" in text for text in users) and any("birthday" in text for text in users)
    assert any(m.message.tool_calls for m in history)


def test_the_example_runs_as_a_home(pet_home):
    from pet.app import build
    from pet.brain.scripted import ScriptedModel
    from pet.config import load_settings

    pet_home.mkdir(parents=True)
    shutil.copyfile(TARGET, pet_home / "pet.db")  # as the README says
    model = ScriptedModel(["安安，钳钳在呢！"])
    app = build(load_settings({"reflexes": False}), brain=model)
    try:
        conversation = app.current_conversation()
        assert app.conversations.count(conversation) == 10  # the demo conversation is back on screen
        list(app.agent.run(conversation, "你还记得我叫什么吗？"))
    finally:
        app.close()
    system = model.calls[0].messages[0].content
    assert "我叫林安" in system  # the pinned memory reaches the model
