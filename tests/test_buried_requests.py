"""One request amid other talk ("long day… anyway can you remember that…"),
and the facts the pet noted itself, which are the person's words: neither
needs the model, and a noted fact never makes a later request wait for /yes."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from pet.agent import capture, reflexes
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import Completion, Reply, ToolFinished, ToolStarted

pytestmark = [pytest.mark.real_encoder,
              pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")]


#: the model fills the to-do's words, held to the tool's schema (the route's slots are the model's)
TODO = Completion(text="", tool_calls=(call("add_todo", text="准备季度汇报PPT"),))


def _app(*answers):
    model = ScriptedModel([*answers, *["(the model)"] * 6])
    return build(load_settings({"reflexes": True, "greeting": False}), brain=model, scheduler="off"), model


def _told(text, memory=None):
    """One message to a new pet that may hold one memory: the tools called, their results, the memories after."""
    app, _ = _app()
    if memory is not None:
        app.agent.memories.remember(app.agent.pet.id, memory)
    calls, results, _ = _turn(app, app.new_conversation(), text)
    memories = [m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=10)]
    app.close()
    return calls, results, memories


def _turn(app, conversation, text):
    events = list(app.agent.run(conversation, text))
    calls = [e.call.name for e in events if isinstance(e, ToolStarted)]
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    return calls, results, [e for e in events if isinstance(e, Reply)][-1].text


def _model_called(text, tool):
    """The tools run when the model's first answer is a call of `tool` to `text`."""
    app, _ = _app(Completion(text="", tool_calls=(tool,)), "(the model)")
    calls, _, _ = _turn(app, app.new_conversation(), text)
    app.close()
    return calls


def test_a_request_in_one_clause_of_a_longer_message_is_routed_as_that_clause():
    app, model = _app(TODO)
    conversation = app.new_conversation()
    # ("帮我在todo里加个 …" is read in code since round 22; "塞一个" is the router's, its words the model's)
    calls, results, reply = _turn(app, conversation, "今天开会被老板点名了，心累。帮我往todo里塞一个 准备季度汇报PPT")
    app.close()
    assert calls == ["add_todo"] and results[0].ok and "准备季度汇报PPT" in reply
    assert [spec.name for spec in model.calls[0].tools] == ["add_todo"]  # asked for its words only


@pytest.mark.parametrize("text", [
    # news, a question about the tools, a request taken back: no tool
    "we're flying to Osaka on jan 28, so excited!!",
    "do you think I set too many reminders? my phone buzzes all day",
    "remind me to call Felix tomorrow at noon... actually never mind, i'll text him now",
])
def test_talk_that_only_mentions_a_tool_in_one_clause_runs_none(text):
    app, _ = _app()
    calls, _, _ = _turn(app, app.new_conversation(), text)
    app.close()
    assert set(calls) <= {capture.STEP}


def test_a_noted_fact_does_not_make_the_next_request_wait_for_a_yes():
    # the noted step was taken for a tool's output from outside, so every routed call after it asked
    # "/yes" ("刚才读到了工具拿来的内容…")
    app, _ = _app("Peanuts are off the menu then!", TODO)
    conversation = app.new_conversation()
    calls, _, _ = _turn(app, conversation, "I'm allergic to peanuts, by the way")
    assert calls == [capture.STEP]
    # ("帮我在todo里加个 …" is read in code since round 22; "塞一个" is the router's, its words the model's)
    calls, results, reply = _turn(app, conversation, "今天开会被老板点名了，心累。帮我往todo里塞一个 准备季度汇报PPT")
    app.close()
    assert calls == ["add_todo"] and results[0].ok and "/yes" not in reply


def test_a_title_ends_no_sentence_and_a_request_after_anyway_is_read():
    assert reflexes.clauses("my landlord's name is Mr. Petrakis. he's nice") == [
        "my landlord's name is Mr. Petrakis", "he's nice"]
    assert capture.sentences("Dr. Wu is my dentist. She is great") == ["Dr. Wu is my dentist.", "She is great"]
    # nor a number's sign (round 49's spent memory set kept "2 High School" as a fact)
    assert capture.sentences("Lele lives with me now. He goes to Anji No. 2 High School.") == [
        "Lele lives with me now.", "He goes to Anji No. 2 High School."]
    assert capture.sentences("I'm in room no.5 now. It is small") == ["I'm in room no.5 now.", "It is small"]
    app, _ = _app()
    calls, results, _ = _turn(app, app.new_conversation(), "long day at the clinic, patients everywhere. "
                                                           "anyway can you remember that my landlord's name is "
                                                           "Mr. Petrakis?")
    app.close()
    assert calls == ["remember"] and "Mr. Petrakis" in results[0].content


@pytest.mark.parametrize("text, kept", [
    # the router leans to remember but is not sure: the request's own words decide (round 17's spent set)
    ("今天累死了，开会开到好晚……对了，新的门禁密码是 8812，帮我存一下", "8812"),
    ("note down that i can't eat kiwi, it makes my mouth itch", "kiwi"),
])
def test_a_request_to_keep_a_fact_the_router_is_unsure_of_is_kept(text, kept):
    app, model = _app()
    conversation = app.new_conversation()
    calls, results, reply = _turn(app, conversation, text)
    app.close()
    assert calls == ["remember"] and results[0].ok and kept in results[0].content


@pytest.mark.parametrize("text, kept", [
    # round 48's spent set: "note that down in your memory" kept "down in your memory" as the memory
    ("Tobias (my roommate) hates cilantro, note that down in your memory", "Tobias (my roommate) hates cilantro"),
    ("note that down in your memory: my locker is 77", "my locker is 77"),
    # (the review of 2026-12-07: "down" and "away" of the fact itself stay)
    ("remember: down payment is due on the 5th", "down payment is due on the 5th"),
    ("note that away games start at 3pm", "away games start at 3pm"),
    ("remember that down jackets go on the top shelf", "down jackets go on the top shelf"),
])
def test_where_a_fact_is_kept_is_no_part_of_it(text, kept):
    calls, results, _ = _told(text)
    assert calls == ["remember"] and results[0].ok and results[0].content.endswith(": " + kept)


@pytest.mark.parametrize("memory, question, found", [
    # a short question for one thing of the person's that a memory holds the words of (round 17's spent set)
    ("我的工号是A-30918", "工号多少？", "A-30918"),
    ("My favourite author is Ursula Le Guin", "who did i tell you my favourite author was?", "Le Guin"),
    ("my passport number is E1234567", "passport?", "E1234567"),
    ("备用钥匙放在门口的花盆底下", "备用钥匙我放哪儿了？", "花盆"),
    # near "忘掉…密码" to the router, but no word of deleting: recall, not a forget the tool refuses
    ("门禁密码是 4417#", "门禁密码？", "4417#"),
    # near "帮我存一下…" to the router, but a question (round 20's spent set)
    ("护照号码是 E12345678", "护照号？", "E12345678"),
    # where a thing was put, by its verb (round 46's spent set: "门禁卡放哪了" asked nothing) and in "where'd"
    ("门禁卡放在玄关鞋柜上", "门禁卡放哪了", "鞋柜"),
    ("my passport is in the blue drawer", "where'd i put my passport", "blue drawer"),
])
def test_a_question_for_a_kept_value_is_recalled(memory, question, found):
    app, model = _app()
    app.agent.memories.remember(app.agent.pet.id, memory)
    conversation = app.new_conversation()
    calls, results, reply = _turn(app, conversation, question)
    app.close()
    assert calls == ["recall"] and found in results[0].content


@pytest.mark.parametrize("memory, question", [
    ("I have a cat called Juzi", "what do you think about cats?"),  # the pet's view: no recall
    ("我的工号是A-30918", "你叫啥来着"),  # the pet's name
    # found by a review: venting that shares one character with a memory, a question about the day
    ("我妈妈是老师", "我到底哪里做错了"),
    ("My plan is to learn Spanish this year", "what's my plan for today?"),
])
def test_other_questions_are_not_recalled(memory, question):
    app, model = _app()
    app.agent.memories.remember(app.agent.pet.id, memory)
    conversation = app.new_conversation()
    calls, _, _ = _turn(app, conversation, question)
    app.close()
    assert "recall" not in calls


@pytest.mark.parametrize("memory, text", [
    # near "帮我存一下…" to the router, but asking to let go of a memory: nothing is kept (round 19's spent set)
    ("我的鞋码是38", "我鞋码那条不用留着了"),
])
def test_letting_go_of_a_memory_remembers_nothing(memory, text):
    calls, _, memories = _told(text, memory)
    assert "remember" not in calls and "note" not in calls
    assert not any("不用留" in m for m in memories)


@pytest.mark.parametrize("memory, text", [
    # a plain way of saying it, in either language
    ("my car's plate number is KT58 RWX", "we sold the car last week, so no need to keep the licence plate anymore"),
    ("男朋友叫小林", "分手了，别再记着小林的事了"),
])
def test_letting_go_in_other_words_forgets(memory, text):
    calls, results, _ = _told(text, memory)
    # the forget runs; it forgets the memory or, the words being loose, asks whether it is the one meant
    assert calls == ["forget"] and (results[0].ok or "#1" in results[0].content)


def test_a_reminder_to_delete_is_cancelled_not_forgotten():
    # near "把那条记忆删了" to the router, but a reminder (round 19's spent set)
    calls, _, _ = _told("明天的牙医改期了，把那个提醒删了吧", "我的牙医姓周")
    assert calls == ["cancel_reminder"]


