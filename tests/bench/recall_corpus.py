"""A synthetic bilingual memory corpus with known answers, for tests/bench/recall.py.

A home of people the person talks about (English first names; Chinese names
of two and three characters), facts about them written in several ways, and a
diary of everyday notes that mention the same people, foods, places and
companies. A known answer is a fact about one person and one relation (where
someone works, their birthday...) that is the only live fact of that pair;
its question is written from a separate set of question templates, so it
names the person and asks for the relation in its own words, never copying
the fact. Distractors: every person has many other facts, every relation
has facts about many other people, diary lines share the words, and for some
answers a conflicting twin sits in another pet, waits for approval or is
forgotten (none of those may ever be recalled).

Nothing here imports the pet package: the bench writes the rows itself.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable

# --- people ---------------------------------------------------------------------

EN_NAMES = """Aaron Abigail Adam Adrian Aisha Alex Alice Amanda Amir Amy Andrew Angela Anna Anthony Ben Bella
Brian Bruno Caleb Carla Carlos Caroline Charlotte Chloe Chris Claire Daniel Dave Diana Diego Dylan Eleanor
Elena Eli Emily Emma Eric Ethan Eva Felix Fiona Frank Gabriel Grace Greg Hannah Harry Helen Henry Holly
Ian Isaac Isabel Ivan Jack Jacob Jade James Jane Jason Jenny Jessica Joe Jonas Jordan Julia Karen Kate
Kevin Kim Laura Leo Liam Lily Lucas Lucy Luis Maggie Marco Maria Mark Martin Maya Megan Mia Michael Mike
Mila Nadia Nathan Nick Nina Noah Olga Oliver Olivia Omar Oscar Paul Peter Priya Rachel Raj Rebecca Rosa
Ryan Sam Sara Sean Simon Sofia Sophie Stella Steve Tara Theo Tom Tony Victor Vera Walter Will Yusuf Zoe
Hugo Ingrid Marta Pablo Rita Sven Tessa Uma Wendy Xavier Yara""".split()

ZH_SURNAMES = "张王李赵刘陈杨黄周吴徐孙马朱胡郭何林高罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程魏苏吕丁沈"
ZH_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰涛明超秀霞平刚桂英华玉兰萍鹏辉玲建国红云飞宇浩然欣怡佳琪子涵梓轩思雨晨阳博文婷雪琳昊天瑞凯"


def zh_names(rng: random.Random, count: int) -> list[str]:
    """Two-character names (张伟) and three-character ones (王思雨), a few nicknames."""
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < count:
        roll = rng.random()
        surname = rng.choice(ZH_SURNAMES)
        if roll < 0.5:
            name = surname + rng.choice(ZH_GIVEN)
        elif roll < 0.9:
            name = surname + rng.choice(ZH_GIVEN) + rng.choice(ZH_GIVEN)
        else:
            name = rng.choice("小老阿") + rng.choice(ZH_GIVEN + ZH_SURNAMES)
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


# --- values ---------------------------------------------------------------------

MONTHS = "January February March April May June July August September October November December".split()

EN = {
    "company": """Shell, Siemens, Google, a bakery on Elm Street, the city library, Deloitte, a small design studio,
the post office, Tesco, IKEA, Boeing, Pfizer, the local high school, a law firm downtown, the train company,
a startup that makes drones, the children's hospital, Lufthansa, a coffee roastery, the town hall, Spotify,
an insurance company, the university lab, a car dealership, the airport, a bike shop, Nestle, the zoo,
a recycling plant, a hotel by the harbour, the fire station, Amazon, a dental clinic, the museum, Unilever,
a call centre, the public radio station, a bookshop, the water company, a vineyard, Toyota, the bank on Main Street,
a yoga studio, the city council, a shipping company, a pharmacy, Netflix, the national park service""",
    "job": """nurse, architect, bus driver, software engineer, teacher, chef, accountant, dentist, plumber, lawyer,
graphic designer, pharmacist, electrician, journalist, pilot, vet, firefighter, police officer, translator,
photographer, librarian, carpenter, data analyst, physiotherapist, baker, farmer, real estate agent,
marketing manager, social worker, civil engineer, flight attendant, mechanic, surgeon, florist, tailor,
personal trainer, hairdresser, musician, project manager, professor, tour guide, barista, paramedic""",
    "city": """London, Berlin, Toronto, Sydney, Boston, Lisbon, Madrid, Dublin, Seattle, Chicago, Vancouver,
Amsterdam, Copenhagen, Edinburgh, Melbourne, Austin, Denver, Prague, Vienna, Zurich, Oslo, Stockholm, Helsinki,
Munich, Hamburg, Lyon, Marseille, Barcelona, Valencia, Rome, Milan, Naples, Athens, Istanbul, Cairo, Nairobi,
Cape Town, Mumbai, Bangalore, Singapore, Bangkok, Tokyo, Osaka, Seoul, Auckland, Montreal, Portland, Miami,
San Diego, Atlanta, Manchester, Bristol, Glasgow, Cardiff, Krakow, Budapest""",
    "food": """sushi, lasagna, pad thai, fish and chips, ramen, tacos, paella, dumplings, chicken curry, pizza margherita,
