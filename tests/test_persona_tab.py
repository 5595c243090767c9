"""The Pets tab and the pet picker: directly and through gradio_client."""

from __future__ import annotations

import json

import pytest
from serving import stop_server

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.persona.card import persona_to_card
from pet.ui.persona_tab import Fields, PersonaPanel, pet_choices


@pytest.fixture
def app():
    application = build(load_settings({"reflexes": False}), brain=ScriptedModel([]))
    yield application
    application.close()


def test_the_form_shows_and_applies_the_persona(app):
    panel = PersonaPanel(app)
    values = panel.fields()
    form = Fields(*values)
    assert form.name_zh == "小钳" and form.name_en == "Xiaoqian" and "cheeky" in form.traits_en
    assert form.apply(app.persona) == app.persona  # unchanged form, unchanged persona


def test_preview_is_the_exact_system_prompt_of_a_turn(app):
    panel = PersonaPanel(app)
    values = panel.fields()
    values[3] = "sleepy, gentle"  # traits (en)
    shown = panel.preview(*values, language="en")
    assert "Personality: sleepy, gentle" in shown
    assert app.persona.traits["en"] != ("sleepy", "gentle")  # a preview saves nothing

    model = ScriptedModel(["hi"])
    other = build(load_settings({"reflexes": False}), brain=model)
    unchanged = PersonaPanel(other).preview(*PersonaPanel(other).fields(), language="en")
    list(other.agent.run(other.current_conversation(), ""))  # empty: no model call
    list(other.agent.run(other.current_conversation(), "hello"))
    sent = model.calls[0].messages[0].content
    # same prompt apart from the clock line, which moves on
    strip = lambda text: [line for line in text.splitlines() if not line.startswith("Now it is")]  # noqa: E731
    assert strip(sent) == strip(unchanged)
    other.close()


def test_save_reset_and_bad_input(app):
    panel = PersonaPanel(app)
    values = panel.fields()
    values[5] = "Speaks only in haiku."
    assert "saved" in panel.save(*values)
    assert app.persona.style["en"] == "Speaks only in haiku."
    bad = list(values)
    bad[1] = "   "
    assert panel.save(*bad).startswith("⚠️ not saved") and app.persona.name["en"] == "Xiaoqian"
    bad = list(values)
    bad[6] = "next tuesday"
    assert "2026-11-29" in panel.save(*bad)
    bad = list(values)
    bad[2] = " , ,"
    assert "trait" in panel.save(*bad)
    assert "shipped" in panel.reset()
    assert app.persona.style["en"] != "Speaks only in haiku."


def test_pets_create_rename_switch_and_cards(app, tmp_path):
    panel = PersonaPanel(app)
    assert "joined" in panel.create("Doudou", None)
    assert panel.create("", None).startswith("⚠️")
    labels = [label for label, _ in pet_choices(app)]
    assert any("Doudou" in label for label in labels) and len(labels) == 2
    doudou = next(pet_id for label, pet_id in pet_choices(app) if "Doudou" in label)
    assert "Doudou" in panel.switch(doudou) and app.pet.id != doudou  # a page's own pet moves, nothing else
    page = {"pet": doudou}
    assert "renamed" in panel.rename("豆豆", page) and app.runtime(doudou).persona.display_name("en") == "豆豆"
    assert app.persona.display_name("en") == "Xiaoqian"
    assert panel.switch(999).startswith("⚠️")

    path, message = panel.export_card(page)
    card = json.loads(open(path, encoding="utf-8").read())
    assert card["spec"] == "chara_card_v2" and card["data"]["name"] == "豆豆"

    other = persona_to_card(app.persona)
    other["data"]["name"] = "Mochi"
    other["data"]["extensions"]["pet"]["persona"]["name"] = {"zh": "麻薯", "en": "Mochi"}
    file = tmp_path / "mochi.json"
    file.write_text(json.dumps(other, ensure_ascii=False), encoding="utf-8")
    assert "came from the card" in panel.import_card(str(file))
    assert any("Mochi" in label for label, _ in pet_choices(app))
    broken = tmp_path / "broken.json"
    broken.write_text("{}", encoding="utf-8")
    assert panel.import_card(str(broken)).startswith("⚠️ the card was not imported")
    assert panel.import_card(None).startswith("⚠️")


@pytest.mark.slow
def test_switching_pets_through_the_page(app):
    from serving import gradio_client

    server = start_in_thread(app, port=0)
    try:
        client = gradio_client(server.url)
        assert "joined" in client.predict("Doudou", None, api_name="/pet_create")
        doudou = next(pet_id for label, pet_id in pet_choices(app) if "Doudou" in label)
        chat, card, status = client.predict(doudou, api_name="/switch_pet")
        assert "Doudou" in status and "Doudou" in card
        assert app.persona.id != "doudou"  # the client's page moved, not the pet of every page
        page = {"pet": doudou}
        prompt = client.predict(*PersonaPanel(app).fields(page), "en", api_name="/persona_preview")
        assert "You are Doudou" in prompt
    finally:
        stop_server(server)


def test_a_card_whose_persona_cannot_be_saved_leaves_no_pet(app, tmp_path, monkeypatch):
    import pet.app as app_module
    from pet.errors import PersonaError

    card = persona_to_card(app.persona)
    card["data"]["extensions"]["pet"]["persona"]["name"] = {"zh": "麻薯", "en": "Mochi"}
    file = tmp_path / "mochi.json"
    file.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")

    def broken(*_args, **_kwargs):
        raise PersonaError("disk full")

    monkeypatch.setattr(app_module, "save_persona", broken)
    assert "disk full" in PersonaPanel(app).import_card(str(file))
    assert len(app.pets()) == 1
    from pet.memory.store import PetStore

    assert [record.slug for record in PetStore(app.db).all()] == ["xiaoqian"]
