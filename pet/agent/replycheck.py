"""Checks on the model's final reply that a person would feel if they failed:
the wrong language, their own words echoed back, the pet's memories recited
unasked, an assistant's stock phrases or a refusal of small talk, a
catchphrase and nothing else, the pet calling itself by another name.

Pure functions of the reply and what the turn knows. `problems` judges a
whole reply; `hold_at` says where to stop streaming a reply still being
written, so that the person never sees a part that may fail. The agent
retries once with `correction` and otherwise says `stand_in`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Collection, Sequence

from pet.persona.messages import say
from pet.persona.model import Persona
from pet.persona.replies import mood
from pet.text import CJK_CHAR, CJK_RUN, cjk_count, detect_language

#: the checks, in the order a correction names them
LANGUAGE, ECHO, REPEAT, RECITAL, ASSISTANT, CATCHPHRASE, NAME, PROGRAM = (
    "language", "echo", "repeat", "recital", "assistant", "catchphrase", "name", "program")
CHECKS = (LANGUAGE, ECHO, REPEAT, RECITAL, ASSISTANT, CATCHPHRASE, NAME, PROGRAM)
#: how alike (difflib's ratio of the letters) a reply must be to one of the pet's last replies to be
#: said again: a small model copies its last line ("本钳记住啦~再跟我多说点？" after "本钳记住啦～再跟我多说一点？")
REPEAT_SIMILARITY = 0.85
#: ...the fewest letters that earlier reply must have ("好呀" twice is fine), and how much of it the new
#: reply must cover
REPEAT_LETTERS, REPEAT_SHARE = 10, 0.8
#: how alike a whole reply and one of the person's earlier messages are for the one to copy the other
COPY_SIMILARITY = 0.9

#: letters (Chinese characters or Latin letters) a streaming reply needs before its language is judged
LANGUAGE_LETTERS = 6
#: a whole reply with fewer letters ("OK!", "嗯") is not judged for its language
JUDGED_LETTERS = 3
#: share of the message's letters a reply must hold, in order, to repeat it…
ECHO_SIMILARITY = 0.75
#: …while adding at most this share of letters of its own
ECHO_NEW_SHARE = 0.2
#: similarity (0..1) from which a first sentence, with more after it, is the message again
ECHO_FIRST_SIMILARITY = 0.9
#: a reply of at least ECHO_UNITS pieces (Chinese character pairs, longer English words), more than
#: this share of them the message's, restates it in another order or with a word changed ("累死了，今天搬了一天
#: 家。" → "今天搬了一天家，累死了。"). On 23 replies read by hand (the small model's to the spent chat
#: set of round 8, and answers written to the same messages) restatements had 0.86 or more, answers
#: 0.67 or less ("The capital of France is Paris.", 3 pieces), and a confirmation of a fact kept
#: ("Noted: you code after 11pm!" to "remember that I code after 11pm") 0.75
ECHO_UNITS, ECHO_UNITS_SHARE = 4, 0.8
#: a Chinese reply of at least ECHO_CHARS characters, at least ECHO_CHARS_SHARE of them the message's, that holds
#: at least ECHO_CHARS_COVER of the message's own, says the message again with words changed, which character
#: pairs do not see ("我跟拉斐尔离婚了，上周办完的手续" → "我与拉菲尔结婚了！上周办理完手续。", seen on the page; "今天好冷 手都
#: 动僵了 打字都打不利索" → "今天天气不错，手都不动僵，打字也打不中。"), when every clause of the reply is mostly the message's and
#: the pet says no "me too" ("我也好开心"). A message that asks or bids may have its words said again ("周末带你去阳台晒晒太阳
#: 好不好" → "好啊，周末带你去阳台晒晒太阳怎么样？"). Of the small and tiny models' 421 Chinese replies to the spent chat sets
#: of rounds 45 to 49 (the pet's own lines aside) it finds 2, each such (7 with the messages that ask and a "me too", all
#: such); answers stay under it ("你是公的还是母的" → "我是公的" is short and asks)
ECHO_CHARS, ECHO_CHARS_SHARE, ECHO_CHARS_COVER = 8, 0.7, 0.6
#: a first sentence in the first person, as the message is, with at least this share of its pieces the
#: message's, says the person's words about themselves as the pet's own (is_echo)
ECHO_SELF_SHARE = 0.4
#: ...and the content words the first clause of a sentence must have for that clause alone to be read so
CLAUSE_UNITS = 3
#: a sentence that starts with the speaker ("I'm …", "我是…")
_SELF = re.compile(r"(?:i|i'm|im|i am|i've|my)\b|我(?!们)", re.IGNORECASE)
#: …unless it says "me too": "我也喜欢吃火锅！" shares a liking, it takes nothing
_TOO = re.compile(r"\b(?:too|also|as well|either|wish|would love to|wanna|want to|could)\b|也|同样|要是|真想|好想",
                  re.IGNORECASE)  # (or wishes it did: "I wish I could go hiking in the mountains!")
#: …or speaks to the person: "I hope your interview goes well!", "我知道啦，你是律所的翻译！"
_OWN_LIKING = re.compile(r"\W*(?:i|i'd|i would)\s+(?:really\s+)?(?:love|adore|like|enjoy)\b|\W*我(?:也|最|超|好)?(?:喜欢|爱)",
                         re.IGNORECASE)
_SELF_ANYWHERE = re.compile(r"\b(?:i|i'm|im|i am|i've|my)\b|我(?!们)", re.IGNORECASE)
_TO_YOU = re.compile(r"\b(?:you|your|you're|yours|u|ur)\b|你|您", re.IGNORECASE)
#: a short message that only acknowledges, or opens a knock-knock joke: said back as the whole reply, it answers
#: nothing ("k" → "k", "嗯" → "嗯", "knock knock" → "Knock knock!": round 41's spent chat set). Only these: a greeting,
#: a goodbye, a laugh, a wish, a pet sound or a one-word answer may well come back as it came (the review of 2026-12-06)
_ONLY_HEARD = re.compile(r"^\W*(?:k+|ok(?:ay)?|okie|kk|hmm+|mhm+|uh\W*huh|yeah|yep|yup|sure|fine|cool|alright|right"
                         r"|knock\W*knock|嗯+|哦+|噢+|喔+|好(?:的|吧)?|行(?:吧)?|收到|知道了)\W*$", re.IGNORECASE)
#: a message shorter than this (letters, after dropping punctuation) cannot be echoed:
#: "hi" → "Hi!" is a greeting, not an echo
ECHO_MIN_CHARS = 4
#: nor can one of at most this many English words or Chinese characters:
#: "good morning!!" → "Good morning!", "早上好呀" → "早上好！" is a greeting returned
ECHO_MIN_WORDS, ECHO_MIN_CJK = 3, 5
#: share of a memory's words (or Chinese character pairs) a reply must hold to restate it
RESTATE_SHARE = 0.6
#: memories restated in one reply that make a recital
RECITAL_COUNT = 2

_ASSISTANT = re.compile(
    r"\bas an? (?:AI|artificial intelligence|language model|virtual assistant|assistant)\b"
    r"|\bI(?:['’]m| am) (?:just )?(?:an? )?(?:AI|artificial intelligence|language model|virtual assistant)\b"
    r"|\bAI (?:language )?model\b"
    r"|\bhow (?:can|may|could) I (?:help|assist)(?: you)?\b|\bhow (?:can|may|could) we (?:help|assist)(?: you\b| today\b)"
    r"|\bI(?:['’]m| am) (?:always )?here to (?:help|assist)\b|\bwe(?:['’]re| are) (?:always )?here to (?:help|assist) you\b"
    r"|\b(?:is there )?anything (?:else )?I can (?:help|assist|do for you)\b"
    r"|\bI(?:['’]m| am)? ?(?:sorry|afraid),? (?:but )?I (?:can(?:['’]t|not)|am unable to|won['’]t) (?:help|assist|provide|"
    r"do|answer|engage|fulfil)"
    r"|\bI can(?:['’]t|not) (?:assist|help) with (?:that|this)\b"
    # (round 39's spent chat set, the small and tiny models: "I'm very sorry, I can no longer assist with this request.",
    # "…so I cannot answer this question.", "抱歉，我不太了解你的问题。")
    r"|\bI(?:['’]m| am)? ?(?:very |so |really |truly )?sorry,? (?:but )?I (?:can no longer|can['’]?t|cannot) "
    r"(?:assist|provide|answer|help (?:you )?with (?:this|that|your))\b"
    r"|\bI (?:cannot|can not|am unable to) answer (?:this|your) (?:question|request)\b"
    r"|\bassist (?:you )?with (?:this|that|your) (?:request|question|query)\b"
    r"|^\W*抱歉[，,]?\s*我(?:不太|不是很|没有?|不)(?:明白|理解|懂|清楚|了解)你的(?:问题|需求)[。.！!]?\s*$"
    r"|\bI(?:['’]m| am) (?:not able|unable) to (?:help|assist|provide)\b"
    r"|\bI can only (?:assist|help|provide|respond)\b|\btext-based (?:responses?|assistant|AI)\b"
    # an offer of service (round 25's spent chat set, to "3 hrs of sleep. send help": "Sure, I can assist you with
    # your sleep-related questions.")
    r"|\bI can (?:assist|help) you with (?:your|any) (?:[\w-]+ ){0,3}(?:questions?|queries|inquiries|needs|concerns)\b"
    r"|\bprovide (?:me |us )?(?:with )?(?:more|some|additional) (?:context|details|information)\b"
    # a helpdesk at a loss, or waiting for the question (round 48's spent chat set, the small model: "I'm not sure how
    # to assist you with that.", "I'm ready to help! What's your question?", "I do not have enough information to
    # answer your question.", to "job interview in an hour", "got asked to lead the new project", "exam tmrw")
    r"|\bhow to assist you\b|\bnot sure how to help(?: you)? with (?:that|this)\b"
    r"|\bI(?:['’]m| am) ready to (?:help|assist)(?: you)?\s*(?:[!.]+\s*(?:what(?:['’]s| is) your question\b|$)|$)"
    # (used as a person would, to "job interview in an hour, hands are shaking lol": "…without more context, I can’t
    # provide a precise answer.")
    r"|\bwithout (?:more|further|additional|any) (?:context|information|details)\b"
    r"|\bI can(?:['’]t|not) provide (?:a|an|any) (?:precise|specific|definitive|accurate|exact) (?:answer|response)\b"
    # the prompt's rule of language said back ("…回复在 Simplified Chinese (简体中文）。")
    r"|\bSimplified Chinese\s*[(（]\s*简体中文"
    r"|\b(?:enough|sufficient) (?:information|info|context|details) to (?:answer|help|assist|respond)"
    r"|\bsomething specific you(?:['’]d| would) like to (?:ask|know|discuss|tell (?:someone|somebody))\b"
    # a manual's steps for a tool the pet made up (round 48's spent chat set, to "帮我写个请假条呗": "…是一个功能齐全的请假条
    # 生成工具……首先，确保你已经安装了该工具")
    r"|(?:安装|打开|下载|使用)(?:了)?(?:该|此)(?:工具|软件|应用|程序)"
    r"|\bclarify your (?:question|request)\b|\bclarify what you(?:['’]re| are)? ?(?:mean|trying|asking|saying)\b"
    # (seen on the page, to "my sister Mei just moved to Lisbon, so jealous": "…Could you rephrase your question?")
    r"|\b(?:could|can|would) you (?:please )?(?:rephrase|reword)\b|\brephrase your (?:question|request|message)\b"
    r"|\bas an? (?:chatbot|bot|computer program)\b"
    # contact details offered (used as a person would, to "my spare key is under the blue flowerpot": "…You can contact me
    # at the following email addresses:")
    r"|\b(?:contact|reach|email) (?:me|us) (?:at|via|through|by)\b|\b(?:the following|my|our) (?:e-?mail|phone) (?:address(?:es)?|numbers?)\b"
    # a program's words for itself, and a helpdesk's (round 26's spent chat set: "I am programmed to say that…",
    # "…happy to assist", "Do you have any specific … need help with something?")
    r"|\bI(?:['’]m| am) (?:programmed|designed|coded) to\b"
    r"|\b(?:happy|glad) to assist\b|\b(?:or|do you|if you) need (?:any )?help with (?:something|anything)\b"
    r"|我(?:被)?(?:设计|编程)(?:成|为|来)|我的程序(?!员)"
    r"|\bI (?:don['’]t|do not) (?:have|experience) (?:real |any |human )?(?:feelings|emotions)\b"
    r"(?! (?:about|for|towards?|on)\b)"
    r"|作为(?:一[个名])?(?:AI|人工智能|语言模型|智能助手|人机助手|助手|虚拟助手|聊天机器人|机器人)"
    r"|(?:我|并)(?:并)?没有(?:真实的|真正的|任何)?(?:情感|感情)(?!问题|上|方面|生活|经历)"
    r"|我(?:只)?是(?:一[个名])?(?:[\u4e00-\u9fff]{1,4}的)?(?:AI|人工智能|语言模型|智能助手|虚拟助手|聊天机器人)"
    r"|(?:有什么|有啥|什么)(?:事情?|事儿)?(?:我)?(?:可以|能|能够)(?:帮|为|协助)(?:助|忙)?(?:你|您|的)"
    r"|(?:我|我们)?(?:随时)?在这里(?:帮助|帮|协助|为)(?:你|您)"
    r"|我(?:无法|不能|没法|不可以)(?:帮|协助|提供|回答|满足|处理|参与|讨论|完成|执行|回应)"
    r"|(?:很|非常)?抱歉[，,]?\s*(?:但)?(?:是)?我(?:无法|不能|没法)"
    # a helpdesk's not understanding, and its gladness to help (round 28's spent chat set)
    # (the polite 您 of a helpdesk: a pet's "抱歉，我没明白你的意思～你是说豆豆还是豆腐呀？" asks back)
    r"|(?:很|非常)?抱歉[，,]?\s*我(?:不太|不是很|没有?|不)(?:明白|理解|懂|清楚)您的(?:问题|意思|需求)"
    r"|\bI(?:['’]m| am) (?:always |more than )?(?:happy|glad) to help(?: (?:with that|with anything|you))?\s*[!.]*\s*$"
    # the helpdesk's "anything else" turned round (round 46's spent chat set: "…anything else you can help me with?")
    r"|\banything else (?:you|i) (?:can|could) help (?:me|you) with\b"
    # (used as a person would, to "ugh my manager scheduled a meeting about having fewer meetings": "Sure! I'm ready to
    # help you get started. What's your manager's schedule?"; not a pet's "Want me to help you get started?")
    r"|\bI(?:['’]m| am) (?:ready|here) to help you get started\b"
    r"|提供更多(?:的)?(?:信息|细节|上下文|背景)"
    r"|我(?:没有|不具备|不支持)(?:这个|这种|该|这项|此)?(?:功能|能力)"
    r"|\bI (?:don['’]t|do not) have (?:that|this|the) (?:feature|function|capability|ability)\b"
    # seen in the small model's replies to the spent round 12 chat set and to profiling turns: a reply about its
    # reply ("Sure! Here is the response in English: ```json"), assistants' disclaimers, offers of help in
    # Chinese. Lists, ideas and answers a person asked for are not caught ("Here are a few ideas: tacos?"),
    # nor markdown: a server model lists the to-dos it was asked for so.
    r"|\bhere(?:['’]s| is) (?:a|an|the|my) (?:[\w-]+ ){0,3}(?:response|reply)\b"
    r"|\b(?:response|reply|answer|version|translation) in (?:English|Chinese|Mandarin)\b"
    r"|\bI(?:['’]d| would) be (?:happy|glad|more than happy|delighted) to (?:help|assist)\b"
    r"|\b(?:(?:don['’]t|do not) hesitate|feel free) to (?:ask|reach out|contact(?: me| us)?|let me know)"
    r"(?:\s+(?:if|anytime|any time|whenever)\b|\s*[.!~]*\s*$)"
    r"|\b(?:don['’]t|do not) hesitate to (?:ask|reach out to|contact) (?:me|us)\b"
    # (seen on the page, to "I'm a nurse and I work night shifts…": "If you need any assistance with your job or your
    # personal life, please don't hesitate to ask me.")
    r"|\bif you (?:need|require|want) (?:any )?(?:further |more |additional )?assistance\b"
    r"|\bwhat (?:would|do) you (?:like|need|want) (?:assistance|help) with\b|\bI hope (?:this|that) helps\b"
    r"|\bI (?:don['’]t|do not) have access to (?:real[- ]time|current|up[- ]to[- ]date|live|personal|your personal)"
    r" (?:data|information|info|details)\b"
    r"|我会尽(?:力|我所能)(?:地)?(?:为你|为您|提供|回答|协助|帮助你|帮助您)|为(?:你|您)提供(?:帮助|服务|支持)"
    r"|请告诉我(?:你|您)(?:感兴趣的|想(?:要)?了解的|需要(?:什么)?帮助|有什么(?:问题|需要|需求))"
    r"|(?:问题|需求)(?:或|或者)(?:需要)?帮助"
    r"|我(?:只)?是(?:一[个名])?(?:[\u4e00-\u9fff]{1,4}的)?(?:AI|人工智能?|智能)?(?:助手|助理)"
    # talk about the program's workings: a tool's output it says it did not see (the spent round 16 tools
    # set: "抱歉，我没有看到工具的输出。" after the calculator had answered)
    r"|(?:没有?|并没有|无法|不能)(?:看到|收到|获取|读取|访问)(?:到)?(?:任何)?工具(?:的)?(?:输出|结果|返回)"
    r"|\bI (?:don['’]t|do not|didn['’]t|did not|can['’]t|cannot) (?:see|access|read) (?:the |any )?"
    r"tool(?:['’]s)? (?:output|result|response)s?\b"
    r"|\b(?:the )?tool(?:['’]s)? (?:output|result|response) (?:is|was) (?:not|n['’]t) "
    r"(?:shown|visible|available|provided)\b",
    re.IGNORECASE,
)

#: a word an assistant's phrase begins with: an unfinished sentence holding
#: one is held until it ends, as it may still grow into such a phrase
_ASSISTANT_START = re.compile(
    r"\b(?:as|how|is|anything|I['’]m|I am|I can|I don['’]t|I do not|here|sorry|afraid)\b"
    # (the prompt named: "The person said: …", "- they said: …", "based on the information provided in the XML tags")
    r"|\b(?:the person|XML|based on|according to|the user)\b|\bthe(?:\s+p\w{0,5})?$|^\W{0,3}they(?:\s+s\w{0,3})?$"
    r"|作为|我(?:只)?是|有什么|有啥|什么|在这里|我(?:无法|不能|没法|不可以)|抱歉|很抱|非常抱"
    r"|我会尽|为(?:你|您)提|请告诉"
    # ... or the start of one of those words, at the end of what came so far (a token brings " don" before
    # "'t", "我会" before "尽")
    r"|\bI(?:['’]|\s+(?:d|do|don|don['’]|a|am|c|ca|can))?$|我会?$|为[你您]?$|请告?$|很抱?$|作$",
    re.IGNORECASE,
)
_SENTENCE_MARKS = ".!?。！？\n"
#: the program's correction note, which a small model may copy into its reply
_NOTE = re.compile(
    r"\[?\s*Note from the pet's program|\[Note\b"
    # the prompt's own lines (pet.persona.prompt) and the tool preamble of Qwen's chat template, copied: seen
    # in the small model's replies to the spent tool set of round 11 ("You may call one or more functions to
    # assist with the user query", "You have lived with this person for a 0 day (adopted …")
    r"|\bYou have lived with this person\b|\(adopted \d{4}-|\bYou may call one or more functions\b"
    r"|\bprovided with function signatures\b|\bfunction signatures within\b|</?tools>"
    # the prompt as a document the model was given: "I'm not an AI, but based on the information provided in the
    # XML tags, I believe you call this crayfish a \"shellfish\"" to a pun (round 42's chat set, the small model)
    r"|\b(?:in|within|inside|from|between) (?:the )?XML tags\b"
    r"|\b(?:based on|according to|from|in) the (?:information|context|details|data) (?:provided|given)\b"
    r"|\bthe user['’]s (?:query|question|request|message|input)\b|\bthe user (?:query|input)\b"
    # the prompt's companion rule and headings said back ("I never refuse small talk!"); not "I'm a crayfish, not an
    # assistant", which is the pet's own talk (seen on the page as a poor reply to "I play the cello…": off the
    # point, not a leak)
    r"|\bnever (?:offer help|refuse small talk|repeat their words)\b|\bnever copy them\b"
    # ...and the prompt as a document, in Chinese: "根据您提供的信息，周三晚上通常是为了玩五个-a-side足球。" (round 44's
    # chat set, the small model)
    r"|根据(?:您|你)?所?提供的(?:信息|资料|内容|上下文)",
    re.IGNORECASE,
)

_RECALL_QUESTION = re.compile(
    r"\b(?:remember|recall|remind me what)\b|\bwhat (?:do|did) you know about me\b"
    r"|\bwhat did I (?:tell|say|mention)\b|\bwhat (?:do|did) I (?:like|love|do|have)\b|\bdid I (?:ever )?(?:tell|mention)\b"
    r"|\bhave I (?:ever )?(?:told|mentioned)\b|我(?:是不是|有没有)(?:跟你)?(?:说过|提过)"
    r"|\bwhat(?:'s| is| are) my\b|\bdo you know (?:what|who|where|when|my|me)\b|\babout me\b"
    r"|记得|记住|还记|想起|忘了我|我(?:喜欢|爱|讨厌|说过|告诉过你|提过)(?:的)?(?:什么|啥|吗|哪)"
    r"|(?:知道|了解)我|关于我|我的\S{0,6}(?:是什么|是啥|叫什么)|我叫什么|我是做什么",
    re.IGNORECASE,
)

#: the pet naming itself; the name is group 1 ("my name is Tom", "我叫小林")
_SELF_NAMED = re.compile(
    r"\b(?i:my name(?:['’]s| is)|I(?:['’]m| am) called|call me|you can call me|they call me)\s+([A-Z][\w'’-]*)"
    r"|(?:我叫|我的名字(?:是|叫)|叫我|我名叫)\s*([A-Za-z][\w'’-]*|[\u4e00-\u9fff]{1,4})",
)
#: ... and, when asked its name, "I'm Tom"
_SELF_NAMED_ASKED = re.compile(r"\bI(?:['’]m| am)\s+([A-Z][a-z]+)\b(?!['’-])|我是([\u4e00-\u9fff]{1,3})(?=[。！!，,～~]|$)")
#: the person introducing themselves in passing: "hi! I'm Lin, I work as a nurse"
_INTRODUCED = re.compile(r"\bI(?:['’]m| am)\s+([A-Z][a-z]+),")
#: a name the person gives someone or something: "my cat is called Mochi", "named her Wok", "叫面条"
_GIVEN_NAME = re.compile(r"\b(?i:called|named)\s+([A-Z][\w'’-]*)|叫([\u4e00-\u9fff]{1,3})(?=[。！!，,～~？?\s]|$)")
#: the reply greeting someone by name, the name its own word: "Hello Lukas!", "嗨，阿杰！" (not "Hey! Lukas
#: sounds like a keeper", "Hi, Lukas sounds lovely")
_GREETED = re.compile(r"^\W*(?i:hello|hi|hey|hiya|dear),?\s+([A-Z][a-z]+)(?=\s*[!！,，.。?？~～]|\s*$)"
                      r"|^\W*(?:你好|嗨|哈喽)[,，\s]*([\u4e00-\u9fff]{1,3})(?=[!！,，。~～])")
#: a person the message names (not a pet, whom the pet may well greet): "my boyfriend is called Lukas"
_PERSON_NAMED = re.compile(
    r"\b(?:boyfriend|girlfriend|husband|wife|partner|fianc[eé]e?|friend|sister|brother|mom|mum|mother|dad|father"
    r"|son|daughter|boss|colleague|coworker|co-worker|roommate|flatmate|neighbou?r|cousin|aunt|uncle|teacher)\b"
    r"[^.!?。！？]{0,20}?\b(?i:is called|is named|called|named)\s+([A-Z][\w'’-]*)"
    r"|(?:男朋友|女朋友|老公|老婆|丈夫|妻子|朋友|姐姐|妹妹|哥哥|弟弟|妈妈|爸爸|儿子|女儿|老板|同事|室友|邻居|表哥|表姐|表妹|表弟"
    r"|堂哥|堂姐|老师)叫([\u4e00-\u9fff]{1,3})(?=[。！!，,～~？?\s]|$)", re.IGNORECASE)
#: the message asks the pet to greet someone
_SAY_HELLO = re.compile(r"\bsay (?:hi|hello)\b|\bgreet\b|打个?招呼|问个?好", re.IGNORECASE)
#: the start of a self-naming: an unfinished sentence holding one is held until it ends
_NAME_START = re.compile(r"\b(?i:my name|call me|I(?:['’]m| am) called)\b|我叫|叫我|我的名字|我名叫")
_NAME_START_ASKED = re.compile(r"\bI(?:['’]m| am)\b|我是")
#: a message that asks the pet's name
_NAME_QUESTION = re.compile(
    r"\b(?:(?:your|ur) (?:own |real |full )?name|call you|who are you|have a name|what (?:are you|ur|r u|you['’]re) called"
    r"|introduce (?:yourself|urself) to)\b"
    r"|\bwho am I (?:\w+ )?(?:talking|speaking|chatting) (?:to|with)\b"
    # what to tell someone it is called (round 30's spent chat set: "if my mom asks who im always talking to, what do
    # i tell her ur called?")
    r"|\b(?:tell|say|answer)\b[^.?!]{0,20}\b(?:you(?:['’]re| are)|ur|u r|r u) called(?=\s*[?？]|[\s.!~]*$)"
    r"|(?:你|您)(?:到底|究竟)?(?:叫什么|叫啥|的名字|名字|有名字|是谁)|(?:怎么|如何)称呼(?:你|您)|(?:称呼|叫)(?:你|您)什么"
    r"|跟谁(?:聊天|说话|聊)"
    # the name the person gave it (round 29's spent chat set: "remind me what i named you? lol", "我给你起的名字是啥来着")
    r"|\bwhat (?:did )?(?:i|we) (?:named?|call(?:ed)?) (?:you|u)\b"
    # (asked whether it was given one: "我是不是给你起过名字？叫啥", round 47's spent chat set; not one given now: "我给你取了名字叫
    # 虾米，你喜欢吗", "我想给你起名字，叫什么好呢？", the review of 2026-12-07)
    r"|给(?:你|您)(?:起|取)(?:过的?|的)(?:名字|名)[^。！!]{0,10}(?:啥|什么|吗|么|记得)"
    # in other words: a name tag for its tank, saying hi to it by name, whether it remembers its own name
    r"|\bname ?(?:tag|plate|sign)\b.{0,40}\b(?:your|ur)\b|\b(?:your|ur|you|u)\b.{0,40}\bname ?(?:tag|plate|sign)\b"
    # a card or a form for it: whom to address it to, what goes in the name field
    r"|\b(?:you|u)\b.{0,60}\bwho (?:do|should|shall) i address\b|\bwhat name (?:do|should|shall) i (?:write|put|use)\b"
    r"|(?:你|您)[^。？?]{0,12}名字(?:那一?栏|那一?格|那里)?(?:填|写)(?:什么|啥)"
    r"|\b(?:hi|hello|talk) to (?:you|u)\b.{0,30}\bby (?:your |ur )?name\b"
    r"|(?:你|您)(?:的)?[^，,。？?]{0,8}(?:名牌|名字牌|铭牌)|(?:名牌|名字牌|铭牌)[^，,。？?]{0,8}(?:你|您)|(?:你|您)[^，,。？?]{0,8}自己叫(?:什么|啥)"
    # how it introduces itself (round 25's spent chat set: "how do you introduce yourself to other pets 🦞" had
    # its answer without the name)
    r"|\b(?:how (?:do|would|will|should|did) (?:you|u)|can (?:you|u)|could (?:you|u)) introduce (?:yourself|urself)\b"
    r"|(?:你|您)(?:来)?介绍(?:一下)?(?:你|您)?自己|(?<![我他她])介绍一下(?:你|您)自己|(?:你|您)(?:会|要|打算|平时)?(?:跟[^，,。？?]{1,8})?怎么(?:做)?自我介绍",
    re.IGNORECASE,
)
#: a message that asks the person's own name
_THEIR_NAME_QUESTION = re.compile(
    r"\b(?:my name|what am I|who am I(?! (?:\w+ )?(?:talking|speaking|chatting) (?:to|with)\b)|call me)\b"
    r"|我(?:叫什么|的名字|是谁)|(?:你|您)(?:怎么|该)?(?:叫|称呼)我",
    re.IGNORECASE,
)
#: the parts of a Chinese name that say little on their own (小钳 and 小林 share 小)
_NAME_COMMON = frozenset("小阿老大")

EN_STOPWORDS = frozenset(
    "the and that this with for are was were has have had his her their they them you your about from "
    "into onto just very really like likes liked loves love not but all any one its it's our out who "
    "what when where which will would can could should than then there these those also".split()
)
#: a sentence ends at its mark; a point between digits ("3.5") ends none
_SENTENCE_END = re.compile(r"(?<=[!?。！？…~～])\s*|(?<=\.)(?!\d)\s*|\n+")
_WORD = re.compile(r"[a-z0-9']+")
_CLAUSE_MARKS = re.compile(r"[,，;；:：、]")
#: ...and the sentences' ends
_PIECE_MARKS = re.compile(r"[,，;；:：、。！？!?…~～]")
#: the pet sharing what the person feels or does ("我也好开心")
_ME_TOO = re.compile(r"(?:我|俺|钳钳|本钳)也")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Found:
    """What a reply got wrong: the failed checks, in CHECKS order."""

    problems: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.problems)


#: the words for the two who talk, in either language: "I do …" to "what do you do …" is the message turned round
_PERSONS = re.compile(r"\b(?:i|i['’]m|im|i am|me|my|mine|myself|you|you['’]re|youre|you are|u|ur|your|yours|yourself)\b"
                      r"|[我你您]", re.IGNORECASE)
#: a question for a fact, by the words it opens with
_WH_OPEN = re.compile(r"^\W*(?:what|where|when|who|why|how|which)(?:['’]s|['’]re)?\s+"
                      r"(?:(?:do|does|did|is|are|was|were|can|could|will|would)\s+)?", re.IGNORECASE)


def _too_short_to_echo(message: str) -> bool:
    said = letters(message)
    if len(said) < ECHO_MIN_CHARS:
        return True
    chinese = cjk_count(message)
    if chinese:
        return chinese < ECHO_MIN_CJK and not _WORD.search(CJK_RUN.sub(" ", message.lower()))
    return len(_WORD.findall(message.lower())) < ECHO_MIN_WORDS


def letters(text: str) -> str:
    """Lowercase letters and digits only (Chinese characters kept): what two texts are compared by."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower()
                   if ch.isalnum() or cjk_count(ch))



def ends_sentence(text: str) -> bool:
    return text.rstrip()[-1:] in tuple(_SENTENCE_MARKS + "…~～")


def letters_in(text: str) -> int:
    """Chinese characters and Latin letters in `text`."""
    return cjk_count(text) + sum(ch.isascii() and ch.isalpha() for ch in text)


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE_END.split(text) if part and part.strip()]


#: a Chinese character says about as much as this many Latin letters
CJK_WEIGHT = 3


def end_of_sentences(text: str, count: int, length: int | None = None) -> int | None:
    """Where the `count`-th sentence of `text` ends (or the first to end past
    `length` letters, a Chinese character counting CJK_WEIGHT), once a
    sentence after it has begun; None while `text` holds no more."""
    done, start = 0, 0
    for boundary in _SENTENCE_END.finditer(text):
        if boundary.start() == start and boundary.end() == start:
            continue
        # "..." ends one sentence, not three; a list's number ("1.") ends none
        if any(ch.isalpha() for ch in text[start:boundary.start()]):
            done += 1
            said = text[:boundary.start()]
            long = length is not None and len(said) + (CJK_WEIGHT - 1) * cjk_count(said) >= length
            if done == count or long:
                return boundary.start() if text[boundary.end():].strip() else None
        start = boundary.end()
    return None


# --- the checks ----------------------------------------------------------------


#: Chinese characters an English reply may hold that neither the message nor the pet's names gave
#: it; more is Chinese in an English reply ("我忘了 birthday。", seen on the page)
STRAY_CJK = 2
#: ...that make this share of its letters or more, a Chinese character counting CJK_WEIGHT
STRAY_SHARE = 0.4
#: a message about Chinese words, whose answer may well hold some
_ABOUT_CHINESE = re.compile(r"\b(?:chinese|mandarin|cantonese|pinyin|characters?|translat\w*|say|write|spell|mean)\b"
                            r"|中文|汉语|汉字|普通话", re.IGNORECASE)


#: English words in a row that a Chinese reply may hold which neither the message, the context nor the pet's names gave
#: it; more is English in a Chinese reply ("我今天是我们的 very first day together. 没有熬夜。", used as a person would)
STRAY_EN_WORDS = 3
_EN_RUN = re.compile(r"[A-Za-z][A-Za-z'-]*(?:[ ,]+[A-Za-z][A-Za-z'-]*)+")
#: a message about English words, whose answer may well hold some
_ABOUT_ENGLISH = re.compile(r"英文|英语|英语里|单词|翻译|怎么说|怎么拼|english", re.IGNORECASE)


def _stray_english(reply: str, message: str, persona: Persona | None, context: Sequence[str]) -> bool:
    """A Chinese reply holds STRAY_EN_WORDS English words in a row or more that the message did not ask about and that
    neither it, the `context` nor the pet's names hold."""
    if _ABOUT_ENGLISH.search(message):
        return False
    given = {word.lower() for text in (message, *context) for word in re.findall(r"[A-Za-z'-]+", text)}
    if persona is not None:
        given.update(word.lower() for name in (*persona.name.values(), *persona.species_name.values())
                     for word in re.findall(r"[A-Za-z'-]+", name))
    # (a title or a place keeps its capitals: "《The Shawshank Redemption》", "New York City", "The Legend of Zelda")
    return any(len([word for word in re.findall(r"[A-Za-z'-]+", run.group())
                    if word.lower() not in given and word[:1].islower()]) >= STRAY_EN_WORDS
               for run in _EN_RUN.finditer(reply))


def wrong_language(reply: str, language: str, message: str = "", persona: Persona | None = None,
                   context: Sequence[str] = ()) -> bool:
    """A reply with no letters at all (a number, an emoji) has no language to be
    wrong in. An English reply is also wrong with Chinese in it that the
    `message` did not ask about: more than STRAY_CJK Chinese characters that
    neither the message, the `context` (memories in the prompt, earlier lines)
    nor the pet's names hold."""
    if detect_language(reply, default=language) != language:
        return True
    if language == "zh":
        return _stray_english(reply, message, persona, context)
    if language != "en" or not cjk_count(reply) or _ABOUT_CHINESE.search(message):
        return False
    given = set(message).union(*context)
    if persona is not None:
        given.update("".join(persona.name.values()) + "".join(persona.species_name.values()))
    stray = [ch for run in CJK_RUN.findall(reply) for ch in run if ch not in given]
    latin = sum(ch.isascii() and ch.isalpha() for ch in reply)
    # and a large part of it: a Chinese sentence in a mostly English story may be asked for
    return len(stray) > STRAY_CJK and CJK_WEIGHT * len(stray) >= STRAY_SHARE * (latin + CJK_WEIGHT * len(stray))


def _new_letters(answer: str, said: str) -> int:
    """How many letters of `answer` are not the message's, in order."""
    matched = sum(block.size for block in SequenceMatcher(None, answer, said, autojunk=False).get_matching_blocks())
    return len(answer) - matched


def is_echo(reply: str, message: str) -> bool:
    """The reply repeats the person's message: the whole reply is the message
    with little added, or most of its pieces are the message's (a
    restatement), or its first sentence or clause is the message word for
    word and more follows. "Six times seven is 42." to "six times seven?" adds
    the answer and is no echo."""
    said = letters(message)
    answer = letters(reply)
    if _too_short_to_echo(message):
        return bool(said) and answer == said and _ONLY_HEARD.match(message) is not None
    if not answer:
        return False
    if _new_letters(answer, said) <= ECHO_NEW_SHARE * len(answer) and len(answer) - _new_letters(answer, said) >= (
            ECHO_SIMILARITY * len(said)):
        return True
    asked = _WH_OPEN.match(message)
    if asked:
        # a question for a fact said back without its question word, its persons turned round ("what do you do all day
        # when im at work" → "I do all day when I'm at work.", used as a person would); not one answered yes or no
        # ("do you like me?" → "I like you!")
        said, answer = letters(_PERSONS.sub("p", message[asked.end():])), letters(_PERSONS.sub("p", reply))
        if _new_letters(answer, said) <= ECHO_NEW_SHARE * len(answer) and len(answer) - _new_letters(
                answer, said) >= ECHO_SIMILARITY * len(said):
            return True
    mine = _units(reply)
    if len(mine) >= ECHO_UNITS and len(mine & _units(message)) > ECHO_UNITS_SHARE * len(mine):
        return True
    answered, heard = CJK_CHAR.findall(reply), CJK_CHAR.findall(message)
    if len(answered) >= ECHO_CHARS and heard and _ASKS_OR_BIDS.search(message) is None and not _ME_TOO.search(reply):
        theirs, mine_chars = set(heard), set(answered)
        # (and no clause of its own: "上了一整天的课，好累啊，快休息一下" comforts; nor the pet's "me too": "你今天好开心呀，我也
        # 好开心"; the review of 2026-12-07)
        clauses = [CJK_CHAR.findall(part) for part in _PIECE_MARKS.split(reply)]
        if (sum(c in theirs for c in answered) >= ECHO_CHARS_SHARE * len(answered)
                and sum(c in mine_chars for c in heard) >= ECHO_CHARS_COVER * len(heard)
                and all(2 * sum(c in theirs for c in chars) >= len(chars) for chars in clauses if len(chars) >= 2)):
            return True
    # the message again as the first sentence, or the first clause, with more after it that brings
    # no number of its own ("Six times seven, that's 42!" answers)
    for parts in (sentences(reply), _CLAUSE_MARKS.split(reply)):
        parts = [part for part in parts if letters(part)]
        if len(parts) > 1 and SequenceMatcher(None, letters(parts[0]), said,
                                              autojunk=False).ratio() >= ECHO_FIRST_SIMILARITY:
            if not set(_DIGITS.findall(reply)) - set(_DIGITS.findall(message)):
                return True
    return _takes_over((sentences(reply) or [reply])[0], message)


#: the encoder's likeness (cosine) from which a reply to a message that asks nothing says the message again in
#: other words. On the small and medium models' replies to the spent chat sets of rounds 33 and 34 (64 replies at
#: 0.72 or more read by hand), those at 0.75 or more were the message restated ("这周天天熬夜，眼睛红得像兔子" →
#: "今天眼睛是红的，像一只兔子。", "slept like four hours, my eyes feel like sandpaper" → "The person's eyes feel like
#: sandpaper after four hours of sleep."), but for answers to a question or a request, which say its words again
#: as they answer ("do you think aliens exist" → "Yes, aliens do exist."): those are left to the other checks
RESTATES_AT = 0.75
#: ...or, as loosely as this, a whole reply that neither asks back nor opens glad, to a message that is no greeting:
#: "我考过了！！开心到飞起" → "你考到了！开心得飞起来。" (0.66), "这个周末打算在家大扫除" → "下周，我打算在家里大清扫。"
#: (0.72). Of the 468 replies of the small, medium and tiny models that passed the judge on the spent chat sets of
#: rounds 32 to 35, 43 more read so; about four of them were fair ("外卖送错，真气人！", "Happy adoption day!")
LOOSE_AGAIN_AT = 0.62
#: a wish, which a reply may well wish back: "happy adoption day", "纪念日快乐"
_WISHES = re.compile(r"\bhappy\b.{0,30}\b(?:day|birthday|anniversary|new year|holidays?)\b|快乐", re.IGNORECASE)
#: a reply that asks back, or opens glad for the person
_ASKS_BACK_IN_REPLY = re.compile(r"[?？]|吗|呢")
#: a reply that cheers the person on, wherever in it: "You passed your driving test! Congrats!", "论文写完啦，太厉害了！"
_CHEERS = re.compile(r"\b(?:congrat\w*|good luck|well done|great job|proud|amazing|awesome|wonderful|fantastic|you did it"
                     r"|you(?:['’]ve)? got this|you can do it|hooray|you['’]ll (?:do|be) (?:great|fine|ok|okay|amazing|brilliant))\b"
                     r"|恭喜|加油|厉害|真棒|好棒|太棒|一定(?:没问题|行|可以)|祝你|别担心|会好的",
                     re.IGNORECASE)
#: (or agrees to what was asked: "Fine, a short one." to "a short one then", seen in a test of the page)
_GLAD_OPEN = re.compile(r"^\W*(?:i'?m (?:so |really )?(?:glad|happy|excited)|glad|good idea|great idea|(?:that )?sounds"
                        r"|fine\b|ok\b|okay\b|sure\b|alright\b|all right\b|deal\b"
                        r"|好主意|听起来|真好|好呀|好啊|好的|好吧|行(?=[！!，,。～~\s]|$)|没问题)", re.IGNORECASE)
#: ...and from which the start of a reply, while it streams, is held as maybe that ("下周我去青" reads 0.49 near
#: "下个月想去青岛玩几天", "哇，太棒了" 0.12 near "今天被客户夸了，开心到原地转圈")
HOLD_AGAIN_AT = 0.45
#: a reply that agrees or feels with the person: "It really is a beautiful day!", "今天的夕阳确实很美！", "你的猫真可爱。"
_AGREES = re.compile(r"\b(?:really|indeed|totally|definitely|truly|so true|sorry|agreed?|right)\b|确实|真的|真[是好美可]|是啊|对啊|没错"
                     r"|抱抱|心疼|难过|辛苦", re.IGNORECASE)
#: a reply that opens by reacting ("Nice!", "Yum,", "哇，", "太好了！") says more than the message again
_REACTS = re.compile(r"^\W*(?:nice|yum|yay|wow|aww+|ooh+|oh no|haha\w*|lol|omg|congrats|hooray|yikes|ouch|ugh)\b"
                     r"|^\W*(?:哇|哈哈|嘿嘿|耶|太好了|好棒|真棒|恭喜|天哪|天啊|哎呀|呜呜)|^[^，,。！!]{1,6}(?:好可爱|好棒|好香|好酷)",
                     re.IGNORECASE)
#: a message that asks or bids something: its answer may well say its words again
#: (not "啥也"/"什么都", which ask nothing: "雾霾好大，出门啥也看不清"; nor "could" or "can" inside a sentence, as in "so
#: tired i could sleep on the bus floor": both had their restatements let through, round 44's spent chat set)
_ASKS_OR_BIDS = re.compile(
    r"[?？]|吗|呢|(?<!什)么|(?:什么|啥)(?![也都])|怎么|([\u4e00-\u9fff])不\1|好不好|怎么样|给我|帮我|^\W*来[，,]"
    r"|^\W*(?:do|does|did|is|are|am|can|could|should|would|will|what|whats|how|why|who|where|when|which|tell|show|guess"
    r"|let'?s)\b|\b(?:what|whats|how|why|should i|should we|(?:could|can|would|do|did) (?:you|u)|tell me|show me)\b",
    re.IGNORECASE)


