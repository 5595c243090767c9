"""The agent loop, driven by a scripted model against a real SQLite file."""

from __future__ import annotations

import datetime as dt
import re
import threading
from typing import Iterator, Sequence

import pytest

from pet.app import build, reply_sentences
from pet.brain.scripted import ScriptedModel, ScriptExhausted, call
from pet.config import load_settings
from pet.errors import BrainUnavailable
from pet.events import (
    Completion,
    Message,
    Notice,
    Reply,
    TextDelta,
    ToolCall,
    ToolFinished,
    ToolSpec,
    ToolStarted,
)
from pet.persona.messages import say
from pet.tools.registry import Tool


def make_app(model, **settings):
    """These tests drive the model path, so reflexes are off unless asked for."""
    settings.setdefault("reflexes", False)
    return build(load_settings(settings), brain=model)


def run(app, text, conversation=None):
    conversation = conversation or app.current_conversation()
    return list(app.agent.run(conversation, text))


def streamed_text(events) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def tool_messages(recorded) -> list[Message]:
    return [m for m in recorded.messages if m.role == "tool"]


def test_tool_chain_runs_each_call_and_ends_with_text():
    model = ScriptedModel(
        [
            Completion("", (call("remember", content="codes after 11pm"),)),
            Completion("", (call("recall", query="codes"),)),
            "Noted: you code after 11pm!",
        ]
    )
    app = make_app(model)
    events = run(app, "remember that I code after 11pm")

    started = [e.call.name for e in events if isinstance(e, ToolStarted)]
    finished = [e.result for e in events if isinstance(e, ToolFinished)]
    assert started == ["remember", "recall"]
    assert all(r.ok for r in finished)
    assert "codes after 11pm" in finished[1].content  # recall saw what remember stored
    assert events[-1] == Reply("Noted: you code after 11pm!", message_id=events[-1].message_id)
    assert streamed_text(events) == "Noted: you code after 11pm!"
    # The model saw both tool results, wrapped as untrusted observations.
    observations = tool_messages(model.calls[2])
    assert len(observations) == 2
    assert all('trust="untrusted"' in m.content for m in observations)
    model.assert_complete()

    history = app.conversations.history(app.current_conversation())
    assert [m.message.role for m in history] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert history[1].message.tool_calls[0].arguments == {"content": "codes after 11pm"}


def test_invalid_arguments_go_back_to_the_model_which_corrects_itself():
    model = ScriptedModel(
        [
            Completion("", (call("calculate", expr="1+1"),)),  # wrong argument name
            Completion("", (call("calculate", expression="1+1"),)),
            "Two!",
        ]
    )
    app = make_app(model)
    events = run(app, "what is 1+1?")
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    assert [r.ok for r in results] == [False, True]
    first_feedback = tool_messages(model.calls[1])[0].content
    assert "Error: invalid arguments for calculate" in first_feedback
    assert "'expression'" in first_feedback
    assert results[1].content == "2"
    assert events[-1].text == "Two!"


def test_a_tool_nobody_offered_is_not_run_and_the_reply_is_asked_for_without_tools():
    # the 0.5B under a server named "tip_barista", "腿断了" and a catchphrase as tools
    model = ScriptedModel([Completion("", (call("launch_rockets", target="moon"),)), "Sorry, I can't."])
    app = make_app(model)
    events = run(app, "launch the rockets")
    assert not [e for e in events if isinstance(e, (ToolStarted, ToolFinished))]
    assert model.calls[0].tools and model.calls[1].tools == ()
    assert events[-1].text == "Sorry, I can't."


def test_an_offered_call_runs_beside_one_nobody_offered():
    model = ScriptedModel([Completion("", (call("alarm", at="7"), call("calculate", expression="6*7"))), "42!"])
    app = make_app(model)
    events = run(app, "what is 6*7?")
    assert [e.result.content for e in events if isinstance(e, ToolFinished)] == ["42"]
    assert events[-1].text == "42!"


@pytest.mark.real_encoder  # the router must read it as small talk, as the stand-in encoder need not
@pytest.mark.usefixtures("real_router")
def test_a_call_when_no_tool_was_offered_is_not_run_and_the_reply_is_asked_for_once_more():
    # small talk gets no tools (a server model's "likely chat"); the model calls one anyway
    model = ScriptedModel([Completion("", (call("get_current_time"),)), "Haha, you too!"])
    app = make_app(model, reflexes=True)
    events = run(app, "haha you're so funny")
    assert [c.tools for c in model.calls] == [(), ()]
    assert not [e for e in events if isinstance(e, (ToolStarted, ToolFinished))]
    assert events[-1].text == "Haha, you too!"


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
@pytest.mark.parametrize("text", ["ok forget it, its not important", "never mind", "forget it lol"])
def test_a_subject_dropped_with_nothing_asked_after_it_offers_no_tool(text):
    # round 34's served 0.5B called eleven tools on "ok forget it, its not important" (a todo "do something" added)
    model = ScriptedModel([Completion("", (call("add_todo", text="do something"),)), "Okay, dropped!"])
    app = make_app(model, reflexes=True)
    events = run(app, text)
    assert model.calls and all(c.tools == () for c in model.calls)
    assert not [e for e in events if isinstance(e, ToolFinished) and e.result.name == "add_todo"]


@pytest.mark.real_encoder
@pytest.mark.usefixtures("real_router")
def test_a_request_after_the_subject_is_dropped_still_gets_its_tool():
    model = ScriptedModel(["Done!"] * 3)
    app = make_app(model, reflexes=True)
    events = run(app, "forget it, remind me tomorrow at 5pm to call mom")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["set_reminder"]


