"""Prompts rendered with the model's own chat template, and its tool-call format.

A GGUF file carries the Jinja template its model was trained with
(`tokenizer.chat_template`). We render it as Hugging Face and llama.cpp do:
sandboxed, `trim_blocks`/`lstrip_blocks`, a `tojson` that writes Unicode as
is (Jinja's own escapes HTML), messages as OpenAI-style dicts and tools as
`{"type": "function", "function": {...}}`.

A template may not know tools. What it cannot render we add in the one
format the pet asks of every embedded model, Hermes/Qwen's:

    <tool_call>
    {"name": "remember", "arguments": {"content": "..."}}
    </tool_call>

so that a model without a tools section still sees its tools, its calls and
their results.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jinja2 import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from pet.events import Message, ToolCall, ToolSpec

CALL_OPEN = "<tool_call>"
CALL_CLOSE = "</tool_call>"

#: for a GGUF that carries no template: plain ChatML, llama.cpp's own default
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

#: added to the system message when the template has no tools section
TOOLS_FALLBACK_HEADING = "You can use these tools:"
TOOLS_FALLBACK_RULE = (
    "To use one, answer with only the call, as\n"
    f'{CALL_OPEN}\n{{"name": "NAME", "arguments": {{...}}}}\n{CALL_CLOSE}\n'
    "Use a tool only when the person asks for what it does; otherwise answer in plain text."
)

_PROBE = "pet_probe_8c1e"


class TemplateRenderError(ValueError):
    """The chat template failed on these messages."""


def _tojson(value: Any, indent: int | None = None, separators: Any = None, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)


def _raise(message: str) -> None:
    raise TemplateError(message)


def tool_json(tool: ToolSpec) -> dict[str, Any]:
    """A tool as chat templates (and OpenAI) expect it."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


def format_call(call: ToolCall) -> str:
    """A call in the pet's native format (the one Qwen's template writes)."""
    body = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
    return f"{CALL_OPEN}\n{body}\n{CALL_CLOSE}"


def parse_call(text: str) -> ToolCall:
    """Read `<tool_call>{"name": …, "arguments": …}</tool_call>` (the tags may
    be missing). Broken JSON becomes a call carrying `error`, for the model to
    see and correct."""
    body = text.strip()
    body = body.removeprefix(CALL_OPEN).strip()
    body = body.removesuffix(CALL_CLOSE).strip()
    try:
        data = json.loads(body, strict=False)  # the grammar lets raw newlines into strings
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise TypeError('expected {"name": NAME, "arguments": {...}}')
        arguments = data.get("arguments", {})
        if isinstance(arguments, str):  # some models send the arguments as a JSON string
            arguments = json.loads(arguments)
        if not isinstance(arguments, dict):
            raise TypeError("arguments must be a JSON object")
        return ToolCall(name=data["name"], arguments=arguments)
    except (ValueError, TypeError) as exc:
        match = re.search(r'"name"\s*:\s*"([^"]*)"', body)
        return ToolCall(
            name=match.group(1) if match else "unknown",
            error=f"The tool call was not valid JSON ({exc}): {body[:200]}",
        )


def _describe_tool(tool: ToolSpec) -> str:
    """One tool in a line or few: `- name(arg: type, opt?: type): what it does`.
    A model never trained on tool schemas reads this better than JSON, and
    it costs a third of the tokens."""
    props: dict[str, Any] = tool.parameters.get("properties", {}) or {}
    required = set(tool.parameters.get("required", []) or [])
    params = []
    for pname, pschema in props.items():
        ptype = pschema.get("type", "any") if isinstance(pschema, dict) else "any"
        params.append(f"{pname}{'' if pname in required else '?'}: {ptype}")
    line = f"- {tool.name}({', '.join(params)}): {tool.description.strip()}"
    for pname, pschema in props.items():
        if isinstance(pschema, dict) and pschema.get("description"):
            line += f"\n    {pname}: {pschema['description']}"
    return line


def describe_tools(tools: Sequence[ToolSpec]) -> str:
    """The tools section for a template that has none."""
    return "\n".join([TOOLS_FALLBACK_HEADING, *(_describe_tool(t) for t in tools), TOOLS_FALLBACK_RULE])