#: a riddle the message asks and answers itself: a joke told, which asks nothing ("why did the scarecrow win an award? bc
#: he was outstanding in his field" → "The scarecrow won an award because he was outstanding in his field.", round 39's
#: spent chat set)
_RIDDLE_ANSWERED = re.compile(r"[?？]\s*(?:because|bc|cuz|coz|'cause|因为)", re.IGNORECASE)

_HEARD: dict[tuple[int, str], object] = {}


def _heard(encoder: object, message: str) -> object:
    """The message's vector, kept for the checks of one streaming reply (a few messages at most)."""
    key = (id(encoder), message)
    if key not in _HEARD:
        if len(_HEARD) > 8:
            _HEARD.clear()
        _HEARD[key] = encoder.encode([message])[0]  # type: ignore[attr-defined]
    return _HEARD[key]


def says_again(reply: str, message: str, at: float = RESTATES_AT) -> bool:
    """The reply says a message that asks nothing again in other words, as the sentence encoder reads them
    (RESTATES_AT): "明天又要加班，老板真是个魔鬼" → "老板真是个魔鬼，明天又要加班了…". False without the encoder."""
    if (_too_short_to_echo(message) or (_ASKS_OR_BIDS.search(message) and not _RIDDLE_ANSWERED.search(message))
            or not letters(reply) or sad_news(message)):
        return False  # (sympathy for sad news says its words again: "I am sorry your dog passed away.")
    if _TOO.search(reply) or _REACTS.match(reply) or _AGREES.search(reply):
        return False  # "Nice! I have two cats too", "猫咪好可爱，我喜欢！", "It really is a beautiful day!": it shares,
        # reacts or agrees, as a friend does
    from pet.memory import meaning  # (the encoder the pet already loads for its memories)

    encoder = meaning.encoder()
    if encoder is None:
        return False
    try:
        cosine = float(encoder.encode([reply])[0] @ _heard(encoder, message))
    except Exception:  # noqa: BLE001 - a check that cannot read the reply finds nothing in it
        return False
    if cosine >= at:
        return True
    return at == RESTATES_AT and cosine >= LOOSE_AGAIN_AT and not (
        _ASKS_BACK_IN_REPLY.search(reply) or _GLAD_OPEN.match(reply) or _CHEERS.search(reply) or _GREETS.search(message)
        or _WISHES.search(message))


def _takes_over(first: str, message: str) -> bool:
    """The first sentence of a reply says the person's words about themselves as
    the pet's own ("我是一家律所的翻译" → "我是一个律所以的合同翻译。", seen on the page):
    both speak in the first person, the sentence neither speaks to the person
    ("I'm sorry your cat is sick") nor says "me too", and much of it is the message's."""
    first = first.strip()
    # (the message's first person anywhere: "so tired i could sleep standing up like a horse" → "I'm really tired today,
    # and I could probably sleep like horses.", round 39's spent chat set)
    # (but an answer to a question may take its words: "我住得习惯很不错" to "来我家一周啦，住得习惯不")
    # (nor the pet's own liking: "I love beach days with family!" to "just got back from the beach with my family")
    speaks_of_self = _SELF.match(message.strip()) or (_SELF_ANYWHERE.search(message) and not _ASKS.search(message)
                                                      and not re.search(r"不[?？]?\s*$", message)
                                                      and not _OWN_LIKING.match(first))
    if not (speaks_of_self and _SELF.match(first)) or _TOO.search(first) or _TO_YOU.search(first):
        return False
    mine = _units(first)
    return len(mine) >= ECHO_UNITS // 2 and len(mine & _units(message)) >= ECHO_SELF_SHARE * len(mine)


#: a cry that opens a sentence: "哎呀，", "Oh no, "
_CRY_FIRST = re.compile(r"^\W*(?:哎呀|哎哟|哎|唉|啊|哦|噢|嗯|呜+|哇|天哪|oh(?: no)?|ah|ugh|aw+|oops|whoa|wow|hmm+|yikes|ouch)"
                        r"[\s，,!！.。~～…]+", re.IGNORECASE)
#: where a sentence parts into clauses
_CLAUSE_BREAK = re.compile(r"[，,；;：:]\s*")


def _takes_over_in(sentence: str, said: str) -> bool:
    """The sentence, or its first clause with some content, says `said`'s words as the pet's own: "我在医院当护士，天天上
    夜班，但我记得你不是小林。" to "我在医院当护士，天天上夜班" (seen with the small model; the sentence speaks to the
    person later on, its first clause takes the person's job). Not when `said` asks something (an answer may take
    its words: "我觉得养猫会更省心一点" to "…养猫会不会更省心") nor in a sentence that says "me too" anywhere. A cry
    before it is no part of it ("哎呀，我忘了带工牌了……保安拦住了我。" to "我又忘带工牌了，被保安拦下来", seen on the page)."""
    sentence = _CRY_FIRST.sub("", sentence, count=1)
    if _takes_over(sentence, said):
        return True
    parts = _CLAUSE_BREAK.split(sentence, maxsplit=1)
    # (three words of content are enough for a clause: "I am a Nurse and work nightly, which means I have…" to
    # "I'm a nurse and I work night shifts, so I'm always tired", seen on the page)
    return (len(parts) > 1 and len(_units(parts[0])) >= CLAUSE_UNITS and not _ASKS.search(said)
            and not _TOO.search(sentence) and _takes_over(parts[0], said))


def takes_over(reply: str, message: str, memories: Sequence[str] = ()) -> bool:
    """A sentence of the reply, any of them, says the person's words about themselves as the pet's own: the
    message's ("你好，小林。我在北京做产品经理。" to "我叫小林，在北京做产品经理", seen with the small model) or a
    memory's, which are the person's too ("我是一名软件工程师" with "我是一名软件工程师，养了两只猫" kept)."""
    return any(_takes_over_in(sentence, said) or _says_a_clause(sentence, said) for sentence in sentences(reply) or [reply]
               for said in (message, *memories))


#: where the person's message parts into clauses, for `_says_a_clause`
_CLAUSES_OF = re.compile(r"[,，.。!！?？;；~～…]+")


def _says_a_clause(sentence: str, said: str) -> bool:
    """The sentence is one of the person's first-person clauses word for word: "Hi! I'm an auntie." to "my sister had her
    baby!! a girl, 3.2kg, i'm an auntie!!" (seen on the page; too short for the likeness of words)."""
    mine = letters(sentence)
    if len(mine) < CLAUSE_LETTERS or not _SELF.match(sentence.strip()) or _TOO.search(sentence):
        return False
    return any(letters(clause) == mine for clause in _CLAUSES_OF.split(said) if _SELF.match(clause.strip()))


#: the fewest letters of a clause said back word for word that `_says_a_clause` reads
CLAUSE_LETTERS = 6


#: words that say who speaks, in every first-person sentence: no content ("I'm a crayfish, I never get tired." to "I'm
#: so tired today" shared "i'm" and "tired", and read as the person's words taken)
_SPEAKER_WORDS = frozenset({"i'm", "i’m", "i've", "i’ve", "i'll", "i’ll", "i'd", "i’d", "im", "ive"})


def _not_asked(message: str, memories: Sequence[str]) -> Sequence[str]:
    """The memories a reply may not say as the pet's own: none when the message asks something, whose answer a small
    model may give in the wrong person ("I like green tea." to "What do I like to drink?": the answer, pronoun muddled;
    seen in the served-model test)."""
    return () if _ASKS.search(message) else memories


def _units(text: str) -> set[str]:
    """What a text is made of for comparing contents: its Chinese character
    pairs and its longer English words."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    units = {run[i:i + 2] for run in CJK_RUN.findall(lowered) for i in range(max(1, len(run) - 1))}
    units |= {w for w in _WORD.findall(lowered) if len(w) >= 3 and w not in EN_STOPWORDS and w not in _SPEAKER_WORDS}
    return units


def restates(reply: str, memory: str) -> bool:
    """The reply holds most of a memory's content (verbatim or nearly)."""
    units = _units(memory)
    if len(units) < 2:
        return False
    return len(units & _units(reply)) >= RESTATE_SHARE * len(units)


def restated(reply: str, memories: Sequence[str]) -> list[str]:
    return [memory for memory in memories if restates(reply, memory)]


def asks_recall(message: str) -> bool:
    """The person asks what the pet remembers or knows about them."""
    return _RECALL_QUESTION.search(message) is not None


def assistant_speak(reply: str) -> re.Match[str] | None:
    """The first stock phrase of an assistant, or refusal of small talk, in
    the reply (or the program's own note, copied)."""
    return _ASSISTANT.search(reply) or _NOTE.search(reply)


#: an assistant's opening to a document or form it writes for the person ("Sure, here's a 5-day itinerary
#: for Tokyo:\n\n1. **Day 1", "Certainly! Here's a simple cover letter template…\n\n---", "当然可以！以下是
#: 一份一周减脂食谱：\n\n### 周一"): a small model's are templates with blanks ("Subject: [Your Job Title]")
#: or nonsense ("Day 1: Arrival - Start at your home."), never a pet's talk. A joke or a few ideas asked
#: for, in a line ("Sure! Here's a joke for you: …"), are not; nor is a model that can write the
#: itinerary held to this (Checker.small).
_TEMPLATE_OPENING = re.compile(
    r"^\W*(?:sure|certainly|of course|absolutely|okay|ok)\b[^\n]{0,120}?\b(?:here(?:['’]s| is| are)|below (?:is|are))\b[^\n]{0,60}?"
    r"\b(?:itinerary|plan|template|letter|schedule|recipe|menu|guide|outline|draft|essay|report|resume|cv|email"
    r"|proposal|program|workout|routine|meal|diet|budget|checklist|steps?|what you can say"
    r"|toast|speech|caption|summary|script|announcement|invitation"
    r"|tips|suggestions|strategies|techniques|methods|ways)\b"
    # ...or with no "sure" before it: "Here are some tips to help you relax:\n\n1. **Take a break**"
    r"|^\W*(?:here are|here're|below (?:is|are))\s+(?:some|a few|several|\d+|a list of)\b[^\n]{0,40}?"
    r"\b(?:tips|suggestions|strategies|techniques|methods|ways|steps)\b"
    # ...or a how-to ("I'm glad you remembered! Here's how I reset it:\n1. Go to the \"Settings\" menu", seen on the page
    # to "lmao i forgot my own password again today")
    r"|\bhere(?:['’]s| is) how (?:i|you|to|we)\b[^\n]{0,60}?[:：]"
    r"|^\W*(?:(?:当然可以|当然|好的|没问题)[！!，,。~～]*\s*)?(?:以下是|下面是|这是)[^\n]{0,30}?"
    r"(?:食谱|计划|行程|模板|清单|攻略|方案|菜单|日程|安排|步骤|指南|简历|求职信|报告|邮件|大纲|建议|方法|技巧|小贴士"
    r"|祝酒词|致辞|发言稿|演讲稿|总结|文案|贺词|祝福语)",
    re.IGNORECASE,
)
#: ...an assistant's "here it is:" before a plan by days ("Sure, here's a 3-day trip to Seoul:\nDay 1: …", "…五天攻略
#: 如下：\n\n第一天：…", the spent chat set of round 26)
#: (or with nothing before: "Here is a 3-day itinerary for Seoul:\n\nDay 1: …", round 35's spent chat set)
_HERE_IT_IS = re.compile(r"^\W*(?:(?:sure|certainly|of course|absolutely|okay|ok)\b[^\n]{0,120}?)?\bhere(?:['’]s| is| are)\b"
                         r"[^\n]{0,80}?[:：]|(?:如下|以下是|下面是)[^\n]{0,20}?[:：]", re.IGNORECASE)
_DAY_OF_A_PLAN = re.compile(r"\bday\s*(?:1|one)\s*[:：-]|第[一1]天\s*[:：]", re.IGNORECASE)
#: a document's block: a heading, a rule, a list item, bold or a brace opening a line
_BLOCK = re.compile(r"^\s*(?:#{1,6}\s|-{3,}|[-*•]\s|\d+[.)、]\s*|\*\*|\{)", re.MULTILINE)
#: a form's request for the person's details
_FORM = re.compile(r"\bplease provide (?:the (?:amount|details|information)|your\b|me with\b"
                   r"|(?:more|any|some|additional) (?:details|information|info|context)\b)"
                   r"|请提供(?:你|您)的|请提供(?:更多|一些|相关|具体)的?(?:信息|细节|资料)", re.IGNORECASE)


#: a numbered bold heading, at a line's start or inside one: a document's section ("…攻略： 1. **准备工作**：…")
_BOLD_ITEM = re.compile(r"(?:^|[:：]\s*)\d+[.)、]\s*\*\*\S", re.MULTILINE)
#: …and how long a reply with bold after an assistant's opening must be to be a document, not play ("Okay, here's
#: the plan: **nap time** first, then snacks!")
DOCUMENT_CHARS = 80
#: ...and how long a plan by days after "here it is:" must be ("Okay! Here's my plan for the weekend: Day 1: nap under
#: my rock. Day 2: snacks!" is play, 80 characters; the spent chat set's Seoul plan ran to 126, its Yunnan plan to 134)
PLAN_CHARS, PLAN_CHARS_ZH = 110, 100


#: a blank of a form letter ("Dear [Manager's Name]", "[Your Name]", "尊敬的【领导姓名】"), or a subject line that opens a
#: letter with "Dear" after it: a template written out, as an assistant does (round 24's spent chat set: "Subject:
#: Request for Friday Off Dear [Manager's Name], I hope…" to "asking my boss for friday off, wish me luck"). Not
#: the pet's own stage directions ("[my claws go clack clack]") nor a heading ("【重要日期】")
_BLANK = re.compile(r"[\[【][^\]】\n]{0,25}\b(?:name|date|company|title|address|position|phone number)[\]】]"
                    r"|[\[【](?:hiring manager|recipient|manager|boss)[\]】]|^\W*subject\s*:[^\n]{0,80}\bdear\b"
                    r"|[\[【][^\]】\n]{0,8}(?:姓名|名字|名称)[\]】]", re.IGNORECASE | re.MULTILINE)


def template_reply(reply: str) -> bool:
    """Whether the reply is a document opened as an assistant does ("Sure, here's a toast message …: **…**"), has
    numbered bold sections ("今天是云南七天的攻略： 1. **准备工作**：…"), asks for details as a form does (see
    _TEMPLATE_OPENING), or leaves a form letter's blanks (_BLANK)."""
    text = reply.strip()
    opening = _TEMPLATE_OPENING.search(text)
    here = _HERE_IT_IS.search(text)
    return bool((opening and (_BLOCK.search(text, opening.end())
                              or "**" in text[opening.end():] and len(text) >= DOCUMENT_CHARS))
                or here and _DAY_OF_A_PLAN.search(text, here.end()) and len(text) >= (
                    PLAN_CHARS_ZH if cjk_count(text) * 2 > len(text) else PLAN_CHARS)
                or _FORM.search(text) or _BOLD_ITEM.search(text) or _BLANK.search(text))


