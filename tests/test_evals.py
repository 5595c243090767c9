"""The tool-use benchmark: its shipped cases, its judge, its runner and report."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.cli import build_parser
from pet.config import load_settings
from pet.evals.cases import CATEGORIES, CaseFileError, load_cases, parse_case, spread
from pet.evals.judge import CallRecord, Turn, judge, turn_from_events
from pet.evals.report import Run, format_table, recommend, rows, summarize
from pet.evals.run import FIXED_NOW, CaseResult, persona_in_zone, run_cases, world_now
from pet.events import Completion, Reply, TextDelta, ToolCall, ToolFinished, ToolResult, ToolStarted
from pet.persona.model import load_persona


def case(text="x", tools=(), args=None, asks=False, category="calc", lang="en", setup=None, id="c1"):
    expect = {"tools": list(tools)}
    if args:
        expect["args"] = args
    if asks:
        expect["asks"] = True
    data = {"id": id, "lang": lang, "category": category, "text": text, "expect": expect}
    if setup:
        data["setup"] = setup
    return parse_case(data)


def turn(*calls, reply="ok"):
    """calls: (name, arguments) succeeded, or (name, arguments, False) failed."""
    return Turn(tuple(CallRecord(c[0], c[1], c[2] if len(c) > 2 else True, "") for c in calls), reply)


# --- the shipped case file ------------------------------------------------------


def test_shipped_cases_load_with_enough_of_each_language_and_category():
    cases = load_cases()
    assert len(cases) >= 100
    languages = Counter(c.lang for c in cases)
    assert 0.4 <= languages["zh"] / len(cases) <= 0.6
    assert {c.category for c in cases} == set(CATEGORIES)
    for category in CATEGORIES:
        assert {c.lang for c in cases if c.category == category} == {"zh", "en"}, category
    assert any(c.asks for c in cases), "ambiguous requests must expect a question back"
    assert any(len(c.tools) >= 2 for c in cases), "multi-step cases need two tools"


def test_a_limited_run_takes_cases_in_turns_from_each_category_and_language():
    cases = load_cases()
    first = spread(cases, 4)
    assert [(c.category, c.lang) for c in first] == [
        ("time", "en"), ("time", "zh"), ("calc", "en"), ("calc", "zh")
    ]
    assert len({c.category for c in spread(cases, 20)}) == len(CATEGORIES)
    assert spread(cases, None) == cases
    assert sorted(c.id for c in spread(cases, 1000)) == sorted(c.id for c in cases)


def test_every_expected_tool_is_registered_in_the_app():
    app = build(load_settings(), brain=ScriptedModel())
    try:
        registered = set(app.tools.names())
    finally:
        app.close()
    cases = load_cases()
    named = {t for c in cases for t in c.tools} | {t for c in cases for t in c.checks}
    named |= {"remember" for c in cases if c.setup.memories}
    named |= {"set_reminder" for c in cases if c.setup.reminders}
    named |= {"add_todo" for c in cases if c.setup.todos}
    assert named - registered == set()


def test_a_broken_case_file_names_the_line_and_the_problem(tmp_path):
    good = {"id": "a", "lang": "en", "category": "time", "text": "what time is it?",
            "expect": {"tools": ["get_current_time"]}}
    path = tmp_path / "cases.jsonl"
    for bad, problem in [
        ({**good, "id": "b", "lang": "fr"}, "'lang' must be one of zh, en"),
        ({**good, "id": "b", "category": "weather"}, "'category' must be one of"),
        ({**good, "id": "b", "expect": {"tools": ["calculate"], "args": {"remember": {"content": {}}}}},
         "checks 'remember' more often"),
        ({**good, "id": "b", "expect": {"tools": ["set_reminder"], "args": {"set_reminder": {"at": "9am"}}}},
         "'expect.args.set_reminder.at' must be a local time"),
        ({**good, "id": "b", "expect": {"tools": ["calculate"], "asks": True}}, "true only with"),
        ({**good, "id": "b", "setup": {"memos": []}}, "unknown key(s) in setup: memos"),
        (good, "id 'a' is already used on line 1"),
    ]:
        path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
        with pytest.raises(CaseFileError) as raised:
            load_cases(path)
        assert f"{path} line 2" in str(raised.value)
        assert problem in str(raised.value)
    path.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match="line 2: not valid JSON"):
        load_cases(path)


# --- the judge ------------------------------------------------------------------


def test_right_tool_with_right_arguments_is_right():
    c = case(tools=["remember"],
             args={"remember": {"content": {"contains": ["11PM"], "contains_any": ["code"]}}})
    verdict = judge(c, turn(("remember", {"content": "codes after 11pm"})), FIXED_NOW)
    assert (verdict.selection, verdict.arguments, verdict.restraint) == (True, True, None)
    assert verdict.passed and verdict.problems == ()


def test_wrong_tool_or_a_failed_call_is_a_wrong_selection():
    c = case(tools=["remember"])
    assert judge(c, turn(("recall", {"query": "tea"})), FIXED_NOW).selection is False
    assert judge(c, turn(("remember", {"content": "tea"}, False)), FIXED_NOW).selection is False
    # Extra calls and a failed first try are fine when the expected call succeeds.
    retried = turn(("remember", {}, False), ("recall", {}), ("remember", {"content": "t"}))
    assert judge(c, retried, FIXED_NOW).passed


def test_multi_step_needs_each_tool_in_any_order():
    c = case(tools=["remember", "set_reminder"])
    assert judge(c, turn(("set_reminder", {}), ("remember", {})), FIXED_NOW).selection is True
    assert judge(c, turn(("remember", {}), ("remember", {})), FIXED_NOW).selection is False


def test_calculate_is_judged_by_the_number_its_expression_gives():
    c = case(tools=["calculate"], args={"calculate": {"value": 391}})
    assert judge(c, turn(("calculate", {"expression": "17 × 23"})), FIXED_NOW).arguments is True
    assert judge(c, turn(("calculate", {"expression": "391"})), FIXED_NOW).arguments is True
    wrong = judge(c, turn(("calculate", {"expression": "17 * 24"})), FIXED_NOW)
    assert wrong.arguments is False and not wrong.passed
    assert "gives 408, expected 391" in wrong.problems[0]
    assert judge(c, turn(("calculate", {"expression": "17 *"})), FIXED_NOW).arguments is False


def test_arguments_are_not_scored_when_the_selection_is_wrong():
    c = case(tools=["calculate"], args={"calculate": {"value": 4}})
    verdict = judge(c, turn(), FIXED_NOW)
    assert (verdict.selection, verdict.arguments) == (False, None)


def test_each_argument_check_needs_its_own_call():
    c = case(tools=["remember", "remember"],
             args={"remember": [{"content": {"contains": ["tea"]}}, {"content": {"contains": ["cat"]}}]})
    two_calls = turn(("remember", {"content": "tea"}), ("remember", {"content": "cat"}))
    assert judge(c, two_calls, FIXED_NOW).arguments is True
    one_call = turn(("remember", {"content": "tea and cat"}), ("remember", {"content": "dog"}))
    assert judge(c, one_call, FIXED_NOW).arguments is False


def test_restraint_means_no_tool_at_all():
    c = case(tools=[], category="restraint")
    assert judge(c, turn(reply="Time flies indeed!"), FIXED_NOW).restraint is True
    violated = judge(c, turn(("get_current_time", {}), reply="It's 10:15."), FIXED_NOW)
    assert violated.restraint is False and not violated.passed
    assert violated.selection is None


def test_an_ambiguous_request_must_be_answered_with_a_question():
    c = case(tools=[], asks=True, category="remind")
    assert judge(c, turn(reply="8 in the morning or in the evening?"), FIXED_NOW).passed
    assert judge(c, turn(reply="早上8点还是晚上8点？"), FIXED_NOW).passed
    assert not judge(c, turn(reply="Okay, stretching at 8."), FIXED_NOW).passed
    assert not judge(c, turn(("set_reminder", {}), reply="Which 8?"), FIXED_NOW).passed


def test_a_claim_without_a_successful_call_is_a_false_claim():
    c = case(tools=[], category="restraint")
    verdict = judge(c, turn(reply="Got it, I'll remember that!"), FIXED_NOW)
    assert verdict.false_claims == {"remember"} and not verdict.passed
    failed = judge(case(tools=["remember"]), turn(("remember", {}, False), reply="好的，记住啦！"), FIXED_NOW)
    assert failed.false_claims == {"remember"}


def test_a_claim_backed_by_a_successful_call_is_not_counted():
    backed = turn(("remember", {"content": "tea"}), reply="I'll remember that!")
    verdict = judge(case(tools=["remember"]), backed, FIXED_NOW)
    assert verdict.false_claims == frozenset() and verdict.passed


def test_a_claim_to_have_kept_what_the_pet_noted_is_not_counted():
    # round 34's spent set: "本钳记住啦：你现在不喝美式了，改喝拿铁了！" after the note step updated the memory
    noted = turn(("note", {"content": "我现在不喝美式了，改喝拿铁了"}), reply="本钳记住啦：你现在不喝美式了！")
    assert judge(case(tools=["forget", "remember"]), noted, FIXED_NOW).false_claims == frozenset()
    failed = turn(("note", {"content": "x"}, False), reply="本钳记住啦！")
    assert judge(case(tools=["remember"]), failed, FIXED_NOW).false_claims == {"remember"}


def test_reminder_time_is_judged_by_parsing_when_at_the_fixed_clock():
    pytest.importorskip("pet.tools.when")
    c = case(tools=["set_reminder"], args={"set_reminder": {"text": {"contains_any": ["mom"]},
                                                            "at": "2026-11-30T09:00"}})
    assert judge(c, turn(("set_reminder", {"text": "call Mom", "when": "tomorrow at 9am"})), FIXED_NOW).passed
    late = judge(c, turn(("set_reminder", {"text": "call mom", "when": "tomorrow at 10am"})), FIXED_NOW)
    assert late.arguments is False and "expected 2026-11-30 09:00" in late.problems[0]


def test_a_case_set_written_for_another_day_is_judged_on_that_day():
    pytest.importorskip("pet.tools.when")
    c = case(tools=["set_reminder"], args={"set_reminder": {"text": {"contains_any": ["mom"]},
                                                            "at": "2026-12-03T09:00"}})
    said = turn(("set_reminder", {"text": "call Mom", "when": "tomorrow at 9am"}))
    assert not judge(c, said, FIXED_NOW).passed  # on the default day, tomorrow is 11-30
    wednesday = world_now(dt.date(2026, 12, 2))
    assert (wednesday.date(), wednesday.time(), wednesday.tzinfo) == (dt.date(2026, 12, 2), FIXED_NOW.time(),
                                                                       FIXED_NOW.tzinfo)
    assert judge(c, said, wednesday).passed


def test_a_turn_is_read_from_the_events():
    first, second = ToolCall("calculate", {"expression": "1+1"}), ToolCall("remember", {"content": "x"})
    events = [
        ToolStarted(first), ToolStarted(second),
        ToolFinished(ToolResult(second.id, "remember", False, "Error: no"), 0.1),
        ToolFinished(ToolResult(first.id, "calculate", True, "2"), 0.1),
        TextDelta("Two"), TextDelta("!"), Reply("Two!"),
    ]
    read = turn_from_events(events)
    assert [(c.name, c.ok, c.content) for c in read.calls] == [("calculate", True, "2"),
                                                              ("remember", False, "Error: no")]
    assert read.reply == "Two!"


# --- running and reporting --------------------------------------------------------


def write_cases(path, *cases):
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    return load_cases(path)


def test_a_whole_run_with_a_scripted_model_gives_the_expected_numbers(tmp_path):
    cases = write_cases(
        tmp_path / "four.jsonl",
        {"id": "calc", "lang": "en", "category": "calc", "text": "what is 17 * 23?",
         "expect": {"tools": ["calculate"], "args": {"calculate": {"value": 391}}}},
        {"id": "remember", "lang": "en", "category": "remember", "text": "remember that I like tea",
         "expect": {"tools": ["remember"], "args": {"remember": {"content": {"contains": ["tea"]}}}}},
        {"id": "restraint", "lang": "zh", "category": "restraint", "text": "时间过得真快",
         "expect": {"tools": []}},
        {"id": "forget", "lang": "zh", "category": "forget", "text": "忘掉我喜欢绿茶",
         "setup": {"memories": ["likes green tea", "cat is called Tom"]},
         "expect": {"tools": ["forget"], "args": {"forget": {"what": {"contains_any": ["tea", "1"]}}}}},
    )
    model = ScriptedModel([
        Completion("", (call("calculate", expression="17*23"),)), "391!",
        Completion("", (call("remember", content="likes coffee"),)), "Noted.",  # wrong argument
        Completion("", (call("get_current_time"),)), "是呀",  # no restraint
        Completion("", (call("forget", what="green tea"),)), "忘掉啦",  # (an id nobody saw would be a guess, not run)
    ])
    results = run_cases(cases, model, reflexes=False)
    model.assert_complete()

    assert [r.error for r in results] == [None] * 4
    assert [r.verdict.passed for r in results] == [True, False, False, True]
    assert "#1" in results[3].turn.calls[0].content  # the setup's first memory was forgotten
    assert "likes green tea" in results[3].turn.calls[0].content
    overall = rows(results)[0]
    assert (overall.label, overall.cases) == ("overall", 4)
    assert (overall.selection.right, overall.selection.total) == (3, 3)
    assert (overall.arguments.right, overall.arguments.total) == (2, 3)
    assert (overall.restraint.right, overall.restraint.total) == (0, 1)
    assert (overall.passed.right, overall.passed.total) == (2, 4)
    assert overall.false_claims == 0 and overall.median_seconds is not None
    by_label = {row.label: row for row in rows(results)}
    assert set(by_label) == {"overall", "zh", "en", "calc", "remember", "restraint", "forget"}
    assert str(by_label["en"].arguments) == "50% 1/2"
    table = format_table(Run("scripted", "custom", False, results))
    assert table.splitlines()[0] == "scripted, reflexes off"
    assert "50% 2/4" in table


def test_cases_do_not_share_memories(tmp_path):
    cases = write_cases(
        tmp_path / "two.jsonl",
        {"id": "a", "lang": "en", "category": "remember", "text": "remember I like tea",
         "expect": {"tools": ["remember"]}},
        {"id": "b", "lang": "en", "category": "recall", "text": "what do I like?",
         "expect": {"tools": ["recall"]}},
    )
    model = ScriptedModel([Completion("", (call("remember", content="likes tea"),)), "ok",
                           Completion("", (call("recall", query="tea"),)), "no idea"])
    results = run_cases(cases, model, reflexes=False)
    assert results[1].turn.calls[0].content == "No memories match 'tea'."


def test_each_case_runs_in_the_persona_zone_at_the_fixed_time(tmp_path):
    path = persona_in_zone("xiaoqian", FIXED_NOW, tmp_path)
    assert load_persona(str(path)).timezone == "Asia/Shanghai"
    cases = write_cases(tmp_path / "time.jsonl", {"id": "t", "lang": "en", "category": "time",
                                                  "text": "what time?", "expect": {"tools": ["get_current_time"]}})
    model = ScriptedModel([Completion("", (call("get_current_time"),)), "10:15"])
    [result] = run_cases(cases, model, reflexes=False)
    assert "2026-11-29 10:15" in result.turn.calls[0].content


def results_for(passes: list[bool]) -> list[CaseResult]:
    """One remember case per entry: the call made (True) or not made (False)."""
    c = case(tools=["remember"])
    turns = [turn(("remember", {"content": "x"})) if p else turn() for p in passes]
    return [CaseResult(c, t, judge(c, t, FIXED_NOW), 1.0) for t in turns]


def test_recommendation_follows_the_numbers():
    on = Run("qwen", "server", True, results_for([True, True, True, False]))
    off = Run("qwen", "server", False, results_for([True, False, False, False]))
    assert any(line.startswith("Turn reflexes on for qwen") for line in recommend([on, off]))
    assert any(line.startswith("Reflexes make qwen worse") for line in recommend(
        [Run("qwen", "server", True, off.results), Run("qwen", "server", False, on.results)]))

    tiny = Run("embedded: SmolLM2-135M", "embedded", False, results_for([True, False, False, False]))
    assert any(line.startswith("Use a server model for free-form requests") and "on its own" in line
               for line in recommend([tiny]))
    weak = Run("phi", "server", True, tiny.results)
    assert "phi picks the right tool in only 25% of cases even with reflexes" in recommend([weak])[0]

    big = Run("qwen2.5:7b", "server", True, results_for([True] * 4))
    lines = recommend([on, big])
    assert lines[0].startswith("Best model: qwen2.5:7b (100% of cases all right; qwen 75%)")
    assert recommend([big]) == ["qwen2.5:7b, reflexes on: 100% of cases all right; nothing to change."]


def test_summary_counts_false_claims_and_errors():
    c = case(tools=[], category="restraint")
    claimed = turn(reply="I've saved it to memory.")
    results = [CaseResult(c, claimed, judge(c, claimed, FIXED_NOW), 0.5),
               CaseResult(c, turn(), judge(c, turn(), FIXED_NOW), 0.0, error="boom")]
    row = summarize("overall", results)
    assert (row.false_claims, row.errors, row.median_seconds) == (1, 1, 0.5)


# --- the command line ---------------------------------------------------------------


def test_bench_tools_arguments_parse():
    args = build_parser().parse_args(
        ["bench", "tools", "--model", "qwen2.5:3b", "--model", "llama3.2", "--reflexes", "off",
         "--limit", "5", "--cases", "my.jsonl", "--json", "out.json",
         "--base-url", "http://127.0.0.1:8080/v1"]
    )
    assert (args.command, args.suite) == ("bench", "tools")
    assert args.models == ["qwen2.5:3b", "llama3.2"]
    assert (args.reflexes, args.limit) == ("off", 5)
    assert (str(args.cases), str(args.json_path)) == ("my.jsonl", "out.json")
    assert args.base_url == "http://127.0.0.1:8080/v1"
    assert build_parser().parse_args(["bench", "tools", "--today", "2026-12-02"]).today == dt.date(2026, 12, 2)

    defaults = build_parser().parse_args(["bench", "tools", "--brain", "embedded"])
    assert (defaults.reflexes, defaults.models, defaults.limit, defaults.cases) == ("both", [], None, None)
    assert defaults.today is None
    assert defaults.brain == "embedded"


@pytest.mark.parametrize(
    "argv", [["bench"], ["bench", "tools", "--limit", "0"], ["bench", "tools", "--reflexes", "maybe"],
             ["bench", "tools", "--today", "12/02/2026"]]
)
def test_bad_bench_arguments_are_refused(argv, capsys):
    with pytest.raises(SystemExit) as raised:
        build_parser().parse_args(argv)
    assert raised.value.code == 2