@pytest.mark.parametrize("text, kept", [
    # the request points back past a remark (round 21's spent set: the fact was noted, not remembered)
    ("heads up, I can't eat shellfish. yeah yeah, awkward thing to tell a crayfish lol. anyway make a note of it",
     "I can't eat shellfish"),
    # after a story and an aside (顺便): the story is not the fact
    ("今天搬新工位了，在十二楼靠窗，以后找我就去那儿。顺便帮我记住：我的工位号是B-1207", "我的工位号是B-1207"),
    # asked in words of its own, pointing back (round 23's spent tools set: "keep that in your noggin" was noted)
    ("my locker code is 4471, commit that to memory", "my locker code is 4471"),
    ("我的工号是A3321，把这个刻进你的小脑瓜", "我的工号是A3321"),
])
def test_a_request_to_remember_after_other_talk_keeps_its_own_fact(text, kept):
    calls, results, memories = _told(text)
    assert calls == ["remember"] and results[0].ok and memories == [kept]


@pytest.mark.parametrize("text", [
    # pointing back, but not asking (found by a review): told before, not needed, negated
    "我妹妹是护士，我跟你说过这个吧", "我的工号是A3321，这个没必要记", "my locker code is 4471, don't bother remembering that",
])
def test_a_clause_pointing_back_without_asking_is_no_request_to_remember(text):
    calls, _, _ = _told(text)
    assert "remember" not in calls


def test_a_request_pointing_back_at_nothing_keeps_nothing():
    calls, _, memories = _told("what a day. anyway make a note of it")
    assert "remember" not in calls and memories == []


@pytest.mark.parametrize("text", ["what was that restaurant called?", "密码是多少来着", "what's the gate code?"])
def test_a_question_for_something_said_before_looks_it_up_with_no_memory_near(text):
    # found by a review: with nothing near, the model alone would make up a code or a name
    calls, _, _ = _told(text, "Has a corgi named Turnip")
    assert calls == ["recall"]


@pytest.mark.parametrize("text", ["please remember my locker code is 4471, and how's your day going?",
                                  "帮我记住我的车停在B12，顺便问下你今天开心吗"])
def test_a_request_beside_a_question_is_not_read_alone(text):
    # found by a review: the remember ran and the question was dropped
    app, model = _app()
    calls, _, reply = _turn(app, app.new_conversation(), text)
    app.close()
    # the model answers, with its tools offered; no reflex ran the request alone
    assert "remember" not in calls and reply and model.calls[0].tools


@pytest.mark.parametrize("text", ["what's the capital of Canada?"])
def test_a_question_of_nothing_the_person_said_looks_up_no_memory(text):
    # near the recall examples (round 21's spent chat set answered "No memories match that.")
    calls, _, _ = _told(text, "Has a corgi named Turnip")
    assert "recall" not in calls


@pytest.mark.parametrize("text, memory", [
    ("wifi password?", "the wifi password is hunter22"),
    ("房东叫啥来着", "landlord is Mr. Pereira"),  # no word in common, near in meaning (round 17's spent set)
])
def test_a_question_a_memory_answers_looks_it_up(text, memory):
    calls, _, _ = _told(text, memory)
    assert calls == ["recall"]


def test_a_reminder_let_go_near_the_remind_examples_is_cancelled():
    # nearest "下周一提醒我去看牙" to the router, but it lets a reminder go (round 21's spent set)
    calls, _, _ = _told("看牙那个提醒不要了，医生那边改时间了，到时候我再跟你说")
    assert calls == ["cancel_reminder"]


@pytest.mark.parametrize("text, kept", [
    # seen on the page: near "remember my passport number…" to the router, but asking nothing, and
    # neither remembered nor noted; and a fact after a greeting in the first message
    ("my passport number is E1234567", "E1234567"),
    ("hi! I'm Dana, I work as a nurse at the city hospital", "nurse"),
    # nearer the remember examples than the note ones, as a fact is when it asks nothing (seen on the page)
    ("我的护照号是E7654321", "E7654321"),
])
def test_a_fact_no_routed_tool_handles_is_still_noted(text, kept):
    calls, _, memories = _told(text)
    assert "note" in calls and any(kept in m for m in memories)


@pytest.mark.parametrize("text, gone", [
    # round 22's spent set: nearest "remember" to the router, or the whole message searched for
    ("取护照那个不用提醒了，明天我反正要路过", "取护照"),
    ("no need to remind me about the dentist anymore", "dentist checkup"),
])
def test_a_reminder_let_go_by_what_it_is_for_is_cancelled(text, gone):
    import datetime as dt

    app, _ = _app()
    pet_id = app.agent.pet.id
    for what in ("取护照", "牙医复诊", "dentist checkup", "send the invoice"):
        app.reminders.add(pet_id, what, dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=2))
    calls, results, _ = _turn(app, app.new_conversation(), text)
    left = [r.text for r in app.reminders.pending(pet_id)]
    app.close()
    assert calls == ["cancel_reminder"] and results[0].ok
    assert gone not in left and len(left) == 3


@pytest.mark.parametrize("text, tool", [
    ("把我的reminder列表给我瞅瞅", "list_reminders"),  # round 22's spent set: the to-do list was shown
    ("把我的提醒列表给我瞅瞅", "list_reminders"),
    ("我的todo清单给我看看", "list_todos"),
])
def test_the_list_asked_for_is_the_one_named(text, tool):
    calls, _, _ = _told(text)
    assert calls == [tool]


@pytest.mark.parametrize("text, memory, forgets", [
    # round 22's spent set: between keeping and forgetting to the router, and noted as a fact
    ("got a new job so you don't need to keep my office parking spot anymore", "parks in spot C-14 at the office",
     True),
    ("you don't need to remember that I'm sad, I'm fine", "parks in spot C-14 at the office", False),
    # round 25's spent set: nearest the facts; a word of deleting the router leans to
    ("we rehomed Biscuit 😢 no need to remember his vet anymore", "Biscuit's vet is Dr. Lam on Pine St", True),
    ("drop the mic lol", "choir rehearsal is at St. Anne's hall", False),
    # the review of 2026-12-04: a word of deleting in everyday senses, and "不用记了" of the message itself
    ("i should delete Jake's number, right?", "I broke up with Jake last month", False),
    ("i might drop my night shifts next year", "I work as a night-shift nurse", False),
    ("年糕今天又吐了，不用记了，就是吐槽一下", "我的猫叫年糕", False),
    ("you don't need to remember this, but my cat Mochi just knocked over my plant lol", "my cat Mochi is 3", False),
])
def test_a_kept_thing_said_to_be_no_longer_needed_is_forgotten(text, memory, forgets):
    calls, _, memories = _told(text, memory)
    assert ("forget" in calls) is forgets and (memory not in memories) is forgets


class _HeldToGrammar(ScriptedModel):
    """A scripted brain whose tool calls are held to a grammar, as the embedded one's are."""

    constrained_tool_calls = True


def _shown(model, text):
    """One message to a new pet with `model` as its brain: the tools called, the reply, the tools offered first."""
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model, scheduler="off")
    calls, _, reply = _turn(app, app.new_conversation(), text)
    app.close()
    return calls, reply, [spec.name for spec in model.calls[0].tools]


@pytest.mark.parametrize("held", [False, True])
def test_talk_the_router_reads_as_likeliest_small_talk_shows_a_server_model_no_tools(held):
    """Round 24's spent set against the 0.5B under llama_cpp.server: the lyric brought four remember calls.
    The router abstains with small talk likeliest; a brain that cannot be held to a grammar is shown no tool,
    the embedded one (held) still sees them all and chooses."""
    text = "🎵 remember me, though i have to say goodbye 🎵 that movie makes me cry every single time"
    calls, reply, offered = _shown((_HeldToGrammar if held else ScriptedModel)(["It gets me too."]), text)
    assert calls == [] and reply == "It gets me too."
    assert bool(offered) is held


@pytest.mark.parametrize("text, tool", [
    # the review of 2026-12-04: small talk is the router's likeliest reading, but the message asks
    ("ugh so bored. what's on my plate this week", None),
    # the router unsure, but nearest a tool
    ("how does a reminder app even know when to ping u? like technically", "list_reminders"),
])
def test_talk_that_asks_or_leans_to_a_tool_still_shows_a_server_model_the_tools(text, tool):
    _, _, offered = _shown(ScriptedModel(["It watches the clock, like me."]), text)
    assert offered and (tool is None or tool in offered)


def test_a_clause_filled_with_a_pronoun_alone_runs_nothing_in_code():
    from pet.agent.loop import mostly_new

    assert mostly_new("it", ["add it"]) and mostly_new("that", ["and add that"])
    assert not mostly_new("买猫砂", ["加个待办 买猫砂"]) and not mostly_new("42", ["add 42"])


def test_a_clause_whose_words_are_the_models_to_find_is_asked_of_the_model_alone():
    """Round 25's spent set: "show me my todos then add 'mail the rent check'" ran nothing (the second
    clause's item is the model's to find). Now the model fills it from that clause alone, held to the tool."""
    app, model = _app(Completion("", (call("add_todo", text="mail the rent check"),)))
    calls, results, reply = _turn(app, app.new_conversation(), "show me my todos then add 'mail the rent check'")
    app.close()
    assert calls == ["list_todos", "add_todo"] and all(r.ok for r in results)
    assert "mail the rent check" in reply
    asked = model.calls[0]
    assert [spec.name for spec in asked.tools] == ["add_todo"]
    assert [m.content for m in asked.messages if m.role == "user"][-1] == "add 'mail the rent check'"


def test_one_more_added_after_the_list_named_takes_the_persons_words_without_the_model():
    # (the model once filled "add mail the rent check" as "Rent check due to the upcoming deadline", and nothing ran;
    # since round 30's spent set the words after "add", the list named before, are the todo)
    app, model = _app(Completion("", (call("add_todo", text="Rent check due to the upcoming deadline"),)))
    calls, results, _ = _turn(app, app.new_conversation(), "show me my todos then add mail the rent check")
    app.close()
    assert calls == ["list_todos", "add_todo"] and "mail the rent check" in results[1].content
    assert not model.calls


@pytest.mark.parametrize("text, memory", [
    # round 25's spent set: a kept value asked for in few words, or as a question without its mark
    ("wifi密码？", "家里wifi密码是xiaomao2024"),
    ("where did i put my passport", "护照放在书房的蓝色文件夹里"),
    # round 26's: no word in common, another language, but close in meaning
    ("which night do i play basketball?", "每周四晚上打篮球"),
    # "can i", "should i", "应该" in a question for a kept value (the review of 2026-12-05)
    ("where can i find my passport?", "my passport is in the blue folder in the study"),
    ("which bus should i take to work?", "I take the 42 bus to work"),
    ("我妈生日应该是几号？", "我妈生日是3月12号"), ("wifi密码应该是多少来着？", "家里wifi密码是xiaomao2024"),
    # the router torn, a memory near what is asked (round 45's spent chat set: answered without the memory)
    ("我养了几只仓鼠你还记得不", "我养了三只仓鼠，叫大福、二福和三福"), ("what do i do for work again? lol brain fog", "I work as a dental hygienist"),
])
def test_a_question_for_a_kept_value_recalls_it(text, memory):
    calls, results, _ = _told(text, memory)
    assert calls == ["recall"] and memory in results[0].content


@pytest.mark.parametrize("text, memory", [
    ("where did i leave my keys, ugh", "护照放在书房的蓝色文件夹里"), ("what a day", "护照放在书房的蓝色文件夹里"),
    # the review of 2026-12-04: advice asked near a memory, and a new value to keep asked as a question
    ("what are some snacks i can bring to the party", "I'm allergic to peanuts"),
    ("what's a good name for my new goldfish", "my cat is called Mochi"),
    # what to give or buy (round 45's spent set: "没有找到对得上的记忆")
    ("我男朋友下周一 birthday，不知道送啥", "我的车停在B2-17"), ("my bf's birthday is monday, no idea what to get him", "my cat is called Mochi"),
])
def test_a_question_no_memory_answers_recalls_nothing(text, memory):
    calls, _, _ = _told(text, memory)
    assert "recall" not in calls


@pytest.mark.parametrize("text", [
    "where is my locker code written... nvm it's 5521 now, please remember",
    "what's my new wifi password? lobster2027, save it",
])
def test_a_new_value_to_keep_asked_as_a_question_is_not_recalled(text):
    calls, _, _ = _told(text, "my locker code is 1234")
    assert "recall" not in calls


@pytest.mark.parametrize("text, lets_go", [
    ("no need to keep my old locker code", True), ("不用再记着我的工号了", True),
    ("不用记得那么清楚啦", False), ("I need to remember my new locker code", False),
    ("年糕今天又吐了，不用记了，就是吐槽一下", False), ("you don't need to remember this, but guess what", False),
])
def test_words_letting_a_kept_thing_go(text, lets_go):
    from pet.tools.facts import no_longer_kept

    assert no_longer_kept(text) is lets_go


@pytest.mark.parametrize("text, remembered, todo", [
    # round 26's spent set: the first of two requests opens with "先" / "first" (it ran the second alone)
    ("先记住我老板叫司马蓉，再加个待办：给她发周报", "我老板叫司马蓉", "给她发周报"),
    ("first remember my boss is Sima Rong, then add a todo: send her the weekly report", "my boss is Sima Rong",
     "send her the weekly report"),
])
def test_the_first_of_two_requests_may_open_with_first(text, remembered, todo):
    app, _ = _app()
    calls, results, _ = _turn(app, app.new_conversation(), text)
    memories = [m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=10)]
    app.close()
    assert calls == ["remember", "add_todo"] and all(r.ok for r in results)
    assert remembered in memories and todo in results[1].content


@pytest.mark.parametrize("text", ["first day at the new job was rough", "先吃饭再说",
                                  # no request after the word (the review of 2026-12-05)
                                  "先记着，以后再说", "首先记住，别慌"])
def test_first_before_no_request_asks_nothing(text):
    calls, _, _ = _told(text)
    assert "remember" not in calls and "add_todo" not in calls


@pytest.mark.parametrize("text, kept", [
    # round 27's spent set: a request to keep what was said before it, the clauses parted by spaces; the nearest
    # fact, with what follows it up to a mark
    ("我跟你说 我女朋友不吃香菜 这个你记住哈 以后推荐菜的时候注意点", "我女朋友不吃香菜"),
    ("今天好累啊 上了一整天班 回家还得做饭 对了 我搬家了 新地址是梧桐路88号3栋502 你帮我记住吧 快递老填错",
     "我搬家了 新地址是梧桐路88号3栋502"),
    ("heads up, I can't eat shellfish. yeah yeah, awkward thing to tell a crayfish lol. anyway make a note of it",
     "I can't eat shellfish"),
    # round 40's spent set kept the reason given for asking ("i always blank on it", "别让我又找半天"), not the fact
    ("the wifi password is tulip99, remember that cuz i lose it all the time", "the wifi password is tulip99"),
    ("my dentist is Dr Okafor, remember that bc i never can", "my dentist is Dr Okafor"),
    ("my bike lock code is 4471, note that down in case i forget", "my bike lock code is 4471"),
    ("车位是负二层A-33，记一下不然我又找不到", "车位是负二层A-33"),
    ("储物柜是C-17号，记下来免得我忘", "储物柜是C-17号"),
    ("快递柜取件码是5521，帮我记着，以免我又忘", "快递柜取件码是5521"),
    # a digit in the reason (the review of 2026-12-06: the reason was kept)
    ("my locker is 221, remember that cuz i forget it like 3 times a week", "my locker is 221"),
])
def test_a_request_pointing_back_keeps_the_nearest_fact(text, kept):
    calls, results, memories = _told(text)
    assert calls == ["remember"] and memories == [kept]


def test_asking_the_pets_name_after_remind_me_lists_nothing():
    calls, _, _ = _told("提醒我一下 你叫啥来着")
    assert calls == []


def test_a_request_to_keep_pointing_back_holds_however_the_whole_leans():
    # round 27's spent set: the whole leans to listing reminders, but "帮我记住" asks to keep what was said before it
    calls, _, memories = _told("我新老板姓钟，帮我记住 免得我又叫错")
    assert calls == ["remember"] and memories == ["我新老板姓钟"]


@pytest.mark.parametrize("memory, recalls", [(None, False), ("my cat is called Mochi", True), ("我养了一只狗叫旺财", True)])
def test_my_pets_name_is_the_pets_own_unless_the_person_keeps_another(memory, recalls):
    # round 27's spent chat set: "No memories match that." to a person who keeps no other pet
    calls, _, _ = _told("my friend asked what my pet is called, what do i tell her?", memory)
    assert ("recall" in calls) is recalls


@pytest.mark.parametrize("text, kept", [
    # the talk before a turn to the fact is no part of it (tried on the page, 2026-12-05)
    ("今天好累啊 上了一整天班 对了 我搬家了 新地址是梧桐路88号3栋502 你帮我记住吧", "我搬家了 新地址是梧桐路88号3栋502"),
    ("so yeah work was rough. btw i'm allergic to shellfish, pls remember", "i'm allergic to shellfish"),
    ("对了 我的工号是A3321 记住", "我的工号是A3321"),
    ("我跟你说 我女朋友不吃香菜 这个你记住哈", "我女朋友不吃香菜"),
])
def test_a_fact_to_keep_starts_after_a_turn_of_subject(text, kept):
    calls, _, memories = _told(text)
    assert calls == ["remember"] and memories == [kept]


def test_a_reminder_to_cancel_named_by_a_date_nobody_said_is_found_by_the_words():
    # round 26's spent set, run whole: the model filled "which" with the clock's date and hour
    app, model = _app(Completion("", (call("cancel_reminder", which="2033-07-14 10:15"),)), "ok")
    now = app.agent.clock()
    for task, days in (("浇花", 1), ("去医院复查", 5), ("给妈妈打电话", 7)):
        app.reminders.add(app.agent.pet.id, task, now + dt.timedelta(days=days))
    calls, results, _ = _turn(app, app.new_conversation(), "去医院那个不用提醒了，改天再说")
    left = [r.text for r in app.reminders.pending(app.agent.pet.id)]
    app.close()
    assert calls == ["cancel_reminder"] and results[0].ok and left == ["浇花", "给妈妈打电话"]


@pytest.mark.parametrize("text, memories, recalls", [
    # the review of 2026-12-05: a memory asked for as what was told, and fish eaten is no pet kept
    ("what are some things i told you i like?", "I like oolong tea", True),
    ("what is my pet's name?", "I'm allergic to fish", False),
])
def test_the_reviews_questions(text, memories, recalls):
    calls, _, _ = _told(text, memories)
    assert ("recall" in calls) is recalls


def test_a_request_pointing_back_keeps_no_talk_after_the_fact():
    calls, _, memories = _told("我对花生过敏 今天跟同事吃饭 差点出事 吓死了 你帮我记住吧 以后别推荐")
    assert calls == ["remember"] and memories == ["我对花生过敏"]


@pytest.mark.parametrize("text", ["你会设提醒吗？就问问", "提醒一下你哦，你是小龙虾不是螃蟹哈哈", "你的名字我又忘了，提醒我一下？",
                                  "can you even set reminders? just curious",
                                  # what the pet would do if it could (round 29's spent set)
                                  "如果你能提醒全世界一件事 你会提醒啥", "if you could remind everyone of one thing what would it be",
                                  # what lists are good for (round 30's spent set)
                                  "what's the use of a todo list if i ignore it anyway",
                                  "记待办有什么意义，反正也做不完", "why do i even keep a reminder list lol"])
def test_a_word_of_reminding_that_asks_for_no_list_lists_nothing(text):
    # near "我有哪些提醒" to the router (round 28's spent set), but no word of seeing a list
    calls, _, _ = _told(text)
    assert "list_reminders" not in calls and "list_todos" not in calls