def catchphrase_only(reply: str, persona: Persona) -> bool:
    """The reply is one or more of the pet's catchphrases and nothing else."""
    rest = letters(reply)
    if not rest:
        return False
    phrases = sorted({letters(p) for items in persona.catchphrases.values() for p in items} - {""},
                     key=len, reverse=True)
    changed = True
    while rest and changed:
        changed = False
        for phrase in phrases:
            if rest.startswith(phrase):
                rest, changed = rest[len(phrase):], True
    return not rest


def _is_own_name(name: str, persona: Persona) -> bool:
    said = re.sub(r"['’]s$", "", name.strip().lower())  # "Xiaoqian's"
    for own in persona.name.values():
        own = own.strip().lower()
        # a part of it ("Qian"), or, in characters, more of it (小钳钳); "Xiaoqians" is no longer its own
        if said and (said in own or (cjk_count(own) and own in said)):
            return True
        characters = "".join(CJK_RUN.findall(said))
        if characters and cjk_count(own) and set(characters) & (set(own) - _NAME_COMMON):
            return True  # 钳钳 for 小钳 (not "Tom呀": its letters are no characters of 小钳)
    # a name the persona's own words give it ("sometimes calls itself Qianqian"), or its kind
    own_words = " ".join([*persona.style.values(), *persona.description.values(), *persona.species_name.values(),
                          *(phrase for items in persona.catchphrases.values() for phrase in items)])
    return re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", own_words, re.IGNORECASE) is not None


#: how alike a name in letters must be to the pet's own (difflib's ratio) to be its own misspelt:
#: "Xiaqian" and "Xiaoqin" 0.93, "Xaioqian" 0.88; "Xiaolin" 0.8 is another name
NEAR_NAME = 0.85


def _misspelt_own_name(name: str, persona: Persona) -> bool:
    """`name` is the pet's own name in letters, misspelt: "Xiaqian" for Xiaoqian. (Not in Chinese
    characters: 小钱 for 小钳 sounds the same, 小林 is another name, and only the sound tells them apart.)"""
    said = name.strip()
    if len(said) < 4 or cjk_count(said) or _is_own_name(said, persona):
        return False
    return any(not cjk_count(own) and SequenceMatcher(None, said.lower(), own.strip().lower()).ratio() >= NEAR_NAME
               for own in persona.name.values())


#: the program's own result lines, which a small model copies from the steps before its reply and fills
#: with whatever comes to it ("Remembered #2: my restaurant's name is Pizza Hut." after the pet noted
#: "I'm allergic to peanuts"): a memory's number before a colon and what it holds. ("Saved as memory
#: #1!" after a call that saved it only names it.)
_PROGRAM_LINE = re.compile(r"#\d+\s*[:：]")


#: the start of one: held until it is clear ("#2" may go on with a colon)
_NUMBER_START = re.compile(r"#\d*\s*$")


#: a tool call written out as the reply's text: '```json { "name": "请假条", "arguments": {' (round 32's spent chat set,
#: the small model asked for a leave note), "<tool_call>"
_CALL_AS_TEXT = re.compile(r"""\{\s*["']name["']\s*:\s*["'][^"']*["']\s*,\s*["'](?:arguments|parameters)["']\s*:|</?tool_call>""")


#: a speaker's label after the reply began, as in the prompt's example dialogue: "…今晚早点睡？ 我今天下雨了 我 stayed up
#: late again 你：谢谢你的帮助…" (round 34's chat set, measured: the small model went on with a scene of its own)
_SPEAKER_LABEL = re.compile(r"(?<=\S)\s+(?:你|我|用户|主人|小钳|User|You|Me|Person|\{\{user\}\}|\{\{char\}\})\s*[:：]\s*\S")


#: the prompt's clock line and days together (pet.persona.prompt), copied into small talk: "Sure, here's the ordered
#: way to takeout again: - 30 days together - 2026-12-29 10:45 (UTC+08:30)", "Today's pavement melts on the anniversary
#: (30 days together).", "Training for a half marathon in October 2026-12-31 18:00 (UTC+08:01)." (round 35's spent chat
#: set, the small model)
_PROMPT_FACT = re.compile(r"[(（]\s*UTC\s*[+\-−]\s*\d|\b\d{4}-\d{1,2}-\d{1,2}\b"
                          # (the bare date too: "You have 2026-12-19 at the work site, counting 804 boxes", round 39's
                          # spent chat set; and the days together as an age: "You are now 365 days old and…")
                          r"|\b(?:you are|you're|i am|i'm) now \d+ days? old\b"
                          # (and the anniversary line in other words: "Today is special: an anniversary (today is 365
                          # days together).", round 40's spent chat set)
                          r"|\btoday is special: an anniversary\b|\(\s*today is \d+ days together\s*\)"
                          r"|\banniversary\s*\(\s*\d+\s*(?:days?|天)|\(\s*\d+\s*(?:days?|天)\s*together\s*\)", re.IGNORECASE)
#: a tool's result that tells the time (the clock's: "Tuesday 2026-12-01 09:30 (Asia/Shanghai, UTC+08:00)")
_TELLS_TIME = re.compile(r"\bUTC\b|\d{4}-\d{1,2}-\d{1,2}|\d{4}年\d{1,2}月\d{1,2}日")


def copies_prompt_facts(reply: str, told: Sequence[str] = ()) -> re.Match[str] | None:
    """Where the reply copies the prompt's clock line or days together, when neither the message nor a tool result
    of the turn (`told`) tells the time: the clock's own answer is "Tuesday 2026-12-01 09:30 (Asia/Shanghai,
    UTC+08:00)"."""
    found = _PROMPT_FACT.search(reply)
    if found is None or any(_TELLS_TIME.search(text) for text in told):
        return None  # (the reply may word the clock's answer its own way: "9:30 pm in New York (UTC-5)")
    return found


def program_line(reply: str) -> re.Match[str] | None:
    """Where the reply writes one of the program's result lines, numbered memories and all, a tool call as text,
    or a speaker's label as in a scene of example dialogue."""
    return (_PROGRAM_LINE.search(reply) or _CALL_AS_TEXT.search(reply) or _SPEAKER_LABEL.search(reply)
            or _THE_PERSON.search(reply))


#: the prompt's name for whom the pet talks to, copied: "The person is getting a puppy next week", "…the person told
#: you: …", "the crayfish who lives on this person's computer" (round 39's chat set, measured, the small model); not
#: someone else so called ("the person who sold it to you", "the person next to me")
_THE_PERSON = re.compile(r"\bthis person['’]s (?:computer|pc|laptop|desktop|screen)\b"
                         r"|\b(?:the|this) person (?:told|tells|said|says|mentioned) (?:you|me)\b"
                         # ...and a memory's line of the prompt ("- they said: …") copied with its label: "The person
                         # said: Training for a half-marath in October" to "double shift again, eyes feel like
                         # sandpaper" (round 42's chat set, measured, the small model)
                         r"|\b(?:the|this) person (?:told|tells|said|says|mentioned)(?: you| me)?\s*[:：]"
                         r"|^\W{0,3}they said\s*[:：]", re.IGNORECASE | re.MULTILINE)
#: ...and, when the message names no one else, "the person" as the subject: "The person is getting a puppy next week",
#: "The person gave you a bag of seeds" (not "The person has no manners" of a neighbour)
_THE_PERSON_SUBJECT = re.compile(r"\bthe person(?:['’]s\b|\s+(?:is|has|gave|gives|wants|feels|will|likes|loves|just|asked"
                                 r"|might|may|doesn['’]t|does|did|said|says|told|tells|mentioned"
                                 # (round 48's spent chat set, to "sooo tired i could sleep standing up": "The person
                                 # slept for 5 hours and was asleep.")
                                 r"|slept)\b)",
                                 re.IGNORECASE)
_SOMEONE_ELSE = re.compile(r"\b(?:someone|somebody|stranger|neighbou?rs?|friends?|guy|girl|man|woman|boss|coworker|"
                           r"colleague|he|she|they|him|her|them|person|people|mom|mum|dad|sister|brother|kid|baby)\b"
                           r"|他|她|别人|有人|朋友|同事|老板|邻居", re.IGNORECASE)


#: the prompt's own rules, which a small model says back as its reply ("You are the person's pet friend, not an
#: assistant." to "my phone's at 1% and i'm choosing to spend it on you", round 21's spent chat set): each clause
#: of them, as letters
@lru_cache(maxsize=1)
def _rule_clauses() -> tuple[str, ...]:
    from pet.persona import prompt  # the prompt's module reads no file: a light import

    texts = (prompt.COMPANION_RULE, prompt.TOOL_RULES, prompt.MEMORY_HEADING, prompt.NEAR_HEADING,
             prompt.EXAMPLES_HEADING)
    clauses = (part for text in texts for part in re.split(r"[.:;()]", text))
    return tuple(letters(c) for c in clauses if len(c.split()) >= RULE_WORDS)


#: the fewest words of a rule's clause compared ("for chat, just talk" is what anyone may say)
RULE_WORDS = 7
#: how alike (difflib's ratio of the letters) a sentence of the reply must be to a clause of the rules
RULE_SIMILARITY = 0.8
#: …or what tells the pet what it is, in Chinese (the rules translated)
_RULE_ZH = re.compile(r"你是(?:他们|这个人|主人|用户|他|她)的宠物")
#: the start of a sentence that may be the rules said back: held until the sentence ends
_RULES_START = re.compile(r"(?i:you(?:'re| are)?|你是?)\s*$|(?i:you(?:'re| are) (?:the|their|your|a)\b)|你是(?:他|主|用|这)")


def says_its_rules(reply: str) -> re.Match[str] | None:
    """Where the reply says back the prompt's rules to the pet, as a sentence of its own."""
    found = _RULE_ZH.search(reply)
    if found:
        return found
    at = 0
    for sentence in sentences(reply):
        at = reply.find(sentence, at)
        if _a_rule(sentence):
            return re.compile(re.escape(sentence)).match(reply, at)
        at += len(sentence)
    return None


@lru_cache(maxsize=4096)
def _a_rule(sentence: str) -> bool:
    """Whether a part of `sentence` is one of the rules' clauses (kept: a streamed reply is checked again at
    every piece, its finished sentences the same each time)."""
    for part in re.split(r"[:;：；]", sentence):
        mine = letters(part)
        if len(mine) >= 20 and any(
                SequenceMatcher(None, mine, rule, autojunk=False).ratio() >= RULE_SIMILARITY for rule in _rule_clauses()):
            return True
    return False


#: the claim guard's asides, which stay in the conversation and a small model copies from it ("（其实我还没
#: 写下来。说“记下……”我就记）" to "帮我写一封请假邮件", seen on the page)
ASIDES = ("not_done_remember", "not_done_forget", "not_done_set_reminder", "not_done_add_todo")
#: how alike (difflib's ratio of the letters) the reply's start must be to one of them
ASIDE_SIMILARITY = 0.7


def program_aside(reply: str, persona: Persona) -> bool:
    """The reply is, or starts as, one of the program's asides (ASIDES), in either language."""
    mine = letters(reply)
    if len(mine) < LANGUAGE_LETTERS:
        return False
    for key in ASIDES:
        for language in ("zh", "en"):
            aside = letters(say(key, language, persona))
            if SequenceMatcher(None, mine[:len(aside)], aside[:len(mine)], autojunk=False).ratio() >= ASIDE_SIMILARITY:
                return True
    return False


def asks_pet_name(message: str) -> bool:
    """The message asks the pet's own name ("if my friend asks what ur called
    what do i tell her", "你叫啥来着"), not the person's."""
    return bool(_NAME_QUESTION.search(message)) and not _THEIR_NAME_QUESTION.search(message)


_AGE_QUESTION = re.compile(r"\bhow old (?:are|r) (?:you|u|ya)(?:\s+now)?(?:[,\s]+in (?:crayfish|human|pet|\w+) years)?"
                           r"(?:\s+(?:now|again|exactly|anyway|lol|haha))?\s*(?:[?？!.~]|$)|\bwhat(?:['’]s| is) your age\b"
                           r"|你(?:今年|现在)?(?:几岁|多少岁|多大年纪|多大)(?:了|啦)?[啊呀呢吗]?\s*(?:[?？!！。~～]|$)|你的年龄", re.IGNORECASE)


def asks_pet_age(message: str) -> bool:
    """The message asks how old the pet is ("how old are you now, in crayfish years?", "你几岁了")."""
    return _AGE_QUESTION.search(message) is not None


def asks_species_name(message: str, persona: Persona, as_a_pet: bool = False, short: bool = True) -> bool:
    """The message asks the pet's name by what it is ("if my friend asks what my crayfish is called…",
    "朋友问我养的小龙虾叫什么"): the person has one pet, this one. `as_a_pet`: or as "my pet", "我的宠物" (for a person
    who keeps no other: "my friend asked what my pet is called, what do i tell her?"). `short`: a Chinese name of
    the kind may be its last character (虾 for 小龙虾; not for one who keeps shrimp too)."""
    english, chinese = persona.species_name.get("en", ""), persona.species_name.get("zh", "")
    if as_a_pet:
        english, chinese = "pet", "宠物"
    found = False
    if english:
        kind = re.escape(english)
        found = re.search(rf"\b(?:my|our|the|this|that|ur|your) (?:pet |little |lil )?{kind}(?:'s name\b|\b.{{0,20}}\b"
                          rf"(?:called|named|name)\b)|\bname (?:of|for) (?:my|our|the|this) (?:pet |little |lil )?{kind}\b",
                          message, re.IGNORECASE) is not None
    if chinese and not found:
        # (or its last character, as people say it: 小龙虾 → 虾, "我朋友问我养的这只虾叫什么，我该咋说", round 44's spent chat set)
        kind = re.escape(chinese) if len(chinese) < 2 or as_a_pet or not short else (
            f"(?:{re.escape(chinese)}|{re.escape(chinese[-1])})")
        found = re.search(rf"(?:我(?:养|家|们家)?的?(?:那只|这只)?|你这只|(?<![的里种])(?:那只|这只)){kind}(?:的名字|叫(?:什么|啥)"
                          rf"|名字叫(?:什么|啥)|怎么称呼|有没有名字|有名字(?:吗|没|么))", message) is not None
    # a question ("…叫什么？", "what do I tell her?"), not news of a name ("my crayfish's name is Pinchy now",
    # "我家小龙虾叫啥都行"), nor one about crayfish as such ("what's that crayfish species called?", "这道菜里的小龙虾
    # 叫什么品种")
    return found and _ASKS_NAME.search(message) is not None and not _THEIR_NAME_QUESTION.search(message) and (
        not _THE_KIND.search(message))


