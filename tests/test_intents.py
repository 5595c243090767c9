"""Intents as data: the example files, the router on the pet's sentence
encoder, and the turn that runs a routed intent's tool."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from pet.agent import intents, reflexes
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import Completion, Message, Reply, ToolStarted

# the router and capture are the subject: the real sentence encoder
pytestmark = [pytest.mark.real_encoder,
              pytest.mark.skipif(intents.router() is None, reason="the sentence encoder is not installed")]

NOW = dt.datetime(2026, 3, 10, 9, 0, tzinfo=dt.timezone.utc)


def test_every_example_is_nearest_its_own_intent():
    router = intents.router()
    assert router is not None
    wrong = []
    for intent in router.intents.values():
        for _, sentence in intent.examples:
            nearest = router.route(sentence).nearest
            if nearest != intent.name:
                wrong.append((intent.name, sentence, nearest))
    assert not wrong


@pytest.mark.parametrize("text", [
    "I remembered my umbrella today",  # mentions memory, asks nothing
    "我今天记得带伞了",
    "Remind me, what's your name?",
    "我忘了你叫啥了 😅",  # the pet's name, not a memory of the person
    "time flies",
    "what should I cook tonight?",
    # a question about what reminders are, not for the person's (round 24's spent tool set listed them)
    "提醒事项和闹钟有啥区别",
    "what's the diff between reminders and alarms",
    "what's the difference between reminders and alarms, explain in 2 sentences",  # a number, but no sum (review)
    # the person's own forgetting (round 25's spent tool set called forget, which found nothing)
    "lmao i forgot my own password again today, had to reset it",
    # how the pet feels about the person asks for no memory (round 43's spent chat set: "你喜欢我吗？" ran recall)
    "do you like me?", "你喜欢我吗？", "do u even like me", "你到底喜不喜欢我啊",
])
def test_small_talk_that_mentions_memory_or_time_runs_no_tool(text):
    route = intents.router().route(text)
    assert route.intent in (None, intents.CHAT, intents.NOTE)
    assert reflexes.match(text, NOW, dt.timezone.utc) is None


def test_a_message_like_no_example_is_left_to_the_model():
    # the load test's numbered messages: the linear reading, sure of itself, read one as forget
    for text in ("load c9 m2", "load c3 m17", "zx9 q2 k7"):
        route = intents.router().route(text)
        assert route.intent in (None, intents.CHAT, intents.NOTE), (text, route.intent)


@pytest.mark.parametrize("text, tool", [
    ("how late is it", "get_current_time"),
    ("这会儿几点", "get_current_time"),
    ("anything you're supposed to remind me about", "list_reminders"),
    ("read me my task list", "list_todos"),
    ("帮我看下todo清单", "list_todos"),  # "todo" inside Chinese is the to-do list, not the reminders
    ("todo上还有什么", "list_todos"),
    # "remind me what…" about the person is a memory, not the reminders (round 15's spent chat set)
    ("remind me what im saving up for?", "recall"),
    ("remind me what i have coming up", "list_reminders"),
    # a reminder called by its thing, with the reason after (round 23's spent set ran no tool)
    ("nah scrap the drill one, Sam came and grabbed it himself", "cancel_reminder"),
])
def test_requests_route_to_their_tool(text, tool):
    route = intents.router().route(text)
    assert (route.intent, route.tool) == (route.nearest, tool)


def test_a_new_intent_is_a_data_edit(tmp_path):
    (tmp_path / "en.toml").write_text(
        (intents.FOLDER / "en.toml").read_text(encoding="utf-8")
        + '\n[weather]\nslots = "none"\ntool = "get_weather"\n'
        'examples = ["will it rain tomorrow", "what is the forecast", "how cold is it outside", '
        '"do I need an umbrella today"]\n',
        encoding="utf-8",
    )
    router = intents._build(tmp_path)
    assert router is not None
    route = router.route("is it going to rain later")
    assert (route.intent, route.tool) == ("weather", "get_weather")


def test_a_bad_file_is_a_clear_error():
    with pytest.raises(ValueError, match="slots must be one of"):
        intents.parse({"en": '[time]\ntool = "get_current_time"\nslots = "magic"\nexamples = ["what time"]\n'})
    with pytest.raises(ValueError, match="needs a list of examples"):
        intents.parse({"en": '[time]\ntool = "get_current_time"\n'})


def test_the_shipped_vectors_are_current():
    files = intents._files(intents.FOLDER) | intents._linear_files(intents.FOLDER)
    encoder = intents.router().encoder
    assert intents._cached(intents.VECTORS, files, encoder) is not None, "run python -m pet.agent.intents"


def test_linear_only_examples_train_the_regression_and_are_no_nearest_examples():
    router = intents.router()
    linear = intents._linear_files(intents.FOLDER)
    sentences, labels = intents._linear_examples(linear, router.names)
    assert len(sentences) > 1000 and set(labels) >= {router.names.index(intents.NOTE)}
    cases = [e for i in intents.parse({"cases": linear["linear/cases"]}) for _, e in i.examples]
    nearest = set(router.sentences)
    assert len([s for s in cases if s not in nearest]) > 0.95 * len(cases)  # a few the sets share
    assert len(router.sentences) == sum(len(i.examples) for i in intents.parse(intents._files(intents.FOLDER)))
    # a change to them makes the saved reading stale
    changed = dict(linear, **{"linear/cases": linear["linear/cases"] + "\n# edited\n"})
    assert intents._cached(intents.VECTORS, intents._files(intents.FOLDER) | changed, router.encoder) is None



def test_slots_come_from_code_and_a_bare_fact_is_not_a_remember_request():
    zone = dt.timezone.utc
    calc = reflexes.slots("calculate", "calculate", "arithmetic", "what's 17 times 23", NOW, zone)
    assert calc is not None and calc.calls[0].arguments == {"expression": "17 * 23"}
    assert reflexes.slots("calculate", "calculate", "arithmetic", "math is hard", NOW, zone) is None
    # a sum inside more words than the reader takes whole (round 21's spent set: the model gave 1500 * 1.035)
    inside = reflexes.slots("calculate", "calculate", "arithmetic", "帮我calculate一下 1500 乘 1.035 的平方", NOW, zone)
    assert inside is not None and inside.calls[0].arguments == {"expression": "1500*1.035^2"}
    remind = reflexes.slots("remind", "set_reminder", "when", "ping me at 5pm to buy milk", NOW, zone)
    assert remind is not None and remind.calls[0].name == "set_reminder"
    assert remind.calls[0].arguments["text"] == "buy milk"
    assert reflexes.slots("remind", "set_reminder", "when", "remind me, what's your name?", NOW, zone) is None
    assert reflexes.slots("remember", "remember", "fact", "I'm allergic to cats", NOW, zone) is None
    kept = reflexes.slots("remember", "remember", "fact", "remember that my gate code is 7781", NOW, zone)
    assert kept is not None and kept.calls[0].arguments == {"content": "my gate code is 7781"}


@pytest.mark.parametrize("text, tool", [
    ("do you happen to know the hour", "get_current_time"),
    ("show me what I have on my to-do list", "list_todos"),
    ("todo?", "list_todos"), ("to-dos", "list_todos"),  # a word (round 45's spent set: "todos?" got no tool)
])
def test_a_request_no_pattern_knows_is_routed(text, tool):
    assert reflexes.match(text, NOW, dt.timezone.utc) is None
    assert intents.router().route(text).tool == tool


@pytest.mark.parametrize("text, intent", [
    # requests whose nearest examples are about as near another intent's:
    # the linear reading weighs what sets a request apart from a mention
    # ("you can delete the thing about me working night shifts, …" is a pattern's now, with its target)
    ("i quit that job, so the night shifts thing can go from your memory", "forget"),
    ("dentist got rescheduled, kill that reminder", "cancel_reminder"),
    ("我健身房柜子号是B-217 老是忘 你帮我记住", "remember"),
    ("你都知道我哪些事呀", "recall"),
])
def test_a_request_the_nearest_examples_leave_open_is_decided_by_the_linear_reading(text, intent):
    assert reflexes.match(text, NOW, dt.timezone.utc) is None
    router = intents.router()
    route = router.route(text)
    assert route.intent == intent
    if route.by == "linear":  # (a later example may bring it near enough for the examples to decide)
        chance, likeliest = router.linear(route.vector)
        assert likeliest == intent and chance >= intents.LINEAR_FLOOR


@pytest.mark.parametrize("text", [
    "my todo list is sooo long i don't even wanna look at it",
    "hmm let's not talk about the dentist thing anymore, just drop it",
    "谢谢你之前提醒我，不然我肯定忘了",
    "I'll remember that for next time, thanks",
])
def test_talk_near_a_tool_that_asks_for_nothing_stays_undecided_or_chat(text):
    route = intents.router().route(text)
    assert route.intent in (None, intents.CHAT, intents.NOTE)


def test_the_linear_reading_is_fitted_the_same_every_time_and_separates_what_it_is_shown():
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(3, 16))
    vectors = np.concatenate([c + 0.3 * rng.normal(size=(n, 16)) for c, n in zip(centres, (20, 5, 40))])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    labels = np.repeat([0, 1, 2], (20, 5, 40))
    weights, bias = intents.fit_linear(vectors, labels, 3)
    again = intents.fit_linear(vectors, labels, 3)
    assert np.array_equal(weights, again[0]) and np.array_equal(bias, again[1])
    predicted = ((vectors * intents.LINEAR_SCALE) @ weights + bias).argmax(axis=1)
    assert (predicted == labels).mean() > 0.95
    assert (predicted[labels == 1] == 1).all()  # the intent with few examples weighs as much as the others


def test_a_routed_request_runs_its_tool_without_the_model():
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model)
    events = list(app.agent.run(app.current_conversation(), "do you happen to know the hour"))
    started = [e.call.name for e in events if isinstance(e, ToolStarted)]
    assert started == ["get_current_time"]
    assert isinstance(events[-1], Reply)


def test_small_talk_reaches_the_model_without_tools():
    model = ScriptedModel(["Ha, lucky you!"])
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model)
    events = list(app.agent.run(app.current_conversation(), "good morning!"))
    assert events[-1].text.endswith("Ha, lucky you!")
    assert model.calls[0].tools == ()


@pytest.mark.parametrize("text", ["Forget it, never mind.", "算了，别管了", "forget it, the thing about my dentist"])
def test_forget_it_never_forgets(text):
    model = ScriptedModel(["好的！" if "算" in text else "Okay!"])  # a reply in the message's language
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "my dentist is Dr. Hu")
    events = list(app.agent.run(app.current_conversation(), text))
    assert not [e for e in events if isinstance(e, ToolStarted) and e.call.name == "forget"]
    assert [m.content for m in app.memories.listing(pet)] == ["my dentist is Dr. Hu"]


@pytest.mark.parametrize("guess", [
    Completion(text="I'm not sure which one."),  # no call at all
    Completion(text="", tool_calls=(call("cancel_reminder", which="#7"),)),  # an id nobody said
])
def test_a_routed_cancel_the_model_cannot_fill_finds_the_reminder_by_the_persons_words(guess, tmp_path):
    model = ScriptedModel([guess, "好的！"], repeat_last=True)
    clock = lambda: dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.timezone.utc)  # noqa: E731
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model, clock=clock)
    pet = app.agent.pet.id
    haircut = app.reminders.add(pet, "剪头发", clock() + dt.timedelta(days=1))
    dentist = app.reminders.add(pet, "看牙医", clock() + dt.timedelta(days=2))
    assert reflexes.match("剪头发那个提醒取消掉", clock(), dt.timezone.utc) is None  # the router's, not a pattern's
    events = list(app.agent.run(app.current_conversation(), "剪头发那个提醒取消掉"))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.name == "cancel_reminder" and started.arguments == {"which": "剪头发那个提醒取消掉"}
    assert [r.id for r in app.reminders.pending(pet)] == [dentist.id] != [haircut.id]


def test_a_model_that_names_an_id_the_person_saw_keeps_it(tmp_path):
    model = ScriptedModel([Completion(text="", tool_calls=(call("recall", query="#1"),)), "Here!"], repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "my dentist is Dr. Hu")
    # (a message the router reads as small talk gets no tools: a call then is not run)
    events = list(app.agent.run(app.current_conversation(), "show me memory #1"))
    started = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started and started[0].name == "recall" and started[0].arguments == {"query": "#1"}


def test_a_routed_recall_the_model_fills_with_me_asks_about_the_thing_named(tmp_path):
    model = ScriptedModel([Completion(text="", tool_calls=(call("recall", query="me"),)), "Bean!"], repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "my dog is called Bean")
    app.memories.remember(pet, "I'm allergic to peanuts")
    text = "whats my dog's name? im testing you"
    assert intents.router().route(text).intent == "recall"
    events = list(app.agent.run(app.current_conversation(), text))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.name == "recall" and "dog" in started.arguments["query"]


def test_what_do_you_know_about_me_in_any_words_lists_without_the_model(tmp_path):
    # asked for the slots, this model would copy a topic from what it knows
    model = ScriptedModel([Completion(text="", tool_calls=(call("recall", query="游戏公司"),)), "好呀！"],
                          repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "我叫阿雅，在一家游戏公司做策划")
    text = "你记得我什么？"
    assert reflexes.match(text, NOW, dt.timezone.utc) is None and intents.router().route(text).intent == "recall"
    events = list(app.agent.run(app.current_conversation(), text))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.name == "recall" and started.arguments == {"query": "你记得我什么"}
    assert "阿雅" in events[-1].text


@pytest.mark.parametrize("text, copied", [
    # seen on the page: an earlier message copied as the question's words ("no memories match '今天好累啊…'")
    ("我现在做什么工作你知道吗", "今天好累啊，加班到九点"),
    ("do you remember where I work?", "so tired, overtime until nine"),
])
def test_a_routed_recall_the_model_fills_with_an_earlier_message_asks_this_ones_question(tmp_path, text, copied):
    model = ScriptedModel([Completion(text="", tool_calls=(call("recall", query=copied),)), "好呀！"], repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    conversation = app.current_conversation()
    app.conversations.append(conversation, Message("user", copied))
    app.conversations.append(conversation, Message("assistant", "辛苦啦！"))
    app.memories.remember(app.agent.pet.id, "I work as a nurse at the children's hospital")
    assert intents.router().route(text).intent == "recall"
    events = list(app.agent.run(conversation, text))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.name == "recall" and started.arguments["query"] != copied
    assert "nurse" in events[-1].text


def test_a_routed_recall_keeps_the_models_words_for_whom_the_question_points_at(tmp_path):
    # the review of 2026-12-07: "Lily workplace" shares no word with the question, and is no earlier message copied
    model = ScriptedModel([Completion(text="", tool_calls=(call("recall", query="Lily workplace"),)), "Nice!"],
                          repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    conversation = app.current_conversation()
    app.conversations.append(conversation, Message("user", "my sister Lily just got a new job"))
    app.conversations.append(conversation, Message("assistant", "Yay for Lily!"))
    text = "do you remember where she works?"
    assert intents.router().route(text).intent == "recall"
    events = list(app.agent.run(conversation, text))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.arguments == {"query": "Lily workplace"}


def test_a_routed_todo_the_model_fills_with_words_not_said_takes_the_persons_words(tmp_path):
    # seen on a spent held-out case: the model wrote a todo nobody asked for
    model = ScriptedModel([Completion(text="", tool_calls=(call("add_todo", text="clean the closet"),)), "Done!"],
                          repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    text = "add laundry to my list of stuff to do"
    assert reflexes.match(text, NOW, dt.timezone.utc) is None
    assert intents.router().route(text).intent == "add_todo"
    events = list(app.agent.run(app.current_conversation(), text))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.name == "add_todo" and "laundry" in started.arguments["text"]


def test_a_routed_forget_the_model_fills_with_the_schemas_own_description_takes_the_persons_words(tmp_path):
    # round 38's spent set, the small model: forget "the memory's id, or words from it"
    model = ScriptedModel([Completion(text="", tool_calls=(call("forget", what="the memory's id, or words from it"),)),
                           "Done!"], repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    cello, _ = app.memories.remember(pet, "I'm learning the cello")
    tea, _ = app.memories.remember(pet, "my favourite tea is oolong")
    text = "i quit the cello, you can wipe that from memory"
    events = list(app.agent.run(app.current_conversation(), text))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.name == "forget" and "cello" in started.arguments["what"]
    assert [m.id for m in app.memories.listing(pet, status="active")] == [tea.id] != [cello.id]


@pytest.mark.parametrize("text, kept", [
    ("long day. oh and before i forget, my niece Priyanka turns six on june 14 — keep that in mind. anyway what's new "
     "with you", "my niece Priyanka turns six on june 14"),
    ("今天加班到九点累死了……对了你记着，我老板姓邱，下次我提他你别搞混。好了我去洗澡了", "我老板姓邱"),
    ("I can't remember where I left my keys. Can you believe it? So annoying.", None),
    ("remember when we went to the beach? good times. i miss it", None),
    # a saying or a moment told to keep is no fact of the person's (the review of 2026-12-06)
    ("today was ok. remember, you're my best friend", None), ("今天失恋了。记住，男人都不是好东西。哈哈哈", None),
    ("wow ok. remember this moment, i finally beat the boss level!!! so happy", None),
    ("lol my coworker keeps saying keep that in mind. it's her catchphrase. weird right", None),
])
def test_one_sentence_asking_to_keep_a_fact_among_talk_is_the_request(text, kept, tmp_path):
    # (a fact beside it stays in what is kept: "remember my anniversary is june 3. also my wife's birthday is aug 9")
    model = ScriptedModel(["Sure!"], repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    events = list(app.agent.run(app.current_conversation(), text))
    started = [e.call for e in events if isinstance(e, ToolStarted) and e.call.name == "remember"]
    if kept is None:
        assert not started
    else:
        assert len(started) == 1 and kept in started[0].arguments["content"]
        assert "what's new" not in started[0].arguments["content"] and "洗澡" not in started[0].arguments["content"]


@pytest.mark.parametrize("text, kept", [
    ("keep this in that crayfish head of yours: my locker is 42", "my locker is 42"),
    ("lock this away for me: my sister's flight lands at gate 12", "my sister's flight lands at gate 12"),
    ("这个记在你小本本上：我妈生日是腊月初八", "我妈生日是腊月初八"),
    ("记一下吧，我的工号是7781", "我的工号是7781"),
    # the opening names what the figure is: not cut off from it
    ("我的护照号你给我记牢了，E12345678", None),
    # a request of its own after the opening
    ("记一下，明天早上九点提醒我开会", None),
])
def test_a_request_to_keep_said_first_in_other_words_keeps_what_follows(text, kept, tmp_path):
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}),
                brain=ScriptedModel(["Sure!"], repeat_last=True))
    events = list(app.agent.run(app.current_conversation(), text))
    contents = [e.call.arguments["content"] for e in events if isinstance(e, ToolStarted) and e.call.name == "remember"]
    if kept is None:
        assert all(content != "E12345678" and "提醒" not in content for content in contents), contents
    else:
        assert contents == [kept]


@pytest.mark.parametrize("text, kept", [
    ("remember my anniversary is june 3. also my wife's birthday is aug 9", "wife's birthday is aug 9"),
    ("记住我老婆生日八月九号。她喜欢百合花", "百合花"),
])
def test_a_fact_beside_the_one_asked_to_be_kept_is_kept_too(text, kept, tmp_path):
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}),
                brain=ScriptedModel(["Sure!"], repeat_last=True))
    events = list(app.agent.run(app.current_conversation(), text))
    contents = " ".join(e.call.arguments.get("content", "") for e in events if isinstance(e, ToolStarted))
    assert kept in contents


@pytest.mark.parametrize("filled", ["删掉", "delete it", "forget that one"])
def test_a_routed_forget_the_model_fills_with_the_asking_alone_takes_the_persons_words(filled, tmp_path):
    # round 38's spent set, the small model: "删掉" for which memory to forget
    model = ScriptedModel([Completion(text="", tool_calls=(call("forget", what=filled),)), "好的"], repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    nickname, _ = app.memories.remember(pet, "用户的网名叫夜猫子阿杰")
    app.memories.remember(pet, "用户喜欢周杰伦")
    events = list(app.agent.run(app.current_conversation(), "那个网名我早不用了，别再记着了，删掉删掉"))
    [started] = [e.call for e in events if isinstance(e, ToolStarted)]
    assert started.name == "forget" and "网名" in started.arguments["what"]
    assert nickname.id not in [m.id for m in app.memories.listing(pet, status="active")]


@pytest.mark.parametrize("value, message, copied", [
    ("the memory's id, or words from it", "i quit the cello, you can wipe that from memory", True),
    ("words from it", "forget the thing about my ex", True),
    ("The memory's ID.", "wipe the cello one", True),
    ("cello", "i quit the cello, you can wipe that from memory", False),
    ("words from it", "forget the words from it", False),  # the person's own words
    ("it", "forget it", False),  # one word: left to the other checks
])
def test_an_argument_copied_from_the_schemas_description_is_not_the_persons(value, message, copied):
    from pet.agent.loop import description_copied

    schema = {"type": "object", "properties": {"what": {"type": "string",
                                                        "description": "the memory's id, or words from it"}},
              "required": ["what"]}
    assert description_copied(value, schema, message) is copied


@pytest.mark.parametrize("value, said, made_up", [
    ("clean the closet", ["add laundry to my list of stuff to do"], True),
    ("clean the closet", ["add the laundry to the list"], True),  # sharing only "the" is sharing nothing
    ("laundry", ["add laundry to my list of stuff to do"], False),
    ("Laundry day", ["add LAUNDRY to my list"], False),
    ("订生日蛋糕", ["todo 加个 订生日蛋糕"], False),
    ("买牛奶", ["把订机票放进待办"], True),
    ("#2", ["forget that one"], False),  # nothing to judge by: left to the id check
    ("茶", ["what do I like to drink"], False),
    # the words came earlier in the conversation: "add that" fills from it
    ("buy a new charger", ["add that to my todo list", "my phone charger broke, I need to buy a new one"], False),
    ("dentist", ["cancel it", "Reminder set: dentist appointment, Friday 10:00"], False),
])
def test_an_argument_that_shares_no_word_with_what_was_said_is_made_up(value, said, made_up):
    from pet.agent.loop import invented

    assert invented(value, said) is made_up


class _Vectors:
    """A stand-in encoder: each text's vector is given."""

    name = "stand-in"

    def __init__(self, table: dict[str, list[float]]):
        self.table = table

    def encode(self, texts):
        return np.array([self.table[text] for text in texts], dtype=np.float32)