falafel, beef stew, pancakes, mushroom risotto, lamb kebab, pho, burritos, spaghetti carbonara, Greek salad,
roast chicken, bibimbap, shepherd's pie, fried rice, butter chicken, clam chowder, steak frites, hummus,
chocolate cake, apple pie, lemon tart, cheesecake, grilled salmon, veggie burgers, tomato soup, mac and cheese,
chili con carne, spring rolls, goulash, pierogi, tiramisu, banana bread, eggs benedict""",
    "allergen": """peanuts, shellfish, penicillin, cats, pollen, dust mites, strawberries, gluten, lactose, eggs,
walnuts, sesame, bee stings, latex, soy, kiwi fruit, mustard, celery, mold, ibuprofen, horses, shrimp""",
    "animal": "dog cat rabbit parrot hamster turtle goldfish guinea-pig lizard ferret canary horse".split(),
    "petname": """Biscuit Luna Max Pepper Mochi Coco Oreo Shadow Ziggy Nugget Pickles Daisy Rocky Bella Milo
Whiskers Ginger Buddy Pumpkin Noodle Peanut Tofu Sunny Bean Olive Waffles Pretzel Maple Cookie Zorro Kiwi Benny""".split(),
    "hobby": """rock climbing, knitting, playing chess, birdwatching, baking bread, running marathons, painting
watercolours, fishing, gardening, playing the guitar, photography, woodworking, sailing, pottery, surfing,
board games, hiking in the mountains, cycling, salsa dancing, writing poetry, skateboarding, playing tennis,
collecting stamps, doing yoga, building model trains, cooking Thai food, playing video games, singing in a choir,
kayaking, swimming, bouldering, sewing, camping, reading mystery novels, playing basketball, origami""",
    "car": """Toyota Corolla, Honda Civic, Tesla Model 3, Ford Focus, VW Golf, BMW 3 Series, Subaru Outback, Mazda CX-5,
Volvo XC60, Kia Niro, Nissan Leaf, Audi A4, Jeep Wrangler, Mini Cooper, Fiat 500, Renault Clio, Skoda Octavia,
Hyundai Ioniq, Peugeot 208, Land Rover Defender, old red pickup truck, blue camper van""",
    "school": """Oxford, MIT, the University of Toronto, Stanford, a college in Ohio, Trinity College Dublin, McGill,
the Sorbonne, Edinburgh University, UCLA, art school in Berlin, the University of Sydney, a community college,
Harvard, Yale, Princeton, Cambridge, the Royal College of Music, ETH Zurich, Kyoto University, NYU, Columbia""",
    "drink": """black coffee, green tea, oat milk lattes, hot chocolate, sparkling water, orange juice, chai,
espresso, ginger ale, mint tea, iced americano, kombucha, red wine, craft beer, lemonade, matcha, cold brew""",
    "team": """Arsenal, Liverpool, the Lakers, the Yankees, Real Madrid, Bayern Munich, the Chicago Bulls,
Manchester United, Barcelona, the Boston Celtics, Juventus, the Green Bay Packers, the Toronto Raptors,
Ajax, Celtic, the Golden State Warriors, Chelsea, the Dallas Cowboys, Inter Milan, the Red Sox""",
    "language": """Spanish, French, German, Japanese, Mandarin, Italian, Portuguese, Korean, Arabic, Russian, Dutch,
Swedish, Greek, Turkish, Hindi, Polish, Vietnamese, Thai""",
    "movie": """Spirited Away, The Godfather, Inception, Amelie, Jaws, Casablanca, The Matrix, Up, Parasite, Alien,
Toy Story, Titanic, Goodfellas, Arrival, Heat, Rocky, Coco, Interstellar, Whiplash, Moonlight, Fargo, Psycho,
Grease, Frozen, Gravity, Memento, Ratatouille, Notting Hill, The Big Lebowski, Jurassic Park""",
    "relationship": """cousin, neighbour, coworker, landlord, old school friend, brother-in-law, aunt, uncle,
piano teacher, doctor, boss, roommate from college, yoga teacher, best friend, sister-in-law, godmother,
gym buddy, hairdresser, accountant, niece, nephew, stepbrother, mentor, daughter's teacher""",
    "gift": """a fountain pen, a new backpack, noise-cancelling headphones, a cookbook, a telescope, a wool scarf,
a board game, a yoga mat, concert tickets, a drone, a smartwatch, a bonsai tree, a camera lens, hiking boots,
a record player, a leather wallet, a puzzle, an espresso machine, a kindle, a bike helmet, a watercolour set""",
}
EN = {k: [w.strip() for w in v.split(",")] if isinstance(v, str) else v for k, v in EN.items()}