def test_a_tools_own_example_meant_in_another_language_is_set():
    # the review of 2026-12-05: "call mom" is the set_reminder schema's example, and nobody said it in English, but it
    # is what "要给我妈打电话" means
    model_call = Completion(text="", tool_calls=(call("set_reminder", text="call mom", when="in 20 minutes"),))
    app, _ = _app(model_call, "好嘞！")
    calls, results, _ = _turn(app, app.new_conversation(), "待会儿喊我一声 要给我妈打电话，二十分钟左右吧")
    app.close()
    assert calls == ["set_reminder"] and results[0].ok and "call mom" in results[0].content


def test_a_reminder_asked_with_a_wait_before_it_is_set_in_code_without_the_calls_words():
    # "过二十分钟" is read since round 32's spent set; 喊我一声's 一声 is no part of the task
    calls, results, _ = _told("过二十分钟喊我一声 要给我妈打电话")
    assert calls == ["set_reminder"] and results[0].ok and results[0].content.endswith("，给我妈打电话")


def test_a_message_opening_with_a_verb_of_deleting_forgets_the_memory_it_names():
    # round 28's spent set: between keeping and forgetting to the router, so the model decided, and kept it
    calls, results, memories = _told("scrub the thing about me hating olives", memory="I hate olives")
    assert calls == ["forget"] and results[0].ok and "I hate olives" not in memories


@pytest.mark.parametrize("text, kept", [
    # round 29's spent set: a request pointing back among talk, with the facts said just before it in the same
    # sentence; and the last clause that points back, before a question to the pet
    ("ok so today was chaos, the plumber finally showed up and the sink works again!! oh and before i forget, his name "
     "is Gustavo and his number is 555-0193, can you hold onto that for me. anyway making pasta now",
     ["his name is Gustavo and his number is 555-0193"]),
    # no clause of it states a fact alone (since round 35 joined the learned readings), the clauses together do
    ("今天搬家累死了 新邻居人挺好的 叫王阿姨 住我对门1902 你帮我记着点 以后好打招呼 话说你们小龙虾搬家吗",
     ["叫王阿姨 住我对门1902"]),
])
def test_a_request_pointing_back_in_a_long_message_keeps_the_facts_before_it(text, kept):
    calls, _, memories = _told(text)
    assert calls == ["remember"] and len(memories) == 1 and all(k in memories[0] for k in kept)
    assert "你帮我记着点" not in memories[0] and "话说" not in memories[0]


@pytest.mark.parametrize("text, memory", [
    # round 29's spent set: noted as news; a clause deletes what another names
    ("that office address u have for me, toss it, company moved buildings", "my office is at 88 Harbour Road"),
    ("我戒咖啡了 之前说爱喝美式那条清掉吧", "我爱喝美式"),
])
def test_a_clause_that_deletes_what_another_names_forgets_it(text, memory):
    calls, results, memories = _told(text, memory)
    assert calls == ["forget"] and results[0].ok and memories == []


@pytest.mark.parametrize("text", ["my old laptop died, tossed it", "那个旧手机 我扔掉了"])
def test_a_thing_thrown_away_forgets_nothing(text):
    calls, _, memories = _told(text, "my laptop is a thinkpad x1" if text.isascii() else "我的手机是华为的")
    assert "forget" not in calls and len(memories) >= 1


@pytest.mark.parametrize("text, memory, expected", [
    # round 29's spent set: a short remark between two requests (the model got the whole)
    ("forget that i work at Brightline, i quit. remember instead that i work at Kestrel Labs now", "I work at Brightline",
     ["forget", "remember"]),
    ("记住我喜欢猫，好开心，提醒我明天上午9点喂猫", None, ["remember", "set_reminder"]),
])
def test_a_short_remark_between_requests_is_no_request_of_its_own(text, memory, expected):
    calls, results, _ = _told(text, memory)
    assert calls == expected and all(r.ok for r in results)


@pytest.mark.parametrize("text", ["记住我喜欢猫，不对，提醒我明天上午9点喂猫", "remember i like cats, wait no, remind me at 9am tomorrow to feed the cat"])
def test_a_correction_between_requests_is_no_aside(text):
    calls, _, _ = _told(text)
    assert calls != ["remember", "set_reminder"]


def test_what_the_person_told_asked_as_a_question_is_recalled():
    # round 29's spent set: near "remember my passport number…", no tool
    calls, results, _ = _told("what did i tell u my passport number ends with", "my passport number ends with 4471")
    assert calls == ["recall"] and "4471" in results[0].content


def test_a_clause_that_deletes_what_no_memory_holds_notes_nothing():
    # seen on the page: with no memory of it, "…之前说爱喝美式那条清掉吧" was noted as a fact, request and all
    calls, _, memories = _told("我戒咖啡了 之前说爱喝美式那条清掉吧")
    assert "note" not in calls and memories == []


def test_figures_nobody_said_are_no_argument():
    # round 30's `tiny` added the todo "10.25.2319 - 17:36-48, 2023-02-17-1, …" for "put renew car insurance on my list"
    from pet.agent.loop import _ONLY_FIGURES, mostly_new

    junk = "10.25.2319 - 17:36-48, 2023-02-17-1, 10.25.2319 - 17:36-48"
    assert _ONLY_FIGURES.fullmatch(junk)
    assert mostly_new(junk, ["put renew car insurance on my list of stuff to do"])
    assert not mostly_new("1207", ["my office is room 1207"])


@pytest.mark.parametrize("text, memory, found", [
    # a question for a thing kept, among talk (round 30's spent set answered both from the prompt, no tool)
    ("刚下地铁…车位号是多少来着，上次跟你说过", "车位号是B2-117", "B2-117"),
    ("standing at the pharmacy and my mind is blank — what was that vitamin brand i said works for me? the line is huge lol",
     "the vitamin brand that works for me is Solgar", "Solgar"),
])
def test_a_question_for_a_thing_kept_among_talk_recalls_it(text, memory, found):
    calls, results, _ = _told(text, memory)
    assert calls == ["recall"]
    assert found in results[0].content


def test_a_question_among_talk_that_no_memory_answers_recalls_nothing():
    calls, _, _ = _told("刚下地铁…今天吃啥好呢，好纠结", "车位号是B2-117")
    assert calls == []


@pytest.mark.parametrize("text, made_up", [
    # the served model on round 30's spent set: an id nobody saw, a sum of figures nobody said, nothing asked
    ("actually forget it, i don't need anything", call("forget", what="#12")),
    ("so today was wild, like four meetings back to back, my boss said 'let's circle back' maybe 10 times",
     call("calculate", expression="(14 + 9) * 4")),
    ("the reminders on my phone are so annoying, they always go off at the worst moment", call("list_reminders")),
])
def test_a_call_the_model_made_up_runs_nothing(text, made_up):
    app, _ = _app(Completion(text="", tool_calls=(made_up,)), "haha", "haha")
    calls, results, _ = _turn(app, app.new_conversation(), text)
    app.close()
    assert not [r for r in results if r.ok]


@pytest.mark.parametrize("text, asked, right", [
    # a sum asked in words no reader takes: the model's figures, the hours in a day too, run
    ("how many hours do i work in a year if it's 40 a week?", call("calculate", expression="40*52"), "2080"),
    ("四个人吃饭一共花了三百二，每人多少", call("calculate", expression="320/4"), "80"),
])
def test_a_sum_asked_runs_with_the_models_figures(text, asked, right):
    app, _ = _app(Completion(text="", tool_calls=(asked,)), "ok", "ok")
    calls, results, _ = _turn(app, app.new_conversation(), text)
    app.close()
    assert calls == ["calculate"] and results[0].ok and right in results[0].content


@pytest.mark.parametrize("asked, right", [
    # a sum in words routed to the calculator that no reader takes: the model writes it, of the message's figures
    (call("calculate", expression="(3 * 74 + 39) / 4"), "65.25"),
    # ...and a figure nobody said is not run: the model answers in words instead
    (call("calculate", expression="(3 * 80 + 39) / 4"), None),
])
def test_a_sum_in_words_the_router_sends_to_the_calculator_is_written_by_the_model(asked, right):
    text = "we rented a van for 3 days at 74 a day plus 39 for insurance, split between 4 of us — how much each?"
    app, model = _app(Completion(text="", tool_calls=(asked,)), "(the model)")
    calls, results, reply = _turn(app, app.new_conversation(), text)
    app.close()
    if right is None:
        assert not [r for r in results if r.ok and "80" in r.content]
    else:
        assert calls == ["calculate"] and results[0].ok and right in results[0].content and right in reply
        assert "=" in reply  # the sum is shown with its result: a misread one can be seen


def test_a_models_sum_is_made_of_the_messages_figures_and_a_units():
    from pet.agent.loop import sum_of_said

    assert sum_of_said("40*52", "how many hours do i work in a year if it's 40 a week?")
    assert sum_of_said("7 * 3600", "how many seconds are in a 7-hour shift")
    assert not sum_of_said("(14 + 9) * 4", "four meetings back to back")
    assert not sum_of_said("60 * 24", "how long is a day")  # nothing the message says
    assert not sum_of_said("365", "how many days until 365?")  # no sum
    assert not sum_of_said(None, "3 plus 4")
    # every figure said is in it, itself or as a share: one left out is a sum misread
    van = "we rented a van for 3 days at 74 a day plus 39 for insurance, split between 4 of us — how much each?"
    assert sum_of_said("(3*74+39)/4", van) and not sum_of_said("(74 + 39) * 4", van)
    assert not sum_of_said("(45 + 38) * 2 / 3", "算下三门的平均分：45、38、52")
    assert sum_of_said("12000*0.3*12", "我月薪12000，每个月存百分之三十，一年能存多少")
    # a unit's figure only where the message names the unit; figures apart are two (the review of 2026-12-06)
    assert not sum_of_said("(45 + 38 + 52) / 2", "算下三门的平均分：45、38、52")
    assert sum_of_said("(1200 + 180) / 3", "我跟室友合租，房租1200，水电180，三个人平摊每人多少")
    assert sum_of_said("7 * 3600", "how many seconds are in a 7-hour shift")