_THE_KIND = re.compile(r"\b(?:species|kind|type|breed|variety|dish|recipe|menu|in (?:french|chinese|spanish|english|latin))\b"
                       r"|品种|种类|这道菜|菜名|学名|英文|英语", re.IGNORECASE)


_ASKS_NAME = re.compile(r"[?？]|(?:什么|啥)(?![都也])|\b(?:what|how|which)\b", re.IGNORECASE)


def wrong_name(reply: str, message: str, persona: Persona, memories: Sequence[str] = ()) -> re.Match[str] | None:
    """The first place the reply gives the pet another name than its own
    ("I'm Tom." to "do you even have a name?"), or a name the person gave themselves, in the message or a memory
    ("你好！我是小林，…" with "我叫小林，在北京做产品经理" kept, seen with the small model)."""
    if _THEIR_NAME_QUESTION.search(message):
        return None  # "My name is Aya" to "what's my name?" is the person's name, pronouns muddled
    found = [m for m in _SELF_NAMED.finditer(reply)]
    if _NAME_QUESTION.search(message):
        found += list(_SELF_NAMED_ASKED.finditer(reply))
    else:
        # "Hi! I'm Lin, a nurse." to "hi! I'm Lin, I work as a nurse": the
        # person's own name, taken as the pet's; so is a name the message gives
        # someone else ("面条！我是面条，一只灵缇。" to "我养了一只灵缇，叫面条")
        theirs = {_name_of(m) for pattern in (_SELF_NAMED, _INTRODUCED, _GIVEN_NAME) for said in (message, *memories)
                  for m in pattern.finditer(said)}
        # (or that name garbled: "你好！我是阿安，一只名叫豆巴的科基。" to "我叫阿宁，我养了一只叫豆包的柯基", seen on the page)
        found += [m for m in _SELF_NAMED_ASKED.finditer(reply) if _name_of(m) in theirs or _garbled(_name_of(m), theirs)]
        # "Hello Lukas!" to "my boyfriend is called Lukas": the person greeted by someone else's name
        own = {_name_of(m) for pattern in (_SELF_NAMED, _SELF_NAMED_ASKED) for m in pattern.finditer(message)}
        others = set() if _SAY_HELLO.search(message) else {_name_of(m) for m in _PERSON_NAMED.finditer(message)} - own
        found += [m for m in _GREETED.finditer(reply) if _name_of(m) in others]
        # and "I'm Xiaqian": its own name misspelt, unasked (unless the message says that name)
        found += [m for m in _SELF_NAMED_ASKED.finditer(reply)
                  if _misspelt_own_name(_name_of(m), persona) and _name_of(m) not in message]
    for match in sorted(found, key=lambda m: m.start()):
        if not _is_own_name(_name_of(match), persona):
            return match
    return None


def _garbled(name: str, names: Collection[str]) -> bool:
    """`name` is one of `names` with one letter or character changed: "阿安" for 阿宁, "Lyn" for Lin (the small model
    garbles the person's name as it takes it for its own)."""
    return any(len(name) == len(other) >= 2 and sum(a != b for a, b in zip(name.casefold(), other.casefold())) == 1
               for other in names)


def _name_of(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group)


def repeats(reply: str, said: Sequence[str], partial: bool = False) -> bool:
    """The reply says one of the last lines (`said`: the pet's last replies, the person's messages
    before this one) again: most of it, at its start, with the same figures. `partial`: the reply so
    far, while it streams: it may still become one."""
    mine = letters(reply)
    digits = re.findall(r"\d+", mine)
    for line in said:
        before = letters(line)
        if len(before) < REPEAT_LETTERS:
            continue  # "Reply one." after "Reply two.", "好呀" twice: too short to tell
        if partial:
            n = min(len(mine), len(before))
            if n >= LANGUAGE_LETTERS and SequenceMatcher(
                    None, mine[:n], before[:n], autojunk=False).ratio() >= REPEAT_SIMILARITY:
                return True
        elif (len(mine) >= REPEAT_SHARE * len(before) and re.findall(r"\d+", before) == digits
              and SequenceMatcher(None, mine[:len(before) + 2], before, autojunk=False).ratio() >= REPEAT_SIMILARITY):
            return True  # another figure says something new: "Heard m1" after "Heard m0"
    return False


def copies_earlier(reply: str, heard: Sequence[str], partial: bool = False, halves: bool = False) -> bool:
    """The whole reply is one of the person's earlier messages (`heard`) again ("I'm back! What's my
    name?" as the reply to the next message, seen on the page); with `halves`, also the first half of
    one or more, word for word ("今天好累啊！" to "今天的云好好看", after "今天好累啊，加班到九点": the page),
    but a greeting or good night said back; a reply that only begins with the person's words
    ("哈哈哈哈，你太逗了吧") is none. `partial`: the reply so far, which may still become one."""
    mine = letters(reply)
    for line in heard:
        before = letters(line)
        if len(before) + (CJK_WEIGHT - 1) * cjk_count(before) < REPEAT_LETTERS:
            continue
        if partial:
            if len(mine) >= min(LANGUAGE_LETTERS, len(before)) and SequenceMatcher(
                    None, mine, before[:len(mine)], autojunk=False).ratio() >= COPY_SIMILARITY:
                return True
        elif SequenceMatcher(None, mine, before, autojunk=False).ratio() >= COPY_SIMILARITY:
            return True
        elif halves and before.startswith(mine) and 2 * len(mine) >= len(before) and (
                len(mine) + (CJK_WEIGHT - 1) * cjk_count(mine) >= REPEAT_LETTERS) and not (
                _GREETS.search(reply) or _PARTING.search(reply)):
            return True
    return False


#: a good night or goodbye, which may well say the person's own back ("晚安，好梦！" after "晚安好梦小钳子")
_PARTING = re.compile(r"^\W*(?:晚安|好梦|拜拜|再见|明天见|回头见|good ?night|night night|nighty|sweet dreams|bye|see you|see ya"
                      r"|love you)", re.IGNORECASE)


#: a message that greets: the pet may greet back, and say who it is
_GREETS = re.compile(r"^\W*(?:hi|hello|hey|hiya|yo|good (?:morning|afternoon|evening)|morning|evening|g'?day)\b"
                     r"|^\W*(?:你好|您好|嗨|哈喽|早上好|早安|早啊|早呀|早|晚上好|下午好|中午好|在吗)", re.IGNORECASE)
#: the pet saying who it is: "I'm Xiaoqian", "I'm again Xiaoqian", "this is Xiaoqian", "我是小钳", "我叫小钳"
_INTRODUCES = r"(?:\b(?:I['’]m|I am|my name is|my name's|this is|it's)\s+(?:(?:again|still|your|just)\s+)*{name}\b" \
              r"|(?:我是|我叫|我就是|本钳是){name})"


def reintroduces(reply: str, persona: Persona, *, message: str, said: Sequence[str]) -> bool:
    """Past the first reply of a conversation (`said`: the pet's last lines), the pet says who it is
    again unasked ("Hello! I'm again Xiaoqian, your little crayfish friend!" to "how was your day?",
    seen on the page) - not to a greeting, nor when asked its name."""
    if not said or _GREETS.search(message) or asks_pet_name(message):
        return False
    opening = " ".join(sentences(reply)[:2])
    for name in {n for n in persona.name.values() if n.strip()}:
        if re.search(_INTRODUCES.format(name=re.escape(name.strip())), opening, re.IGNORECASE):
            return True
    return False


def example_lines(persona: Persona, reply: str = "") -> tuple[str, ...]:
    """What the person says in the persona's example dialogue (its "{{user}}: …" lines, every stage's); none
    against a `reply` that asks ("Stayed up late again?" to "i was up till 4" asks back, it copies nothing)."""
    if _ASKS_BACK_IN_REPLY.search(reply):
        return ()
    texts = [*persona.examples.values(), *(text for stage in persona.stages for text in stage.examples.values())]
    return _user_lines(tuple(texts))


@lru_cache(maxsize=8)
def _user_lines(texts: tuple[str, ...]) -> tuple[str, ...]:
    lines = (line.strip() for text in texts for line in text.splitlines())
    return tuple(line.split(":", 1)[1].strip() for line in lines if line.startswith("{{user}}:"))


def problems(reply: str, *, message: str, language: str, persona: Persona,
             memories: Sequence[str] = (), small: bool = False, lately: Sequence[str] = (),
             heard: Sequence[str] = (), told: Sequence[str] = ()) -> Found:
    """Every check the whole reply fails; with `small` (a small model's
    reply), a document or form opened as an assistant does too. `told`: the
    tool results of the turn."""
    found = []
    if letters_in(reply) >= JUDGED_LETTERS and wrong_language(reply, language, message, persona,
                                                               (*memories, *lately, *heard, *told)):
        found.append(LANGUAGE)
    if is_echo(reply, message) or takes_over(reply, message, _not_asked(message, memories)) or says_again(reply, message):
        found.append(ECHO)
    if repeats(reply, lately) or copies_earlier(reply, heard, halves=True) or reintroduces(reply, persona, message=message,
                                                                                said=lately):
        found.append(REPEAT)
    if not asks_recall(message) and len(restated(reply, memories)) >= RECITAL_COUNT:
        found.append(RECITAL)
    if assistant_speak(reply) or (small and template_reply(reply)):
        found.append(ASSISTANT)
    if catchphrase_only(reply, persona):
        found.append(CATCHPHRASE)
    if wrong_name(reply, message, persona, memories):
        found.append(NAME)
    # (the person's line of the prompt's example dialogue as the whole reply: "今天下雪了" to "没事，就是有点emo", round
    # 45's spent chat set, the small model)
    if program_line(reply) or program_aside(reply, persona) or says_its_rules(reply) or copies_earlier(
            reply, example_lines(persona, reply)) or copies_prompt_facts(
            reply, (message, *told)) or (_THE_PERSON_SUBJECT.search(reply) and not _SOMEONE_ELSE.search(message)):
        found.append(PROGRAM)
    return Found(tuple(found))


# --- streaming -------------------------------------------------------------------


def hold_at(text: str, *, message: str, language: str, persona: Persona,
            memories: Sequence[str] = (), lately: Sequence[str] = (), heard: Sequence[str] = ()) -> int | None:
    """Where to stop streaming `text`, the reply so far, so that nothing a
    check may still fail reaches the person: 0 while its language is not
    yet clear or wrong, while it may be the message or a catchphrase coming
    back; else the start of the first sentence with an assistant's phrase
    or a memory restated unasked. None: all of it may be shown."""
    if letters_in(text) < LANGUAGE_LETTERS or wrong_language(text, language, message, persona,
                                                             (*memories, *lately, *heard)):
        return 0
    said = letters(message)
    if not _too_short_to_echo(message):
        answer = letters(text)
        parts = sentences(text)
        opening = letters(parts[0]) if parts else answer
        short = len(answer) <= len(said) / (1 - ECHO_NEW_SHARE)
        if ((short and SequenceMatcher(None, answer, said[:len(answer)], autojunk=False).ratio() >= ECHO_SIMILARITY)
                or SequenceMatcher(None, opening, said, autojunk=False).ratio() >= ECHO_FIRST_SIMILARITY):
            return 0  # the message coming back, whole or as the first sentence
        if parts and _takes_over_in(parts[0], message):
            return 0  # the person's words as the pet's own: held, then checked whole
        if (not text or not text[-1].isascii() or not text[-1].isalnum()) and says_again(
                parts[0] if parts else text, message, HOLD_AGAIN_AT):
            # maybe the message in other words (the encoder: ~1 ms a check): held while it reads near it, then
            # checked whole
            return 0
        mine = _units(parts[0] if parts else text)
        if len(mine) >= 2 and len(mine & _units(message)) > ECHO_UNITS_SHARE * len(mine):
            # the first sentence so far is the message's words: maybe a restatement, so the reply
            # is held (to its end, if that sentence stays one) and checked whole
            return 0
    if _may_be_catchphrases(letters(text), persona):
        return 0
    if (repeats(text, lately, partial=True) or copies_earlier(text, (*heard, *example_lines(persona, text)), partial=True)
            or program_aside(text, persona)
            or reintroduces(text, persona, message=message, said=lately)):
        return 0  # maybe the pet's last line, its introduction or the program's aside again: held, checked whole
    starts = []
    for match in (assistant_speak(text), wrong_name(text, message, persona), program_line(text), says_its_rules(text),
                  copies_prompt_facts(text, (message,))):
        if match:
            starts.append(match.start())
    tail = max(text.rfind(mark) for mark in _SENTENCE_MARKS) + 1
    if (_ASSISTANT_START.search(text, tail) or _NAME_START.search(text, tail) or _NUMBER_START.search(text, tail)
            or _RULES_START.match(text[tail:].lstrip())
            or (_NAME_QUESTION.search(message) and _NAME_START_ASKED.search(text, tail))):
        starts.append(tail)
    if not _too_short_to_echo(message) or memories:
        at = 0
        for sentence in sentences(text):
            at = text.find(sentence, at)
            # (the first sentence is held above while it may be the message's)
            if takes_over(sentence, message if at > 0 and not _too_short_to_echo(message) else "",
                          _not_asked(message, memories)):
                starts.append(at)
                break
            at += len(sentence)
    if memories and not asks_recall(message):
        at = 0
        for sentence in sentences(text):
            at = text.find(sentence, at)
            if restated(sentence, memories):
                starts.append(at)
                break
            at += len(sentence)
    if not starts:
        return None
    first = min(starts)
    cut = max(text.rfind(mark, 0, first) for mark in _SENTENCE_MARKS) + 1
    # the space after a finished sentence goes out with it: it is what tells
    # the voice (and the eye) that the sentence has ended
    while 0 < cut < len(text) and text[cut].isspace():
        cut += 1
    return cut


def _may_be_catchphrases(answer: str, persona: Persona) -> bool:
    """`answer` (letters only) is a run of catchphrases, the last maybe unfinished."""
    phrases = {letters(p) for items in persona.catchphrases.values() for p in items} - {""}
    rest = answer
    while rest:
        whole = next((p for p in phrases if rest.startswith(p)), None)
        if whole is None:
            return any(p.startswith(rest) for p in phrases)
        rest = rest[len(whole):]
    return True


