"""The program's own lines speak as whichever pet is adopted.

A second species (tests/fixtures/doudou.toml: 豆豆 / Doudou, a cat) is
adopted, and nothing the framework writes for it may carry the default pet's
name, species words or emoji; the default pet keeps its flavour from its
own persona file.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import tomllib
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pet.agent.guards import CLAIMS, FALLBACKS, fallback_line, honest_notice
from pet.api.gate import login_page
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import BrainUnavailable, PersonaError
from pet.persona.greeting import first_meeting, greeting
from pet.persona.messages import (
    CATALOGUE,
    NEUTRAL_EMOJI,
    PET_FIELDS,
    chat_placeholder,
    fields_of,
    say,
    sign_in_heading,
)
from pet.persona.model import load_persona, parse_persona, persona_data
from pet.persona.save import persona_toml

DOUDOU_FILE = Path(__file__).parent / "fixtures" / "doudou.toml"
DOUDOU = load_persona(str(DOUDOU_FILE))
DEFAULT = load_persona("xiaoqian")
SHANGHAI = ZoneInfo("Asia/Shanghai")
ADOPTED = dt.date(2027, 1, 1)


def default_pet_words() -> list[str]:
    """The default pet's name, species words and emoji, and the words of its flavour."""
    words = [*DEFAULT.name.values(), *DEFAULT.species_name.values(), DEFAULT.species, DEFAULT.emoji]
    return words + ["钳", "Qianqian", "claw", "虾", "🦞"]


def assert_neutral(line: str) -> None:
    found = [word for word in default_pet_words() if word.casefold() in line.casefold()]
    assert not found, f"{line!r} carries the default pet's {found}"


def every_line(persona) -> list[str]:
    lines = []
    for key in CATALOGUE:
        extra = {field: "…" for field in fields_of(key) - set(PET_FIELDS)}
        lines += [say(key, lang, persona, **extra) for lang in ("zh", "en")]
    return lines


def at(day: int, hour: int = 9) -> dt.datetime:
    date = ADOPTED + dt.timedelta(days=day)
    return dt.datetime(date.year, date.month, date.day, hour, tzinfo=SHANGHAI)


def test_every_catalogue_line_for_another_species_is_free_of_the_default_pet():
    lines = every_line(DOUDOU)
    assert len(lines) == 2 * len(CATALOGUE)
    for line in lines:
        assert_neutral(line)


def test_the_guards_fallbacks_and_honest_lines_speak_as_the_adopted_pet():
    for language in ("zh", "en"):
        for reason in FALLBACKS:
            assert_neutral(fallback_line(reason, language, DOUDOU))
        assert_neutral(honest_notice(set(CLAIMS), language, DOUDOU))
    assert fallback_line("brain_down", "zh", DOUDOU) == "豆豆的脑袋暂时连不上了……稍后再试试？"


def test_the_chat_placeholder_and_the_sign_in_heading():
    placeholder = chat_placeholder(DOUDOU)
    assert_neutral(placeholder)
    assert placeholder.startswith("🐱 豆豆 (Doudou): ")
    heading = re.search(r"<h1>(.*)</h1>", login_page("/")).group(1)
    assert heading == sign_in_heading()
    assert_neutral(heading)
    assert NEUTRAL_EMOJI in heading  # the page names no pet


def test_the_greetings_of_another_species():
    met = greeting(DOUDOU, at(0), ADOPTED, "en", None, [])
    assert met == first_meeting(DOUDOU, "en") == (
        "Hello! I'm Doudou, a cat. Today is our very first day together; nice to meet you!"
    )
    assert first_meeting(DOUDOU, "zh").startswith("你好呀，我是豆豆，一只猫！")
    grown = greeting(DOUDOU, at(30), ADOPTED, "zh", at(29), [])
    assert "家猫" in grown
    dated = greeting(DOUDOU, at(5), ADOPTED, "en", None, [])
    assert dated.startswith("Hello! I'm Doudou.")
    for line in (met, first_meeting(DOUDOU, "zh"), grown, dated, greeting(DOUDOU, at(0), ADOPTED, "zh", None, [])):
        assert_neutral(line)


def test_an_adopted_cat_whose_model_is_down_says_so_in_its_own_name():
    model = ScriptedModel([BrainUnavailable("No model server answers at http://127.0.0.1:9")] * 2)
    app = build(load_settings({"reflexes": False}), brain=model)
    try:
        cat = app.adopt(DOUDOU)
        app.switch_pet(cat.record.id)
        conversation = app.current_conversation()
        said = [list(app.agent.run(conversation, text))[-1].text for text in ("你好", "hello")]
    finally:
        app.close()
    assert said == ["豆豆的脑袋暂时连不上了……稍后再试试？", "My brain isn't answering right now. Try again in a moment?"]


# --- the default pet's flavour lives in its persona file ------------------------------


def test_the_default_pet_keeps_its_claws_from_its_own_file():
    assert DEFAULT.emoji == "🦞"
    assert "claws got tangled" in fallback_line("turn_cap", "en", DEFAULT)
    assert fallback_line("turn_cap", "zh", DEFAULT).startswith("呜，小钳的钳子打结了")
    assert chat_placeholder(DEFAULT) == "🦞 小钳 (Xiaoqian): 说点什么吧！ Say hi!"


def test_a_pet_without_an_emoji_gets_a_neutral_one():
    data = persona_data(DOUDOU)
    del data["emoji"]
    plain = parse_persona(data)
    assert chat_placeholder(plain).startswith(f"{NEUTRAL_EMOJI} 豆豆")


def test_a_renamed_copy_of_the_default_pet_says_its_new_name():
    copy = dataclasses.replace(DEFAULT, name={"zh": "豆豆", "en": "Doudou"})
    assert fallback_line("turn_cap", "zh", copy).startswith("呜，豆豆的钳子打结了")


def test_persona_lines_and_emoji_survive_a_save():
    text = persona_toml(DEFAULT)
    assert parse_persona(tomllib.loads(text)) == DEFAULT


@pytest.mark.parametrize(
    "lines, problem",
    [
        ({"turn_kap": {"zh": "…", "en": "…"}}, "'lines.turn_kap' is not a known line (did you mean 'turn_cap'?)"),
        ({"turn_cap": {"zh": "…"}}, "'lines.turn_cap' is missing language 'en'"),
        ({"turn_cap": {"zh": "{owner}的…", "en": "…"}}, "'lines.turn_cap.zh' uses {owner}; it may use"),
        ({"turn_cap": {"zh": "{name", "en": "…"}}, "'lines.turn_cap.zh' is not a valid template"),
    ],
)
def test_a_persona_line_that_cannot_be_said_is_refused_with_its_key(lines, problem):
    data = persona_data(DOUDOU) | {"lines": lines}
    with pytest.raises(PersonaError) as caught:
        parse_persona(data, DOUDOU_FILE)
    assert problem in str(caught.value)
    assert str(DOUDOU_FILE) in str(caught.value)


def test_an_emoji_must_be_an_emoji():
    with pytest.raises(PersonaError, match="'emoji' must be one emoji"):
        parse_persona(persona_data(DOUDOU) | {"emoji": "cat"})