@dataclass(frozen=True)
class TemplateAbilities:
    """What the template renders itself; the rest the renderer adds."""

    tools: bool
    tool_calls: bool
    tool_results: bool
    #: a system message after the first turns is rendered where it stands
    late_system: bool


class ChatTemplate:
    """One model's chat template, compiled once."""

    def __init__(self, source: str | None, *, bos_token: str = "", eos_token: str = ""):
        self.source = source or CHATML
        self.from_model = bool(source)
        env = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
        )
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise
        # Some templates print today's date; the pet's own prompt says the time.
        env.globals["strftime_now"] = lambda fmt: dt.datetime.now().strftime(fmt)
        try:
            self._template = env.from_string(self.source)
        except TemplateError as exc:
            raise TemplateRenderError(f"the model's chat template does not compile: {exc}") from exc
        self._specials = {"bos_token": bos_token, "eos_token": eos_token}
        self.abilities = self._probe()

    def _raw(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, prompt: bool) -> str:
        try:
            return self._template.render(
                messages=messages, tools=tools, add_generation_prompt=prompt, **self._specials
            )
        except TemplateError as exc:
            raise TemplateRenderError(f"the model's chat template failed: {exc}") from exc

    def _probe(self) -> TemplateAbilities:
        user = {"role": "user", "content": "hi"}
        probe_tool = tool_json(ToolSpec(_PROBE, "probe", {"type": "object", "properties": {}}))
        call = {"id": "c1", "type": "function", "function": {"name": _PROBE, "arguments": {}}}

        def shows(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> bool:
            try:
                return _PROBE in self._raw(messages, tools, False)
            except TemplateRenderError:
                return False

        return TemplateAbilities(
            tools=shows([user], [probe_tool]),
            tool_calls=shows([user, {"role": "assistant", "content": "", "tool_calls": [call]}]),
            tool_results=shows([user, {"role": "assistant", "content": "", "tool_calls": [call]},
                                {"role": "tool", "content": _PROBE, "tool_call_id": "c1", "name": "x"}]),
            late_system=shows([{"role": "system", "content": "s"}, user, {"role": "assistant", "content": "a"},
                               {"role": "system", "content": _PROBE}, user]),
        )

    def render(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
               add_generation_prompt: bool = True) -> str:
        """The prompt text for `messages`, ending where the assistant's answer
        begins. A system message after the first (the volatile end of the
        pet's prompt, placed late so that the cached prefix stays long, even
        when no history stands between them) stays where it is when the
        template renders it there; otherwise it joins the first."""
        able = self.abilities
        lead = 1 if messages and messages[0].role == "system" else 0
        late = [m for m in messages[lead:] if m.role == "system"]
        first = [m.content for m in messages[:lead]] + ([] if able.late_system else [m.content for m in late])
        system = "\n\n".join(first)
        if tools and not able.tools:
            system = f"{system}\n\n{describe_tools(tools)}" if system else describe_tools(tools)
        names_by_id = {c.id: c.name for m in messages for c in m.tool_calls}
        dicts: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        for message in messages[lead:]:
            if message.role != "system":
                dicts.append(_as_dict(message, able, names_by_id))
            elif able.late_system:
                dicts.append({"role": "system", "content": message.content})
        tool_dicts = [tool_json(t) for t in tools] if tools and able.tools else None
        return self._raw(dicts, tool_dicts, add_generation_prompt)


def _as_dict(message: Message, able: TemplateAbilities, names_by_id: dict[str, str]) -> dict[str, Any]:
    if message.role == "assistant" and message.tool_calls:
        if not able.tool_calls:
            calls = "\n".join(format_call(c) for c in message.tool_calls)
            return {"role": "assistant", "content": f"{message.content}\n{calls}".strip()}
        return {
            "role": "assistant",
            "content": message.content,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in message.tool_calls
            ],
        }
    if message.role == "tool":
        name = message.name or names_by_id.get(message.tool_call_id or "", "the tool")
        if not able.tool_results:
            return {"role": "user", "content": f"Result of {name}: {message.content}"}
        return {"role": "tool", "content": message.content, "tool_call_id": message.tool_call_id, "name": name}
    return {"role": message.role, "content": message.content}
