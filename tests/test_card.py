"""Character Card V2 import and export, and saving an imported pet as TOML."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import json
import struct
import tomllib
import zlib

import pytest
from test_persona import grown_persona

from pet.errors import PersonaError
from pet.persona.card import (
    EXTENSION,
    card_id,
    load_card,
    persona_from_card,
    persona_to_card,
    read_card,
    write_card,
)
from pet.persona.model import load_persona, parse_persona
from pet.persona.save import persona_toml, save_persona, toml_string

XIAOQIAN = load_persona("xiaoqian")

# A card as another tool writes it: no "pet" extension.
FOREIGN = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Aria",
        "description": "{{char}} is a retired starship pilot who now runs a tea shop for {{user}}.",
        "personality": "warm, dry humour; patient\nloves old maps",
        "scenario": "{{user}} walks into the tea shop on a rainy evening.",
        "first_mes": "*Aria looks up from the counter.* Rain again, huh?",
        "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Tea?",
        "creator_notes": "",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "tags": ["sci-fi"],
        "creator": "someone",
        "character_version": "1.2",
        "extensions": {"talkativeness": "0.5"},
    },
}


# --- export -------------------------------------------------------------------


def test_export_is_a_character_card_v2():
    card = persona_to_card(XIAOQIAN)
    data = card["data"]
    assert card["spec"] == "chara_card_v2" and card["spec_version"] == "2.0"
    for key in ("name", "description", "personality", "scenario", "first_mes", "mes_example", "creator_notes",
                "system_prompt", "post_history_instructions", "creator", "character_version"):
        assert isinstance(data[key], str), key
    assert isinstance(data["alternate_greetings"], list) and isinstance(data["tags"], list)
    assert isinstance(data["extensions"], dict)
    json.dumps(card)  # JSON-ready: no dates or tuples left


def test_export_maps_what_fits():
    data = persona_to_card(XIAOQIAN)["data"]
    assert data["name"] == "小钳"
    assert data["personality"] == "调皮、好奇、嘴硬心软、护主、爱吹牛自己的大钳子"
    assert "小龙虾" in data["description"] and "说话简短俏皮" in data["description"]
    assert "{{char}}" in data["description"] and "{{user}}" in data["scenario"]
    assert "「老伙计」" in data["scenario"]  # the stages, in words, for other tools
    assert data["first_mes"].startswith("你好呀，我是小钳")
    assert data["alternate_greetings"] == [
        "Hello! I'm Xiaoqian, a crayfish. Today is our very first day together; nice to meet you!"
    ]
    # the first stage's example dialogue, in the card's own format
    assert data["mes_example"].startswith("<START>\n{{user}}: 今天下雨了\n{{char}}: 下、下雨啦？")
    assert data["mes_example"].count("<START>\n") == 2
    assert data["tags"] == ["pet", "crayfish"]
    assert data["system_prompt"] == ""  # other tools keep their own system prompt


def test_export_keeps_the_rest_in_the_pet_extension():
    ours = persona_to_card(XIAOQIAN)["data"]["extensions"][EXTENSION]
    assert ours["version"] == 1
    table = ours["persona"]
    assert table["name"] == {"zh": "小钳", "en": "Xiaoqian"}
    assert [s["days"] for s in table["stages"]] == [0, 7, 30, 100, 365]
    assert [a["days"] for a in table["anniversaries"]] == [7, 30, 100, 365]
    assert table["timezone"] == "local" and table["adopted"] == "first-run" and table["species"] == "crayfish"


def test_v1_fields_are_mirrored_at_the_root_for_older_tools():
    card = persona_to_card(XIAOQIAN)
    assert card["name"] == card["data"]["name"] and card["first_mes"] == card["data"]["first_mes"]


# --- round trip ---------------------------------------------------------------


@pytest.mark.parametrize("persona", [
    XIAOQIAN,
    parse_persona(grown_persona() | {"description": {"zh": "一只爱吃瓜子的仓鼠。", "en": "A hamster who loves seeds."}}),
    parse_persona(grown_persona() | {"languages": ["en"], "timezone": "Europe/Paris"}),
], ids=["xiaoqian", "dated-with-description", "english-only"])
def test_round_trip_persona_card_persona(persona, tmp_path):
    through_json = json.loads(json.dumps(persona_to_card(persona), ensure_ascii=False))
    assert persona_from_card(through_json) == persona

    path = write_card(persona, tmp_path / "pet.json")
    assert load_card(path) == persona


def test_import_can_give_the_pet_a_new_id():
    persona = persona_from_card(persona_to_card(XIAOQIAN), persona_id="xiaoqian-2")
    assert persona.id == "xiaoqian-2"
    assert dataclasses.replace(persona, id="xiaoqian") == XIAOQIAN


# --- a card from another tool -----------------------------------------------------


def test_a_plain_card_becomes_a_sensible_persona():
    persona = persona_from_card(FOREIGN)
    assert persona.id == "aria"
    assert persona.name == {"en": "Aria"}
    assert persona.languages == ("en",)
    assert persona.traits["en"] == ("warm", "dry humour", "patient", "loves old maps")
    assert persona.description["en"] == (
        "Aria is a retired starship pilot who now runs a tea shop for your person.\n\n"
        "Your person walks into the tea shop on a rainy evening."
    )
    assert persona.style["en"]
    assert persona.adopted is None and persona.timezone == "local"
    assert persona.stages == () and persona.anniversaries == ()
    assert persona.examples == {"en": "<START>\n{{user}}: Hi\n{{char}}: Tea?"}


def test_every_stage_example_travels_in_the_extension():
    table = persona_to_card(XIAOQIAN)["data"]["extensions"][EXTENSION]["persona"]
    assert all(set(stage["examples"]) == {"zh", "en"} for stage in table["stages"])
    assert persona_from_card(persona_to_card(XIAOQIAN)).stages[4].examples == XIAOQIAN.stages[4].examples


def test_a_foreign_cards_examples_reach_the_prompt_and_narration_is_dropped():
    from pet.persona.prompt import system_prompt

    card = json.loads(json.dumps(FOREIGN))
    card["data"]["mes_example"] = "<START>\n<USER>: Busy day?\n*Aria pours tea.*\n<BOT>: Always, for you."
    persona = persona_from_card(card)
    assert persona.examples == {"en": "<START>\n{{user}}: Busy day?\n{{char}}: Always, for you."}
    prompt = system_prompt(persona, now=dt.datetime(2027, 1, 1, 9, tzinfo=dt.timezone.utc),
                           adopted=dt.date(2027, 1, 1), language="en")
    assert "Person: Busy day?\nYou: Always, for you." in prompt


def test_examples_without_a_line_of_the_pet_are_left_out():
    card = json.loads(json.dumps(FOREIGN))
    card["data"]["mes_example"] = "<START>\n{{user}}: Hello?\nSome narration."
    assert persona_from_card(card).examples == {}


def test_a_chinese_card_is_read_as_chinese():
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "白泽", "description": "{{char}}是一只会说话的神兽，喜欢给{{user}}讲故事。",
        "personality": "博学，温和、爱讲故事", "extensions": {},
    }}
    persona = persona_from_card(card)
    assert persona.languages == ("zh",)
    assert persona.traits["zh"] == ("博学", "温和", "爱讲故事")
    assert persona.description["zh"] == "白泽是一只会说话的神兽，喜欢给主人讲故事。"
    assert persona.id == card_id("白泽") and persona.id.startswith("card-")


def test_a_v1_card_with_fields_at_the_root_is_read():
    persona = persona_from_card({"name": "Old Bot", "description": "A friendly <BOT> who helps <USER>.",
                                 "personality": "", "first_mes": "Hi"})
    assert persona.traits["en"] == ("A friendly Old Bot who helps your person.",)  # description stands in


def test_an_imported_card_prompt_and_file_work(tmp_path):
    from pet.persona.prompt import system_prompt

    persona = persona_from_card(FOREIGN)
    prompt = system_prompt(persona, now=dt.datetime(2027, 1, 1, 9, tzinfo=dt.timezone.utc),
                           adopted=dt.date(2027, 1, 1), language="en")
    assert prompt.startswith("You are Aria, a companion")
    assert "About you: Aria is a retired starship pilot" in prompt
    path = save_persona(persona, tmp_path / "personas")
    assert path.name == "aria.toml" and load_persona(str(path)) == persona


# --- bad cards ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "message"),
    [
        ([1, 2], "a character card is a JSON object"),
        ({"spec": "chara_card_v9", "data": {}}, "'spec' is 'chara_card_v9'"),
        ({"spec": "chara_card_v2", "spec_version": "2.0"}, "'data' must be an object"),
        ({"spec": "chara_card_v2", "data": {"description": "x"}}, "'data.name' is missing or empty"),
        ({"spec": "chara_card_v2", "data": {"name": "  ", "description": "x"}}, "'data.name' is missing or empty"),
        ({"spec": "chara_card_v2", "data": {"name": 7}}, "'data.name' must be a string, got int"),
        ({"spec": "chara_card_v2", "data": {"name": "A", "tags": "cute"}}, "'data.tags' must be a list of strings"),
        ({"spec": "chara_card_v2", "data": {"name": "A", "extensions": []}}, "'data.extensions' must be an object"),
        ({"spec": "chara_card_v2", "data": {"name": "A", "personality": "", "description": ""}},
         "'data.personality' and 'data.description' are both empty"),
        ({"spec": "chara_card_v2", "data": {"name": "A", "extensions": {"pet": {"persona": {}}}}},
         "data.extensions.pet: 'version' is None"),
    ],
)
def test_a_bad_card_raises_a_clear_error(card, message):
    with pytest.raises(PersonaError) as info:
        persona_from_card(card, source="aria.json")
    assert str(info.value).startswith("aria.json")
    assert message in str(info.value)


def test_a_broken_pet_extension_names_the_key():
    card = persona_to_card(XIAOQIAN)
    card["data"]["extensions"]["pet"]["persona"]["stages"][2]["days"] = 3
    with pytest.raises(PersonaError) as info:
        persona_from_card(card, source="x.json")
    assert str(info.value).startswith("x.json data.extensions.pet.persona: 'stages[2].days' is 3")

    card = persona_to_card(XIAOQIAN)
    card["data"]["extensions"]["pet"]["persona"]["adopted"] = "someday"
    with pytest.raises(PersonaError, match="'adopted' must be a date"):
        persona_from_card(card)


def test_a_card_file_that_is_not_json_names_the_file(tmp_path):
    path = tmp_path / "card.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(PersonaError, match="not valid card JSON") as info:
        load_card(path)
    assert str(path) in str(info.value)
    with pytest.raises(PersonaError, match="cannot read the card"):
        read_card(tmp_path / "missing.json")


def _png_with(chunks: list[tuple[bytes, bytes]]) -> bytes:
    out = b"\x89PNG\r\n\x1a\n"
    for kind, body in chunks:
        out += struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return out


def test_a_png_card_is_read_from_its_chara_chunk(tmp_path):
    payload = base64.b64encode(json.dumps(persona_to_card(XIAOQIAN)).encode("utf-8"))
    path = tmp_path / "xiaoqian.png"
    path.write_bytes(_png_with([(b"IHDR", b"\0" * 13), (b"tEXt", b"chara\0" + payload), (b"IEND", b"")]))
    assert load_card(path) == XIAOQIAN

    empty = tmp_path / "plain.png"
    empty.write_bytes(_png_with([(b"IHDR", b"\0" * 13), (b"IEND", b"")]))
    with pytest.raises(PersonaError, match="no character card"):
        load_card(empty)


# --- the TOML writer ----------------------------------------------------------------


def test_toml_of_the_shipped_persona_reads_back_equal():
    assert parse_persona(tomllib.loads(persona_toml(XIAOQIAN))) == XIAOQIAN


def test_toml_strings_survive_any_text():
    nasty = 'quote " backslash \\ tab \t newline \n cr \r bell \x07 del \x7f emoji 🦞 中文 \\u0041 \'single\''
    parsed = tomllib.loads(f"value = {toml_string(nasty)}\n")
    assert parsed["value"] == nasty


def test_a_tricky_persona_round_trips_through_tomllib():
    data = grown_persona()
    data["name"] = {"zh": '豆"豆\\', "en": "Dou\ndou\t#1"}
    data["style"] = {"zh": "[name]\nzh = 'x'", "en": "= not a key"}
    data["catchphrases"] = {"zh": ["吱吱！", "#不是注释"], "en": ["Squeak!", "]]"]}
    persona = parse_persona(data)
    assert parse_persona(tomllib.loads(persona_toml(persona))) == persona


def test_save_persona_writes_a_loadable_file_and_refuses_to_overwrite(tmp_path):
    folder = tmp_path / "home" / "personas"
    persona = persona_from_card(persona_to_card(XIAOQIAN), persona_id="qianqian")
    path = save_persona(persona, folder)
    assert path == folder / "qianqian.toml"
    assert load_persona(str(path)) == persona
    assert load_persona(str(path)).source == path

    with pytest.raises(PersonaError, match="already exists"):
        save_persona(persona, folder)
    assert save_persona(persona, folder, overwrite=True) == path
    assert [p.name for p in folder.iterdir()] == ["qianqian.toml"]  # no partial file left


def test_a_dated_adoption_is_written_as_a_toml_date():
    persona = parse_persona(grown_persona())
    assert "adopted = 2026-01-01\n" in persona_toml(persona)
    assert tomllib.loads(persona_toml(persona))["adopted"] == dt.date(2026, 1, 1)
