"""The pet's face: safe, small SVG avatars whose look follows the growth stage,
and a growth card that shows days together, the stage and the next milestone."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_persona import base_persona

from pet.persona.model import Stage, load_persona, parse_persona
from pet.ui import face
from pet.ui.face import AVATAR_DIR, PERSON_AVATAR, avatar_path, chat_avatars, growth_card_html, species_folder

SVG_NS = "http://www.w3.org/2000/svg"
SHANGHAI = ZoneInfo("Asia/Shanghai")
XIAOQIAN = dataclasses.replace(load_persona("xiaoqian"), timezone="Asia/Shanghai")
ADOPTED = dt.date(2026, 11, 1)
SVGS = sorted(AVATAR_DIR.rglob("*.svg"))


def at(day: dt.date, hour: int = 20) -> dt.datetime:
    """A moment on a local day in the pet's zone."""
    return dt.datetime(day.year, day.month, day.day, hour, 0, tzinfo=SHANGHAI)


def after(days: int) -> dt.datetime:
    return at(ADOPTED + dt.timedelta(days=days))


def card_image(card: str) -> bytes:
    match = re.search(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', card)
    assert match, card
    return base64.b64decode(match.group(1))


# --- the avatar files ---------------------------------------------------------


def test_avatars_ship_for_every_crayfish_stage_the_person_and_the_fallback():
    for days in (0, 7, 30, 100, 365):
        assert (AVATAR_DIR / "crayfish" / f"stage-{days}.svg").is_file()
    assert (AVATAR_DIR / "default" / "stage-0.svg").is_file()
    assert PERSON_AVATAR.is_file()


@pytest.mark.parametrize("path", SVGS, ids=lambda p: p.relative_to(AVATAR_DIR).as_posix())
def test_each_avatar_is_small_safe_standalone_svg(path: Path):
    text = path.read_text(encoding="utf-8")
    root = ET.fromstring(text)
    assert root.tag == f"{{{SVG_NS}}}svg"
    assert len(root.get("viewBox", "").split()) == 4
    assert path.stat().st_size < 4096
    assert "http" not in text.replace(SVG_NS, "")  # nothing fetched from anywhere
    for element in root.iter():
        assert not element.tag.endswith("}script")
        assert not element.tag.endswith("}foreignObject")
        for attribute, value in element.attrib.items():
            assert not attribute.lower().startswith("on"), f"{attribute} on {element.tag}"
            if attribute.endswith("href"):
                assert value.startswith("#")
    assert "url(" not in text.replace("url(#", "")


# --- which avatar -------------------------------------------------------------


def test_the_avatar_changes_with_every_stage():
    paths = [avatar_path(XIAOQIAN, days) for days in (0, 7, 30, 100, 365)]
    assert [p.relative_to(AVATAR_DIR).as_posix() for p in paths] == [
        "crayfish/stage-0.svg", "crayfish/stage-7.svg", "crayfish/stage-30.svg",
        "crayfish/stage-100.svg", "crayfish/stage-365.svg",
    ]
    assert len({p.read_bytes() for p in paths}) == 5


@pytest.mark.parametrize(("days", "stage"), [(6, 0), (29, 7), (99, 30), (364, 100), (5000, 365)])
def test_the_avatar_stays_until_the_next_stage_begins(days, stage):
    assert avatar_path(XIAOQIAN, days) == AVATAR_DIR / "crayfish" / f"stage-{stage}.svg"


def test_a_stage_without_its_own_file_shows_the_nearest_earlier_one():
    stages = (Stage(0, {"en": "small"}), Stage(12, {"en": "bigger"}), Stage(50, {"en": "big"}))
    crayfish = dataclasses.replace(XIAOQIAN, stages=stages)
    assert avatar_path(crayfish, 3).name == "stage-0.svg"
    assert avatar_path(crayfish, 12).name == "stage-7.svg"
    assert avatar_path(crayfish, 50).name == "stage-30.svg"


@pytest.mark.parametrize("species", ["hamster", "../crayfish", "crayfish/../../x", ""])
def test_a_species_without_a_folder_gets_the_default_face(species):
    pet = dataclasses.replace(XIAOQIAN, species=species)
    assert avatar_path(pet, 0) == AVATAR_DIR / "default" / "stage-0.svg"
    assert avatar_path(pet, 400).parent == AVATAR_DIR / "default"


def test_species_names_are_folded_to_folder_names():
    assert species_folder(" Crayfish ") == "crayfish"
    assert species_folder("Red panda") == "red-panda"
    assert species_folder("..") == "default"
    assert avatar_path(dataclasses.replace(XIAOQIAN, species="Crayfish"), 30).parent.name == "crayfish"


def test_a_species_folder_missing_the_early_stages_falls_back_to_default(tmp_path, monkeypatch):
    (tmp_path / "default").mkdir()
    (tmp_path / "crayfish").mkdir()
    for name in ("default/stage-0.svg", "crayfish/stage-7.png", "crayfish/stage-7.svg"):
        (tmp_path / name).write_text("<svg/>")
    monkeypatch.setattr(face, "AVATAR_DIR", tmp_path)
    assert avatar_path(XIAOQIAN, 3) == tmp_path / "default" / "stage-0.svg"
    assert avatar_path(XIAOQIAN, 8) == tmp_path / "crayfish" / "stage-7.svg"  # SVG before PNG


def test_chat_avatars_are_person_then_pet():
    assert chat_avatars(XIAOQIAN, 31) == (PERSON_AVATAR, AVATAR_DIR / "crayfish" / "stage-30.svg")


# --- the growth card -----------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "language", "shown"),
    [
        (0, "zh", ["小钳", "在一起的第一天", "刚到家的小虾米", "下一站：探头探脑的小钳（第 7 天）", "还有 7 天", "width:0%"]),
        (3, "en", ["Xiaoqian", "Day 3 together", "shy newcomer", "Next: curious explorer (day 7)",
                   "4 days to go", "width:43%"]),
        (25, "zh", ["在一起第 25 天", "探头探脑的小钳", "熟门熟路的小跟班（第 30 天）", "还有 5 天", "width:78%"]),
        (150, "en", ["Day 150 together", "hard-shelled partner", "Next: old pal (day 365)", "215 days to go"]),
        (364, "en", ["Day 364 together", "hard-shelled partner", "1 day to go"]),
    ],
)
def test_the_card_shows_days_stage_and_next_milestone(days, language, shown):
    card = growth_card_html(XIAOQIAN, ADOPTED, after(days), language)
    for text in shown:
        assert text in card
    assert 'role="progressbar"' in card
    assert card_image(card) == avatar_path(XIAOQIAN, days).read_bytes()