def test_a_model_that_calls_made_up_tools_again_without_tools_gets_the_pets_own_line():
    made_up = Completion("", (call("腿断了"),))
    model = ScriptedModel([made_up, made_up])
    app = make_app(model)
    events = run(app, "我今天爬山腿都断了")
    assert len(model.calls) == 2
    assert not [e for e in events if isinstance(e, (ToolStarted, ToolFinished))]
    assert events[-1].text == say("off_script", "zh", app.persona)


@pytest.mark.parametrize("text, made_up", [
    # round 27's served 0.5B: the tools' own examples for a question about reminders, its schema as the
    # arguments, and a forget of "it"
    ("how do reminders even work on your end, like do u stay awake waiting?",
     (call("set_reminder", text="call mom", when="in 20 minutes"), call("add_todo", text="buy milk"))),
    ("todo lists are a scam, they just make me feel guilty",
     (call("get_current_time", type="object", properties={}, required=[]),)),
    ("forget it, not worth explaining", (call("forget", what="it"),)),
    ("你除了提醒还能干嘛 能设闹钟不", (call("set_reminder", text="给妈妈打电话", when="tomorrow at 9am"),)),
    # round 28's served 0.5B: a tool's own example in another language than the message; a schema's type alone
    ("刚才那个提醒响了，谢啦", (call("set_reminder", text="call mom", when="in 20 minutes"),)),
    ("my todo list is a mess lol", (call("list_todos", type="object"),)),
])
def test_a_call_with_arguments_nobody_gave_is_not_run(text, made_up):
    answer = "我会到点叫你！" if re.search("[\u4e00-\u9fff]", text) else "I just wait for the time, then ping you!"
    model = ScriptedModel([Completion("", made_up), answer])
    app = make_app(model)
    events = run(app, text)
    # (what the person says of themselves may be noted: not the model's call)
    assert not [e for e in events if isinstance(e, (ToolStarted, ToolFinished)) and (
        getattr(e, "call", None) or e.result).name != "note"]
    assert model.calls[1].tools == ()
    assert events[-1].text.endswith(answer)


@pytest.mark.parametrize("text, made", [
    # (a wait, not a clock time: "at 5pm" asked back "has passed — do you mean tomorrow?" when run after 17:00)
    ("remind me in two hours to call mom", call("set_reminder", text="call mom", when="in 2 hours")),
    # a fact told in Chinese may be kept in English
    ("我对花生过敏，记住", call("remember", content="allergic to peanuts")),
    ("我对花生过敏，记住", call("remember", content="对花生过敏")),
    # asked for in so many words: the model's own words for it stand (the review of 2026-12-05)
    # (tomorrow: "tonight at 9" has passed when the suite runs after 21:00)
    ("ugh i keep forgetting my pills, can you nudge me tomorrow night at 9",
     call("set_reminder", text="take medication", when="tomorrow night at 9")),
    ("我老是忘记吃药 明晚九点叫我一声", call("set_reminder", text="服药", when="明晚九点")),
])
def test_a_call_with_the_persons_words_runs(text, made):
    model = ScriptedModel([Completion("", (made,)), "好的！" if re.search("[\u4e00-\u9fff]", text) else "Done!"])
    app = make_app(model)
    events = run(app, text)
    # (what the person says of themselves may be noted besides: not the model's call)
    assert [e.result.ok for e in events if isinstance(e, ToolFinished) and e.result.name != "note"] == [True]


def test_tool_exception_becomes_a_result_not_a_crash():
    def explode() -> str:
        """Always fails."""
        raise RuntimeError("kaboom")

    model = ScriptedModel([Completion("", (call("explode"),)), "It broke."])
    app = make_app(model)
    app.tools.add(Tool.from_function(explode))
    events = run(app, "explode please")
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.content.startswith("Error: explode failed: RuntimeError: kaboom")
    assert events[-1].text == "It broke."


def test_turn_cap_stops_after_max_model_calls_with_an_in_character_fallback():
    counter = iter(range(100))
    model = ScriptedModel(
        [lambda _msgs: Completion("", (call("calculate", expression=f"{next(counter)}+1"),))],
        repeat_last=True,
    )
    app = make_app(model)
    events = run(app, "count up by one forever, how far can you get?")  # (a sum asked: the model's sums run)
    assert len(model.calls) == 8
    notices = [e for e in events if isinstance(e, Notice)]
    assert any("8 model calls" in n.text for n in notices)
    assert isinstance(events[-1], Reply) and "claws got tangled" in events[-1].text
    assert streamed_text(events).endswith(events[-1].text)


def test_same_call_three_times_stops_the_loop():
    model = ScriptedModel([Completion("", (call("get_current_time"),))], repeat_last=True)
    app = make_app(model, max_model_calls=8)
    events = run(app, "what time is it")
    assert len(model.calls) == 3
    assert model.calls[2].tools == ()  # after the repeat, one more chance without tools
    assert len([e for e in events if isinstance(e, ToolFinished)]) == 1  # the repeats were not run
    assert any("same tool call three times" in e.text for e in events if isinstance(e, Notice))
    assert "round in circles" in events[-1].text


class _KeepsOptions(ScriptedModel):
    """A scripted brain that says it can withhold tools and steer the reply's
    language, and keeps the options each call was given for them."""

    withholds_tools = True
    steers_language = True

    def __init__(self, answers):
        super().__init__(answers)
        self.options: list[dict] = []

    def stream(self, messages, tools=(), *, may_call=None, reply_language=None, **options):
        self.options.append({"may_call": may_call, "reply_language": reply_language})
        return super().stream(messages, tools, **options)


