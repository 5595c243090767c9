"""Reflexes: precise local intents in both languages, and the claim guard."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest

from pet.agent import reflexes
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import Completion, ConversationStarted, Notice, Reply, TextDelta, ToolFinished, ToolStarted
from pet.tools.when import parse_when
from pet.ui.render import apply_event

ZONE = ZoneInfo("Asia/Shanghai")
NOW = dt.datetime(2026, 11, 29, 10, 15, tzinfo=ZONE)  # a Sunday morning


def match(text):
    return reflexes.match(text, NOW, ZONE)


def single_call(text):
    reflex = match(text)
    assert reflex is not None, f"no reflex for {text!r}"
    assert len(reflex.calls) == 1, reflex
    return reflex.calls[0]


@pytest.mark.parametrize(
    "text, name, arguments",
    [
        ("remember that I code after 11pm", "remember", {"content": "I code after 11pm"}),
        ("Please remember my sister's birthday is May 3", "remember", {"content": "my sister's birthday is May 3"}),
        ("remember: wifi password is hunter2", "remember", {"content": "wifi password is hunter2"}),
        ("记住我晚上11点以后写代码", "remember", {"content": "我晚上11点以后写代码"}),
        ("帮我记一下：妈妈的生日是3月5日", "remember", {"content": "妈妈的生日是3月5日"}),
        ("forget that I like coffee", "forget", {"what": "I like coffee"}),
        ("forget memory #3", "forget", {"what": "memory #3"}),
        ("忘掉我喜欢咖啡这件事", "forget", {"what": "我喜欢咖啡"}),
        ("删掉#3", "forget", {"what": "#3"}),
        ("what do you remember about my sister?", "recall", {"query": "my sister"}),
        ("关于咖啡你记得什么？", "recall", {"query": "咖啡"}),
        # round 22's spent set: "remind me" read as a reminder without its time, 提醒我一下 as a request to keep
        ("remind me what my wifi password was", "recall", {"query": "my wifi password"}),
        ("提醒我一下家里wifi密码是多少", "recall", {"query": "家里wifi密码"}),
        ("提醒我一下明天下午三点开会", "set_reminder", {"text": "开会", "when": "明天下午三点"}),
        ("提醒我一下我妈生日是哪天", "recall", {"query": "我妈生日"}),
        ("what time is it?", "get_current_time", {}),
        ("现在几点了？", "get_current_time", {}),
        ("今天星期几", "get_current_time", {}),
        ("what is 35+8?", "calculate", {"expression": "35+8"}),
        ("(12 + 3) * 4 =", "calculate", {"expression": "(12 + 3) * 4"}),
        ("35加8等于多少", "calculate", {"expression": "35+8"}),
        ("算一下 120÷8", "calculate", {"expression": "120÷8"}),
        ("how much is 15% of 80?", "calculate", {"expression": "15 / 100 * 80"}),
        ("80的15%是多少", "calculate", {"expression": "15 / 100 * 80"}),
        ("what's 2 to the power of 10", "calculate", {"expression": "2 ^ 10"}),
        ("2的10次方是多少", "calculate", {"expression": "2^10"}),
        ("square root of 144?", "calculate", {"expression": "sqrt(144)"}),
        ("what is 100 divided by 8", "calculate", {"expression": "100 / 8"}),
        ("do you know what time it is?", "get_current_time", {}),
        ("what day of the week is it today?", "get_current_time", {}),
        ("don't forget that my sister's birthday is May 3", "remember", {"content": "my sister's birthday is May 3"}),
        ("My favourite colour is green. Remember that!", "remember", {"content": "My favourite colour is green"}),
        ("I moved to Hangzhou. Could you remember that for me?", "remember", {"content": "I moved to Hangzhou"}),
        ("save this to your memory: my locker is 327", "remember", {"content": "my locker is 327"}),
        ("我搬到杭州了，记一下", "remember", {"content": "我搬到杭州了"}),
        ("add buy milk to my todo list", "add_todo", {"text": "buy milk"}),
        ("把交房租加到待办", "add_todo", {"text": "交房租"}),
        ("添加待办：买牛奶", "add_todo", {"text": "买牛奶"}),
        ("show my todo list", "list_todos", {}),
        ("我的待办有哪些？", "list_todos", {}),
        ("what reminders do I have?", "list_reminders", {}),
        ("我有哪些提醒", "list_reminders", {}),
        ("cancel reminder #2", "cancel_reminder", {"which": "2"}),
        ("cancel the reminder about calling mom", "cancel_reminder", {"which": "calling mom"}),
        ("取消给妈妈打电话的那个提醒", "cancel_reminder", {"which": "给妈妈打电话"}),
        ("/remember likes green tea", "remember", {"content": "likes green tea"}),
        ("/forget #4", "forget", {"what": "#4"}),
        ("/recall tea", "recall", {"query": "tea"}),
        ("/todo water the plants", "add_todo", {"text": "water the plants"}),
        ("/todos", "list_todos", {}),
        ("/reminders", "list_reminders", {}),
        # a word that ends like a filler keeps its letters ("ty", "ok", "rn")
        ("forget about the party", "forget", {"what": "the party"}),
        ("add read my book to my todo list", "add_todo", {"text": "read my book"}),
        ("remember my pin is 1234 for the burn", "remember", {"content": "my pin is 1234 for the burn"}),
        ("add call the city to my todo list thx", "add_todo", {"text": "call the city"}),
        # a forget names the memory, not the words pointing at it, nor the reason after it
        ("把我喜欢咖啡那条忘了吧", "forget", {"what": "我喜欢咖啡"}),
        ("忘掉我住朝阳那条吧，那个不准", "forget", {"what": "我住朝阳"}),
        ("forget my sister's old address, it's outdated", "forget", {"what": "my sister's old address"}),
        ("forget my old phone number", "forget", {"what": "phone number"}),
        # how two things differ, said in a fact to keep, is kept (review: the guard for questions ate them)
        ("记住：我和我妹最大的区别是她爱吃辣", "remember", {"content": "我和我妹最大的区别是她爱吃辣"}),
        ("remember my favorite movie is Alien vs. Predator", "remember", {"content": "my favorite movie is Alien vs. Predator"}),
        # asked without "do", or of "my …" straight (round 25's spent chat set: a search for "you remember where im
        # from", and a band the model made up)
        ("you remember where im from?", "recall", {"query": "where im from"}),
        ("do you remember my fav band", "recall", {"query": "my fav band"}),
    ],
)
def test_core_intents_run_the_right_tool_with_the_right_arguments(text, name, arguments):
    found = single_call(text)
    assert (found.name, found.arguments) == (name, arguments)


@pytest.mark.parametrize(
    "text, task, local",
    [
        ("remind me at 9pm tomorrow to call mom", "call mom", dt.datetime(2026, 11, 30, 21, 0)),
        ("remind me in 20 minutes to stretch", "stretch", dt.datetime(2026, 11, 29, 10, 35)),
        ("明天早上8点提醒我开会", "开会", dt.datetime(2026, 11, 30, 8, 0)),
        ("提醒我下午三点半取快递", "取快递", dt.datetime(2026, 11, 29, 15, 30)),
        ("20分钟后提醒我喝水", "喝水", dt.datetime(2026, 11, 29, 10, 35)),
        ("/remind in 2 hours take out the trash", "take out the trash", dt.datetime(2026, 11, 29, 12, 15)),
    ],
)
def test_reminders_split_the_time_from_the_task(text, task, local):
    from pet.tools.when import parse_when

    found = single_call(text)
    assert found.name == "set_reminder"
    assert found.arguments["text"] == task
    assert parse_when(found.arguments["when"], NOW, ZONE).at.replace(tzinfo=None) == local


@pytest.mark.parametrize(
    "text, task",
    [
        ("ping me at 5pm to buy milk", "buy milk"),
        # issue 17: one Chinese word made the whole message "Chinese", and no reminder was set
        ("ping me at 5pm to buy 豆腐", "buy 豆腐"),
        ("ping me at 5pm 买豆腐和牛奶", "买豆腐和牛奶"),
        ("提醒我 at 5pm to buy milk", "buy milk"),
    ],
)
def test_a_reminder_is_set_whatever_language_the_task_is_in(text, task):
    from pet.tools.when import parse_when

    found = single_call(text)
    assert (found.name, found.arguments["text"]) == ("set_reminder", task)
    assert parse_when(found.arguments["when"], NOW, ZONE).at.replace(tzinfo=None) == dt.datetime(2026, 11, 29, 17, 0)


@pytest.mark.parametrize(
    "text",
    [
        "remind me at 8 to stretch",
        "提醒我8点开会",
        "remind me at 25:00 to sleep",
        "2月30日下午3点提醒我交报告",
        "remind me to call the dentist",
        "提醒我交房租",
        "下个月3号提醒我续费会员",  # a day without an hour (round 25's spent set: no question)
    ],
)
def test_unclear_or_impossible_times_become_a_question_not_a_guess(text):
    reflex = match(text)
    assert reflex is not None and not reflex.calls
    assert reflex.reply


@pytest.mark.parametrize(
    "text",
    [
        "hi! how are you?",
        "do you remember the movie Memento?",
        "I forgot my keys today",
        "我忘了带钥匙",
        "时间过得真快",
        "算了吧",
        "what's 'remember' in French?",
        "I remember when we first met",
        "你记住了吗？",
        "forget it",
        "忘了吧",
        "remind me what you know about tea",
        "2026-12-01",
        "138-0000-0000",
        "I have 3 cats",
        "我有3只猫",
        "what time do you usually sleep?",
        "tell me a story about a crayfish",
        "what is love?",
        "what's 3 times the fun?",
        "what is the time zone here?",
        "the score was 3 to 1",
        "Do you remember that?",
        "Oh no, I can't remember that!",
        "那部电影叫什么来着，你记住了吗",
        # a reminder to delete is no memory: the router decides (cancel_reminder)
        "明天的牙医改期了，把那个提醒删了吧",
        "把牙医的提醒删了",
    ],
)
def test_restraint_everything_else_goes_to_the_model(text):
    assert match(text) is None


def test_deleting_a_reminder_is_no_memory():
    assert reflexes.names_a_reminder("明天的牙医改期了，把那个提醒删了吧")
    assert reflexes.names_a_reminder("forget the reminder about the dentist")
    assert not reflexes.names_a_reminder("提醒事项那条记忆删了")  # a memory after all
    assert not reflexes.names_a_reminder("把牙医那条忘了吧")


def test_slash_help_new_and_unknown():
    assert "/remember" in match("/help").reply
    assert match("/new").command == "new"
    assert "Unknown" in match("/dance").reply


# --- through the agent --------------------------------------------------------------


pytestmark = pytest.mark.usefixtures("shanghai_persona")  # the default pet in NOW's zone (conftest)


def make_app(model, **settings):
    return build(load_settings(settings or None), brain=model, clock=lambda: NOW)


def turn(app, text):
    return list(app.agent.run(app.current_conversation(), text))


def test_reflex_runs_the_tool_and_the_model_words_it_in_character():
    model = ScriptedModel(["Clamped tight! Memory #1 says you code after 11pm."])
    app = make_app(model)
    events = turn(app, "remember that I code after 11pm")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["remember"]
    assert app.memories.search(app.pet.id, "code after 11pm")[0].content == "I code after 11pm"
    assert events[-1].text == "Clamped tight! Memory #1 says you code after 11pm."
    # The model was asked only to word the result, with no tools offered.
    assert model.calls[0].tools == ()
    assert "Saved memory #1" in model.calls[0].messages[0].content
    assert model.calls[0].messages[-1].content == "remember that I code after 11pm"


def test_wording_that_drops_the_id_falls_back_to_the_plain_result():
    model = ScriptedModel(["Sure, got it!"])  # no "#1": a fact went missing
    app = make_app(model)
    events = turn(app, "remember that I code after 11pm")
    assert events[-1].text == "Saved memory #1: I code after 11pm"


def test_a_slow_wording_is_not_waited_for_and_stops():
    """The plain result stands when the wording is late; the late wording is
    not generated to its end (used to make a reflex wait 5-40 s)."""
    import dataclasses
    import threading

    release = threading.Event()
    parts_taken = []

    class SlowWording(ScriptedModel):
        def stream(self, messages, tools=(), *, max_tokens=None, temperature=None):
            release.wait(10)
            for word in ("Clamped ", "tight! ", "#1 ", "saved."):
                parts_taken.append(word)
                yield TextDelta(word)
            yield Completion(text="Clamped tight! #1 saved.")

    app = make_app(SlowWording([]))
    app.agent.config = dataclasses.replace(app.agent.config, wording_seconds=0.05)
    try:
        events = turn(app, "remember that I code after 11pm")
        reply = events[-1]
        assert reply.text == "Saved memory #1: I code after 11pm"
        [wording] = [s for s in app.traces.get(reply.trace_id)["steps"] if s.get("purpose") == "wording"]
        assert "longer than 0.05 s" in (wording["error"] or "")
    finally:
        release.set()
    for _ in range(200):  # the worker wakes, takes one part, sees it is late and stops
        if parts_taken:
            break
        threading.Event().wait(0.01)
    threading.Event().wait(0.1)
    assert parts_taken == ["Clamped "]


def test_reflexes_work_when_the_model_is_down():
    from pet.errors import BrainUnavailable

    app = make_app(ScriptedModel([BrainUnavailable("no server")]))
    events = turn(app, "/remember likes green tea")
    assert events[-1].text == "Saved memory #1: likes green tea"
    assert not [e for e in events if isinstance(e, Notice)]


def test_reflexes_off_sends_everything_to_the_model():
    model = ScriptedModel(["I'm a model answer."])
    app = make_app(model, reflexes=False)
    events = turn(app, "remember that I code after 11pm")
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert events[-1].text == "I'm a model answer."


def test_reminder_reflex_stores_a_row_and_quotes_id_and_local_time():
    app = make_app(ScriptedModel([ValueError("not used")]))
    events = turn(app, "明天早上8点提醒我开会")
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.ok
    (reminder,) = app.reminders.pending(app.pet.id)
    assert reminder.text == "开会"
    assert reminder.due_at.astimezone(ZONE) == dt.datetime(2026, 11, 30, 8, 0, tzinfo=ZONE)
    assert f"#{reminder.id}" in result.content and "08:00" in result.content


def test_ambiguous_reminder_asks_and_stores_nothing():
    app = make_app(ScriptedModel([]))
    events = turn(app, "remind me at 8 to stretch")
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert "?" in events[-1].text
    assert app.reminders.pending(app.pet.id) == []


@pytest.mark.parametrize("text, question", [
    ("remind me tomorrow to text Gabriela back", "What time tomorrow should I remind you to text Gabriela back?"),
    ("明天提醒我交水电费", "明天几点提醒你交水电费？"),
    ("remind me to renew my library books", "When should I remind you to renew your library books?"),
    ("remind me about my passport", "When should I remind you about your passport?"),
    ("remind me tomorrow that the rent is due", "What time tomorrow should I remind you that the rent is due?"),
    ("remind me tomorrow to watch Despicable Me", "What time tomorrow should I remind you to watch Despicable Me?"),
    ("明天提醒我给我妈打电话", "明天几点提醒你给你妈打电话？"),
    # the task's own day is not the reminder's
    ("remind me to prepare for tomorrow's exam", "When should I remind you to prepare for tomorrow's exam?"),
    ("remind me to buy a cake for sunday", "When should I remind you to buy a cake for sunday?"),
    ("提醒我准备明天的考试", "什么时候提醒你准备明天的考试？"),
    # round 22's spent set: "记得" before and "哈" after went to the model, which asked nothing
    ("记得提醒我交物业费哈", "什么时候提醒你交物业费？"),
    ("remind me to pay the HOA fee k", "When should I remind you to pay the HOA fee?"),
])
def test_a_reminder_without_its_hour_is_asked_about_in_the_persons_terms(text, question):
    reflex = match(text)
    assert reflex is not None and not reflex.calls and reflex.reply == question


@pytest.mark.parametrize("asked, answer, task, due", [
    ("remind me tomorrow to text Gabriela back", "9am", "text Gabriela back", dt.datetime(2026, 11, 30, 9, 0)),
    ("明天提醒我交水电费", "下午三点吧", "交水电费", dt.datetime(2026, 11, 30, 15, 0)),
    ("提醒我买牛奶", "周二上午十点", "买牛奶", dt.datetime(2026, 12, 1, 10, 0)),
    ("remind me tomorrow to call the bank", "actually make it friday at 4pm", "call the bank",
     dt.datetime(2026, 12, 4, 16, 0)),
])
def test_the_answer_to_what_time_sets_the_reminder(asked, answer, task, due):
    app = make_app(ScriptedModel([]))
    events = turn(app, asked)
    assert not [e for e in events if isinstance(e, ToolStarted)]
    events = turn(app, answer)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["set_reminder"]
    (reminder,) = app.reminders.pending(app.pet.id)
    assert (reminder.text, reminder.due_at.astimezone(ZONE)) == (task, due.replace(tzinfo=ZONE))


@pytest.mark.parametrize("text, question, answer, task, due", [
    # a time corrected in the same message (seen: the first time was set, "wait no, 8pm" in its text)
    ("remind me to call mom at 7pm... wait no, 8pm", "You said 7pm, then 8pm: what time should I remind you to call mom?",
     "8pm", "call mom", dt.datetime(2026, 11, 29, 20, 0)),
    ("提醒我明早8点开会，不对不对，是9点", "你先说明早8点，又说9点——到底几点提醒你开会？", "明早9点", "开会",
     dt.datetime(2026, 11, 30, 9, 0)),
])
def test_a_time_corrected_in_the_message_is_asked_about_then_set(text, question, answer, task, due):
    app = make_app(ScriptedModel([]))
    events = turn(app, text)
    assert not [e for e in events if isinstance(e, ToolStarted)] and events[-1].text == question
    events = turn(app, answer)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["set_reminder"]
    (reminder,) = app.reminders.pending(app.pet.id)
    assert (reminder.text, reminder.due_at.astimezone(ZONE)) == (task, due.replace(tzinfo=ZONE))


def test_an_unclear_hour_in_the_answer_is_asked_about_with_the_day_kept():
    app = make_app(ScriptedModel([]))
    turn(app, "明天提醒我交水电费")
    assert turn(app, "9点")[-1].text == "是明天上午9点还是明天晚上9点？"
    events = turn(app, "明天上午9点")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["set_reminder"]
    (reminder,) = app.reminders.pending(app.pet.id)
    assert reminder.due_at.astimezone(ZONE) == dt.datetime(2026, 11, 30, 9, 0, tzinfo=ZONE)


def test_a_question_taken_back_drops_it():
    model = ScriptedModel(["Okay, no reminder then!", "Nine is a nice hour."])
    app = make_app(model)
    turn(app, "remind me tomorrow to text Gabriela back")
    turn(app, "lol nah never mind, jk")
    turn(app, "9am")
    assert app.reminders.pending(app.pet.id) == []


def test_talk_after_the_question_drops_it():
    model = ScriptedModel(["Cloudy, I think!", "Nine o'clock is a fine hour."])
    app = make_app(model)
    turn(app, "remind me tomorrow to text Gabriela back")
    turn(app, "hmm not sure, what's the weather like?")
    turn(app, "9am")
    assert app.reminders.pending(app.pet.id) == []


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
def test_a_date_question_about_what_the_pet_knows_recalls_instead_of_telling_the_date():
    from pet.errors import BrainUnavailable

    app = make_app(ScriptedModel([BrainUnavailable("no model")] * 4))  # the plain results stand
    turn(app, "记住我爸生日是5月20号")
    events = turn(app, "我爸生日几号？")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["recall"]
    assert "5月20号" in events[-1].text
    events = turn(app, "今天几号？")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["get_current_time"]


@pytest.mark.parametrize("text, asks", [
    ("my todo list is like 40 items long, i'm never getting through it", False),
    ("我的待办清单永远清不完，哈哈", False),
    ("i'm awful at remembering names, always have been", False),
    ("todos", True), ("提醒列表", True), ("my reminders pls", True), ("what reminders do i have", True),
    ("pls list my reminders", True), ("I need to see my todo list", True), ("你都知道我些什么呀", True),
    ("我想看我的待办", True),
    # asked without a question mark (the review found these turned into small talk)
    ("do you remember my dog's name", True), ("我女朋友生日你记得吧", True), ("帮我回忆一下我女朋友的生日", True),
    ("the name of my dog again", True), ("bring up my todo list", True), ("My to-do list, please", True),
    ("everything on my todo list", True), ("go through my todo list with me", True), ("我明天的全部提醒事项", True),
])
def test_a_look_up_must_be_asked_for(text, asks):
    assert reflexes.asks_something(text) is asks


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize("text", ["my to do list is a mile long and it stresses me out",
                                  "我的待办事项多到爆炸，唉", "i'm hopeless at remembering birthdays lol"])
def test_a_remark_about_the_list_or_memory_looks_nothing_up(text):
    app = make_app(ScriptedModel(["That sounds like a lot. One thing at a time?"] * 3))
    events = turn(app, text)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] in ([], ["note"])


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize(("text", "tools"), [
    # near "what do you remember about my workout plan?" in meaning, but they ask for something new
    ("你能帮我写一份一周的健身计划吗？", []),
    ("can you write me a workout plan for the week?", []),
    # ...while these ask what the pet knows
    ("你还记得我的健身计划吗", ["recall"]),
    ("what do you remember about my workout plan?", ["recall"]),
    ("give me a rundown of everything you know about my family", ["recall"]),  # found by a review
])
def test_a_request_to_write_something_is_no_recall(text, tools):
    app = make_app(ScriptedModel(["A plan? Step one: nap in the pond."] * 3))
    events = turn(app, text)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == tools


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize("text, kept", [
    ("pls remember im allergic to shrimp", "im allergic to shrimp"),  # near the facts, but it asks
    ("我的工号是Z-7781，记着点", "我的工号是Z-7781"),
    ("my gym locker is 88. just remember that, i don't need a reminder", "my gym locker is 88"),
    # the request in other words
    ("make a mental note that my badge is 4410", "my badge is 4410"),
    ("save this for me: the gate code is 2291", "the gate code is 2291"),
    ("commit that to memory, my shoe size is 44", "my shoe size is 44"),
    ("pls remeber my locker is 214", "my locker is 214"),  # the request word misspelt
    ("save this about me: I'm a night owl", "I'm a night owl"),
    ("给我记上：我的车位是B2-117", "我的车位是B2-117"),
])
def test_a_fact_asked_to_be_kept_is_remembered_not_only_noted(text, kept):
    from pet.errors import BrainUnavailable

    app = make_app(ScriptedModel([BrainUnavailable("no model")] * 4))
    events = turn(app, text)
    calls = [e.call for e in events if isinstance(e, ToolStarted)]
    assert [c.name for c in calls] == ["remember"]
    assert calls[0].arguments["content"] == kept


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize("text", ["if my friend asks what ur called what do i tell her",
                                  "我想跟朋友炫耀一下我的电子宠物 你叫啥来着", "hey, who am I actually talking to?"])
def test_a_question_about_the_pets_name_recalls_nothing(text):
    """"…来着", "what … called" sound like a look-up of what the pet remembers,
    but the name asked is the pet's (they got "No memories match that.")."""
    app = make_app(ScriptedModel(["我叫小钳！" if "你" in text else "I'm Xiaoqian!"] * 3))
    events = turn(app, text)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == []
    assert "小钳" in events[-1].text or "Xiaoqian" in events[-1].text


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize("text", ["If my friend asks what my crayfish is called, what do I tell her?",
                                  "朋友问我养的小龙虾叫什么，我该怎么说？", "what's the name of my pet crayfish again",
                                  # near "being a crayfish" (round 21's spent chat set got that line)
                                  "do you have a name or do i just keep calling you crayfish?",
                                  # round 22's spent chat set: "No memories match that." and a food line
                                  "my niece wants to know what the crayfish is called", "这只小龙虾叫啥来着",
                                  "我家小龙虾叫什么来着",
                                  # round 23's spent chat set (after its measurement): "No memories match that."
                                  "I'm making a little name tag for your tank, what goes on it?",
                                  "我要给你的缸做个小名牌，写啥好？", "考考你，你还记得自己叫什么不？",
                                  # round 24's spent chat set (after its measurement): recall, or the model
                                  "im making you a tiny birthday card, who do i address it to?",
                                  "我妈打电话问我养的小龙虾有没有名字，有吗？", "if you wore a tiny name tag, what would it say?",
                                  "要是你去办身份证，名字那一栏填啥",
                                  # round 25's spent chat set: the model's answer left the name out
                                  "how do you introduce yourself to other pets 🦞", "你跟别的小龙虾怎么自我介绍？",
                                  # round 44's spent chat set: "my pet" of one who keeps no other; 虾 for 小龙虾
                                  "if my friend asks what my pet's called what do i tell her", "我朋友问我养的这只虾叫什么，我该咋说"])