@pytest.mark.parametrize(("language", "line"), [("zh", "已经完全长大啦"), ("en", "Fully grown")])
def test_after_the_last_stage_the_card_says_fully_grown(language, line):
    card = growth_card_html(XIAOQIAN, ADOPTED, after(400), language)
    assert line in card
    assert "progressbar" not in card
    assert card_image(card) == (AVATAR_DIR / "crayfish" / "stage-365.svg").read_bytes()


def test_days_are_counted_on_the_pets_own_calendar():
    # 00:30 on day 7 in Shanghai is still the evening of day 6 in UTC.
    utc = at(ADOPTED + dt.timedelta(days=7), hour=0).replace(minute=30).astimezone(dt.UTC)
    card = growth_card_html(XIAOQIAN, ADOPTED, utc, "en")
    assert "Day 7 together" in card and "curious explorer" in card
    assert card_image(card) == (AVATAR_DIR / "crayfish" / "stage-7.svg").read_bytes()


def test_persona_text_is_escaped():
    sly = dataclasses.replace(
        XIAOQIAN,
        name={"zh": "<b>小钳</b>", "en": "<b>Claws</b>"},
        stages=(Stage(0, {"en": "Tom & <i>Jerry</i>"}), Stage(7, {"en": "<script>x</script>"})),
    )
    card = growth_card_html(sly, ADOPTED, after(2), "en")
    assert "&lt;b&gt;Claws&lt;/b&gt;" in card and "<b>" not in card
    assert "Tom &amp; &lt;i&gt;Jerry&lt;/i&gt;" in card and "<i>" not in card
    assert "&lt;script&gt;" in card and "<script" not in card


def test_the_card_is_self_contained():
    card = growth_card_html(XIAOQIAN, ADOPTED, after(40), "zh")
    assert "http" not in card and "<script" not in card and "<link" not in card
    assert card.startswith("<div") and card.endswith("</div>")


def test_an_unknown_language_gets_english():
    assert "Day 40 together" in growth_card_html(XIAOQIAN, ADOPTED, after(40), "fr")


def test_a_pet_without_stages_shows_its_days_and_default_face_but_no_milestone():
    hamster = parse_persona(base_persona())
    card = growth_card_html(hamster, ADOPTED, after(10), "en")
    assert "Doudou" in card and "Day 10 together" in card
    assert "Fully grown" not in card and "progressbar" not in card
    assert card_image(card) == (AVATAR_DIR / "default" / "stage-0.svg").read_bytes()


def test_the_stage_face_is_large_and_names_the_stage_and_the_way_on():
    import datetime as dt

    from pet.persona.model import load_persona
    from pet.ui.face import STAGE_AVATAR_PX, stage_face_html

    persona = load_persona("xiaoqian")
    adopted = dt.date(2026, 1, 1)
    shown = stage_face_html(persona, adopted, dt.datetime(2026, 1, 11, 12, 0), "en")
    assert f'width="{STAGE_AVATAR_PX}"' in shown and 'data-days="10"' in shown
    assert "Day 10 together" in shown and "Next:" in shown and "days to go" in shown
    assert "image/svg+xml" in shown  # the face inline: no file server needed