def test_a_brain_that_withholds_tools_is_shown_them_all_and_told_which_it_may_call():
    """The embedded brain keeps its cached prompt when a step may call no
    tool: every tool stays in view, and `may_call` says which can be called."""
    remember = call("remember", content="I like green tea")
    model = _KeepsOptions([Completion("", (remember,)), Completion("", (remember,)), "Noted, green tea it is!"])
    app = make_app(model, max_model_calls=8)
    run(app, "Remember that I like green tea.")
    every = tuple(spec.name for spec in app.agent.tools.specs())
    assert [tuple(t.name for t in c.tools) for c in model.calls] == [every] * 3
    # after the repeat: every tool in view, none to call
    assert [o["may_call"] for o in model.options] == [None, None, []]


@pytest.mark.parametrize("text, language", [("我有点累了", "zh"), ("I'm a bit tired", "en")])
def test_a_brain_that_steers_language_is_told_the_persons(text, language):
    model = _KeepsOptions(["辛苦啦，抱抱你。" if language == "zh" else "Aw, rest a little."])
    run(make_app(model), text)
    assert [o["reply_language"] for o in model.options] == [language]


def test_a_call_asked_for_again_is_not_run_twice_and_the_model_words_the_reply_without_tools():
    remember = call("remember", content="I like green tea")
    model = ScriptedModel([Completion("", (remember,)), Completion("", (remember,)), "Noted, green tea it is!"])
    app = make_app(model, max_model_calls=8)
    events = run(app, "Remember that I like green tea.")
    assert len([e for e in events if isinstance(e, ToolFinished)]) == 1
    assert [len(recorded.tools) > 0 for recorded in model.calls] == [True, True, False]
    assert not any(isinstance(e, Notice) for e in events)
    assert events[-1].text.endswith("Noted, green tea it is!")


def test_tool_call_written_as_text_is_parsed_and_not_shown():
    model = ScriptedModel(
        [
            'Let me work it out.\n```json\n{"name": "calculate", "arguments": {"expression": "35+8",}}\n```',
            "35 + 8 = 43",
        ]
    )
    app = make_app(model)
    events = run(app, "what is 35+8?")
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert result.content == "43"
    shown = streamed_text(events)
    assert "Let me work it out." in shown
    assert "{" not in shown and "```" not in shown
    assert events[-1].text == "35 + 8 = 43"


def test_react_action_lines_run_the_tool():
    model = ScriptedModel(['Action: recall\nAction Input: {"query": "tea"}', "I don't know about tea yet."])
    app = make_app(model)
    events = run(app, "what do you know about tea?")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["recall"]
    assert "Action" not in streamed_text(events)


def test_prose_with_braces_that_is_not_a_call_is_still_shown():
    model = ScriptedModel(["Here is a set: {1, 2, 3} — neat!"])
    app = make_app(model)
    events = run(app, "show me a set")
    assert streamed_text(events) == "Here is a set: {1, 2, 3} — neat!"
    assert not [e for e in events if isinstance(e, ToolStarted)]


def _barrier_tool(name: str, barrier: threading.Barrier, side_effect: bool) -> Tool:
    def wait_for_partner() -> str:
        """Meets another call at a barrier."""
        barrier.wait()
        return "met"

    return Tool.from_function(wait_for_partner, name=name, side_effect=side_effect)


def test_side_effect_free_calls_run_in_parallel():
    barrier = threading.Barrier(2, timeout=5)
    model = ScriptedModel([Completion("", (call("meet_a"), call("meet_b"))), "Both met."])
    app = make_app(model)
    app.tools.add(_barrier_tool("meet_a", barrier, side_effect=False))
    app.tools.add(_barrier_tool("meet_b", barrier, side_effect=False))
    events = run(app, "meet")
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    assert [r.content for r in results] == ["met", "met"]  # only possible if both ran at once


def test_side_effect_calls_run_one_after_another():
    order: list[str] = []
    lock = threading.Lock()
    active = []

    def make(name: str) -> Tool:
        def step() -> str:
            """Records that it ran."""
            with lock:
                active.append(name)
                overlap = len(active) > 1
            order.append(name)
            with lock:
                active.remove(name)
            return "overlap" if overlap else "alone"

        return Tool.from_function(step, name=name, side_effect=True)

    model = ScriptedModel([Completion("", (call("first"), call("second"))), "Done."])
    app = make_app(model)
    app.tools.add(make("first"))
    app.tools.add(make("second"))
    events = run(app, "do both")
    assert order == ["first", "second"]
    assert [e.result.content for e in events if isinstance(e, ToolFinished)] == ["alone", "alone"]


class BreaksMidStream:
    """A model whose stream dies after some text."""

    label = "breaks"

    def stream(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), **_) -> Iterator:
        yield TextDelta("I was about to say ")
        yield TextDelta("something ")
        raise BrainUnavailable("No model server answers at http://127.0.0.1:9 — start Ollama")

    def complete(self, *a, **k):
        raise NotImplementedError


def test_server_dying_mid_stream_keeps_and_marks_the_partial_reply():
    app = make_app(BreaksMidStream())
    conversation = app.current_conversation()
    events = run(app, "tell me a story", conversation)
    notice = next(e for e in events if isinstance(e, Notice))
    assert notice.level == "error" and "start Ollama" in notice.text
    assert events[-1] == Reply("I was about to say something", partial=True, message_id=events[-1].message_id)
    stored = app.conversations.history(conversation)
    assert (stored[-1].message.content, stored[-1].status) == ("I was about to say something", "partial")
    assert stored[-2].message.content == "tell me a story"


