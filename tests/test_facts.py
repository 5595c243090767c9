"""The fact inside a request to remember, and "forget it" that forgets nothing."""

from __future__ import annotations

import pytest

from pet.tools.facts import dismissal, memory_fact, retracted


@pytest.mark.parametrize(
    "said, fact",
    [
        # English: request wording after the fact, before it, or both
        ("I'm allergic to peanuts, keep it in mind", "I'm allergic to peanuts"),
        ("Note that I'm allergic to peanuts, keep it in mind.", "I'm allergic to peanuts"),
        ("my sister's birthday is May 3, don't forget", "my sister's birthday is May 3"),
        ("My locker is 327. Remember that!", "My locker is 327"),
        ("I moved to Hangzhou, could you remember that for me?", "I moved to Hangzhou"),
        ("peanuts make me sick - keep in mind", "peanuts make me sick"),
        ("my PIN hint is blue, got it?", "my PIN hint is blue"),
        ("Remember that I code after 11pm", "I code after 11pm"),
        ("please note: the gate code is 4411", "the gate code is 4411"),
        # quotes around the fact and a bare pronoun go
        ('"my locker is 327"', "my locker is 327"),
        ("'I take the 8:10 train', don't forget it", "I take the 8:10 train"),
        ("it: my wifi password is hunter2", "my wifi password is hunter2"),
        ("it", ""),
        # Chinese
        ("以后叫我小鱼就行，记住了吗？", "以后叫我小鱼就行"),
        ("我搬到杭州了，记一下", "我搬到杭州了"),
        ("我搬家了记一下", "我搬家了"),
        ("我喜欢绿茶，别忘了哦", "我喜欢绿茶"),
        ("我对花生过敏，一定要记住哦！", "我对花生过敏"),
        ("妈妈的生日是3月5日，请记好了", "妈妈的生日是3月5日"),
        ("帮我记一下：妈妈的生日是3月5日", "妈妈的生日是3月5日"),
        ("“我对花生过敏”", "我对花生过敏"),
        ("「车位是B2-117」，记住", "车位是B2-117"),
        ("小明的生日是5月3日你记住了吗", "小明的生日是5月3日"),
        ("这个", ""),
        # the request in other words
        ("keep track of this one for me, my shoe size is 38 EU", "my shoe size is 38 EU"),
        ("can you hold onto this for me: my blood type is O negative", "my blood type is O negative"),
        ("i want you to remember that i hate being called Kathy", "i hate being called Kathy"),
        ("store that somewhere: the wifi is hunter2", "the wifi is hunter2"),
        ("save this for me: my locker is 118", "my locker is 118"),
        ("commit that to memory, my shoe size is 44", "my shoe size is 44"),
        ("put this in your memory bank: Jun's number ends in 31", "Jun's number ends in 31"),
        ("make a mental note that I'm off on Fridays", "I'm off on Fridays"),
        ("make a note of my address: 5 Elm St", "make a note of my address: 5 Elm St"),  # as before
        ("make a note to buy milk", "make a note to buy milk"),
        ("这个你得记牢：我不吃香菜，一点都不行", "我不吃香菜，一点都不行"),
        ("把这个存进你脑子里：我的快递柜码是6623", "我的快递柜码是6623"),
        ("我的工号是A20931，帮我存到你脑子里", "我的工号是A20931"),
        ("我周三没空，你要记得", "我周三没空"),
        # facts that merely contain such words stay whole
        ("我昨天去了超市，你记得吗", "我昨天去了超市，你记得吗"),
        ("我把钥匙存到柜子里了", "我把钥匙存到柜子里了"),
        ("I keep this diary, it helps", "I keep this diary, it helps"),
        ("Keep it down, the baby's sleeping.", "Keep it down, the baby's sleeping."),
        ("Save it, I don't want to hear it", "Save it, I don't want to hear it"),
        ("Put it down, I'm tired", "Put it down, I'm tired"),
        ("You must know my sister, she lives next door", "You must know my sister, she lives next door"),
        ("我工资都没花，存着", "我工资都没花，存着"),
        ("I never forget a face", "I never forget a face"),
        ("Things I don't forget", "Things I don't forget"),
        ("It is good to keep in mind", "It is good to keep in mind"),
        ("Remembering names is hard for me", "Remembering names is hard for me"),
        ('my motto is "carpe diem"', 'my motto is "carpe diem"'),
        ("it's raining in my flat", "it's raining in my flat"),
        ("我终于把乘法表记住了", "我终于把乘法表记住了"),
        ("i like GREEN tea!", "i like GREEN tea!"),
        ("我的车位号是B2-117，记着点", "我的车位号是B2-117"),
        ("我女儿对青霉素过敏，你帮我记住吧，万一哪天要去医院", "我女儿对青霉素过敏"),  # why, after the request
        ("my passport expires in may 2029. remember that, I don't need a reminder", "my passport expires in may 2029"),
        ("我家狗叫年糕，remember一下哈", "我家狗叫年糕"),
        ("我记性不好，记着点东西就忘", "我记性不好，记着点东西就忘"),  # no request: the words are the fact's own
        ("I can't remember", "I can't remember"),  # "remember" ends an English sentence: no request
        # asked in other words after the fact (round 17's spent set)
        ("my bike lock code is 5521, keep that in ur head for me", "my bike lock code is 5521"),
        ("fyi my landlord is called Oskar, file that away", "fyi my landlord is called Oskar"),
        ("the garage code is 7-7-1-3, save that somewhere pls, i'll never remember it", "the garage code is 7-7-1-3"),
        # round 23's spent tool-use set: both were kept as nothing
        ("i take my coffee with oat milk, save that somewhere in ur brain", "i take my coffee with oat milk"),
        ("remember一下 我的frequent flyer号码是CA88172390", "我的frequent flyer号码是CA88172390"),
        ("Remember 一下：我血型O", "我血型O"),  # (review)
        ("我同事对花生过敏，这个你得记牢", "我同事对花生过敏"),
        ("地库车位是C区118，千万别让我忘了啊", "地库车位是C区118"),
        ("别让我忘了交水费", "别让我忘了交水费"),  # a thing to do, asked before it: no fact here
        ("I'm skipping the gym today, is that ok?", "I'm skipping the gym today, is that ok?"),  # a question
        ("save that for me, I'll eat it later", "save that for me, I'll eat it later"),  # a thing, not a fact
        ("my locker is 88, remember that, in case I forget, and my bike code is 4321",
         "my locker is 88, remember that, in case I forget, and my bike code is 4321"),  # more after it
        # what it is kept for, after the request (round 20's spent set: the content was "for when she visits")
        ("my sister-in-law Ingrid is vegan, so remember that for when she visits", "my sister-in-law Ingrid is vegan"),
        ("my bike code is 3321, note it so I don't ask again", "my bike code is 3321"),
        ("so remember that for when she visits", ""),  # only what for: no fact in it
        # ...but a fact that opens with such words is kept whole (the review found them emptied)
        ("for future reference, my blood type is O+", "for future reference, my blood type is O+"),
        ("So I can't eat gluten anymore", "So I can't eat gluten anymore"),
        # the person's own "I'll remember that" is no request to the pet
        ("the store closes at 9, I will remember that for next time",
         "the store closes at 9, I will remember that for next time"),
        ("the gym moved me to locker 212, save that for me so i don't wander around", "the gym moved me to locker 212"),
        ("my pin is 4432, remember that so I can find it and my code is 12",
         "my pin is 4432, remember that so I can find it and my code is 12"),  # more after it
        # round 29's spent tool-use set: asked in other words, or with a laugh after
        ("heads up i dont eat pork, save that somewhere in ur little crayfish brain", "heads up i dont eat pork"),
        ("my goldfish is called Biscuit, dont forget it lol", "my goldfish is called Biscuit"),
        ("my dentist is dr. kim, dont let me forget that", "my dentist is dr. kim"),
        ("我对花生过敏 你脑子里存一下", "我对花生过敏"),
        ("我的车位是B2-117，在你的小本本上记一下", "我的车位是B2-117"),
        ("你帮我记着点 以后好打招呼", ""),  # the request and what for: the fact is elsewhere
        ("以后叫我小鱼就行，记住了吗？", "以后叫我小鱼就行"),
        ("下次别忘了带伞", "下次别忘了带伞"),  # no request to the pet
        ("我把乘法表记在脑子里了", "我把乘法表记在脑子里了"),
        ("i won't let me forget that", "i won't let me forget that"),
        # round 30's spent tool-use set: a chat word before the request, what it is kept for said to the pet
        ("our plumber is Mr. Osei btw, pls don't lose that", "our plumber is Mr. Osei"),
        ("i'm vegan, make a note of it so u don't suggest steak lol", "i'm vegan"),
        ("我家新来的仓鼠叫芝麻，你可别忘了哦", "我家新来的仓鼠叫芝麻"),
        ("I lose my keys all the time, don't I", "I lose my keys all the time, don't I"),
        ("the game starts at 8 btw", "the game starts at 8 btw"),  # no request: the chat word stays
        ("important thing: my gate code is 4410, remember it", "my gate code is 4410"),
        ("my brother's nickname is Lol, don't forget it", "my brother's nickname is Lol"),  # a value, not a laugh
        # a particle after the asking is no part of the fact
        ("记一下吧，我的工号是7781", "我的工号是7781"), ("帮我记住呀，我对芒果过敏", "我对芒果过敏"),
        # where it is kept, said after the request (round 48's spent set kept "down in your memory")
        ("Tobias hates cilantro, note that down in your memory", "Tobias hates cilantro"),
        ("note that down in your memory: my locker is 77", "my locker is 77"),
        ("my bike code is 4312, save it in ur little crayfish brain", "my bike code is 4312"),
        ("note that the gym closes at 9", "the gym closes at 9"),
        # "down" and "away" of the fact itself stay (the review)
        ("remember: down payment is due on the 5th", "down payment is due on the 5th"),
        ("note that away games start at 3pm", "away games start at 3pm"),
    ],
)
def test_the_fact_loses_the_request_wording_and_quotes(said, fact):
    assert memory_fact(said) == fact