def test_a_sum_told_in_passing_is_not_worked_out():
    # the review of 2026-12-06: the model, asked first to write it as a sum, gave "90 / 3", and the reply was the number;
    # not asked so, this model answers the talk
    app, _ = _app("She sounds lovely!")
    calls, _, reply = _turn(app, app.new_conversation(),
                            "the bill was 90 and we were going to split it 3 ways, but my friend paid. so nice of her right?")
    app.close()
    assert "calculate" not in calls and reply == "She sounds lovely!"


@pytest.mark.parametrize("said, text, asked, right", [
    # the review of 2026-12-05: a conversion, and sums of figures said before, asked in words
    ((), "convert 10 miles to km", call("calculate", expression="10 * 1.609"), "16.09"),
    (("dinner with 2 friends came to 87 bucks",), "split that three ways for me", call("calculate", expression="87/3"),
     "29"),
])
def test_a_sum_asked_in_words_runs_with_the_models_figures(said, text, asked, right):
    app, _ = _app(*(["ok"] * len(said)), Completion(text="", tool_calls=(asked,)), "ok", "ok")
    conversation = app.new_conversation()
    for before in said:
        _turn(app, conversation, before)
    calls, results, _ = _turn(app, conversation, text)
    app.close()
    assert calls[-1:] == ["calculate"] and results[-1].ok and right in results[-1].content


def test_a_list_the_model_needs_to_answer_a_question_runs():
    app, _ = _app(Completion(text="", tool_calls=(call("list_reminders"),)), "还没有设过哦", "还没有设过哦")
    calls, _, _ = _turn(app, app.new_conversation(), "我是不是已经设过妈妈生日的提醒了？")
    app.close()
    assert calls == ["list_reminders"]


def test_a_request_taken_back_for_doing_it_oneself_runs_nothing():
    app, _ = _app(Completion(text="", tool_calls=(call("set_reminder", text="remember myself", when="tomorrow at 9am"),)),
                  "ok", "ok")
    calls, _, _ = _turn(app, app.new_conversation(), "set a reminder for... eh, actually i'll just remember it myself")
    app.close()
    assert calls == []


def test_a_fact_then_an_asking_that_points_back_among_a_long_story_keeps_the_fact():
    # round 30's spent set: the fact's clause and the asking after it were two requests, so the model decided
    calls, _, memories = _told("what a day, the train broke down and the rain never stopped, anyway important thing — "
                               "my new desk is 4B near the window, keep that in mind for me ok? then the dog ate my sock")
    assert calls[0] == "remember" and memories[0] == "my new desk is 4B near the window"


def test_a_memory_forgotten_by_an_id_nobody_saw_stays():
    app, _ = _app(Completion(text="", tool_calls=(call("forget", what="#1"),)), "done", "done")
    app.agent.memories.remember(app.agent.pet.id, "my cat is called Mochi")
    _, results, _ = _turn(app, app.new_conversation(), "can you tidy up my memories?")
    kept = [m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=5)]
    app.close()
    assert not [r for r in results if r.ok] and kept == ["my cat is called Mochi"]


@pytest.mark.parametrize("text", [
    # round 31's spent set: a game, a wish and a plea called the clock, forget and cancel_reminder
    "你猜我今天几点起的？中午十二点！",
    "如果可以删掉一段记忆，我想删掉高考那天哈哈",
    "别提醒我下周要考试了",
])
def test_a_game_a_wish_and_a_plea_run_no_tool(text):
    calls, _, memories = _told(text, memory="高考那天我发烧了")
    assert set(calls) <= {capture.STEP} and "高考那天我发烧了" in memories


def test_a_fact_asked_to_be_kept_in_the_words_of_a_question_is_remembered():
    # round 31's spent set recalled it
    calls, _, memories = _told("dont let me forget who my new dentist is: dr. okafor")
    assert calls == ["remember"] and memories == ["my new dentist is dr. okafor"]


@pytest.mark.parametrize("copied, claim", [
    ("Saved memory #4 (1 day): if I could forget one day of my life it'd be my wedding lol", "remember"),
    ("Forgot memory #2: my wedding day", "forget"),
    ("Reminder #3 set for 2026-12-06 09:00: call mom", "set_reminder"),
    ("提醒 #3 已设好：明天 09:00，给妈打电话", "set_reminder"),
])
def test_the_programs_own_result_copied_by_the_model_is_a_claim(copied, claim):
    from pet.agent.guards import claimed_actions

    assert claim in claimed_actions(copied)


def test_a_result_line_the_model_made_up_does_not_reach_the_person():
    # seen on the page: the model answered a wish with a made-up "Saved memory #4 (1 day): …" and ran nothing
    app, _ = _app("Saved memory #4 (1 day): if I could forget one day of my life it'd be my wedding lol")
    calls, _, reply = _turn(app, app.new_conversation(), "if i could forget one day of my life it'd be my wedding lol")
    memories = app.agent.memories.recent(app.agent.pet.id, limit=5)
    app.close()
    assert calls == [] and memories == [] and "Saved memory" not in reply


def test_dont_remind_me_of_what_is_coming_cancels_the_reminder_when_one_is_pending():
    # the review of 2026-12-05: with the reminder set, "别提醒我下周要考试了" still lets it go
    app, _ = _app()
    conversation = app.new_conversation()
    _turn(app, conversation, "下周三上午9点提醒我要考试")
    assert len(app.agent.reminders.pending(app.agent.pet.id)) == 1
    calls, results, _ = _turn(app, conversation, "别提醒我下周要考试了")
    pending = app.agent.reminders.pending(app.agent.pet.id)
    app.close()
    assert calls == ["cancel_reminder"] and results[0].ok and pending == []


@pytest.mark.parametrize("text, kept", [
    # round 32's spent set: asked as talk or near a question, the router did not say remember
    ("can u remember the spare key is under the blue flowerpot by the back door",
     "the spare key is under the blue flowerpot by the back door"),
    ("my dentist is dr. Okonkwo, don't let me forget that 🦷", "my dentist is dr. Okonkwo"),
    ("帮我 remember 一下，我的车停在 B2 层 C-117", "我的车停在 B2 层 C-117"),
])
def test_a_request_to_keep_a_fact_in_other_words_is_remembered(text, kept):
    calls, _, memories = _told(text)
    assert calls == ["remember"] and memories == [kept]


@pytest.mark.parametrize("text", ["remember when we used to chat every night?", "I can't remember where I parked",
                                  "don't let me forget to call mom"])
def test_words_of_remembering_that_keep_no_fact_keep_nothing(text):
    calls, _, memories = _told(text)
    assert "remember" not in calls and memories == []


@pytest.mark.parametrize("text", ["小时候我外婆每天下午四点准时喊我回家吃饭，好怀念啊", "我妈每天早上七点叫我起床，烦死了"])
def test_someone_else_calling_the_person_in_a_story_sets_no_reminder(text):
    # round 32's spent set set a daily reminder for the grandmother's call
    calls, _, _ = _told(text)
    assert "set_reminder" not in calls


def test_being_asked_to_call_the_person_still_sets_a_reminder():
    calls, results, _ = _told("明天早上7点叫我起床")
    assert calls == ["set_reminder"] and results[0].ok


@pytest.mark.parametrize("text", [
    # the second review of 2026-12-05: questions about remembering and "don't forget" in other senses kept junk
    "can you remember stuff between chats", "will you remember this conversation tomorrow",
    "can u remember which day my dentist appointment is", "can you remember the name of that restaurant",
    "remember the movie we watched last weekend", "don't forget the milk", "don't forget me when you're famous lol",
    "don't forget it's my birthday tomorrow 🎂",
])
def test_talk_about_remembering_keeps_nothing(text):
    calls, _, memories = _told(text)
    assert "remember" not in calls and memories == []


@pytest.mark.parametrize("text", ["超过两个小时没动了", "我错过两小时的会议了", "每过一小时提醒我喝水", "记到待办里，好吗"])
def test_a_wait_inside_other_words_and_a_tag_question_after_the_list_set_nothing(text):
    # the second review of 2026-12-05: each set a reminder or a todo of garbled words in code ("每过一小时…" is the
    # model's to set as a repeating one; this one calls nothing)
    calls, _, _ = _told(text)
    assert "add_todo" not in calls and "set_reminder" not in calls


def test_a_change_told_then_forgotten_and_kept_replaces_the_old_memory():
    # round 32's spent set: "forget that … yellow, it's green now. remember that instead" kept "instead" (or nothing)
    calls, results, kept = _told("forget that my favorite color is yellow, it's green now. remember that instead",
                                 "favorite color is yellow")
    assert calls == ["forget", "remember"] and all(r.ok for r in results)
    assert kept == ["my favorite color: it's green now"]


def test_a_pointed_at_memory_deleted_beside_a_new_one_is_the_news_before_it():
    # round 32's spent set forgot "把" of "…，把那条删了，…"
    app, _ = _app()
    for fact in ("喜欢喝美式", "狗叫旺财"):
        app.agent.memories.remember(app.agent.pet.id, fact)
    calls, results, _ = _turn(app, app.new_conversation(), "我现在不喝美式了，把那条删了，记成我喜欢喝拿铁")
    kept = sorted(m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=10))
    app.close()
    assert calls == ["forget", "remember"] and all(r.ok for r in results)
    assert kept == ["我喜欢喝拿铁", "狗叫旺财"]


@pytest.mark.parametrize("text", ["把那条删了", "我把那条删了", "那条删了吗？"])
def test_a_pointed_at_deletion_alone_loses_no_memory(text):
    # (which one "那条" is, the message does not say: nothing is deleted by a guess)
    _, _, memories = _told(text, "喜欢喝美式")
    assert memories == ["喜欢喝美式"]