def test_brain_down_before_any_text_gives_an_in_character_notice():
    model = ScriptedModel([BrainUnavailable("No model server answers at http://127.0.0.1:9")])
    app = make_app(model)
    events = run(app, "hello")
    assert any(isinstance(e, Notice) and e.level == "error" for e in events)
    assert events[-1].partial and "brain isn't answering" in events[-1].text
    # The person's message is kept, and so is the failure's line, so a reloaded chat shows it.
    stored = app.conversations.history(app.current_conversation())
    assert [(m.message.content, m.status) for m in stored] == [("hello", "ok"), (events[-1].text, "partial")]


def test_empty_model_reply_is_noticed():
    app = make_app(ScriptedModel([""]))
    events = run(app, "hello")
    assert any(isinstance(e, Notice) and "empty reply" in e.text for e in events)
    assert "nothing came out" in events[-1].text


def test_garbage_from_the_model_is_shown_as_text_not_a_crash():
    garbage = "}{][ \x00 ```\n{{{{"
    app = make_app(ScriptedModel([garbage]))
    events = run(app, "hello")
    assert isinstance(events[-1], Reply)
    assert events[-1].text == garbage.strip()


def test_empty_message_is_refused_without_calling_the_model():
    model = ScriptedModel([])
    app = make_app(model)
    for text in ["", "   \n\t", "\x00\x01"]:
        events = run(app, text)
        # no words to tell the language by: the pet's first language (小钳: Chinese)
        assert events == [Notice("消息是空的，写点什么再发吧。", "warning")]
    assert model.calls == []


def test_huge_message_is_saved_but_not_sent():
    model = ScriptedModel([])
    app = make_app(model)
    text = "长" * 200_000
    events = run(app, text)
    assert len(events) == 1 and "200,000 个字符" in events[0].text and "16,000" in events[0].text
    assert model.calls == []
    stored = app.conversations.history(app.current_conversation())
    assert stored[0].message.content == text and stored[0].status == "rejected"
    # A rejected message never reaches the model in later turns either.
    model.enqueue("hi")
    run(app, "hello")
    assert all(m.content != text for m in model.calls[0].messages)


def test_control_characters_and_lone_surrogates_are_cleaned():
    model = ScriptedModel(["ok"])
    app = make_app(model)
    run(app, "hi\x00 there\ud800!\x1b[31m")
    sent = model.calls[0].messages[-1].content
    assert sent == "hi there?![31m"
    assert app.conversations.history(app.current_conversation())[0].message.content == sent


def test_remembered_fact_reaches_the_prompt_of_a_new_conversation_after_restart(pet_home):
    first = make_app(ScriptedModel([Completion("", (call("remember", content="codes after 11pm"),)), "Got it!"]))
    run(first, "remember that I code after 11pm")
    first.close()

    model = ScriptedModel(["Night owl!"])
    second = make_app(model)  # same PET_HOME: a restart
    fresh = second.new_conversation()
    run(second, "what do I do at night?", fresh)
    system = model.calls[0].messages[0]
    assert system.role == "system" and "codes after 11pm" in system.content
    # The new conversation does not carry the old one's messages.
    assert [m.role for m in model.calls[0].messages] == ["system", "user"]


def test_one_turn_at_a_time_per_conversation_and_parallel_across_conversations():
    entered = threading.Event()
    release = threading.Event()
    calls_in_flight = []

    def slow(_messages):
        calls_in_flight.append(1)
        entered.set()
        assert release.wait(5)
        return "done"

    model = ScriptedModel([slow, "second", "third"])
    app = make_app(model)
    conversation = app.current_conversation()
    other = app.new_conversation()

    first_turn = threading.Thread(target=run, args=(app, "one", conversation))
    first_turn.start()
    assert entered.wait(5)
    same = threading.Thread(target=run, args=(app, "two", conversation))
    same.start()
    same.join(timeout=0.3)
    assert same.is_alive()  # blocked behind the first turn of its conversation
    # Another conversation is not blocked.
    assert run(app, "three", other)[-1].text == "second"
    release.set()
    first_turn.join(5)
    same.join(5)
    assert not same.is_alive()
    assert [m.message.content for m in app.conversations.history(conversation) if m.message.role == "assistant"] == [
        "done",
        "third",
    ]


def test_scripted_model_fails_when_called_past_its_script():
    model = ScriptedModel(["only one"])
    app = make_app(model)
    run(app, "one")
    with pytest.raises(ScriptExhausted):
        run(app, "two")


def test_native_call_with_unreadable_arguments_is_answered_with_the_error():
    broken = ToolCall("remember", {}, error="could not read the arguments: {content: ")
    model = ScriptedModel([Completion("", (broken,)), "Oops."])
    app = make_app(model)
    events = run(app, "remember this")
    result = next(e.result for e in events if isinstance(e, ToolFinished))
    assert not result.ok and "could not read the arguments" in result.content
    assert app.memories.count(app.pet.id) == 0


def test_qwen_style_tool_call_tags_with_several_calls_and_string_arguments():
    text = (
        '<tool_call>{"name": "calculate", "arguments": "{\\"expression\\": \\"6*7\\"}"}</tool_call>\n'
        "<tool_call>{'name': 'get_current_time', 'arguments': {}}</tool_call>"
    )
    model = ScriptedModel([text, "42, and it's morning."])
    app = make_app(model)
    events = run(app, "what is 6*7 and what time is it?")
    results = {e.result.name: e.result for e in events if isinstance(e, ToolFinished)}
    assert results["calculate"].content == "42" and results["get_current_time"].ok
    assert "<tool_call>" not in streamed_text(events)
    # Both results went back to the model, in call order.
    assert [m.name for m in tool_messages(model.calls[1])] == ["calculate", "get_current_time"]