def test_the_pets_name_asked_by_what_it_is_gets_its_own_line(text):
    """The pet is the person's crayfish: asked its name by its kind (round 20's spent chat set: "No memories
    match that." and a made-up "小虾米"), it answers with its own name line, no model, no recall."""
    app = make_app(ScriptedModel([]), canned_replies="on")  # any model call would raise
    events = turn(app, text)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == []
    assert ("小钳" if re.search(r"[\u4e00-\u9fff]", text) else "Xiaoqian") in events[-1].text


@pytest.mark.parametrize("text, asks", [
    ("what my crayfish is called", True), ("我家的小龙虾叫啥", True), ("what's my crayfish's name?", True),
    # news of a name, not a question (the review found these answered with the pet's own name line)
    ("my crayfish's name is Pinchy now", False), ("I renamed my crayfish, she is called Pinchy", False),
    ("我的小龙虾的名字是小钳", False), ("我家小龙虾叫啥都行，你开心就好", False),
    ("I had crayfish for dinner, what's it called in French?", False), ("小龙虾怎么做好吃", False),
    ("what's my name", False), ("my crayfish and my name, what's my name?", False),
    ("what's the crayfish called?", True), ("这只小龙虾叫啥来着", True), ("the crayfish is called Pinchy", False),
    # crayfish as such (review)
    ("十三香小龙虾叫什么？", False), ("这道菜里的小龙虾叫什么品种？", False),
    ("what's that crayfish species called, the blue one?", False),
    # 虾 alone, as people say it (round 44's spent chat set); not a dish
    ("我养的这只虾叫什么", True), ("这道菜里的虾叫什么", False), ("今天吃的虾叫什么", False),
])
def test_a_question_for_the_pets_name_by_its_kind(text, asks):
    from pet.agent import replycheck
    from pet.persona.model import load_persona

    assert replycheck.asks_species_name(text, load_persona("xiaoqian")) is asks


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize("text", ["ugh, long day at the office today", "what a day", "今天真是漫长的一天"])
def test_talk_about_a_day_does_not_ask_the_time(text):
    app = make_app(ScriptedModel(["Sounds like a lot. Want to tell me about it?"] * 3))
    events = turn(app, text)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] in ([], ["note"])


