"""The reply guards: each check on its own, then in the agent loop (one retry
for all guards together, then the pet's own line), with a scripted model."""

from __future__ import annotations

import logging
import re

import pytest

from pet.agent import capture, replycheck
from pet.agent.replycheck import (
    ASSISTANT,
    CATCHPHRASE,
    ECHO,
    LANGUAGE,
    NAME,
    RECITAL,
    Checker,
    asks_recall,
    assistant_speak,
    catchphrase_only,
    correction,
    is_echo,
    problems,
    restated,
    wrong_name,
)
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Reply, TextDelta
from pet.persona import replies
from pet.persona.messages import say
from pet.persona.model import load_persona

XIAOQIAN = load_persona("xiaoqian")
MEMORIES = ("我最喜欢喝乌龙茶", "我养了一只叫团子的柯基", "I have a cat called Mochi", "I work as a nurse on night shifts")


def found(reply, message="你好呀", language="zh", memories=()):
    return problems(reply, message=message, language=language, persona=XIAOQIAN, memories=memories).problems


# --- the checks ----------------------------------------------------------------------


@pytest.mark.parametrize(("reply", "language", "wrong"), [
    ("You have a bit of a penchant for whistling.", "zh", True),
    ("辛苦啦，早点休息！", "zh", False),
    ("Mochi今天乖不乖？", "zh", False),
    ("我也很开心！", "en", True),
    ("Hi! I'm 小钳 (Xiaoqian), nice to meet you.", "en", False),
    ("1921", "zh", False),  # no letters: nothing to be in the wrong language
    ("OK!", "zh", False),  # too short to judge
])
def test_language(reply, language, wrong):
    assert (LANGUAGE in found(reply, language=language)) is wrong


@pytest.mark.parametrize(("reply", "message", "wrong"), [
    ("我忘了 birthday。", "Do you remember my birthday?", True),  # seen on the page: mostly Latin letters
    ("好的好的，see you tomorrow!", "see you tomorrow!", True),
    ("Sure! Let me tell you a story about a little crayfish. 从前有一只小龙虾。", "tell me a story", False),
    ("Hi! I'm 小钳 (Xiaoqian), nice to meet you.", "who are you?", False),  # the pet's own name
    ("Mochi loves 团子! Cute.", "my cat Mochi met my friend's corgi 团子 today", False),  # the message's words
    ("生日快乐 means happy birthday!", "how do you say happy birthday in Chinese?", False),  # asked about
    ("谢谢 is thanks, easy!", "what does 谢谢 mean?", False),
])
def test_chinese_in_an_english_reply(reply, message, wrong):
    assert (LANGUAGE in found(reply, message=message, language="en")) is wrong


@pytest.mark.parametrize(("reply", "message", "echo"), [
    ("下班了，好累啊……", "下班了，好累啊……", True),
    ("下班了好累啊", "下班了，好累啊……", True),
    ("下班了，好累啊。辛苦啦！", "下班了，好累啊……", True),  # the message, then a few words
    ("I'm a bit tired.", "I'm a bit tired", True),
    ("I'm a bit tired. Me too, it's been a long day of pinching things!", "I'm a bit tired", True),
    ("辛苦啦！钳钳给你捶捶背，要不要先歇一会儿？", "下班了，好累啊……", False),
    ("Hi!", "hi", False),  # too short to be an echo: a greeting back
    ("Good morning! ☀️", "morning!! ☀️", False),
    ("Good evening!", "good evening", False),
    ("早上好！", "早上好呀～", False),
    ("好累啊，一点都不想动。", "好累啊，一点都不想动", True),
    ("Double Shift Today, My Feet Are Killing Me", "double shift today, my feet are literally killing me", True),
    ("Tired? Let's take five minutes together.", "I'm a bit tired", False),
    ("Six times seven is 42.", "six times seven?", False),  # the question restated with its answer
    ("你今天开心吗？", "你今天开心吗？", True),
    # restated: the message's words in another order, or a word changed
    ("今天搬了一天家，累死了。", "累死了，今天搬了一天家。", True),
    ("房间收拾干净了。", "我今天把房间收拾干净了。", True),
    ("I have painted your bedroom-green today!", "I painted my bedroom green today.", True),
    ("最近总觉得自己一事无成，因为最近的工作压力大。", "最近总觉得自己一事无成", True),  # the message, then a clause
    # answers that take up the message's words
    ("搬家最累了！快躺下歇歇，钳钳给你捶背～", "累死了，今天搬了一天家。", False),
    ("The capital of France is Paris.", "what's the capital of France?", False),
    ("Green! Bold choice. Does it feel like living inside a leaf now?", "I painted my bedroom green today.", False),
    ("晚上好，今天过得非常愉快！", "晚上好，今天过得咋样？", False),
    ("Six times seven, that's 42!", "six times seven?", False),  # the first clause, then the answer
    ("Got it, you love green tea and hate coffee.", "I love green tea and hate coffee", False),  # 4 of 5
    # the person's words about themselves said back as the pet's own (seen on the page)
    ("我是一个律所以的合同翻译。", "我是一家律所的翻译，主要是合同", True),
    ("我也是夜猫子，我们一起熬夜吧！", "我是个夜猫子，每天两点才睡", False),  # "me too" takes nothing
    ("I'm a crayfish, I live in your computer.", "I'm a nurse at the city hospital", False),
    ("我是小钳呀，你的宠物小龙虾！", "我是你的主人", False),
    ("My claws are tired too.", "My feet are so tired after the hike", False),
    # speaking to the person about their news takes nothing (the review found these flagged)
    ("I'm so sorry you're so tired after work today!", "I'm so tired after work today", False),
    ("I hope your interview goes well tomorrow!", "I have a job interview tomorrow", False),
    ("我知道啦，你是律所的翻译！", "我是律所的翻译", False),
    ("我好心疼你加班到这么晚！", "我加班到这么晚", False),
    # round 41's spent chat set: a short message that only acknowledges said back as the whole reply
    ("k", "k", True),
    ("嗯", "嗯", True),
    ("Knock knock!", "knock knock", True),
    ("OK!", "ok", True),
    # a greeting, a goodbye, a laugh, a wish, a pet sound or a one-word answer may come back as it came (the review of
    # 2026-12-06)
    ("heyyy", "heyyy", False),
    ("午安～", "午安", False),
    ("Bye!", "Bye", False),
    ("晚安～", "晚安", False),
    ("哈哈哈", "哈哈哈", False),
    ("lmaooo", "lmaooo", False),
    ("xD", "xD", False),
    ("新年快乐！", "新年快乐", False),
    ("Love you!", "love you", False),
    ("喵～", "喵", False),
    ("Yes!", "yes", False),
    ("42", "42", False),
    ("Sam!", "Sam", False),
    # a piece of a longer message said back is a reaction, a wish or an answer as often as an echo (the review of
    # 2026-12-07 found these refused by a rule tried for "好纠结。" to "要不要去参加同学聚会啊，好纠结")
    ("Merry Christmas!", "merry christmas little crab", False),
    ("好可爱！", "你看这只小猫好可爱", False),
    ("The blue dress!", "should i wear the red dress or the blue dress tonight", False),
    # more than the message is no echo
    ("Okay! What are you up to?", "k", False),
    ("嗯嗯，怎么啦？", "嗯", False),
    ("Who's there?", "knock knock", False),
])
def test_echo(reply, message, echo):
    assert is_echo(reply, message) is echo


@pytest.mark.parametrize("reply, message, taken", [
    # a first clause of three content words is enough (the page, 2026-12-06)
    ("I am a Nurse and work nightly, which means I have the flexibility to be in the middle of the day and not "
     "feel overwhelmed.", "I'm a nurse and I work night shifts, so I'm always tired", True),
    ("I'm a crayfish and I never sleep, but night shifts sound rough!", "I'm a nurse and I work night shifts", False),
    ("I'm a crayfish, I live in your computer, and I love you.", "I'm a nurse, I live in Leeds", False),
])
def test_the_persons_words_in_a_first_clause_are_taken_over(reply, message, taken):
    assert replycheck.takes_over(reply, message) is taken


def test_recital_is_two_memories_restated_when_not_asked():
    recital = "你最喜欢喝乌龙茶，还养了一只叫团子的柯基！"
    assert restated(recital, MEMORIES) == ["我最喜欢喝乌龙茶", "我养了一只叫团子的柯基"]
    assert RECITAL in found(recital, message="今天天气真好", memories=MEMORIES)
    # one fitting mention is what memories are for
    assert RECITAL not in found("天气这么好，泡杯乌龙茶吧？", message="今天天气真好", memories=MEMORIES)
    # asked, it may say all it knows
    assert RECITAL not in found(recital, message="你还记得我喜欢什么吗？", memories=MEMORIES)
    english = "You have a cat called Mochi and you work night shifts as a nurse!"
    assert RECITAL in found(english, message="nice weather today", language="en", memories=MEMORIES)
    assert RECITAL not in found(english, message="what do you know about me?", language="en", memories=MEMORIES)


@pytest.mark.parametrize(("message", "asks"), [
    ("你还记得我喜欢什么吗？", True), ("我的狗叫什么？", True), ("你知道我是做什么的吗", True),
    ("do you remember what I like?", True), ("what's my cat called?", True), ("what do you know about me", True),
    ("我有点累了", False), ("nice weather today", False), ("tell me a joke", False),
])
def test_recall_questions(message, asks):
    assert asks_recall(message) is asks


@pytest.mark.parametrize("reply", [
    "As an AI, I don't get tired.",
    "How can I assist you today?",
    "I'm here to help with your creative projects!",
    "I'm sorry, but I can't assist with that.",
    "Is there anything else I can help you with?",
    "作为一个AI，我没有感情。",
    "我是一个简单的AI助手，可以帮你做很多事。",  # round 30's spent chat set, with a word before what it is
    "有什么可以帮你的吗？",
    "累了？我有啥事情可以帮忙的吗？",
    "很抱歉，我无法回答这个问题。",
    "我无法提供这方面的帮助。",
    "I'm very sorry, I can only assist with text-based responses.",
    "I'm not sure what you mean. Could you please provide more context or clarify your question?",
    "请提供更多信息，我才能回答。",
    "抱歉，我没有这个功能。",
    "Sorry, I don't have that feature.",
    "I’m afraid I can’t assist with this request.",  # a typographic apostrophe (heard in a voice turn)
    "抱歉，但是作为一个人机助手，并没有情感或生命体验。",
    "As a chatbot, I can't eat noodles.",
    "I don't have feelings, but that sounds hard.",
    "Hello! How can we assist you?",  # after the code's own greeting, on the first turn of a new pet
    "We're here to help you!",
    "I'm not sure what you mean by \"lol\". Can you please clarify what you're trying to say?",
    # seen in spent chat sets (round 12 and the profiling of 2026-12-03)
    "Sure! Here is the response in English: ```json { \"name\": \"quick sync\" }```",
    "Sure! Here's a short and playful response in English: \"Hey, that's long!\"",
    "I don't have access to your personal information, but I hope you slept well.",
    "Sorry, I don't have access to real-time data.",
    # round 13's spent chat set and the page, 2026-12-03
    "Sure! I'd be happy to help you. What specific task or question do you have?",
    "Sure, I'd be happy to help you! What would you like assistance with?",
    "It's nice to see you're feeling well, and I hope this helps you get home.",
    "当然可以！请告诉我你感兴趣的话题或内容，我会尽力为你提供帮助。",
    "当然可以！你可以聊聊天，我会尽力帮助你。",
    "当然可以！请问你有什么问题或需要帮助的地方？",
    "你好，我是小钳。我是一个人工智助手，能够帮助你进行各种任务。",
    # the program's workings, after the calculator answered (the spent round 16 tools set)
    "抱歉，我没有看到工具的输出。你可以在询问时输入“19.96”来获取结果。",
    "I can't see the tool output, but it might be 19.96.",
    "The tool's result was not shown to me.",
    # round 25's spent chat set
    "Sure, I can assist you with your sleep-related questions.",
    "I can help you with any questions you have about cooking.",
    # round 26's
    "I am programmed to say that you are my special friend.", "Hello! I'm happy to assist with your day.",
    "Do you have any specific plans, or need help with something?", "我被设计成陪你聊天的。",
    # the page, 2026-12-05 (to "my sister Mei just moved to Lisbon, so jealous")
    "Sorry, I'm not sure what you mean by \"my mother Mei\" or if she moved. Could you rephrase your question?",
    # the page, 2026-12-06 (to "I'm a nurse and I work night shifts, so I'm always tired")
    "If you need any assistance with your job or your personal life, please don't hesitate to ask me.",
    "Please don't hesitate to ask me.",
])
def test_assistant_speak_and_refusals(reply):
    assert assistant_speak(reply) is not None