@pytest.mark.parametrize("text, word", [
    ("show me my todos and then remind me tomorrow at 6pm to actually do them lol", "todos"),
    ("看看我的待办，然后明晚8点提醒我把这些做完", "待办"),
])
def test_a_reminder_to_do_the_todos_just_listed_names_them(text, word):
    # round 32's spent set: "actually do them lol" alone says nothing at 6pm tomorrow
    calls, results, _ = _told(text)
    assert calls == ["list_todos", "set_reminder"] and word in results[1].content


def test_a_reason_between_two_requests_is_no_request_of_its_own():
    # round 32's spent set: "need to mail her a card" (six words) made the whole message the model's, which called nothing
    calls, results, _ = _told("whats my sister's address again? need to mail her a card. oh and add 'buy a card for "
                              "Priya' to my todos", "my sister Priya lives at 12 Oak Lane")
    assert calls == ["recall", "add_todo"] and "12 Oak Lane" in results[0].content


def test_a_thing_named_asked_to_be_kept_after_a_story_keeps_the_thing_with_its_name():
    # round 32's spent set noted the story before it, and the address not at all
    calls, results, memories = _told("昨天搬家累死我了，箱子到现在还没拆完，楼下快递柜也搞了半天才弄明白。新家地址你帮我记下来："
                                     "朝阳区望京西园三区 7 号楼 1203")
    assert calls == ["remember"] and results[0].content.endswith("新家地址：朝阳区望京西园三区 7 号楼 1203")
    calls, results, _ = _told("my new address, note it down: 12 Oak Lane")
    assert calls == ["remember"] and results[0].content.endswith(": my new address: 12 Oak Lane")
    _, results, _ = _told("请你帮我记下来：车停B2")
    assert results[0].content.endswith("：车停B2") and "来" not in results[0].content


def test_what_may_be_let_go_of_whose_it_is_said_before_is_forgotten():
    # round 32's spent set: "我那只仓鼠送人了，它的名字你可以忘了" was noted as a fact
    app, _ = _app()
    for fact in ("仓鼠叫团子", "最喜欢的歌手是陈奕迅"):
        app.agent.memories.remember(app.agent.pet.id, fact)
    calls, results, _ = _turn(app, app.new_conversation(), "我那只仓鼠送人了，它的名字你可以忘了")
    kept = [m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=10)]
    app.close()
    assert calls == ["forget"] and results[0].ok and kept == ["最喜欢的歌手是陈奕迅"]


@pytest.mark.parametrize("text, expected", [
    ("quick q before i hop in the shower: time?", ["get_current_time"]),
    ("anything left on my to-dos? feeling productive for once", ["list_todos"]),
    ("honestly the best part of vacation is not knowing what day it is", []),
    ("what a waste of time?", []),
])
def test_the_clock_or_the_list_asked_in_few_words_and_a_remark_on_not_knowing(text, expected):
    calls, _, _ = _told(text)
    assert calls == expected


def test_the_clock_read_for_a_story_that_asks_nothing_is_refused():
    # round 32's spent set: the small model read the clock for a venting story full of times
    app, model = _app(Completion(text="", tool_calls=(call("get_current_time"),)), "That sounds like a long day!")
    calls, _, _ = _turn(app, app.new_conversation(), "so today at work the printer jammed at like 9:40, then the fire "
                        "alarm went off at 11. im not asking for anything i just needed to tell someone 😩")
    app.close()
    assert "get_current_time" not in calls


# --- found by a review of the above (each was read wrong once) -------------------------------------------------------

@pytest.mark.parametrize("text", ["结婚纪念日你都能忘了！", "这么重要的日子你也能忘了。", "过去的事你可以忘了"])
def test_a_complaint_or_advice_about_forgetting_deletes_nothing(text):
    calls, _, memories = _told(text, "我们的结婚纪念日是5月20日")
    assert "forget" not in calls and "我们的结婚纪念日是5月20日" in memories


@pytest.mark.parametrize("text", ["should i go full-time?", "is my app up-to-date?", "is this thing time-consuming?"])
def test_a_hyphenated_word_ending_in_time_asks_no_clock(text):
    calls, _, _ = _told(text)
    assert "get_current_time" not in calls


def test_a_third_request_between_two_is_not_dropped_as_an_aside():
    # (the model is asked: the scripted one answers in words, and nothing runs half of what was asked)
    calls, _, _ = _told("remind me tomorrow at 5pm to call mom. also pick up the dry cleaning. remember my code is 42")
    assert calls != ["set_reminder", "remember"]


def test_news_that_names_no_memory_is_not_what_a_pointed_deletion_deletes():
    app, _ = _app()
    for fact in ("我住在北京", "我搬家那天下雨了"):
        app.agent.memories.remember(app.agent.pet.id, fact)
    _turn(app, app.new_conversation(), "我搬家了，把那条删了，记住我住在上海")
    kept = [m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=10)]
    app.close()
    assert "我搬家那天下雨了" in kept


@pytest.mark.parametrize("text", ["千万记住：周五交房租", "老板让我记下来：周五开会", "my friend told me to remember this: always tip",
                                  "记成周五了，不好意思", "记成了周五，其实是周四"])
def test_no_label_made_of_a_telling_or_an_urging_or_a_mistake(text):
    calls, results, _ = _told(text)
    kept = [r.content for c, r in zip(calls, results) if c == "remember"]
    assert not any(re.search(r"(?:千万|让我|told me to|周五了|了周五)[：:]", k) for k in kept)
    assert not any(k.endswith(("周五了", "了周五，其实是周四")) for k in kept)


def test_a_reminder_about_a_thing_of_its_own_after_the_list_is_not_about_the_list():
    calls, results, _ = _told("show me my todos and remind me tomorrow at 6pm to pick up those shoes")
    assert not any("todos" in r.content for c, r in zip(calls, results) if c == "set_reminder")


@pytest.mark.parametrize("text", ["离春节还有多少天"])
def test_the_clock_read_for_a_question_without_a_question_mark_runs(text):
    assert _model_called(text, call("get_current_time")) == ["get_current_time"]


def test_a_reminder_set_for_a_day_without_its_hour_asks_the_hour():
    # round 32's spent set: "set a reminder for the day after tomorrow…" was the model's, which set one
    app, _ = _app()
    calls, _, reply = _turn(app, app.new_conversation(), "set a reminder for the day after tomorrow to email professor "
                            "Lindqvist")
    app.close()
    assert calls == [] and reply == "What time the day after tomorrow should I remind you to email professor Lindqvist?"
    calls, results, _ = _told("set a reminder for friday at 3pm to call mom")
    assert calls == ["set_reminder"] and results[0].content.endswith(": call mom")


def test_what_a_todo_is_added_for_after_it_is_no_part_of_it():
    # round 32's spent set: "…so i dont ignore it for another month" made the model write the todo
    calls, results, _ = _told("ok so the car made that clunky noise again on the way home and i literally cannot deal "
                              "today. add get the car checked to my list so i dont ignore it for another month")
    assert calls == ["add_todo"] and "get the car checked" in results[0].content


def test_a_request_to_forget_is_never_kept_as_a_fact():
    # round 31's spent set: "…，记一下" at its end kept the whole, forget request and all, as one memory
    _, _, memories = _told("把我之前那家公司忘了吧，我跳槽了，现在在星河科技上班，记一下", "在蓝鲸传媒上班")
    assert not any("忘了吧" in m for m in memories)


def test_whom_a_forget_points_at_is_said_before_it():
    # round 31's spent set: "我跟小雨分手了，把她忘了吧" forgot "她"
    calls, results, memories = _told("我跟小雨分手了，把她忘了吧", "女朋友叫小雨")
    assert calls == ["forget"] and results[0].ok and "女朋友叫小雨" not in memories


def test_after_the_measurement_a_dash_parts_requests():
    # round 33's set (spent): only the forget ran
    calls, _, kept = _told("forget that i live in Leeds - moved to Bristol last month, remember that instead",
                           "I live in Leeds")
    assert calls == ["forget", "remember"] and kept == ["moved to Bristol last month"]


@pytest.mark.parametrize("text, expression", [
    # found by a review: the dash between brackets is a minus
    ("what's (5 + 3) - (2 * 4)", "(5 + 3) - (2 * 4)"),
])
def test_a_spaced_minus_between_brackets_parts_nothing(text, expression):
    calls, results, _ = _told(text)
    assert calls == ["calculate"] and results[0].content == "0"


@pytest.mark.parametrize("text, tool, ran", [
    # found by a review: quoted items of the person's own requests, and "don't save anything else, just…"
    ("new todo: 'cancel netflix'", None, ["add_todo"]),
    ("don't save anything else, just remember my wifi is abc123", call("remember", content="my wifi is abc123"),
     ["remember"]),
    ("i don't remember anything about Rome, do you?", call("recall", query="Rome"), ["recall"]),
])
def test_a_request_with_quotes_or_anything_in_it_still_runs(text, tool, ran):
    app, _ = _app(*([Completion(text="", tool_calls=(tool,))] if tool else []), "(the model)")
    calls, _, _ = _turn(app, app.new_conversation(), text)
    app.close()
    assert calls == ran


@pytest.mark.parametrize("text, tool", [
    # round 33's set (spent), the served model's calls, after its measurement
    ("lol my grandpa used to say 'remember, the early bird gets the worm but the second mouse gets the cheese'",
     call("remember", content="the early bird gets the worm")),
    ("我奶奶常说'记住，吃亏是福'，小时候不懂，现在有点懂了", call("recall", query="吃亏是福")),
    ("don't save anything, i'm just venting: work was a total mess today",
     call("set_reminder", text="work was a total mess", when="tomorrow at 9am")),
    ("remember when you told me crayfish can regrow their claws? still blows my mind",
     call("remember", content="crayfish can regrow their claws")),
])
def test_the_models_call_for_quoted_words_venting_or_reminiscing_runs_nothing(text, tool):
    assert _model_called(text, tool) == []