def test_json_in_the_prose_of_a_constrained_brain_is_not_a_call():
    model = ScriptedModel(['Like this: {"tool": "NAME", "arguments": {}}'])
    model.constrained_tool_calls = True  # as the embedded brain: calls come only through its grammar
    app = make_app(model)
    events = run(app, "show me some json")
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert streamed_text(events) == 'Like this: {"tool": "NAME", "arguments": {}}'


def test_two_calls_with_one_id_each_get_their_own_result():
    model = ScriptedModel([
        Completion("", (ToolCall("calculate", {"expression": "2+3"}, id="call_0"),
                        ToolCall("calculate", {"expression": "10*4"}, id="call_0"))),
        "5 and 40",
    ])
    app = make_app(model)
    events = run(app, "what are 2+3 and 10*4?")
    results = sorted(e.result.content for e in events if isinstance(e, ToolFinished))
    assert len(results) == 2 and "5" in results[0] + results[1] and "40" in results[0] + results[1]
    sent = [m for m in model.calls[-1].messages if m.role == "tool"]
    assert len({m.tool_call_id for m in sent}) == 2  # the model can tell the answers apart


class _Warmable(ScriptedModel):
    reuses_prompt_prefix = True

    def __init__(self):
        super().__init__()
        self.warmed: list[tuple[list[Message], list[str]]] = []

    def warm(self, messages, tools=(), stable=0):
        self.warmed.append((list(messages), [t.name for t in tools]))
        return 42


def _fixed_clock(text="2026-12-03T06:40:00+00:00"):
    moment = dt.datetime.fromisoformat(text)
    return lambda: moment


def make_fixed_app(model, **settings):
    """make_app at one fixed minute: a note read ahead stays the turn's own."""
    settings.setdefault("reflexes", False)
    return build(load_settings(settings), brain=model, clock=_fixed_clock())


def test_warming_hands_the_brain_the_prompt_up_to_where_a_new_message_begins():
    model = _Warmable()
    app = make_app(model)
    conversation = app.current_conversation()
    app.conversations.append(conversation, Message("user", "I like oolong"))
    app.conversations.append(conversation, Message("assistant", "Oolong is lovely!"))
    assert app.agent.warm(conversation) == 42
    (messages, tools), = model.warmed
    assert [m.role for m in messages] == ["system", "system", "user", "assistant", "system"]
    assert messages[-2].content == "Oolong is lovely!"
    assert "remember" in tools
    # the turn's note comes last, as for a message in the language last spoken, no memory fitting
    assert messages[-1].content.startswith("Now it is") and messages[-1].content.endswith("Reply in English.")
    assert all("Now it is" not in m.content for m in messages[:-1])
    # the days together change daily: after the stable part (kept on disk), before the history
    assert "lived with" not in messages[0].content and messages[1].content.startswith("You have lived with")


@pytest.mark.parametrize("said, asked", [("I like oolong", "what should I drink today"), ("我喜欢乌龙茶", "今天喝点什么好")])
def test_the_warmed_prompt_is_the_next_turns_own_in_the_language_last_spoken(said, asked):
    model = _Warmable()
    model.enqueue("Tea, of course!" if said.isascii() else "喝茶呀！")
    app = make_fixed_app(model)
    conversation = app.current_conversation()
    app.conversations.append(conversation, Message("user", said))
    app.conversations.append(conversation, Message("assistant", "Lovely!"))
    app.agent.warm(conversation)
    (warmed, _), = model.warmed
    run(app, asked, conversation)
    sent = model.calls[-1].messages
    # all of it, the note too: only the message is left to read
    assert [m.content for m in sent[:-1]] == [m.content for m in warmed]
    assert sent[-1].content == asked


def test_a_message_in_the_other_language_or_a_later_minute_changes_only_the_note():
    model = _Warmable()
    model.enqueue("Tea, of course!")
    model.enqueue("喝茶呀！")
    now = [dt.datetime.fromisoformat("2026-12-03T06:40:00+00:00")]
    app = build(load_settings({"reflexes": False}), brain=model, clock=lambda: now[0])
    conversation = app.current_conversation()
    app.conversations.append(conversation, Message("user", "I like oolong"))
    app.conversations.append(conversation, Message("assistant", "Lovely!"))
    app.agent.warm(conversation)
    (warmed, _), = model.warmed
    now[0] += dt.timedelta(minutes=7)
    run(app, "今天喝点什么好", conversation)
    sent = model.calls[-1].messages
    assert [m.content for m in sent[:len(warmed) - 1]] == [m.content for m in warmed[:-1]]
    assert "06:47" in sent[-2].content and "Simplified Chinese" in sent[-2].content
    assert "06:40" in warmed[-1].content and warmed[-1].content.endswith("Reply in English.")


def test_one_warmed_prefix_serves_a_message_in_either_language():
    model = _Warmable()
    model.enqueue("喝茶呀！")
    model.enqueue("Tea, of course!")
    app = make_app(model)  # the default pet speaks Chinese and English
    conversation = app.current_conversation()
    app.agent.warm(conversation)
    run(app, "今天喝点什么好", conversation)
    run(app, "what should I drink today?", conversation)
    warmed = model.warmed[0][0]
    chinese, english = (call.messages for call in model.calls[-2:])
    assert [m.content for m in chinese[:len(warmed) - 1]] == [m.content for m in warmed[:-1]]
    # a change of language changes nothing before the conversation: the cache keeps it all
    assert english[0].content == chinese[0].content
    # only the turn's own note at the end names the language to reply in
    assert "Simplified Chinese" in chinese[-2].content and english[-2].content.endswith("Reply in English.")