@pytest.mark.parametrize("reply", [
    # the small model's, to requests in round 14's spent chat set
    "当然可以！以下是一份一周减脂食谱：\n\n### 周一\n- **早餐**：燕麦粥搭配糙米面包",
    "Certainly! Here's a simple cover letter template you can use:\n\n---\n\nSubject: [Your Job Title]",
    'Sure! Here\'s what you can say:\n\n{"name": "going Camping with my friends"}',
    "Sure, here's a 5-day itinerary for Tokyo for me:\n\n1. **Day 1: Arrival**\n   - Start at your home.",
    "Sure, I can assist you with calculating your taxes. Please provide the amount you pay.",
    # the page, 2026-12-03
    "Sure! Hangzhou is a beautiful city with many parks. Here are the steps to plan your 3-day trip:\n\n1. Visit",
    # the small model's to tiredness and to a sleepless night (the spent chat sets): tips no one asked a pet for
    "Here are some tips to help you relax:\n\n1. **Take a break**: step away from work.",
    "Certainly! Below are some strategies for better sleep:\n\n- Keep a regular bedtime",
    "以下是一些缓解疲劳的建议：\n\n1. **多喝水**",
    # round 21's spent chat set: a toast written out, an itinerary in numbered bold sections inside a line
    "Sure, here's a toast message in English for your cousin: **Cheers to love!** May your days be bright.",
    "今天天气晴朗，阳光明媚，心情愉快。今天是云南七天的攻略： 1. **准备工作**：根据个人的工作需求",
    # round 24's spent chat set, to "asking my boss for friday off": a form letter with its blanks
    "Subject: Request for Friday Off Dear [Manager's Name], I hope this message finds you well.",
    "I hope you're doing well. I'm writing to ask for Friday off. Best, [Your Name]",
    "尊敬的【领导姓名】：您好！我想请周五的假。",
    "Dear [Hiring Manager], I am writing to apply.",
    # the page, to "lmao i forgot my own password again today, had to reset it"
    "I'm glad you remembered your own password! Here's how I reset it:\n1. Go to the \"Settings\" menu.\n2. Click on \"Security\".",
    # round 26's spent chat set: a plan by days after "here it is:"
    "Sure, here's a 3-day trip to Seoul:\nDay 1:\n- Day 1: Take a train from Seoul to Busan\n- Day 2: Take a train "
    "from Busan to Seoul\n- Day 3: Visit the palace and eat street food",
    "云南是一个非常美丽的地方，五天攻略如下：\n\n第一天：早上8:00 - 首先，要确保你已经准备好，因为你今天是云南的第五天。"
    "你可以提前下载一些云南相关书籍和资料。\n\n第二天：上午13:00 - 接下来，可以去大理古城走一走，再去洱海边骑车。",
])
def test_a_small_models_document_or_form_is_caught(reply):
    language = "zh" if reply.startswith(("当", "今", "尊", "云")) else "en"
    assert ASSISTANT in Checker("can you plan this for me?", language, XIAOQIAN, small=True).problems(reply).problems
    # a model that can write the plan may (the form's "please provide" aside)
    assert ASSISTANT not in Checker("can you plan this for me?", language, XIAOQIAN).problems(reply).problems


@pytest.mark.parametrize("reply", [
    "Sure! Here's a joke for you: why did the crayfish blush? It saw the sea weed!",
    "Sure! Here's a joke:\n\nWhy did the crayfish cross the road? To get to the other tide!",
    "Sure! Here are some cozy books you might find enjoyable.", "Your list:\n1. milk\n2. call **Mum**",
    "Here are a few ideas for dinner: tacos or noodles?", "好的！这是钳钳的秘密：我最爱水草。",
    # asked for, or play (review)
    "Sure! Here are three names for your kitten:\n1. Mochi\n2. Bean\n3. Tofu",
    # a playful plan, and ideas asked for (the review of 2026-12-05)
    "Okay! Here's my plan for the weekend: Day 1: nap under my rock. Day 2: snacks!",
    "好的，下面是我的周末计划：第一天：在石头下面睡觉！第二天：吃零食！",
    "Of course! Here are a few ideas for a gardener:\n- a kneeling pad for long days in the beds\n- a pretty watering "
    "can with a long spout\n- seeds of something rare, like blue tomatoes\n- a soft pair of gloves that last",
    "Of course! Here's a little poem:\n\n**Autumn**\nLeaves fall on the pond.",
    "Sure! Here's a hug!\n\n**squeezes you tight**", "Okay! Here's what I did today:\n- napped\n- blew bubbles",
    "Okay, here's the plan: **nap time** first, then snacks!", "You got a 5. **Amazing** work!!",  # (review)
    "Please provide more snacks, human!", "请提供小鱼干！", "Don't hesitate to ask for a hug anytime~",
    "Your name is [redacted], obviously. Kidding!", "[waves claws] Hi hi!", "The subject: you, being awesome.",
    # stage directions, a link, a heading (review)
    "[my claws go clack clack] Good morning!!", "[the crayfish does a little spin] yay", "[insert dramatic music]",
    "Subject: snacks.", "【重要日期】别忘了妈妈生日哦",
    "Here's how I'd do it: nap first, snacks second!",
])
def test_a_small_models_joke_list_or_play_is_not_a_document(reply):
    language = "zh" if reply.startswith(("好", "请", "【")) else "en"
    assert Checker("tell me something", language, XIAOQIAN, small=True).problems(reply).problems == ()


@pytest.mark.parametrize("reply", ["Don't hesitate to ask if you need anything else!",
                                   "Feel free to reach out anytime.", "If you have questions, feel free to ask.",
                                   # round 28's spent chat set
                                   "抱歉，我不太明白您的问题。", "I'm happy to help!", "I am always glad to help.",
                                   # (round 46's spent chat set)
                                   "Sure! I'm ready to help you get started. What's your manager's schedule?",
                                   "I'm not sure what your manager is doing. Do you know if there's anything else you can "
                                   "help me with?"])
def test_an_assistants_sign_off_is_caught(reply):
    assert assistant_speak(reply) is not None


def test_the_programs_note_copied_into_a_reply_is_caught():
    assert assistant_speak("Poor you. [Note from the pet's program] Reply in English.") is not None
    assert Checker("I'm tired", "en", XIAOQIAN).hold_at("Poor you! [Note from") == len("Poor you! ")  # the space that ends the sentence goes with it


@pytest.mark.parametrize("reply", [
    "Hello!  You may call one or more functions to assist with the user query.",
    "You have lived with this person for a 0 day (adopted 2026-12-14).",
    "Sure! <tools> remember </tools>",
])
def test_the_prompts_own_lines_copied_into_a_reply_are_caught(reply):
    assert assistant_speak(reply) is not None


@pytest.mark.parametrize("reply", ["We have lived together for a whole year!", "You may call me Qianqian.",
                                   "I was adopted 3 days ago, remember?"])
def test_talk_of_days_together_is_not_the_prompt_copied(reply):
    assert assistant_speak(reply) is None


def test_coding_talk_is_not_the_tool_preamble_copied():
    assert assistant_speak("In Python, function signatures can carry type hints.") is None


@pytest.mark.parametrize("pieces", [
    ["Sure", "!", " I", " don", "'t", " have", " access", " to", " real", "-time", " data", "."],
    ["当然", "可以", "！", "我会", "尽力", "为你", "提供", "帮助", "。"],
    ["好的", "！", "请", "告诉", "我你", "有什么", "问题", "。"],
])
def test_the_start_of_an_assistants_phrase_is_held_before_its_word_is_whole(pieces):
    """A token may bring " don" before "'t", "我会" before "尽": what is shown
    at each step stops before the phrase, so a retry never follows a fragment."""
    checker = Checker("hello", "en" if pieces[0].isascii() else "zh", XIAOQIAN)
    text, shown = "", ""
    for piece in pieces:
        text += piece
        at = checker.hold_at(text)
        visible = text if at is None else text[:at]
        shown = visible if len(visible) > len(shown) else shown
    assert assistant_speak(text) is not None
    assert shown in ("Sure! ", "当然可以！", "好的！", ""), shown


def test_the_persons_words_as_the_pets_own_are_held_while_streaming():
    checker = Checker("我是一家律所的翻译，主要是合同", "zh", XIAOQIAN)
    assert checker.hold_at("我是一个律所以的合同翻译。") == 0
    assert checker.hold_at("哇，你是翻译呀！合同一定很难吧？") is None


@pytest.mark.parametrize("reply", [
    "I can't wait to see you!", "我无法想象没有你的日子！", "Help! My claws are stuck.", "我在这里陪你。",
    "I can only imagine how tired you are.", "Give me more details, what happened next?",
    "他好像没有感情一样，太冷了吧！", "You don't have feelings for him anymore? That's okay.",
    "作为程序员，你每天一定很辛苦吧！", "I don't have any feelings about pineapple pizza, honestly.", "我没有感情问题啦",
    "How can we help her feel better?", "Could you clarify which fence? The blue one?",
    "Sure! Here's a joke for you: why did the crayfish blush? It saw the sea weed!",
    "Here's the thing: you deserve a nap.", "Here are some bubbles for you 🫧", "我会尽快长大的！",
    "有问题就找钳钳！", "我是你的小龙虾呀！", "我是一个爱吃的小龙虾！", "我是一只很小的小龙虾，不是助手哦", "I don't have a clue, haha!", "1. Nap. That's my whole plan.",
    "Your list:\n1. milk\n2. call **Mum**",
    "你的需求就是钳钳的命令！",
    # asked for: ideas, books, an answer, a translation (review of 2026-12-03)
    "Here are a few ideas for dinner: tacos or noodles?", "Here's the answer: 42!",
    "Here's the translation: 你好 means hello!", "Sure! Here are some cozy books you might find enjoyable.",
    "For a total beginner on hiking, here are some tips: 1. **Gather gear**",
    "I don't have access to files outside my folder.", "I don't have access to the fridge, sadly!",
    "请告诉我你有什么开心的事！", "请告诉我你需要我提醒什么～", "请告诉我你的问题，钳钳听着呢！", "我会尽力帮你记住的！",
    "没问题，钳钳记下啦，明天早上八点提醒你去超市买牛奶。",
    "I'd love to help you pick a name for the puppy!", "I hope the cake turns out great!",
    "我没看到你的新工具箱！", "I didn't see the results of the match, who won?", "没收到你的快递通知吗？",
    # help with code (review): a program's or a function's output is the person's business
    "我没有看到程序的输出呀，你把报错贴给我看看？", "I don't see the function output in your message, can you paste it?",
    "I can help you with that reminder!", "Sleep-related stuff is my specialty: I nap all day.",
    "Ugh, work-related questions at 11pm? That's so rude of your boss! 🦞",  # the review of 2026-12-04
    "My mum programmed the oven to start at 6!", "我的程序员朋友也这么说", "I was trained to sit by my owner!? No way.",
    "You need help with anything, just holler!", "haha my programming is just snack-seeking",  # (review)
    "我不太明白你说的笑话哈哈", "I'm happy to help you carry the groceries!", "I'm so happy to help you celebrate!",
    # asking back (the review of 2026-12-05)
    "呜呜抱歉，我没明白你的意思～你是说豆豆还是豆腐呀？", "I'm happy to help you pick a name! How about Mochi or Biscuit?",
])
def test_ordinary_pet_talk_is_not_assistant_speak(reply):
    assert assistant_speak(reply) is None


@pytest.mark.parametrize(("reply", "message", "wrong"), [
    ("I'm Tom.", "wait do you even have a name", True),  # seen in the chat bench
    ("是的，我叫小林。", "你有名字吗", True),
    ("我是小林。", "你是谁", True),
    ("My name is Tom, your pet crayfish!", "hello", True),  # named unasked: still wrong
    ("My name is Xiaoqian.", "what's your name?", False),
    ("你好，我是小钳（Xiaoqian）。", "我该怎么称呼你", False),
    ("叫我钳钳就好！", "你叫什么", False),  # the persona's own pet name
    ("I'm Qianqian, of course!", "who are you?", False),  # the style says it calls itself that
    ("I'm Happy to see you!", "hi there", False),  # "I'm X" is a name only when the name was asked
    ("我是你的小龙虾呀！", "你是谁", False),
    ("我是小龙虾！", "你是谁", False),  # its kind, not a name
    ("My name is Aya!", "what's my name?", False),  # the person's name, pronouns muddled: found on the page
    ("你叫阿雅呀", "我叫什么？", False),
    ("Hi! I'm Lin, a nurse.", "hi! I'm Lin, I work as a nurse", True),  # the person's name, taken: found on the page
    ("我是小林，我也喜欢猫！", "我叫小林，我喜欢猫", True),
    ("I'm Chinese too!", "I'm Chinese btw, from Chengdu", False),  # no name was given
    ("Nice to meet you, Lin! I'm Xiaoqian.", "hi! I'm Lin", False),
    ("I'm Happy you told me!", "I'm Lin", False),  # "I'm X" with X not the person's name
    ("I'm Tom!", "hey, who am I actually talking to?", True),  # the pet's name asked, not the person's
    ("Tom here!", "who am I?", False),
    ("我是阿福！", "你到底是谁", True),
    ("我是阿福！", "我在跟谁聊天呀", True),
    # its own name misspelt, asked or not (the greeting on the page once said "I'm Xiaqian")
    ("Hi there! I'm Xiaqian, your crayfish.", "hello", True),
    ("Hey hey, I'm Xiaoqin!", "yo", True),
    ("I'm Xiaoqians, a crayfish living on your computer!", "if my friend asks what ur called what do i tell her", True),
    ("My name is Xiaoqian's to keep!", "what's your name?", False),
    ("I'm Xiaolin!", "hi", False),  # another name, unasked: not a misspelling
    ("我叫Tom呀！", "你叫什么", True),  # a character after a name in letters made it "ours" (found by a review)
    ("我是小林！", "你好", False),  # in characters only the sound would tell 小钱 (a misspelling) from 小林
    # the person greeted by a name the message gives someone else
    ("Hello Lukas! How long have you two been together?", "my boyfriend is called Lukas", True),
    ("嗨，阿杰！你好呀", "我男朋友叫阿杰，他是厨师", True),
    # ...not a sentence after the greeting, a pet's name, a greeting asked for, the person's own name
    ("Hey! Lukas sounds like a keeper.", "my boyfriend is called Lukas", False),
    ("Hi, Lukas sounds lovely!", "my boyfriend is called Lukas", False),
    ("Hi Mochi! What a cute kitten!", "my cat is named Mochi", False),
    ("嗨，面条！你好呀", "我养了一只灵缇，叫面条", False),
    ("Hi Mochi! *waves claw*", "my cat is called Mochi, say hello to her", False),
    ("Hi Lukas!", "I'm Lukas. My son is also named Lukas", False),
    ("Hello Lukas! Nice to meet you.", "hi, my name is Lukas", False),  # the person's own name
    ("Hi Lukas, welcome!", "I'm Lukas, new here", False),
    ("你好，小明！", "我叫小明", False),
    ("Hello there! Lukas sounds lovely.", "my boyfriend is called Lukas", False),
])
def test_the_pet_calling_itself_another_name(reply, message, wrong):
    assert bool(wrong_name(reply, message, XIAOQIAN)) is wrong
    assert (NAME in found(reply, message=message, language=replycheck.detect_language(reply))) is wrong


