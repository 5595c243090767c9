"""The Memory tab: its actions directly, and through gradio_client against the
app served on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from serving import stop_server

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.ui.memory_tab import MemoryPanel


@pytest.fixture
def app():
    application = build(load_settings({}), brain=ScriptedModel([]))
    yield application
    application.close()


def ids(rows) -> list[int]:
    return [row[0] for row in rows]


def test_list_search_and_views(app):
    panel = MemoryPanel(app)
    pet = app.pet.id
    tea, _ = app.memories.remember(pet, "likes oolong tea")
    cat, _ = app.memories.remember(pet, "家里的猫叫年糕")
    note, _ = app.memories.remember(pet, "owner wants memories wiped", asserted_by="tool")
    assert ids(panel.rows()) == [note.id, cat.id, tea.id]
    assert ids(panel.rows("年糕")) == [cat.id]
    assert ids(panel.rows("OOLONG")) == [tea.id]
    assert ids(panel.rows(f"#{tea.id}")) == [tea.id]
    [row] = panel.rows(view="pending")
    assert row[0] == note.id and row[3] == "a tool" and "pending" in row[4]
    assert panel.rows(view="forgotten") == []


def test_edit_pin_forget_undo_approve(app):
    panel = MemoryPanel(app)
    pet = app.pet.id
    tea, _ = app.memories.remember(pet, "likes oolong tee")
    assert "saved" in panel.edit(f"#{tea.id}", "likes oolong tea")
    assert app.memories.get(pet, tea.id).content == "likes oolong tea"

    assert "pinned" in panel.pin(tea.id) and app.memories.get(pet, tea.id).pinned
    assert "unpinned" in panel.pin(str(tea.id)) and not app.memories.get(pet, tea.id).pinned

    assert "forgot" in panel.forget(tea.id)
    assert ids(panel.rows(view="forgotten")) == [tea.id] and panel.rows() == []
    assert "restored" in panel.undo("")
    assert ids(panel.rows()) == [tea.id]
    assert "nothing to undo" in panel.undo("")

    pending, _ = app.memories.remember(pet, "from a file", asserted_by="tool")
    assert "approved" in panel.approve(f"#{pending.id}")
    assert app.memories.search(pet, "from a file")[0].id == pending.id


def test_bad_input_gets_a_clear_message_and_changes_nothing(app):
    panel = MemoryPanel(app)
    tea, _ = app.memories.remember(app.pet.id, "likes tea")
    assert panel.edit("", "x").startswith("⚠️ pick a memory")
    assert panel.edit("banana", "x").startswith("⚠️")
    assert panel.edit(tea.id, "   ").startswith("⚠️") and "empty" in panel.edit(tea.id, "")
    assert panel.forget(9999).startswith("⚠️ there is no memory #9999")
    assert panel.pin(9999).startswith("⚠️")
    assert panel.import_file(None).startswith("⚠️")
    assert ids(panel.rows()) == [tea.id] and app.memories.get(app.pet.id, tea.id).content == "likes tea"


def test_export_then_import_into_another_home(app, tmp_path, monkeypatch):
    panel = MemoryPanel(app)
    app.memories.remember(app.pet.id, "妹妹叫小雨")
    path, message = panel.export()
    assert path and "exported" in message
    data = json.loads(open(path, encoding="utf-8").read())
    assert any(row["content"] == "妹妹叫小雨" for row in data["tables"]["memories"])

    monkeypatch.setenv("PET_HOME", str(tmp_path / "other-home"))
    other = build(load_settings({}), brain=ScriptedModel([]))
    try:
        message = MemoryPanel(other).import_file(path)
        assert "imported" in message
        assert [m.content for m in other.memories.search(other.pet.id, "小雨")] == ["妹妹叫小雨"]
        again = MemoryPanel(other).import_file(path)
        assert "0 rows added" in again
        bad = tmp_path / "bad.json"
        bad.write_text("{not json", encoding="utf-8")
        assert MemoryPanel(other).import_file(str(bad)).startswith("⚠️ nothing was imported")
    finally:
        other.close()


@pytest.mark.slow
def test_the_tab_works_through_gradio_client(app):
    from serving import gradio_client

    server = start_in_thread(app, port=0)
    try:
        client = gradio_client(server.url)
        pet = app.pet.id
        tea, _ = app.memories.remember(pet, "likes oolong tea")
        app.memories.remember(pet, "家里的猫叫年糕")

        table = client.predict("oolong", "all", api_name="/memory_list")
        assert [row[1] for row in table["data"]] == ["likes oolong tea"]

        assert "pinned" in client.predict(f"#{tea.id}", api_name="/memory_pin")
        assert app.memories.get(pet, tea.id).pinned
        assert "saved" in client.predict(f"#{tea.id}", "likes jasmine tea", api_name="/memory_edit")
        assert "forgot" in client.predict(f"#{tea.id}", api_name="/memory_forget")
        assert app.memories.get(pet, tea.id) is None
        assert "restored" in client.predict("", api_name="/memory_undo")
        assert app.memories.get(pet, tea.id).content == "likes jasmine tea"

        path, status = client.predict(api_name="/memory_export")
        assert "exported" in status
        exported = json.loads(open(path, encoding="utf-8").read())
        assert {row["content"] for row in exported["tables"]["memories"]} >= {"likes jasmine tea", "家里的猫叫年糕"}
    finally:
        stop_server(server)


def test_an_import_while_running_brings_in_pets_and_reminder_jobs(tmp_path, monkeypatch):
    import datetime as dt

    monkeypatch.setenv("PET_HOME", str(tmp_path / "source"))
    source = build(load_settings({"scheduler": "off"}), brain=ScriptedModel([]))
    doudou = source.create_pet("Doudou")
    due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)
    reminder = source.reminders.add(doudou.record.id, "feed the fish", due)
    path, _ = MemoryPanel(source).export()
    source.close()

    monkeypatch.setenv("PET_HOME", str(tmp_path / "target"))
    target = build(load_settings({"scheduler": "paused"}), brain=ScriptedModel([]))
    try:
        assert "imported" in MemoryPanel(target).import_file(path)
        slugs = {runtime.record.slug for runtime in target.pets()}
        assert "doudou" in slugs
        jobs = {job.id for job in target.scheduler.jobs()}
        assert f"reminder-{reminder.id}" in jobs or any(j.startswith("reminder-") for j in jobs)
        imported = next(r for r in target.pets() if r.record.slug == "doudou")
        assert f"brief-{imported.record.id}" in jobs
    finally:
        target.close()


@pytest.mark.slow
def test_search_reaches_past_the_newest_five_hundred(app):
    panel = MemoryPanel(app)
    old, _ = app.memories.remember(app.pet.id, "the very first thing: 100% sure_of it")
    for i in range(520):
        app.memories.remember(app.pet.id, f"newer note {i}")
    assert ids(panel.rows("very first")) == [old.id]
    assert ids(panel.rows("100%")) == [old.id] and ids(panel.rows("sure_of")) == [old.id]  # % and _ are literal
    assert panel.rows("50%") == []
