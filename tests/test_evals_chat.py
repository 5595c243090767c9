"""The chat benchmark: its tuning set, a lenient loader, the judge, a run of
the real agent in a fresh home with a scripted model, and the table."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from pet.brain.scripted import ScriptedModel
from pet.cli import build_parser
from pet.config import load_settings
from pet.evals.cases import CaseFileError
from pet.evals.chat import (
    ChatCase,
    CountingModel,
    judge_chat,
    load_chat_cases,
    parse_chat_case,
    run_chat_case,
    spread_chat,
    table,
)
from pet.persona.model import load_persona

XIAOQIAN = load_persona("xiaoqian")


def test_the_tuning_set_has_enough_of_each_kind():
    cases = load_chat_cases()
    assert len(cases) >= 80
    assert Counter(c.lang for c in cases)["zh"] * 2 == len(cases)  # half Chinese
    topics = {c.topic for c in cases}
    assert {"greeting", "tired", "food", "work", "joke", "memory", "pet", "stage"} <= topics
    assert {0, 30, 365} <= {c.day for c in cases if c.topic == "stage"}
    assert all(c.memories for c in cases if c.asks_memory)
    assert any(c.asks_name for c in cases) and len({c.id for c in cases}) == len(cases)


def test_the_loader_reads_other_field_names_and_ignores_unknown_keys(tmp_path):
    path = tmp_path / "cases.jsonl"
    rows = [
        {"message": "你好呀", "days": 365, "asks_pet_name": True, "topic": "greeting", "note": "x"},
        {"text": "what do I like?", "language": "en", "memories": [{"content": "likes tea"}, "has a dog"],
         "asks_memory": True, "expect_any": ["tea"]},
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n", encoding="utf-8")
    first, second = load_chat_cases(path)
    assert (first.text, first.lang, first.day, first.asks_name, first.id) == ("你好呀", "zh", 365, True, "line-1")
    assert second.memories == ("likes tea", "has a dog") and second.asks_memory and second.expect_any == ("tea",)
    assert second.day == 30  # the default stage


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "line 1: not valid JSON"),
    ('{"lang": "en"}', "'text' (or 'message') must be a non-empty string"),
    ('{"text": "hi", "day": "soon"}', "'day' must be a whole number"),
])
def test_a_bad_case_file_names_the_line(tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_chat_cases(path)
    assert message in str(info.value)


def test_a_missing_case_file_is_a_clear_error(tmp_path):
    with pytest.raises(CaseFileError, match="no such case file"):
        load_chat_cases(tmp_path / "none.jsonl")


def case(text="我有点累了", **kwargs):
    return parse_chat_case({"text": text, **kwargs}, 1)


def test_the_judge():
    assert judge_chat(case(), "辛苦啦，早点休息！", XIAOQIAN).passed
    wrong = judge_chat(case(), "You have a bit of a penchant for whistling.", XIAOQIAN)
    assert not wrong.language and "language: wanted zh" in wrong.problems
    assert judge_chat(case(), "我有点累了。", XIAOQIAN).echo
    assert judge_chat(case(), "", XIAOQIAN).empty
    assert judge_chat(case(), "很抱歉，我无法回答。", XIAOQIAN).assistant
    memories = ["我最喜欢喝乌龙茶", "我养了一只叫团子的柯基"]
    recital = "你喜欢喝乌龙茶，还养了一只叫团子的柯基！"
    assert judge_chat(case(memories=memories), recital, XIAOQIAN).recital
    # memories quoted as the person said them keep their language; the rest is judged
    told = ["My favourite band is Radiohead"]
    assert judge_chat(case("我喜欢什么乐队？", memories=told, asks_memory=True),
                      "我记得这些： #1: My favourite band is Radiohead", XIAOQIAN).language
    assert not judge_chat(case("我喜欢什么乐队？", memories=told, asks_memory=True),
                          "I remember: #1: My favourite band is Radiohead", XIAOQIAN).language
    assert not judge_chat(case(memories=memories, asks_memory=True), recital, XIAOQIAN).recital
    name = case("你叫什么名字？", asks_name=True)
    assert judge_chat(name, "我是小钳！", XIAOQIAN).name is True
    assert judge_chat(name, "我是一只小龙虾！", XIAOQIAN).name is False
    assert judge_chat(case(), "好" * 200, XIAOQIAN).length is False
    stand_in = judge_chat(case(), "钳钳挥了挥大钳子，一时没想好怎么接……再跟我多说一点？", XIAOQIAN)
    assert stand_in.stand_in and stand_in.passed
    # the persona's own line for small talk, its name filled in, is counted apart from the model's
    own = next(r for r in XIAOQIAN.replies if r.topic == "your_name").say["zh"][0].replace("{name}", "小钳")
    assert judge_chat(case("你叫什么名字？", asks_name=True), own, XIAOQIAN).own_line
    assert not judge_chat(case(), "辛苦啦，早点休息！", XIAOQIAN).own_line


def test_a_limited_run_takes_each_topic_and_language_first():
    cases = load_chat_cases()
    groups = {(c.topic, c.lang) for c in cases}
    picked = spread_chat(cases, len(groups))
    assert {(c.topic, c.lang) for c in picked} == groups


def test_a_case_runs_the_real_agent_in_a_fresh_home_at_its_stage():
    model = CountingModel(ScriptedModel(["辛苦啦，钳钳给你捶捶背～", "Mochi! Of course I remember."]))
    settings = load_settings({"reflexes": False})
    tired = ChatCase("t", "我有点累了", "zh", day=0)
    result = run_chat_case(tired, model, settings)
    assert result.reply == "辛苦啦，钳钳给你捶捶背～" and result.verdict.passed
    assert result.model_calls == 1 and result.first_text is not None and result.seconds >= result.first_text
    system = model.inner.calls[0].messages[0].content
    assert "Growth stage: 刚到家的小虾米 (from day 0 together)" in system

    asks = ChatCase("m", "what's my cat called?", "en", memories=("I have a cat called Mochi",), asks_memory=True,
                    day=365)
    result = run_chat_case(asks, model, settings)
    sent = model.inner.calls[1].messages
    assert "Growth stage: old pal" in sent[0].content
    assert any("- they said: I have a cat called Mochi" in m.content for m in sent if m.role == "system")
    assert result.verdict.passed
    model.inner.assert_complete()

    out = table("scripted", [result])
    assert "overall" in out and "memory" not in out and "1/1" in out


def test_the_cli_takes_a_rung_a_server_and_a_case_file():
    args = build_parser().parse_args(["bench", "chat", "--model", "small", "--cases", "x.jsonl", "--limit", "5"])
    assert (args.suite, args.bench_model, str(args.cases), args.limit) == ("chat", "small", "x.jsonl", 5)
    args = build_parser().parse_args(["bench", "chat", "--base-url", "http://127.0.0.1:8080/v1", "--model", "qwen"])
    assert args.base_url == "http://127.0.0.1:8080/v1" and args.bench_model == "qwen"


def test_a_case_treats_the_wrapped_model_as_the_app_treats_its_tier():
    """The embedded brain's replies end after 4 sentences in the app; the
    benchmark's wrapped model must be held to that too, or it measures
    something no person meets."""
    essay = "One. Two. Three. Four. Five. Six."
    settings = load_settings({"reflexes": False})
    case = ChatCase("e", "count with me", "en", day=0)
    embedded = run_chat_case(case, CountingModel(ScriptedModel([essay])), settings, tier="embedded")
    server = run_chat_case(case, CountingModel(ScriptedModel([essay])), settings, tier="server")
    assert embedded.reply == "One. Two. Three. Four." and server.reply == essay


def test_the_judges_own_list_holds_its_examples_and_spares_its_near_misses():
    """The benchmark's list of assistant-speak (written without seeing the
    guard) matches each entry's examples and no near-miss of its language."""
    from pet.evals.speak import phrases

    listed = phrases()
    assert {p.lang for p in listed} == {"en", "zh"} and len(listed) >= 40
    for phrase in listed:
        assert len(phrase.match) >= 3 and len(phrase.spare) >= 2, phrase.pattern.pattern
        for example in phrase.match:
            assert phrase.pattern.search(example), (phrase.pattern.pattern, example)
    for phrase in listed:
        for other in listed:
            if other.lang == phrase.lang:
                for spare in other.spare:
                    assert not phrase.pattern.search(spare), (phrase.pattern.pattern, spare)


def test_the_judge_also_fails_what_only_its_own_list_finds(monkeypatch):
    """The benchmark's list is its own: a reply the guard's patterns let
    through still fails when the list finds it, and is counted apart."""
    import re

    from pet.agent.replycheck import assistant_speak
    from pet.evals import speak

    reply = "Beep boop, I am a friendly digital companion unit."
    assert assistant_speak(reply) is None
    fake = speak.Phrase("en", "self_ai", re.compile(r"(?i)\bdigital companion unit\b"), (), ())
    monkeypatch.setattr(speak, "phrases", lambda path=speak.PHRASES: (fake,))
    verdict = judge_chat(case("who are you?", lang="en"), reply, XIAOQIAN)
    assert verdict.assistant and verdict.listed and any("the judge's list" in p for p in verdict.problems)
    guarded = judge_chat(case("hi", lang="en"), "As an AI, I am a digital companion unit.", XIAOQIAN)
    assert guarded.assistant and not guarded.listed  # the guard's own patterns found it first


def test_the_judge_lets_a_pets_own_offer_pass():
    assert not judge_chat(case(), "要我明早提醒你带伞吗？钳钳帮你记着！", XIAOQIAN).assistant