@pytest.mark.parametrize("text, names", [("how late is it rn", True), ("is it still tuesday??", True),
                                         ("今天几号", True), ("what time is it", True),
                                         ("long day at work today", False), ("今天好累", False),
                                         # round 21's spent set: the month asked, time itself asked about
                                         ("is it still march?? completely lost track lol", True),
                                         ("how do time zones even work", False), ("为什么会有时差啊", False),
                                         # round 32's spent set: what time itself is
                                         ("你说时间到底是个什么东西啊", False), ("what even is time lol", False),
                                         # round 33's spent set: a texting spelling, the day of the month, the year
                                         ("wat day of the month is it", True), ("what year is it lol", True),
                                         ("what a year it has been", False),
                                         ("what year is it in the chinese calendar lol", False),
                                         ("wat day r u free this week", False), ("which day works for you", False)])
def test_a_time_question_names_the_clock(text, names):
    assert reflexes.names_the_clock(text) is names


@pytest.mark.parametrize("text, asks", [
    # today's date checked against a guess (round 29's spent set: the model said "Today is the 30th" unasked of the clock)
    ("wait is today the 30th or the 31st?? lost track", True), ("is it friday today?", True),
    ("today's the 5th right?", True), ("今天是30号还是31号", True), ("今天周四吗", True),
    # a day said of something else, or news of today
    ("deadline, is it the 30th?", False), ("today is friday and i'm so happy", False), ("is today the day", False),
])
def test_todays_date_checked_against_a_guess_asks_the_clock(text, asks):
    reflex = match(text)
    assert (reflex is not None and [c.name for c in reflex.calls] == ["get_current_time"]) is asks


@pytest.mark.parametrize("text, calls", [
    # round 30's spent set: the time asked in English among Chinese, a todo named in English, "calc"
    ("what day了今天？出差出傻了", [("get_current_time", {})]),
    ("帮我加个to-do：退掉健身卡", [("add_todo", {"text": "退掉健身卡"})]),
    ("加个todo 买牛奶", [("add_todo", {"text": "买牛奶"})]),
    ("what time了我都忘了要干嘛", None),  # a remark after it, too long to be an aside
])
def test_requests_in_mixed_languages(text, calls):
    reflex = match(text)
    assert (reflex and [(c.name, c.arguments) for c in reflex.calls]) == calls


@pytest.mark.parametrize("text, calls", [
    # round 30's spent set: a memory pointed at before the verb, a reminder let go by its task, one cancelled by 把
    ("那个车位号你删掉吧，已经换了", [("forget", {"what": "车位号"})]),
    ("关于小白的事都清掉吧，它走了", [("forget", {"what": "小白"})]),
    ("把牙医那个取消掉", [("cancel_reminder", {"which": "牙医"})]),
    ("把第2个取消掉", [("cancel_reminder", {"which": "2"})]),
    ("看看我有哪些提醒，把例会那个取消掉", [("list_reminders", {}), ("cancel_reminder", {"which": "例会"})]),
    # news, a question: no request (the review of 2026-12-05 found the first two forgetting a memory)
    ("这个单词又忘了", None), ("今天的约会你忘了啦！", None), ("你忘了吧", None), ("帮我记个todo list吧", None),
    ("那个视频我删了", None), ("那个app你删了吗", None), ("把订阅取消了", None), ("我把健身卡取消掉了", None),
    # round 48's spent set: a reminder let go in blunt words
    ("kill the waffles reminder", [("cancel_reminder", {"which": "waffles"})]),
    ("ditch my dentist reminder", [("cancel_reminder", {"which": "dentist"})]),
    ("that reminder thing kills me lol", None),
])
def test_deleting_and_cancelling_in_other_words(text, calls):
    reflex = match(text)
    assert (reflex and [(c.name, c.arguments) for c in reflex.calls]) == calls


@pytest.mark.parametrize("text, reflex", [
    # round 32's spent set: the list named before the thing, and a wait said before it
    ("帮我记到待办里：给房东转账", ("add_todo", {"text": "给房东转账"})),
    ("过40分钟提醒我收衣服", ("set_reminder", {"text": "收衣服", "when": "过40分钟"})),
])
def test_requests_worded_in_other_orders(text, reflex):
    found = match(text)
    assert found is not None and [(c.name, c.arguments) for c in found.calls] == [reflex]


@pytest.mark.parametrize("text, when", [
    # the hour said is the event's; the reminder comes that much sooner (round 36's spent set set it at 14:30)
    ("1月8号下午两点半有个 interview，帮我设个 reminder，提前半小时提醒我", "2027-01-08 14:00"),
    ("明天下午3点开会，提前20分钟提醒我", "2026-11-30 14:40"), ("明天上午10点有个会，提前一刻钟提醒我", "2026-11-30 09:45"),
    ("my flight is tomorrow at 9am, remind me 2 hours before to leave", "2026-11-30 07:00"),
    ("remind me 15 minutes before the 3pm meeting", "2026-11-29 14:45"),
    ("remind me half an hour before my 4pm dentist appointment", "2026-11-29 15:30"),
    ("remind me 1.5 hours before my 3pm flight", "2026-11-29 13:30"),
    # a time before said in the task, or away from the asking, is the task's (the review of 2026-12-06)
    ("remind me tomorrow at 9am to leave early", "tomorrow at 9am"),
    ("remind me tomorrow at 9am to leave 15 minutes early", "tomorrow at 9am"),
    ("remind me at 8am tomorrow to take the pill 30 minutes before breakfast", "at 8am tomorrow"),
    ("明天早上6点提醒我提前两小时到机场", "明天早上6点"), ("明天我提前半小时下班，下午5点提醒我去接孩子", "2026-11-30 17:00"),  # (tomorrow's 5pm: its day said before it)
    ("明天早上8点提醒我，会议提前半小时了", "明天早上8点"),
    # a habit keeps its hour (its reminders are set again each day)
    ("每天早上8点开会，提前10分钟提醒我", "每天早上8点"),
])
def test_a_reminder_some_time_before_the_hour_said(text, when):
    found = match(text)
    assert found is not None and [c.arguments["when"] for c in found.calls] == [when]


def test_a_reminder_before_an_hour_that_comes_too_soon_is_a_question():
    found = match("remind me 30 minutes before my 10:30am call")
    assert found is not None and not found.calls and "past" in found.reply


@pytest.mark.parametrize("text", ["明天下午3点的飞机，提前一两个小时提醒我", "明天下午3点开会，提前两三分钟提醒我",
                                  "明天下午3点开会，提前十十分钟提醒我"])
def test_how_long_before_said_as_no_one_number_is_a_question(text):
    found = match(text)
    assert found is not None and not found.calls and found.reply == "要提前多久提醒你？"


def test_a_reminder_let_go_by_its_task_named_after_it():
    assert reflexes.lets_a_reminder_go("不用提醒我给妈打电话了，刚打过") == "给妈打电话"
    assert reflexes.lets_a_reminder_go("别再提醒我喝水了，烦死了") == "喝水"
    assert reflexes.lets_a_reminder_go("不用提醒我了") is None
    # round 31's spent set: "don't remind me" of what is coming names no reminder
    assert reflexes.lets_a_reminder_go("别提醒我下周要考试了") is None
    assert reflexes.lets_a_reminder_go("别提醒我明天有早会了，烦死了") is None
    assert reflexes.lets_a_reminder_go("不用提醒我明天要交报告了") == "明天要交报告"


@pytest.mark.parametrize("text, game, wish", [
    ("你猜我今天几点起的？中午十二点！", True, False), ("guess what time i got home lol", True, False),
    ("我猜你不知道现在几点", False, False),
    ("如果可以删掉一段记忆，我想删掉高考那天哈哈", False, True), ("if i could forget one day it would be my wedding", False, True),
    # polite requests
    ("如果可以的话，帮我记一下我的车牌号", False, False), ("if you could remind me to call mom at 5 that'd be great", False, False),
    # the review of 2026-12-05: polite requests, a wish beside a request, news opened with "guess what"
    ("如果可以，把我车牌号记一下：沪A12345", False, False), ("如果能够，把我存的旧地址删了", False, False),
    ("if i could get you to add milk to my todo list", False, False),
    ("i wish i had more time. add call the bank to my todo list", False, False),
    ("remind me to check if i could get a refund tomorrow at 10", False, False),
    ("你猜怎么着，我又忘了wifi密码，密码是多少来着？", False, False),
    ("guess who forgot the gate code again lol. what was it?", False, False),
    ("imagine if u could just delete memories like in that jim carrey movie. kinda scary tbh", False, True),
])
def test_a_guessing_game_and_a_wish_are_told_apart_from_requests(text, game, wish):
    assert (reflexes.guessing_game(text), reflexes.wishes_it_could(text)) == (game, wish)


@pytest.mark.parametrize("text, expression", [
    # the review of 2026-12-05: a number said before the conversion asked got "write it as one calculation"
    ("I ran 5 miles today, what's 5 miles in km?", "5*1.609344"),
    ("the recipe says 350 f, what's 350 f in c", "(350-32)*5/9"),
])
def test_a_conversion_after_other_numbers_is_computed(text, expression):
    reflex = match(text)
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == [
        ("calculate", {"expression": expression})]