ZH = {
    "company": """腾讯 阿里巴巴 华为 字节跳动 百度 京东 美团 小米 网易 中国银行 工商银行 招商银行 中石化 国家电网 顺丰
比亚迪 联想 中兴 拼多多 携程 滴滴 大疆 海尔 格力 万科 平安保险 中国移动 中国电信 新东方 人民医院 市第一中学
区图书馆 一家咖啡馆 一家设计工作室 一家律师事务所 市政府 电视台 出版社 一家面包店 一家外贸公司 一家游戏公司
小区物业 宜家 星巴克 肯德基 麦当劳 中国邮政 铁路局 机场 博物馆""".split(),
    "job": """护士 建筑师 公交司机 程序员 老师 厨师 会计 牙医 水管工 律师 设计师 药剂师 电工 记者 飞行员 兽医 消防员
警察 翻译 摄影师 图书管理员 木匠 数据分析师 理疗师 面包师 农民 房产中介 市场经理 社工 工程师 空乘 修车师傅
外科医生 花艺师 裁缝 健身教练 理发师 音乐老师 项目经理 大学教授 导游 咖啡师 快递员 保安 销售""".split(),
    "city": """北京 上海 广州 深圳 杭州 成都 重庆 武汉 西安 南京 苏州 天津 长沙 郑州 青岛 厦门 昆明 大连 沈阳 哈尔滨
济南 合肥 福州 南昌 贵阳 南宁 兰州 太原 石家庄 乌鲁木齐 拉萨 海口 三亚 宁波 无锡 珠海 东莞 佛山 温州 洛阳
桂林 大理 丽江 香港 澳门 台北""".split(),
    "food": """火锅 小龙虾 饺子 红烧肉 麻辣烫 烤鸭 煎饼果子 螺蛳粉 兰州拉面 酸菜鱼 宫保鸡丁 糖醋排骨 小笼包 羊肉串
麻婆豆腐 肠粉 烧烤 炸酱面 鱼香肉丝 回锅肉 担担面 热干面 臭豆腐 生煎包 黄焖鸡 过桥米线 凉皮 肉夹馍 蛋炒饭 寿司
披萨 汉堡 牛排 意大利面 韩式炸鸡 冰淇淋 提拉米苏 榴莲 芒果 草莓蛋糕 烤红薯 馄饨 粽子 月饼 酸辣粉 水煮鱼""".split(),
    "allergen": """花生 海鲜 青霉素 猫毛 花粉 尘螨 芒果 牛奶 鸡蛋 坚果 小麦 虾 酒精 头孢 芝麻 大豆 桃子 螃蟹 阿司匹林 狗毛""".split(),
    "animal": "狗 猫 兔子 鹦鹉 仓鼠 乌龟 金鱼 柯基 柴犬 布偶猫 橘猫 哈士奇".split(),
    "petname": """豆豆 旺财 咪咪 球球 元宝 年糕 可乐 雪球 花花 毛毛 布丁 团子 黑豆 奶茶 芝麻 土豆 饭团 来福 大黄 小白
妞妞 乐乐 糖糖 果冻 橙子 肉松 馒头 汤圆""".split(),
    "hobby": """爬山 打羽毛球 钓鱼 弹吉他 画画 跑步 游泳 下围棋 织毛衣 拍照 做饭 养花 骑行 打篮球 踢足球 练书法 看书
唱歌 跳广场舞 打麻将 玩游戏 露营 滑雪 健身 练瑜伽 打乒乓球 拼乐高 追剧 写小说 烘焙 冲浪 攀岩 喝茶 听相声""".split(),
    "car": """特斯拉 比亚迪汉 大众帕萨特 丰田凯美瑞 本田雅阁 宝马五系 奥迪A6 五菱宏光 理想L7 蔚来ES6 小鹏P7 吉利星越
哈弗H6 别克GL8 奔驰C级 问界M7 红旗H5 长安CS75 极氪001 小米SU7""".split(),
    "school": """北京大学 清华大学 复旦大学 浙江大学 南京大学 武汉大学 中山大学 四川大学 厦门大学 同济大学 南开大学
人民大学 华中科技大学 西安交通大学 上海交通大学 中国科技大学 北京师范大学 山东大学 吉林大学 哈工大""".split(),
    "drink": """美式咖啡 拿铁 奶茶 绿茶 乌龙茶 普洱 豆浆 可乐 柠檬水 椰子水 酸奶 红茶 菊花茶 白开水 啤酒 黄酒""".split(),
    "team": """广州恒大 上海申花 北京国安 山东泰山 湖人队 勇士队 皇马 巴萨 曼联 利物浦 拜仁 尤文图斯 中国女排 辽宁男篮""".split(),
    "language": "英语 日语 韩语 法语 德语 西班牙语 俄语 粤语 意大利语 阿拉伯语 泰语 葡萄牙语".split(),
    "movie": """流浪地球 霸王别姬 大话西游 让子弹飞 千与千寻 你好李焕英 哪吒之魔童降世 无间道 花样年华 甄嬛传 疯狂动物城
星际穿越 泰坦尼克号 肖申克的救赎 阿甘正传 少年派 唐人街探案 西虹市首富 我不是药神 满江红""".split(),
    "relationship": """表哥 表姐 邻居 同事 房东 高中同学 大学室友 姐夫 姑姑 舅舅 钢琴老师 家庭医生 老板 师傅 发小 闺蜜
堂弟 侄子 外甥女 干妈 健身教练 导师 班主任 前同事""".split(),
    "gift": """钢笔 双肩包 降噪耳机 菜谱 望远镜 围巾 桌游 瑜伽垫 演唱会门票 无人机 智能手表 盆栽 相机镜头 登山鞋
黑胶唱机 钱包 拼图 咖啡机 电子书 自行车头盔 口红 香水 茶具""".split(),
}