def test_after_each_reply_the_brain_reads_ahead_up_to_the_next_message():
    model = _Warmable()
    model.enqueue("喝茶呀！")
    model.enqueue("好呀，再泡一壶！")
    app = make_fixed_app(model)
    conversation = app.current_conversation()
    run(app, "今天喝点什么好", conversation)
    assert app.agent.locks.wait_idle(10)
    (ahead, _), = model.warmed  # the reply is out: the next turn's start is read while the person writes
    assert [m.role for m in ahead][-3:] == ["user", "assistant", "system"] and ahead[-2].content == "喝茶呀！"
    assert "Simplified Chinese" in ahead[-1].content  # the language last spoken
    run(app, "再来一杯？", conversation)
    chinese = model.calls[-1].messages
    assert [m.content for m in chinese[:-1]] == [m.content for m in ahead]
    assert chinese[-1].content == "再来一杯？"


def test_a_brain_without_a_prefix_cache_is_not_warmed():
    app = make_app(ScriptedModel())
    assert app.agent.warm(app.current_conversation()) == 0


def test_a_reply_ends_after_its_sentences_and_the_rest_is_not_generated():
    pieces: list[str] = []

    class Talkative(ScriptedModel):
        def stream(self, messages, tools=(), **kwargs):
            self.calls.append(None)
            for word in "Oh no. Poor you. Rest now. Tea helps. Here is a list: 1. tea 2. soup".split(" "):
                pieces.append(word)
                yield TextDelta(word + " ")
            yield Completion(text="never reached")

    app = make_app(Talkative(), reply_sentences=4)
    events = run(app, "I'm so tired")
    reply = next(e for e in events if isinstance(e, Reply))
    assert reply.text == "Oh no. Poor you. Rest now. Tea helps."
    assert streamed_text(events).strip() == reply.text
    assert pieces[-1] == "Here"  # the stream was closed at the fifth sentence's first word


def test_a_server_brain_may_run_on_and_the_embedded_brain_is_kept_brief():
    model = ScriptedModel(["One. Two. Three. Four. Five. Six."])
    app = make_app(model)  # a brain given by the caller, like a server model: no limit by default
    reply = next(e for e in run(app, "count for me") if isinstance(e, Reply))
    assert reply.text == "One. Two. Three. Four. Five. Six."

    assert reply_sentences(load_settings({}), "embedded") == 4
    assert reply_sentences(load_settings({}), "server") == 0
    assert reply_sentences(load_settings({"reply_sentences": 0}), "embedded") == 0
    assert reply_sentences(load_settings({"reply_sentences": 2}), "server") == 2


def test_a_chinese_reply_is_written_in_simplified_characters_as_it_streams_and_as_it_is_kept():
    model = ScriptedModel(["乌龍茶真好喝，鈴鐺響了！"])
    app = make_app(model)
    conversation = app.current_conversation()
    events = run(app, "今天喝什么茶好呢", conversation)
    reply = [e for e in events if isinstance(e, Reply)][-1].text
    assert streamed_text(events).endswith("乌龙茶真好喝，铃铛响了！") and reply.endswith("乌龙茶真好喝，铃铛响了！")
    stored = app.conversations.history(conversation)[-1].message.content
    assert stored == reply
    # a reply in English is left as the model wrote it, a Chinese name in it too
    model.enqueue("My favourite tea is 烏龍 oolong!")
    events = run(app, "what tea do you like?", conversation)
    assert [e for e in events if isinstance(e, Reply)][-1].text.endswith("My favourite tea is 烏龍 oolong!")


def test_simplified_characters_one_at_a_time_read_the_same_in_pieces_as_whole():
    from pet.text import simplified_chars

    text = "然後給我講一個小龍蝦的故事，好嗎？ OK!"
    assert simplified_chars(text) == "然后给我讲一个小龙虾的故事，好吗？ OK!"
    assert "".join(simplified_chars(text[i:i + 3]) for i in range(0, len(text), 3)) == simplified_chars(text)
    assert simplified_chars("plain English") == "plain English"


@pytest.mark.parametrize("text", ["what's 2+2? jk i know lol", "1+1等于几？开玩笑的啦哈哈"])
def test_a_message_that_takes_itself_back_runs_no_tool(text):
    # the model answers the sum anyway: no figure check runs the calculator behind it
    answer = "哈哈，1+1等于2！" if "开玩笑" in text else "Ha, 2 + 2 is 4, you got me!"
    model = ScriptedModel([answer])
    app = make_app(model, reflexes=True)
    events = run(app, text)
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert [e for e in events if isinstance(e, Reply)][-1].text.endswith(answer)
    assert model.calls[-1].tools == ()  # nothing it could call either


@pytest.mark.parametrize("text", ["remind me at 5pm to call mom, no kidding", "I'm not kidding, remind me at 5pm",
                                  "明天早上八点提醒我开会，我不是开玩笑的"])
def test_a_request_that_insists_is_not_taken_back(text):
    from pet.tools.facts import retracted

    assert not retracted(text)