# --- round 34's spent tools set (each was read wrong once) ----------------------------------------------------------

def _called(text, memories=()):
    """One message to a new pet holding `memories`: each tool called with its arguments."""
    app, _ = _app()
    for memory in memories:
        app.agent.memories.remember(app.agent.pet.id, memory)
    events = list(app.agent.run(app.new_conversation(), text))
    app.close()
    return [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolStarted)]


def test_a_day_in_another_clause_is_no_question_for_the_calendar():
    called = _called("明天要出国，我的passport放哪儿了你还记得不", ["护照放在抽屉最下层的蓝色文件夹里", "喜欢喝乌龙茶"])
    assert [name for name, _ in called] == ["recall"]
    called = _called("gonna visit grandma this weekend, whats her wifi pw again",
                     ["wifi password at grandma's is tulip-7782", "likes jazz"])
    assert [name for name, _ in called] == ["recall"]
    # the day in the question itself still is the calendar's
    assert "recall" not in [name for name, _ in _called("what's my plan for today?", ["my plan is to learn piano"])]


def test_a_pronoun_points_at_whom_the_sentence_before_names():
    called = _called("Jonah and I broke up. please forget about him", ["my boyfriend Jonah is a chef", "I like jazz"])
    assert called and called[0][0] == "forget" and "Jonah" in called[0][1]["what"]


@pytest.mark.parametrize("text, kept", [
    ("so we finally adopted a cat and shes called Pickle!! remember her name pls", "adopted a cat and shes called Pickle"),
    ("my dog is called Rex. remember his name pls", "my dog is called Rex"),
    ("我家狗叫旺财，记住它的名字哦", "我家狗叫旺财"),
])
def test_remembering_her_name_keeps_what_was_said_of_her(text, kept):
    called = _called(text)
    assert [name for name, _ in called] == ["remember"] and kept in called[0][1]["content"]


@pytest.mark.parametrize("text, calls", [
    ("remind me what's left on my to do lsit", ["list_todos"]),
    ("帮我看下现在的time，手机没电了", ["get_current_time"]),
    ("帮我查一下我女儿钢琴老师姓什么，再把交钢琴学费加到todo", ["recall", "add_todo"]),
    ("你能帮我做什么呀？会设提醒吗", []),
])
def test_requests_in_other_words(text, calls):
    assert [name for name, _ in _called(text, ["女儿的钢琴老师姓陈"])] == calls


def test_the_english_verb_in_a_chinese_reminder_is_no_part_of_the_task():
    called = _called("老板让我11月26号下午两点前把报告交上去，你那天上午11点remind我一下")
    assert [name for name, _ in called] == ["set_reminder"]
    assert "报告" in called[0][1]["text"] and "remind" not in called[0][1]["text"]
    assert called[0][1]["when"].endswith("11-26 11:00")


def test_the_english_verb_in_a_chinese_reminder_after_other_clauses_sets_it():
    # round 45's spent tools set: no tool (the router read the whole message at 0.54)
    called = _called("上次那个 visa 材料还没交，11月2号下午2点 remind 我一下去递材料，千万别忘")
    assert [name for name, _ in called] == ["set_reminder"]
    assert "递材料" in called[0][1]["text"] and "remind" not in called[0][1]["text"]
    assert "， " not in called[0][1]["text"]  # (no space left where the asking words were)


# --- found by the review of the above (each was read wrong once) ----------------------------------------------------

@pytest.mark.parametrize("text", [
    "I had 4 beers at 6 each, cant figure out how i got home", "bought 3 calc textbooks at 120 each, college is a scam",
    "上个月房租3000，这个月涨了200，贵了多少", "last month rent was 1200, this month they raised it by 100, how much more",
])
def test_no_sum_where_the_words_ask_none_or_say_the_change(text):
    assert "calculate" not in [name for name, _ in _called(text)]


@pytest.mark.parametrize("text", ["tomorrow, what's my plan?", "明天，我的安排是什么？"])
def test_a_day_said_alone_before_the_question_is_its_day(text):
    assert "recall" not in [name for name, _ in _called(text, ["my plan is to quit sugar this year", "我的安排是先把驾照考了"])]


def test_ping_in_a_reminders_task_stays_as_said():
    # at a fixed morning: by the real clock "今晚8点" is past from 20:00 on, and the test failed then (CI at 20:30 UTC)
    morning = dt.datetime(2026, 12, 6, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=ScriptedModel(["(the model)"] * 6),
                scheduler="off", clock=lambda: morning)
    events = list(app.agent.run(app.new_conversation(), "今晚8点提醒我看看谁在群里ping我了"))
    app.close()
    called = [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolStarted)]
    assert called == [("set_reminder", {"text": "看看谁在群里ping我了", "when": "今晚8点"})]


def test_him_is_whom_the_sentence_just_before_names():
    called = _called("my sister's wedding is in june. Tom keeps texting me. forget about him",
                     ["my sister's wedding is on june 14 in Hangzhou", "Tom is my ex"])
    assert called[0][0] == "forget" and "wedding" not in called[0][1]["what"]


@pytest.mark.parametrize("text, kept", [("新同事人超好。记住她的名字小美", "小美"), ("我家新来了一只小猫。记住它的名字豆豆", "豆豆")])
def test_a_name_said_with_the_pronoun_is_kept(text, kept):
    called = _called(text)
    assert [name for name, _ in called] == ["remember"] and kept in called[0][1]["content"]


@pytest.mark.parametrize("text", ["my sister got a new puppy. can you remember its name",
                                  "my cousin came over yesterday. remember his name?"])
def test_asking_whether_the_pet_remembers_a_name_recalls(text):
    assert [name for name, _ in _called(text, ["my cousin is called Marco", "my sister's puppy is named Biscuit"])] == ["recall"]


@pytest.mark.parametrize("text, tool", [("what's coming up? reminders i mean", "list_reminders"),
                                        ("anything left? on my todo list i mean", "list_todos"),
                                        ("有啥要做的？我说待办", "list_todos")])
def test_the_list_named_in_another_sentence_than_the_asking(text, tool):
    assert [name for name, _ in _called(text)] == [tool]


@pytest.mark.parametrize("text", ["我的工资都花哪里去了", "我的朋友们都去哪儿了", "what's my problem with money, seriously"])
def test_a_word_of_the_messages_own_language_finds_no_memory_in_the_other(text):
    assert "recall" not in [name for name, _ in _called(text, ["my salary is 8000 a month", "my best friend is Lin"])]


@pytest.mark.parametrize("text, recalls", [
    # round 35's spent chat set: the question is of crayfish, the person's words are in another sentence
    ("what do crayfish eat? i got you some pellets from the shop", False),
    ("what do crayfish eat?", False),
    ("flying tomorrow. where did i put my passport?", True),
    ("where did i put my passport? flying tomorrow", True),
])
def test_a_question_of_several_sentences_is_for_a_memory_only_when_the_asking_one_is(text, recalls):
    calls, _, _ = _told(text, memory="My passport is in the desk drawer")
    assert (calls == ["recall"]) is recalls


def test_a_greeting_ended_by_a_full_stop_is_no_part_of_what_is_recalled():
    calls, results, _ = _told("hi. what's my dog called?", memory="my dog is called Rex")
    assert calls == ["recall"] and "Rex" in results[0].content and '"' not in results[0].content.split("\n")[0]


@pytest.mark.parametrize("text, memory, kept", [
    # round 35's spent tools set: the new value said beside a memory deleted, in no request of its own
    ("forget that my fav band is khruangbin, it's hiatus kaiyote now", "favorite band is Khruangbin",
     "favorite band is hiatus kaiyote"),
    ("scrap the note that my favorite tea is earl grey, it's jasmine now", "favorite tea is earl grey",
     "favorite tea is jasmine"),
    ("我搬到西湖区了，把滨江那条删了，记新的", "住在滨江区", "我搬到西湖区了"),
    ("forget my old address on Elm Street, I live at 14 Birch Lane now", "lives at 9 Elm Street",
     "I live at 14 Birch Lane now"),
])
def test_a_new_value_said_beside_a_memory_deleted_is_kept(text, memory, kept):
    calls, results, memories = _told(text, memory=memory)
    assert calls == ["forget", "remember"] and all(r.ok for r in results) and memories == [kept]


@pytest.mark.parametrize("text, memory", [
    ("forget the gym one, I'm so done with it", "goes to the gym on Halsey street"),
    ("delete the thing about my sister, she hates when I talk about her", "my sister Amy is a nurse"),
    ("把牙医那条删了", "牙医是周医生"),
    # what says only that the old one is no more (the review of 2026-12-06)
    ("forget my gym schedule, it's over now", "gym schedule is Mon Wed Fri"),
    ("forget the wifi password, it's changed now", "wifi password is fish1234"),
])
def test_a_memory_deleted_with_no_new_value_keeps_nothing_new(text, memory):
    calls, results, memories = _told(text, memory=memory)
    assert calls == ["forget"] and results[0].ok and memories == []


@pytest.mark.parametrize("text, memory, query", [
    # round 35's spent chat set: answered by the model without the memory
    ("remember what i'm scared of?", "I'm scared of deep water", "what i'm scared of"),
    ("do you remember what i'm scared of?", "I'm scared of deep water", None),
    ("what am i training for, remember?", "training for a half marathon in October", None),
    ("我在哪上班，记得吗？", "在国贸上班", None),
])
def test_a_question_whether_the_pet_remembers_recalls(text, memory, query):
    calls, results, memories = _told(text, memory=memory)
    assert calls == ["recall"] and memory in results[0].content and memories == [memory]
    if query is not None:
        assert not results[0].content.startswith("About")  # the query is the question's own words