def en_date(rng: random.Random) -> str:
    return f"{rng.choice(MONTHS)} {rng.randint(1, 28)}"


def zh_date(rng: random.Random) -> str:
    return f"{rng.randint(1, 12)}月{rng.randint(1, 28)}日"


def phone(rng: random.Random) -> str:
    return f"1{rng.randint(30, 99)}{rng.randint(1000, 9999)}{rng.randint(1000, 9999)}"


# --- relations: fact templates and, separately, question templates ---------------


@dataclass(frozen=True)
class Relation:
    name: str
    value: Callable[[random.Random], dict[str, str]]
    facts: tuple[str, ...]
    questions: tuple[str, ...]


def _pick(table: dict, key: str, slot: str = "v") -> Callable[[random.Random], dict[str, str]]:
    return lambda rng: {slot: rng.choice(table[key])}


def _pet(table: dict) -> Callable[[random.Random], dict[str, str]]:
    return lambda rng: {"a": rng.choice(table["animal"]), "v": rng.choice(table["petname"])}


EN_RELATIONS = [
    Relation("birthday", lambda r: {"v": en_date(r)},
             ("{n}'s birthday is {v}", "{n} was born on {v}", "{n} celebrates their birthday on {v}",
              "birthday of {n}: {v}"),
             ("When is {n}'s birthday?", "what day was {n} born", "is {n}'s birthday coming up soon?",
              "when should I send {n} a birthday card")),
    Relation("company", _pick(EN, "company"),
             ("{n} works at {v}", "{n} got a job at {v}", "{n} is employed by {v}", "{n} started working for {v}"),
             ("Where does {n} work?", "which company is {n} working for these days",
              "what's {n}'s employer again?", "where is {n}'s office")),
    Relation("job", _pick(EN, "job"),
             ("{n} is a {v}", "{n} works as a {v}", "{n} has been a {v} for years", "{n} trained as a {v}"),
             ("What does {n} do for a living?", "what is {n}'s job", "what's {n}'s profession",
              "what kind of work does {n} do")),
    Relation("city", _pick(EN, "city"),
             ("{n} lives in {v}", "{n} moved to {v} last year", "{n}'s home is in {v}", "{n} just bought a flat in {v}"),
             ("Where does {n} live now?", "which city did {n} move to", "where is {n}'s home",
              "what town is {n} living in")),
    Relation("food", _pick(EN, "food"),
             ("{n}'s favorite food is {v}", "{n} loves eating {v}", "{n} always orders {v}",
              "{n} could eat {v} every day"),
             ("what food does {n} like?", "what should I cook when {n} comes over",
              "what's {n}'s favourite dish", "what does {n} like to eat")),
    Relation("allergy", _pick(EN, "allergen"),
             ("{n} is allergic to {v}", "{n} gets a bad reaction from {v}", "{n} has an allergy to {v}",
              "{n} can't be near {v}, allergy"),
             ("Does {n} have any allergies?", "what is {n} allergic to", "anything {n} can't eat or touch?",
              "is {n} allergic to anything")),
    Relation("pet", _pet(EN),
             ("{n} has a {a} called {v}", "{n}'s {a} is named {v}", "{n} adopted a {a} named {v}"),
             ("What's the name of {n}'s pet?", "what is {n}'s {a} called", "does {n} have a pet?",
              "what did {n} name the {a}")),
    Relation("phone", lambda r: {"v": phone(r)},
             ("{n}'s phone number is {v}", "call {n} at {v}", "{n}'s mobile: {v}", "{n} has a new number, {v}"),
             ("what is {n}'s number", "how do I reach {n} by phone", "what's {n}'s mobile number",
              "I need to call {n}, what's the number")),
    Relation("hobby", _pick(EN, "hobby"),
             ("{n} enjoys {v} on weekends", "{n}'s hobby is {v}", "{n} spends free time {v}", "{n} is really into {v}"),
             ("what does {n} do for fun", "what are {n}'s hobbies", "what does {n} like to do on weekends",
              "any hobbies {n} has?")),
    Relation("car", _pick(EN, "car"),
             ("{n} drives a {v}", "{n} bought a {v}", "{n}'s car is a {v}"),
             ("what car does {n} have", "what does {n} drive", "which car did {n} buy")),
    Relation("school", _pick(EN, "school"),
             ("{n} studied at {v}", "{n} graduated from {v}", "{n} went to {v}"),
             ("where did {n} go to college", "which university did {n} attend", "where did {n} study")),
    Relation("drink", _pick(EN, "drink"),
             ("{n} drinks {v} every morning", "{n} always has {v}", "{n}'s usual drink is {v}"),
             ("what does {n} like to drink", "what should I get {n} at the cafe", "what's {n}'s usual drink")),
    Relation("team", _pick(EN, "team"),
             ("{n} supports {v}", "{n} is a big fan of {v}", "{n} never misses a game of {v}"),
             ("which team does {n} support", "who is {n} a fan of", "what team does {n} cheer for")),
    Relation("language", _pick(EN, "language"),
             ("{n} speaks {v}", "{n} is learning {v}", "{n} grew up speaking {v}"),
             ("what languages does {n} speak", "which language is {n} studying", "does {n} speak another language")),
    Relation("movie", _pick(EN, "movie"),
             ("{n}'s favorite movie is {v}", "{n} has watched {v} ten times", "{n} loves the film {v}"),
             ("what film does {n} like best", "what's {n}'s favourite movie", "which movie should I watch with {n}")),
    Relation("relationship", _pick(EN, "relationship"),
             ("{n} is my {v}", "{n} is my {v}, we are close", "I know {n} because {n} is my {v}"),
             ("how do I know {n}?", "who is {n} to me", "remind me who {n} is")),
    Relation("shoes", lambda r: {"v": str(r.randint(36, 46))},
             ("{n} wears shoe size {v}", "{n}'s shoe size is {v}", "{n} takes a size {v} in shoes"),
             ("what shoe size is {n}", "what size shoes does {n} wear", "which size should I buy {n} boots in")),
    Relation("gift", _pick(EN, "gift"),
             ("{n} wants {v} for their birthday", "{n} mentioned wanting {v}", "{n} would love {v} as a present"),
             ("what should I get {n} as a gift", "what present would {n} like", "gift ideas for {n}?")),
]

