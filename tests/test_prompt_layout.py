"""For a brain that caches the prompt's prefix (llama.cpp), the volatile end
of the system prompt (the time, the recalled memories) comes just before the
new message, so that everything before it is the same from turn to turn."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import MemoryRecord
from pet.persona.model import load_persona
from pet.persona.prompt import MEMORY_HEADING, NEAR_HEADING, system_prompt, system_prompt_parts

XIAOQIAN = load_persona("xiaoqian")
SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = dt.datetime(2027, 3, 1, 9, 30, tzinfo=SHANGHAI)


def test_the_two_parts_are_the_whole_prompt_and_only_the_second_moves_with_the_clock():
    memories = (MemoryRecord(3, "has a cat called Mochi"),)
    args = {"adopted": dt.date(2027, 2, 1), "language": "en", "memories": memories}
    stable, volatile = system_prompt_parts(XIAOQIAN, now=NOW, **args)
    assert system_prompt(XIAOQIAN, now=NOW, **args) == stable + "\n" + volatile
    assert "Now it is Monday 2027-03-01 09:30" in volatile and MEMORY_HEADING in volatile
    assert "Mochi" not in stable and "09:30" not in stable
    later_stable, later_volatile = system_prompt_parts(XIAOQIAN, now=NOW + dt.timedelta(minutes=7), **args)
    assert later_stable == stable and later_volatile != volatile
    # nor with the day: the days together are volatile, and the stable part
    # (kept on disk by the embedded brain) holds until the growth stage changes
    next_day, _ = system_prompt_parts(XIAOQIAN, now=NOW + dt.timedelta(days=1), **args)
    assert next_day == stable and "28 days" in volatile


def _sent(reuses_prefix: bool) -> list:
    model = ScriptedModel(["Hello!", "Fine."])
    model.reuses_prompt_prefix = reuses_prefix  # as the embedded brain says
    clock = iter([NOW, NOW + dt.timedelta(minutes=1), NOW + dt.timedelta(minutes=2)] * 4)
    app = build(load_settings({"reflexes": False}), brain=model, clock=lambda: next(clock), scheduler="off")
    app.memories.remember(app.pet.id, "has a cat called Mochi")
    conversation = app.new_conversation()
    for text in ("hi, tell me about Mochi", "how is Mochi today?"):
        list(app.agent.run(conversation, text))
    app.close()
    return [call.messages for call in model.calls]


def test_the_agent_puts_the_time_last_for_a_brain_that_caches_prefixes():
    first, second = _sent(reuses_prefix=True)
    assert [m.role for m in second] == ["system", "system", "user", "assistant", "system", "user"]
    assert second[:2] == first[:2]  # the long part is the same from turn to turn
    assert "Now it is" not in second[0].content and "Mochi" not in second[0].content
    # the memories kept in mind at every turn come after the tools, before the history
    # with the days together, which change once a day (the part before them is kept on disk)
    assert second[1].content.startswith("You have lived with this person for ")
    assert MEMORY_HEADING in second[1].content and "Mochi" in second[1].content
    assert second[-2].content.startswith("Now it is") and "Mochi" not in second[-2].content  # said once
    assert "lived with" not in second[0].content + second[-2].content
    assert second[-1].content == "how is Mochi today?"


def test_the_turns_note_names_only_memories_near_the_message_and_not_kept_in_mind():
    model = ScriptedModel(["Sure!", "Okay!"])
    model.reuses_prompt_prefix = True
    app = build(load_settings({"reflexes": False, "recall_limit": 4}), brain=model, clock=lambda: NOW,
                scheduler="off")
    app.memories.remember(app.pet.id, "my piano teacher is called Ms Alvarez")  # the oldest
    for fact in ("I drink green tea", "I live in Hangzhou", "I work late", "my cat is Mochi", "I like hiking"):
        app.memories.remember(app.pet.id, fact)
    list(app.agent.run(app.new_conversation(), "do you think Ms Alvarez liked my piano playing?"))  # no fact to note
    list(app.agent.run(app.new_conversation(), "the weather is nice"))
    near, far = (call.messages for call in model.calls)
    kept = near[1].content  # the newest two (half the recall limit), in every turn
    assert kept == far[1].content and "hiking" in kept and "Mochi" in kept and "Alvarez" not in kept
    assert NEAR_HEADING in near[-2].content and "Alvarez" in near[-2].content
    assert "they said" not in far[-2].content  # nothing near small talk: the note is the time and the language
    app.close()


def test_other_brains_get_one_system_message_first():
    _, second = _sent(reuses_prefix=False)
    assert [m.role for m in second] == ["system", "user", "assistant", "user"]
    assert "Now it is" in second[0].content and "Mochi" in second[0].content