@pytest.mark.parametrize("text, kept", [
    ("my shoe size is 43. remember that?", "my shoe size is 43"),  # asked to keep, as a question
    ("我的鞋码是43，记住了吗？", "我的鞋码是43"),
])
def test_a_fact_then_remember_asked_still_keeps_it(text, kept):
    calls, _, memories = _told(text)
    assert calls == ["remember"] and memories == [kept]


def test_undo_after_a_new_value_kept_in_place_of_a_deleted_one_takes_both_back():
    # the review of 2026-12-06: both bands were kept after /undo
    app, _ = _app()
    app.agent.memories.remember(app.agent.pet.id, "favorite band is Khruangbin")
    conversation = app.new_conversation()
    _turn(app, conversation, "forget that my fav band is khruangbin, it's hiatus kaiyote now")
    _turn(app, conversation, "so hot today the pavement is melting")  # (seen using the page: a turn between)
    _, _, reply = _turn(app, conversation, "/undo")
    kept = [m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=10)]
    app.close()
    assert kept == ["favorite band is Khruangbin"] and "hiatus kaiyote" in reply



@pytest.mark.parametrize("text, kept", [
    # a fact that opens with such a word is still the fact
    ("remember that because of my knee i can't run", "because of my knee i can't run"),
    ("记住我不吃香菜，不然你又推荐错", "我不吃香菜，不然你又推荐错"),
    # a fact after the reason, or a word of reason that is no reason (the review of 2026-12-06: nothing was kept)
    ("remember cuz i keep forgetting: my locker is 221", "cuz i keep forgetting: my locker is 221"),
    ("remember in case i'm late, my spare key is under the mat", "in case i'm late, my spare key is under the mat"),
    ("remember because my doctor said so, i can't have caffeine", "because my doctor said so, i can't have caffeine"),
    ("remember BC is where my parents live", "BC is where my parents live"),
    ("remember cause of the leak was the dishwasher hose", "cause of the leak was the dishwasher hose"),
])
def test_a_fact_with_a_reason_in_it_is_kept_whole(text, kept):
    calls, _, memories = _told(text)
    assert calls == ["remember"] and memories == [kept]


@pytest.mark.parametrize("text, tool", [
    ("wht do i still hav to do", "list_todos"),  # round 46's spent set: routed, then held to ask nothing
    ("我的待办清单有撒", "list_todos"),  # 撒 typed for 啥
])
def test_a_list_asked_for_in_texting_spelling_is_listed(text, tool):
    calls, results, _ = _told(text)
    assert calls == [tool] and results[0].ok


def test_a_fact_asked_not_to_be_forgotten_is_remembered():
    calls, results, memories = _told("my gym locker is 214, don't let me forget")  # round 46's spent set: no tool
    assert calls == ["remember"] and results[0].ok and memories == ["my gym locker is 214"]


def test_a_fact_asked_to_be_kept_for_later_is_remembered():
    # why it is kept, after the request (round 46's spent set: no tool)
    calls, results, memories = _told("新地址是梧桐路88弄6号，你记一下，改天快递要填")
    assert calls == ["remember"] and results[0].ok and memories == ["新地址是梧桐路88弄6号"]


def test_the_words_asking_not_to_forget_are_no_part_of_a_reminders_task():
    calls, results, _ = _told("dentist on friday at 3pm, don't let me forget")
    assert calls == ["set_reminder"] and results[0].ok
    assert "forget" not in results[0].content and "dentist" in results[0].content


@pytest.mark.parametrize("memory, text", [
    # news that a kept thing changed, and a clause that lets it go (round 46's spent set: no tool)
    ("I work at Brightwater as an analyst", "i quit brightwater last friday so you can drop that"),
    ("我每天早上都喝一杯美式", "我早就不喝美式了，忘了这个吧"),
    # someone named before, by a pronoun (the tool finds whom by the name: round 46's spent set judged only "him")
    ("my hamster is called Biscuit", "biscuit passed away this morning 😢 i don't want you bringing him up, forget about him"),
])
def test_a_kept_thing_let_go_by_pointing_at_it_is_forgotten(memory, text):
    calls, results, memories = _told(text, memory)
    assert calls == ["forget"] and results[0].ok and memories == []


@pytest.mark.parametrize("memory, text", [
    ("my boss is called Tom", "my boss yelled at me today, forget that, let's talk about fun stuff"),  # a dismissal
    ("我每天早上都喝一杯美式", "我把这个忘了"),  # the person forgot
])
def test_talk_that_lets_a_subject_go_forgets_no_memory(memory, text):
    calls, _, memories = _told(text, memory)
    assert "forget" not in calls and memories == [memory]


def test_a_question_where_a_thing_was_put_near_keeping_asks_for_it():
    # used as a person would: near "remember my passport…" to the router, it got "I'm a crayfish, not an assistant."
    calls, results, _ = _told("where'd i put my passport", "my passport is in the blue drawer")
    assert calls == ["recall"] and "blue drawer" in results[0].content


@pytest.mark.parametrize("text, todo", [
    # used as a person would: the router's linear reading took it for add_todo and the model filled a garbled one
    ("门禁卡放在玄关鞋柜上", False),
    ("门禁卡要去物业补办，加到待办里", True),
])
@pytest.mark.usefixtures("real_router")
def test_a_fact_told_without_a_word_of_todos_is_routed_to_no_todo(text, todo):
    app, _ = _app()
    route = app.agent._route(text)
    app.close()
    assert (route is not None and route.intent == "add_todo") is todo


@pytest.mark.parametrize("memory, text", [
    # round 47's spent set: read as facts to note, no tool
    ("在学吉他，每周三上课", "我已经不练吉他了，不用记着了"),
    ("养了一只乌龟叫豆豆", "豆豆上个月走了……关于它的那条就别留着了"),
])
def test_saying_a_kept_thing_need_not_be_kept_forgets_it(memory, text):
    calls, results, memories = _told(text, memory)
    assert calls == ["forget"] and results[0].ok and memories == []


@pytest.mark.parametrize("memory, text", [
    ("在学吉他，每周三上课", "吉他课真好玩，你帮我记着点上课时间"),  # asks to keep, not to let go
])
def test_news_about_a_kept_thing_without_letting_go_forgets_nothing(memory, text):
    calls, _, memories = _told(text, memory)
    assert "forget" not in calls and memory in memories


def test_a_fact_before_a_request_to_write_it_down_is_kept_without_the_talk_around_it():
    # round 47's spent set: the clause "对了新老板叫邵振宇" read as no fact without its end mark, and nothing was kept
    calls, results, memories = _told("今天面试总算结束了累死，对了新老板叫邵振宇，你帮我记下来，别到时候我叫错名字")
    assert calls == ["remember"] and results[0].ok
    assert len(memories) == 1 and "邵振宇" in memories[0] and "面试" not in memories[0] and "叫错" not in memories[0]


def test_the_persons_own_forgetting_is_no_request_to_delete():
    # round 47's spent set: "…and I WILL forget it" read as a word of deleting took the request to keep back
    calls, results, memories = _told("long day, finally moved everything into the new flat. oh can you hang on to "
                                     "the new door code for me? it's 4471# and I WILL forget it")
    assert calls == ["remember"] and results[0].ok and any("4471" in m for m in memories)


@pytest.mark.parametrize("text, asked", [
    # round 47's spent set: the whole read as nothing; the question after the talk is for the clock
    ("lost track of the days since the trip. what weekday are we on", True),
    ("long day at work today. what a day", False),
])
def test_a_question_for_the_clock_after_talk_reads_the_clock(text, asked):
    calls, _, _ = _told(text)
    assert (calls == ["get_current_time"]) is asked


def test_whether_a_thing_named_before_was_told_looks_it_up():
    # round 47's spent set: noted as a plan, no recall
    calls, results, _ = _told("taking Biscuit to the vet tomorrow and the form wants his birthday... did I ever tell you?",
                              "dog Biscuit was born on 2049-09-02")
    assert calls == ["recall"] and "2049-09-02" in results[0].content


def test_looking_up_what_was_told_before_a_second_request_runs_both():
    # round 47's spent set: near "帮我记一下护照号码", and no tool ran
    calls, results, _ = _told("check一下我之前说的护照号码，然后加个todo去续签", "护照号码 E39018827")
    assert calls == ["recall", "add_todo"] and "E39018827" in results[0].content and "续签" in results[1].content


def test_whether_a_thing_was_told_with_nothing_kept_says_so():
    # used as a person would: with nothing kept the model made up "It was my birthday this morning…"
    calls, results, _ = _told("taking my dog to the vet tomorrow and the form wants his birthday... did I ever tell you?")
    assert calls == ["recall"]
    assert "No memories" in results[0].content or "Nothing I remember" in results[0].content


def test_where_a_thing_is_kept_is_noted_and_found():
    app, _ = _app()
    conversation = app.new_conversation()
    calls, _, _ = _turn(app, conversation, "my spare key is under the blue flowerpot")
    assert calls == [capture.STEP]
    calls, results, _ = _turn(app, conversation, "where did i put my spare key")
    app.close()
    assert calls == ["recall"] and "blue flowerpot" in results[0].content


def test_the_name_in_the_words_that_ask_to_delete_is_the_memory_meant():
    """Round 39's spent set: "we broke up. delete anything about jess pls" asked "do you mean #1?" (twice: the second
    time the asking word "delet" was taken for a word the memory must hold)."""
    app, _ = _app()
    for fact in ("girlfriend is called Jess", "works night shifts on weekends", "has a cat named Pickle"):
        app.agent.memories.remember(app.agent.pet.id, fact)
    calls, results, _ = _turn(app, app.new_conversation(), "we broke up. delete anything about jess pls")
    left = [m.content for m in app.agent.memories.recent(app.agent.pet.id, limit=10)]
    app.close()
    assert calls == ["forget"] and results[0].ok and "girlfriend is called Jess" not in left, results