ZH_RELATIONS = [
    Relation("birthday", lambda r: {"v": zh_date(r)},
             ("{n}的生日是{v}", "{n}是{v}出生的", "{n}每年{v}过生日", "{n}生日：{v}"),
             ("{n}生日是哪天？", "{n}哪天出生的", "{n}的生日快到了吗", "什么时候给{n}过生日")),
    Relation("company", _pick(ZH, "company"),
             ("{n}在{v}上班", "{n}就职于{v}", "{n}现在在{v}工作", "{n}跳槽去了{v}"),
             ("{n}在哪里上班？", "{n}在哪家公司工作", "{n}是哪个公司的", "{n}现在在哪儿工作")),
    Relation("job", _pick(ZH, "job"),
             ("{n}是一名{v}", "{n}的工作是{v}", "{n}做{v}好多年了", "{n}当了{v}"),
             ("{n}是做什么的？", "{n}的职业是什么", "{n}干什么工作", "{n}做哪一行")),
    Relation("city", _pick(ZH, "city"),
             ("{n}住在{v}", "{n}去年搬到了{v}", "{n}的家在{v}", "{n}在{v}买了房子"),
             ("{n}现在住在哪儿？", "{n}搬去哪个城市了", "{n}家在哪里", "{n}住哪个城市")),
    Relation("food", _pick(ZH, "food"),
             ("{n}最爱吃{v}", "{n}特别喜欢{v}", "{n}每次都点{v}", "{n}一周要吃三次{v}"),
             ("{n}爱吃什么？", "请{n}吃饭点什么菜好", "{n}喜欢吃啥", "{n}最喜欢的菜是什么")),
    Relation("allergy", _pick(ZH, "allergen"),
             ("{n}对{v}过敏", "{n}不能碰{v}，会过敏", "{n}一碰{v}就起疹子"),
             ("{n}有什么过敏吗？", "{n}对什么过敏", "{n}有没有不能吃的东西")),
    Relation("pet", _pet(ZH),
             ("{n}养了一只{a}，叫{v}", "{n}家的{a}名叫{v}", "{n}的{a}叫{v}"),
             ("{n}的宠物叫什么名字？", "{n}养的{a}叫啥", "{n}家有宠物吗")),
    Relation("phone", lambda r: {"v": phone(r)},
             ("{n}的手机号是{v}", "{n}的电话：{v}", "{n}换了新号码{v}"),
             ("{n}的电话号码是多少", "怎么联系{n}", "{n}手机号多少")),
    Relation("hobby", _pick(ZH, "hobby"),
             ("{n}周末喜欢{v}", "{n}的爱好是{v}", "{n}一有空就去{v}", "{n}迷上了{v}"),
             ("{n}有什么爱好？", "{n}平时喜欢干什么", "{n}周末一般做什么")),
    Relation("car", _pick(ZH, "car"),
             ("{n}开一辆{v}", "{n}买了辆{v}", "{n}的车是{v}"),
             ("{n}开什么车", "{n}的车是什么牌子", "{n}买的什么车")),
    Relation("school", _pick(ZH, "school"),
             ("{n}毕业于{v}", "{n}在{v}读书", "{n}是{v}毕业的"),
             ("{n}是哪个学校毕业的", "{n}在哪儿上的大学", "{n}读的哪所大学")),
    Relation("drink", _pick(ZH, "drink"),
             ("{n}每天早上喝{v}", "{n}只喝{v}", "{n}离不开{v}"),
             ("{n}爱喝什么", "给{n}带什么饮料", "{n}平时喝什么")),
    Relation("team", _pick(ZH, "team"),
             ("{n}是{v}的球迷", "{n}特别支持{v}", "{n}每场{v}的比赛都看"),
             ("{n}支持哪个球队", "{n}是哪个队的粉丝", "{n}喜欢哪支球队")),
    Relation("language", _pick(ZH, "language"),
             ("{n}会说{v}", "{n}在学{v}", "{n}的{v}说得很好"),
             ("{n}会什么语言", "{n}在学哪门外语", "{n}会说外语吗")),
    Relation("movie", _pick(ZH, "movie"),
             ("{n}最喜欢的电影是《{v}》", "{n}把《{v}》看了十遍", "{n}超爱《{v}》这部片子"),
             ("{n}喜欢看什么电影", "{n}最爱哪部电影", "和{n}看什么片子好")),
    Relation("relationship", _pick(ZH, "relationship"),
             ("{n}是我的{v}", "{n}是我{v}，关系很好", "我和{n}认识是因为{n}是我的{v}"),
             ("{n}是谁？", "我和{n}是什么关系", "{n}是我什么人")),
    Relation("shoes", lambda r: {"v": str(r.randint(36, 46))},
             ("{n}穿{v}码的鞋", "{n}的鞋码是{v}", "{n}脚是{v}码"),
             ("{n}穿多大的鞋", "{n}鞋子穿几码", "给{n}买鞋买多大")),
    Relation("gift", _pick(ZH, "gift"),
             ("{n}想要一个{v}当生日礼物", "{n}说过想要{v}", "{n}一直想买{v}"),
             ("送{n}什么礼物好", "{n}想要什么礼物", "给{n}买点什么")),
]