@pytest.mark.parametrize("said, fact", [
    ("pls remember im lactose intolerant", "im lactose intolerant"),
    ("我的工号是Z-7781，记着点", "我的工号是Z-7781"),
    ("I'm lactose intolerant", None),  # a bare fact is noted, not asked to be kept
    ("remember to call mom", None),  # a thing to do
    ("can you remember my name?", None),  # a question
    ("我记住了", None),
    # words about remembering: what is left is no fact (the review found these saved as memories)
    ("I can't remember", None), ("do you remember", None), ("I've lived here as long as I can remember", None),
    ("Sure, I'll remember that, no need to worry", None), ("I always save it, just in case", None),
    ("我会记一下，到时候再说", None), ("我得记一下，万一忘了", None), ("remember how we met", None),
    # asked in other words before a colon or a comma; idioms and talk of saving are not
    ("save this about me: I'm a night owl", "I'm a night owl"),
    ("don't let this slip your mind: my dentist is Dr. Lam", "my dentist is Dr. Lam"),
    ("jot this down: the wifi at work is Orca-5G", "the wifi at work is Orca-5G"),
    ("帮我存一下：我的工号是7781", "我的工号是7781"), ("备忘一下：我的社保号尾号是3321", "我的社保号尾号是3321"),
    ("remember一下，我的学号是20211876", "我的学号是20211876"),
    ("Keep it down, the baby's sleeping.", None), ("save it, I don't want to hear it", None),
    ("write that down, you're hilarious", None), ("keep that away, it's gross", None),
    ("记录一下今天的心情", None), ("存款又少了，烦", None),
    # why it is told now is not the fact, and asks nothing by itself
    ("oh and before i forget, my niece Priyanka turns six on june 14 — keep that in mind.",
     "my niece Priyanka turns six on june 14"),
    ("before i forget, remember that my pin is 4412", "my pin is 4412"),
    ("before i forget, i was going to tell you about my trip", None),
    ("can u remember for me that my gym closes at 10 on sundays", "my gym closes at 10 on sundays"),
    # "ya" and "ur" for "your" (round 38's spent set)
    ("store this in ya memory: my blood type is O negative", "my blood type is O negative"),
    ("put this in ur memory, my blood type is O negative", "my blood type is O negative"),
    # any short request to keep "this" before a colon, and a few after the fact (round 42's spent tools set)
    ("keep this somewhere safe: my bike lock code is 4-7-1-9", "my bike lock code is 4-7-1-9"),
    ("don't let me lose this: my blood type is O negative", "my blood type is O negative"),
    ("stash this one for later: my seat is 14C", "my seat is 14C"),
    ("i don't eat cilantro, tastes like soap to me. store that pls", "i don't eat cilantro, tastes like soap to me"),
    ("my seat is 14C, keep that safe for me", "my seat is 14C"),
    ("keep it simple: i want pizza", None), ("put it this way: i hate mondays", None),
    ("i can't remember: was it 4471?", None),
    # ...and in Chinese (seen on the page: "这个帮我收好：我的车位是B3-022" kept nothing, and the model said it had)
    ("这个帮我收好：我的车位是B3-022", "我的车位是B3-022"), ("帮我留个底：我的保单号是PA2231", "我的保单号是PA2231"),
    ("这个存好别丢了：我的会员号是66120", "我的会员号是66120"), ("收好了，谢谢", None),
])
def test_a_message_asks_to_keep_a_fact(said, fact):
    from pet.agent.reflexes import kept_fact

    assert kept_fact(said) == fact