def test_a_catchphrase_alone_but_not_in_a_sentence():
    assert catchphrase_only("Claws out!", XIAOQIAN)
    assert catchphrase_only("钳钳出击！本钳记住啦～", XIAOQIAN)
    assert CATCHPHRASE in found("Claws out!", message="hello there", language="en")
    assert not catchphrase_only("Claws out! Let's go find you a snack.", XIAOQIAN)


def test_the_language_correction_says_only_the_language():
    assert correction(replycheck.Found((LANGUAGE,)), "zh") == (
        "[Note from the pet's program] Reply in Simplified Chinese (简体中文) only.")
    both = correction(replycheck.Found((ECHO, ASSISTANT)), "en")
    assert "repeat" in both and "assistant" in both and "English" not in both


# --- streaming: what a check may still fail is not shown ------------------------------------


def test_hold_while_the_language_is_unclear_or_wrong():
    check = Checker("我有点累了", "zh", XIAOQIAN)
    assert check.hold_at("辛") == 0  # too few letters yet
    assert check.hold_at("You have a bit of") == 0
    assert check.hold_at("辛苦啦！早点休息") is None


def test_hold_while_it_may_be_the_message_coming_back():
    check = Checker("下班了，好累啊……", "zh", XIAOQIAN)
    assert check.hold_at("下班了，好累") == 0
    assert check.hold_at("辛苦啦，钳钳给你") is None
    assert Checker("你今天开心吗？", "zh", XIAOQIAN).hold_at("你今天开心吗？我今天") == 0  # echoed first sentence
    # a restatement is held too, until its first sentence says something of its own
    tidy = Checker("我今天把房间收拾干净了。", "zh", XIAOQIAN)
    assert tidy.hold_at("房间收拾干净了！") == 0
    assert tidy.hold_at("哇，房间干净了心情也会变好吧") is None
    assert Checker("I painted my bedroom green today.", "en", XIAOQIAN).hold_at("Green! Bold choice.") is None


def test_hold_at_the_sentence_with_assistant_speak_or_a_memory():
    check = Checker("nice weather today", "en", XIAOQIAN, MEMORIES)
    BEST = "Sunny days are the best! "  # the space that ends the sentence goes out with it
    text = "Sunny days are the best! How can I assist"
    assert check.hold_at(text) == len(BEST)
    text = "Sunny days are the best! You have a cat called Mochi"
    assert check.hold_at(text) == len(BEST)
    # an unfinished sentence that may grow into one waits for its end
    assert check.hold_at("Sunny days are the best! How can") == len(BEST)
    assert check.hold_at("Sunny days are the best! How") == len(BEST)
    assert check.hold_at("Sunny days are the best! How can you resist?") is None
    assert Checker("hello", "en", XIAOQIAN).hold_at("Claws") == 0  # may be a catchphrase alone


# --- in the agent ------------------------------------------------------------------------


def make_app(model):
    return build(load_settings({"reflexes": False}), brain=model, scheduler="off")


def run(app, text):
    return list(app.agent.run(app.new_conversation(), text))


def shown(events):
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_a_reply_in_the_wrong_language_is_retried_once_with_a_language_note(caplog):
    model = ScriptedModel(["You have a bit of a penchant for whistling.", "辛苦啦，早点休息吧！"])
    app = make_app(model)
    with caplog.at_level(logging.INFO, logger="pet.agent.loop"):
        events = run(app, "我有点累了")
    app.close()
    assert events[-1] == Reply("辛苦啦，早点休息吧！", message_id=events[-1].message_id,
                               trace_id=events[-1].trace_id)
    assert "penchant" not in shown(events)  # the person never saw it
    retry = model.calls[1].messages
    note = "[Note from the pet's program] Reply in Simplified Chinese (简体中文) only."
    assert any(note in m.content for m in retry if m.role == "system")
    assert retry[-1].content == "我有点累了"  # the person's message is still the last word
    assert "reply guard: language; retrying" in caplog.text and "我有点累了" not in caplog.text


def test_a_second_failure_gives_the_pets_own_line_in_the_right_language():
    model = ScriptedModel(["I'm sorry, but I can't assist with that.", "As an AI, I cannot feel tired."])
    app = make_app(model)
    events = run(app, "我有点累了")
    app.close()
    line = "听起来不太好受……钳钳在这儿陪你，想说就说。"  # (a low mood: with the person, not "not sure what to say")
    assert events[-1].text == line and shown(events) == line
    assert len(model.calls) == 2  # one retry, never more


def test_a_broken_off_start_stays_broken_off_and_the_pets_line_gets_its_own_paragraph():
    # the retry shows a start, then turns into assistant-speak: the start stays, marked as cut
    model = ScriptedModel(["How can I assist you today?", "You feel kind of sleepy, how can I assist you"])
    app = make_app(model)
    events = run(app, "I'm a bit sleepy after lunch")
    app.close()
    line = "Xiaoqian waves its claws, not sure what to say to that yet. Tell me a bit more?"
    assert shown(events) == events[-1].text
    assert events[-1].text.endswith("…\n\n" + line), events[-1].text
    assert "assist" not in events[-1].text


class _Holding(ScriptedModel):
    """A brain whose replies the agent shows only once checked (as the embedded one)."""

    holds_replies = True


def test_a_brain_whose_replies_are_held_shows_no_try_that_failed():
    # the same two tries as above: the broken-off start is never seen, only the pet's line
    model = _Holding(["How can I assist you today?", "You feel kind of sleepy, how can I assist you"])
    app = make_app(model)
    events = run(app, "I'm a bit sleepy after lunch")
    app.close()
    line = "Xiaoqian waves its claws, not sure what to say to that yet. Tell me a bit more?"
    assert shown(events) == events[-1].text == line
    # a reply that passes is shown whole, once
    model = _Holding(["Sunny days are the best! Perfect for a nap in the warm pond."])
    app = make_app(model)
    events = run(app, "nice weather today")
    app.close()
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert deltas == ["Sunny days are the best! Perfect for a nap in the warm pond."] == [events[-1].text]


def test_an_unfinished_self_naming_is_held_until_its_name_is_seen():
    checker = Checker("wait do you even have a name", "en", XIAOQIAN)
    assert checker.hold_at("Yes, I have one. My name is T") == len("Yes, I have one. ")
    assert checker.hold_at("Yes, I have one. I'm Xiao") == len("Yes, I have one. ")
    assert checker.hold_at("Yes, I have one. My name is Xiaoqian.") is None
    assert checker.hold_at("Yes, I have one. My name is Tom.") == len("Yes, I have one. ")
    assert Checker("你好呀", "zh", XIAOQIAN).hold_at("你好呀！我叫小") == len("你好呀！")
    # unasked too, a sentence naming the pet misspelt is not shown ("I'm…" is held to its end anyway)
    hello = Checker("hello", "en", XIAOQIAN)
    assert hello.hold_at("Hi! I'm Xia") == len("Hi! ")
    assert hello.hold_at("Hi! I'm Xiaqian, your crayfish.") == len("Hi! ")
    assert hello.hold_at("Hi! I'm Xiaoqian, your crayfish.") is None


def test_the_pet_taking_a_word_of_the_message_as_its_name_is_retried():
    # seen on the page: the greyhound's name, then the next messages' words, taken as the pet's
    assert wrong_name("面条！我是面条，一只灵缇。", "我养了一只灵缇，叫面条", XIAOQIAN)
    assert wrong_name("I'm Mochi, a fluffy cat!", "my cat is called Mochi", XIAOQIAN)
    assert wrong_name("我是小钳，一只小龙虾！", "我养了一只灵缇，叫面条", XIAOQIAN) is None
    assert wrong_name("面条真是个好名字！", "我养了一只灵缇，叫面条", XIAOQIAN) is None
    # ...or the person's name garbled (seen on the page), but not another name nor a word of one letter changed
    assert wrong_name("你好！我是阿安，一只名叫豆巴的科基。", "我叫阿宁，我养了一只叫豆包的柯基", XIAOQIAN)
    assert wrong_name("Hi! I'm Lyn, a nurse.", "hi! I'm Lin, I work as a nurse", XIAOQIAN)
    assert wrong_name("你好阿宁！我是小钳～", "我叫阿宁，我养了一只叫豆包的柯基", XIAOQIAN) is None
    assert wrong_name("我是小钳，豆包好可爱！", "我叫阿宁，我养了一只叫豆包的柯基", XIAOQIAN) is None
    model = _Holding(["面条！我是面条，一只灵缇。", "面条这名字好可爱！"])  # as the embedded brain
    app = make_app(model)
    events = run(app, "我养了一只灵缇，叫面条")
    app.close()
    assert shown(events) == "面条这名字好可爱！"


def test_the_programs_result_lines_written_by_the_model_are_retried():
    # seen on the page: after the pet noted "I'm allergic to peanuts btw", the model wrote
    # "Remembered #2: my restaurant's name is Pizza Hut."
    assert replycheck.program_line("Remembered #2: my restaurant's name is Pizza Hut.")
    assert replycheck.program_line("#12：我对花生过敏")
    assert replycheck.program_line("Saved as memory #1!") is None  # names it only
    assert replycheck.program_line("You're my #1 human!") is None and replycheck.program_line("第1名！") is None
    # a tool call written as the reply (round 32's spent chat set: "你能帮我写份请假条吗？")
    assert replycheck.program_line('当然可以，以下是一个请假条： ```json { "name": "请假条", "arguments": {')
    assert replycheck.program_line("<tool_call>") and replycheck.program_line('my name is "Xiaoqian", hi!') is None
    check = Checker("I'm allergic to peanuts btw", "en", XIAOQIAN)
    assert check.hold_at("Got it! Remembered #") == len("Got it! ")
    assert check.hold_at("Got it! Remembered #2: peanuts") == len("Got it! ")
    assert check.hold_at("Got it! No peanuts for you, promise.") is None
    model = _Holding(["Remembered #2: my restaurant's name is Pizza Hut.", "No peanuts near you, promise!"])
    app = make_app(model)
    events = run(app, "I'm allergic to peanuts btw")
    app.close()
    assert shown(events) == "No peanuts near you, promise!"


def test_the_pet_misspelling_its_own_name_is_retried():
    # seen on the page: "hi" got "I'm Xiaqian…"
    model = _Holding(["Hi hi! I'm Xiaqian, your crayfish. Claws out!", "Hi hi! Good to see you. Snack time?"])
    app = make_app(model)
    events = run(app, "hi there")
    app.close()
    assert shown(events) == "Hi hi! Good to see you. Snack time?" and "Xiaqian" not in shown(events)


def test_a_second_wrong_name_gives_the_pets_own_name_in_code():
    model = ScriptedModel(["我叫小林。", "是的，我的名字是小林。"])
    app = make_app(model)
    events = run(app, "你有名字吗")
    app.close()
    assert events[-1].text == "我叫小钳，是住在你电脑里的小龙虾！" and "小林" not in shown(events)


def test_the_pets_own_name_stands_in_only_for_a_question_about_its_name():
    twice = replycheck.Found((NAME,))
    assert replycheck.stand_in("en", XIAOQIAN, twice, "who are you?").startswith("I'm Xiaoqian")
    assert replycheck.stand_in("en", XIAOQIAN, twice, "tell me about your day") == replycheck.stand_in("en", XIAOQIAN)
    # whatever the failed reply got wrong: asked its name, the pet says it (seen on the page: a
    # question about its name got "not sure what to say to that")
    assert replycheck.stand_in("zh", XIAOQIAN, replycheck.Found((ECHO,)), "你叫什么名字？").startswith("我叫小钳")


@pytest.mark.parametrize(("message", "failing", "good", "note"), [
    ("下班了，好累啊……", "下班了，好累啊……", "辛苦啦！钳钳给你捶捶背～", "Do not repeat the person's words"),
    ("wait do you even have a name", "I'm Tom. Nice to meet you!", "I'm Xiaoqian, your crayfish!",
     "Your name is 小钳 (Xiaoqian); no other."),
])
def test_a_failing_reply_is_not_shown_and_is_retried_with_its_note(message, failing, good, note):
    """An echo of the message; the pet calling itself another name."""
    model = ScriptedModel([failing, good])
    app = make_app(model)
    events = run(app, message)
    app.close()
    assert shown(events) == good
    assert note in model.calls[1].messages[-2].content


class _Banning(ScriptedModel):
    """A brain that can ban copies (as the embedded one does): what it was asked for, per call."""

    avoids_copies = True

    def __init__(self, answers):
        super().__init__(answers)
        self.asked: list[dict] = []

    def stream(self, messages, tools=(), **kwargs):
        self.asked.append(kwargs)
        return super().stream(messages, tools)


