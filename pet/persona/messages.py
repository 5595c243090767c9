"""The lines the program writes itself, in one bilingual catalogue.

Whatever pet is adopted says them, so a template names no pet: it takes
`{name}`, `{full_name}`, `{species}`, `{a_species}` and `{emoji}` from the
persona (the emoji from the persona file, else a neutral one). A persona file
may word any of these lines its own way under `[lines]`, which is where a
pet's flavour belongs (a crayfish's tangled claws), never in code.
"""

from __future__ import annotations

import string
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pet.persona.model import Persona

#: the emoji of a pet whose persona gives none, and of pages that name no pet
NEUTRAL_EMOJI = "🐾"

#: what every template may use, filled from the persona
PET_FIELDS = ("name", "full_name", "species", "a_species", "emoji")

CATALOGUE: dict[str, dict[str, str]] = {
    # The agent's own answers when the model gave none.
    "turn_cap": {
        "zh": "呜，{name}绕晕了……这件事没能办完，换个说法再试试？",
        "en": "Ugh, I got tangled up and couldn't finish that. Could you ask another way?",
    },
    "repeat": {
        "zh": "{name}好像在原地转圈圈……先停一下，换个说法告诉我好吗？",
        "en": "I'm going round in circles, so I stopped. Could you put it another way?",
    },
    "brain_down": {
        "zh": "{name}的脑袋暂时连不上了……稍后再试试？",
        "en": "My brain isn't answering right now. Try again in a moment?",
    },
    "empty": {
        "zh": "{name}张了张嘴，却什么也没说出来……再说一遍？",
        "en": "I opened my mouth and nothing came out. Say that again?",
    },
    # The reply guards (pet.agent.replycheck): the model's reply failed twice.
    "off_script": {
        "zh": "嗯……我一时不知道怎么接，再跟我多说一点？",
        "en": "Hmm, I'm not sure what to say to that yet. Tell me a bit more?",
    },
    # ... after the pet noted a fact of the message ("my boyfriend is called Lukas"): that it kept it.
    "off_script_noted": {
        "zh": "嗯嗯，{name}记下啦。再跟我多说一点？",
        "en": "Got it, I'll keep that in mind. Tell me more?",
    },
    # ... the same, saying back to the person what it kept ({fact}: "你在医院当护士", "you work as a nurse"), so
    # that it answers this message and not every one alike
    "off_script_noted_fact": {
        "zh": "嗯嗯，{name}记下啦：{fact}。再跟我多说一点？",
        "en": "Got it, I'll keep that in mind: {fact}. Tell me more?",
    },
    # ... to news that worries the person or saddens them ("我爸查出来高血压，我好担心他"): gently, kept or not (a cheerful
    # "noted!" read as careless on the page)
    "off_script_worried": {
        "zh": "听起来你很担心……我在这儿陪着你。想多说说吗？",
        "en": "That sounds worrying… I'm right here with you. Want to talk about it?",
    },
    # ... to a message in a low mood, by its words ("so tired i could sleep on the bus floor", "got ghosted after 3
    # dates. whatever. im fine. (im not fine)": round 44's spent chat set got "You are still fine." and "not sure
    # what to say"): with them, asking nothing of them
    "off_script_low": {
        "zh": "听起来不太好受……我在这儿陪你，想说就说。",
        "en": "That sounds rough… I'm right here. Tell me about it, if you like.",
    },
    # ... the same after it noted a fact of the message ("牙疼了一整晚，半边脸都肿了", "3 night shifts in a row. my eyes
    # feel like sandpaper": round 45's spent chat set got "Got it, clamped tight: …! Tell me more?", cheerful)
    "off_script_noted_low": {
        "zh": "听起来不太好受……{name}记下了，我在这儿陪你。",
        "en": "That sounds rough… I'll remember it. I'm right here.",
    },
    # ... to the person's own good news ("I PASSED MY DRIVING TEST ON THE FOURTH TRY"), kept or not: glad with them
    "off_script_glad": {
        "zh": "哇，太棒了！恭喜恭喜！快跟我说说？",
        "en": "Whoa, that's great news! Congrats! Tell me everything?",
    },
    # ... to a joke the person told, riddle and answer (the model said it back)
    "off_script_laugh": {
        "zh": "哈哈哈！被你逗乐了～还有吗？",
        "en": "Haha! That one got me. Got another?",
    },
    # ... to a request to write a plan, a letter, a recipe (the model wrote an assistant's document).
    "off_script_writing": {
        "zh": "写这么正经的东西，{name}的小脑袋装不下……不过我可以陪你一起想！你最想先弄哪一部分？",
        "en": "Writing something that big is beyond a little {species} like me… but I can think it through "
              "with you! Where do you want to start?",
    },
    # ... when the reply gave the pet another name twice: its own, said by code.
    "own_name": {
        "zh": "我叫{name}，是住在你电脑里的{species}！",
        "en": "I'm {name}, {a_species} who lives on your computer!",
    },
    # ... to "how old are you?": the days it has lived with the person (a small model made up "I am 17 years old, as a
    # crayfish." on day 365, round 35's spent chat set)
    "own_age": {
        "zh": "跟你一起过了{span}啦，这就是{name}的年纪！",
        "en": "I've lived with you for {span}, so that's my age!",
    },
    "own_age_new": {
        "zh": "{name}今天才搬进来，才零天大呢！",
        "en": "I only moved in today, so I'm zero days old!",
    },
    # ... when the person took the request back ("帮我记一下…哎呀 不对 不用记 当我没说") and the reply still claimed it done.
    "taken_back": {
        "zh": "好，当我没听见～",
        "en": "Okay, never mind, consider it unheard!",
    },
    # The claim guard: the reply said the pet did what no tool did.
    "not_done_remember": {
        "zh": "（其实我还没记下来。说“记住……”我就记。）",
        "en": "(Actually, I haven't saved that yet. Say \"remember that …\" and I will.)",
    },
    "not_done_forget": {
        "zh": "（其实我还没删掉。说“忘掉……”我就删。）",
        "en": "(Actually, I haven't forgotten anything yet. Say \"forget …\" and I will.)",
    },
    "not_done_set_reminder": {
        "zh": "（其实我还没设好提醒。说“明天早上8点提醒我……”就行。）",
        "en": "(Actually, no reminder is set yet. Say \"remind me at 9pm to …\" and I will.)",
    },
    "not_done_add_todo": {
        "zh": "（其实我还没加进待办。说“待办加一条……”就行。）",
        "en": "(Actually, your todo list has nothing new yet. Say \"add … to my todo list\" and I will.)",
    },
    # The greeting (pet.persona.greeting).
    "first_meeting": {
        "zh": "你好呀，我是{name}，一只{species}！今天是我们认识的第一天，请多关照～",
        "en": "Hello! I'm {name}, {a_species}. Today is our very first day together; nice to meet you!",
    },
    "hello": {"zh": "你好呀，我是{name}！", "en": "Hello! I'm {name}."},
    "first_day": {"zh": "今天是我们认识的第一天。", "en": "Today is our very first day together."},
    "grew": {"zh": "{name}长大啦，现在是「{stage}」！", "en": "I've grown into a new stage: {stage}!"},
    # What the pet says unasked, in its conversation (pet.scheduler.speak).
    "reminder_due": {"zh": "⏰ 提醒：{text}", "en": "⏰ Reminder: {text}"},
    "reminder_late": {"zh": "⏰ 提醒（晚了一点）：{text}", "en": "⏰ Reminder (a little late): {text}"},
    # The pages.
    "say_hi": {"zh": "说点什么吧！", "en": "Say hi!"},
    "sign_in": {"zh": "登录", "en": "Sign in"},
}