@dataclass(frozen=True)
class Checker:
    """The checks bound to one turn: its message, language, pet and the
    memories recalled into its prompt."""

    message: str
    language: str
    persona: Persona
    memories: tuple[str, ...] = ()
    #: a small model's replies: held to more (see problems)
    small: bool = False
    #: the pet's last replies in the conversation, newest last
    said: tuple[str, ...] = ()
    #: the person's messages before this one, newest last
    heard: tuple[str, ...] = ()

    def problems(self, reply: str, told: Sequence[str] = ()) -> Found:
        """`told`: the tool results of the turn so far."""
        return problems(reply, message=self.message, language=self.language, persona=self.persona,
                        memories=self.memories, small=self.small, lately=self.said, heard=self.heard, told=told)

    def hold_at(self, text: str) -> int | None:
        return hold_at(text, message=self.message, language=self.language, persona=self.persona,
                       memories=self.memories, lately=self.said, heard=self.heard)


# --- what the agent does about it ------------------------------------------------

_LANGUAGE_NAMES = {"zh": "Simplified Chinese (简体中文) only", "en": "English only"}
_CORRECTIONS = {
    ECHO: "Do not repeat the person's words back; answer them.",
    REPEAT: "Do not say again what you or the person said before; answer this message in new words.",
    RECITAL: "Do not list what you know about the person; bring up at most one thing, only if it fits.",
    ASSISTANT: "You are their pet, not an assistant: no \"as an AI\", no offers of help, no refusals, "
               "no \"Sure, here's…\" documents or forms. This is harmless small talk; just answer it in character, "
               "in a line or two.",
    CATCHPHRASE: "Say something real, not only your catchphrase.",
    PROGRAM: "Do not write memory numbers or the program's lines; the program shows those. Just talk.",
}


def correction(found: Found, language: str, persona: Persona | None = None) -> str:
    """A narrow note for the one retry: only what went wrong. A language
    mismatch gets a language-only note."""
    if found.problems == (LANGUAGE,):
        return f"[Note from the pet's program] Reply in {_LANGUAGE_NAMES.get(language, language)}."
    notes = [_CORRECTIONS[p] for p in found.problems if p in _CORRECTIONS]
    if NAME in found.problems:
        notes.append(f"Your name is {persona.full_name()}; no other." if persona else "Use your own name.")
    if LANGUAGE in found.problems:
        notes.append(f"Reply in {_LANGUAGE_NAMES.get(language, language)}.")
    return "[Note from the pet's program] " + " ".join(notes)


def sad_news(message: str) -> bool:
    """The message tells of a loss, an illness or a parting ("my grandma's in hospital", "我被裁了")."""
    return _SAD_NEWS.search(_ASKS_IF_IT_HURTS.sub(" ", message)) is not None


#: a question whether something hurts, which tells no news: "does molting hurt?", "did it hurt when you lost a claw"
#: (a question opening its clause, with its mark, or the whole message: not "my dog was hurt by a car", "it still does
#: hurt that grandma is gone", nor the news before "…, does the chemo hurt?": the review)
_ASKS_IF_IT_HURTS = re.compile(r"(?:^|(?<=[,.!?;，。！？；]))\s*(?:does|do|did|will|would|can|could)\b[^.!?。！？,，]{0,30}?"
                               r"\bhurt\b[^.!。！?？]*[?？]|^\W*(?:does|do|did|will|would|can|could)\b[^.!?。！？,，]{0,30}?\bhurt\W*$",
                               re.IGNORECASE)


def sad_kind(message: str) -> str | None:
    """"loss" when the message tells, in so many words, that someone of the person's or their pet died ("my grandpa
    passed away", "我家的老猫昨天走了", "奶奶昨晚过世了"); "setback" when it tells of the person's own failed exam,
    rejection, lost job or break-up ("didn't get the job", "考研没考上", "she broke up with me"); None for anything
    else: a thing that died, someone who left, a word of too much ("累死了"), someone else's news, a question, a
    wish or a fear, a near miss, a dream, a joke or a story, a glad message. A miss leaves the message to the model;
    a wrong line says sorry for a death nobody told of, so the forms are few and plain."""
    text = " ".join(message.split())
    if _NOT_TOLD_AS_SAD.search(text) or _NOT_SO.search(text) or _GLAD_WORDS.search(text):
        return None
    if _LOSS.search(text):
        return "loss"
    if _SETBACK.search(text) and not _EXCLAIMED.search(text):
        return "setback"
    return None


#: a message that asks the pet for something ("so tired today, tell me a joke", "好累，给我讲个笑话吧"): no line that only
#: stays with a low mood answers it
_REQUESTS = re.compile(r"\b(?:tell me|give me|show me|recommend|can you|could you|would you|will you|help me|let'?s)\b"
                       r"|给我|帮我|讲个|来一?个|推荐|陪我|你能|你可以", re.IGNORECASE)


def requests(message: str) -> bool:
    """The message asks the pet for something ("tell me a joke", "给我讲个笑话吧")."""
    return _REQUESTS.search(message) is not None


def stand_in(language: str, persona: Persona, found: Found | None = None, message: str = "",
             noted: bool = False, facts: Sequence[str] = ()) -> str:
    """The pet's own line when the model's reply failed twice: to a question
    about its name (whatever the reply got wrong), its own name; to a request
    to write something, answered with a document, that it cannot; after it
    noted a fact of the message (`noted`; `facts`, what it kept), that it kept
    it, said back to the person when that reads right (`told_back`); to worry or sad news, a gentle line; to a
    joke told, a laugh; to the person's good news, a glad one; to a low mood, one that stays with them; else
    that it does not know what to say."""
    if found is not None and _NAME_QUESTION.search(message):
        return say("own_name", language, persona)
    if found is not None and ASSISTANT in found.problems and asks_to_write(message):
        return say("off_script_writing", language, persona)
    if (_WORRIED.search(message) or sad_kind(message)) and not _GLAD_WORDS.search(message):
        return say("off_script_worried", language, persona)  # not "本钳记住啦～" to "我爸查出来高血压，我好担心他"
    if _RIDDLE_ANSWERED.search(message) and (_LAUGHS.search(message) or not _SELF_ANYWHERE.search(message)) and (
            not sad_news(message)):  # (a riddle about the person is a complaint: "why was i late again? because…")
        return say("off_script_laugh", language, persona)  # a joke told, said back twice
    if good_news(message):
        # "I PASSED MY DRIVING TEST ON THE FOURTH TRY", "我姐生宝宝了！！我当小姨了！！": glad with them, kept or not (round 41's and
        # 42's spent chat sets got "Got it, clamped tight: you passed your driving test! Tell me more?")
        return say("off_script_glad", language, persona)
    low = mood(message) < 0 and not re.search(r"[?？]|吗", message) and not _REQUESTS.search(message)
    if low and not noted:
        return say("off_script_low", language, persona)  # "so tired i could sleep on the bus floor"
    if noted and not _ASKS.search(message):  # "my boyfriend is called Lukas, what should I get him?" asks more
        if low:  # "牙疼了一整晚，半边脸都肿了": not "Got it, clamped tight: …!"
            return say("off_script_noted_low", language, persona)
        back = told_back(facts, persona.language(language))  # (a pet of one language says its line in that one)
        if back:
            return say("off_script_noted_fact", language, persona, fact=back)
        return say("off_script_noted", language, persona)
    return say("off_script", language, persona)


def is_stand_in(text: str, persona: Persona) -> bool:
    """The text is one of the pet's own lines for a reply that failed twice and was not about writing or its name
    (the chat bench counts these): the plain one, or the one after a fact it noted, with or without the fact."""
    text = text.strip()
    for lang in persona.languages:
        if text in (say("off_script", lang, persona), say("off_script_noted", lang, persona),
                    say("off_script_worried", lang, persona), say("off_script_laugh", lang, persona),
                    say("off_script_glad", lang, persona), say("off_script_low", lang, persona),
                    say("off_script_noted_low", lang, persona)):
            return True
        head, _, tail = say("off_script_noted_fact", lang, persona, fact="\0").partition("\0")
        if len(text) > len(head) + len(tail) and text.startswith(head) and text.endswith(tail):
            return True
    return False


#: the longest fact said back in the pet's line (letters, a Chinese character counting CJK_WEIGHT)
TOLD_BACK_LETTERS = 90
#: a greeting before the fact, and a short name or particle after it ("hey xiaoqian, i'm Tom", "你好呀小钳子，我是小林"):
#: not said back
_HELLO_FIRST = re.compile(r"^(?:(?:hi|hey|hello|yo|hiya|howdy)\b(?:\s+(?!i\b)[a-z]+)?[\s,!.~～]+"
                          r"|(?:你好|您好|嗨|哈喽|hello)(?:[呀啊哇]?[\u4e00-\u9fff]{0,4})?[\s，,！!。~～]+)+", re.IGNORECASE)
#: the person's words for themselves, and the pet's for them (the person's "I" is a capital or a texting "i",
#: never "I-95"; "us" is never "US")
_FIRST_TO_SECOND_EN = (
    (re.compile(r"\b[Ii]\s+am\b"), "you are"),
    (re.compile(r"\b[Ii]\s+wasn['’]t\b"), "you weren't"),
    (re.compile(r"\b[Ii]\s+was\b"), "you were"),
    (re.compile(r"\b[Ii](?:['’]m|m)\b"), "you're"),
    (re.compile(r"\bive\b"), "you've"),  # (texting: "ive changed my outfit 4 times"; not "ill" nor "id", words too, nor Jony Ive)
    (re.compile(r"\b[Ii]['’](ve|ll|d)\b"), r"you'\1"),
    (re.compile(r"\b[Ii]\b(?![-'’0-9])|\b[Mm]e\b"), "you"),
    (re.compile(r"\b[Ww]e\s+are\b"), "you are"),
    (re.compile(r"\b[Ww]e\s+were\b"), "you were"),
    (re.compile(r"\b[Ww]e['’]re\b"), "you're"),
    (re.compile(r"\b(?:[Ww]e|us)\b"), "you"),
    (re.compile(r"\b(?:[Mm]y|[Oo]ur)\b"), "your"),
    (re.compile(r"\b(?:[Mm]yself)\b"), "yourself"),
    (re.compile(r"\b(?:[Oo]urselves)\b"), "yourselves"),
)
#: words that would read wrong turned around: the pet itself ("I told you I like cats"), a quote, a question, a word
#: that is not the person ("a coal mine", "oh my god"), a first person inside a Chinese word or name ("自我管理",
#: "我叫李我行")
_NOT_TOLD_BACK = re.compile(r"\b(?:you|your|yours|you're|u|ur|yourself|mine|ours|oh my|my god|my gosh|my goodness)\b|你|您"
                            r"|[\"“”「」?？]|自我|忘我|无我|唯我|本我|大我|小我|[叫名][^，,。；;]{0,3}我", re.IGNORECASE)
#: news of a loss, an illness or an ending: said back cheerfully with "!", it reads heartless ("你被裁了！")
_SAD_NEWS = re.compile(r"\b(?:laid off|fired|let go|died|passed away"
                       # ("my grandfather passed", not "I passed my exam")
                       r"|(?<!\bi )(?<!\bwe )(?<!\bjust )(?<!\bfinally )passed(?=\s*(?:$|[.!?,;~]|last\b|this\b|yesterday\b|today\b|recently\b|in (?:his|her) sleep"
                       r"|on (?:mon|tues|wednes|thurs|fri|satur|sun)day\b|over the weekend\b|overnight\b))|sick|ill|cancer|broke up|broken up|divorc\w*|lost|injur\w*"
                       r"|hurt|funeral(?! home| parlou?r| director)|depress\w*|miscarriage|dumped|failed|rejected"
                       r"|(?:in|into|to|from) (?:the )?hospital|hospitali[sz]ed|put down"
                       r"|put to sleep|stroke|icu|surgery|accident|crash(?:ed)?|robbed|stolen|ran away|splitting up|split up"
                       r"|flunked|bombed|didn['’]?t get (?:the job|in|into|picked|chosen|selected))\b"
                       r"|裁|辞退|开除|去世|过世|不在了|走了|病|癌|分手|失恋|离婚|丢了|住院|受伤|难过|伤心|葬礼|失业|没了|挂了|失败|被拒"
                       r"|中风|车祸|手术|被偷|被盗|考砸|挂科|跑了|出事|没考上|没上岸|落榜|被甩|没(?:通)?过(?=$|[，。！!,.~～…])",
                       re.IGNORECASE)


#: whose death `sad_kind` reads: the person's relatives, friends and pets
_KIN_EN = (r"(?:(?:great-)*grand\w*|nan|nana|gran|granny|mom|mum|mother|mommy|mama|dad|father|daddy|papa|step\w+|\w+-in-law|brother"
           r"|sister|wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|son|daughter|baby|aunt|auntie|uncle|cousin"
           r"|niece|nephew|friend|best friend|bestie|teacher|mentor|coworker|colleague|neighbou?r|dog|doggo|puppy|pup|cat"
           r"|kitty|kitten|pet|hamster|rabbit|bunny|bird|budgie|parrot|fish|goldfish|turtle|tortoise|guinea pig|ferret"
           r"|horse|parents|grandparents)")
_PET_ZH = r"(?:狗|狗狗|小狗|老狗|猫|猫咪|小猫|老猫|仓鼠|兔子|小兔|鹦鹉|乌龟|金鱼|鱼|小鸟|龙猫|荷兰猪)"
_LOSS = re.compile(
    # "my grandpa passed away", "our old dog Bruno died last night", "my cat had to be put down", "lost my grandma"
    rf"\b(?:my|our)\s+(?:[\w'’-]+\s+){{0,2}}?{_KIN_EN}(?:\s+[A-Z][a-z]+)?\s+(?:just\s+|suddenly\s+|finally\s+|recently\s+)?"
    r"(?:passed away|died(?!\s+(?:laughing|of embarrassment|inside|her|his|my))|didn['’]?t make it"
    r"|(?:had to be|was|got|has been)\s+put\s+(?:down|to sleep)|is gone|passed(?=\s+(?:last|this|yesterday|today|recently"
    # (or on a day: "my grandad passed on sunday", round 46's chat set got "I'm glad to hear that your granddad passed away")
    r"|in (?:his|her) sleep|on (?:mon|tues|wednes|thurs|fri|satur|sun)day|over the weekend|overnight|earlier)\b))"
    rf"|\b(?:had to|we|i)\s+(?:\w+\s+){{0,2}}?put\s+(?:my|our)\s+(?:[\w'’-]+\s+){{0,2}}?{_KIN_EN}\s+(?:down|to sleep)\b"
    rf"|^(?:i\s+|we\s+)?lost\s+(?:my|our)\s+(?:[\w'’-]+\s+){{0,1}}?{_KIN_EN}\s+(?:today|yesterday|this|last)\b"
    # "奶奶昨晚过世了" (words of death only), "我家的老猫昨天走了" (a pet's: a person who 走了 may have left)
    r"|(?:去世|过世|逝世|病逝|离世|没抢救过来|没能挺过来)"
    # a grandparent who 走了, not to somewhere ("我外公今天走了"; not "爷爷走了，回老家了")
    r"|(?:外公|外婆|爷爷|奶奶|姥姥|姥爷)[^，,。！!？?\s]{0,4}?走了(?![，,。\s]*(?:回|去|出|到))"
    rf"|(?:我家|我的|我养|家里|老家|陪了我)[^，,。！!？?\s]{{0,10}}?{_PET_ZH}[^，,。！!？?\s把]{{0,6}}?(?:走了|死了(?!都)|死掉了|没了"
    r"|去喵星了|去汪星了|被?安乐了)",
    re.IGNORECASE)