def test_an_ellipsis_between_chinese_words_parts_clauses():
    assert reflexes.clauses("周末要搬家，一堆事……先帮我加个to-do：订搬家公司") == [
        "周末要搬家", "一堆事", "先帮我加个to-do：订搬家公司"]
    assert reflexes.clauses("好吧……") == ["好吧……"]  # at the end it parts nothing


@pytest.mark.parametrize("text, deletes", [
    ("看牙那个提醒不要了，医生那边改时间了，到时候我再跟你说", True),
    ("kill the 7am alarm, I'm off tomorrow", True),
    ("提醒我明天把闹钟删了", False),  # asks to be reminded
    ("remind me to delete the old reminders app tonight", False),
    ("把我生日那条记忆删了", False),  # a memory
    # a new one in its place (review)
    ("把7点的闹钟删了，换成8点的", False), ("the 7am alarm can go, set one for 8 instead", False),
])
def test_a_reminder_let_go_is_told_from_one_asked_for(text, deletes):
    assert reflexes.deletes_a_reminder(text) is deletes


@pytest.mark.parametrize("text, what", [
    ("取护照那个不用提醒了，明天我反正要路过", "取护照"),
    ("周五的会就别提醒我了", "周五的会"),
    ("no need to remind me about the dentist anymore", "the dentist"),
    ("stop reminding me to drink water", "drink water"),
    # nothing named, or words of having heard (a reply to a reminder that just fired)
    ("知道了，不用提醒了", None), ("我知道了不用提醒了", None), ("别提醒我了", None),
    ("don't remind me about it", None), ("remind me to call mom", None),
    # pointing at no reminder, or an idiom (review)
    ("ugh don't remind me about the exam", None), ("哎呀别提醒我了", None), ("我自己会记得不用提醒了", None),
    ("你以后不用再提醒我了", None), ("don't remind me of my ex lol", None), ("谢谢不用提醒了", None),
    ("嗯嗯不用提醒了", None),
])
def test_a_reminder_let_go_names_what_it_was_for(text, what):
    assert reflexes.lets_a_reminder_go(text) == what


def test_new_command_starts_a_new_conversation():
    app = make_app(ScriptedModel([]))
    before = app.current_conversation()
    events = turn(app, "/new")
    started = next(e for e in events if isinstance(e, ConversationStarted))
    assert started.conversation_id != before


def test_todo_reflex_writes_the_markdown_checklist():
    app = make_app(ScriptedModel([ValueError("not used")]))
    turn(app, "add buy milk to my todo list")
    text = (app.settings.workspace_dir / "todo.md").read_text(encoding="utf-8")
    assert "- [ ] buy milk" in text


# --- "forget it" is not a forget (issue 23) ---------------------------------------------


@pytest.mark.parametrize("text", ["Forget it, never mind.", "forget it", "Forget about it, I'll ask later",
                                  "never mind", "算了，别管了", "别管了，那个不重要", "forget it, never mind the peanuts",
                                  "forget I said anything about the party, ok"])
def test_forget_it_and_never_mind_are_never_a_forget(text):
    reflex = match(text)
    assert reflex is None or all(c.name != "forget" for c in reflex.calls)


def test_what_follows_a_dismissal_is_still_understood():
    assert single_call("算了，帮我记一下明天买牛奶").arguments == {"content": "明天买牛奶"}
    assert single_call("never mind, what time is it?").name == "get_current_time"


def test_a_fresh_pet_keeps_the_fact_and_forget_it_deletes_nothing():
    """The held-out case: the memory kept ", keep it in mind", and "Forget it, never mind." deleted it."""
    model = ScriptedModel([ValueError("no wording"),  # the remember reflex's wording: plain result
                           Completion("", (call("forget", what="I'm allergic to peanuts"),)), "Okay, dropped it!"])
    app = make_app(model)
    events = turn(app, "Note that I'm allergic to peanuts, keep it in mind.")
    assert events[-1].text == "Saved memory #1: I'm allergic to peanuts"
    events = turn(app, "Forget it, never mind.")
    # small talk gets no tools: the model's forget is not run (run, it would forget nothing)
    assert not [e for e in events if isinstance(e, ToolFinished)]
    assert [m.content for m in app.memories.listing(app.pet.id, status="active")] == ["I'm allergic to peanuts"]
    assert "Forgot" not in events[-1].text


def test_an_unsure_forget_names_the_candidates_and_deletes_nothing():
    app = make_app(ScriptedModel([ValueError("no wording")] * 2))
    turn(app, "remember that I like green tea")
    turn(app, "remember that I like black tea")
    events = turn(app, "forget that I like tea")
    assert "#1 I like green tea" in events[-1].text and "#2 I like black tea" in events[-1].text
    assert app.memories.count(app.pet.id) == 2


@pytest.mark.real_encoder
def test_a_forget_that_finds_nothing_asks_about_nothing_far_from_it():
    # (seen on the page: "还没有忘掉：是指 #4 my sister had her baby 吗？" to "我戒咖啡了，别再记着我爱喝美式了")
    app = make_app(ScriptedModel([ValueError("no wording")] * 4))
    app.memories.remember(app.pet.id, "my sister had her baby")
    events = turn(app, "我戒咖啡了，别再记着我爱喝美式了")
    assert "#1" not in events[-1].text and "没有记忆对得上" in events[-1].text
    assert app.memories.count(app.pet.id) == 1


# --- the claim guard ------------------------------------------------------------------


def test_false_claim_is_retried_once_and_the_retry_answer_is_used():
    model = ScriptedModel(["Got it, I'll remember that!", Completion("", (call("remember", content="likes jazz"),)),
                           "Saved as memory #1!"])
    app = make_app(model, reflexes=False)
    events = turn(app, "I like jazz, keep it in mind")
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "I'll remember" not in shown
    assert "not the person" in model.calls[1].messages[-1].content  # the correction
    assert events[-1].text.endswith("Saved as memory #1!") and "I'll" not in events[-1].text
    assert app.memories.count(app.pet.id) == 1


def test_false_claim_twice_is_replaced_by_an_honest_line():
    model = ScriptedModel(["Sure! I'll remember that.", "Okay, I have saved it."])
    app = make_app(model, reflexes=False)
    events = turn(app, "I like jazz, keep it in mind")
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "I'll remember" not in shown and "saved it" not in shown
    assert "haven't saved that yet" in events[-1].text
    assert any(isinstance(e, Notice) for e in events)
    stored = app.conversations.history(app.current_conversation())[-1].message.content
    assert "haven't saved that yet" in stored and "I'll remember" not in stored


@pytest.mark.parametrize("script, shown", [
    # the page showed "Noted! I savok" (the unfinished "I sav" of a claim, then the retry), stored as "Noted! I sav ok"
    (["Noted! I saved it.", "ok cool"], "Noted! ok cool"),
    (["Wow, what a day. I saved it to memory.", "Cool cool."], "Wow, what a day. Cool cool."),
    (["哇，好厉害。我已经记住了！", "继续加油呀～"], "哇，好厉害。继续加油呀～"),
])
def test_a_retry_after_a_shown_start_is_shown_as_it_is_stored(script, shown):
    app = make_app(ScriptedModel(script), reflexes=False)
    events = turn(app, "哈" if "哇" in shown else "k")
    chat: list = []
    for event in events:
        apply_event(chat, event, app.tools, "en")
    stored = app.conversations.history(app.current_conversation())[-1].message.content
    assert [m["content"] for m in chat if not m.get("notice")] == [stored] and stored == shown


@pytest.mark.parametrize("shown, joint", [
    ("Noted! I sav", "… "), ("Noted!", " "), ("Noted! ", ""), ("Sure, ", "… "), ("我已经", "…"), ("好的。", ""), ("", ""),
])
def test_what_comes_between_a_shown_start_and_its_retry(shown, joint):
    from pet.agent.loop import _after_shown

    assert _after_shown(shown) == joint


def test_a_true_claim_passes():
    model = ScriptedModel([Completion("", (call("remember", content="likes jazz"),)), "Got it, I'll remember that!"])
    app = make_app(model, reflexes=False)
    events = turn(app, "I like jazz, keep it in mind")
    assert events[-1] == Reply("Got it, I'll remember that!", message_id=events[-1].message_id)


@pytest.mark.parametrize(
    "text, names",
    [
        ("remember that my sister's birthday is May 3 and remind me on May 2 at 9am to buy a gift",
         ["remember", "set_reminder"]),
        ("记住我妹妹的生日是5月3日，并在5月2日早上9点提醒我给她买礼物", ["remember", "set_reminder"]),
        ("forget that I like green tea, and remember that I like oolong", ["forget", "remember"]),
        ("把订机票加到待办，再在明天上午10点提醒我去订", ["add_todo", "set_reminder"]),
        ("what time is it, and what's 8 times 7?", ["get_current_time", "calculate"]),
    ],
)
def test_each_request_of_a_multi_request_message_runs(text, names):
    reflex = match(text)
    assert reflex is not None and [c.name for c in reflex.calls] == names


@pytest.mark.parametrize(
    "text",
    [
        "what's 25 times 4? remember the result as my lucky number",  # the second needs the first's result
        "remember that I like tea, and also tell me a joke",
        "记住我喜欢绿茶，顺便讲个笑话",
    ],
)
def test_a_multi_request_message_with_one_unclear_part_goes_to_the_model(text):
    assert match(text) is None


def test_a_fact_with_commas_stays_one_memory():
    assert single_call("记住：妈妈的生日是3月5日，她喜欢百合").arguments == {"content": "妈妈的生日是3月5日，她喜欢百合"}
    assert single_call("remember that I like tea, coffee and cocoa").arguments == {
        "content": "I like tea, coffee and cocoa"
    }


def test_forget_by_chinese_ordinal_id():
    app = make_app(ScriptedModel([]))
    app.memories.remember(app.pet.id, "喜欢绿茶")
    app.memories.remember(app.pet.id, "猫叫汤姆")
    events = turn(app, "删除第2条记忆")
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.ok and "猫叫汤姆" in result.content
    assert [m.content for m in app.memories.recent(app.pet.id)] == ["喜欢绿茶"]


@pytest.mark.parametrize(
    "text, says",
    [
        ("what is 1/0?", "zero"),
        ("what is 10^5000", "exponents above 1000"),
        ("remind me at 25:00 to sleep", "25"),
        ("2月30日下午3点提醒我交报告", "30"),
    ],
)
def test_bad_input_gets_a_clear_answer_not_a_crash(text, says):
    app = make_app(ScriptedModel([]))
    events = turn(app, text)
    reply = events[-1]
    assert isinstance(reply, Reply) and says in reply.text.lower()
    assert app.reminders.pending(app.pet.id) == []


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("action", ["remember", "forget", "set_reminder", "add_todo"])
def test_the_honest_line_is_not_itself_a_claim(action, language):
    from pet.agent.guards import claimed_actions, honest_notice

    assert claimed_actions(honest_notice({action}, language)) == set()


@pytest.mark.parametrize(("text", "claims"), [
    ("已加入待办，一个 交房租。", True),  # copied from an earlier result, said to "我对花生过敏" (seen on the page)
    ("Added to the todo list: buy bread", True),
    ("I've added it to your list!", True),
    ("Got it, I added it to your todos.", True), ("Added to your todos!", True), ("已经加到你的待办里了", True),
    ("I added extra sparkle to my shell today", False),
    ("要不要加到待办里？", False),
    ("Want me to add that to your todo list?", False),
])
def test_a_todo_said_to_be_added_is_a_claim(text, claims):
    from pet.agent.guards import claimed_actions

    assert (claimed_actions(text) == {"add_todo"}) is claims


@pytest.mark.parametrize(("text", "claims"), [
    # seen on the page: nothing was kept, and the number was wrong
    ("好的，我记住车位B3-122。", True), ("钳钳会记下的", True), ("我记下来了", True),
    ("我记不住", False), ("我没记住", False), ("我不记得了", False),
])
def test_a_memory_said_to_be_kept_in_chinese_is_a_claim(text, claims):
    from pet.agent.guards import claimed_actions

    assert (claimed_actions(text) == {"remember"}) is claims