# --- the diary: everyday notes that share all those words -------------------------

EN_WHEN = ["today", "yesterday", "last night", "this morning", "on Sunday", "last weekend", "on Friday evening"]
EN_PLACES = ["the park", "the beach", "the mall", "a new cafe", "the gym", "the lake", "the market", "the cinema",
             "the library", "a noodle bar", "the river", "the old town", "the zoo", "the office"]
EN_FEEL = ["tired", "excited", "nervous", "happy", "stressed", "relaxed", "grumpy", "proud", "bored", "hopeful"]
EN_TOPICS = ["the budget", "a deadline", "the new manager", "moving house", "the garden", "taxes", "the car insurance",
             "a job interview", "the wedding plans", "the holiday", "the kids' school", "the renovation",
             "climate change", "a podcast", "the election", "saving money", "learning to code", "sleep"]
EN_ITEMS = ["milk", "batteries", "a birthday card", "dog food", "printer paper", "light bulbs", "coffee beans",
            "shampoo", "a phone charger", "rice", "train tickets", "flowers", "paint", "bread"]
EN_DIARY = [
    "Went to {place} with {n} {when}.",
    "Had {food} for dinner {when}, it was {opinion}.",
    "{n} recommended the movie {movie}.",
    "Need to buy {item} before {day}.",
    "Feeling {feel} about {topic}.",
    "It rained all day in {city} {when}.",
    "Thinking about a trip to {city} next year.",
    "Finished a book about {topic}.",
    "{n} and I talked about {topic} over {drink}.",
    "Spent {when} {hobby}.",
    "The place near {place} serves great {food}.",
    "Started learning {language} with an app.",
    "{n} called {when}, sounded {feel}.",
    "Saw a {a} at {place} that looked just like {petname}.",
    "{n} might be moving to {city}.",
    "Lunch with {n} at {place}, we both had {food}.",
    "Remember to water the plants on {day}.",
    "The meeting about {topic} went better than expected.",
    "Watched {team} lose again {when}.",
    "Tried {drink} for the first time, {opinion}.",
    "{n} was late again {when}.",
    "Booked a table for {food} on {day}.",
    "Got a parking ticket near {place}.",
    "Paid the electricity bill {when}.",
    "Want to try {hobby} someday.",
    "My {relationship} {n} sends greetings.",
]
EN_OPINIONS = ["delicious", "too salty", "just okay", "amazing", "a bit cold", "overpriced", "better than last time"]
EN_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "the weekend", "next week"]