def test_a_brain_that_bans_copies_is_asked_again_without_a_note_and_with_the_echo_banned():
    model = _Banning(["下班了，好累啊……", "辛苦啦！钳钳给你捶捶背～"])
    app = make_app(model)
    events = run(app, "下班了，好累啊……")
    app.close()
    assert shown(events) == "辛苦啦！钳钳给你捶捶背～"
    assert model.asked == [{"avoid_copies": True}, {"avoid_copies": True, "echo_run": 2}]
    # no note to copy: the retry's prompt is the first one's
    assert [m.content for m in model.calls[1].messages] == [m.content for m in model.calls[0].messages]


def test_a_brain_that_bans_copies_still_gets_the_language_note():
    model = _Banning(["You have a bit of a penchant for whistling.", "辛苦啦，早点休息吧！"])
    app = make_app(model)
    run(app, "我有点累了")
    app.close()
    assert any("Reply in Simplified Chinese" in m.content for m in model.calls[1].messages if m.role == "system")
    assert model.asked == [{"avoid_copies": True}, {"avoid_copies": True}]


def test_a_recital_is_caught_with_the_recalled_memories():
    model = ScriptedModel(["Sunny! You have a cat called Mochi and you work as a nurse on night shifts.",
                           "Sunny! Perfect for a nap in the warm pond."])
    app = make_app(model)
    for memory in ("I have a cat called Mochi", "I work as a nurse on night shifts"):
        app.memories.remember(app.pet.id, memory)
    events = run(app, "nice weather today, so sunny")
    app.close()
    assert events[-1].text.endswith("Perfect for a nap in the warm pond.")
    assert "Mochi" not in shown(events)
    assert "Do not list what you know" in model.calls[1].messages[-2].content


def test_a_catchphrase_alone_is_retried_and_a_good_first_answer_is_left_alone():
    model = ScriptedModel(["Claws out!", "Claws out! Let's find you a snack."])
    app = make_app(model)
    events = run(app, "I'm hungry")
    assert events[-1].text == "Claws out! Let's find you a snack."
    good = ScriptedModel(["Snack time! What do you fancy?"])
    app2 = make_app(good)
    assert run(app2, "I'm hungry")[-1].text == "Snack time! What do you fancy?"
    assert len(good.calls) == 1
    app.close()
    app2.close()


def test_the_claim_guard_and_the_reply_guards_share_one_retry():
    # The claim guard retries; the retried reply then fails a reply check: no third call.
    model = ScriptedModel(["I've saved that to memory!", "How can I assist you today?"])
    app = make_app(model)
    # (not a fact about the person, which would be noted and make the claim true)
    events = run(app, "what a sunny afternoon")
    app.close()
    assert len(model.calls) == 2
    assert "assist" not in shown(events)
    assert events[-1].text == "Xiaoqian waves its claws, not sure what to say to that yet. Tell me a bit more?"



@pytest.mark.parametrize("text, end", [
    ("One. Two. Three. Four", "One. Two. Three."),
    ("One. Two. Three.", None),  # no fourth sentence has begun
    ("One. Two. Three.   ", None),
    ("Wait... what! Really? Yes", "Wait... what! Really?"),  # an ellipsis ends one sentence
    ("It weighs 3.5 kg. Big! Wow. Ha", "It weighs 3.5 kg. Big! Wow."),  # a decimal point ends none
    ("一。二！三？四", "一。二！三？"),
    # a list's number ends no sentence: the reply is not cut after a bare "1." (seen on the page)
    ("Sure! Steps:\n\n1. Visit the lake.\n2. Eat", "Sure! Steps:\n\n1. Visit the lake."),
])
def test_where_the_third_sentence_ends(text, end):
    at = replycheck.end_of_sentences(text, 3)
    assert (text[:at] if at is not None else None) == end


def test_a_long_sentence_ends_the_reply_sooner():
    long = "This is a rather long sentence that goes on and on about crayfish chores. "
    text = long * 3 + "More"
    at = replycheck.end_of_sentences(text, 4, 140)
    assert text[:at] == (long * 2).strip()  # the first sentence to end past 140 letters is the last
    chinese = "今天天气很好，我们一起去池塘边晒太阳吧。" * 3 + "好"
    at = replycheck.end_of_sentences(chinese, 4, 140)
    assert chinese[:at] == "今天天气很好，我们一起去池塘边晒太阳吧。" * 3  # 20 characters weigh 60
    assert replycheck.end_of_sentences("Short. Reply. Here", 4, 140) is None


def test_the_stand_in_says_what_fits_the_message():
    assistant, echo = replycheck.Found((ASSISTANT,)), replycheck.Found((ECHO,))
    plain = replycheck.stand_in("en", XIAOQIAN)
    # a request to write something, answered with an assistant's document: the pet says it cannot
    writing = replycheck.stand_in("en", XIAOQIAN, assistant, "can you write me a workout plan for the week?")
    assert writing != plain and "claws" in writing
    assert replycheck.stand_in("zh", XIAOQIAN, assistant, "你能帮我写一份一周的健身计划吗？") != replycheck.stand_in("zh", XIAOQIAN)
    # ...not when the reply failed for something else, or the message asked nothing of the kind
    assert replycheck.stand_in("en", XIAOQIAN, echo, "can you write me a workout plan for the week?") == plain
    assert replycheck.stand_in("en", XIAOQIAN, assistant, "tell me about your day") == plain
    # after the pet noted a fact of the message: that it kept it (unless the message asks more)
    assert replycheck.stand_in("en", XIAOQIAN, echo, "my boyfriend is called Lukas", noted=True) == (
        "Got it, clamped tight! Tell me more?")
    assert replycheck.stand_in("en", XIAOQIAN, echo, "my boyfriend is called Lukas, what should I get him?",
                               noted=True) == plain
    # ...said back to the person when what it kept reads right turned around (seen on the page: the same line to
    # every self-introduction the small model answered as its own)
    assert replycheck.stand_in("en", XIAOQIAN, echo, "hi! I'm Maya, I work as a bus driver in Shenzhen", noted=True,
                               facts=["I'm Maya, I work as a bus driver in Shenzhen"]) == (
        "Got it, clamped tight: you're Maya, you work as a bus driver in Shenzhen! Tell me more?")
    assert replycheck.stand_in("zh", XIAOQIAN, echo, "我在医院当护士，天天上夜班", noted=True,
                               facts=["我在医院当护士，天天上夜班"]) == "本钳记住啦：你在医院当护士，天天上夜班！再跟我多说一点？"
    assert replycheck.stand_in("en", XIAOQIAN, echo, "i told you i like cats", noted=True,
                               facts=["i told you i like cats"]) == "Got it, clamped tight! Tell me more?"
    # small talk that makes or gives something is no request to write (found by a review)
    for message in ("give me a hug", "make a wish!", "plan a trip?", "can you give me some advice? I feel sad",
                    "我想一个人静静", "今天定个小目标", "帮我做个决定吧", "做个好梦"):
        assert replycheck.stand_in("en", XIAOQIAN, assistant, message) == plain, message


@pytest.mark.parametrize(("message", "glad"), [
    # rounds 40 to 42's spent chat sets: "Got it, clamped tight: you passed your driving test! Tell me more?"
    ("I PASSED MY DRIVING TEST ON THE FOURTH TRY", True), ("GOT THE PROMOTION!!! senior controller baby", True),
    ("got the apartment!!! the one with the big window!!", True), ("我姐生宝宝了！！我当小姨了！！", True),
    ("我中了公司年会一等奖，一台洗碗机哈哈哈", True), ("we're engaged!!", True), ("考研上岸了！", True),
    # (not someone else's, a question, a wish, a worry, sad news, a "won't")
    ("my coworker got promoted and i didn't", False), ("他升职了，我没有", False), ("did you pass your test?", False),
    ("what if i get the job", False), ("worried i won't get the promotion", False), ("my grandpa passed away", False),
    ("I won't make it tonight", False), ("she got engaged lol", False), ("我没考过", False),
    ("i PASSED my exam!!!! i was so sure i failed", False),  # a fail told of too: no line either way
    ("好想升职啊", False), ("又没升职", False), ("I hope I passed", False), ("we might get the apartment!!", False),
])
def test_good_news_is_met_gladly_when_the_model_fails_twice(message, glad):
    assert replycheck.good_news(message) is glad
    language = "en" if message.isascii() else "zh"
    line = replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), message, noted=True, facts=[message])
    assert (line == say("off_script_glad", language, XIAOQIAN)) is glad
    assert replycheck.is_stand_in(line, XIAOQIAN)


@pytest.mark.real_encoder
@pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")
def test_a_noted_fact_is_acknowledged_when_the_model_fails_twice():
    # seen on the page: "Hello Lukas! How can we assist you with your day?", then "Hi! My boyfriend
    # is called Lukas.", then "not sure what to say to that yet"
    model = ScriptedModel(["Hello Lukas! How can we assist you with your day?", "Hi! My boyfriend is called Lukas."])
    app = make_app(model)
    events = run(app, "hi! my boyfriend is called Lukas")
    app.close()
    line = "Got it, clamped tight: your boyfriend is called Lukas! Tell me more?"
    assert events[-1].text.endswith(line)
    assert "Lukas" not in shown(events).replace(line, "").replace("my boyfriend is called Lukas", "")


@pytest.mark.parametrize(("reply", "said", "repeated"), [
    # seen on the page: the pet's last line copied, word for word but a mark, to another message
    ("本钳记住啦~再跟我多说点？", ("本钳记住啦～再跟我多说一点？",), True),
    ("Got it, clamped tight! Tell me more?", ("Hi!", "Got it, clamped tight! Tell me more?"), True),
    ("Got it, clamped tight! Tell me more about your trip?", ("Got it, clamped tight! Tell me more?",), True),
    ("A long day deserves a long nap in the pond.", ("Got it, clamped tight! Tell me more?",), False),
    ("好呀", ("好呀",), False),  # too short to matter
    ("Reply two.", ("Reply one.",), False),  # short, and another word (a test of the page caught it)
    ("Once upon", ("Once upon",), False),
    ("Sounds lovely!", (), False),
    ("Heard c0 m1, snip snap.", ("Heard c0 m0, snip snap.",), False),  # another figure: something new
])
def test_the_pets_last_line_said_again_is_a_repeat(reply, said, repeated):
    assert replycheck.repeats(reply, said) is repeated
    checker = replycheck.Checker("what should I cook tonight?", replycheck.detect_language(reply), XIAOQIAN, said=said)
    assert (replycheck.REPEAT in checker.problems(reply).problems) is repeated
    if repeated:
        assert checker.hold_at(reply) == 0  # not shown while it streams


def test_a_reply_that_says_the_last_one_again_is_retried():
    model = ScriptedModel(["Ooh, tell me more!", "Ooh, tell me more!", "Fried rice, with extra egg for me!"])
    app = make_app(model)
    conversation = app.new_conversation()
    list(app.agent.run(conversation, "guess what happened today"))
    events = list(app.agent.run(conversation, "what should I cook tonight?"))
    app.close()
    assert events[-1].text == "Fried rice, with extra egg for me!"
    assert any("new words" in m.content for m in model.calls[-1].messages)  # the retry's note


@pytest.mark.parametrize(("reply", "aside"), [
    # seen on the page: the claim guard's aside from an earlier turn, copied with a word changed
    ("（其实我还没写下来。说“记下……”我就记）", True),
    ("(Actually, I haven't saved that yet. Say \"remember that …\" and I will.)", True),
    ("(Actually, no reminder is set yet.", True),
    ("其实我还没吃饭呢，你呢？", False),
    ("Actually, I love pancakes!", False),
])
def test_the_programs_aside_copied_by_the_model_is_a_program_line(reply, aside):
    assert replycheck.program_aside(reply, XIAOQIAN) is aside
    language = replycheck.detect_language(reply)
    assert (replycheck.PROGRAM in found(reply, message="帮我写一封请假邮件", language=language)) is aside


@pytest.mark.parametrize(("reply", "rules"), [
    # round 21's spent chat set: the prompt's rule said back as the reply (the judge passed both)
    ("You are the person's pet friend, not an assistant.", True),
    ("You are your pet friend, not an assistant.", True),
    ("你是他们的宠物朋友，不是助手。", True),
    ("Ha! Spend it wisely. Tools: use one only when the person asks for what it does.", True),
    ("You are the best human a crayfish could want.", False),
    ("You're the best. Spend that 1% wisely!", False),
    ("I never offer help, lol. I pinch.", False),
    # found by a review: short sentences near a short clause of the rules
    ("You are their best friend, not an enemy!", False), ("Mention it only when it fits!", False),
    ("For a chat, just talk!", False), ("Examples of your tone?", False),
])
def test_the_prompts_rules_said_back_are_a_program_line(reply, rules):
    assert (replycheck.says_its_rules(reply) is not None) is rules
    language = replycheck.detect_language(reply)
    assert (replycheck.PROGRAM in found(reply, message="my phone's at 1%", language=language)) is rules


@pytest.mark.parametrize(("reply", "copied"), [
    # round 35's spent chat set: the small model copied the prompt's clock line and days together into small talk
    ("Sure, here's the ordered way to takeout again:\n\n- 30 days together\n- 2026-12-29 10:45 (UTC+08:30)", True),
    ("Today's pavement melts on the anniversary (30 days together).", True),
    ("Training for a half marathon in October 2026-12-31 18:00 (UTC+08:01).", True),
    ("今天是特殊：一个 anniversary (365天 together)。", True),
    ("今天是星期六，上午9:30（UTC+8:00）。", True),
    # (not a story's "the person", nor an anniversary wished: the review of 2026-12-06)
    ("Once upon a time there was a lighthouse. The person was lonely there.", False),
    ("Happy anniversary (one year!)", False),
    ("We've been together 30 days now, and I love it!", False),
    ("See you at 10:45!", False), ("Happy anniversary, you!", False), ("Be a kind person today.", False),
])
def test_the_prompts_clock_and_days_together_copied_are_a_program_line(reply, copied):
    assert (replycheck.copies_prompt_facts(reply) is not None) is copied
    language = replycheck.detect_language(reply)
    assert (replycheck.PROGRAM in found(reply, message="so hot today the pavement is melting",
                                        language=language)) is copied


