"""The persona's own lines for small talk (pet.persona.replies): read and
written with the persona, matched by the real sentence encoder, said in
turn, and used by the agent only when its brain is a small one."""

from __future__ import annotations

import pytest

from pet.agent import replycheck
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import PersonaError
from pet.events import Reply
from pet.persona import replies
from pet.persona.model import Replies, load_persona, parse_persona, persona_data
from pet.persona.save import dumps

pytestmark = pytest.mark.real_encoder

SLEEPY = Replies("sleepy",
                 {"zh": ("好困啊", "困死了眼睛都睁不开", "我快睡着了"),
                  "en": ("so sleepy", "can barely keep my eyes open", "i'm falling asleep here")},
                 {"zh": ("困了就眯一会儿，钳钳帮你看着！", "打个哈欠……本钳也困了。"),
                  "en": ("Take a nap, I'll guard the screen!", "Yawn… now you've got me sleepy too.")})
JOKE = Replies("joke",
               {"zh": ("讲个笑话", "给我说个笑话呗", "来个段子"),
                "en": ("tell me a joke", "say something funny", "got any jokes?")},
               {"zh": ("小龙虾为什么不借钱？因为它太抠（钳）了！",),
                "en": ("Why don't crayfish share? Because they're shellfish!",)})


def _persona(extra: dict | None = None) -> dict:
    return {"id": "testpet", "species": "crayfish", "languages": ["zh", "en"],
            "name": {"zh": "小钳", "en": "Xiaoqian"}, "traits": {"zh": ["调皮"], "en": ["cheeky"]},
            "style": {"zh": "简短", "en": "short"}} | (extra or {})


def _table(topic: Replies) -> dict:
    return {"topic": topic.topic, "when": {k: list(v) for k, v in topic.when.items()},
            "say": {k: list(v) for k, v in topic.say.items()}}


def test_replies_are_read_and_written_back_with_the_persona():
    import tomllib

    persona = parse_persona(_persona({"replies": [_table(SLEEPY), _table(JOKE)]}))
    assert persona.replies == (SLEEPY, JOKE)
    assert parse_persona(tomllib.loads(dumps(persona_data(persona)))) == persona


