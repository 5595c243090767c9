"""A name in Latin letters and in Chinese characters is one name (pet.memory.names)."""

from __future__ import annotations

import pytest

from pet.memory import names


@pytest.mark.parametrize("fact, memory", [
    ("Tiedan has a new name: Captain", "我收养了一只流浪狗，叫铁蛋"),
    ("陶森毕业了，在医院当兽医", "My younger brother Tao Sen is studying veterinary medicine"),
    ("我和Bartek分手了", "My boyfriend Bartek runs a pierogi place"),
    ("跟Mira订婚了", "My girlfriend Mira is a flight attendant"),
    # a Latin name right beside Chinese characters (seen on the page: no word boundary there)
    ("我和Leo分手了", "我男朋友叫Leo，是个厨师"),
    ("Fen moved out to live with her girlfriend", "室友阿芬又偷喝我酸奶"),
    ("Daniel proposed last weekend", "My boyfriend's name is Daniel"),
    ("我和 Tomasz 上个月领证了", "My boyfriend Tomasz blows glass for a living"),  # a space after 我和
    ("我把Waffle改名叫团子了", "I adopted a lop-eared rabbit called Waffle"),
])
def test_a_fact_opening_with_a_name_is_linked_to_the_memory_naming_them(fact, memory):
    assert names.named(names.leading(fact), memory)


@pytest.mark.parametrize("fact, memory", [
    # a word at the start of both is no name
    ("Sold the bike", "Sold my car last year"),
    # Chinese opening words match Latin letters only, never the same characters
    ("今天很累", "今天我搬家了"),
    ("周末去爬山了", "周末一般在家"),
    # another name
    ("Tiedan has a new name", "我养了一只猫，叫团子"),
    # a fact that opens with "I"
    ("I moved to Lisbon", "My friend Ivy moved to Lisbon"),
    # found by a review: a capitalised common word, and 小/老 before one character (words, not names)
    ("The landlord raised my rent", "My favourite show is The Office"),
    ("Mei got a new job", "我小妹在北京上大学"),
    ("Jia is married now", "我老家在四川"),
])
def test_other_words_link_nothing(fact, memory):
    assert not names.named(names.leading(fact), memory)


def test_pinyin_drops_the_tones_and_gives_nothing_for_other_characters():
    assert names.pinyin("铁蛋") == "tiedan"
    assert names.pinyin("a蛋") == ""


@pytest.mark.parametrize("one, other", [
    ("Gave Tangyuan to my niece Tingting", "家里养了一只荷兰猪，叫汤圆，半夜特别能叫"),
    ("Peng Hao and I broke up", "我男朋友叫彭浩，在双流机场当气象员"),
    ("my brother Yiming got into the police academy in nanjing", "我弟苗一鸣还在读高三"),
    # two capitalised words that are each pinyin, a bare vowel too (round 50's spent memory set: "A Da lives with my
    # nephew now" found no "六角恐龙叫阿大")
    ("A Da lives with my nephew Lele now", "我家有只粉色的六角恐龙叫阿大"),
])
def test_a_name_in_pinyin_anywhere_is_the_name_in_characters(one, other):
    assert names.shared(one, other) and names.shared(other, one)


@pytest.mark.parametrize("one, other", [
    # a foreign name written by its sound (round 49's spent memory set: "我跟拉斐尔离婚了" found no memory to update)
    ("My husband Rafael is Brazilian, he's a chef", "我跟拉斐尔离婚了，手续上周办完的"),
    ("My husband Bater drives long-haul trucks", "我跟巴特尔离婚了"),
    ("I drive a beat-up silver Jetta", "那辆捷达卖掉了，换了一辆二手皮卡"),
    ("My friend Oliver plays the oboe", "奥利弗搬去伦敦了"), ("Emily is my roommate", "我室友艾米丽回国了"),
])
def test_a_foreign_name_written_by_its_sound_is_the_name(one, other):
    assert names.shared(one, other) and names.shared(other, one)


@pytest.mark.parametrize("latin, chinese, alike", [
    ("Rafael", "拉斐尔", True), ("Daniel", "丹尼尔", True), ("Martin", "马丁", True), ("Hannah", "汉娜", True),
    ("David", "大卫", True), ("Peter", "彼得", True), ("Ingrid", "英格丽德", True),
    ("Rafael", "拉达", False), ("Emily", "马克", False), ("Oliver", "利弗", False),  # no vowel to open with
    ("Anna", "安娜", False), ("Lily", "莉莉", False),  # one consonant says too little
    ("Rafael", "拉斐尔离婚", False), ("Mark", "喜欢", False),  # words of other characters are no name
])
def test_the_sound_of_a_name(latin, chinese, alike):
    assert names.sounds_alike(latin, chinese) is alike


@pytest.mark.parametrize("one, other", [
    ("women are great", "我们是好朋友"),  # grammar, not a name
    ("I grew up in Xining", "我爸在西宁家里养了一屋子鸽子"),  # a place two facts share says nothing of whom
    ("Home for now is a tiny flat in Haishu district, Ningbo", "我在宁波天一阁做古籍修复"),
    ("My dad is a postman in Jingdezhen", "我老家是江西景德镇的"),
    ("I love bananas", "我喜欢吃香蕉"),
    ("Susan moved away", "我住在西安"), ("I love Paris", "我在巴黎"),  # a place by its sound
    # a word, or part of one, that sounds like a name (the review of 2026-12-07)
    ("My dog Molly loves running with me", "半程马拉松不跑了"), ("My boss Mark is strict", "马克杯摔碎了"),
    ("My cat Millie", "她很美丽"), ("Sally is my sister", "今天吃了沙拉"), ("Dylan is my son", "我爱吃提拉米苏"),
])
def test_grammar_and_places_are_no_shared_name(one, other):
    assert not names.shared(one, other)


@pytest.mark.parametrize("one, other", [
    # found by a review: English words read as rare readings or as bare syllables
    ("I used to hate sushi but now I love it", "我住在学校宿舍"), ("My new boss is so rude, I switched teams", "我每个月底都会去看望奶奶"),
    ("I like it a lot", "我立刻就去"), ("that was a huge mistake", "我喜欢胡歌"),
    ("A Day to remember", "阿大"), ("I Am here", "我爱你"),  # a capitalised pair of English words
])
def test_an_english_word_is_no_name_in_pinyin(one, other):
    assert not names.shared(one, other)