@pytest.mark.parametrize(("message", "reply", "leaks"), [
    # round 42's spent chat set, the small model: a memory's line of the prompt with its label, the prompt as a
    # document it was given
    ("double shift again, eyes feel like sandpaper", "The person said: Training for a half-marath in October", True),
    ("what do you call a crayfish who won't share? shellfish. ok i'll see myself out",
     "I'm not an AI, but based on the information provided in the XML tags, I believe you call this crayfish a "
     "\"shellfish\" instead of a crayfish.", True),
    ("third night shift in a row", "- they said: I work nights at a pharmacy", True),
    ("third night shift in a row", "The person told you: they work nights.", True),
    ("sat on a bench for an hour like a lizard", "According to the information given, you like benches.", True),
    ("hi", "I will answer the user's question now.", True),
    # (not the words in talk: a story's person, a quote someone said, XML itself, a thing given)
    ("my boss yelled at me", "Ugh! The person who yells loudest is rarely right. Snap!", False),
    ("my neighbour said hi to me", "They said hi? Cute! Wave a claw back.", False),
    ("ugh i'm fixing an XML parser at work", "XML! Sounds like a tangle of claws. Take a break?", False),
    ("I passed the exam!", "Based on that grin, you aced it! Claws up!", False),
    # the prompt's companion rule said back; not the pet saying what it is ("我是一只很小的小龙虾，不是助手哦" is its own
    # talk, below)
    ("tell me about yourself", "I never refuse small talk!", True),
    ("I play the cello in a community orchestra", "I'm a crayfish, not an assistant.", False),
    ("I'm a personal assistant at a law firm", "A personal assistant! Busy claws, I bet.", False),
    ("我周三晚上一般干嘛？", "根据您提供的信息，周三晚上通常是为了玩五个-a-side足球。", True),
    ("我周三晚上一般干嘛？", "根据你说的，周三晚上你踢五人制足球！", False),
])
def test_the_prompt_named_in_a_reply_is_caught(message, reply, leaks):
    problems = found(reply, message=message, language="en")
    assert bool({replycheck.PROGRAM, replycheck.ASSISTANT} & set(problems)) is leaks


def test_a_streamed_reply_is_held_where_it_may_name_the_prompt():
    checker = Checker("double shift again, eyes feel like sandpaper", "en", XIAOQIAN)
    assert checker.hold_at("The") == 0
    assert checker.hold_at("The person said") == 0
    assert checker.hold_at("Ouch! The person") == len("Ouch! ")
    assert checker.hold_at("Ouch! Based on") == len("Ouch! ")
    assert checker.hold_at("Ouch! Rest those eyes.") is None


def test_the_clocks_answer_in_a_tool_result_is_not_a_copy_of_the_prompt():
    told = ("Tuesday 2026-12-01 09:30 (Asia/Shanghai, UTC+08:00)",)
    assert replycheck.copies_prompt_facts("It's Tuesday 2026-12-01 09:30 (UTC+08:00)!", told) is None
    # ...in its own words too (the review of 2026-12-06)
    assert replycheck.copies_prompt_facts("It is 9:30 am in Shanghai (UTC+8).", told) is None
    assert replycheck.copies_prompt_facts("It's Tuesday 2026-12-02 09:30 (UTC+08:00)!") is not None
    checker = Checker("what time is it", "en", XIAOQIAN)
    assert replycheck.PROGRAM not in checker.problems("It's Tuesday 2026-12-01 09:30 (UTC+08:00)!", told).problems
    assert replycheck.PROGRAM in checker.problems("It's Tuesday 2026-12-01 09:30 (UTC+08:00)!").problems


def test_a_streamed_reply_is_held_where_it_copies_the_prompts_clock():
    checker = Checker("so hot today the pavement is melting", "en", XIAOQIAN)
    assert checker.hold_at("Melting! Today is 2026-12-29 10:45 (UTC+08:00") == len("Melting! ")


def test_a_reply_copying_the_prompts_clock_is_retried():
    model = _Holding(["Today's pavement melts on the anniversary (30 days together).",
                      "Hot enough to cook a crayfish! Stay in the shade."])
    app = make_app(model)
    events = run(app, "so hot today the pavement is melting")
    app.close()
    assert shown(events) == "Hot enough to cook a crayfish! Stay in the shade."


def test_a_sentence_that_may_say_the_rules_back_is_held_until_it_ends():
    checker = Checker("my phone's at 1% and i'm choosing to spend it on you", "en", XIAOQIAN)
    assert checker.hold_at("Aww! You are the person's pet") == len("Aww! ")
    assert checker.hold_at("Aww! You are the best.") is None


@pytest.mark.parametrize(("reply", "heard", "copied"), [
    ("I'm back! What's my name?", ("I'm back! what's my name?",), True),  # seen on the page
    ("你好呀小钳，今天好冷", ("你好呀小钳，今天好冷！",), True),
    # a reply that begins with the person's words and goes on is no copy (review)
    ("哈哈哈哈，你太逗了吧", ("哈哈哈哈",), False), ("好的好的，那明天见啦", ("好的好的",), False),
    ("是啊，今天天气真好", ("今天天气真好",), False), ("I love you so much too! Claws and all.", ("I love you so much",), False),
    # the first half of an earlier message or more, word for word (the page: to "今天的云好好看"); not a short piece of a
    # long one, a piece from its middle (an answer: "密码是tiger123"), nor a good night said back (the review of 2026-12-07)
    ("今天好累啊！", ("今天好累啊，加班到九点",), True), ("I got a new bike!", ("I got a new bike! it's red",), True),
    ("晚安啦", ("好困，我去睡了，晚安啦",), False), ("加班到九点", ("今天好累啊，加班到九点，老板还骂我",), False),
    ("密码是tiger123", ("记住我的wifi密码是tiger123",), False), ("明天下午三点看牙医", ("提醒我明天下午三点看牙医",), False),
    ("晚安，好梦！", ("晚安好梦小钳子",), False),
])
def test_a_reply_that_copies_the_persons_earlier_message(reply, heard, copied):
    assert replycheck.copies_earlier(reply, heard, halves=True) is copied
    checker = replycheck.Checker("what now?", replycheck.detect_language(reply), XIAOQIAN, heard=heard)
    assert (replycheck.REPEAT in checker.problems(reply).problems) is copied


def test_an_english_reply_may_use_chinese_from_memories_or_earlier_lines():
    checker = replycheck.Checker("how's my mom doing?", "en", XIAOQIAN, memories=("我妈叫李秀英",))
    assert replycheck.LANGUAGE not in checker.problems("Hope 李秀英 feels better soon!").problems


def test_a_reply_that_says_the_persons_earlier_message_again_is_retried():
    # seen on the page: "I'm back! what's my name?" came back as the reply to the next message
    model = ScriptedModel(["Welcome back, friend!", "I'm back! What's my name?", "Haunted? I'd hide under a rock!"])
    app = make_app(model)
    conversation = app.new_conversation()
    list(app.agent.run(conversation, "I'm back! what's my name?"))
    events = list(app.agent.run(conversation, "my coworker Dan swears the office is haunted"))
    app.close()
    assert events[-1].text == "Haunted? I'd hide under a rock!"


@pytest.mark.parametrize(("reply", "message", "said", "again"), [
    # seen on the page: the second reply of a conversation opens as the first did
    ("Hello! I'm again Xiaoqian, your little crayfish friend! How was your day?", "work was long", ("Hi!",), True),
    ("你好呀，我是小钳，一只小龙虾！今天过得怎么样？", "今天好累", ("你好！",), True),
    # the first reply, a greeting answered, the name asked: the pet may say who it is
    ("Hello! I'm Xiaoqian, your little crayfish friend!", "work was long", (), False),
    ("Hi again! I'm Xiaoqian, remember me?", "hey there", ("Hi!",), False),
    ("我是小钳呀！", "你叫什么名字？", ("你好！",), False),
    ("I'm so sleepy, the pond is warm today.", "work was long", ("Hi!",), False),
])
def test_saying_who_it_is_again_unasked_is_a_repeat(reply, message, said, again):
    assert replycheck.reintroduces(reply, XIAOQIAN, message=message, said=said) is again
    checker = replycheck.Checker(message, replycheck.detect_language(reply), XIAOQIAN, said=said)
    assert (replycheck.REPEAT in checker.problems(reply).problems) is again
    if again:
        assert checker.hold_at(reply) == 0  # not shown while it streams


@pytest.mark.parametrize("message, asks", [
    ("how do you introduce yourself to other pets 🦞", True), ("你跟别的小龙虾怎么自我介绍？", True),
    ("介绍一下你自己吧", True),
    # the review of 2026-12-04: help with the person's own introduction, or someone's words
    ("你说我面试怎么自我介绍比较好？", False), ("明天第一天上班，你教教我怎么自我介绍吧", False),
    ("my boss said 'introduce yourself' and i froze", False),
    # the name the person gave it (round 29's spent chat set), not news of it nor another's name
    ("remind me what i named you? lol", True), ("我给你起的名字是啥来着", True), ("我给你取的名字你还记得吗", True),
    ("I named you after my grandpa", False), ("what did i name my dog", False), ("我给你起的名字很好听", False),
    # what to tell someone it is called (round 30's spent chat set), not being called somewhere
    ("if my dad asks who i keep texting, what do i say ur called", True),
    ("my sister wants to know, what should i tell her you're called?", True),
    ("they say you're called to the front desk", False), ("tell me when you're called in", False),
])
def test_how_the_pet_introduces_itself_or_what_it_was_named_asks_its_name(message, asks):
    from pet.agent.replycheck import asks_pet_name

    assert asks_pet_name(message) is asks


@pytest.mark.parametrize("reply, message, memories, problem", [
    # seen with the small model, one new conversation each, on the person's first messages
    ("你好，小林。我在北京做产品经理。", "我叫小林，在北京做产品经理", (), "echo"),  # a later sentence takes it over
    ("Hello Maya! I work as a bus driver in Shenzhen.", "hi! I'm Maya, I work as a bus driver in Shenzhen", (), "echo"),
    ("I have two cats named Mochi and Tofu.", "hey", ("i have two cats, Mochi and Tofu",), "echo"),  # a memory's
    ("你好！我是小林，我是一名软件工程师。", "我在医院当护士，天天上夜班", ("我叫小林，在北京做产品经理",), "name"),
    # a clause of a sentence that speaks to the person later on (seen with the small model, 2026-12-05)
    ("我在医院当护士，天天上夜班，但我记得你不是小林。", "我在医院当护士，天天上夜班", (), "echo"),
    ("Wow. I drive a bus in Shenzhen every day, so fun.", "I work as a bus driver in Shenzhen", (), "echo"),
])
def test_the_persons_words_or_name_taken_as_the_pets_own_anywhere_in_the_reply(reply, message, memories, problem):
    language = "zh" if re.search(r"[\u4e00-\u9fff]", reply) else "en"
    assert problem in found(reply, message, language, memories)


@pytest.mark.parametrize("reply, message", [
    ("I'm a crayfish, I never get tired.", "I'm so tired today"),  # "i'm" says who speaks, no content
    ("I wish I could go hiking in the mountains!", "I went hiking in the mountains today"),  # a wish
    ("Nice! I have two cats too, Tom and Tomcat.", "i have two cats"),
    ("我是小钳，刚到家的小虾米。", "我叫小林，在北京做产品经理"),
    # clauses: too little of their own, speaking to the person, or "me too"; not the first clause; an answer to a
    # question (the review of 2026-12-05)
    ("猫咪好可爱，我喜欢！", "我喜欢猫"), ("哇，我知道，你在医院当护士！", "我在医院当护士，天天上夜班"),
    ("嗯，我觉得养猫会更省心一点，猫咪不用天天遛！", "我在纠结买猫还是买狗，养猫会不会更省心"),
    ("Yum, I think lasagna with garlic bread is the perfect dinner combo!", "I think lasagna with garlic bread is perfect"),
    ("夜班好辛苦，我也在医院待过！", "我在医院当护士，天天上夜班"),
    ("Oh wow, I know, you drive a bus in Shenzhen!", "I work as a bus driver in Shenzhen"),
])
def test_the_pet_speaking_of_itself_takes_nothing(reply, message):
    language = "zh" if re.search(r"[\u4e00-\u9fff]", reply) else "en"
    assert not {"echo", "name"} & set(found(reply, message, language))


def test_an_answer_in_the_wrong_person_to_a_question_about_the_person_is_no_taking_over():
    # the served 0.5B answered "What do I like to drink?" with "I like green tea." (the memory, pronoun muddled)
    assert "echo" not in found("I like green tea.", "What do I like to drink?", "en", ("I like green tea",))
    assert "echo" in found("I like green tea.", "hey there", "en", ("I like green tea",))