@pytest.mark.parametrize(
    "said, rest",
    [
        ("Forget it, never mind.", ""),
        ("forget it", ""),
        ("Forget about it, what time is it?", "what time is it?"),
        ("never mind", ""),
        ("nvm, I found it", "I found it"),
        ("算了，别管了", ""),
        ("算了，帮我记一下明天买牛奶", "帮我记一下明天买牛奶"),
        ("别管了。", ""),
        ("forget I said anything", ""),
        ("ugh never mind, forget I said anything 😂", "😂"),
        ("forget that I asked that, what's the time?", "what's the time?"),
    ],
)
def test_dismissals_drop_the_subject(said, rest):
    assert dismissal(said) == rest


@pytest.mark.parametrize("said", ["forget that I like coffee", "forget my old address", "forgetting things",
                                  "forget I said I like tea",
                                  "忘掉我喜欢咖啡这件事", "算数题好难",
                                  "算了一下，3+5等于几"])
def test_real_requests_are_not_dismissals(said):
    assert dismissal(said) is None


@pytest.mark.parametrize("text, deleting", [
    ("i forgot my keys again", False), ("lmao i just forgot my own password", False),  # the person's own forgetting
    ("forget my old address", True), ("i forgot to say: forget my old address", True),
    # a deletion refused (round 37's spent set: "…I refuse to delete anything" was a forget of the whole message)
    ("my phone's storage is 98% full and I refuse to delete anything", False), ("手机满了但我舍不得删照片", False),
    ("I won't delete it", False), ("删掉那条", True),
    # asking to keep (round 46's spent set: the served model called forget on the first)
    ("my gym locker is 214, don't let me forget", False), ("don't let me forget to call mom", False),
])
def test_the_persons_own_forgetting_asks_to_delete_nothing(text, deleting):
    from pet.tools.facts import asks_deleting
    assert asks_deleting(text) is deleting