#: the person's own setback (for `sad_kind`)
_SETBACK = re.compile(
    r"\b(?:i|i've|i have|i just)\s+(?:just\s+|totally\s+|completely\s+)?(?:failed|flunked|bombed)\s+(?:my|the|another|an?)\s+"
    r"(?:[\w'’-]+\s+){0,2}?(?:exams?|tests?|interview|class|course|audition|quiz|finals?|midterms?|bar|thesis|defen[cs]e)\b"
    r"|^(?:i\s+)?(?:failed|flunked|bombed)\s+(?:my|the)\s+(?:[\w'’-]+\s+){0,2}?(?:exams?|tests?|interview|audition|finals?)\b"
    r"|(?:^|\bi\s+)(?:didn['’]?t|did not)\s+get\s+(?:the job|the offer|the role|the part|the promotion|the scholarship"
    r"|accepted|picked|chosen|selected|in(?:to)?\s+(?:[\w'’-]+\s+){0,3}?(?:school|college|university|uni|program|programme"
    r"|course|academy))"
    r"|(?:^|\bi\s+|\bi've\s+)(?:just\s+)?(?:got|been|was)\s+(?:laid off|fired|let go|dumped)\b"
    r"|\b(?:she|he|my (?:girlfriend|boyfriend|partner|wife|husband|gf|bf|fianc[eé]e?))\s+(?:just\s+)?(?:broke up with me|dumped me"
    r"|left me)\b|(?:^|\b(?:we|i)\s+)(?:just\s+)?broke up\b"
    r"|我(?:们|们俩)?(?:又|刚)?分手了|^分手了|(?:我|^)(?:又|刚)?被(?:甩|裁|辞退|开除)了|我(?:被公司)?裁员了|我失业了|^失业了"
    r"|(?:^|我的?|这次)(?:又)?(?:面试|考试|笔试|复试|驾照|科目[一二三四]|答辩|考研)[^，,。！!？?\s]{0,3}?(?:又)?(?:挂了|没过|没考上"
    r"|没上岸)|没拿到offer|offer没拿到|考砸了|挂科了|落榜了",
    re.IGNORECASE)
#: ...nor so: asked, feared, wished, nearly, in a dream, of history ("Einstein died in 1955", "1936年去世")
_NOT_SO = re.compile(r"[?？]|吗|\b(?:if|what if|when|almost|nearly|dream\w*|dreamt|nightmare|worried|afraid|scared|in \d{4})\b"
                     r"|如果|要是|万一|假如|怕|担心|会不会|差点|梦见|梦到|\d{2,4}年|活该|吃瓜", re.IGNORECASE)
#: ...not told as sad: a joke, a story on a screen or a page
_NOT_TOLD_AS_SAD = re.compile(r"\b(?:lol|lmao|jk|haha\w*|kidding|movie|film|show|episode|book|novel|game|series)\b"
                              r"|哈哈|开玩笑|电影|剧里|电视剧|小说|游戏", re.IGNORECASE)
_EXCLAIMED = re.compile(r"[!！]{2}")
_GLAD_WORDS = re.compile(r"\b(?:glad|happy|excited|yay|relieved|finally passed|passed (?:my|the)|feel(?:ing)? (?:good|great|free)"
                         r"|i'?m free|great news)\b"
                         r"|开心|高兴|终于过了|自由|解脱|爽", re.IGNORECASE)


#: the person's own good news, in so many words: a test passed, a job or an offer got, a promotion, a prize won, a baby
#: born into the family ("GOT THE PROMOTION!!!", "我中了公司年会一等奖", "拿到offer啦")
_GOOD_NEWS = re.compile(
    r"\b(?:i|we|i've|i have|we've|we have|i just|we just|finally)\s+(?:just\s+|finally\s+|totally\s+)?"
    r"(?:passed|aced|nailed|won|got (?:the |a |my )?(?:job|offer|promotion|raise|apartment|flat|house|place|scholarship"
    r"|visa|part|role|keys)|got (?:in|into|accepted|engaged|married|promoted|hired)|got the \w+ (?:job|offer|role)"
    r")\b(?!['’]t)"
    r"|\b(?:i['’]m|we['’]re|i am|we are)\s+(?:just\s+|finally\s+)?(?:engaged|pregnant|hired|promoted)\b"
    r"|^\W*(?:passed|aced|nailed|won|got (?:the |a |my )?(?:job|offer|promotion|raise|apartment|place|keys|visa))\b(?!['’]t)"
    r"|(?:考过了|考上了|过了!|通过了|升职|加薪|被录取|录取了|上岸了?|拿到(?:了)?offer|拿到(?:了)?录取|中了(?:[^，,。！!]{0,8})?(?:奖|彩票)"
    r"|得奖|获奖|订婚|领证|生(?:了)?宝宝|当(?:小姨|姑姑|舅舅|叔叔|阿姨|爸爸|妈妈)了|怀孕了|转正了)", re.IGNORECASE)


def good_news(message: str) -> bool:
    """The message tells of the person's own good news in so many words, and is no sad news, worry, question or
    story ("passed my driving test!!", "升职了"; not "did you pass?", "I failed, he passed", "my grandpa passed")."""
    text = " ".join(message.split())
    if sad_kind(text) or sad_news(text) or _WORRIED.search(text) or _NOT_SO.search(text):
        return False
    found = _GOOD_NEWS.search(text)
    if found is None:
        return False
    clause = re.split(r"[，,。！!；;]", text[:found.start()])[-1]
    # not "他升职了，我没有", "好想升职啊", "又没升职", "I hope I passed"
    return _SOMEONE_ELSES.search(clause) is None and _NOT_YET.search(clause) is None and _WISHED.search(text) is None


#: good news of someone else, in so many words ("my little brother just got into med school!!", "我哥考上研究生了")
_THEIR_GOOD_NEWS = re.compile(
    r"\b(?:got|gets|has got|just got|finally got)\s+(?:into (?:a |the |her |his |their )?(?:college|uni\w*|\w+ school"
    r"|school|grad school|the (?:team|program|programme|band|choir))|in(?![a-z])(?! trouble)|accepted|engaged|married"
    r"|promoted|hired|(?:the|a|an) (?:job|offer|raise|promotion|scholarship))\b|\b(?:had|has had|just had)\s+(?:a |her |his |their )?"
    r"(?:baby|babies|twins|son|daughter|boy|girl)\b|\b(?:is|are)\s+(?:getting married|engaged|pregnant|expecting)\b"
    r"|\bpassed (?:his|her|their) \w+|\b(?:graduated|won)\b"
    r"|考上|考过了|升职|加薪|录取|上岸|订婚|结婚了|领证|生了(?:个|一个|对|宝宝)?|生宝宝|怀孕了|毕业了|拿到(?:了)?offer|得奖|获奖"
    r"|当(?:爸爸|妈妈|爸|妈)了", re.IGNORECASE)


def their_good_news(message: str) -> bool:
    """The message tells of good news of someone it names, not the person's own, and is no sad news, worry, question,
    wish or news with a "not" in it ("my sister got engaged!!", "我哥考上研究生了"; not "my coworker got promoted and i
    didn't", "did your sister get in?", "my grandpa passed")."""
    from pet.agent import capture

    text = " ".join(message.split())
    if (sad_kind(text) or sad_news(text) or _WORRIED.search(text) or _NOT_SO.search(text) or good_news(text)
            or _NOT_YET.search(text) or _WISHED.search(text) or re.search(r"[?？]|吗", text)):
        return False
    return _THEIR_GOOD_NEWS.search(text) is not None and bool(capture.about(text))


#: someone else's, before the news in its clause
_SOMEONE_ELSES = re.compile(r"[他她]|别人|同事|朋友|室友|老板|领导|同学")
#: ...or a "not" before it
_NOT_YET = re.compile(r"没|不|未|\b(?:not|never|didn['’]?t|haven['’]?t|hasn['’]?t)\b", re.IGNORECASE)
#: a wish, a hope or a plan, not news
_WISHED = re.compile(r"想|希望|盼|祝|\b(?:wish|hope|hoping|hopefully|want|wanna|gonna|going to|will|might|may|could|would)\b",
                     re.IGNORECASE)


#: worry, which said back cheerfully reads as careless too: "本钳记住啦：你爸爸查出来高血压，你好担心他！" (round 39's spent
#: chat set)
_WORRY = re.compile(r"\b(?:worried|worrying|anxious|scared|afraid|diagnosed)\b|担心|害怕|焦虑|心疼|血压|血糖|糖尿|发烧|骨折|查出",
                    re.IGNORECASE)


#: worry said in so many words, not denied ("im not worried at all", "别担心"), for the gentle stand-in
_WORRIED = re.compile(r"(?<!not )(?<!n't )(?<!nt )(?<!never )\b(?:worried|worrying|anxious|scared)\b|(?<![不别没])(?:担心|害怕|焦虑)",
                      re.IGNORECASE)
#: a joke's laugh: the riddle told is a joke only with one
_LAUGHS = re.compile(r"\b(?:lol|lmao|haha\w*|hehe|joke|pun)\b|哈哈|嘿嘿|笑话|冷笑话|😂|🤣|😆", re.IGNORECASE)


#: a laugh or a chat word the fact ends with
_LAUGH_AFTER = re.compile(r"(?:[\s,，]+(?:lol|lmao|rofl|haha\w*|hehe\w*|jk|tbh|ngl|fr)|(?:哈{2,}|嘿{2,}|嘻{2,}|hhh+))[\s!！~～.。]*$",
                          re.IGNORECASE)


def told_back(facts: Sequence[str], language: str) -> str | None:
    """What the pet noted, said to the person ("我在医院当护士，天天上夜班" → "你在医院当护士，天天上夜班", "I'm Maya, I
    work as a bus driver" → "you're Maya, you work as a bus driver"); None when there is none, it is long, sad
    news, in the other language, or holds words that would read wrong turned around."""
    said = []
    for fact in facts:
        fact = _HELLO_FIRST.sub("", fact.strip()).strip().rstrip("。.!！~～…,，;；")
        # ("I'm terrified of spiders lol" → "you're terrified of spiders", not "…spiders lol!", seen using the page)
        fact = _LAUGH_AFTER.sub("", fact).rstrip("。.!！~～…,，;； ")
        if len(re.findall(r"\b[A-Z][A-Z0-9']+\b", fact)) >= 4:
            # shouted: "I RAN MY FIRST 10K WITHOUT STOPPING" is said back as "you ran your first 10k…", not "you RAN MY
            # FIRST…" (round 39's spent chat set)
            fact = fact.lower()
        if (not fact or _NOT_TOLD_BACK.search(fact) or _SAD_NEWS.search(fact) or _WORRY.search(fact)
                or detect_language(fact, default=language) != language):
            return None
        if language == "zh":
            # ("我妈" said back is "你妈妈": "你妈" alone reads as a curse; round 34's chat set, measured)
            fact = re.sub(r"我(妈|爸)(?!\1)", r"我\1\1", fact)
            fact = fact.replace("我", "你").replace("咱们", "你们").replace("俺", "你")
        else:
            for pattern, swap in _FIRST_TO_SECOND_EN:
                fact = pattern.sub(swap, fact)
        said.append(fact)
    joined = ("；" if language == "zh" else "; ").join(said)
    weight = len(CJK_RUN.sub("", joined)) + CJK_WEIGHT * sum(len(run) for run in CJK_RUN.findall(joined))
    return joined if said and weight <= TOLD_BACK_LETTERS else None


#: a request to write or make a piece of writing: "can you write me a workout plan for the week?",
#: "你能帮我写一份一周的健身计划吗？" (a verb of making, then within a few words a kind of document; a
#: hug, a wish or a decision is no document, nor is a list of what the pet knows)
_WRITE = re.compile(
    r"\b(?:write|draft|compose|make|create|put together|come up with|plan|design|give)\s+(?:me\s+|us\s+)?"
    r"(?:a|an|up a|out a|some)\b(?:\s+[\w'-]+){0,4}?\s+(?:plans?|itinerar(?:y|ies)|recipes?|letters?|emails?|poems?"
    r"|stor(?:y|ies)|essays?|menus?|workouts?|routines?|outlines?|speech(?:es)?|toasts?|captions?|resumes?|cv"
    r"|reports?|songs?|schedules?|programs?|programmes?|budgets?|cover letter)\b"
    r"|(?:写|做|拟|制定|设计|规划|安排)一?[份个封首篇段套]?(?:[^，,。？?！!]{0,8}?)"
    r"(?:计划|食谱|菜谱|攻略|行程|邮件|信|诗|故事|作文|文章|菜单|方案|简历|报告|演讲稿|祝福语|文案|歌词|日程|预算)",
    re.IGNORECASE)
#: ...unless it asks what the pet knows: "give me a rundown of what you know about my plans"
_KNOWS = re.compile(r"\b(?:you know|you remember|i told you|told you|you recall)\b|你知道|你记得|我(?:跟你)?说过|我告诉过你",
                    re.IGNORECASE)


#: a message that asks something
#: (not "could" or "can" of the person's: "so tired i could sleep on the bus floor" asks nothing, and its answer "I'm
#: tired! I'll go sleep in the bed." took the person's words over, seen using the page)
_ASKS = re.compile(r"[?？]|吗|呢|什么|怎么|([\u4e00-\u9fff])不\1|\b(?:what|how|why)\b"
                   r"|^\W*(?:should|could|can|would)\b|\b(?:should|could|can|would) (?:you|u|we|i)\b(?![^,.!]*\bi\b)",
                   re.IGNORECASE)


def asks_to_write(message: str) -> bool:
    """The message asks the pet to write something ("write me a workout plan"), not what it knows."""
    return _WRITE.search(message) is not None and _KNOWS.search(message) is None