@pytest.mark.parametrize(("text", "claims"), [
    # after the call was not run (the review of 2026-12-05)
    ("好嘞，二十分钟后提醒你给妈妈打电话～", True), ("十点叫你，放心睡吧！", True), ("OK, I'll ping you at 9!", True),
    ("要我明天八点叫你吗？", False), ("我每天早上七点叫你起床好不好？", False),
    # the tool's confirmation copied from earlier, garbled (used as a person would, 2026-12-07)
    ("提醒 #1 巴设好：今天是15:06，下周二我结婚了", True), ("Reminder #3 is set for 9am", True),
])
def test_a_reminder_said_to_be_set_is_a_claim(text, claims):
    from pet.agent.guards import claimed_actions

    assert (claimed_actions(text) == {"set_reminder"}) is claims


def test_a_false_todo_claim_is_retried():
    model = ScriptedModel(["已加入待办，一个 交房租。", "花生过敏要小心！钳钳帮你盯着零食。"])
    app = make_app(model, reflexes=False)
    events = turn(app, "我对花生过敏，顺便说一下")
    assert events[-1].text == "花生过敏要小心！钳钳帮你盯着零食。"


@pytest.mark.parametrize("text", ["钳钳还没记下来", "我不记住这种事", "No reminder is set yet.", "还没删掉哦"])
def test_negated_actions_are_not_claims(text):
    from pet.agent.guards import claimed_actions

    assert claimed_actions(text) == set()


@pytest.mark.parametrize("text, claims", [
    ("明天提醒你交房租", True),  # said after a reminder the person took back: a promise no tool kept
    ("好的，今晚八点提醒你吃药！", True),
    ("明天记得提醒你自己交房租哦", False),
    ("我明天提醒你？不行哦", False),
])
def test_a_reminder_promised_for_a_day_is_a_claim(text, claims):
    from pet.agent.guards import claimed_actions

    assert (claimed_actions(text) == {"set_reminder"}) is claims


@pytest.mark.parametrize(
    "wording",
    [
        "Clamped tight! Memory #1 says you code after 11pm, since 2019.",  # an invented number
        "好的！#1 你晚上11点后写代码。",  # the wrong language for an English message
        "Memory #1: code after 11pm.\nCatchphrases you may use now and then: Claws out!",  # prompt leaking
    ],
)
def test_wording_that_invents_or_leaks_falls_back_to_the_plain_result(wording):
    app = make_app(ScriptedModel([wording]))
    events = turn(app, "remember that I code after 11pm")
    assert events[-1].text == "Saved memory #1: I code after 11pm"


@pytest.mark.parametrize("text", ["add that to my todo list", "add it to my todos", "把这个加到待办里", "在待办里加一条"])
def test_a_todo_that_only_points_back_is_asked_about_not_added_as_its_pronoun(text):
    # "add that to my todo list" was added as the todo "that"
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and reflex.calls == () and reflex.reply
    assert ("待办" in reflex.reply) is (not text.isascii())


@pytest.mark.parametrize(("text", "item"), [
    # round 33's spent set: "that" is what the person just said they need to do
    ("i need to return the library books before they fine me again, can u throw that on my list",
     "return the library books before they fine me again"),
    ("gotta call the plumber tomorrow. add it to my todos", "call the plumber tomorrow"),
    ("我得去交水电费，帮我加到待办里", "交水电费"),
])
def test_a_todo_that_points_back_at_a_need_said_before_adds_that_task(text, item):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == [("add_todo", {"text": item})]


@pytest.mark.parametrize("text", ["my boss is so annoying, can u throw that on my list", "我老板好烦，帮我加到待办里",
                                  # the review of 2026-12-05: no task in these
                                  "我得到了一个面试机会，帮我加到待办里", "我得了重感冒，帮我加到待办里", "我该怎么办啊，帮我加到待办里",
                                  "我需要你帮我想想，帮我加到待办里", "should i buy a new laptop? add that to my list",
                                  "i must have left my charger at work, can u put that on my list"])
def test_a_todo_pointing_back_at_no_need_adds_nothing_said_before(text):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is None or reflex.calls == ()


@pytest.mark.parametrize(("text", "item"), [
    ("add buy milk to my todo list", "buy milk"), ("把买猫砂加到待办里", "买猫砂"),
    # other verbs, a measure word, quotes (round 20's spent set)
    ("把“交工牌照片”加进待办", "交工牌照片"), ("在待办里加一条续健身卡", "续健身卡"), ("帮我在待办里加个买牛奶", "买牛奶"),
    ("在待办里加个人所得税申报", "个人所得税申报"), ('add "renew passport" to my todo list', "renew passport"),
    # no measure word eaten from the item itself (the review)
    ("在待办里加项目周报", "项目周报"), ("在待办里加个税申报", "个税申报"), ("在待办里加条纹衬衫送洗", "条纹衬衫送洗"),
    ("在待办里加一件事：买牛奶", "买牛奶"),
    # a todo named before its item (round 26's spent set)
    ("add a todo: send the weekly report", "send the weekly report"), ("new task: call the bank", "call the bank"),
    ("can you add a new to-do: pay rent", "pay rent"),
])
def test_a_todo_that_names_its_item_is_added_by_the_reflex(text, item):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and reflex.calls[0].arguments == {"text": item}


@pytest.mark.parametrize("kept, asked", [
    ("remember that I'm learning the trumpet, lessons on fridays", "yeet the trumpet lessons thing"),
    ("remember that my yoga studio is Lotus on 5th", "ditch the bit about my yoga studio"),
    ("记住我在莲花瑜伽馆练瑜伽", "瑜伽馆那条别记了"),
])
def test_a_memory_is_dropped_when_asked_in_other_words(kept, asked):
    app = make_app(ScriptedModel([ValueError("no wording")] * 4))
    turn(app, kept)
    events = turn(app, asked)
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["forget"]
    assert app.memories.listing(app.pet.id, status="active") == []


@pytest.mark.parametrize("clause, back", [
    ("anyway make a note of it", True), ("你要记住哦", True), ("remember that", True),
    ("make a note of my blood type: O", False), ("remind me at 5", False), ("I can't eat shellfish", False),
])
def test_a_request_that_points_back_says_nothing_itself(clause, back):
    assert reflexes.points_back(clause) is back


def test_an_aside_before_a_request_to_remember_is_no_part_of_the_fact():
    assert reflexes.kept_fact("顺便帮我记住：我的工位号是B-1207") == "我的工位号是B-1207"
    assert reflexes.kept_fact("对了，记一下我的车位号是B2-117") == "我的车位号是B2-117"


@pytest.mark.parametrize("text, forgotten, kept", [
    # round 22's spent set: only the forget ran ('把力行健身' searched, 把 and all)
    ("forget my old address on Birchwood Ave, my new one is 12 Harbor Street", "address on Birchwood Ave",
     "my new address is 12 Harbor Street"),
    ("我换健身房了，把力行健身那条忘了吧，新的叫铁馆", "力行健身", "我换健身房了，新的叫铁馆"),
    ("forget my old phone number, the new one is 555-0199", "phone number", "the new phone number is 555-0199"),
    ("forget my old address", "address", None),
    # the new one keeps what it is of (review: "now it's green", "her new one is …" were kept bare)
    ("forget my favorite color, now it's green", "my favorite color", "my favorite color: now it's green"),
    ("forget my wife's number, her new one is 555-0142", "my wife's number", "my wife's new number is 555-0142"),
    ("forget my old number, it's now disconnected", "number", None),
    ("把我住朝阳那条忘了吧", "我住朝阳", None),
])
def test_a_forget_that_gives_the_new_one_keeps_it(text, forgotten, kept):
    reflex = match(text)
    assert reflex is not None and reflex.calls[0].name == "forget"
    assert reflex.calls[0].arguments["what"] == forgotten
    assert [c.arguments["content"] for c in reflex.calls[1:]] == ([kept] if kept else [])


@pytest.mark.parametrize("text", [
    # news about the to-do list, not an item for it (review)
    "待办加起来有二十多条了，好累", "todo加了好多东西，做不完了", "我的todo清单上加了一个新任务",
    "我的待办加上今天的已经三十条了",
    # a reminder for when something happens, not a look-up (review)
    "remind me when my laundry is done",
])
def test_no_todo_and_no_recall_read_into_news_or_a_condition(text):
    reflex = match(text)
    assert reflex is None or not any(c.name in ("add_todo", "recall") for c in reflex.calls)


@pytest.mark.parametrize("text", [
    # someone's words quoted (round 23's spent set, after its measurement: "了”" was remembered)
    "我妈老说“吃亏是福，你给我记住了”，哈哈哈", 'my coach always says "remember to breathe" lol',
])
def test_a_request_in_quotation_marks_is_no_request(text):
    assert match(text) is None


def test_a_quoted_item_in_a_request_is_still_one():
    reflex = match('add "buy milk" to my todo list')
    assert reflex is not None and reflex.calls[0].name == "add_todo"


@pytest.mark.parametrize("text, gone, new", [
    # round 23's spent set (after its measurement): the whole was set as one new reminder
    ("把买狗粮那个提醒删了，改成后天上午10点20提醒我去宠物店", "买狗粮", "后天上午10点20"),
    ("把牙医复诊那个提醒删了，换成周五下午3点", "牙医复诊", "周五下午3点"),
])
def test_a_reminder_replaced_is_cancelled_then_set(text, gone, new):
    reflex = match(text)
    assert reflex is not None and [c.name for c in reflex.calls] == ["cancel_reminder", "set_reminder"]
    assert reflex.calls[0].arguments["which"] == gone and reflex.calls[1].arguments["when"] == new


@pytest.mark.parametrize("text, gone, new", [
    # round 29's spent set (a reminder "把周五那个开会的提醒取消 改成" was set, and nothing for the English)
    ("把周五那个开会的提醒取消 改成下周二上午九点", "开会", "下周二上午九点"),
    ("cancel the yoga reminder and set a new one for nov 6 at 7pm, same thing", "yoga", "nov 6 at 7pm"),
    # moved in one verb ("move the yoga reminder" was set as a reminder's words)
    ("move the yoga reminder to nov 6 at 7pm", "yoga", "nov 6 at 7pm"),
    ("can you push my dentist reminder to friday at 3pm", "dentist", "friday at 3pm"),
    ("把开会的提醒改到下周三上午九点", "开会", "下周三上午九点"),
    ("帮我把交房租那个提醒推到周六晚上8点", "交房租", "周六晚上8点"),
])
def test_a_reminder_moved_is_cancelled_then_set_at_the_new_time(text, gone, new):
    reflex = match(text)
    assert reflex is not None and reflex.intent == "move"
    assert [c.name for c in reflex.calls] == ["cancel_reminder", "set_reminder"]
    assert reflex.calls[0].arguments["which"] == gone and reflex.calls[1].arguments["when"] == new


@pytest.mark.parametrize("text", [
    "push my 7am alarm to 8am",  # named by its hour: cancel_reminder finds reminders by their words
    "change my gym reminder to pilates at 7pm",  # a new task: not the old words at a new time (the review)
    "move the couch to the other room",
    "我把提醒改到手机上了",
])
def test_no_reminder_moved_without_its_words_and_a_new_time(text):
    reflex = match(text)
    assert reflex is None or reflex.intent != "move"


@pytest.mark.parametrize("text, task, first, second", [
    # round 29's spent set: the second time was kept in the task ("take my meds and again at 8pm tmrw")
    ("remind me at 8am tmrw to take my meds and again at 8pm tmrw", "take my meds",
     dt.datetime(2026, 11, 30, 8, 0), dt.datetime(2026, 11, 30, 20, 0)),
    # a second time with no day of its own is on the first one's day
    ("明天早上8点提醒我吃药，晚上8点再提醒一次", "吃药", dt.datetime(2026, 11, 30, 8, 0), dt.datetime(2026, 11, 30, 20, 0)),
    ("remind me tomorrow at 9am to call mom, and at 5pm again", "call mom",
     dt.datetime(2026, 11, 30, 9, 0), dt.datetime(2026, 11, 30, 17, 0)),
])
def test_a_reminder_again_at_another_time_is_set_twice(text, task, first, second):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [c.name for c in reflex.calls] == ["set_reminder", "set_reminder"]
    assert [c.arguments["text"] for c in reflex.calls] == [task, task]
    assert [parse_when(c.arguments["when"], NOW, ZONE).at.replace(tzinfo=None) for c in reflex.calls] == [first, second]


