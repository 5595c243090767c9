"""Reading the broken JSON and text tool calls that small models write."""

from __future__ import annotations

import json

import pytest

from pet.brain.parse import (
    JSONRepairError,
    extract_tool_calls,
    looks_like_tool_call_start,
    repair_json,
)
from pet.events import ToolCall

TOOLS = {"remember", "calculate", "get_time"}

# (what the model wrote, what it meant)
BROKEN_JSON = [
    ('{"a": 1}', {"a": 1}),
    ('{"a": 1,}', {"a": 1}),
    ('{"a": [1, 2, 3,],}', {"a": [1, 2, 3]}),
    ('[1, 2, 3,]', [1, 2, 3]),
    ("{'a': 'b'}", {"a": "b"}),
    ("{'a': 'it's fine'}", {"a": "it's fine"}),
    ('{a: 1, b: "two"}', {"a": 1, "b": "two"}),
    ("{name: remember, arguments: {content: I like tea}}",
     {"name": "remember", "arguments": {"content": "I like tea"}}),
    ("{content: I like tea, milk and sugar, count: 2}",
     {"content": "I like tea, milk and sugar", "count": 2}),
    ("{n: 42, f: -1.5e3, t: true, no: false, nothing: null}",
     {"n": 42, "f": -1500.0, "t": True, "no": False, "nothing": None}),
    ("{phone: 0123456}", {"phone": "0123456"}),
    ('{"a": 1, // the answer\n "b": 2}', {"a": 1, "b": 2}),
    ('{"a": /* inline */ 1}', {"a": 1}),
    ('{\n  # a note\n  "a": 1\n}', {"a": 1}),
    ('{"n": 1 // trailing comment\n}', {"n": 1}),
    ('{"url": "http://example.com/a//b"}', {"url": "http://example.com/a//b"}),
    ("{url: http://example.com/x}", {"url": "http://example.com/x"}),
    ('Sure! Here it is: {"a": 1} Hope this helps.', {"a": 1}),
    ('```json\n{"a": 1}\n```', {"a": 1}),
    ('Here:\n```\n{"a": [1,]}\n```\nDone.', {"a": [1]}),
    ('```json\n{"a": 1', {"a": 1}),
    ('{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}),
    ('{"text": "line one\nline two"}', {"text": "line one\nline two"}),
    ('{"a": {"b": [1, 2', {"a": {"b": [1, 2]}}),
    ('{"name": "remember", "arguments": {"content": "tea',
     {"name": "remember", "arguments": {"content": "tea"}}),
    ('{"a": 1, "b', {"a": 1}),
    ('{"a": 1, "b":', {"a": 1}),
    ("{\u201cname\u201d: \u201cremember\u201d}", {"name": "remember"}),
    ("{\u2018a\u2019: \u2018don\u2019t\u2019}", {"a": "don\u2019t"}),
    ('{"content": "他说“你好”"}', {"content": "他说“你好”"}),
    ("{content: 我喜欢喝茶，也喜欢咖啡}", {"content": "我喜欢喝茶，也喜欢咖啡"}),
    ('{"a": "he said "hi" to me"}', {"a": 'he said "hi" to me'}),
    ('{"a": "x\\ty\\u00e9\\ud83d\\ude00"}', {"a": "x\ty\u00e9\U0001F600"}),
    ('{"path": "C:\\Users\\me"}', {"path": "C:\\Users\\me"}),
    ('{"a": 1\n "b": 2}', {"a": 1, "b": 2}),
    ('{"a": [1, 2}', {"a": [1, 2]}),
    ('{"a": 1}}}', {"a": 1}),
    ('I feel :{ sad. {"a": 1}', {"a": 1}),
    ('{"inner": "{\\"b\\": 1}"}', {"inner": '{"b": 1}'}),
    ('{"a": , "b": 2}', {"b": 2}),
    ("[{'a': 1}, {'b': 2},]", [{"a": 1}, {"b": 2}]),
    ("{}", {}),
]


@pytest.mark.parametrize(("text", "expected"), BROKEN_JSON)
def test_repair_json_reads_what_the_model_meant(text: str, expected: object) -> None:
    assert repair_json(text) == expected


def test_the_corpus_is_big_enough() -> None:
    assert len(BROKEN_JSON) >= 30


def test_valid_json_of_any_kind_parses_as_json() -> None:
    assert repair_json("42") == 42
    assert repair_json('"hello"') == "hello"


def test_a_json_encoded_object_string_is_not_decoded() -> None:
    encoded = json.dumps(json.dumps({"a": 1}))
    assert repair_json(encoded) == '{"a": 1}'


def test_deep_nesting_is_refused_not_crashed() -> None:
    with pytest.raises(JSONRepairError):
        repair_json("[" * 5000)


@pytest.mark.parametrize("text", ["", "   ", "Hello, how are you?", "I like {braces", "no json: here"])
def test_text_without_an_object_raises(text: str) -> None:
    with pytest.raises(JSONRepairError, match="No JSON object"):
        repair_json(text)


def test_repair_error_is_a_value_error() -> None:
    assert issubclass(JSONRepairError, ValueError)


# --- extract_tool_calls ----------------------------------------------------------


def only_call(text: str) -> ToolCall:
    calls = extract_tool_calls(text, TOOLS)
    assert len(calls) == 1, calls
    return calls[0]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "remember", "arguments": {"content": "I like tea"}}',
        'Sure! I will remember that.\n{"name": "remember", "arguments": {"content": "I like tea"}}\nDone!',
        '```json\n{"name": "remember", "arguments": {"content": "I like tea"}}\n```',
        '{"tool": "remember", "arguments": {"content": "I like tea"}}',
        '{"tool": "remember", "args": {"content": "I like tea"}}',
        '{"tool": "remember", "parameters": {"content": "I like tea"}}',
        '{"tool": "remember", "input": {"content": "I like tea"}}',
        '{"function": {"name": "remember", "arguments": {"content": "I like tea"}}}',
        '{"type": "function", "function": '
        '{"name": "remember", "arguments": "{\\"content\\": \\"I like tea\\"}"}}',
        '{"name": "remember", "arguments": "{\\"content\\": \\"I like tea\\"}"}',
        "{name: remember, arguments: {content: I like tea}}",
        '<tool_call>\n{"name": "remember", "arguments": {"content": "I like tea"}}\n</tool_call>',
        '<tool_call>{"name": "remember", "arguments": {"content": "I like tea"',
        "Thought: I should save this.\nAction: remember\n"
        'Action Input: {"content": "I like tea"}\nObservation:',
        '{"name": "functions.remember", "arguments": {"content": "I like tea"}}',
        '{"name": "remember", "content": "I like tea"}',
    ],
)
def test_each_call_shape_is_recognized(text: str) -> None:
    call = only_call(text)
    assert call.name == "remember"
    assert call.arguments == {"content": "I like tea"}
    assert call.error is None