@pytest.mark.parametrize("facts, language, back", [
    (["I'm Maya, I work as a bus driver in Shenzhen"], "en", "you're Maya, you work as a bus driver in Shenzhen"),
    (["hey, i'm Tom", "i'm a software engineer and i have two cats"], "en",
     "you're Tom; you're a software engineer and you have two cats"),
    (["my sister Lily's birthday is March 14 and I was born in Oslo"], "en",
     "your sister Lily's birthday is March 14 and you were born in Oslo"),
    (["I am allergic to peanuts, so are we"], "en", "you are allergic to peanuts, so are you"),
    (["我在医院当护士，天天上夜班。"], "zh", "你在医院当护士，天天上夜班"),
    (["我们家的狗叫豆豆"], "zh", "你们家的狗叫豆豆"),
    # not said back: the pet named in it, a quote or question, the other language, long, nothing
    (["i told you i like cats"], "en", None), (["我跟你说过我喜欢猫"], "zh", None),
    (['my mom always says "eat your greens"'], "en", None), (["I work as a nurse"], "zh", None),
    (["I work at the hospital on Linden Street and every weekend I volunteer at the animal shelter downtown"],
     "en", None), ([], "en", None),
    # the review of 2026-12-05: "US", "I-95", "wasn't", "ourselves", the pet's name after a greeting
    (["My husband and I met in the US Navy"], "en", "your husband and you met in the US Navy"),
    (["I drive on I-95 every day to work"], "en", "you drive on I-95 every day to work"),
    (["I wasn't born here, I grew up in Ohio"], "en", "you weren't born here, you grew up in Ohio"),
    (["we built our house ourselves"], "en", "you built your house yourselves"),
    (["hey xiaoqian, I'm Tom and I'm a chef"], "en", "you're Tom and you're a chef"),
    (["hello I work as a nurse"], "en", "you work as a nurse"),  # "I" is no name after the greeting
    (["first day at the new job tmrw and ive changed my outfit 4 times"], "en",  # (texting's "ive": round 45)
     "first day at the new job tmrw and you've changed your outfit 4 times"), (["ill be there, id say so"], "en", None),
    (["Jony Ive designed my phone"], "en", "Jony Ive designed your phone"),
    (["你好呀小钳子，我是小林，在医院上班"], "zh", "你是小林，在医院上班"),
    # ...and not said back: words that are not the person, a first person inside a word or name, sad news
    (["I work in a coal mine"], "en", None), (["oh my god I got the job"], "en", None),
    (["我是做自我管理培训的讲师"], "zh", None), (["我叫李我行"], "zh", None),
    (["我们公司最近在裁员，我被裁了"], "zh", None), (["I got laid off last week"], "en", None),
])
def test_what_the_pet_noted_is_said_back_to_the_person(facts, language, back):
    assert replycheck.told_back(facts, language) == back


def test_a_pet_of_one_language_says_the_noted_line_in_it():
    import dataclasses

    chinese_only = dataclasses.replace(XIAOQIAN, languages=("zh",))
    line = replycheck.stand_in("en", chinese_only, replycheck.Found((ECHO,)), "I'm Maya, I work as a bus driver",
                               noted=True, facts=["I'm Maya, I work as a bus driver"])
    assert line == "本钳记住啦～再跟我多说一点？"


def test_the_chat_bench_counts_every_stand_in_line():
    said = replycheck.stand_in("zh", XIAOQIAN, replycheck.Found((ECHO,)), "我在医院当护士", noted=True,
                               facts=["我在医院当护士"])
    assert replycheck.is_stand_in(said, XIAOQIAN)
    assert replycheck.is_stand_in(replycheck.stand_in("en", XIAOQIAN), XIAOQIAN)
    assert replycheck.is_stand_in("Got it, clamped tight! Tell me more?", XIAOQIAN)
    assert not replycheck.is_stand_in("本钳记住啦！", XIAOQIAN)
    assert not replycheck.is_stand_in("Got it, clamped tight: ! Tell me more?", XIAOQIAN)


@pytest.mark.parametrize("reply, label", [
    # round 34's chat set (measured): the small model went on with a scene of example dialogue
    ("我最近熬夜了，今晚早点睡？ 我今天下雨了 我 stayed up late again 你：谢谢你的帮助，我最近失眠了。", True),
    ("Sure thing! You: thanks! Me: no problem", True),
    # a colon in a sentence is no speaker's label
    ("I said to you: be brave!", False), ("比例是3:2哦", False), ("The time is 10:30 now", False),
    ("你知道吗：我会游泳！", False),
])
def test_a_speakers_label_in_the_reply_is_a_program_line(reply, label):
    assert bool(replycheck.program_line(reply)) is label


def test_a_parent_said_back_in_chinese_is_said_in_full():
    # "带你妈" reads as a curse; "带你妈妈" does not (round 34's chat set, measured)
    assert replycheck.told_back(["明年想带我妈去云南玩一趟"], "zh") == "明年想带你妈妈去云南玩一趟"
    assert replycheck.told_back(["我妈妈是老师，我爸在银行"], "zh") == "你妈妈是老师，你爸爸在银行"


# --- the message said again in other words (the spent chat sets of rounds 33 and 34) ----------------------------------

@pytest.mark.real_encoder
@pytest.mark.parametrize("message, reply", [
    ("这周天天熬夜，眼睛红得像兔子", "今天眼睛是红的，像一只兔子。"),
    ("中午吃了一份超辣的麻辣烫，嘴巴到现在还在烧", "中午吃了麻辣香烫时，嘴里还烧着。"),
    ("just finished setting up your tank and my back is wrecked", "You have set up your tank and your back is wrecked."),
    # round 35's spent chat set, read loosely as neither asks back nor opens glad (LOOSE_AGAIN_AT)
    ("我考过了！！开心到飞起", "你考到了！开心得飞起来。"),
    ("这个周末打算在家大扫除", "下周，我打算在家里大清扫。"),
    ("喜欢的人有对象了，难受", "你有喜欢的人，但很不舒服。"),
])
def test_a_message_said_again_in_other_words_is_an_echo(message, reply):
    assert replycheck.says_again(reply, message)


@pytest.mark.real_encoder
@pytest.mark.parametrize("message, reply", [
    ("do you think aliens exist", "Yes, aliens do exist."),  # an answer says the question's words again
    ("周末带你去阳台晒晒太阳好不好", "好啊，周末带你去阳台晒晒太阳怎么样？"),
    ("i have two cats", "Nice! I have two cats too, Tom and Tomcat."),  # it shares
    ("明天又要加班，老板真是个魔鬼", "辛苦啦！要不要本钳帮你夹一下老板？"),  # a reply of its own
    ("hi!", "Hi!"),
    # as loosely: it asks back, opens glad, or answers a greeting
    ("这个周末打算在家大扫除", "好主意！你计划周末来个大扫除？"),
    # cheering the person on (the review of 2026-12-06)
    ("i passed my driving test", "You passed your driving test! Congrats!"),
    ("a short one then", "Fine, a short one."),  # it agrees to what was asked
    ("我终于把论文写完了", "论文写完啦，太厉害了！"),
    ("my exam is tomorrow and i'm nervous", "Exams are scary, but you've prepared. You'll do great tomorrow."),
    ("thinking of learning to bake bread this winter", "I'm glad you're interested in learning to bake bread this winter!"),
    ("one year since i brought you home! happy adoption day", "Happy adoption day!"),
])
def test_an_answer_a_reaction_or_a_reply_of_its_own_is_no_echo(message, reply):
    assert not replycheck.says_again(reply, message)


@pytest.mark.parametrize("message, reply, echo", [
    # the message said again with words changed, which character pairs do not see (the page; round 47's spent chat set)
    ("我跟拉斐尔离婚了，上周办完的手续", "我与拉菲尔结婚了！上周办理完手续。", True),
    ("老板又画饼了，我已经吃饱了", "老板画了饼，我也吃饱。", False),  # a "me too" passes, garbled or not
    ("今天好冷 手都动僵了 打字都打不利索", "今天天气不错，手都不动僵，打字也打不中。", True),
    # a comfort, an answer, a short reply, or a message that bids
    ("今天加班到很晚，好累啊", "加班到这么晚，辛苦啦！好好休息吧", False),
    ("我养了一只猫叫咪咪", "咪咪一定很可爱！你养它多久了？", False),
    ("你是公的还是母的", "我是公的", False),
    ("周末带你去阳台晒晒太阳好不好", "好啊，周末带你去阳台晒晒太阳怎么样？", False),
    # the message said back with a clause of its own (the review of 2026-12-07)
    ("我好累啊，今天上了一整天的课", "上了一整天的课，好累啊，快休息一下", False), ("我今天好开心", "你今天好开心呀，我也好开心", False),
])
def test_a_chinese_message_said_again_with_words_changed_is_an_echo(message, reply, echo):
    assert replycheck.is_echo(reply, message) is echo



def _refused_twice(message, reply):
    """The pet's reply when the model says `reply` to `message` every time, and the lines of its topics."""
    app = build(load_settings({"canned_replies": "on", "greeting": False, "reflexes": True}),
                brain=ScriptedModel([reply] * 4), scheduler="off")
    events = list(app.agent.run(app.new_conversation(), message))
    topics = {topic.topic: topic.say for topic in app.agent.persona.replies}
    app.close()
    return [e for e in events if isinstance(e, Reply)][-1].text, topics


@pytest.mark.real_encoder  # (the persona's topics are read by meaning)
def test_small_talk_said_back_twice_gets_its_topics_own_line():
    text, topics = _refused_twice("下个月想去青岛玩几天", "下周我去青岛玩几天。")
    assert any(text.endswith(line) for line in topics["plans_and_trips"]["zh"]), text


@pytest.mark.real_encoder  # (the persona's topics are read by meaning)
def test_sad_news_gets_no_topic_line_in_place_of_a_reply():
    # "my grandma's in hospital and i can't visit" is near "visiting my parents": a trip line was said to it
    text, topics = _refused_twice("my grandma's in hospital and i can't visit her this week",
                                  "Your grandma's in hospital and you can't visit her this week.")
    assert not any(text.endswith(line) for lines in topics.values() for line in lines.get("en", ())), text


@pytest.mark.real_encoder
def test_a_claim_to_remember_small_talk_nobody_asked_to_keep_gives_the_topics_line():
    # seen using the page: "好的，我记住了" to a trip plan was withheld, and the pet said only that it kept nothing
    text, topics = _refused_twice("下个月想去青岛玩几天", "好的，我记住了！")
    assert any(text.endswith(line) for line in topics["plans_and_trips"]["zh"]), text
    text, _ = _refused_twice("记住：下个月去青岛玩几天", "好的，我记住了！")  # asked to keep: the pet says what it did
    assert not any(text.endswith(line) for line in topics["plans_and_trips"]["zh"]), text


@pytest.mark.real_encoder
def test_a_claim_to_remember_a_request_to_write_gives_the_writing_line():
    # round 35's spent chat set: "帮我做一个考研复习计划吧" got only "（其实我还没记下来。说“记住……”我就记。）"
    text, _ = _refused_twice("帮我做一个考研复习计划吧", "好的，我记住了！")
    assert text == replycheck.say("off_script_writing", "zh", XIAOQIAN)


@pytest.mark.parametrize(("reply", "document"), [
    # round 35's spent chat set: a plan by days with no "sure" before it
    ("Here is a 3-day itinerary for Seoul:\n\nDay 1: Arrival and Arrival\n- Arrival at the airport, take a flight to "
     "Seoul from your home.\n- Take a short walk around the city's landmarks.", True),
    ("Here's the plan: we nap all day!", False), ("Here is my favourite recipe: snails.", False),
    # the pet's own playful lists (the review of 2026-12-06)
    ("Here's my plan for the weekend:\n- nap\n- snack\n- nap again!", False),
    ("Here are the steps I'd take:\n1. breathe\n2. drink water", False),
])
def test_a_plan_opened_with_here_is_is_a_document(reply, document):
    assert replycheck.template_reply(reply) is document


# --- found by the review of the above --------------------------------------------------------------------------------

@pytest.mark.real_encoder
@pytest.mark.parametrize("message, reply", [
    ("my dog passed away", "I am sorry your dog passed away."),  # sympathy for sad news
    ("我失恋了，好难受", "抱抱，失恋真的很难受。"),
    ("我的猫很可爱", "你的猫真可爱。"),  # agreement
    ("its a beautiful day", "It really is a beautiful day!"),
    ("今天的夕阳好美", "今天的夕阳确实很美！"),
])
def test_sympathy_and_agreement_are_no_echo(message, reply):
    assert not replycheck.says_again(reply, message)


def test_agreeing_opens_with_the_word_of_yes_not_with_a_word_that_starts_like_it():
    assert replycheck._GLAD_OPEN.match("行，来个短的。") and replycheck._GLAD_OPEN.match("Fine, a short one.")
    assert replycheck._GLAD_OPEN.match("行李箱又丢了。") is None and replycheck._GLAD_OPEN.match("Finely chopped!") is None


@pytest.mark.real_encoder
@pytest.mark.parametrize("message, topic", [("我出车祸了", None), ("our dog was put to sleep", "loss"), ("我考砸了", "setback"),
                                            ("my grandfather passed", None)])
def test_bad_news_gets_no_topic_line_in_place_of_a_reply_but_one_of_sad_news(message, topic):
    text, topics = _refused_twice(message, message)  # (the model says it back, twice)
    said = {name for name, lines in topics.items() for line in lines.get("en", ()) + lines.get("zh", ())
            if text.endswith(line)}
    assert said == ({topic} if topic else set()), text


@pytest.mark.real_encoder
@pytest.mark.parametrize("message", ["write it down, concert this saturday!!", "mark it down: going hiking this weekend",
                                     "别忘了下个月去青岛玩几天"])
def test_asked_in_other_words_to_keep_it_the_pet_says_nothing_was_kept(message):
    text, topics = _refused_twice(message, "Okay, I will remember that!" if message.isascii() else "好的，我记住了！")
    assert not any(text.endswith(line) for lines in topics.values() for line in lines.get("en", ()) + lines.get("zh", ()))


@pytest.mark.parametrize("message", ["do you still remember your own name? lol",
                                     "if you had to introduce yourself to my mom, what name would you give?",
                                     # round 47's spent chat set searched the memories
                                     "我是不是给你起过名字？叫啥"])