@pytest.mark.parametrize("text, taken_back", [
    ("remind me at 7pm to water the plants... actually no, I'll do it now", True),
    ("what's 19 times 23 lol jk i can do that myself", True),
    ("帮我算一下45乘以6？开个玩笑，我心算就行", True),
    ("三百乘四……算了不用算了，心算出来了", True),  # (round 50's spent set computed it)
    ("三百乘四等于多少……算了不用算了，心算出来了", True),
    ("我小学数学老考零分，算了，心算这种东西我天生不行", False),  # news, no sum (the review)
    ("set an alarm for 6am, nah never mind", True),
    ("提醒我周五交报告，算了，不用了", True),
    ("提醒我周五交报告，算了，改成周四吧", False),  # a correction asks again
    ("remind me at 5pm, actually no, make it 6pm", False),
    ("remind me at 7 to feed the cat... actually no, 8pm", False),  # a new value
    ("记住我妹妹叫小红，算了，她叫小美", False),
    ("remember that I never mind spicy food", False),  # the words inside the fact
    ("remind me to tell Sam never mind about the party", False),
    ("算了，帮我定个明早7点的闹钟", False),  # a dismissal that opens a new request
    ("never mind, what time is it?", False),
    ("帮我记一下……哎算了，也没什么重要的", True),  # a sigh first, then a remark that it does not matter
    ("remind me to call the bank... ugh, never mind, not important", True),
    ("记一下我的车牌……唉算了，是沪A12345", False),  # after the sigh, the value itself
    ("帮我记住……哎算了，没啥好记的", True),
    # news played down is not taken back (its facts may still be noted)
    ("my cat died last week. ugh, never mind, it's not important", False),
    ("我今天被老板骂了，唉算了，没啥大不了", False),
    ("我今天加班到很晚，唉算了，没啥大不了", False),  # 加班 asks nothing
    ("你还记得我吗……唉算了，没什么重要的", False),
    # after a request, any short remark that asks nothing new (round 14's spent set: all six were run)
    ("set a reminder for tomorrow 8am to phone the vet. wait, scratch that, they're open now", True),
    ("remember that i hate jazz... kidding kidding, ignore me", True),
    ("what's 913 divided by 7... eh nvm, doesn't matter", True),
    ("明天早上7点提醒我晨跑，哎还是不用了，反正起不来", True),
    ("帮我记住我讨厌香菜——骗你的，我超爱香菜", True),
    ("456乘以23是……哎不用算了，无所谓", True),
    ("add milk to my list, never mind, add eggs instead", False),  # a new request
    ("remind me to water the plants... nvm, make it the cactus only", False),
    # round 17's spent set: two sighs, several takings-back in a row, a question taken back, "don't need one"
    ("remember my locker is B7... oh wait scratch that, they're moving us anyway", True),
    ("18乘18等于多少？算了不用算了，就随便问问", True),
    ("现在几点了……哦不用了，我看到手机了", True),
    ("what time does it say— oh never mind, found my phone", True),
    ("can you set alarms? just wondering, don't need one now", True),
    ("后天早上六点提醒我去游泳……算了，还是不用了", True),
    ("帮我记一下我的柜子号是C-12……哦不对，先别记了", True),
    # round 20's spent set
    ("can you set a reminder for tomorrow at 10am to— eh no, scrap that, I'll sort it out tonight", True),
    ("scrap that idea, my boss hated it", False),
    ("九十九乘以九十九……算了不算了", True),  # round 18's spent set
    ("my phone broke, I don't need one anyway", False),  # news, no request
    # found by a review: news after a dropped question, "don't need it" after news, 还是 with a new value
    ("I quit smoking, don't need it", False),
    ("What time do you wake up? Never mind, my sister moved in with me", False),
    ("现在几点了？算了，我妈住院了", False),
    ("帮我加个买牛奶，算了，还是买豆浆吧", False),
    ("提醒我周五交报告，算了，还是改成周四吧", False),  # 还是 then a new value
    # round 21's spent set: "forget it", "skip it", "wait no", "ugh no", a bare 不用, 算了吧
    ("what's 15% of 80... eh forget it, doesn't matter", True),
    ("save this: my new pin is... wait no, I shouldn't tell anyone that. skip it", True),
    ("add laundry to my list. ugh no, I'm literally doing it right now anyway", True),
    ("帮我记一下我新手机号……算了不用，反正我自己背得住", True),
    ("待办里加个“洗车”……算了吧，明天要下雨", True),
    ("remind me to call mom. oh no, I forgot her birthday", False),  # dismay, not a taking-back
    ("remind me at 7... wait no, 8pm", False),
    ("记住我妹妹叫小红，算了吧，她叫小美", False),
    ("帮我记一下：不用加糖", False),  # 不用 inside the fact
    # found by a review: "forget it" after news, a correction after "wait no" / "skip that" / 不用, dismay after news
    ("my ex's number, forget it", False),
    ("remind me to call the vet tuesday at 10am. wait no, wednesday", False),
    ("add milk to my shopping list. wait no, oat milk", False),
    ("remember that Tom's birthday is in June. skip that, it's July", False),
    ("提醒我周五下午3点交报告，不用，下周一", False),
    ("My flight got cancelled. Ugh no, I'm going to miss the wedding", False),
    ("I failed my driving test today. forget it, I'll try again next month", False),
    # round 22's spent set: the request said not to be made is no new one; there is still some, so no need
    ("remember my locker code is 3391. wait no, scratch that, don't save it", True),
    ("add oat milk to my list — nah forget it, there's still half a carton", True),
    ("帮我把牛奶加到清单……算了，家里还有", True),
    ("remember my code is 3391. scratch that, save 3392 instead", False),
    ("remind me at 4pm. scratch that, remind me at 5pm", False),
    # a new request after the taking-back (review)
    ("记一下我明天要去银行……算了，不要记，提醒我明天去银行", False),
    ("帮我记一下车位号……算了，别记这个，帮我加个待办：找物业问车位", False),
    ("remind me to buy milk tonight at 8pm. nah forget it, i still need to add eggs to my list", False),
    ("can you remember that i... actually forget it, not important", True),  # round 23's spent set
    # round 24's spent set (after its measurement): "don't bother", a joke with a number after it, 不对, 哈哈
    ("whats 17 times 23... wait dont bother i got it", True),
    ("add milk to my todo list. jk we have like 3 cartons", True),
    ("明早八点提醒我……啊不对，我自己定了闹钟，不用你了", True),
    ("算下三十七乘六十八，哈哈逗你的，我已经算出来了", True),
    ("加个待办：减肥。哈哈开玩笑的，谁要减", True),
    ("提醒我明早8点开会，不对不对，是9点", False),  # 不对 then a new value corrects
    # round 25's spent set: "but never mind" (the model then remembered "BBQ is yummy, I'll remember it.")
    ("i was gonna ask u to remind me about the bbq but never mind, i'll remember", True),
    ("remind me to water the plants but nvm, i just did", True),
])
def test_a_request_taken_back_with_a_remark_after_it(text, taken_back):
    from pet.tools.facts import retracted

    assert retracted(text) is taken_back