def test_chinese_arguments_survive_intact() -> None:
    text = '好的！{"name": "remember", "arguments": {"content": "我喜欢喝“乌龙”茶，不加糖"}}'
    call = only_call(text)
    assert call.arguments == {"content": "我喜欢喝“乌龙”茶，不加糖"}


def test_several_calls_in_one_reply() -> None:
    texts = [
        '{"tool_calls": [{"name": "remember", "arguments": {"content": "tea"}},'
        ' {"name": "get_time", "arguments": {}}]}',
        '[{"name": "remember", "arguments": {"content": "tea"}}, {"name": "get_time", "arguments": {}}]',
        '<tool_call>{"name": "remember", "arguments": {"content": "tea"}}</tool_call>\n'
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
        'First {"name": "remember", "arguments": {"content": "tea"}} and then '
        '{"name": "get_time", "arguments": {}}.',
        "Action: remember\nAction Input: tea\nObservation: saved\nAction: get_time\nAction Input: {}",
    ]
    for text in texts:
        calls = extract_tool_calls(text, TOOLS)
        assert [c.name for c in calls] == ["remember", "get_time"], text
        assert calls[0].arguments in ({"content": "tea"}, {"input": "tea"})
        assert calls[1].arguments == {}


def test_react_bare_string_input_becomes_input_argument() -> None:
    assert only_call("Action: remember\nAction Input: I like tea").arguments == {"input": "I like tea"}
    assert only_call('Action: remember\nAction Input: "I like tea"').arguments == {"input": "I like tea"}


def test_react_action_without_input_has_no_arguments() -> None:
    call = only_call("Action: get_time")
    assert (call.name, call.arguments) == ("get_time", {})


def test_openai_call_id_is_kept() -> None:
    call = only_call('{"id": "call_abc", "function": {"name": "get_time", "arguments": "{}"}}')
    assert call.id == "call_abc"


def test_unknown_tool_name_is_still_a_call() -> None:
    call = only_call('{"name": "fly_to_moon", "arguments": {"speed": 3}}')
    assert (call.name, call.arguments) == ("fly_to_moon", {"speed": 3})


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"name": "remember", "arguments": "I like tea"}', "not JSON"),
        ('{"name": "remember", "arguments": 5}', "int"),
        ('{"name": "remember", "arguments": [1, 2]}', "list"),
    ],
)
def test_unreadable_arguments_give_a_call_with_an_error(text: str, why: str) -> None:
    call = only_call(text)
    assert call.name == "remember"
    assert call.arguments == {}
    assert call.error is not None
    assert "remember" in call.error and why in call.error


@pytest.mark.parametrize(
    "text",
    [
        "I'm happy to help! What would you like to talk about?",
        "你好！今天想聊点什么？",
        '{"name": "Mimi", "age": 3}',  # data about a cat, not a call
        '{"mood": "happy", "energy": 0.8}',
        "[1, 2, 3]",
        "I feel :{ today",
        "",
    ],
)
def test_prose_and_non_call_json_give_no_calls(text: str) -> None:
    assert extract_tool_calls(text, TOOLS) == []


def test_extract_never_raises_on_garbage() -> None:
    for text in ["{" * 5000, "[" * 5000 + "{", "<tool_call>" * 100, "Action:\nAction Input:", "\x00{\x00"]:
        assert isinstance(extract_tool_calls(text, TOOLS), list)


# --- looks_like_tool_call_start ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("Hello there!", None),
        ("Sure! {", 6),
        ('Sure! {"name": "remember"', 6),
        ("Here:\n```json\n", 6),
        ("Okay <tool_call>{", 5),
        ("Let me think.\nAction: remember", 14),
        ("Calls: [ {", 7),
        ("A list [1, 2]", None),
        ("I <3 you", None),
        # a marker that may still be arriving is held back too
        ("Okay <tool", 5),
        ("Here ``", 5),
        ("Here [", 5),
        ("Hmm.\nAct", 5),
    ],
)
def test_looks_like_tool_call_start(text: str, index: int | None) -> None:
    assert looks_like_tool_call_start(text) == index


def test_action_only_counts_at_a_line_start() -> None:
    assert looks_like_tool_call_start("Take Action: now") is None
