"""Related words: a question and a memory that say one thing in other words.

Recall is lexical, so "When was Mira born?" misses "Mira's birthday is
March 5", and "王芳在哪上班" misses "王芳在腾讯工作". A concept below lists
the words people use for one kind of personal fact, in English and in
Chinese; a search term that is one of them also looks for the others
(`expand`), at a lower weight (search.py), and only where the memory lacks
the term itself.

The rule, and its limits:
- An English word stands for its regular forms (drive: drives, driving,
  driver) and is matched as a whole word, so "pet" never finds "Peter";
  an irregular form is a word of its own (born, ate, drove). The question
  side meets the table on recall.stem, as the search terms do.
- Words after "|" are kinds of the concept: a kind brings in the
  concept's general words, never the other kinds (dog looks for "pet",
  not for "cat"); a general word brings in everything.
- A term's related words are of its own script. Its translations, the
  words of the other script in the same concepts (`across`: tea -> 茶,
  乌龙; 名字 -> name), are looked for only when the words of the
  message's own language found too little (search.py).
- Chinese words match as substrings, like every Chinese search term: 猫
  finds 猫咪, and now and then a word it is only a part of (熊猫).
- No word senses: "watch" is always watching a film, "call" both a phone
  call and a name. At most PER_TERM related words per term, MAX_RELATED in
  all, the first listed first.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Sequence

from pet.memory.recall import Term, stem
from pet.text import CJK_CHAR

#: related words one term brings in at most, the first listed first
PER_TERM = 8
#: related words one message brings in at most
MAX_RELATED = 24
#: words of the other script one term brings in at most (`across`)
ACROSS_PER_TERM = 12


@dataclass(frozen=True)
class Concept:
    """One kind of fact: space-separated words, general ones before "|", kinds after."""

    name: str
    english: str
    chinese: str


# fmt: off
CONCEPTS: tuple[Concept, ...] = (
    # -- people ---------------------------------------------------------------------------------
    Concept("birthday", "birthday birth born bday age old",
            "生日 出生 生辰 岁 年龄 多大 属相"),
    Concept("name", "name called nickname nicknamed",
            "名字 我叫 叫我 名叫 叫 小名 昵称 外号 绰号 全名"),
    Concept("family", "family relative parent sibling | mom mum mother dad father sister brother "
                      "grandma grandpa aunt uncle cousin son daughter wife husband",
            "家人 家里人 亲戚 亲人 家庭 父母 | 妈妈 爸爸 姐姐 妹妹 哥哥 弟弟 奶奶 爷爷 "
            "外婆 外公 阿姨 叔叔 舅舅 儿子 女儿 老婆 老公"),
    Concept("mother", "mom mum mother mama mommy mummy", "妈妈 母亲 老妈 妈"),
    Concept("father", "dad father papa daddy", "爸爸 父亲 老爸 爸"),
    Concept("sister", "sister sis", "姐妹 | 姐姐 妹妹"),
    Concept("older sister", "", "姐姐 姐 老姐 大姐"),
    Concept("younger sister", "", "妹妹 妹 小妹"),
    Concept("sister in one word", "sister sis", "姐 妹"),
    Concept("brother", "brother bro", "兄弟 | 哥哥 弟弟"),
    Concept("older brother", "", "哥哥 哥 老哥 大哥"),
    Concept("younger brother", "", "弟弟 弟 小弟"),
    Concept("brother in one word", "brother bro", "哥 弟"),
    Concept("grandmother", "grandma grandmother granny nana", "奶奶 外婆 姥姥 祖母 外祖母"),
    Concept("grandfather", "grandpa grandfather granddad gramps", "爷爷 外公 姥爷 祖父 外祖父"),
    Concept("aunt, uncle, cousin", "aunt auntie uncle cousin niece nephew",
            "阿姨 姑姑 姑妈 姨妈 小姨 舅妈 婶婶 叔叔 舅舅 伯伯 姑父 姨父 表哥 表姐 表弟 表妹 堂哥 堂姐 "
            "堂弟 堂妹"),
    Concept("nephew, niece", "nephew niece", "外甥 外甥女 侄子 侄女"),
    Concept("children", "child children kid baby | son daughter", "孩子 小孩 娃 宝宝 | 儿子 女儿"),
    Concept("partner", "partner spouse married dating seeing relationship | wife husband girlfriend boyfriend "
                       "fiance fiancee",
            "对象 伴侣 爱人 结婚 恋爱 谈恋爱 约会 在一起 | 老婆 老公 妻子 丈夫 太太 媳妇 女朋友 男朋友 女友 男友 未婚妻 未婚夫"),
    Concept("spouse", "wife husband spouse", "老婆 老公 妻子 丈夫 太太 媳妇 爱人"),
    Concept("wedding", "wedding anniversary married marry engaged engagement honeymoon",
            "结婚 婚礼 纪念日 订婚 蜜月 领证 嫁 娶"),
    Concept("friend", "friend buddy pal bestie mate neighbor neighbour roommate flatmate housemate",
            "朋友 好友 闺蜜 哥们 死党 发小 老友 邻居 室友 舍友"),
    Concept("loss", "died death funeral grave", "去世 过世 离世 葬礼 忌日"),
    Concept("pregnancy", "pregnant pregnancy expecting baby", "怀孕 预产期 宝宝 生孩子"),
    Concept("body", "tall height short weight weigh kg kilo pound heavy",
            "身高 个子 多高 个头 体重 公斤 斤 多重"),
    # -- work, school, money --------------------------------------------------------------------
    Concept("work", "work job employer company office colleague coworker boss manager career "
                    "employed hired freelance gig",
            "工作 上班 公司 单位 同事 老板 领导 上司 职业 入职 就职 任职 打工 活儿 干活 自由职业 接活"),
    Concept("occupation", "job profession occupation career | teacher engineer nurse doctor programmer "
                          "developer designer lawyer accountant chef",
            "职业 工作 | 老师 工程师 护士 医生 程序员 设计师 律师 会计 厨师"),
    Concept("school", "school study studied college university graduate graduated degree major student "
                      "class course teacher professor classmate",
            "学校 上学 读书 大学 学院 毕业 专业 学位 学生 课程 研究生 高中 老师 教授 同学"),
    Concept("money", "money salary income earn wage pay paid paycheck cost price spend spent budget "
                     "save saving debt loan bank",
            "钱 工资 收入 薪水 月薪 年薪 赚 挣 价格 预算 存款 存钱 贷款 欠 银行"),
    Concept("schedule", "schedule meeting appointment calendar event deadline",
            "日程 安排 开会 会议 预约 截止 忙"),
    # -- home and places ------------------------------------------------------------------------
    Concept("home", "home live lived living house apartment flat address moved move city town "
                    "neighborhood rent landlord lease mortgage",
            "住 住在 家 住址 地址 搬家 搬到 城市 房子 公寓 小区 房租 租 房东 房贷 月供"),
    Concept("hometown", "hometown grew raised native origin", "老家 家乡 故乡 籍贯 出生地 哪里人"),
    Concept("travel", "travel trip vacation holiday visit journey flight fly flew abroad tour",
            "旅行 旅游 出差 度假 假期 出国 去过 机票 行程"),
    Concept("car", "car vehicle drive drove driven license | suv truck van motorcycle motorbike",
            "车 汽车 开车 驾照 | 摩托"),
    Concept("commute", "commute bus subway metro train bike bicycle cycle ferry scooter walk ebike e-bike",
            "通勤 地铁 公交 坐车 骑车 自行车 电动车 电瓶车 小电驴 电驴 轮渡 步行 走路 打车"),
    # -- food and drink -------------------------------------------------------------------------
    Concept("food", "food eat ate eaten cook dish meal dinner lunch breakfast snack cuisine recipe "
                    "restaurant taste delicious hungry",
            "吃 饭 菜 做饭 美食 饭菜 菜品 爱吃 好吃 口味 餐厅 饭店 早饭 午饭 晚饭 零食"),
    Concept("drink", "drink drank beverage | coffee tea juice beer wine milk soda smoothie cocktail",
            "喝 饮料 饮品 | 咖啡 茶 奶茶 绿茶 红茶 乌龙 果汁 啤酒 红酒 酒 牛奶 可乐"),
    Concept("coffee", "coffee latte espresso cappuccino americano mocha", "咖啡 拿铁 美式 卡布奇诺 浓缩"),
    Concept("tea", "tea matcha oolong", "茶 喝茶 奶茶 绿茶 红茶 乌龙 抹茶 茶叶"),
    Concept("allergy", "allergy allergic intolerant intolerance sensitive reaction avoid",
            "过敏 忌口 不能吃 不吃 不耐受 过敏源"),
    Concept("diet", "diet vegetarian vegan halal kosher gluten keto", "素食 吃素 全素 节食 减肥 清真 忌口 生酮"),
    # -- likes and feelings ---------------------------------------------------------------------
    Concept("likes", "love loved like favorite favourite enjoy fond prefer adore",
            "喜欢 爱 最爱 喜爱 热爱 偏爱 钟爱"),
    Concept("dislikes", "hate dislike disgust annoy", "讨厌 不喜欢 恨 受不了 反感 烦 嫌"),
    Concept("fear", "afraid fear scared phobia frightened terrified nervous worry",
            "怕 害怕 恐惧 担心 紧张"),
    Concept("mood", "sad happy upset stress stressed anxious depressed lonely mood",
            "心情 难过 开心 伤心 压力 焦虑 抑郁 孤独"),
    Concept("dream", "dream goal ambition hope wish future plan", "梦想 目标 理想 愿望 希望 打算 计划"),
    Concept("gift", "gift present want wish wishlist surprise", "礼物 送 想要 心愿 惊喜"),
    # -- pastimes -------------------------------------------------------------------------------
    Concept("hobby", "hobby interest pastime free spare weekend | hike read paint game fishing knit "
                     "garden photography dance sing cook play",
            "爱好 兴趣 业余 周末 空闲 闲暇 | 爬山 徒步 看书 阅读 画画 游戏 钓鱼 摄影 跳舞 唱歌 "
            "做饭 玩"),
    Concept("sport", "sport team fan play game match exercise workout gym | football soccer basketball "
                     "baseball tennis golf swim run jog yoga cycling hockey volleyball badminton ski kayak climb "
                     "boulder surf dive pilates boxing fencing rowing skate marathon taichi",
            "运动 体育 球队 球迷 比赛 锻炼 健身 | 足球 篮球 网球 羽毛球 乒乓球 游泳 跑步 瑜伽 "
            "骑车 滑雪 皮划艇 攀岩 冲浪 潜水 击剑 拳击 滑板 跳绳 太极 划船 普拉提 马拉松 柔术"),
    Concept("movie", "movie film cinema watch show series tv actor actress",
            "电影 影片 电视剧 剧 综艺 演员 追剧 影院"),
    Concept("music", "music song sing sang singer band album listen concert playlist",
            "音乐 歌 歌曲 听歌 歌手 乐队 演唱会 专辑 唱歌"),
    Concept("instrument", "instrument play | piano guitar violin drum cello flute saxophone ukulele accordion "
                          "harmonica erhu guzheng theremin trumpet clarinet harp bass",
            # the first ACROSS_PER_TERM words are what an English question looks for
            "乐器 弹 | 钢琴 吉他 小提琴 二胡 古筝 琵琶 笛子 尤克里里 口琴 手风琴 鼓 大提琴 长笛 萨克斯 小号 单簧管 竖琴 贝斯"),
    Concept("book", "book read novel author writer", "书 看书 读书 小说 作者 作家 阅读"),
    Concept("game", "game gaming play console playstation xbox nintendo", "游戏 打游戏 手游 电竞 玩"),
    Concept("festival", "christmas thanksgiving easter halloween festival holiday",
            "春节 过年 中秋 端午 元旦 圣诞 节日"),
    # -- animals, things, body ------------------------------------------------------------------
    Concept("pet", "pet animal vet | dog puppy cat kitten hamster rabbit bunny parrot bird fish turtle tortoise "
                   "ferret budgie pigeon lizard gecko snake",
            "宠物 动物 兽医 | 狗 猫 兔子 仓鼠 鹦鹉 鸟 鱼 乌龟 雪貂 鸽子 蜥蜴 蛇"),
    Concept("dog", "dog puppy pup doggy", "狗 小狗 狗狗"),
    Concept("cat", "cat kitten kitty", "猫 小猫 猫咪"),
    Concept("phone", "phone number call mobile cell contact text email | smartphone iphone android nokia xiaomi "
                     "huawei samsung pixel",
            "电话 手机 号码 手机号 联系 联系方式 微信 邮箱 | 智能手机 苹果手机 安卓 华为 小米 诺基亚 三星"),
    Concept("documents", "passport visa id document documents paperwork", "护照 签证 身份证 证件 户口本"),
    Concept("password", "password passcode pw login", "密码 口令 登录"),
    Concept("clothes", "clothes clothing wear wore worn size fit style | shoe sneaker dress shirt "
                       "jacket coat jeans pants hat",
            "衣服 穿 尺码 尺寸 | 鞋 裙子 衬衫 外套 裤子 帽子"),
    Concept("color", "color colour | red blue green yellow purple pink black white orange",
            "颜色 | 红色 蓝色 绿色 黄色 紫色 粉色 黑色 白色 橙色"),
    Concept("language", "language speak spoke spoken fluent native | english chinese mandarin "
                        "cantonese spanish french german japanese korean",
            "语言 会说 母语 外语 | 英语 中文 汉语 普通话 粤语 西班牙语 法语 德语 日语 韩语"),
    Concept("health", "health sick ill illness doctor hospital dentist clinic checkup therapist "
                      "condition surgery diabetes asthma pressure",
            "健康 身体 生病 病 医生 医院 大夫 牙医 诊所 看病 体检 手术 血压 糖尿病 哮喘"),
    Concept("medicine", "medicine medication pill drug prescription dose", "药 吃药 药物 处方"),
    Concept("sleep", "sleep slept bed bedtime wake woke nap tired insomnia alarm",
            "睡觉 睡 起床 醒 午睡 失眠 熬夜 闹钟 早起"),
    Concept("smoking", "smoke smoking cigarette vape quit", "抽烟 吸烟 烟 戒烟"),
    Concept("collection", "collect collection collector", "收集 收藏 攒"),
    Concept("plants", "plant garden grow balcony windowsill flower succulent orchid bonsai herb",
            "植物 种花 种菜 种了 盆栽 阳台 窗台 多肉 兰花 盆景 绿植"),
    Concept("hair", "hair haircut hairstyle bald shaved", "头发 发型 剪头 光头 剃"),
    Concept("eyes", "glasses lenses contacts lasik eyesight nearsighted", "眼镜 隐形 近视 视力 眼睛"),
    Concept("volunteer", "volunteer volunteering charity", "志愿者 义工 志愿 公益"),
    Concept("teaching", "teach taught class lesson course", "教 课 上课 讲课 课程"),
    # -- days of the week -------------------------------------------------------------------------
    Concept("monday", "monday", "周一 星期一 礼拜一"),
    Concept("tuesday", "tuesday", "周二 星期二 礼拜二"),
    Concept("wednesday", "wednesday", "周三 星期三 礼拜三"),
    Concept("thursday", "thursday", "周四 星期四 礼拜四"),
    Concept("friday", "friday", "周五 星期五 礼拜五"),
    Concept("saturday", "saturday", "周六 星期六 礼拜六"),
    Concept("sunday", "sunday", "周日 星期日 星期天 礼拜天 礼拜日"),
    Concept("weekend", "weekend", "周末 双休"),
)
# fmt: on


def _forms(word: str) -> set[str]:
    """A word's regular forms: plural, past, -ing and, for longer words, -er."""
    if word.endswith("e") and not word.endswith(("ee", "oe", "ye")):
        forms = {word, word + "s", word + "d", word[:-1] + "ing", word + "r", word + "rs"}
    elif len(word) > 2 and word[-1] == "y" and word[-2] not in "aeiou":
        forms = {word, word[:-1] + "ies", word[:-1] + "ied", word + "ing", word[:-1] + "ier"}
    elif word.endswith(("s", "x", "z", "ch", "sh")):
        forms = {word, word + "es", word + "ed", word + "ing", word + "er", word + "ers"}
    elif len(word) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", word):  # swimming; hat: not hated
        forms = {word, word + "s", *(word + word[-1] + ending for ending in ("ing", "ed", "er", "ers"))}
    else:
        forms = {word, word + "s", word + "ed", word + "ing", word + "er", word + "ers"}
    if len(word) <= 3:  # pet: not Peter; cat: not cater
        forms = {form for form in forms if not form.endswith(("er", "ers"))}
    return forms


def _keys(word: str) -> set[str]:
    """The search terms (recall.stem) a word and its forms turn into; a
    question's "driver" is not taken for "drive"."""
    if CJK_CHAR.match(word):
        return {word}
    return {stem(form) for form in _forms(word) if form == word or not form.endswith(("er", "ers"))}


@dataclass
class _Word:
    """A word of a concept with those folded into it (birth, birthday): the
    shortest of them names it; `prefix` is what all their forms begin with."""

    text: str
    prefix: str
    general: bool
    forms: set[str] = field(default_factory=set)
    keys: set[str] = field(default_factory=set)


def _folds(longer: str, shorter: str) -> bool:
    """Whatever holds `longer` holds `shorter`, as the matching goes."""
    return shorter in longer if CJK_CHAR.match(shorter) else longer.startswith(shorter)


def _words(line: str) -> list[_Word]:
    """The words of one script of a concept. One whose forms begin with
    another's is folded into it: "birth" stands for birthday too."""
    general, _, kinds = line.partition("|")
    found: list[_Word] = []
    for is_general, part in ((True, general), (False, kinds)):
        for word in part.split():
            forms = {word} if CJK_CHAR.match(word) else _forms(word)
            prefix = os.path.commonprefix(sorted(forms))
            into = next((w for w in found if _folds(prefix, w.prefix) or _folds(w.prefix, prefix)), None)
            if into is None:
                into = _Word(word, prefix, is_general)
                found.append(into)
            into.text = min(into.text, word, key=len)
            into.prefix = min(into.prefix, prefix, key=len)
            into.general = into.general or is_general
            into.forms |= forms
            into.keys |= _keys(word)
    return found


def _build() -> tuple[dict[str, list[tuple[list[_Word], _Word]]], dict[str, set[str]]]:
    """Each search term's concepts (their words, and its own word among
    them), and each word's forms."""
    members: dict[str, list[tuple[list[_Word], _Word]]] = {}
    forms: dict[str, set[str]] = {}
    for concept in CONCEPTS:
        for line in (concept.english, concept.chinese):
            words = _words(line)
            for word in words:
                forms.setdefault(word.text, set()).update(word.forms)
                for key in word.keys:
                    members.setdefault(key, []).append((words, word))
    return members, forms


_MEMBERS, _FORMS = _build()
_PATTERNS = {
    text: re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, forms), key=len, reverse=True)) + r")\b")
    for text, forms in _FORMS.items()
    if not CJK_CHAR.match(text)
}
#: what every form of an English word begins with: "universit" for university, universities
_PREFIXES = {text: os.path.commonprefix(sorted(forms)) for text, forms in _FORMS.items() if text in _PATTERNS}
#: substrings that between them find every form of an English word: the
#: prefix when it is long enough to be rare, else the fewest forms that the others hold
_PHRASES = {
    text: [_PREFIXES[text]] if len(_PREFIXES[text]) >= 4 else
    sorted(form for form in forms if not any(other != form and other in form for other in forms))
    for text, forms in _FORMS.items() if text in _PATTERNS
}


