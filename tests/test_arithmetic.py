"""Arithmetic in words: the whole sum or a question, never a part of it (issue 23, item 3)."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest

from pet.agent import arithmetic, reflexes
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.tools.calc import calculate

ASK = None  # the pet asks instead of answering

# Each phrasing gives the right number or a question; a wrong number is a failure.
PHRASINGS = [
    ("1250 divided by 5, plus 12", "262"),
    ("what's 1250 divided by 5, then plus 12?", "262"),
    ("25 + 17, minus 8", "34"),
    ("what's 2 plus 3, times 4?", "20"),
    ("100 minus 30 then divided by 7", "10"),
    ("1,250 divided by 5", "250"),
    ("三百六十五乘以二", "730"),
    ("三百六十五乘以二等于多少", "730"),
    ("一千二百五十除以五再加十二", "262"),
    ("一千二百五十除以五，再加十二", "262"),
    ("算一下一百二十八乘以七", "896"),
    ("二的十次方是多少", "1024"),
    ("三点五乘以二", "7"),
    ("what's twelve times fifteen", "180"),
    ("seven hundred and twenty minus three hundred eighty-five = ?", "335"),
    ("ninety-nine times a hundred", "9900"),
    ("quick math: 2048 divided by 64?", "32"),
    ("算一下：一百除以四", "25"),
    ("I had 20 apples and ate 3, how many left?", "17"),
    ("I had 20 apples, ate 3 and gave 5 to Tom. How many are left?", "12"),
    ("I have 5 apples and my friend gives me 3 more, how many do I have now?", "8"),
    ("I have 3 cats and 2 dogs, how many pets in total?", "5"),
    ("我有二十个苹果，吃了三个，还剩几个？", "17"),
    ("我有20个苹果，吃了3个，又买了5个，现在有多少个？", "22"),
    ("我买了3个苹果和5个梨，一共几个？", "8"),
    ("what's sqrt of 196", "14"),
    ("what is √144?", "12"),
    # money: a tip, a discount, a bill split between people, an amount for each hour, night or month
    ("what's a 20% tip on $85", "17"),
    # asked as no more than the share and the amount (round 26's spent set)
    ("18% tip on a $63.40 bill?", "11.412"), ("20% off a $80 jacket?", "64"),
    ("if i cycle 6.2 km every day for 19 days how far is that in total", "117.8"),
    ("i walk 3 km a day, how far in a week?", "21"),
    ("total with an 18% tip on 50 dollars?", "59"),
    ("bill is 240, split four ways with 15% tip, how much each", "69"),
    ("split $180 between 3 people", "60"),
    ("dinner came to $93.60, splitting it between 3 ppl, how much each?", "31.2"),
    ("those boots are $80 and 25% off today, what would i pay", "60"),
    ("what's 3 to the 5th?", "243"),
    ("10 to the 3rd power", "1000"),
    ("5 people share 1,200 rent, how much each?", "240"),
    ("30% off 120, how much?", "84"),
    ("how much do I save with 25% off 80", "20"),
    ("$25 an hour for 6 hours, how much is that", "150"),
    ("how much is 3 nights at 380 a night", "1140"),
    ("我们三个人吃饭花了450，AA每人多少", "150"),
    ("四个人吃了520，一人多少", "130"),
    ("原价200，打七折后多少", "140"),
    ("打八五折的话，300块的鞋多少钱", "255"),
    ("每个月存500，存12个月一共多少", "6000"),
    ("时薪30，干了8小时，能拿多少", "240"),
    ("一晚上380，住3晚多少钱", "1140"),
    ("我们五个人AA，一共花了486块，每人多少钱？", "97.2"),
    ("月薪一万二，每个月存百分之三十，能存多少？", "3600"),
    # one rate over a larger unit that always holds so many of it, and a split "everyone" pays
    ("I walk 8500 steps a day, how many is that in a week?", "59500"),
    ("我每天走8500步，一个星期一共走多少步？", "59500"),
    ("my rent is 1200 a month, how much is that over a whole year?", "14400"),
    ("每个月房租3000，一年要交多少", "36000"),
    ("I save 50 a week, how much in 3 years?", "7800"),
    ("renting a boat for 258 bucks and there's 6 of us, how much does everyone pay", "43"),
    ("小周每天跑4.5公里，坚持28天一共跑了多少公里？", "126"),  # 小周 is a name, not a week
    ("five of us rented a pontoon boat for $1,275 total — what's each person's share?", "255"),
    # how many units an amount takes at a rate; a price risen for each unit, over a larger one
    ("Marisol reads 35 pages an hour. how many hours does a 490 page novel take her?", "14"),
    ("我一小时能看40页，300页的书要几个小时？", "7.5"),
    ("my climbing gym went from 29 to 34 bucks a month. how much extra is that over a whole year?", "60"),
    ("房租从3000涨到3300一个月，一年多交多少？", "3600"),
    ("my rent went down from 1400 to 1200 a month, how much more do I save a year?", "2400"),  # a fall, as much
    ("I got 85% on a test of 40 questions, how many did I get right?", "34"),
    # thousands separators, and percent in words
    ("whats 12.5% of 3,200", "400"),
    ("1,250,000 divided by 500", "2500"),
    ("thirty five percent of 1,800?", "630"),
    ("35,120和80一共多少", "235"),  # a list, in Chinese: the commas part the numbers
    # a list, a few words, the total asked, a remark (round 46's spent set asked for a sum to be written)
    ("这个月电费水费燃气费分别是 213.6、58.2 和 97，我得算算一共多少，好心疼", "368.8"),
    ("i spent 12, 30 and 45 this week, how much is that altogether", "87"),
    ("what is 12, 30 and 45 in total", "87"),
    ("everyone paid 50, 5 people, how much in total", ASK),  # a count, not an amount: no 55
    # a further step after the total, and dates (the review of 2026-12-07)
    ("电费水费燃气费分别是 213.6、58.2 和 97，一共多少，三个人平摊每人多少", ASK),
    # powers in words, a change in percent, a unit in another
    ("how much is nineteen squared plus seventy-one", "432"),
    ("what's 3 squared times 4", "36"),
    ("the rent goes from 1,450 to 1,595 next month, what percent increase is that?", "10"),
    ("price went from 80 to 60, what's the percentage drop?", "25"),
    ("my rent goes from 950 to 1020 next month, what percent increase is that?", "7.37"),
    ("房租从3000涨到3300，涨了百分之几？", "10"),
    ("工资8000涨百分之十五，现在多少", "9200"),
    ("税前13500，扣掉百分之十一，到手多少钱", "12015"),
    ("what's 15% more than 80", "92"),
    ("what's the price after tax, 100 plus 8%", "108"),
    ("how many seconds r in 3.5 hours", "12600"),
    ("how many minutes in a day?", "1440"),
    ("90分钟等于几小时", "1.5"),
    ("两公里是多少米", "2000"),
    ("一斤是多少克", "500"),
    ("convert 2.5 kg to grams", "2500"),
    # an amount in two parts (round 20's spent set: "8 小时 45 分钟是多少分钟" went to the model)
    ("帮我算一下 8 小时 45 分钟是多少分钟", "525"),
    ("2小时30分钟是几小时", "2.5"),
    ("一天零六小时是多少小时", "30"),
    ("how many minutes is 2 hours 15 minutes", "135"),
    ("3 hours and 20 minutes in seconds", "12000"),
    ("08小时05分钟是多少分钟", "485"),
    # costs added up, then split (round 33's spent set: "…355 bucks plus 49 for gas. split evenly…" read nothing)
    ("four of us rented a van for 355 bucks plus 49 for gas. split evenly, how much each?", "101"),
    ("房费800，再加油钱120，4个人平摊每人多少", "230"),
    ("we paid $120 for dinner and $30 tip, split 3 ways?", "50"),
    # a year, of 365 days as people count (round 33's spent set: "一年有多少秒啊？按 365 天算" went to the model)
    ("一年有多少秒啊？按 365 天算", "31536000"), ("how many hours in a year", "8760"),
    ("how many hours in a year, counting 365 days", "8760"), ("how many days in 3 years", "1095"),
    # a decimal divisor is no date (round 21's spent set: "48 / 0.6" was read as one, like 12/03/2026)
    ("what's 48 divided by 0.6", "80"),
    ("1.5/2.5", "0.6"),
    # things bought at a price each (round 21's spent set: all went to the model or a question)
    ("5 dozen eggs at 0.35 each, how much is that?", "21"),
    ("filled up 41.5 liters at 1.89 a liter this morning, what did that cost me?", "78.435"),
    ("今天买了3斤排骨，每斤32块，又买了2.5斤虾，每斤48，到底一共多少钱？", "216"),
    ("买了4斤苹果，6.5元一斤，多少钱", "26"),
    ("苹果6块一斤，买了3斤，多少钱", "18"),
    ("12 stamps at 55 cents each, how much?", "6.6"),
    ("I bought 5 dozen eggs at 3 a dozen, how much?", "15"),  # the price is a dozen's (review)
    ("3 notebooks at 4.50 each, total?", "13.5"),
    ("splitting a $186.60 grocery run between 3 roommates, what's each person's share?", "62.2"),
    ("if I stash away 125 bucks every week for a whole year (52 wks), how much do I end up with?", "6500"),
    ("1500 乘 1.035 的平方", "1606.8375"),  # the square binds to 1.035 only
    # prices and amounts said the Chinese way (seen: "苹果六块五一斤，买三斤半" went to the model, which said 15.0)
    ("苹果六块五一斤，买三斤半多少钱", "22.75"),
    ("苹果6块5一斤，买3斤半多少钱", "22.75"),
    ("可乐一块五毛一瓶，买了6瓶，一共多少钱", "9"),
    # 1 + 2 + … + n (seen: "从1加到100" answered 505 by the model)
    ("从1加到100等于多少", "5050"),
    ("从一加到一百是多少", "5050"),
    ("what's the sum of all the numbers from 1 to 50", "1275"),
    ("1+2+3+...+100 = ?", "5050"),
    ("两杯半糖奶茶，每杯18块，一共多少钱", "36"),  # half-sugar, not two and a half cups (review)
    # the price before a discount (round 23's spent set: "打七折以后是238块，那原价是多少" got 149 from the model)
    ("打七折以后是238块，那原价是多少", "340"),
    ("打八折后是160，原价多少", "200"),
    ("这件衣服打八五折后340元，原价多少钱？", "400"),
    ("paid $51 after 15% off, what was the original price?", "60"),
    ("got it for 80 bucks with 20% off, how much was it originally?", "100"),
    ("打八折后是160，原价为多少", "200"),  # _money read these as 160 * 0.8 (review)
    ("现在打八折卖160，没打折前多少钱", "200"),
    ("How much was it before the discount? it's 30% off now and costs 70", "100"),
    # minutes a day over a week (review: broken for a while by minutes as a unit of rates)
    ("I walk 30 minutes a day, how many minutes in a week?", "210"),
    ("我每天跑步30分钟，一周跑多少分钟", "210"),
    # asked in phone spelling (round 24's spent set: both got the request for the sum as numbers)
    ("6 of us splitting a 213 airbnb, hows much each", "35.5"),
    ("jacket is 120 bucks w 35% off, wat do i actually pay", "78"),
    # the price of one from the price of several (round 24's spent set: both got the request for a sum)
    ("4.5 kg of rice for 13.95, whats that per kg", "3.1"),
    ("五斤苹果二十六块五，一斤多少钱", "5.3"),
    ("2 liters of oil for $7, how much per liter?", "3.5"),
    # the difference of two numbers, larger first whichever comes first (seen: none of these was read)
    ("what's the difference between 45 and 17", "28"),
    ("whats the diff between 875 and 1200?", "325"),
    ("45和17相差多少", "28"),
    ("17比45少多少", "28"),
    # one amount per one of another (round 23's spent set; the page: "…平均每公里几分钟？" got a request for numbers)
    ("drove 348 km on 29 liters of gas, how many km per liter is that", "12"),
    ("今天跑了5.6公里，用了35分钟，平均每公里几分钟？", "6.25"),
    ("read 120 pages in 4 days, how many pages a day", "30"),
    # 万 after digits (round 23's spent set), and a new amount asked mid-message
    ("存5万块定期一年，年利率2.75%，利息有多少", "1375"),
    ("1.2万打八折多少", "9600"),
    ("一共1万，四个人平分，每人多少", "2500"),  # no number for a while: 1万 was read as 1
    ("从1加到100万等于多少", "500000500000"),
    ("４．５和１．２相差多少", "3.3"),  # full-width digits (review: a ValueError ended the turn)
    ("５万加３万等于多少", "80000"),
    ("i make 4,200 a month and just got a 6.5% raise!! what's my new monthly pay", "4473"),
    # round 29's spent set: a split asked as no more than it, "and a half" and "r" for "are", a fee beside things
    # bought at a price each, interest said simple or compound, "after" a count of months (not "after tax")
    ("dinner came to 386.40, split four ways?", "96.6"),
    ("how many seconds r in three and a half hours", "12600"),
    ("3件衣服每件129 再加运费12 一共多少钱", "399"),
    ("4 books at 12 each and $5 delivery, total?", "53"),
    ("五千块 年化3.5% 存两年 单利能拿多少利息", "350"),
    ("年化3%，存5万，复利2年，利息多少", "3045"),
    ("10000 at 5% compound interest for 2 years, how much do i end up with?", "11025"),
    ("if i put away 275 a month how much do i have after 18 months", "4950"),
    # the review: "have", "total" and "一共" beside the interest asked are no savings added back; "shipping" a verb
    ("I have 5000 in a CD at 3% simple interest for 2 years, how much interest do I get?", "300"),
    ("我有5万 存定期3年 利率2.75% 利息一共多少", "4125"),
    # what this reader cannot place whole becomes a question
    ("what's 12 times 4, and then divide it by 3", ASK),
    ("what is 12 times 4, and add 3 to that", ASK),
    ("I had 20 apples and ate half, how many left?", ASK),
    ("I had 3 apples and ate 5, how many left?", ASK),
    ("we were 4 friends and each paid 12, how much in total?", ASK),
    ("我有20块钱，每本书5块，能买几本，还剩多少？", ASK),
    ("每人交了50，5个人一共多少", ASK),  # each one's amount, not a bill to split
    # the speaker counted beside the others (round 50's spent set divided "3 friends + me" by 3)
    ("3 friends + me split a $186 cabin bill, whats each", "46.5"),
    ("me and 2 friends split a 90 dollar dinner, how much each", "30"), ("Split $90 between me and 2 friends", "30"),
    ("我和三个朋友AA吃饭花了360，每人多少", "90"),
    ("两个同事加我平摊一个240的蛋糕，每人多少钱", "80"),
]

ZONE = ZoneInfo("Asia/Shanghai")
NOW = dt.datetime(2026, 11, 29, 10, 15, tzinfo=ZONE)


@pytest.mark.parametrize("text, number", PHRASINGS)
def test_the_reader_gives_the_whole_sum_or_a_question(text, number):
    reading = arithmetic.read(text)
    reflex = reflexes.match(text, NOW, ZONE)
    if number is ASK:
        assert reflex is not None and reflex.reply and not reflex.calls, reflex
        assert not re.search(r"\d", reflex.reply)
    else:
        assert reading is not None and reading.expression, reading
        assert calculate(reading.expression) == number
        assert reflex is not None and reflex.calls[0].arguments == {"expression": reading.expression}


@pytest.mark.parametrize("text, number", PHRASINGS)
def test_through_the_pet_never_a_wrong_number(text, number, tmp_path, monkeypatch):
    monkeypatch.setenv("PET_HOME", str(tmp_path))
    # The model, asked to word the result, gets it wrong: the pet must not pass that on.
    model = ScriptedModel(["It's 250, easy!"], repeat_last=True)
    app = build(load_settings(None), brain=model, clock=lambda: NOW)
    reply = list(app.agent.run(app.current_conversation(), text))[-1].text
    said, given = (set(re.findall(r"\d+(?:\.\d+)?", words)) for words in (reply, text))
    if number is ASK:
        assert reply.endswith(("?", "？")) and said <= given, reply
    else:
        # the sum the code read may be shown beside its result ("5 * 12 * 0.35 = 21"): its numbers are the code's
        read = set(re.findall(r"\d+(?:\.\d+)?", arithmetic.read(text).expression))
        assert number in said and said <= given | read | {number}, reply


@pytest.mark.parametrize("text", ["I have 3 cats", "我有3只猫", "the score was 3 to 1", "what's 3 times the fun?",
                                  "2026-12-01", "how many days until my birthday?", "我有两个妹妹",
                                  "which one is it?", "I have two cats and one dog", "one two three",
                                  "note: buy 2 eggs", "twenty twelve plus three", "what is 1,2,3",
                                  # money said in passing asks for nothing
                                  "I tipped 15% on a $40 bill yesterday, was that rude?",
                                  "I make $25 an hour, is that good?", "my rent is 1200 a month lol",
                                  "how far is the moon", "i ran 5 km a day for a week, in total it was fun",
                                  # a share of a count, not of money (the review of 2026-12-05)
                                  "15% tip on 3 pizzas?", "30% off a 2-year subscription?",
                                  "20% off sale at uniqlo today, should I go?", "我们四个人AA了一顿火锅，好开心",
                                  "4 of us, 30 each, what is the total?",
                                  "我从家走到公司要20分钟，加到100分钟", "两点半见", "6块一斤的苹果真便宜",
                                  # a raise, a range, a series with more after it, 块 as a counting word (review)
                                  "老板把我的工资从8000加到10000了，开心", "我体重从120加到130了",
                                  "I need a total of 3 to 5 people for the team",
                                  "从1加到100，再乘以2等于多少", "两块三明治", "三个半价", "一块五花肉",
                                  # each one's price, not a bill (round 23's set, after its measurement: 1.632)
                                  "concert tix are $68 each, 5 of us going, plus a 12% booking fee on the total. "
                                  "split evenly how much does each person pay",
                                  # a change or a unit said in passing
                                  "my rent went from 3000 to 3300, ugh", "I got a 10% raise, my salary is 8000 now",
                                  "我工资涨了百分之十，现在8800", "I walked 5 km in 2 hours today",
                                  "what a day, 3 hours in the car", "房租从3000涨到3300了，气死",
                                  # a percentage of no change, or asked of another amount (review)
                                  "I work from 9 to 5, what percentage of my day is that?",
                                  "工资8000涨了百分之十五，涨了多少钱", "电脑降价百分之二十，现在卖4000，原价多少",
                                  "今年奖金降了20%，3个月没心情，多少有点难过",
                                  "What's going on? my grade dropped 10% since week 3"])  # each one's amount: not 30 / 4
def test_numbers_that_are_no_sum_are_left_alone(text):
    assert arithmetic.read(text) is None


@pytest.mark.parametrize(
    "text, expression",
    [
        ("so what's 128*7 then, buddy?", "128*7"),
        ("hey, 128 times 7 is what", "128 * 7"),
        ("帮我calculate一下 1500 乘 1.035 的平方", "1500*1.035^2"),
        ("帮我calc一下 365*24", "365*24"),  # round 30's spent set
        ("一百二十八乘以七是多少呀小钳", "128*7"),
        ("what day is it", None),
        ("I was born on 1990-05-03", None),
        # why or when a result said holds: a riddle, no sum asked (round 29's spent set computed 1+1)
        ("1+1什么情况下等于3 哈哈", None), ("how come 2+2=5 in that book", None), ("1+1为什么等于2", None),
        ("算一下23*47 为什么我总算错", "23*47"),  # a sum asked beside a why (the review of 2026-12-05)
        # a sum said with its result asks nothing (round 36's spent set computed 三乘七); one checked does, and so
        # does another sum after it
        ("三乘七等于二十一，这个我还是会的哈哈", None), ("2+2=4 duh", None), ("12*12=144 right?", "12*12"),
        ("3乘7等于21吗", "3*7"), ("算一下 25*4=100 对吧", "25*4"), ("1+1=2, what about 25*4", "25*4"),
        # checked in other words, or asked before it; a question in another clause is not about it (the review of
        # 2026-12-06)
        ("3*7=21 对么", "3*7"), ("3*7=21 没错吧", "3*7"), ("is 3*7=21", "3*7"), ("how much is 12*12=144", "12*12"),
        ("三乘七等于二十一，今天晚上吃什么？", None), ("25*4=100, 25*8=?", "25*8"),
        # a square root beside an operator (round 49's spent set read "根号二乘以一百" as 2*100); alone it is sqrt
        ("根号二乘以一百是多少", "2^0.5*100"), ("三乘以根号四等于几", "3*4^0.5"), ("根号2等于多少", "sqrt(2)"),
        ("我根号二不会算", None),
    ],
)
def test_an_expression_is_found_anywhere_in_a_message(text, expression):
    assert arithmetic.expression_in(text) == expression


@pytest.mark.parametrize("text, asks", [
    ("三乘七等于二十一，这个我还是会的哈哈", False), ("7 times 8 is 56, easy", False), ("2+2=4 duh", False),
    ("三乘七等于多少", True), ("3乘7等于21吗", True), ("1+1=2, what about 25*4", True),
])
def test_a_sum_said_with_its_result_asks_for_none(text, asks):
    assert arithmetic.asks_a_sum(text) is asks


@pytest.mark.parametrize("text", [";", " ; ", "; ;", "then", "then then", "，", "再", ";?"])
def test_pauses_alone_are_no_sum_and_no_crash(text):
    # found by the API's schema fuzzing: {"message": ";"} was an IndexError (HTTP 500)
    assert arithmetic.read(text) is None


@pytest.mark.parametrize("text", [
    # chat beside a sum asks for no result
    "My boss gave me a 10% raise on my $4000 salary, what's your take?",
    "What would you do if 3 friends split a $100 bill and one didn't pay?",
    "Tipping 20% on a $50 dinner feels like a lot, what's normal?",
    "I make $25 an hour and worked 40 hours this week, what's a good way to celebrate?",
    # what the money reader does not place: no number rather than a wrong one
    "3千块，三个人平分，每人多少",
    # review: 万 then more ("1万零800" was read 100000800), an amount already a rate or an age, a raise already in
    # the amount said, "new" with no amount after it
    "房租1万零800，4个人平分，每人多少", "工资1万零500，涨了10%，现在多少",
    "I drink 2 liters a day for 3 weeks, how many liters a week", "每天跑3公里，跑了2周，每周多少公里",
    "my kid is 6 years old and reads 2 books a week, how many books a year",
    "after a 5% raise i'm now at 60000 a year, what's my new monthly pay",
    "my boss gave me a 5% raise, i'm at 60000 now. what's my new tax bracket?",
    "my rent is 1200 and went up 5%, what's the new normal anyway lol", "$1.2k between 4 people, how much each",
    "时薪30，一天干8小时，干了5天，一共多少", "$25 an hour, 8 hours a day, how much a week?",
    "I drink 3 cups a day, how many in a month?",  # a month has no fixed number of days
    "I earn 25 an hour, how much a day?",  # nor a day of work hours
    "my gym went from 29 to 34 bucks a month, how much is that a year?",  # which of the two: not said
    "你几天没理我了",
    "my kettle is 2.2 kW and I run it 6 minutes a day. how many kWh is that over 30 days?",  # a third number
    # found by a review: a number of another unit, a half, a span in two parts, days asked for
    "I game 3 hours a day, how many days is that over 2 years?", "我每天睡8小时，10年里睡了几天",
    "I read 35 pages an hour, how many hours will it take the 2 of us?", "I save 200 a month, how many months until 2030?",
    "I save 20 a day, how much in half a year?", "8500 steps a day, how many in 2 weeks and 3 days?",
    "from 29 to 34 a month, over a whole year and a half how much extra?", "我每天跑5公里，一周跑几天",
    "1月份花了3000，2月份花了2000，一共多少", "每月存500，从3月存到12月，一共多少",
    "How much is a 20% tip for 4 people?", "我跟另外两个人平分300，每人多少",
    "4 friends and me and my wife split 300, how much each",  # more people after them (the review)
    "went to the bazaar with 3 friends, spent $60, how much each?",
    "What's 5000 after 20% tax?", "paid $40 after 20% discount, how much did I save",
    "Total $115 including 15% tip, how much was the tip",
    "Each of us paid $20, there were 5 people, how much did we pay?",
    # a price each beside a number that is neither count nor price; a year said in weeks that disagree
    "奶茶一杯22块，第二杯半价，买两杯一共多少钱？", "I bought 3 shirts at 20 each for my 2 kids, how much?",
    "save 125 a week for a year (50 weeks), how much",
    # found by a review: how many units a price each takes divides; a count over time is more than a price each
    "how many hours to drive 300 miles at 60 an hour?", "how many months to save 1200 at 100 a month?",
    "I drink 2 coffees a day at 4.50 each, how much a month?", "一天3杯咖啡，每杯25块，一个月多少钱",
    "each of my 2 kids gets 20 allowance, how much do I pay?",
    # a discount with no price paid, or a second amount; pay by the minute over a day of work
    "打七折，原价多少", "打七折以后是238块，我朋友买了两件，原价多少",
    # found by a review: the amount saved, a count, a size or days beside a discount; "original" asking
    # for something else; a folding umbrella; pay or reading by the hour over a day (not round the clock)
    "这件衣服打了七折，我省了90块，原价多少", "打七折便宜了90块，原价多少",
    "it was 30% off and I saved $24, what was the original price?", "打七折买了3件，原价多少",
    "商场打八折，我买了5斤车厘子，原价多少", "bought 3 shirts at 20% off, what was the original price?",
    "20% off for 2 days only, what's the original price?", "打八折活动还剩3天，原价多少",
    "my size 42 shoes were 30% off, what was the original price?",
    "how much is the original 80 dollar jacket after 25% off?",
    "whats the discount off the original price of 120 if its 25% off",
    "how much did I save off the original price? it was 30% off and I paid 70",
    "这把三折叠伞原价多少？现在活动价89", "I charge 30 an hour for tutoring, how much for a day?",
    "I read 20 pages an hour, how many in a day?", "每分钟漏0.35升水，一天漏多少升",
    # the price of one asked in another measure, or with no price said
    "4.5 kg of rice for 13.95, whats that per pound", "5斤苹果，一斤多少钱",
    # interest that does not say simple or compound, or says both; a fee with no price each; a split not asked
    "10000 at 5% for 3 years, how much interest?", "存1万 利率3% 单利还是复利划算 3年利息差多少",
    "运费12块，贵不贵", "we split the 386.40 bill four ways and it was fine",
    "5 books at 12 each, shipping 4 of them to my mom, how much total?",
])
def test_money_this_reader_cannot_place_gets_no_number(text):
    reading = arithmetic.read(text)
    assert reading is None or not reading.expression, reading


def test_what_a_discount_saves():
    reading = arithmetic.read("200块的东西打七折，便宜了多少")
    assert reading is not None and calculate(reading.expression) == "60"


def test_a_word_problems_plain_answer_shows_what_was_computed(tmp_path, monkeypatch):
    # seen on the page: "今天买了3斤排骨，每斤32块，又买了2.5斤虾，每斤48，一共多少钱？" got a bare "216"
    monkeypatch.setenv("PET_HOME", str(tmp_path))
    app = build(load_settings(None), brain=ScriptedModel(["It's 250, easy!"], repeat_last=True), clock=lambda: NOW)
    reply = list(app.agent.run(app.current_conversation(), "今天买了3斤排骨，每斤32块，又买了2.5斤虾，每斤48，一共多少钱？"))[-1].text
    assert reply == "3 * 32 + 2.5 * 48 = 216"


@pytest.mark.parametrize("text, count", [
    ("打七折以后是238块，那原价是多少", 2),  # 七折 is a number, which _in_digits leaves in words
    ("七五折是几折扣，便宜多少", 1),  # "7五折" by then: once (review)
    ("这把三折叠伞挺好用", 0),
    ("每分钟漏0.35升水，一天漏多少升", 2),  # one day, against minutes: 1440 implied
    ("a tap leaks 0.35 liters per minute, how much in a day?", 2),
    ("I drink 2 coffees a day, how much caffeine is that", 1),  # one unit of time: no conversion
    ("一天有多少分钟", 1),
    ("how many ounces in a cup?", 0),
])
def test_the_numbers_a_message_says(text, count):
    assert arithmetic.counted(text) == count


@pytest.mark.parametrize("text, expression", [
    ("do 3847 divided by 13", "3847 / 13"), ("calc一下 (88+92+79)/3", "(88+92+79)/3"),
    # a space for a comma, read so only when the words as they are read as no sum
    ("每月停车费380 一年多少", "380 * 12"),
])
def test_a_word_of_asking_and_a_spaced_clause_before_the_sum(text, expression):
    reading = arithmetic.read(text)
    assert reading is not None and reading.expression == expression


@pytest.mark.parametrize("text", ["do my homework", "do 5 pushups", "算算我今年多大"])
def test_a_word_of_asking_alone_is_no_sum(text):
    assert arithmetic.read(text) is None


@pytest.mark.parametrize("text, expression, result", [
    # used as a person would (2026-12-05): the small model answered "convert 10 miles to km" with "1.6 km"
    ("convert 10 miles to km", "10*1.609344", "16.09344"),
    ("how many kilos in 150 pounds?", "150*0.45359237", "68.0388555"),
    ("72 fahrenheit in celsius", "(72-32)*5/9", "22.2222222222"),
    ("10英里是多少公里", "10*1.609344", "16.09344"),
    ("150斤合多少公斤", "150*0.5", "75"),
    ("把20摄氏度换成华氏度", "20*9/5+32", "68"),
    # the review of 2026-12-05: thousands, below zero
    ("convert 1,500 miles to km", "1500*1.609344", "2414.016"),
    ("convert -40 f to c", "(-40-32)*5/9", "-40"),
    ("零下10摄氏度是多少华氏度", "-10*9/5+32", "14"),
])
def test_a_unit_conversion_is_computed(text, expression, result):
    from pet.tools.calc import calculate

    reading = arithmetic.read(text)
    assert reading is not None and reading.expression == expression
    assert calculate(expression) == result


@pytest.mark.parametrize("text", ["5 km in kg", "I ran 10 miles to work", "10 miles is a long way", "我跑了5公里",
                                  "42码是多少厘米"])  # (码 is a size)
def test_no_conversion_where_none_is_asked_or_the_kinds_differ(text):
    assert arithmetic.conversion(text) is None


@pytest.mark.parametrize("text, result", [
    # round 32's spent set: a change asked after a story, a chain of rates, so many months of a pay
    ("my landlord just texted that rent goes from 1450 to 1520 next month, which is rich bc the heater still rattles. "
     "ugh. how much extra", "70"),
    ("房租从1450涨到1520，多了多少", "70"),
    ("一天 8 小时，一周上 5 天，一年按 50 周算，总共多少小时", "2000"),
    ("i work 8 hours a day, 5 days a week, 50 weeks a year. how many hours is that", "2000"),
    ("每天跑 5 公里，一个月 30 天，一共跑多少公里", "150"),
    ("今天老板说年终奖按三个月 base 发，我 base 是 12800，算算一共多少？不过说实话我也不太信他", "38400"),
    ("my bonus is 2 months of salary and my salary is 5,000, how much is the bonus", "10000"),
    # round 34's spent set: a word asking to compute, a rate of the chain said in the question, then and now
    ("calc an 18% tip on 73.50 pls", "13.23"),
    ("compute a 20% tip on a 45 dollar bill", "9"),
    ("一年52周，我每周跑25公里的话一年一共跑多少公里呀", "1300"),
    ("这个月电费涨得离谱，上个月218.4，这个月301.9，到底涨了多少啊", "83.5"),
    ("last month the bill was 80, this month it is 95.5, how much more is that", "15.5"),
])
def test_a_story_with_its_sum_in_words_is_computed(text, result):
    reading = arithmetic.read(text)
    assert reading is not None and reading.expression
    assert calculate(reading.expression) == result


@pytest.mark.parametrize("text", [
    "一天工作8小时，一周5天，工资多少",  # asks for the pay, which no number says
    "我一天睡 8 小时，一周练 3 天琴",  # asks nothing
    "月薪 9000，年终奖发 2 个月工资，一年一共多少",  # a year's pay and a bonus: more than one product
    "rent went from 1450 to 1520 and then to 1600, how much more",  # three amounts
])
def test_no_story_sum_where_the_numbers_do_not_say_it(text):
    reading = arithmetic.read(text)
    assert reading is None or not reading.expression


@pytest.mark.parametrize("text", [
    # found by a review: a span the chain does not reach, months of one thing times another
    "一天工作8小时，一周5天，一年工作多少小时",
    "I work 8 hours a day, 5 days a week. how many hours do I work in a year?",
    "每天跑5公里，每周跑3天，一年跑多少公里",
    "押金是3个月房租，我工资是9000，押金多少",
])
def test_no_story_sum_for_a_span_or_a_thing_the_numbers_do_not_reach(text):
    reading = arithmetic.read(text)
    assert reading is None or not reading.expression or reading.expression not in ("5 * 8", "3 * 5", "3 * 9000")


def test_a_unit_of_time_in_a_smaller_one_is_worked_out_step_by_step():
    # as a person works it out, not "1 * 3.1536e+07"
    assert arithmetic.read("一年有多少秒").expression == "365 * 24 * 60 * 60"
    assert arithmetic.read("how many seconds in two days").expression == "2 * 24 * 60 * 60"
    assert arithmetic.read("how many seconds r in 3.5 hours").expression == "3.5 * 60 * 60"
    assert arithmetic.read("3 weeks in seconds").expression == "3 * 7 * 24 * 60 * 60"
    # a year counted otherwise is not read as 365 days; a calendar year is no count of years (its days depend on
    # it), and a year in weeks is 52 and a day, not 52.14 (the review of 2026-12-05)
    for text in ("一年有多少天？按 360 天算", "2024年有多少天", "2024年有多少个小时", "how many weeks in a year", "2年是多少周"):
        assert arithmetic.read(text) is None, text


@pytest.mark.parametrize("text", [
    # the review of 2026-12-05: a date, a time, a count, an amount taken off or held in another is no cost to add
    "we went out on march 3 and spent 120 on dinner, split 4 ways, how much each?",
    "we had dinner at 7 and it cost 120, split 4 ways, how much each?",
    "we ordered 3 pizzas and the bill was 54, split among 3 of us, how much each?",
    "the bill is 300 and we have a coupon for 50, split among 4 people, how much each?",
    "一共800，还有优惠券减50，四个人平摊", "hotel 800 and then we got 100 back as a refund, split 4 ways?",
    "dinner came to 150 total and that includes 30 for drinks, split between 3 of us?",
    "dinner was 180 and I already paid 60 of it, split between 3 of us, how much each?",
    "买菜花了200，还有30是打折优惠掉的，4个人平摊",
    "我们4个人，门票每人80，再加打车60，平摊每人多少",  # one cost is each one's
    "tickets are 20 each and 15 parking, 3 of us, how much each?",
    "split 120 between 3 of us, then 45 more for 2 nights",  # no word that adds the two
])
def test_costs_not_all_added_up_are_not_split_as_one_bill(text):
    found = arithmetic.read(text)
    assert found is None or "+" not in found.expression, found


@pytest.mark.parametrize("text", [
    "上个月工资8000，这个月多少",  # asks no change
    "上个月218.4，这个月301.9，下个月350，涨了多少",  # three amounts
])
def test_no_change_between_then_and_now_where_not_asked_or_not_two(text):
    reading = arithmetic.read(text)
    assert reading is None or not reading.expression or "-" not in reading.expression


def test_a_figure_longer_than_any_sum_is_not_read():
    # (a 10,000-character message of nines took seconds through every reading; the number fuzz timed out under load)
    assert arithmetic.read("what is " + "9" * (arithmetic.MOST_DIGITS + 1) + " + 1") is None
    assert arithmetic.read("what is " + "9" * arithmetic.MOST_DIGITS + " + 1") is not None