@pytest.mark.parametrize("text, task", [
    # the review of 2026-12-05: the clause read as a reminder of its own ("再 一次"), or "please" after it
    ("明天早上8点提醒我吃药，晚上8点再提醒我一次", "吃药"),
    ("remind me at 11am to take my meds and again at 10pm please", "take my meds"),
])
def test_again_in_other_words_sets_the_same_task(text, task):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [c.arguments["text"] for c in reflex.calls] == [task, task]


@pytest.mark.parametrize("text", ["提醒我明天下午3点 再把PPT改一遍", "明天早上九点提醒我 再把报告检查一遍"])
def test_a_task_done_once_more_is_one_request(text):
    # (the review: 再 after a space read as a second request, and nothing was set)
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [c.name for c in reflex.calls] == ["set_reminder"]


@pytest.mark.parametrize("text", ["wifi密码 我把它忘了", "我妈生日3月5号 结果我把这个忘了", "我把那个app删了"])
def test_the_person_forgetting_is_no_request_to_forget(text):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is None or "forget" not in [c.name for c in reflex.calls]


@pytest.mark.parametrize("text", ["remember my wifi password, it's bluefish, and remind me at 9pm to reset the router",
                                  "提醒我晚上8点给我妈打电话，我怀孕了，再加个待办买叶酸"])
def test_a_clause_that_says_something_is_no_aside(text):
    # (the review: "it's bluefish" and "我怀孕了" were dropped between the requests)
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is None


def test_again_at_an_earlier_hour_with_no_day_is_not_guessed():
    reflex = reflexes.match("明天晚上8点提醒我吃药，早上8点再提醒一次", NOW, ZONE)
    assert reflex is None or len(reflex.calls) != 2


@pytest.mark.parametrize("text, task, at", [
    # the event's time first, then the reminder's hour on "that day" (round 26's spent set set it at 10:15)
    ("ok so my passport renewal appt is aug 2 at 10:15am, remind me that morning at 8am",
     "my passport renewal appt is aug 2 at 10:15am", dt.datetime(2027, 8, 2, 8, 0)),
    ("面试是下周三下午两点，那天早上八点提醒我一下", "面试是下周三下午两点", dt.datetime(2026, 12, 2, 8, 0)),
    ("flight is on dec 20 at 6pm, remind me the same day at noon to pack", "pack", dt.datetime(2026, 12, 20, 12, 0)),
    # the day without its hour first, then the hour and "that day" (round 8's spent set)
    ("the landlord's coming next tuesday, remind me at 8:30am that day to clear out the sink",
     "clear out the sink", dt.datetime(2026, 12, 1, 8, 30)),
    ("下周二房东来修暖气，记得那天早上八点半提醒我把水槽下面的东西清出来", "把水槽下面的东西清出来",
     dt.datetime(2026, 12, 1, 8, 30)),
])
def test_a_reminder_on_that_day_is_set_on_the_day_said_before(text, task, at):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and len(reflex.calls) == 1
    arguments = reflex.calls[0].arguments
    assert arguments["text"] == task
    assert parse_when(arguments["when"], NOW, ZONE).at.replace(tzinfo=None) == at


@pytest.mark.parametrize("text, task", [
    # the task runs to the sentence's end (the review of 2026-12-05)
    ("my appt is dec 3 at 10am, remind me that morning at 9am to call Dr. Smith about the results",
     "call Dr. Smith about the results"),
    ("party is dec 3 at 6pm, remind me that afternoon at 2pm to pick up 2.5 kg of ice", "pick up 2.5 kg of ice"),
    ("party is dec 3 at 6pm, remind me that day at noon to grab ice, cups and plates", "grab ice, cups and plates"),
])
def test_the_task_said_after_that_days_hour_is_kept_whole(text, task):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and reflex.calls[0].arguments["text"] == task


def test_that_day_of_another_thing_is_no_day_said_before():
    reflex = reflexes.match("remind me at 7pm to call mom, that day is her birthday", NOW, ZONE)
    assert reflex is not None and reflex.calls[0].arguments["when"] == "at 7pm"
    # "那天的会" is that day's meeting, no day said again
    reflex = reflexes.match("提醒我明天早上八点那天的会改到下午了", NOW, ZONE)
    assert reflex is not None and reflex.calls[0].arguments["text"] == "那天的会改到下午了"


@pytest.mark.parametrize("text", ["new task, ugh, my boss dumped another report on me",
                                  "new task - honestly i'm so tired of work", "add a to do, what should I put?"])
def test_a_word_of_a_new_task_before_venting_adds_no_todo(text):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is None or all(c.name != "add_todo" for c in reflex.calls)


# Chat Chinese parts its clauses with spaces (round 27's spent set): the talk before a request is no part of it, and
# what follows a request that asks for something is what it asks for
@pytest.mark.parametrize("text, expected", [
    ("唉今天又被领导说了 烦 算了不说了 帮我在待办清单里记一下 整理发票", [("add_todo", {"text": "整理发票"})]),
    ("最近事情好多 脑子不够用 对了 帮我set个reminder 12月1号下午3点 去银行办卡",
     [("set_reminder", {"text": "银行办卡", "when": "12月1号下午3点"})]),
    ("帮我设个reminder 明天早上9点 交报告", [("set_reminder", {"text": "交报告", "when": "明天早上9点"})]),
    ("待办里加上 买洗衣液 还有 交电话费", [("add_todo", {"text": "买洗衣液"}), ("add_todo", {"text": "交电话费"})]),
    # several things to do, said to be several or listed
    ("add two things to my todo: renew car insurance, and buy stamps",
     [("add_todo", {"text": "renew car insurance"}), ("add_todo", {"text": "buy stamps"})]),
    ("帮我加两个待办：买菜、交水费", [("add_todo", {"text": "买菜"}), ("add_todo", {"text": "交水费"})]),
    # a numbered list of requests
    ("can you do two things for me: 1) remember my locker is 42 2) remind me at 5pm to call mom",
     [("remember", {"content": "my locker is 42"}), ("set_reminder", {"text": "call mom", "when": "at 5pm"})]),
    # the sum asked after a word of asking
    ("can u do 3847 divided by 13 for me", [("calculate", {"expression": "3847 / 13"})]),
    ("calc一下 (88+92+79)/3", [("calculate", {"expression": "(88+92+79)/3"})]),
])
def test_requests_amid_chat_chinese_and_lists(text, expected):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == expected


