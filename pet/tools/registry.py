"""Tools are plain functions. Their type hints become a JSON schema, their
docstring the description; `execute` validates arguments and never raises.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, get_args, get_origin

from pet.errors import ToolError
from pet.events import ToolCall, ToolResult, ToolSpec

log = logging.getLogger(__name__)

MAX_RESULT_CHARS = 4000
CONTEXT_PARAM = "ctx"  # a parameter of this name receives the ToolContext


@dataclass(frozen=True)
class ToolContext:
    """Who is asking: passed to tools that declare a `ctx` parameter."""

    pet_id: int
    conversation_id: int
    message_id: int | None = None
    #: the language of the person's message ("zh" or "en"), for wording results
    language: str = "en"
    #: the person's own words: this message and their recent ones (provenance of memories)
    person_words: str = ""
    #: the message this turn answers ("forget it, never mind" must not delete a memory)
    message: str = ""
    #: what tools that read outside content (Tool.reads_outside: files, notes,
    #: programs) returned in this conversation lately; the agent appends as
    #: tools finish (provenance of memories, confirmation of side effects)
    tool_output: list[str] = field(default_factory=list)
    #: facts the person stated in this message that were noted already (pet.agent.capture)
    noted: list[str] = field(default_factory=list)


_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema_for(annotation: Any) -> tuple[dict[str, Any], bool]:
    """JSON schema of a type hint, and whether None is allowed."""
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        schema, _ = _schema_for(members[0]) if len(members) == 1 else ({}, False)
        return schema, len(members) != len(get_args(annotation))
    if origin is Literal:
        values = list(get_args(annotation))
        return {"type": _JSON_TYPES[type(values[0])], "enum": values}, False
    if origin in (list, tuple, set) or annotation in (list, tuple, set):
        args = get_args(annotation)
        items = _schema_for(args[0])[0] if args else {}
        return {"type": "array", "items": items}, False
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}, False
    raise TypeError(f"tool parameter type {annotation!r} has no JSON schema; use str, int, float, bool, list or Literal")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The description (text before "Args:") and each argument's line."""
    doc = inspect.cleandoc(doc or "")
    head, _, args_block = doc.partition("\nArgs:")
    descriptions: dict[str, str] = {}
    current = None
    for line in args_block.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            break  # the next section (Returns:, Raises:, ...)
        match = re.match(r"(\w+)\s*(?:\([^)]*\))?:\s*(.*)", line.strip())
        if match and not line.startswith(" " * 6):
            current = match.group(1)
            descriptions[current] = match.group(2)
        elif current:
            descriptions[current] += " " + line.strip()
    return " ".join(head.split()), descriptions


@dataclass(frozen=True)
class Label:
    """How the chat names a tool's step, per language: while it runs and
    once it is done, e.g. en=("remembering", "remembered")."""

    en: tuple[str, str]
    zh: tuple[str, str]

    @classmethod
    def plain(cls, name: str) -> "Label":
        """For a tool that declares none (a plugin)."""
        return cls(en=(f"using {name}", f"used {name}"), zh=(f"正在用 {name}", f"用过 {name}"))

    def text(self, language: str, done: bool) -> str:
        doing_done = self.zh if language == "zh" else self.en
        return doing_done[1] if done else doing_done[0]