ZH_WHEN = ["今天", "昨天", "昨晚", "今早", "周末", "上周", "前天", "周五晚上"]
ZH_PLACES = ["公园", "海边", "商场", "新开的咖啡店", "健身房", "湖边", "菜市场", "电影院", "图书馆", "夜市", "江边",
             "老街", "动物园", "公司楼下"]
ZH_FEEL = ["累", "兴奋", "紧张", "开心", "焦虑", "放松", "烦躁", "骄傲", "无聊", "期待"]
ZH_TOPICS = ["预算", "项目进度", "新来的领导", "搬家", "装修", "个税", "车险", "面试", "婚礼", "旅行计划", "孩子上学",
             "减肥", "理财", "考研", "房贷", "年终奖", "相亲", "体检报告"]
ZH_ITEMS = ["牛奶", "电池", "生日贺卡", "狗粮", "打印纸", "灯泡", "咖啡豆", "洗发水", "充电器", "大米", "火车票", "鲜花",
            "油漆", "面包", "纸巾", "垃圾袋"]
ZH_DIARY = [
    "{when}和{n}一起去{place}逛了逛",
    "{when}晚饭吃了{food}，{opinion}",
    "{n}推荐了电影《{movie}》",
    "{day}之前要买{item}",
    "最近因为{topic}有点{feel}",
    "{when}{city}下了一整天雨",
    "打算明年去{city}玩",
    "看完了一本讲{topic}的书",
    "和{n}喝着{drink}聊了聊{topic}",
    "{when}一直在{hobby}",
    "{place}旁边那家{food}很好吃",
    "开始用软件学{language}",
    "{n}{when}打电话来，听起来很{feel}",
    "在{place}看到一只{a}，长得像{petname}",
    "{n}可能要搬去{city}",
    "中午和{n}在{place}吃了{food}",
    "{day}记得给花浇水",
    "关于{topic}的会开得比想象中顺利",
    "{when}看{team}又输了",
    "第一次喝{drink}，{opinion}",
    "{n}{when}又迟到了",
    "订了{day}吃{food}的位子",
    "在{place}附近被贴了罚单",
    "{when}交了电费",
    "以后想试试{hobby}",
    "我{relationship}{n}问你好",
]
ZH_OPINIONS = ["太好吃了", "有点咸", "一般般", "惊艳", "有点凉了", "太贵了", "比上次好"]
ZH_DAYS = ["周一", "周二", "周三", "周四", "周五", "周六", "周日", "这周末", "下周"]

EN_PREFIXES = ["", "", "", "hey, ", "quick question: ", "I forgot, ", "remind me, ", "um ", "so "]
ZH_PREFIXES = ["", "", "", "对了，", "问你个事，", "我忘了，", "你还记得吗，", "哎，", "考考你："]


def en_diary(rng: random.Random, people: list[str]) -> str:
    return rng.choice(EN_DIARY).format(
        n=rng.choice(people), when=rng.choice(EN_WHEN), place=rng.choice(EN_PLACES), food=rng.choice(EN["food"]),
        opinion=rng.choice(EN_OPINIONS), movie=rng.choice(EN["movie"]), item=rng.choice(EN_ITEMS),
        day=rng.choice(EN_DAYS), feel=rng.choice(EN_FEEL), topic=rng.choice(EN_TOPICS), city=rng.choice(EN["city"]),
        drink=rng.choice(EN["drink"]), hobby=rng.choice(EN["hobby"]), language=rng.choice(EN["language"]),
        a=rng.choice(EN["animal"]), petname=rng.choice(EN["petname"]), team=rng.choice(EN["team"]),
        relationship=rng.choice(EN["relationship"]),
    )


def zh_diary(rng: random.Random, people: list[str]) -> str:
    return rng.choice(ZH_DIARY).format(
        n=rng.choice(people), when=rng.choice(ZH_WHEN), place=rng.choice(ZH_PLACES), food=rng.choice(ZH["food"]),
        opinion=rng.choice(ZH_OPINIONS), movie=rng.choice(ZH["movie"]), item=rng.choice(ZH_ITEMS),
        day=rng.choice(ZH_DAYS), feel=rng.choice(ZH_FEEL), topic=rng.choice(ZH_TOPICS), city=rng.choice(ZH["city"]),
        drink=rng.choice(ZH["drink"]), hobby=rng.choice(ZH["hobby"]), language=rng.choice(ZH["language"]),
        a=rng.choice(ZH["animal"]), petname=rng.choice(ZH["petname"]), team=rng.choice(ZH["team"]),
        relationship=rng.choice(ZH["relationship"]),
    )