@pytest.mark.parametrize("text, taken_back", [
    # round 27's spent set: a taking-back after a space, after 哎呀, a bare 不用记, and the answer found after 算了
    ("帮我记一下…哎呀 不对 不用记 当我没说", True), ("取消取消 当我没说", True), ("35乘以12等于…算了我自己算出来了 420", True),
    ("提醒我 不用了 我自己记得", True),
    # corrections and news stay
    ("记住我妹妹叫小红，算了，她叫小美", False), ("明早八点提醒我，不对，九点", False), ("提醒我明天8点开会 不对 9点", False),
    ("我今天不用上班 好开心", False),
    # a correction with what the person did already keeps the new value (the review of 2026-12-05)
    ("记住我的车位是B2-108，不对，我已经换到B3-20了", False), ("提醒我明天8点开会 不对 我已经改到9点了", False),
    # a joke's particles (round 28's spent set), and the truth said after a joke (the review of 2026-12-05)
    ("128乘以7等于多少……开玩笑的啦，我自己会算", True), ("帮我记住我明天放假，开玩笑的哈", True),
    ("记住我明天生日，开玩笑的啦，其实是后天", False), ("remind me friday to call mom jk, actually thursday at 5pm", False),
    # the correction itself ends by taking it back (round 46's spent set: the password half-said was remembered)
    ("帮我记住我的新密码是…啊不对，密码还是别记了", True), ("记住我的密码是1234，还是别记了", True),
    ("记住我爱吃辣，不对，是超爱吃辣", False),
    # ...not when the correction gave a new value first (the review of 2026-12-07)
    ("记住我的wifi密码是1234，不对，是5678，旧的那个别记了", False), ("remember my locker is 214, wait no, 241, the old one nvm", False),
])
def test_a_request_taken_back_in_chat_chinese(text, taken_back):
    assert retracted(text) is taken_back


@pytest.mark.parametrize("text, taken_back", [
    ("set a reminder for... eh, actually i'll just remember it myself", True),
    ("提醒我明天交水费……算了我自己记吧", True),
    # the task done by the person, not the pet's part (the review of 2026-12-05)
    ("remind me at 6pm to buy the cake stuff, i'll bake it myself", False),
    ("提醒我周六上午十点买材料，我自己弄", False),
    ("帮我记一下：周六搬家，我自己来", False),
])
def test_a_request_ended_by_keeping_it_oneself_is_taken_back(text, taken_back):
    from pet.tools.facts import retracted

    assert retracted(text) is taken_back