def test_kidding_inside_a_request_does_not_take_it_back():
    app = make_app(ScriptedModel(["unused"]), reflexes=True)
    events = run(app, "no kidding, what's 12 times 4?")
    assert [e.call.name for e in events if isinstance(e, ToolStarted)] == ["calculate"]


def test_a_reply_that_fails_its_checks_after_a_tool_answered_gives_way_to_the_result():
    # the spent round 16 tools set: the small model called the calculator, then said it saw no output
    model = ScriptedModel([
        Completion("", (ToolCall("calculate", {"expression": "(3.6)^2 + 7"}, id="call_0"),)),
        "抱歉，我没有看到工具的输出。你可以输入“19.96”来获取结果。",
    ], repeat_last=True)
    app = make_app(model, greeting=False)
    events = run(app, "3.6的平方加7等于多少，帮我calculate一下")
    assert streamed_text(events) == "19.96"
    assert len(model.calls) == 3  # the reply, and one retry with a correction


@pytest.mark.parametrize("text", ["remind me at 5pm to nap, just kidding", "帮我记一下我的车位是B1-208 哎呀 不对 不用记 当我没说"])
def test_a_request_taken_back_is_let_go_in_the_pets_own_words(text):
    # tried on the page (2026-12-05): the small model's answers to a taken-back request failed their checks, and the
    # stand-in "一时没想好怎么接……" followed; the model is not asked
    model = ScriptedModel([])
    app = make_app(model, reflexes=True)
    events = run(app, text)
    language = "zh" if re.search("[\u4e00-\u9fff]", text) else "en"
    assert not [e for e in events if isinstance(e, ToolStarted)] and not model.calls
    assert events[-1].text.endswith(say("taken_back", language, app.persona))


@pytest.mark.parametrize("text, claim", [
    ("1+1等于几？开玩笑的啦", "好的，记下了！"),
    ("what time is it? jk", "Done, reminder set for 5pm!"),
])
def test_a_question_taken_back_that_the_model_claims_done_gets_a_plain_never_mind(text, claim):
    # a question taken back still goes to the model (a request taken back does not); tried on the page (2026-12-05):
    # the claim guard's aside "（其实我还没记下来。说“记住……”我就记。）" answered a taking-back as if the person still
    # wanted it kept
    model = ScriptedModel([claim, claim])
    app = make_app(model, reflexes=True)
    events = run(app, text)
    language = "zh" if re.search("[\u4e00-\u9fff]", text) else "en"
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert events[-1].text == say("taken_back", language, app.persona)


def test_a_reply_is_kept_though_the_page_stops_listening_as_it_is_sent():
    # used as a person would (2026-12-05): the page left during a long first turn, and the pet's line, decided while
    # nobody listened, was never stored, so the reloaded chat showed the message unanswered
    app = make_app(ScriptedModel(["As an AI language model, I cannot do that.",
                                  "As an AI language model, I cannot do that."]))
    conversation = app.current_conversation()
    events = app.agent.run(conversation, "hi there")
    for event in events:
        if isinstance(event, TextDelta) and "first day" not in event.text:  # (not the greeting of the first day)
            events.close()  # the page goes away as the pet's line arrives
            break
    else:
        raise AssertionError("the pet's line never came")
    stored = [m.message for m in app.conversations.history(conversation) if m.message.role == "assistant"]
    assert stored and stored[-1].content.strip()


def test_ok_forgotten_to_a_message_that_lets_its_talk_go_gets_no_lesson_in_forgetting():
    # used as a person would (2026-12-05): "(Actually, I haven't forgotten anything yet. Say "forget …" and I will.)"
    # answered "thinking of getting a scooter... nah the hills would kill me, forget it"
    app = make_app(ScriptedModel(["Okay, I forgot it!", "Okay, I forgot it!"]))
    events = run(app, "thinking of getting a scooter... nah the hills would kill me, forget it")
    assert isinstance(events[-1], Reply) and events[-1].text.endswith("Okay, I forgot it!")
    assert "haven't forgotten" not in events[-1].text


def test_a_request_to_forget_before_forget_it_still_has_its_claim_checked():
    # the review of 2026-12-05: "…please don't remember him anymore. forget it" got "Okay, I've forgotten it!" with the
    # memory still kept
    app = make_app(ScriptedModel(["Okay, I've forgotten it!", "Okay, I've forgotten it!"]))
    app.memories.remember(app.pet.id, "my ex is called Tom")
    events = run(app, "Tom and I broke up, please don't remember him anymore. forget it")
    assert not events[-1].text.endswith("Okay, I've forgotten it!")