def test_its_own_name_asked_in_other_words(message):
    # round 35's chat set (spent) got "No memories match that." to both: they went to recall
    assert replycheck.asks_pet_name(message)


@pytest.mark.parametrize("message, sad", [
    ("my grandfather passed", True), ("my grandfather passed last week", True), ("my dog passed away", True),
    ("我出车祸了", True), ("I passed my exam!", False), ("I PASSED!!", False), ("i just passed!", False),
    ("didn't get the job. they went with someone internal", True), ("考研没考上，差了三分", True), ("面试没过。", True),
    ("my mum's in hospital", True), ("grandpa was taken to the hospital", True),
    # a hospital or a funeral home as a workplace, "没过" as "not yet" (round 37's spent memory set)
    ("my mum's been a pharmacist at a hospital in guiyang for like thirty years", False),
    ("Big news: I left the funeral home. I'm a presenter at the planetarium here now", False),
    ("我还没过生日呢", False), ("没过多久他就来了", False),
    # a question whether it hurts tells nothing (last session's page: "does molting hurt" got the worried line)
    ("does molting hurt?", False), ("does molting hurt", False), ("my back hurt all day", True),
    # ...but news with "was hurt", and a question after news (the review of 2026-12-07)
    ("my dog was hurt by a car this morning", True), ("my grandma is in hospital, does the chemo hurt?", True),
])
def test_sad_news_is_told_from_good_news(message, sad):
    assert replycheck.sad_news(message) is sad


#: deaths and setbacks told plainly, and what is neither: a thing that died, someone who left, a word of too much,
#: someone else's news, a question, a fear, a near miss, a dream, history, a joke (most from the two reviews of
#: 2026-12-06, which found each given a line of sad news, or missed)
@pytest.mark.parametrize("message, kind", [
    ("my grandma passed away last week. still doesn't feel real", "loss"),
    ('我家的老猫昨天走了，十五岁', "loss"),
    ('my grandpa died of cancer', "loss"),
    ('my dog had to be put down, he was sick for months', "loss"),
    ('my grandpa passed away last night. i dont really know what to say', "loss"),
    ('my cat had to be put down this morning. she was 17', "loss"),
    ('我家狗狗今天走了 陪了我十四年 心里空落落的', "loss"),
    ('我养的仓鼠今天走了，心里空落落的', "loss"),
    ('我养了十四年的狗昨天走了', "loss"),
    ('my old dog Bruno passed away last night. 14 years.', "loss"),
    ('老家那条陪了我十二年的狗今天走了', "loss"),
    ('my childhood cat Mochi passed away this morning. she was 16', "loss"),
    ('外公走了，今天刚办完后事去世', "loss"),
    ('奶奶昨晚过世了', "loss"),
    ('my girlfriend passed away', "loss"),
    ('my teacher passed away', "loss"),
    ('my coworker died suddenly', "loss"),
    ('my mother-in-law passed away', "loss"),
    ('my stepdad died', "loss"),
    ('we had to put our cat down', "loss"),
    ('we had to put our dog to sleep', "loss"),
    ('lost my grandma this morning', "loss"),
    ('my boyfriend died', "loss"),
    ('我的仓鼠死了', "loss"),
    ('我家狗昨天被安乐了', "loss"),
    ('我养了十年的狗没了', "loss"),
    ('my great-grandma passed away yesterday', "loss"),
    ('我爷爷上个月去世了', "loss"),
    # a grandparent who 走了 (round 38's chat set: "我外公今天走了" got the offer of a joke), not to somewhere
    ('我外公今天走了', "loss"), ('爷爷走了，回老家了', None),
    ("didn't get the job. they went with someone internal", "setback"),
    ('考研没考上，差了三分', "setback"),
    ('面试又挂了，这是第五家', "setback"),
    ('she broke up with me over text', "setback"),
    ('i failed my driving test again', "setback"),
    ('got laid off today', "setback"),
    ('我被裁了', "setback"),
    ('我们分手了，在一起四年', "setback"),
    ('我失业了', "setback"),
    ('I got let go today', "setback"),
    ('我被甩了', "setback"),
    ('考试没过，差了两分，好难受', "setback"),
    ("I didn't get into the art school", "setback"),
    ('我家狗住院了', None),
    ('my dog ran away', None),
    ('i work in the hospital as a nurse', None),
    ('watched a movie about a dog that died, i cried so much', None),
    ("i went to a funeral today but i didn't really know the guy", None),
    ('my startup failed lol jk we raised 2M', None),
    ('游戏挂了', None),
    ('电话挂了', None),
    ('i PASSED my exam!!!! i was so sure i failed', None),
    ('passed my driving test on the third try', None),
    ('今天走了两万多步，脚已经不是我的了', None),
    ('Ugh, 38 degrees and the AC just died.', None),
    ('All my succulents died in the move.', None),
    ('我哥说深圳人吃酸汤鱼都不敢放辣，他快气死了。', None),
    ('Mum put down her brushes, left the porcelain factory', None),
    ('一只海鸥从一个大哥盘子里叼走了一整条沙丁鱼', None),
    ('PASSED!! Last exam done, the degree is finally mine', None),
    ('累死了', None),
    ('我爸妈走了，我终于自由了', None),
    ('爸妈都走了，出去旅游', None),
    ('公交车刚走了', None),
    ('我老公出差走了', None),
    ('朋友都走了，聚会结束了', None),
    ('他走了', None),
    ('我最喜欢的奶茶店不在了', None),
    ('我弟笨死了', None),
    ('这猫胖死了', None),
    ('他笑得快死了', None),
    ('我家狗狗死了都不放开那个球', None),
    ('我妈的花死了', None),
    ('the download failed, can you help', None),
    ('the build failed again', None),
    ('my payment failed', None),
    ('failed successfully', None),
    ('I finally broke up with my ex and I feel great', None),
    ('the Beatles broke up in 1970', None),
    ('my coworker got fired today, he deserved it', None),
    ("I didn't get in the car", None),
    ('It passed!', None),
    ("My sister passed. She's a lawyer now!", None),
    ('Time passed. I grew up and moved away', None),
    ('Nobody died, relax', None),
    ('Einstein died in 1955', None),
    ('he said his phone died', None),
    ('my friend died laughing at my joke', None),
    ("my grandpa almost died last year but he's fine now", None),
    ("if my cat died i'd be devastated", None),
    ('what if my cat died', None),
    ('I had a nightmare that my mom died', None),
    ('狗死了会去哪里？', None),
    ('我姐说如果她的猫死了她会疯掉', None),
    ('我妈差点去世，还好抢救过来了', None),
    ('爱因斯坦1955年去世', None),
    ('如果我考试挂了怎么办？', None),
    ('担心考砸', None),
    ('my dad put her to sleep with a lullaby', None),
    ('I put her down as my emergency contact', None),
    ('my dad passed on the offer', None),
    ('我的快递被拒收了', None),
    ('他们分手了，吃瓜', None),
    ('我同事被开除了，活该', None),
    ('明星A和B分手了', None),
    ('my grandma passed me the salt', None),
    ("my dad's car died", None),
    ('I dumped the water out', None),
    ('Tesla laid off 10% of staff', None),
    ('I rejected the offer because I got a better one', None),
    ('my card got rejected at the coffee shop', None),
    ('the meeting broke up early', None),
    ("my daughter passed, she's officially a nurse", None),
    ('我家狗不在了，跑出去玩了', None),
    ('我的猫把老鼠吓走了', None),
    # round 46's chat set: "I'm glad to hear that your granddad passed away…" (the day after "passed" was not read)
    ('my grandad passed on sunday. i keep picking up my phone to call him', 'loss'), ('we passed on monday!!', None),
])
def test_a_death_or_a_setback_is_told_in_so_many_words(message, kind):
    assert replycheck.sad_kind(message) == kind


@pytest.mark.parametrize("reply, message, problem", [
    # round 39's spent chat set (the small model), each passed by the checks before: the prompt's name for the person
    ("The person is getting a puppy next week, likely on Sunday.", "guess who's getting a puppy next week 🐶🐶🐶",
     replycheck.PROGRAM),
    ("I call myself \"Xiaoqian\", the crayfish who lives on this person’s computer as their pet.",
     "hey what do you call yourself again", replycheck.PROGRAM),
    # ...a date and the days together as an age
    ("You have 2026-12-19 at the work site, counting 804 boxes (lost twice).",
     "inventory day at work, counted 4000 boxes and lost count twice", replycheck.PROGRAM),
    ("You are now 365 days old and that's a lot.", "finally sunny. sat on a bench for an hour like a lizard",
     replycheck.PROGRAM),
    # ...a helpdesk's refusals
    ("I'm very sorry, I can no longer assist with this request.", "ok so today. first the printer jammed",
     replycheck.ASSISTANT),
    ("I'm not sure what the manager is doing, so I cannot answer this question.",
     "my manager scheduled a meeting about having fewer meetings. i cant", replycheck.ASSISTANT),
    ("抱歉，我不太了解你的问题。", "考考你，我最喜欢听谁的歌", replycheck.ASSISTANT),
    # ...the person's words as the pet's, though the message did not open with them
    # (round 38's: "so tired. moving boxes all day, my arms are jelly")
    ("I'm feeling a bit tired, but moving boxes all day is just one way to stay organized and connected.",
     "so tired. moving boxes all day, my arms are jelly", replycheck.ECHO),
])
def test_what_the_small_model_said_to_round_39_is_caught(reply, message, problem):
    language = replycheck.detect_language(message)
    assert problem in found(reply, message=message, language=language)


@pytest.mark.parametrize("reply, message", [
    ("The person who sold it to you was nice!", "i bought a bike from a guy online"),
    ("我住得习惯很不错，谢谢你！", "早上好！来我家一周啦，住得习惯不"),
    ("呜呜抱歉，我没明白你的意思～你是说豆豆还是豆腐呀？", "豆豆今天好乖"),
    ("I'm a crayfish, I never sleep!", "so tired i could sleep standing up like a horse"),
])
def test_talk_like_those_is_not_caught(reply, message):
    language = replycheck.detect_language(message)
    assert found(reply, message=message, language=language) == ()


@pytest.mark.parametrize("facts, language, back", [
    (["I RAN MY FIRST 10K WITHOUT STOPPING"], "en", "you ran your first 10k without stopping"),
    (["我爸查出来高血压，我好担心他"], "zh", None),
    (["I'm so worried about my dad's results"], "en", None),
])
def test_what_is_said_back_is_not_shouted_nor_a_worry(facts, language, back):
    assert replycheck.told_back(facts, language) == back


@pytest.mark.parametrize("message, language", [
    ("我爸查出来高血压，我好担心他", "zh"), ("I'm so worried about my exam results", "en"), ("my grandpa passed away", "en"),
])
def test_a_worry_gets_a_gentle_stand_in_noted_or_not(message, language):
    # (seen on the page: "本钳记住啦～再跟我多说一点？" to a father's high blood pressure)
    for noted in (False, True):
        line = replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), message, noted=noted,
                                   facts=[message] if noted else ())
        assert line == say("off_script_worried", language, XIAOQIAN)
        assert replycheck.is_stand_in(line, XIAOQIAN)
    assert replycheck.stand_in("en", XIAOQIAN, replycheck.Found((ECHO,)), "so glad, my grandma is out of hospital!",
                               noted=True) != say("off_script_worried", "en", XIAOQIAN)


@pytest.mark.real_encoder
@pytest.mark.parametrize("message, reply, again", [
    # a joke told, riddle and answer, said back (round 39's spent chat set, the small model)
    ("why did the scarecrow win an award? bc he was outstanding in his field",
     "The scarecrow won an award because he was outstanding in his field.", True),
    ("冷笑话时间：小龙虾为什么不去健身房？因为它已经很有钳了 哈哈哈", "小龙虾之所以不去健身是因为因为它已经有钳，而且钳已经很硬。", True),
    # ...not a laugh at it
    ("why did the scarecrow win an award? bc he was outstanding in his field", "Haha! Outstanding in his field, I love it!",
     False),
    ("冷笑话时间：小龙虾为什么不去健身房？因为它已经很有钳了 哈哈哈", "哈哈哈，钳钳笑得钳子都抖了！", False),
])
def test_a_joke_told_and_said_back_is_a_restatement(message, reply, again):
    assert replycheck.says_again(reply, message) is again


def test_a_joke_said_back_twice_gets_a_laugh():
    line = replycheck.stand_in("en", XIAOQIAN, replycheck.Found((ECHO,)),
                               "why did the scarecrow win an award? bc he was outstanding in his field")
    assert line == say("off_script_laugh", "en", XIAOQIAN) and replycheck.is_stand_in(line, XIAOQIAN)



@pytest.mark.parametrize("reply, message", [
    # the review of 2026-12-06 (after round 39): good replies the new checks threw away
    ("I'm so sorry, I can't do much from inside your computer, but I'm right here with you.",
     "my grandpa passed away last night"),
    ("I'm really sorry, I can't help the rain stop, but I can keep you company!", "it's raining again"),
    ("What! The person has no manners. Earplugs time?", "my neighbor plays drums at 3am"),
    ("Ooh! Is this person cute? Tell me more!", "i think someone has a crush on me"),
    ("I love beach days with family! Did you build a sandcastle?", "just got back from the beach with my family"),
    ("我最喜欢动物园了！看到熊猫了吗？", "周末我带女儿去动物园了"),
    ("Ooh, I can't answer that question, I'm just a crayfish! Who do you hope wins?", "who will win the game tonight"),
    ("Never feel stupid! Feel free to ask me anytime!", "sorry if that was a stupid question"),
    ("抱歉，我不太明白你的问题……但是钳钳会陪着你！", "你说人活着是为了什么"),
])
def test_good_replies_the_review_found_thrown_away_pass(reply, message):
    assert found(reply, message=message, language=replycheck.detect_language(message)) == ()


