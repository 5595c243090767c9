"""A slip of the finger in the word a request hinges on ("my remidners?") is
read as the word it misses, and only such words are mended."""

from __future__ import annotations

import pytest

from pet.agent import capture, spelling
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import ToolStarted


@pytest.mark.parametrize(("text", "mended"), [
    ("my remidners?", "my reminders?"),  # two letters swapped
    ("pls remeber my locker is 214", "pls remember my locker is 214"),  # a letter left out
    ("rememebr that", "remember that"),
    ("forgt the gym thing", "forget the gym thing"),
    ("cancle my dentist reminder", "cancel my dentist reminder"),
    ("Remeber: milk", "Remember: milk"),  # the capital stays
    ("remindr me tmrw", "remind me tmrw"),  # remind or reminder: the verb before "me"
    ("set a remindr for sat", "set a reminder for sat"),  # ...else the longer word
    ("remindrs", "reminders"),
    ("remnd", "remind"),
    ("rember that my gate code is 4471", "remember that my gate code is 4471"),  # a common slip two edits off
    ("Rember: milk", "Remember: milk"),
    ("ok. Remeber this: x", "ok. Remember this: x"),  # a capital where a sentence starts
])
def test_a_misspelt_request_word_is_mended(text, mended):
    assert spelling.mend(text) == mended


@pytest.mark.parametrize("text", [
    "I forgot my umbrella",  # real words one edit away (found by a review: "forgets" had become "forget")
    "My sister is sweet, forgets birthdays though",
    "Forge ahead!",
    "please memorise that my locker is 55",
    "what is the remainder of 17/5", "what are the remainders?",
    "my aunt beat cancer",
    "she reminds me of you",
    "remind me to deplete the tank at 6pm",
    "the scheduler is broken",
    "my son goes to emory",
    "remind me to call Emory at 5pm",  # a name inside a sentence
    "I edited it in Remini",
    "remember my wifi password is Remeber2024",  # inside a longer token
    "wifi: Forge-Remeber",
    "the reminders are fine",  # already right
    "rmd me",  # too short
    "记得提醒我",  # Chinese is left alone
])
def test_real_words_names_tokens_and_other_scripts_are_left_alone(text):
    assert spelling.mend(text) == text


def end_to_end(test):
    """An end-to-end test: it routes with the real sentence encoder."""
    skip = pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")
    return pytest.mark.real_encoder(skip(test))


def _app():
    model = ScriptedModel(["(the model)"] * 6)
    return build(load_settings({"reflexes": True, "greeting": False}), brain=model, scheduler="off")


def _tools(events):
    return [e.call.name for e in events if isinstance(e, ToolStarted)]


@end_to_end
def test_a_misspelt_request_runs_its_tool_and_the_message_is_kept_as_written():
    app = _app()
    conversation = app.new_conversation()
    events = list(app.agent.run(conversation, "my remidners?"))
    kept = [m.message.content for m in app.conversations.history(conversation) if m.message.role == "user"]
    app.close()
    assert _tools(events) == ["list_reminders"]
    assert kept == ["my remidners?"]


@end_to_end
def test_a_remark_near_a_request_word_deletes_nothing_and_commands_stay_as_typed():
    app = _app()
    conversation = app.new_conversation()
    list(app.agent.run(conversation, "remember that my sister's birthday is May 3"))
    events = list(app.agent.run(conversation, "My sister is sweet, forgets birthdays though"))
    assert "forget" not in _tools(events)
    list(app.agent.run(conversation, "/remember wifi password: Forge-Remeber"))
    memories = [m.content for m in app.memories.recent(app.first_pet().record.id, limit=10)]
    app.close()
    assert "wifi password: Forge-Remeber" in memories


@end_to_end
def test_a_misspelt_forget_deletes_what_it_names():
    # round 38's spent set: the forget tool found no word of forgetting in "forgett" and deleted nothing
    app = _app()
    conversation = app.new_conversation()
    pet = app.first_pet().record.id
    app.memories.remember(pet, "my phone number is 555-0142")
    app.memories.remember(pet, "I play badminton")
    events = list(app.agent.run(conversation, "forgett my old phone number, it's not mine anymore"))
    left = [m.content for m in app.memories.recent(pet, limit=10)]
    app.close()
    assert "forget" in _tools(events)
    assert left == ["I play badminton"]
