"""Several pets in one home: create, rename, switch, edit, reset; each with
its own conversations and memories."""

from __future__ import annotations

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.errors import PersonaError
from pet.events import Completion


def make(model=None):
    return build(load_settings({"reflexes": False}), brain=model or ScriptedModel([]))


def test_the_default_pet_exists_on_first_run(pet_home):
    app = make()
    [only] = app.pets()
    assert only.record.slug == "xiaoqian" and app.pet.id == only.record.id
    app.close()


def test_create_rename_switch_and_survive_a_restart(pet_home):
    app = make()
    first = app.pet.id
    doudou = app.create_pet("Doudou")
    assert doudou.record.slug == "doudou" and doudou.persona.display_name("zh") == "Doudou"
    assert (pet_home / "personas" / "doudou.toml").is_file()
    assert app.pet.id == first  # creating does not switch
    assert app.create_pet("Doudou").record.slug == "doudou-2"
    app.switch_pet(doudou.record.id)
    assert app.persona.id == "doudou"
    app.rename_pet(doudou.record.id, "豆豆")
    assert app.persona.display_name("en") == "豆豆"
    with pytest.raises(PersonaError):
        app.create_pet("   ")
    with pytest.raises(PersonaError):
        app.rename_pet(doudou.record.id, "")
    app.close()

    again = make()
    names = {runtime.record.slug: runtime.persona.display_name("zh") for runtime in again.pets()}
    assert names == {"xiaoqian": "小钳", "doudou": "豆豆", "doudou-2": "Doudou"}
    assert again.pet.id == first  # the configured pet is current at start
    again.close()


def test_a_memory_of_one_pet_is_never_recalled_for_another(pet_home):
    model = ScriptedModel([
        Completion("", (call("remember", content="my secret code word is pineapple"),)), "Kept!",
        "I don't know.",
    ])
    app = make(model)
    xiaoqian = app.pet.id
    list(app.agent.run(app.current_conversation(), "remember my secret code word is pineapple"))
    doudou = app.create_pet("Doudou")
    app.switch_pet(doudou.record.id)
    conversation = app.current_conversation()
    assert app.conversations.pet_of(conversation) == doudou.record.id
    list(app.agent.run(conversation, "what is my secret code word? pineapple?"))
    system = model.calls[-1].messages[0].content
    assert "pineapple" not in system and "Doudou" in system
    assert app.memories.search(doudou.record.id, "pineapple") == []
    assert [m.content for m in app.memories.search(xiaoqian, "pineapple")] == ["my secret code word is pineapple"]
    app.close()


def test_each_pet_keeps_its_own_current_conversation(pet_home):
    app = make(ScriptedModel(["a", "b"]))
    mine = app.current_conversation()
    doudou = app.create_pet("Doudou")
    app.switch_pet(doudou.record.id)
    theirs = app.current_conversation()
    assert theirs != mine
    app.switch_pet(app.pets()[0].record.id)
    assert app.current_conversation() == mine
    app.close()


def test_edit_and_reset_the_persona(pet_home):
    import dataclasses

    app = make()
    pet_id = app.pet.id
    edited = dataclasses.replace(app.persona, style={"zh": "说话像诗人。", "en": "Speaks like a poet."})
    app.update_persona(pet_id, edited)
    assert app.persona.style["en"] == "Speaks like a poet."
    app.close()
    again = make()
    assert again.persona.style["en"] == "Speaks like a poet."  # the edit outlives a restart
    again.reset_persona(pet_id)
    assert again.persona.style["en"] != "Speaks like a poet."
    doudou = again.create_pet("Doudou")
    with pytest.raises(PersonaError, match="nothing to reset"):
        again.reset_persona(doudou.record.id)
    again.close()
    assert make().persona.style["en"] != "Speaks like a poet."


def test_every_pet_gets_its_own_morning_brief_job(pet_home):
    app = build(load_settings({"scheduler": "paused"}), brain=ScriptedModel([]))
    doudou = app.create_pet("Doudou")
    ids = {job.id for job in app.scheduler.jobs()}
    assert {f"brief-{app.pet.id}", f"brief-{doudou.record.id}"} <= ids
    app.close()
    again = build(load_settings({"scheduler": "paused"}), brain=ScriptedModel([]))
    assert {f"brief-{r.record.id}" for r in again.pets()} <= {job.id for job in again.scheduler.jobs()}
    again.close()


def test_an_imported_slug_cannot_name_a_file_outside_the_home(pet_home, tmp_path):
    import dataclasses
    import json

    from pet.errors import ExportFileError
    from pet.memory.portable import export_home, import_home, parse_export
    from pet.persona.save import save_persona

    app = make()
    data = export_home(app.db)
    data["tables"]["pets"][0]["slug"] = "../../../evil"
    with pytest.raises(ExportFileError, match="slug"):
        import_home(app.db, parse_export(json.loads(json.dumps(data))))
    with pytest.raises(PersonaError, match="cannot name a persona file"):
        save_persona(dataclasses.replace(app.persona, id="../../evil"), tmp_path / "personas")
    assert not (tmp_path / "evil.toml").exists()
    app.close()


def test_an_edited_pet_keeps_one_turn_at_a_time_per_conversation(pet_home):
    import dataclasses

    app = make()
    before = app.agent
    app.update_persona(app.pet.id, dataclasses.replace(app.persona, style={"zh": "慢慢说。", "en": "Speaks slowly."}))
    after = app.agent
    assert after is not before
    conversation = app.current_conversation()
    assert after._lock(conversation) is before._lock(conversation)
    app.close()