def test_the_linear_reading_decides_only_where_the_nearest_examples_do_not_and_only_when_sure(monkeypatch):
    examples = {"ask": ["a1", "a2", "a3"], "chat": ["c1", "c2", "c3"]}
    table = {"a1": [1, 0.1, 0], "a2": [1, -0.1, 0], "a3": [0.9, 0, 0.1],
             "c1": [0, 1, 0.1], "c2": [0.1, 1, 0], "c3": [0, 0.9, -0.1],
             "leaning ask": [0.8, 0.6, 0], "halfway": [0.7, 0.7, 0]}
    table = {text: list(np.array(v) / np.linalg.norm(v)) for text, v in table.items()}
    encoder = _Vectors(table)
    found = [intents.Intent("ask", "recall", "message", tuple(("en", e) for e in examples["ask"])),
             intents.Intent("chat", None, "none", tuple(("en", e) for e in examples["chat"]))]
    router = intents.Router(found, encoder.encode(examples["ask"] + examples["chat"]), encoder)
    monkeypatch.setattr(intents, "FLOOR", 1.5)  # the nearest examples never decide here
    leaning = router.route("leaning ask")
    assert (leaning.intent, leaning.by) == ("ask", "linear")
    assert router.route("halfway").intent is None  # not sure enough
    monkeypatch.setattr(intents, "LINEAR_FLOOR", 1.01)
    assert router.route("leaning ask").intent is None
    monkeypatch.setattr(intents, "FLOOR", 0.0)
    assert router.route("leaning ask").by == "nearest"


@pytest.mark.parametrize("text, tools", [
    ("现在几点了 顺便帮我算下1280除以16", ["get_current_time", "calculate"]),
    ("what time is it rn and also whats 15% of 240", ["get_current_time", "calculate"]),
    ("我的待办有啥 顺便提醒我明晚9点过一遍", ["list_todos", "set_reminder"]),
    # one more added to the list the message names (round 30's spent set left "再加一个：买电池" to the model, which wrote
    # "buy电池")
    ("帮我把待办列出来，再加一个：取快递", ["list_todos", "add_todo"]),
])
def test_several_requests_each_understood_run_in_order_without_the_model(text, tools):
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model)
    events = list(app.agent.run(app.current_conversation(), text))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == tools
    assert isinstance(events[-1], Reply)


@pytest.mark.parametrize("text, memory, tools, todo", [
    # round 22's spent set: a question for a memory, then a to-do ("also", "顺便", "todo里") went to the model
    ("when's Arlo's birthday? also add 'buy present for Arlo' to my list", "Arlo's birthday is March 3",
     ["recall", "add_todo"], "buy present for Arlo"),
    ("我妈喜欢什么花来着？顺便todo里加个“给妈妈订花”", "我妈喜欢百合花", ["recall", "add_todo"], "给妈妈订花"),
    # ...and with "and put", which a reflex read as the to-do alone (round 37's spent set dropped the question)
    ("when is Jonah's birthday again? and put 'get Jonah a gift' on my todos", "best friend Jonah's birthday is March 12",
     ["recall", "add_todo"], "get Jonah a gift"),
    # ...and asked with "even" (the second review of 2026-12-06: the question was dropped)
    ("do you even remember my sister's name? add call Lena to my todo", "my sister's name is Lena",
     ["recall", "add_todo"], "call Lena"),
    # ...and asked again as a request between them (round 38's spent set went to the model)
    ("我房东叫啥？帮我查一下，再加个待办：给房东发消息问修热水器", "我房东姓周，叫周建国", ["recall", "add_todo"],
     "给房东发消息问修热水器"),
    ("where does my sister live? look it up, and add send Mia a postcard to my todos", "my sister Mia lives in Porto",
     ["recall", "add_todo"], "send Mia a postcard"),
])
def test_a_question_for_a_memory_and_a_todo_both_run(text, memory, tools, todo, tmp_path):
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    app.memories.remember(app.agent.pet.id, memory)
    events = list(app.agent.run(app.current_conversation(), text))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == tools
    assert memory in events[-1].text and todo in events[-1].text


def test_one_of_the_reminders_just_listed_is_cancelled_by_pointing_at_it(tmp_path):
    # round 37's spent set: "把看牙医那个取消了" was torn between forgetting and cancelling; the model answered
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet, now = app.agent.pet.id, app.clock()
    app.reminders.add(pet, "看牙医", now + dt.timedelta(days=2))
    app.reminders.add(pet, "交房租", now + dt.timedelta(days=3))
    events = list(app.agent.run(app.current_conversation(), "帮我列一下提醒，然后把看牙医那个取消了"))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["list_reminders", "cancel_reminder"]
    assert [r.text for r in app.reminders.pending(pet)] == ["交房租"]
    app.close()


@pytest.mark.parametrize("text", ["帮我列一下提醒，然后把那个订单取消了", "show me my reminders. my flight got cancelled, that one",
                                  # kept, asked about, told of (the review of 2026-12-06)
                                  "帮我列一下提醒，看牙医那个别取消", "帮我列一下提醒，然后看牙医那个不用取消了",
                                  "帮我列一下提醒，看牙医那个取消了吗？"])
def test_a_cancel_that_points_at_no_reminder_just_listed_cancels_none(text, tmp_path):
    model = ScriptedModel(["好的。" if "订单" in text else "Oh no."] * 4)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.reminders.add(pet, "看牙医", app.clock() + dt.timedelta(days=2))
    list(app.agent.run(app.current_conversation(), text))
    assert [r.text for r in app.reminders.pending(pet)] == ["看牙医"]
    app.close()


@pytest.mark.parametrize("text", [
    # a rhetorical question beside a request asks no memory (the review of 2026-12-06: each recalled)
    "who even eats peanuts anymore? add buy almonds to my todo",
    "why am I allergic to everything? add antihistamines to my todo",
])
def test_a_rhetorical_question_beside_a_request_recalls_nothing(text, tmp_path):
    # (a real question asked with "even" or "why … again" still recalls: see the second review's cases below)
    model = ScriptedModel(["Ha, fair."] * 4)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    app.memories.remember(app.agent.pet.id, "I'm allergic to peanuts")
    events = list(app.agent.run(app.current_conversation(), text))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["add_todo"]
    app.close()


@pytest.mark.parametrize("text", ["医生说取消了，把看牙医的提醒删掉吧", "cancel the dentist reminder, I do not call people on fridays"])
def test_a_cancel_asked_beside_words_of_not_cancelling_still_cancels(text, tmp_path):
    # the second review of 2026-12-06: a quoted cancel or a "not" elsewhere blocked the request
    model = ScriptedModel(["OK."] * 4)
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.reminders.add(pet, "看牙医" if "看牙医" in text else "dentist", app.clock() + dt.timedelta(days=2))
    list(app.agent.run(app.current_conversation(), text))
    assert app.reminders.pending(pet) == []
    app.close()


def test_several_requests_where_one_is_not_understood_go_to_the_model():
    model = ScriptedModel(["Let me think about that."])
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model)
    events = list(app.agent.run(app.current_conversation(), "what time is it, and then write me a poem about rain"))
    assert model.calls, "the model decides when a clause is no request the pet understands"
    assert isinstance(events[-1], Reply)


def test_several_requests_one_routed_one_read_by_a_reflex_both_run(tmp_path):
    """"show me my todos" is the router's, "forget the thing about boston" a reflex's: a write after
    a read, both from the person's own words."""
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "I lived in Boston")
    events = list(app.agent.run(app.current_conversation(), "show me my todos, then forget the thing about boston"))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["list_todos", "forget"]
    assert app.memories.listing(pet) == []


def test_a_routed_call_among_several_requests_waits_for_an_ok_where_the_settings_ask(tmp_path):
    model = ScriptedModel([])  # any model call would raise
    settings = {"reflexes": True, "greeting": False, "home": str(tmp_path), "confirm_tools": "always"}
    app = build(load_settings(settings), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "I lived in Boston")
    events = list(app.agent.run(app.current_conversation(), "show me my todos, then forget the thing about boston"))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["list_todos"]  # forget waits
    assert [m.content for m in app.memories.listing(pet)] == ["I lived in Boston"]
    assert "/yes" in events[-1].text


def test_a_deletion_after_the_reminders_are_listed_cancels_a_reminder(tmp_path):
    """"把取药那个删了" alone reads as forgetting; after "先看看我有哪些提醒" in one message it means
    the reminder (round 20's spent set): the reminder goes, the memory about 取药 stays."""
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "我每个月去药房取药")
    app.reminders.add(pet, "去药房取药", dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1))
    events = list(app.agent.run(app.current_conversation(), "先看看我有哪些提醒，然后把取药那个删了"))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["list_reminders", "cancel_reminder"]
    assert [m.content for m in app.memories.listing(pet)] == ["我每个月去药房取药"]
    assert app.reminders.pending(pet) == []


def test_a_todo_added_with_other_words_beside_a_request_keeps_its_item_without_quotes():
    """"再把“交工牌照片”加进待办" (round 20's spent set) went to the model: the reflex reads 加进, and the
    item is kept without its quotes."""
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model)
    events = list(app.agent.run(app.current_conversation(), "记住我的工号是 90417，再把“交工牌照片”加进待办"))
    calls = [e.call for e in events if isinstance(e, ToolStarted)]
    assert [c.name for c in calls] == ["remember", "add_todo"]
    assert calls[1].arguments == {"text": "交工牌照片"}


@pytest.mark.parametrize("text", [
    "remind me tomorrow at 5pm to call mom, and forget my mom's birthday",  # a reminder set, then a memory
    "先看看我有哪些提醒，然后把取药那条记忆删了",  # says 记忆
    "list my reminders and forget my mom's birthday",  # names what to forget, points at no reminder
])
def test_a_deletion_beside_reminders_that_means_a_memory_forgets_it(tmp_path, text):
    """The review found each of these cancelling a reminder (one the same message had just set)."""
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.memories.remember(pet, "取药: my mom's birthday is May 3")
    app.reminders.add(pet, "去药房取药", dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1))
    events = list(app.agent.run(app.current_conversation(), text))
    names = [e.call.name for e in events if isinstance(e, ToolStarted)]
    assert "cancel_reminder" not in names and names[-1] == "forget"
    assert len(app.reminders.pending(pet)) == (2 if "remind me" in text else 1)