@pytest.mark.parametrize(("table", "problem"), [
    ({"topic": "x", "when": {"zh": ["困"], "en": ["sleepy"]}}, "replies[0].say"),
    ({"topic": "x", "when": {"zh": ["困"]}, "say": {"zh": ["睡吧"], "en": ["Sleep!"]}}, "missing language 'en'"),
    ({"topic": "x", "when": {"zh": ["困"], "en": ["a"]}, "say": {"zh": ["睡"], "en": ["b"]}, "mood": 1},
     "replies[0].mood"),
])
def test_a_broken_replies_table_is_named(table, problem):
    with pytest.raises(PersonaError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        parse_persona(_persona({"replies": [table]}))


@pytest.fixture(scope="module")
def bank():
    from pet.memory import meaning

    return replies.Bank((SLEEPY, JOKE), meaning.encoder())


@pytest.mark.parametrize(("text", "topic"), [
    ("困得不行了", "sleepy"),
    ("ugh i'm so sleepy today", "sleepy"),
    ("讲个笑话给我听", "joke"),
    ("tell me something funny", "joke"),
    ("what's 12 times 7?", None),  # no small talk of the bank's
    ("我明天要去北京出差", None),
])
def test_a_message_near_one_topic_is_its_small_talk(bank, text, topic):
    found = bank.match(text)
    assert (found.replies.topic if found else None) == topic


def test_lines_are_said_in_turn_never_the_one_said_last():
    first = replies.line(SLEEPY, "zh", "好困")
    assert first in SLEEPY.say["zh"]
    assert replies.line(SLEEPY, "zh", "好困") == first  # the same words, the same line
    other = replies.line(SLEEPY, "zh", "好困", said=[first])
    assert other in SLEEPY.say["zh"] and other != first
    assert replies.line(JOKE, "zh", "讲笑话", said=list(JOKE.say["zh"])) == JOKE.say["zh"][0]  # all said: again
    assert replies.line(SLEEPY, "fr", "zzz") is None


def test_no_line_of_the_default_pet_claims_an_action():
    from pet.agent.guards import claimed_actions
    from pet.persona.model import load_persona

    persona = load_persona("xiaoqian")
    said = [line for topic in persona.replies for lines in topic.say.values() for line in lines]
    assert len(said) > 100 and [line for line in said if claimed_actions(line)] == []
    # and a line that would is never said: "Got it, I'll remember" after a "thanks" ran no tool
    claiming = Replies("thanks", {"en": ("thanks",)}, {"en": ("Got it, I'll remember that!", "Anytime!")})
    for text in ("thanks", "thank you", "thx"):
        assert replies.line(claiming, "en", text, fits=lambda line: not claimed_actions(line)) == "Anytime!"


def _app(canned: str, answers: list[str]):
    model = ScriptedModel(answers)
    return build(load_settings({"canned_replies": canned, "greeting": False}), brain=model, scheduler="off"), model


def test_the_agent_answers_small_talk_in_the_persona_s_own_lines_when_told_to():
    app, model = _app("on", ["(the model)"])
    persona = app.agent.persona
    sleepy = next(r for r in persona.replies if r.topic == "sleepy")
    conversation = app.new_conversation()
    reply = [e for e in app.agent.run(conversation, "好困啊，眼睛都睁不开了") if isinstance(e, Reply)][-1]
    again = [e for e in app.agent.run(conversation, "好困啊，眼睛都睁不开了") if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in sleepy.say["zh"] and again.text in sleepy.say["zh"]
    assert again.text != reply.text  # not the same line twice in a row
    assert model.calls == []  # no model call at all


def test_an_own_line_never_says_the_message_back():
    # the spent chat set of round 19: "Good morning! Did you sleep well?" to "good morning!! did you sleep ok"
    app, model = _app("on", ["(the model)"] * 4)
    text = "good morning!! did you sleep ok"
    lines = []
    for _ in range(3):
        reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
        lines.append(reply.text)
    app.close()
    assert "Good morning! Did you sleep well?" not in lines
    assert replies.line(next(r for r in app.agent.persona.replies if r.topic == "good_morning"), "en", text,
                        fits=lambda line: True) == "Good morning! Did you sleep well?"  # without the rule it would be


def test_with_own_lines_off_the_model_answers():
    app, model = _app("off", ["困了就睡吧～"])
    reply = [e for e in app.agent.run(app.new_conversation(), "好困啊，眼睛都睁不开了") if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text == "困了就睡吧～" and len(model.calls) == 1


@pytest.mark.parametrize("text", ["我喜欢吃什么呀？", "who am i?"])
def test_a_question_about_the_person_near_one_about_the_pet_gets_no_own_line(text):
    """"我喜欢吃什么" is near the example "你喜欢吃什么" (what the pet eats): it asks about the person."""
    app, _ = _app("on", ["（模型）"] * 4)
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    lines = {line.replace("{name}", name) for topic in app.agent.persona.replies
             for lines in topic.say.values() for line in lines for name in app.agent.persona.name.values()}
    app.close()
    assert reply.text not in lines


@pytest.mark.parametrize("text", [
    # with "remind me"/来着, which otherwise ask what it knows of the person (round 13's chat set: the model
    # answered "I'm Xiaoqians", "你的名字是 Xiaoqian")
    "wait remind me what im supposed to call you", "欸 你名字是啥来着 我又忘了",
])
def test_a_question_about_the_pets_name_again_gets_its_own_line_with_the_name(text):
    app, model = _app("on", ["(the model)"] * 4)
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    persona = app.agent.persona
    app.close()
    assert model.calls == []
    assert persona.name["en"] in reply.text or persona.name["zh"] in reply.text


@pytest.mark.parametrize("text", [
    "what's my name again?",
    # a name mentioned, not the pet's asked (found by a review: any name-ish message got the name line)
    "my new kitten doesn't have a name yet, any ideas?", "我不知道该跟谁说话，好难过",
    "who are you rooting for in the final tonight?",
])
def test_a_message_that_does_not_ask_the_pets_name_gets_no_line_about_it(text):
    answer = "（模型说的话）" if text.isascii() is False else "(what the model said)"
    app, model = _app("on", [answer] * 4)
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text == answer and len(model.calls) == 1


@pytest.mark.parametrize("text, language", [
    # tried on the page (2026-12-05): the small model made up a "Reminders section of your workspace folder"
    ("how do reminders even work on your end, like do u stay awake waiting?", "en"),
    ("提醒是怎么弄的 我关了网页还会提醒吗", "zh"),
])
def test_how_reminders_work_is_told_as_they_do(text, language):
    app, model = _app("on", ["(the model)"])
    lines = next(r for r in app.agent.persona.replies if r.topic == "how_reminders_work").say[language]
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in lines and model.calls == []


@pytest.mark.parametrize("text", ["本来想周末去爬山的……算了，太累了", "本来打算这周末去露营的……算了，下雨",
                                  "was gonna go camping this weekend... nah, forget it"])
def test_a_trip_given_up_gets_no_wish_for_a_good_trip(text):
    # used as a person would (2026-12-05): "本来想周末去爬山的……算了，太累了" got "听着就好玩！你最期待哪一部分？"
    app, _ = _app("on", ["(the model)"] * 3)
    trips = next(r for r in app.agent.persona.replies if r.topic == "plans_and_trips")
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text not in trips.say["zh"] + trips.say["en"]


@pytest.mark.parametrize(("text", "topic"), [
    # round 35's spent chat set: homesick and low got "挺好的！就是壳有点痒" (how_are_you, the loose topic)
    ("今天突然特别想家", "lonely"),
    ("今天心情有点低落", "sad"),
    # ...while coming home and asking how the pet is keep theirs
    ("终于到家了", "back_home"),
    ("今天心情如何", "how_are_you"),
])
def test_the_default_pets_topics_tell_missing_home_and_a_low_mood(text, topic):
    found = replies.bank(load_persona("xiaoqian")).match(text)
    assert found is not None and found.replies.topic == topic


@pytest.mark.parametrize(("text", "topic"), [
    # everyday talk the small model only said back in other words ("雾霾好大，出门啥也看不清" → "雾霾太大了，出行啥都看不清楚。",
    # round 44's spent chat set): topics of their own since
    ("外面雾霾好重，什么都看不清", "gloomy_weather"), ("the fog is so thick this morning", "gloomy_weather"),
    ("终于熬到周五了！", "weekend"), ("tgif!!! no work tomorrow", "weekend"),
    ("下班去健身房练了一个小时", "exercise"), ("went for a long run this morning", "exercise"),
    ("还在图书馆复习，明天考试", "studying"), ("cramming for finals all night", "studying"),
    ("第一次自己包饺子，包得好丑", "cooking"), ("tried baking bread today", "cooking"),
    ("刚买了双新球鞋", "something_new"), ("my new laptop just arrived", "something_new"),
    ("小钳你真是太可爱了", "affection"), ("you're the sweetest little crayfish", "affection"),
    ("我去开会了，回头聊", "gotta_go"), ("gtg, talk to you later", "gotta_go"),
    ("最近在追一部新剧，太上头了", "watching_and_games"), ("playing games with my friends tonight", "watching_and_games"),
    # questions about the pet itself, which went to the model (spent chat sets of many rounds)
    ("你到底是龙虾还是小龙虾啊", "what_kind"), ("wait what are you exactly? a tiny lobster?", "what_kind"),
    ("你会蜕壳吗？疼不疼", "molting"), ("do your claws hurt if you pinch someone?", "pinch"),
    ("你的钳子夹人疼不疼", "pinch"),  # (not molting, nor being sick)
    # ...while the weather's own topics keep theirs
    ("今天好冷，手都冻僵了", "cold_weather"),
])
def test_everyday_small_talk_has_a_topic_of_the_default_pet(text, topic):
    found = replies.bank(load_persona("xiaoqian")).match(text)
    assert found is not None and found.replies.topic == topic


@pytest.mark.parametrize("text", ["推荐一部好看的电影吧", "recommend me a show to binge", "红烧排骨怎么做才好吃？",
                                  "any tips for studying for finals?"])
def test_a_message_asking_for_something_made_or_found_gets_the_model_not_a_line(text):
    app, model = _app("on", ["(the model)"] * 3)
    said = [line for topic in app.agent.persona.replies for lines in topic.say.values() for line in lines]
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text not in said and model.calls


@pytest.mark.parametrize("text", ["给我讲个笑话吧", "好累，给我讲个笑话吧", "tell me a joke, im bored",
                                  "ugh long day. tell me a joke?", "被老板骂了，来个笑话安慰一下我"])
def test_a_joke_asked_for_gets_one_of_the_pets_own_whatever_comes_before_it(text):
    # "给我讲个笑话吧" is as near a joke as a pun (no lead), and "好累，…" is near nothing: both went to the model
    app, model = _app("on", ["(the model)"] * 3)
    jokes = {line for topic in app.agent.persona.replies if topic.topic in ("joke", "cold_joke")
             for lines in topic.say.values() for line in lines}
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in jokes and model.calls == []


@pytest.mark.parametrize("text", ["don't tell me a joke, i'm serious", "别给我讲笑话，我认真的",
                                  "back from work, worst day ever", "下班回来了，被老板骂了一顿"])
def test_no_joke_nor_cheerful_greeting_where_it_does_not_fit(text):
    # the review of 2026-12-07: a joke said not to be wanted got one; a bad day got "Welcome home! How was it out there?"
    app, model = _app("on", ["(the model)"] * 3)
    cheerful = {line for topic in app.agent.persona.replies if topic.topic in ("joke", "cold_joke", "back_home", "hello")
                for lines in topic.say.values() for line in lines}
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text not in cheerful


def test_a_joke_the_person_tells_is_no_joke_asked_for():
    # its clause "讲个冷笑话：有一天" is 0.85 near "讲个冷笑话": the model hears the joke out
    app, model = _app("on", ["(the model)"] * 3)
    [e for e in app.agent.run(app.new_conversation(), "讲个冷笑话：有一天，小明走着走着，就走了") if isinstance(e, Reply)]
    app.close()
    assert model.calls


@pytest.mark.parametrize(("text", "mood"), [
    ("today was great, feeling good", 1), ("今天心情很好", 1), ("我考过了！！开心到飞起", 1),
    ("what a day, i'm beat", -1), ("i'm not feeling great", -1), ("今天不开心", -1), ("今天突然特别想家", -1),
    ("终于到家了", 0), ("how are you?", 0), ("tired but happy", 0),
    # negations (the review of 2026-12-06)
    ("今天不是很开心", -1), ("身体不太舒服", -1), ("i don't feel great today", -1), ("didn't have a good day", -1),
    ("i'm not in a good mood", -1), ("我想家里的猫了", 0), ("不好意思，今天好开心", 1),
])
def test_a_messages_mood_is_read_by_its_words(text, mood):
    assert replies.mood(text) == mood


@pytest.mark.parametrize("text", ["today was great, feeling good", "feeling pretty good today"])
def test_a_glad_message_gets_no_line_of_a_low_topic(text):
    # the encoder put the first nearest "what a day, i'm beat" (tired): "You worked hard! Time to flop and do nothing."
    found = replies.bank(load_persona("xiaoqian")).match(text)
    assert found is None or replies.mood(found.example) >= 0
    assert replies.bank(load_persona("xiaoqian")).match("what a day, i'm beat").replies.topic == "tired"


@pytest.mark.parametrize(("text", "asks"), [
    ("how old are you now, in crayfish years?", True), ("what's your age", True), ("你几岁了？", True),
    ("你多大了", True), ("你多大年纪", True), ("你今年几岁", True),
    ("how old is my sister?", False), ("how old are you going to be next year", False), ("你多大的房子", False),
    ("how old are you guys' kids?", False), ("how old are you when you get your license?", False),
    ("你几岁的时候学会游泳的", False), ("小钳你多大了呀？", True),
])
def test_the_pets_age_asked(text, asks):
    assert replycheck.asks_pet_age(text) is asks


def test_the_pets_age_is_the_days_it_lived_with_the_person():
    # round 35's spent chat set: "I am 17 years old, as a crayfish." on day 365
    import datetime as dt

    app, model = _app("on", ["(the model)"] * 4)
    first = [e for e in app.agent.run(app.new_conversation(), "how old are you?") if isinstance(e, Reply)][-1].text
    start = app.agent.clock()
    app.agent.clock = lambda: start + dt.timedelta(days=365)
    later = [e for e in app.agent.run(app.new_conversation(), "你几岁了？") if isinstance(e, Reply)][-1].text
    app.agent.clock = lambda: start + dt.timedelta(days=1)
    one = [e for e in app.agent.run(app.new_conversation(), "how old r u") if isinstance(e, Reply)][-1].text
    app.close()
    assert model.calls == []
    assert "zero days" in first and "365天" in later and "for 1 day," in one


@pytest.mark.parametrize(("text", "topic"), [
    # round 37's spent chat set: the small model said "I'm glad you're feeling real!" to a grandmother's death,
    # "昨天的老猫咪走了一趟……非常高兴" to a cat's, "面试挂了一年多，这第五家公司。" to a fifth failed interview
    ("my grandma passed away last week. still doesn't feel real", "loss"), ("我家的老猫昨天走了，十五岁", "loss"),
    ("our cat had to be put to sleep this morning", "loss"), ("my uncle died on tuesday, the funeral is saturday", "loss"),
    ("didn't get the job. they went with someone internal", "setback"), ("考研没考上，差了三分", "setback"),
    ("she broke up with me over text", "setback"),
])
def test_sad_news_gets_a_line_of_its_kind_and_not_the_models(text, topic):
    app, model = _app("on", ["I'm glad to hear that!" if text.isascii() else "太好了！"] * 4)
    lines = next(r for r in app.agent.persona.replies if r.topic == topic).say
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in lines["en" if text.isascii() else "zh"] and model.calls == [], reply.text


@pytest.mark.parametrize("text", [
    # round 42's spent chat set: the small model's replies failed twice and the pet said "Got it, clamped tight:
    # senior controller baby! Tell me more?"
    "GOT THE PROMOTION!!! senior controller baby", "I PASSED MY DRIVING TEST ON THE FOURTH TRY",
    "我中了公司年会一等奖，一台洗碗机哈哈哈", "拿到offer啦🎉",  # (the last read as adding a todo by the router)
])
def test_good_news_gets_a_glad_line_and_not_the_models(text):
    app, model = _app("on", ["(the model)"] * 4)
    lines = next(r for r in app.agent.persona.replies if r.topic == "good_news").say
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in lines["en" if text.isascii() else "zh"] and model.calls == [], reply.text


@pytest.mark.parametrize(("text", "topic"), [
    ("my little brother just got into med school!!", "happy_for_someone"), ("我闺蜜生了个女儿，我当干妈了", "happy_for_someone"),
    ("我升职了！！！", "good_news"),  # the person's own
    ("IM SO HAPPY my sister had her baby!!! im an aunt!!!", "happy_for_someone"),  # (gladness said first: round 45)
    ("我表妹叫啥？", None),  # a question about someone, no news
    # (the review of 2026-12-07) a question or a request after the news, news with a "not", bad news
    ("my sister got engaged!! what should i get her", None), ("我哥考上研究生了，推荐个礼物吧", None),
    ("my best friend isn't getting married after all", None), ("my son got into a fight at school", None),
])
def test_good_news_of_someone_else_gets_a_line_glad_for_them(text, topic):
    app, model = _app("on", ["(the model)"] * 4)
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    said = {r.topic: [line for lines in r.say.values() for line in lines] for r in app.agent.persona.replies}
    app.close()
    assert next((name for name, lines in said.items() if reply.text in lines), None) == topic, reply.text


@pytest.mark.parametrize("text", ["my coworker got promoted and i didn't", "他升职了，我没有",
                                  "I got the job! what should I wear on day one?",
                                  # a low mood near "my boss praised me today" (used as a person would: "Look at you go!")
                                  "my boss yelled at me today, forget that, let's talk about fun stuff"])
def test_news_not_the_persons_own_or_asking_more_gets_the_model(text):
    app, model = _app("on", ["(the model)"] * 4)
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert model.calls, reply.text


@pytest.mark.parametrize(("text", "language"), [("knock knock", "en"), ("咚咚咚", "zh")])
def test_a_knock_knock_joke_is_played_along_with(text, language):
    app, model = _app("on", ["(the model)"] * 4)
    lines = next(r for r in app.agent.persona.replies if r.topic == "knock_knock").say[language]
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in lines and model.calls == []


@pytest.mark.parametrize(("text", "language"), [("你喜欢我吗？", "zh"), ("你到底喜不喜欢我啊", "zh"),
                                              ("do you like me?", "en"), ("do you even like me", "en")])
def test_asked_if_it_likes_the_person_the_pet_says_so(text, language):
    # (seen on the page: "你喜欢我吗？" was read as a question for a memory, then the model said "你认为我好。")
    app, model = _app("on", ["(the model)"] * 4)
    lines = next(r for r in app.agent.persona.replies if r.topic == "affection").say[language]
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in lines and model.calls == [], reply.text


@pytest.mark.parametrize("text", [
    "passed my driving test on the third try lmao",  # near "flunked my driving test"
    "i PASSED my exam!!!! i was so sure i failed",  # a fail told of, with cheers
    "the hamster escaped again lol",  # near "my hamster died"
    "my mum's been a pharmacist at a hospital in guiyang for like thirty years",
    # (the review of 2026-12-06)
    "my dad is in hospital, they think it's a stroke", "i work in the hospital as a nurse", "my dog ran away",
    "watched a movie about a dog that died, i cried so much", "游戏挂了",
])
def test_good_or_no_news_gets_no_line_of_sad_news(text):
    app, _ = _app("on", ["(the model)"] * 4)
    sad = [line for r in app.agent.persona.replies if r.topic in ("loss", "setback")
           for lines in r.say.values() for line in lines]
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    assert not any(line in reply.text for line in sad), reply.text


def test_no_cheerful_hello_comes_before_sad_news():
    # seen on the page: "Hello! I'm Xiaoqian … nice to meet you!\n\nThat's a heavy thing to carry…"
    model = ScriptedModel(["(the model)"] * 4)
    app = build(load_settings({"canned_replies": "on", "greeting": True}), brain=model, scheduler="off")
    loss = next(r for r in app.agent.persona.replies if r.topic == "loss").say["en"]
    reply = [e for e in app.agent.run(app.new_conversation(), "my grandma passed away last night") if isinstance(e, Reply)][-1]
    app.close()
    assert reply.text in loss  # the line alone (the day's greeting is not said that day)


@pytest.mark.parametrize("text, said", [("我外婆住院了", False), ("my grandpa is sick", False),
                                        ("do your claws hurt when you pinch stuff?", True)])
def test_sad_news_of_someone_gets_no_line_of_a_glad_topic(text, said, monkeypatch):
    # round 38's chat set: "我外公今天走了" was nearest "bored" and got "要不要听钳钳讲个笑话？"; here every message is made
    # nearest that topic, and only the question to the pet may have its line
    app, _ = _app("on", ["(the model)"] * 4)
    bored = next(r for r in app.agent.persona.replies if r.topic == "bored")
    monkeypatch.setattr(replies.Bank, "match", lambda self, text, *args, **kwargs: replies.Match(bored, 0.9, 0.3))
    reply = [e for e in app.agent.run(app.new_conversation(), text) if isinstance(e, Reply)][-1]
    app.close()
    lines = bored.say["zh"] + bored.say["en"]
    assert (reply.text in lines) is said, reply.text


@pytest.mark.parametrize("text, low", [
    # a vent: words of being fed up (round 47's spent chat set said "感觉自己一事无成…" back glad)
    ("感觉自己一事无成，同龄人都买房了", True), ("honestly so fed up with this commute", True), ("今天真的离谱到家了", True),
    # ...not glad or plain words that hold a piece of one (the review of 2026-12-07)
    ("又到周末了真好", False), ("这个菜好吃到受不了", False), ("我还没用过这个功能", False), ("I jumped over it", False),
])
def test_a_vent_reads_as_a_low_mood(text, low):
    from pet.persona.replies import mood
    assert (mood(text) < 0) is low


@pytest.mark.parametrize("text, topic", [
    # near only an example in the other language (used as a person would: "do you dream at night?" got how reminders
    # work, by "你半夜也会提醒吗"; "我女儿叫什么名字来着？" the pet's name, by "name?")
    ("do you dream at night?", None), ("我女儿叫什么名字来着？", None), ("Feeling really happy today 😊", None),
    # a message in both scripts may be near either language's examples
    ("emo了", "sad"), ("ate so much 火锅 last night i can still taste it", "ate_something_good"),
    # a thing the person does no more is not the thing done ("我不熬夜了！" got a line about staying up for a show)
    ("我不熬夜了！", None),
])
def test_the_default_pets_topics_are_near_in_the_messages_own_language(text, topic):
    found = replies.bank(load_persona("xiaoqian")).match(text)
    assert (found.replies.topic if found else None) == topic


@pytest.mark.parametrize("text, example, denies", [
    ("我不熬夜了！", "熬夜追剧中", True), ("I quit smoking last month", "smoking on the balcony", True),
    ("你的钳子会不会夹人呀？", "你生气了会夹人吗", False),  # asks, denies nothing
    ("今天不开心", "今天不开心", False), ("Not crayfish, lobsters", "tell me a crayfish joke", False),
])
def test_a_thing_done_no_more_is_not_the_thing_done(text, example, denies):
    assert replies.negates(text, example) is denies