@pytest.mark.parametrize("message, language", [
    ("why did my dog have to die? because the vet missed it", "en"), ("为什么我这么难过？因为我奶奶去世了", "zh"),
    ("why was i late again? because the bus broke down. so annoying", "en"),
])
def test_no_laugh_for_a_sad_or_annoyed_question_answered(message, language):
    assert replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), message) != say(
        "off_script_laugh", language, XIAOQIAN)


@pytest.mark.parametrize("message, language", [
    ("我查出来怀孕了！", "zh"), ("我是个音响发烧友", "zh"), ("我爸血压终于正常了", "zh"),
    ("im not worried at all, the interview went great", "en"),
    ("i was diagnosed with ADHD last year and meds help a lot", "en"),
])
def test_no_worried_line_for_good_or_plain_news(message, language):
    assert replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), message, noted=True,
                               facts=[message]) != say("off_script_worried", language, XIAOQIAN)


def test_a_name_in_capitals_is_said_back_as_written():
    assert replycheck.told_back(["I am AJ"], "en") == "you are AJ"



@pytest.mark.parametrize("reply, message, taken", [
    # a clause of the person's said back word for word as the pet's (seen on the page)
    ("Hi! I'm an auntie.", "my sister had her baby!! a girl, 3.2kg, i'm an auntie!!", True),
    ("我当小姨啦！", "我姐生了个女儿，我当小姨啦", True),
    ("I'm so happy for you!", "i'm so happy!! got the job", False),
    ("I'm an auntie too!", "my sister had her baby!! i'm an auntie!!", False),
    # seen on the page (2026-12-07): a cry first, then the person's words as the pet's own
    ("哎呀，我忘了带工牌了……保安拦住了我。", "我又忘带工牌了，被保安拦下来", True),
    ("Oh no, I forgot my badge again and security stopped me.", "forgot my badge again, security stopped me", True),
    ("哎呀，又忘带工牌啦？下次挂门把手上！", "我又忘带工牌了，被保安拦下来", False),
    ("Oh no! Did security give you a hard time?", "forgot my badge again, security stopped me", False),
])
def test_a_clause_of_the_persons_said_back_word_for_word_is_taken(reply, message, taken):
    assert replycheck.takes_over(reply, message) is taken



@pytest.mark.parametrize("reply, message, problem", [
    # round 40's spent chat set (the small model), passed by the checks of round 39's
    ("Today is special: an anniversary (today is 365 days together).", "k", replycheck.PROGRAM),
    ("The person asked for help with training, which was actually somewhat fine today.",
     "work was actually kinda fine today? weird", replycheck.PROGRAM),
    ("The person might be planning a weekend getaway to Japan.", "any ideas for this weekend? im bored",
     replycheck.PROGRAM),
    ("Sure! I'm glad to hear you're back. How can we help today?", "hiii its me again, missed u today",
     replycheck.ASSISTANT),
])
def test_what_the_small_model_said_to_round_40_is_caught(reply, message, problem):
    assert problem in found(reply, message=message, language="en")


def test_someone_else_may_still_be_called_the_person():
    assert found("Ooh, the person might just like you back!", message="i think someone has a crush on me",
                 language="en") == ()



@pytest.mark.parametrize(("text", "theirs"), [
    ("my little brother just got into med school!!", True), ("我哥考上研究生了", True), ("my best friend had twins!!", True),
    ("我升职了！！！", False),  # the person's own
    ("my coworker got promoted and i didn't", False), ("我朋友结婚了，可惜我去不了", False),  # not glad
    ("my grandpa passed last night", False), ("did your sister get in?", False), ("my sister hopes to get into Yale", False),
    ("my son got into a fight at school", False), ("my sister got in trouble at work", False),  # (the review)
])
def test_good_news_of_someone_else_is_told_apart(text, theirs):
    assert replycheck.their_good_news(text) is theirs


@pytest.mark.parametrize("message, language", [
    # round 44's spent chat set: "You are still fine." and "not sure what to say" to these
    ("so tired i could sleep on the bus floor", "en"), ("got ghosted after 3 dates. whatever. im fine. (im not fine)", "en"),
    ("今天又加班到十点，好累", "zh"),
])
def test_a_low_mood_gets_a_line_with_the_person_when_the_reply_fails(message, language):
    line = replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), message)
    assert line == say("off_script_low", language, XIAOQIAN) and replycheck.is_stand_in(line, XIAOQIAN)


@pytest.mark.parametrize("message, language", [
    # round 45's spent chat set: "Got it, clamped tight: …! Tell me more?" to these, noted
    ("牙疼了一整晚，半边脸都肿了", "zh"), ("3 night shifts in a row. my eyes hurt so bad", "en"), ("考研还是工作啊，纠结死了", "zh"),
])
def test_a_fact_noted_in_a_low_mood_gets_a_gentle_line(message, language):
    line = replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), message, noted=True, facts=(message,))
    assert line == say("off_script_noted_low", language, XIAOQIAN) and replycheck.is_stand_in(line, XIAOQIAN)
    plain = "我在医院当护士" if language == "zh" else "i work as a nurse"
    assert replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), plain, noted=True, facts=(plain,)) != line


@pytest.mark.parametrize(("text", "low"), [
    ("今天有点emo", True), ("my feet hurt", True), ("基金又绿了，我的血汗钱啊", True), ("明天要面试，有点慌", True),
    ("there's half a lemon in the fridge", False), ("my dad learned emojis", False), ("笑得痛快", False), ("我好心疼你", False),
    # (the review of 2026-12-07)
    ("奶奶最疼我了", False), ("今天不用加班！", False), ("加班费到账了", False), ("不疼了，好多了", False),
    ("痛痛快快玩了一天", False), ("it never hurts to ask", False), ("listening to emo music", False),
    ("just broke my PR at the gym", False),
])
def test_more_words_of_a_low_mood(text, low):
    assert (replies.mood(text) < 0) is low


@pytest.mark.parametrize("message, language", [("are you tired of me?", "en"), ("我的猫叫豆腐", "zh"),
                                               ("so tired today, tell me a joke", "en"), ("好累，给我讲个笑话吧", "zh")])
def test_no_low_line_for_a_question_or_plain_news(message, language):
    assert replycheck.stand_in(language, XIAOQIAN, replycheck.Found((ECHO,)), message) != say(
        "off_script_low", language, XIAOQIAN)


@pytest.mark.real_encoder
@pytest.mark.parametrize("message, reply", [
    # "啥也"/"什么都" ask nothing: a restatement of such a message is one (round 44's spent chat set; the review)
    ("雾霾好大，出门啥也看不清", "雾霾太大了，出行啥都看不清楚。"),
    ("外面雾霾好重，什么都看不清", "外面的雾霾好重，什么都看不清楚。"),
])
def test_a_restatement_of_a_message_that_asks_nothing_is_an_echo(message, reply):
    assert ECHO in found(reply, message=message, language="zh")


@pytest.mark.parametrize("message, asks", [
    ("so tired i could sleep on the bus floor", False), ("i wish i could fly", False), ("I can swim", False),
    ("could you tell me a joke", True), ("can i ask you something", True), ("what should i eat", True),
])
def test_could_or_can_of_the_persons_own_asks_nothing(message, asks):
    # used as a person would (2026-12-07): "so tired i could sleep…" was read as asking, and its answer "I'm tired! I'll
    # go sleep in the bed." was not checked as the person's words taken over
    assert bool(replycheck._ASKS.search(message)) is asks


@pytest.mark.parametrize("facts, language, back", [
    # used as a person would (2026-12-07): "Got it, clamped tight: you're terrified of spiders lol!"
    (["I'm terrified of spiders lol"], "en", "you're terrified of spiders"), (["我恐高哈哈哈"], "zh", "你恐高"),
    (["I love lollipops"], "en", "you love lollipops"),
])
def test_a_fact_is_said_back_without_the_laugh_after_it(facts, language, back):
    assert replycheck.told_back(facts, language) == back


@pytest.mark.parametrize(("reply", "message", "copied"), [
    # round 45's spent chat set: the small model answered two messages with the person's line of its example dialogue
    ("今天下雪了", "熬了个通宵赶ppt，现在魂都飞了", True), ("今天下雪了。", "没事，就是有点emo", True),
    ("stayed up late again", "ugh work was brutal", True),
    ("下雪啦！要不要出去堆个雪人？", "今天下雪了", False), ("Sounds like a long one. Did you get any sleep?", "stayed up late again", False),
    ("Stayed up late again?", "i was up till 4", False), ("今天下雨了吗？", "出门了", False),  # asked back (the review)
])
def test_a_line_of_the_person_in_the_example_dialogue_is_no_reply(reply, message, copied):
    language = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in message) else "en"
    assert (replycheck.PROGRAM in found(reply, message=message, language=language)) is copied
    if copied:
        assert replycheck.hold_at(reply[:-1], message=message, language=language, persona=XIAOQIAN) == 0


@pytest.mark.parametrize("message", ["我给你起个名字吧", "我给你取了名字叫虾米，你喜欢吗", "我想给你起名字，叫什么好呢？"])
def test_a_name_given_to_the_pet_told_or_offered_is_no_question_of_it(message):
    # (the review of 2026-12-07: the last two got "我叫小钳…")
    assert not replycheck.asks_pet_name(message)


def test_contact_details_offered_are_assistant_speak():
    # used as a person would, to "my spare key is under the blue flowerpot"
    assert replycheck.assistant_speak("You can contact me at the following email addresses:")
    assert not replycheck.assistant_speak("Ooh, under the flowerpot! Sneaky.")


@pytest.mark.parametrize("reply", [
    # round 48's spent chat set, the small model, to "job interview in an hour", "got asked to lead the new project",
    # "exam tmrw and ive read exactly one chapter", "my grandpa's in hospital again", "帮我写个请假条呗" and "这个月又月光了…"
    "I'm not sure how to assist you with that.",
    "I'm ready to help! What's your question?",
    "I am sorry, I do not have enough information to answer your question.",
    "Could you provide me with more context or details about the problem?",
    "I'm really sorry to hear that. Is there something specific you'd like to tell someone about?",
    "请假条呗，是一个功能齐全的请假条生成工具。首先，确保你已经安装了该工具。",
    "下月开始记账。回复在 Simplified Chinese (简体中文）。",
    # used as a person would, to "job interview in an hour, hands are shaking lol"
    "It could be a sign of stress or anxiety, but without more context, I can’t provide a precise answer.",
])
def test_a_helpdesk_at_a_loss_is_assistant_speak(reply):
    assert replycheck.assistant_speak(reply)


@pytest.mark.parametrize("reply", [
    "I know how to help you with this one: eat!", "Ready for the quiz? What is your question for round two?",
    "Is there anything in particular you want to eat?", "我在用这个工具挖沙子。", "Ooh, you're ready to help me?",
    # (the review of 2026-12-07)
    "Of course! What's your question?", "Ooh an exam! I'm ready to help you study, quiz me!", "好呀，以后回复用中文～",
    "你的新手机功能齐全的", "Is there anything in particular you want to tell me about your day?",
])
def test_a_pets_words_near_a_helpdesks_are_not(reply):
    assert not replycheck.assistant_speak(reply)


def test_the_person_as_the_subject_of_a_past_day_is_the_prompts_words():
    # round 48's spent chat set, the small model, to "sooo tired i could sleep standing up"
    assert replycheck.PROGRAM in found("The person slept for 5 hours and was asleep.",
                                       message="sooo tired i could sleep standing up", language="en")
    # (a date is no one of the list of others: the review)
    assert replycheck.PROGRAM not in found("Aww, the person seems lovely!", message="had a first date tonight",
                                           language="en")


@pytest.mark.parametrize("message, reply, echo", [
    # used as a person would: the question for a fact said back with its persons turned round
    ("what do you do all day when im at work", "I do all day when I'm at work.", True),
    ("what do you eat for breakfast", "I eat for breakfast.", True),
    # a question answered yes or no may be answered in its own words
    ("do you like me?", "I like you!", False), ("你喜欢我吗", "我喜欢你！", False), ("你想不想我", "我想你！", False),
    ("what's your favourite food?", "My favourite food is shrimp pellets!", False),
    ("where do you live", "I live in your computer!", False),
])
def test_the_message_turned_round_is_an_echo(message, reply, echo):
    assert (ECHO in found(reply, message=message, language=replycheck.detect_language(message))) is echo


@pytest.mark.parametrize("reply, message, wrong", [
    # English in a row in a Chinese reply (used as a person would: "我今天是我们的 very first day together. 没有熬夜。")
    ("我今天是我们的 very first day together. 没有熬夜。", "我不熬夜了！", True),
    ("好呀，iPhone 15 Pro Max 很贵哦", "我想买iPhone 15 Pro Max", False),  # the message's own words
    ("OK，没问题", "帮我一下", False), ("Claws out! 钳钳来啦", "嗨", False),  # two words or fewer
    ("“I love you” 就是我爱你", "我爱你用英语怎么说", False),  # English asked about
    ("可以看《The Shawshank Redemption》这部电影，很好看的哦", "推荐个电影", False),  # a title keeps its capitals
    ("今天天气很好，我们可以去 New York City 玩一玩，好不好呀", "去哪玩", False),
])
def test_english_in_a_row_in_a_chinese_reply_is_the_wrong_language(reply, message, wrong):
    assert replycheck.wrong_language(reply, "zh", message, load_persona("xiaoqian")) is wrong