@pytest.mark.parametrize("text", [
    # one thing, however it is worded
    "add buy eggs, milk and bread to my todo list", "add a todo: call mom and dad", "帮我在待办里加个 买苹果和香蕉",
])
def test_one_thing_to_do_stays_one(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is not None and len(reflex.calls) == 1 and reflex.calls[0].name == "add_todo"


def test_a_spaced_request_keeps_its_object_and_the_talk_before_a_time_stays():
    assert reflexes.clauses("今天开会被老板点名了，心累。帮我往todo里塞一个 准备季度汇报PPT")[-1] == "帮我往todo里塞一个 准备季度汇报PPT"
    assert reflexes.clauses("我跟你说 我女朋友不吃香菜 这个你记住哈") == ["我跟你说", "我女朋友不吃香菜", "这个你记住哈"]
    # "提醒我一下" alone asks for nothing to be reminded of
    assert reflexes.match("提醒我一下", NOW, ZONE, "zh") is None
    assert reflexes.match("提醒我一下交房租", NOW, ZONE, "zh").needs_time is not None


@pytest.mark.parametrize("text, expected", [
    # a list named after another asked for, and one more added to the list the message names
    ("show me all my reminders and my todo list too", ["list_reminders", "list_todos"]),
    ("我的提醒有哪些 还有待办", ["list_reminders", "list_todos"]),
    ("看看我的待办 然后加一条 给奶奶寄明信片", ["list_todos", "add_todo"]),
    # both lists named together (round 49's spent set showed the reminders alone)
    ("show me my todos and my reminders", ["list_reminders", "list_todos"]),
    ("list my reminders and todos", ["list_reminders", "list_todos"]), ("把我的提醒和待办都列出来", ["list_reminders", "list_todos"]),
    ("remind me to check my todo list and reminders tomorrow at 9am", ["set_reminder"]),
    ("can you show me my reminders and todos?", ["list_reminders", "list_todos"]), ("我的待办和提醒有哪些", ["list_reminders", "list_todos"]),
    # an item to add, a habit, a wish for every day (the review of 2026-12-07)
    ("add 'check todos and reminders' to my list", ["add_todo"]), ("待办里加一条：看看提醒和待办", ["add_todo"]),
])
def test_the_other_list_and_one_more_in_the_same_message(text, expected):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is not None and [c.name for c in reflex.calls] == expected


@pytest.mark.parametrize("text", ["I check my todos and reminders every morning", "I forgot to check my reminders and todos yesterday",
                                  "我每天都看看待办和提醒", "以后每天早上给我看看待办和提醒"])
def test_both_lists_named_in_passing_show_neither(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is None or not {c.name for c in reflex.calls} & {"list_reminders", "list_todos"}


def test_one_more_without_a_todo_list_named_is_not_a_todo():
    assert reflexes.match("看看我的提醒 然后加一条 明天八点开会", NOW, ZONE, "zh") is None or all(
        c.name != "add_todo" for c in reflexes.match("看看我的提醒 然后加一条 明天八点开会", NOW, ZONE, "zh").calls)


def test_a_request_that_points_at_the_talk_before_it_keeps_the_talk():
    # round 27's spent set: "这条" is what was said before it, not a memory's words
    reflex = reflexes.match("我不学吉他了 把这条删了吧", NOW, ZONE, "zh")
    assert reflex is not None and reflex.calls[0].name == "forget" and "吉他" in reflex.calls[0].arguments["what"]


@pytest.mark.parametrize("text, item", [
    ("so tired today lol. oh btw throw book flights for xmas on the todo list before i forget", "book flights for xmas"),
    ("pop milk on my list pls", "milk"),
])
def test_a_todo_put_on_the_list_in_other_words(text, item):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == [("add_todo", {"text": item})]


def test_throwing_a_party_on_the_weekend_is_no_todo():
    assert reflexes.match("throw a party on the weekend", NOW, ZONE) is None


# The review of 2026-12-05 (fresh eyes, each shown by running code)
@pytest.mark.parametrize("text, expected", [
    # the thing said before "remind me" stays in the reminder
    ("猫粮快没了 提醒我明天早上8点去买", [("set_reminder", {"text": "猫粮快没了 去买", "when": "明天早上8点"})]),
    # a count in the thing to do is no count of things
    ("帮我加个待办 买3个西瓜，要甜的", [("add_todo", {"text": "买3个西瓜，要甜的"})]),
    ("add a todo: pick up 2 things from the store, milk and eggs",
     [("add_todo", {"text": "pick up 2 things from the store, milk and eggs"})]),
    ("add two things to my todo list: call the bank and cancel the card",
     [("add_todo", {"text": "call the bank"}), ("add_todo", {"text": "cancel the card"})]),
    # a value named by a label after it
    ("我老婆生日是3月5号 帮我记住她的生日", [("remember", {"content": "我老婆生日是3月5号"})]),
    ("房东姓王 电话13911112222 帮我记住房东电话", [("remember", {"content": "房东姓王 电话13911112222"})]),
    # ...but a fact of the person's after the asking words is its own (round 50's spent set kept the clause before)
    ("我不在西湖区住了，记住我现在住滨江", [("remember", {"content": "我现在住滨江"})]),
    ("what reminders do i have, and the todo list?", [("list_reminders", {}), ("list_todos", {})]),
])
def test_the_reviews_requests(text, expected):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == expected


@pytest.mark.parametrize("text", [
    "待办里记的东西太多了", "在待办里记着呢 放心", "买猫粮 帮我加个待办", "我的待办 太多了 根本做不完", "我的提醒 一直响 好烦",
    "wipe my reminders and my todo list too",
])
def test_the_reviews_messages_that_ask_no_tool_of_code(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is None or not reflex.calls


def test_a_long_spaced_message_is_parted_in_linear_time():
    import time

    started = time.perf_counter()
    joined = reflexes.clauses("帮我加两个待办：" + "买菜 还有 " * 2600)  # one request with what it asks for
    parts = reflexes.clauses("今天 天气 不错 " * 1500)
    # (a generous bound: the quadratic parting took seconds at a third of this length)
    assert len(joined) == 1 and len(parts) == 4500 and time.perf_counter() - started < 2


def test_two_lists_shown_together_each_under_its_heading():
    # tried on the page (2026-12-05): "#1 Mon 08:00: 挪车" and "1. 整理发票" read as one list
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=ScriptedModel(["unused"]), scheduler="off")
    conversation = app.new_conversation()
    list(app.agent.run(conversation, "add a todo: buy milk"))
    list(app.agent.run(conversation, "remind me tomorrow at 9am to call mom"))
    both = [e for e in app.agent.run(conversation, "show me all my reminders and my todo list too")
            if isinstance(e, Reply)][-1].text
    alone = [e for e in app.agent.run(conversation, "what's on my todo list?") if isinstance(e, Reply)][-1].text
    app.close()
    assert both.index("Reminders:") < both.index("call mom") < both.index("Todo list:") < both.index("buy milk")
    assert "Todo list:" not in alone and "buy milk" in alone


# Requests read beside the clause before them (round 28's spent set)
@pytest.mark.parametrize("text, expected", [
    # a request to keep that points back, beside another request, keeps the fact just before it
    ("my mechanic is called Luis, remember that. and remind me friday at 9am to call him",
     [("remember", {"content": "my mechanic is called Luis"}),
      ("set_reminder", {"text": "call him (my mechanic is called Luis)", "when": "friday at 9am"})]),
    ("我的工位号是B-1207，记住哈，然后提醒我明天上午9点交报告",
     [("remember", {"content": "我的工位号是B-1207"}), ("set_reminder", {"text": "交报告", "when": "明天上午9点"})]),
    # a time with a task after a reminder is another reminder
    ("remind me june 28 at 8am to pack and then july 2 at 7pm to unpack",
     [("set_reminder", {"text": "pack", "when": "june 28 at 8am"}), ("set_reminder", {"text": "unpack", "when": "july 2 at 7pm"})]),
    # one more thing to add where the message names the todo list, in English too; a clause of filler alone is none
    ("whats on my todo list? oh and add call the plumber", [("list_todos", {}), ("add_todo", {"text": "call the plumber"})]),
    ("show my todo list and add milk to it", [("list_todos", {}), ("add_todo", {"text": "milk"})]),
    # a reminder after what it is about keeps it
    ("作业下周三交，再提醒我后天晚上七点去交", [("set_reminder", {"text": "作业下周三交", "when": "后天晚上七点"})]),
    # ...or what the request before it names
    ("待办加一个“交水费”，再提醒我后天晚上七点去交",
     [("add_todo", {"text": "交水费"}), ("set_reminder", {"text": "交水费", "when": "后天晚上七点"})]),
    ("我侄子叫乐乐，你记一下。下周一是他生日，下周一早上九点提醒我给他发红包",
     [("remember", {"content": "我侄子叫乐乐"}), ("set_reminder", {"text": "给他发红包（下周一是他生日）", "when": "下周一早上九点"})]),
    ("put 'pick up dry cleaning' on my list and remind me tomorrow at 5pm to actually go get it",
     [("add_todo", {"text": "pick up dry cleaning"}),
      ("set_reminder", {"text": "actually go get it (pick up dry cleaning)", "when": "tomorrow at 5pm"})]),
    # a clause of filler and one request (the review of 2026-12-05)
    ("嗯。记住我喜欢吃辣", [("remember", {"content": "我喜欢吃辣"})]),
    ("yo. add milk to my todo list. ok", [("add_todo", {"text": "milk"})]),
    # the fact kept by pointing back, without the greeting before it
    ("hey so my mechanic is called Luis, remember that, and remind me tomorrow at 9am to call him",
     [("remember", {"content": "my mechanic is called Luis"}),
      ("set_reminder", {"text": "call him (my mechanic is called Luis)", "when": "tomorrow at 9am"})]),
])
def test_requests_read_beside_the_clause_before(text, expected):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == expected


@pytest.mark.parametrize("text", [
    # alone, a request pointing back is the agent's: it finds the fact by its reading, not the clause before
    "我健身房柜子号是B-217 老是忘 你帮我记住",
    # a question before a reminder is no context of it
    "is it going to rain tomorrow? and remind me at 8am to take an umbrella",
])
def test_no_clause_before_is_read_into_a_request_alone(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is None or all(c.name != "remember" for c in reflex.calls) and not any(
        "rain" in str(c.arguments.get("text", "")) for c in reflex.calls)


@pytest.mark.parametrize("text, lists", [
    ("你会设提醒吗？", False), ("提醒一下你哦，你是小龙虾不是螃蟹哈哈", False), ("提醒我一下？", False),
    ("can you even set reminders?", False), ("reminders??", True), ("my todos?", True), ("show一下我的提醒", True),
    ("我有哪些提醒", True), ("anything on my plate today", True), ("待办清单", True),
    # the review of 2026-12-05: the list's own name asks nothing; 呢, 瞅, 发我, display, gimme ask
    ("my todo list is so long it's depressing", False), ("我的待办清单太长了 好烦", False), ("我的提醒列表好乱", False),
    ("我的提醒呢", True), ("待办给我瞅瞅", True), ("待办发我一下", True), ("display my reminders", True),
    ("gimme my reminders", True), ("list my reminders", True), ("todo list pls", True),
])
def test_a_list_is_asked_for_in_words_of_seeing_or_by_its_name_alone(text, lists):
    assert reflexes.asks_a_list(text) is lists


@pytest.mark.parametrize("text", [
    # another request before the reminder, which no reflex knows: the whole message is the model's (the review of
    # 2026-12-05)
    "帮我订个餐厅，然后提醒我晚上七点去吃饭", "text my sister happy birthday and also remind me at 9pm to call mom",
    "讲个笑话吧，然后提醒我晚上九点睡觉",
    # talk that is no context of the task, or a thing not to keep
    "今天好累，然后提醒我晚上十点睡觉", "谢谢你！另外提醒我晚上九点吃药", "今天好累，然后提醒我晚上十点给他回电话",
    "today was exhausting, and then remind me at 10pm to call him back",
    "my ex's number is 5551234, don't remember that, and remind me at 9pm to block him",
])
def test_a_reminder_keeps_no_other_request_or_talk_in_its_words(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is None or not any(
        re.search(r"餐厅|sister|笑话|好累|谢谢|5551234|exhausting", str(c.arguments)) for c in reflex.calls)


@pytest.mark.parametrize("text", [
    # a time after a reminder that is a remark about the time, not another reminder
    "remind me at 9pm to call mom, 10pm is too late for her", "remind me in 20 minutes to check the oven, 5pm works too",
    "提醒我今晚九点收拾行李，明早六点的飞机",
    # a second time with no day of its own after a reminder on another day: not set today
    "remind me tomorrow at 8am to call mom and at 5pm to call dad", "提醒我明天早上八点开会，下午三点去接孩子",
])
def test_a_time_after_a_reminder_is_another_reminder_only_with_a_task_and_its_day(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is None or len([c for c in reflex.calls if c.name == "set_reminder"]) <= 1


@pytest.mark.parametrize("text", [
    "I told you my mechanic is Luis, remember that? and remind me at 9am to call him",
    "what's on my todo list? and put the kettle on", "what's on my todo list. and add me to the family group chat",
])
def test_a_question_or_a_phrase_is_not_read_as_a_request_beside_another(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is None or not any(c.name in ("remember", "add_todo") for c in reflex.calls)


def test_a_result_after_a_list_stands_apart_from_its_last_item():
    # tried on the page (2026-12-05): "Added to the todo list: …" rendered inside the list's item "1. 交水费"
    from pet.agent.loop import plain_lines
    from pet.events import ToolCall, ToolResult

    calls = [ToolCall("list_todos", {}), ToolCall("add_todo", {"text": "call the plumber"})]
    results = [ToolResult("a", "list_todos", True, "1. 交水费"),
               ToolResult("b", "add_todo", True, "Added to the todo list: call the plumber (2 open items)")]
    shown = plain_lines(calls, results, "en")
    assert shown == "Todo list:\n1. 交水费\n\nAdded to the todo list: call the plumber (2 open items)"


def test_a_comma_between_thousands_is_no_clause_mark():
    # round 37's spent set: "what's 17% of 3,400?" was cut before 400, and the sum was asked back
    now = dt.datetime(2044, 2, 26, 10, 0, tzinfo=dt.timezone.utc)
    found = reflexes.match("what's the date today, and also what's 17% of 3,400?", now, dt.timezone.utc)
    assert found is not None and [(c.name, c.arguments) for c in found.calls] == [
        ("get_current_time", {}), ("calculate", {"expression": "17 / 100 * 3400"})]
    assert reflexes.clauses("add milk,eggs to my todo list")[0] == "add milk"  # a comma between words still is


@pytest.mark.parametrize("text, item", [
    # the list named in English before a Chinese request (round 37's spent set: nothing was added)
    ("todo 加一个：给妈妈打电话", "给妈妈打电话"), ("todo加一条 买牛奶", "买牛奶"), ("to-do 加个：交水费", "交水费"),
    ("待办加个交水费", "交水费"),
])
def test_a_todo_added_with_the_list_named_in_either_language(text, item):
    now = dt.datetime(2044, 2, 26, 10, 0, tzinfo=dt.timezone.utc)
    found = reflexes.match(text, now, dt.timezone.utc)
    assert found is not None and [(c.name, c.arguments) for c in found.calls] == [("add_todo", {"text": item})]
    assert reflexes.match("todo 加起来有二十多条了", now, dt.timezone.utc) is None


@pytest.mark.parametrize("text, what", [
    # a forget asked in other words, after a reason or alone (round 39's spent set: the model answered, nothing forgotten)
    ("仓鼠送人了，关于糯米的都忘了吧", "糯米"),
    ("有关旺财的都别记了", "旺财"),
    ("我戒咖啡了，别再记着我爱喝美式了", "我爱喝美式"),
    ("不用再记着我的旧地址了", "我的旧地址"),
    ("i'm vegan now, you can forget the bit about steak", "steak"),
    ("just forget the part about my ex", "my ex"),
    ("stop remembering that i like jazz, i'm over it", "i like jazz"),
    ("you don't have to remember the gym code anymore", "the gym code"),
])
def test_a_forget_in_other_words_names_what_to_forget(text, what):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == [("forget", {"what": what})]


@pytest.mark.parametrize("text", [
    "关于那次旅行的事我都忘了", "关于他的我都忘了", "别再记着他了", "你记得关于糯米的那些吗",
    "i keep remembering that trip, it was amazing", "i dont need to remember anything today lol",
])
def test_talk_of_forgetting_in_those_words_forgets_nothing(text):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is None or "forget" not in [c.name for c in reflex.calls]


def test_one_of_the_reminders_just_listed_is_let_go_by_a_word_of_letting_go():
    reflex = reflexes.match("show me my reminders and then kill the one about the car wash", NOW, ZONE)
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == [
        ("list_reminders", {}), ("cancel_reminder", {"which": "the car wash"})]


@pytest.mark.parametrize("text, content", [("我不吃香菜的，以后记住啊", "我不吃香菜的"), ("我对芒果过敏，下次记住哦", "我对芒果过敏")])
def test_a_fact_then_remember_it_from_now_on_is_kept(text, content):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [(c.name, c.arguments) for c in reflex.calls] == [("remember", {"content": content})]


@pytest.mark.parametrize("text", ["can u remind me whats still on my todo list", "remind me whats on my todo list"])
def test_remind_me_whats_on_the_list_lists_it(text):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is not None and [c.name for c in reflex.calls] == ["list_todos"]


@pytest.mark.parametrize("text", [
    # the review of 2026-12-06: news of forgetting, someone else's words, a list that is not the reminders
    "毕业十年了，有关大学的都忘了", "喝断片了，关于昨晚的全忘了", "他失忆了，关于他老婆的都忘了",
    "老师说，关于这道题的都别记了", "朋友劝我，别再记着前任了", "我告诉自己，不要再记着那段感情了",
    "lol i told my brother, you can forget the bit about the money", "stop remembering that stuff, she told me",
    "the test got cancelled, no need to remember the formulas anymore lol",
    "which movie should i see? drop the one about the war, too sad", "we had three drafts. nix the one about the dog",
    "又忘带钥匙了，下次一定要记住啊", "老师说这个公式很重要，以后要记住",
])
def test_talk_near_the_new_forget_and_keep_words_asks_nothing(text):
    reflex = reflexes.match(text, NOW, ZONE)
    assert reflex is None or not {"forget", "remember", "cancel_reminder"} & {c.name for c in reflex.calls}


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize("text", ["下周六我表姐结婚，下午三点开始，好激动", "my cousin gets married next saturday, starts at 3pm!!"])
def test_a_plan_told_with_no_word_of_reminding_sets_no_reminder(text):
    # used as a person would (2026-12-07): the router alone set "下周六我表姐结婚， 开始，好激动" for 15:00 that day
    app = make_app(ScriptedModel(["好期待呀！" if "周" in text else "So exciting!"] * 3))
    events = turn(app, text)
    assert "set_reminder" not in [e.call.name for e in events if isinstance(e, ToolStarted)]


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
def test_a_reminder_asked_in_another_part_of_the_message_is_set():
    # round 44's spent set: "提醒" is in the first part only; the second, routed alone, asks to be reminded all the same
    app = make_app(ScriptedModel(["好的！"] * 3))
    events = turn(app, "先看看我有哪些提醒，然后再加一个明天晚上9点吃药的")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["list_reminders", "set_reminder"]


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
def test_the_same_plan_asked_to_be_reminded_of_sets_it_on_its_day():
    app = make_app(ScriptedModel(["好的！"] * 3))
    events = turn(app, "下周六我表姐结婚，下午三点开始，记得提醒我")
    started = [e.call for e in events if isinstance(e, ToolStarted)]
    assert [c.name for c in started] == ["set_reminder"]
    reminders = app.reminders.pending(app.pet.id)
    assert len(reminders) == 1 and reminders[0].due_at.astimezone(app.agent.persona.zone()).weekday() == 5


@pytest.mark.parametrize(("text", "forgets"), [
    # round 45's spent set: the small model called forget on forgetting told of
    ("我又忘带工牌了，被保安拦下来", False), ("forgot my work badge again lol, security stopped me", False),
    ("forget my old work badge number", True), ("工牌号那条删了吧", True),
    # (the review of 2026-12-07: ways to ask the words had missed)
    ("ignore what i said about my work badge, please", True), ("工牌的事忽略掉吧", True), ("忘了工牌那件事吧", True),
])
def test_a_models_forget_call_needs_a_word_that_lets_a_memory_go(text, forgets):
    forget = call("forget", what="工牌" if "工牌" in text else "badge")
    app = make_app(ScriptedModel([Completion(text="", tool_calls=(forget,)), "好的！" if "工" in text else "OK!"],
                                 repeat_last=True), reflexes=False)
    app.memories.remember(app.pet.id, "my work badge number is 4471, 工牌号4471")
    events = turn(app, text)
    assert ("forget" in [e.call.name for e in events if isinstance(e, ToolStarted)]) is forgets
    assert (len(app.memories.listing(app.pet.id)) == 0) is forgets


@pytest.mark.parametrize("text", ["明天早上8点别提醒我了", "明天下午3点别remind我吃药了，我已经停药了"])
def test_a_reminder_said_not_to_be_wanted_is_not_set(text):
    # the review of 2026-12-07: "别 了" was set for 8:00
    app = make_app(ScriptedModel(["好的！"], repeat_last=True))
    events = turn(app, text)
    assert "set_reminder" not in [e.call.name for e in events if isinstance(e, ToolStarted)]


@pytest.mark.parametrize("text, calls", [
    # the figure of the fact in a clause of its own, before a second request (round 46's spent tools set: no tool)
    ("记住我换了新手机号，尾号3379，另外提醒我明天下午5点去营业厅办副卡",
     [("remember", "我换了新手机号，尾号3379"), ("set_reminder", "营业厅办副卡")]),
    ("remember my new phone number, it ends in 3379, and remind me tomorrow at 5pm to get the sim",
     [("remember", "my new phone number, it ends in 3379"), ("set_reminder", "get the sim")]),
    # a remark between them goes on with nothing: it has no figure
    ("记住我喜欢吃辣，好饿啊，另外提醒我明天下午5点去营业厅", [("remember", "我喜欢吃辣"), ("set_reminder", "营业厅")]),
])
def test_the_figure_of_a_fact_kept_in_the_clause_after_it_is_kept_with_it(text, calls):
    reflex = match(text)
    assert reflex is not None
    assert [(c.name, c.arguments.get("content", c.arguments.get("text"))) for c in reflex.calls] == calls


def test_a_bare_dont_let_me_forget_after_no_fact_keeps_nothing():
    assert match("i always forget stuff, don't let me forget") is None


@pytest.mark.parametrize("text", [
    "wht do i still hav to do",  # round 46's spent set: texting's spelling asked nothing
    "我的待办清单有撒",  # 撒 for 啥
    "wut r my reminders",
])
def test_a_list_asked_for_in_texting_spelling_asks_for_a_list(text):
    assert reflexes.asks_a_list(text) and reflexes.asks_something(text)


def test_sa_typed_for_what_asks_only_in_its_places():
    assert not reflexes.asks_something("别撒娇了，快点写作业，今天的任务有好多好多没做完")
    assert not reflexes.asks_a_list("撒盐撒多了")


def test_that_day_takes_the_day_of_a_meal_said_with_its_hour():
    # round 46's spent set: reminded today at 11:00 ("中午12点一" read as a broken clock time)
    found = single_call("老樊说12月5号中午12点一起吃饭，怕我忘了，那天上午11点提醒我一下吧")
    assert found.name == "set_reminder" and found.arguments["when"] == "2026-12-05 11:00"


def test_that_days_event_ends_at_the_full_stop_after_its_time():
    # (the task was "vet appointment december 3 at 10:45am.  at 10am": the stop was in the time's span)
    found = single_call("vet appointment december 3 at 10:45am. remind me at 10am the same day so i have time to get there")
    assert found.arguments == {"text": "vet appointment december 3 at 10:45am", "when": "2026-12-03 10:00"}


def test_a_count_of_days_after_a_fact_is_no_part_of_its_value():
    # the review of 2026-12-07: "我妈生日是3月5号，2天" was kept
    found = match("记住我妈生日是3月5号，还有2天，提醒我明天下午3点买蛋糕")
    assert found is None or all("2天" not in str(c.arguments.get("content", "")) for c in found.calls)


@pytest.mark.parametrize("text", ["do i have reminders tomorrow", "do i have todos", "do i have stuff on my todo list"])
def test_do_i_have_asks_for_a_list(text):
    assert reflexes.asks_a_list(text)  # the review of 2026-12-07: "do i (?:still )?hav" stopped at the e


@pytest.mark.parametrize("text, name, arguments", [
    # round 47's spent set: the list it names, not a memory ("我清单上都有什么来着" searched the memories)
    ("我清单上都有什么来着", "list_todos", {}),
    ("我的提醒都有哪些来着", "list_reminders", {}),
    ("我的wifi密码是啥来着", "recall", {"query": "我的wifi密码是啥"}),
    # the list named "to-dos" (round 47's spent set: no tool)
    ("stick 'descale the kettle' on my to-dos", "add_todo", {"text": "descale the kettle"}),
    ("add buy milk to my to do list", "add_todo", {"text": "buy milk"}),
])
def test_requests_in_words_round_47_missed(text, name, arguments):
    found = single_call(text)
    assert (found.name, found.arguments) == (name, arguments)


@pytest.mark.parametrize("text", [
    "don't remind me about yoga tomorrow, the class got cancelled",
    "please don't remind me about the dentist",
    "stop reminding me about the dentist, i already went",
])
def test_asking_not_to_be_reminded_sets_no_reminder(text):
    reflex = match(text)
    assert reflex is None or all(c.name != "set_reminder" for c in reflex.calls) and not reflex.needs_time


@pytest.mark.parametrize("text, cancelled", [
    # round 47's spent set asked what time to remind of "don't about yoga"
    ("don't remind me about yoga tomorrow, the class got cancelled", True),
    ("stop reminding me about the dentist, i already went", True),
    # a plea of no reminder's: nothing cancelled
    ("don't remind me about my exam lol", False),
])
def test_asking_not_to_be_reminded_of_a_pending_reminder_cancels_it(text, cancelled):
    app = make_app(ScriptedModel(["(the model)"] * 4), greeting=False)
    context = app.agent._tool_context(app.current_conversation(), None, "en", "")
    for task, when in [("yoga class", "tomorrow at 6pm"), ("dentist appointment", "tomorrow at 9am")]:
        assert app.tools.execute(call("set_reminder", text=task, when=when), context).ok
    events = turn(app, text)
    calls = [e.call.name for e in events if isinstance(e, ToolStarted)]
    assert ("cancel_reminder" in calls) is cancelled and "set_reminder" not in calls
    assert len(app.reminders.pending(app.pet.id)) == (1 if cancelled else 2)
    app.close()


@pytest.mark.parametrize("text, memo", [
    ("day after tomorrow 2:15pm - call grandma ruth", True),
    ("后天下午两点 — 去邮局取包裹", True),
    ("saturday 10am: farmers market", True),
    ("tomorrow 9am - i have a meeting", False),  # told, not a note to self
    ("yesterday 3pm - dentist", False),  # gone by
    ("note: buy milk", False),  # no time
    ("tomorrow 3pm - dentist?", False),  # asked
    ("today 11pm - woke up late", False), ("后天下午两点：跑了5公里", False),  # done, not to do (the review)
])
def test_a_note_with_its_time_first_is_a_reminder(text, memo):
    assert reflexes.timed_memo(text) is memo


def test_the_clock_named_in_english_running_into_chinese():
    # round 47's spent set: "现在what time啊" was routed to the clock, then taken for talk
    assert reflexes.names_the_clock("现在what time啊") and not reflexes.names_the_clock("full-time啊")


@pytest.mark.parametrize("text, asked", [
    # the reason after a request (round 50's spent set: its words of forgetting left the router torn)
    ("老板刚说月底前要交PPT，加到我的todo里吧，不然我肯定忘", "老板刚说月底前要交PPT，加到我的todo里吧"),
    ("add milk to my list so i dont forget", "add milk to my list"),
    # no reason after a request, or a request after the reason
    ("remind me at 9pm to call mum", "remind me at 9pm to call mum"),
    ("不然我肯定忘", "不然我肯定忘"),
    ("加到todo里，不然我会忘，再提醒我明天早上8点交", "加到todo里，不然我会忘，再提醒我明天早上8点交"),
])
def test_a_request_without_the_reason_after_it(text, asked):
    assert reflexes.without_reason(text) == asked


@pytest.mark.parametrize("text", ["我已经加到待办里了", "待办里记的东西太多了", "加到待办里有什么用？"])
def test_news_of_a_list_is_no_thing_to_put_on_it(text):
    reflex = reflexes.match(text, NOW, ZONE, "zh")
    assert reflex is None or not reflex.calls


@pytest.mark.parametrize("text, plain", [
    ("老板刚说月底前要交PPT，加到我的todo里吧", True), ("别提醒我了", False), ("should I set a reminder", False),
    ("I keep forgetting to water plants", False),
])
def test_a_request_cut_from_its_reason_is_routed_only_when_asked_plainly(text, plain):
    assert reflexes.asks_plainly(text) is plain