def test_a_reminder_moved_keeps_its_words_and_is_set_only_once_cancelled(tmp_path):
    """"move the yoga reminder to friday at 7pm" (round 29's spent set asked it as cancel and set anew): the reminder
    is cancelled and set again at the new time in its own words; when no reminder is named, nothing is set."""
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    app.reminders.add(pet, "do yoga at the park", dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1))
    events = list(app.agent.run(app.current_conversation(), "move the yoga reminder to friday at 7pm"))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["cancel_reminder", "set_reminder"]
    [moved] = app.reminders.pending(pet)
    assert moved.text == "do yoga at the park"
    assert moved.due_at.astimezone(app.agent.persona.zone()).strftime("%a %H:%M") == "Fri 19:00"
    events = list(app.agent.run(app.current_conversation(), "把牙医那个提醒改到下周三上午九点"))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["cancel_reminder"]
    assert app.reminders.pending(pet) == [moved]
    assert "牙医" in events[-1].text


@pytest.mark.parametrize("text, gone", [
    # round 29's spent set: a clause drops the reminder the words before it name ("提醒删了" was searched for; "nvm"
    # dismissed the whole)
    ("小林婚礼我去不了了 那个提醒删了吧", "参加小林婚礼"),
    ("nvm about the dentist one, they moved it, drop that reminder", "dentist appointment"),
])
def test_a_reminder_dropped_by_pointing_is_the_one_named_before(text, gone, tmp_path):
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet = app.agent.pet.id
    soon = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)
    for task in ("dentist appointment", "pay the electricity bill", "去医院复查", "参加小林婚礼"):
        app.reminders.add(pet, task, soon)
    events = list(app.agent.run(app.current_conversation(), text))
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["cancel_reminder"]
    assert gone not in [r.text for r in app.reminders.pending(pet)] and len(app.reminders.pending(pet)) == 3


def test_a_reminder_moved_to_an_hour_alone_keeps_its_day_and_its_repeat(tmp_path):
    """The review of 2026-12-05: "push the yoga reminder to 7pm" of tomorrow's set it today, and a daily reminder
    moved became a one-off."""
    model = ScriptedModel([])  # any model call would raise
    app = build(load_settings({"reflexes": True, "greeting": False, "home": str(tmp_path)}), brain=model)
    pet, zone = app.agent.pet.id, app.agent.persona.zone()
    day_after = (dt.datetime.now(zone) + dt.timedelta(days=2)).replace(hour=18, minute=0, second=0, microsecond=0)
    app.reminders.add(pet, "do yoga", day_after)
    app.reminders.add(pet, "take my meds", day_after.replace(hour=20), repeat="daily")
    list(app.agent.run(app.current_conversation(), "push the yoga reminder to 7pm"))
    list(app.agent.run(app.current_conversation(), "move the meds reminder to 9pm"))
    moved = {r.text: r for r in app.reminders.pending(pet)}
    assert moved["do yoga"].due_at.astimezone(zone) == day_after.replace(hour=19)
    assert moved["take my meds"].repeat == "daily" and moved["take my meds"].due_at.astimezone(zone).hour == 21


def test_a_linear_reading_sure_of_another_intent_overrules_the_nearest_examples(monkeypatch):
    examples = {"ask": ["a1", "a2"], "chat": ["c1", "c2"]}
    table = {"a1": [1, 0.1, 0], "a2": [1, -0.1, 0], "c1": [0, 1, 0.1], "c2": [0.1, 1, 0],
             "near chat": [0.2, 0.6, 0.77], "like c1": [0, 1, 0.1]}
    table = {text: list(np.array(v) / np.linalg.norm(v)) for text, v in table.items()}
    encoder = _Vectors(table)
    found = [intents.Intent("ask", "recall", "message", tuple(("en", e) for e in examples["ask"])),
             intents.Intent("chat", None, "none", tuple(("en", e) for e in examples["chat"]))]
    sure_of_ask = (np.zeros((3, 2), dtype=np.float32), np.array([6.0, 0.0], dtype=np.float32))  # p(ask) = 0.998
    router = intents.Router(found, encoder.encode(examples["ask"] + examples["chat"]), encoder, sure_of_ask)
    route = router.route("near chat")  # the nearest examples say chat, by 0.6 or so
    assert intents.FLOOR <= route.score < intents.OVERRULED_BELOW and route.nearest == "chat"
    assert (route.intent, route.by) == ("ask", "linear")
    assert router.route("like c1").by == "nearest"  # as near an example as can be: the examples decide
    assert router.route("a1").by == "nearest"  # both agree
    monkeypatch.setattr(intents, "LINEAR_OVERRULES", 1.01)
    assert (router.route("near chat").intent, router.route("near chat").by) == ("chat", "nearest")