@dataclass(frozen=True)
class Tool:
    """A tool and everything the program says or checks about it."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]
    #: it changes something (a memory, a reminder, a file): never run in
    #: parallel, and may wait for the person's /yes
    side_effect: bool = False
    wants_context: bool = False
    #: its output may carry words from outside (a file, a note, a program):
    #: while such output is in view, side-effect calls wait for the person's
    #: /yes. False only for tools whose output the pet writes itself.
    reads_outside: bool = True
    #: its step in the chat; None: Label.plain(name), "using <name>"
    label: Label | None = None
    #: the action a reply may claim once a call of it succeeded (one of
    #: pet.agent.guards.CLAIMS: "remember", "forget", "set_reminder", "add_todo")
    claim: str | None = None

    @classmethod
    def from_function(
        cls, function: Callable[..., Any], *, name: str | None = None, side_effect: bool = False,
        reads_outside: bool = True, label: Label | None = None, claim: str | None = None,
    ) -> "Tool":
        hints = typing.get_type_hints(function)
        description, arg_docs = _parse_docstring(function.__doc__ or "")
        if not description:
            raise ValueError(f"tool {function.__name__} needs a docstring: it is the model's description")
        properties: dict[str, Any] = {}
        required: list[str] = []
        wants_context = False
        for param in inspect.signature(function).parameters.values():
            if param.name == CONTEXT_PARAM:
                wants_context = True
                continue
            schema, nullable = _schema_for(hints.get(param.name, str))
            if param.name in arg_docs:
                schema["description"] = arg_docs[param.name]
            if param.default is inspect.Parameter.empty and not nullable:
                required.append(param.name)
            elif param.default is not inspect.Parameter.empty and param.default is not None:
                schema["default"] = param.default
            properties[param.name] = schema
        parameters = {"type": "object", "properties": properties, "required": required}
        return cls(
            name=name or function.__name__,
            description=description,
            parameters=parameters,
            function=function,
            side_effect=side_effect,
            wants_context=wants_context,
            reads_outside=reads_outside,
            label=label,
            claim=claim,
        )

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.parameters, self.side_effect)


class ArgumentProblem(ValueError):
    pass


def _coerce(value: Any, schema: dict[str, Any], path: str) -> Any:
    """Check `value` against a schema, converting obvious near-misses that
    small models make ("3" for 3, "true" for true, 5 for "5")."""
    kind = schema.get("type")
    if kind == "string":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            raise ArgumentProblem(f"'{path}' should be a string, got {json.dumps(value, ensure_ascii=False)}")
    elif kind in ("integer", "number"):
        if isinstance(value, str):
            try:
                value = float(value.strip()) if kind == "number" or "." in value else int(value.strip())
            except ValueError:
                raise ArgumentProblem(f"'{path}' should be a {kind}, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ArgumentProblem(f"'{path}' should be a {kind}, got {json.dumps(value, ensure_ascii=False)}")
        if kind == "integer":
            if isinstance(value, float) and not value.is_integer():
                raise ArgumentProblem(f"'{path}' should be a whole number, got {value}")
            value = int(value)
    elif kind == "boolean":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            value = value.strip().lower() == "true"
        if not isinstance(value, bool):
            raise ArgumentProblem(f"'{path}' should be true or false, got {json.dumps(value, ensure_ascii=False)}")
    elif kind == "array":
        if not isinstance(value, list):
            raise ArgumentProblem(f"'{path}' should be a list, got {json.dumps(value, ensure_ascii=False)}")
        value = [_coerce(item, schema.get("items", {}), f"{path}[{i}]") for i, item in enumerate(value)]
    if "enum" in schema and value not in schema["enum"]:
        raise ArgumentProblem(f"'{path}' must be one of {schema['enum']}, got {value!r}")
    return value


def validate_arguments(tool: Tool, arguments: Any) -> dict[str, Any]:
    if not isinstance(arguments, dict):
        raise ArgumentProblem(f"arguments must be a JSON object, got {type(arguments).__name__}")
    properties = tool.parameters["properties"]
    missing = [name for name in tool.parameters["required"] if arguments.get(name) is None]
    if missing:
        raise ArgumentProblem("missing required argument " + ", ".join(f"'{name}'" for name in missing))
    clean: dict[str, Any] = {}
    for name, value in arguments.items():
        if name not in properties:
            # Small models invent extra arguments; dropping them beats failing the call.
            log.info("tool %s: ignoring unknown argument %r", tool.name, name)
            continue
        if value is None:
            continue
        clean[name] = _coerce(value, properties[name], name)
    return clean


def _render(value: Any) -> str:
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"… [cut: {len(text) - MAX_RESULT_CHARS} more characters]"
    return text


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()):
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def register(
        self, function: Callable[..., Any], *, side_effect: bool = False, name: str | None = None,
        label: Label | None = None, claim: str | None = None,
    ) -> Tool:
        return self.add(Tool.from_function(function, side_effect=side_effect, name=name, label=label, claim=claim))

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    def label(self, name: str) -> Label:
        """How the chat names this tool's step (a tool that declares none, or
        is no longer registered, by its name)."""
        tool = self._tools.get(name)
        return tool.label if tool is not None and tool.label is not None else Label.plain(name)

    def reads_outside(self, name: str | None) -> bool:
        """Whether this tool's output may carry outside words (unknown tools: yes)."""
        tool = self._tools.get(name or "")
        return tool is None or tool.reads_outside

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [tool.spec for tool in self._tools.values()]

    def execute(self, call: ToolCall, context: ToolContext | None = None) -> ToolResult:
        """Run one call. Every failure becomes a result starting with "Error:"."""

        def error(text: str) -> ToolResult:
            return ToolResult(call.id, call.name, ok=False, content=_render(f"Error: {text}"))

        tool = self._tools.get(call.name)
        if tool is None:
            return error(f"there is no tool named {call.name!r}. Available tools: {', '.join(self._tools)}.")
        if call.error:
            return error(f"{call.error}. Call {tool.name} again with JSON arguments matching its schema.")
        try:
            arguments = validate_arguments(tool, call.arguments)
        except ArgumentProblem as exc:
            schema = json.dumps(tool.parameters, ensure_ascii=False)
            return error(f"invalid arguments for {tool.name}: {exc}. Its parameters: {schema}")
        if tool.wants_context:
            if context is None:
                return error(f"{tool.name} needs a conversation and none was given")
            arguments[CONTEXT_PARAM] = context
        try:
            value = tool.function(**arguments)
        except ToolError as exc:
            return error(exc.worded(context.language if context is not None else "en"))
        except Exception as exc:  # a tool bug must not end the turn
            log.exception("tool %s raised", tool.name)
            return error(f"{tool.name} failed: {type(exc).__name__}: {exc}")
        return ToolResult(call.id, call.name, ok=True, content=_render(value))