def fields_of(key: str) -> set[str]:
    """The placeholders a line may use: the pet's own, and those its
    catalogue templates use (what the caller supplies, such as {stage})."""
    used = {
        field
        for template in CATALOGUE[key].values()
        for _, field, _, _ in string.Formatter().parse(template)
        if field
    }
    return used | set(PET_FIELDS)


def pet_emoji(persona: Persona | None) -> str:
    return (persona.emoji if persona is not None else "") or NEUTRAL_EMOJI


def pet_values(persona: Persona | None, language: str) -> dict[str, str]:
    """The persona's values for the templates, in `language`."""
    if persona is None:
        return {"emoji": NEUTRAL_EMOJI}
    lang = persona.language(language)
    species = persona.species_name.get(lang) or persona.species
    article = "an" if species[:1].lower() in "aeiou" else "a"
    return {
        "name": persona.display_name(lang),
        "full_name": persona.full_name(),
        "species": species,
        "a_species": f"{article} {species}",
        "emoji": pet_emoji(persona),
    }


def say(key: str, language: str, persona: Persona | None = None, **values: Any) -> str:
    """The line `key` in `language` ("zh" or "en"), as this pet words it.
    Without a persona only lines that name no pet can be said."""
    if persona is not None:
        language = persona.language(language)
    lang = "zh" if language == "zh" else "en"
    own = persona.lines.get(key, {}) if persona is not None else {}
    template = own.get(lang) or CATALOGUE[key][lang]
    return template.format(**pet_values(persona, lang), **values)


def both(key: str, persona: Persona | None = None, *, order: tuple[str, ...] = ("zh", "en"), sep: str = " ",
         **values: Any) -> str:
    """The line in both languages, for pages read before a language is known."""
    return sep.join(dict.fromkeys(say(key, lang, persona, **values) for lang in order))


def chat_placeholder(persona: Persona) -> str:
    """What the empty chat shows, e.g. "🐾 豆豆 (Doudou): 说点什么吧！ Say hi!"."""
    return f"{pet_emoji(persona)} {persona.full_name()}: {both('say_hi', persona)}"


def sign_in_heading() -> str:
    """The sign-in page names no pet: whoever sees it has not signed in yet."""
    return f"{NEUTRAL_EMOJI} {both('sign_in', order=('en', 'zh'), sep=' · ')}"