def _topic_index() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each English word form and each Chinese word of the table: the names of its concepts."""
    english: dict[str, set[str]] = {}
    chinese: dict[str, set[str]] = {}
    for concept in CONCEPTS:
        for word in _words(concept.english):
            for form in word.forms:
                english.setdefault(form, set()).add(concept.name)
        for word in _words(concept.chinese):
            for form in word.forms:
                chinese.setdefault(form, set()).add(concept.name)
    return english, chinese


_TOPICS_EN, _TOPICS_ZH = _topic_index()
_TOPIC_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def topics(text: str) -> frozenset[str]:
    """The concepts `text` speaks of: those with an English word of it (in
    one of its forms, as a whole word) or a Chinese word in it ("Sold the
    guzheng" and "我弹古筝" both speak of instruments)."""
    lowered = text.casefold()
    found: set[str] = set()
    for word in _TOPIC_WORD.findall(lowered):
        found |= _TOPICS_EN.get(word, set())
    if CJK_CHAR.search(lowered):
        for word, names in _TOPICS_ZH.items():
            if word in lowered:
                found |= names
    return frozenset(found)


def related(text: str) -> list[str]:
    """The words a search term also looks for, best first, at most PER_TERM:
    round robin over the concepts it names, then over those it is a kind
    of (these give their general words only). None that holds the term,
    which would find nothing new."""
    named = [(words, own) for words, own in _MEMBERS.get(text, ()) if own.general]
    kinds = [(words, own) for words, own in _MEMBERS.get(text, ()) if not own.general]
    found: dict[str, None] = {}
    for group in (named, kinds):
        choices = [[w.text for w in words if (own.general or w.general or w is own) and text not in w.text]
                   for words, own in group]
        for rank in range(max((len(choice) for choice in choices), default=0)):
            for choice in choices:
                if rank < len(choice):
                    found.setdefault(choice[rank])
    return list(found)[:PER_TERM]


def _translations() -> dict[str, list[str]]:
    """Each search term's words of the other script (`across`), best first:
    all the words of the concepts it is a general word of, then the general
    words of those it is a kind of; at most ACROSS_PER_TERM. English words
    as search terms (recall.stem), so that they find their other forms."""
    named: dict[str, dict[str, None]] = {}
    kinds: dict[str, dict[str, None]] = {}
    for concept in CONCEPTS:
        for line, other in ((concept.english, concept.chinese), (concept.chinese, concept.english)):
            theirs = _terms_of(other)
            for word in _words(line):
                for key in word.keys:
                    if word.general:
                        named.setdefault(key, {}).update(dict.fromkeys(text for text, _ in theirs))
                    else:
                        kinds.setdefault(key, {}).update(dict.fromkeys(text for text, general in theirs if general))
    return {key: list({**named.get(key, {}), **kinds.get(key, {})})[:ACROSS_PER_TERM]
            for key in {*named, *kinds}}


def _terms_of(line: str) -> list[tuple[str, bool]]:
    """(search term, general) for the words of one script of a concept: Chinese
    words folded as for related words (茶 for 奶茶), English ones each as
    the search term it would be ("birthday" stays itself: "birth" is not
    found in it by a word's rule)."""
    if CJK_CHAR.search(line):
        return [(w.text, w.general) for w in _words(line)]
    general, _, kinds = line.partition("|")
    return [(stem(word), is_general) for is_general, part in ((True, general), (False, kinds)) for word in part.split()]


_TRANSLATIONS = _translations()


def translations(term: str) -> list[str]:
    """The words of the other script `term` (a search term: recall.stem for English) names in the concepts:
    passport -> 护照; 密码 -> password."""
    return list(_TRANSLATIONS.get(term, ()))


def across(terms: Sequence[Term], weight: float) -> list[Term]:
    """The words of the other script that `terms` name in the concepts
    (tea -> 茶, 乌龙; 名字 -> name), as terms of their own weighing `weight`
    of the term they translate; at most MAX_RELATED."""
    found: dict[str, Term] = {}
    for term in terms:
        for text in _TRANSLATIONS.get(term.text, ()):
            if len(found) < MAX_RELATED:
                found.setdefault(text, Term(text, weight * term.weight))
    return list(found.values())


def phrases(text: str) -> list[str]:
    """Substrings that between them find every form of a related word:
    what the index is asked for."""
    return _PHRASES.get(text, [text])


def expand(terms: Sequence[Term]) -> list[Term]:
    """The related words of `terms`, each a Term standing in for the term it
    came from, at most MAX_RELATED; none that a term's text is part of,
    since that term finds it already."""
    originals = [term.text for term in terms]
    taken: set[str] = set()
    found: list[Term] = []
    for term in terms:
        for text in related(term.text):
            if len(found) >= MAX_RELATED:
                return found
            if text not in taken and not any(original in text for original in originals):
                taken.add(text)
                found.append(Term(text, term.weight, source=term.text))
    return found


def matcher(text: str) -> tuple[str, re.Pattern[str] | None]:
    """How to tell that a memory's casefolded text holds a related word: it
    holds the first (a substring of every form) and, for an English word,
    the second finds one of the forms as a whole word."""
    return _PREFIXES.get(text, text), _PATTERNS.get(text)


def holds(content: str, text: str) -> bool:
    """Whether a memory's casefolded text holds a related word (`matcher`)."""
    part, pattern = matcher(text)
    return part in content and (pattern is None or pattern.search(content) is not None)