# --- the corpus ------------------------------------------------------------------


@dataclass
class Row:
    content: str
    #: "mine" (the pet under test), "other" (another pet), "pending", "deleted"
    kind: str = "mine"
    #: days before "now" that it was written
    age_days: float = 0.0
    pinned: bool = False


@dataclass(frozen=True)
class KnownAnswer:
    question: str
    #: index into the row list of the one fact that answers it
    row: int
    language: str
    relation: str
    #: whether question and fact share a word besides the person's name (see `shares_a_word`)
    shared: bool


_EN_FUNCTION = set("the and for are was does did what when where which who how can has have with that this "
                   "from about your you any anything there these days again".split())
_ZH_FUNCTION = set("的了吗呢吧啊呀是在我你他她它和什么哪儿个几啥谁怎样为有没一多少会要去说还对问事哎得记忘考")


def shares_a_word(question: str, fact: str, name: str) -> bool:
    """A rough judge, independent of the pet's own term extraction: English
    words of three letters or more compared on their first four letters;
    Chinese characters that are not function characters. The person's name
    does not count: no lexical search can be expected to pick a fact that
    shares nothing but a name out of the many facts about that person."""
    question, fact = question.casefold().replace(name.casefold(), " "), fact.casefold().replace(name.casefold(), " ")
    if re.search(r"[a-z]", question):
        def words(text: str) -> set[str]:
            return {w[:4] for w in re.findall(r"[a-z]{3,}", text) if w not in _EN_FUNCTION}
        return bool(words(question) & words(fact))
    return any(ch in fact for ch in re.findall(r"[\u4e00-\u9fff]", question) if ch not in _ZH_FUNCTION)


def fact(rng: random.Random, relation: Relation, person: str, value: dict[str, str] | None = None) -> str:
    return rng.choice(relation.facts).format(n=person, **(value or relation.value(rng)))


def question(rng: random.Random, relation: Relation, person: str, value: dict[str, str], language: str) -> str:
    text = rng.choice(relation.questions).format(n=person, **value)
    prefix = rng.choice(EN_PREFIXES if language == "en" else ZH_PREFIXES)
    if language == "en" and rng.random() < 0.3:
        text = text.lower()
    return prefix + text


def generate(size: int, queries: int, seed: int = 7) -> tuple[list[Row], list[KnownAnswer]]:
    """`size` memory rows (about 5 % of them other pets', pending or
    forgotten) and `queries` known answers, half English, half Chinese."""
    rng = random.Random(seed)
    en_people = list(EN_NAMES)
    zh_people = zh_names(rng, 220)
    people = {"en": en_people, "zh": zh_people}
    relations = {"en": EN_RELATIONS, "zh": ZH_RELATIONS}

    rows: list[Row] = []
    answers: list[tuple[str, int, str, str, bool]] = []  # question, row, language, relation, shared
    taken: set[tuple[str, str, str]] = set()
    for i in range(queries):
        language = "en" if i % 2 == 0 else "zh"
        while True:
            person = rng.choice(people[language])
            relation = rng.choice(relations[language])
            if (language, person, relation.name) not in taken:
                break
        taken.add((language, person, relation.name))
        value = relation.value(rng)
        content = fact(rng, relation, person, value)
        rows.append(Row(content, age_days=rng.uniform(0, 1000)))
        asked = question(rng, relation, person, value, language)
        answers.append((asked, len(rows) - 1, language, relation.name, shares_a_word(asked, content, person)))
        if rng.random() < 0.25:  # a conflicting twin that must never be recalled
            rows.append(Row(fact(rng, relation, person), kind=rng.choice(("other", "pending", "deleted")),
                            age_days=rng.uniform(0, 1000)))

    while len(rows) < size:
        language = "en" if rng.random() < 0.5 else "zh"
        roll = rng.random()
        if roll < 0.45:  # another fact about someone: never the known pair
            while True:
                person = rng.choice(people[language])
                relation = rng.choice(relations[language])
                if (language, person, relation.name) not in taken:
                    break
            content = fact(rng, relation, person)
        else:
            content = (en_diary if language == "en" else zh_diary)(rng, people[language])
        kind = "mine"
        if rng.random() < 0.05:
            kind = rng.choice(("other", "other", "pending", "deleted"))
        rows.append(Row(content, kind=kind, age_days=rng.uniform(0, 1000), pinned=rng.random() < 0.001))

    # Shuffle so that answers are spread over ids (and so over rowid order).
    order = list(range(len(rows)))
    rng.shuffle(order)
    position = {old: new for new, old in enumerate(order)}
    shuffled = [rows[old] for old in order]
    known = [KnownAnswer(q, position[r], lang, rel, shared) for q, r, lang, rel, shared in answers]
    return shuffled, known
