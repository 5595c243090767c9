"""Prompts are rendered with the model's own chat template (read from the
GGUF), tools and tool calls in its native format, and the native call is
read back."""

from __future__ import annotations

import pytest

from pet.brain import ladder
from pet.brain.chat_template import ChatTemplate, TemplateRenderError, format_call, parse_call
from pet.brain.gguf import read_gguf_info
from pet.events import Message, ToolCall, ToolSpec

REMEMBER = ToolSpec(
    name="remember",
    description="记住一件关于主人的事 <fact>",
    parameters={"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
)


@pytest.fixture(scope="module")
def qwen() -> ChatTemplate:
    """Qwen2.5's template, from the header in the small model's first part."""
    first = ladder.part_file(ladder.SMALL.parts[0])
    if first is None:
        pytest.skip(f"the small model is not installed: {ladder.SMALL.install}")
    source = read_gguf_info(first).chat_template
    assert source and "<tool_call>" in source
    return ChatTemplate(source)


def test_qwen_renders_a_call_and_its_result_as_the_model_was_trained(qwen):
    assert qwen.abilities.tools and qwen.abilities.tool_calls and qwen.abilities.tool_results
    call = ToolCall(name="remember", arguments={"content": "猫叫Tom"})
    prompt = qwen.render(
        [
            Message("system", "你是小钳。"),
            Message("user", "记住：我的猫叫Tom"),
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", "已记住 #1", tool_call_id=call.id, name="remember"),
        ],
        [REMEMBER],
    )
    assert prompt == (
        "<|im_start|>system\n你是小钳。\n\n# Tools\n\n"
        "You may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
        '{"type": "function", "function": {"name": "remember", "description": "记住一件关于主人的事 <fact>", '
        '"parameters": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}}}\n'
        "</tools>\n\nFor each function call, return a json object with function name and arguments within "
        "<tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
        "<|im_start|>user\n记住：我的猫叫Tom<|im_end|>\n"
        '<|im_start|>assistant\n<tool_call>\n{"name": "remember", "arguments": {"content": "猫叫Tom"}}\n'
        "</tool_call><|im_end|>\n"
        "<|im_start|>user\n<tool_response>\n已记住 #1\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_a_later_system_message_stays_in_place(qwen):
    assert qwen.abilities.late_system
    messages = [Message("system", "A."), Message("user", "hi"), Message("assistant", "hello"),
                Message("system", "Now 20:01."), Message("user", "and now?")]
    assert qwen.render(messages) == (
        "<|im_start|>system\nA.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
        "<|im_start|>assistant\nhello<|im_end|>\n<|im_start|>system\nNow 20:01.<|im_end|>\n"
        "<|im_start|>user\nand now?<|im_end|>\n<|im_start|>assistant\n"
    )


def test_on_the_first_turn_the_volatile_part_still_follows_the_tools(qwen):
    # the first turn's prompt must be a prefix of the second's up to the history
    first = qwen.render([Message("system", "A."), Message("system", "Now 20:00."), Message("user", "hi")], [REMEMBER])
    second = qwen.render([Message("system", "A."), Message("user", "hi"), Message("assistant", "hello"),
                          Message("system", "Now 20:01."), Message("user", "and now?")], [REMEMBER])
    shared = first.index("<|im_start|>system\nNow 20:00.")
    assert first[:shared] == second[:shared] and first[:shared].endswith("</tool_call><|im_end|>\n")


def test_a_template_that_refuses_a_late_system_message_gets_it_in_the_first():
    strict = ChatTemplate(
        "{% for m in messages %}{% if m.role == 'system' and not loop.first %}"
        "{{ raise_exception('System role only first') }}{% endif %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"
    )
    assert not strict.abilities.late_system
    assert strict.render([Message("system", "A."), Message("user", "hi"), Message("system", "B."),
                          Message("user", "yo")]) == "[system] A.\n\nB.\n[user] hi\n[user] yo\n"


def test_the_call_the_pet_writes_is_the_call_the_template_writes(qwen):
    call = ToolCall(name="remember", arguments={"content": "猫叫Tom"})
    prompt = qwen.render([Message("user", "x"), Message("assistant", "", tool_calls=(call,))],
                         add_generation_prompt=False)
    assert f"<|im_start|>assistant\n{format_call(call)}<|im_end|>" in prompt


def test_a_native_call_is_read_with_or_without_its_tags():
    for text in (
        '<tool_call>\n{"name": "remember", "arguments": {"content": "猫叫Tom"}}\n</tool_call>',
        '{"name": "remember", "arguments": {"content": "猫叫Tom"}}',
        '<tool_call>{"name": "remember", "arguments": "{\\"content\\": \\"猫叫Tom\\"}"}</tool_call>',
    ):
        call = parse_call(text)
        assert (call.name, call.arguments, call.error) == ("remember", {"content": "猫叫Tom"}, None), text


def test_a_broken_call_carries_an_error_the_model_can_read():
    call = parse_call('<tool_call>\n{"name": "remember", "arguments": {"content": "cat is')
    assert call.name == "remember" and "not valid JSON" in (call.error or "")
    assert parse_call('{"arguments": {}}').error
    assert parse_call('{"name": "remember", "arguments": [1]}').error


def test_a_template_runs_sandboxed():
    with pytest.raises(TemplateRenderError):
        ChatTemplate("{{ ''.__class__.__mro__[1].__subclasses__() }}").render([Message("user", "hi")])


def test_a_model_without_a_template_gets_chatml():
    template = ChatTemplate(None)
    assert not template.from_model
    assert template.render([Message("system", "S"), Message("user", "hi")]) == (
        "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )
