"""The server brain: any OpenAI-compatible chat server (Ollama, llama.cpp, vLLM...).

This is the only module that imports `openai`. It turns our messages and tool
specs into the wire format, reads plain and streamed answers back into
`Completion`s, and turns the SDK's exceptions into `pet.errors` with messages
that say what to do.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import openai

from pet.brain.probe import no_server_message
from pet.errors import BrainError, BrainResponseError, BrainTimeout, BrainUnavailable, ModelNotFound
from pet.events import Completion, Message, StreamPart, TextDelta, ToolCall, ToolSpec, Usage, new_call_id

DEFAULT_API_KEY = "not-needed"  # local servers ignore it, the SDK insists on one
DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_READ_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
_EXCERPT_CHARS = 200


# --- our types -> wire format -------------------------------------------------


def to_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Our `Message`s as chat-completions `messages`."""
    wire: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.role == "assistant" and message.tool_calls:
            item["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(call.arguments, ensure_ascii=False),
                    },
                }
                for call in message.tool_calls
            ]
        if message.role == "tool":
            item["tool_call_id"] = message.tool_call_id
        elif message.name and message.role in ("system", "user"):
            item["name"] = message.name
        wire.append(item)
    return wire


def to_wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Our `ToolSpec`s as chat-completions `tools`."""
    return [
        {
            "type": "function",
            "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters},
        }
        for spec in tools
    ]


# --- wire format -> our types -------------------------------------------------


def read_tool_call(name: str, arguments: object, call_id: str | None) -> ToolCall:
    """A `ToolCall` from the wire; unreadable arguments become `error`, not an exception."""
    call_id = call_id or new_call_id()
    if not name:
        return ToolCall(name="", id=call_id, error="the tool call has no tool name")
    if isinstance(arguments, dict):  # a few servers send an object, not a JSON string
        return ToolCall(name=name, arguments=arguments, id=call_id)
    text = arguments if isinstance(arguments, str) else ""
    if not text.strip():
        return ToolCall(name=name, arguments={}, id=call_id)
    try:
        value = json.loads(text)
    except ValueError:
        from pet.brain.parse import JSONRepairError, repair_json

        try:
            value = repair_json(text)
        except JSONRepairError as err:
            return ToolCall(name=name, id=call_id, error=f"could not read the arguments: {err}")
    if not isinstance(value, dict):
        error = f"could not read the arguments: expected a JSON object, got {text[:80]!r}"
        return ToolCall(name=name, id=call_id, error=error)
    return ToolCall(name=name, arguments=value, id=call_id)


def _read_usage(usage: object) -> Usage | None:
    if usage is None:
        return None
    return Usage(
        prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
        completion_tokens=getattr(usage, "completion_tokens", None) or 0,
    )


@dataclass
class _ToolCallParts:
    """One tool call as its streamed fragments arrive."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def add(self, delta: object) -> None:
        call_id = getattr(delta, "id", None)
        if call_id and not self.id:
            self.id = call_id
        function = getattr(delta, "function", None)
        name = getattr(function, "name", None)
        # Most servers send the name once; some repeat it in every chunk.
        if name and name != self.name:
            self.name += name
        arguments = getattr(function, "arguments", None)
        if isinstance(arguments, str):
            self.arguments.append(arguments)
        elif isinstance(arguments, dict):
            self.arguments.append(json.dumps(arguments))

    def finish(self) -> ToolCall:
        return read_tool_call(self.name, "".join(self.arguments), self.id)


# --- the model ----------------------------------------------------------------


class OpenAIChatModel:
    """A `ChatModel` backed by an OpenAI-compatible HTTP server."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = DEFAULT_API_KEY,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        *,
        stream_usage: bool = True,
        tool_choice: str | dict[str, Any] | None = None,
        max_reply_tokens: int | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key or DEFAULT_API_KEY
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.retries = retries
        # Ollama, llama.cpp, vLLM and LM Studio accept `stream_options`;
        # switch it off for a server that rejects unknown fields.
        self.stream_usage = stream_usage
        # Sent only with tools. llama-cpp-python's server ignores `tools` unless
        # `tool_choice` names one function, which it then forces with a grammar.
        self.tool_choice = tool_choice
        # Used when a call names no max_tokens: some servers otherwise generate
        # until the context is full (llama.cpp's server did, for 20-50 s).
        self.max_reply_tokens = max_reply_tokens
        self.label = f"server: {model}"
        self._client: openai.OpenAI | None = None
        self._client_lock = threading.Lock()

    def _get_client(self) -> openai.OpenAI:
        with self._client_lock:
            if self._client is None:
                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self.api_key,
                    # httpx2.Timeout, re-exported by openai: the first value is
                    # the default for read/write/pool, `connect` overrides it.
                    timeout=openai.Timeout(self.read_timeout, connect=self.connect_timeout),
                    # We retry ourselves (`_create`): the SDK would also retry
                    # read timeouts, so one hung server cost 3 × read_timeout.
                    max_retries=0,
                )
            return self._client

    def _create(self, request: dict[str, Any]) -> Any:
        """One chat-completions call, retried on transient failures (refused
        connection, 408/409/429, 5xx) with backoff; never on a read timeout."""
        client = self._get_client()
        for attempt in range(self.retries + 1):
            try:
                return client.chat.completions.create(**request)
            except openai.APITimeoutError:
                raise  # a slow server does not get faster by being asked again
            except (openai.APIConnectionError, openai.APIStatusError) as err:
                if attempt == self.retries or not _transient(err):
                    raise
                time.sleep(_retry_delay(err, attempt))
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Release the HTTP connections (the model stays usable; a new client is made on demand)."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int | None,
        temperature: float | None,
        stream: bool,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": to_wire_messages(messages)}
        if tools:
            request["tools"] = to_wire_tools(tools)
            if self.tool_choice is not None:
                request["tool_choice"] = self.tool_choice
        max_tokens = max_tokens if max_tokens is not None else self.max_reply_tokens
        if max_tokens is not None:
            # `max_tokens`, not `max_completion_tokens`: local servers know the old name.
            request["max_tokens"] = max_tokens
        if temperature is not None:
            request["temperature"] = temperature
        if stream:
            request["stream"] = True
            if self.stream_usage:
                request["stream_options"] = {"include_usage": True}
        return request

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        request = self._request(messages, tools, max_tokens, temperature, stream=False)
        try:
            response = self._create(request)
        except (openai.OpenAIError, ValueError) as err:
            raise self._translate(err) from err
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise BrainResponseError(
                f"The model server at {self.base_url} answered without a chat completion: "
                f"{_excerpt(str(response))!r} — is this an OpenAI-compatible server?"
            )
        choice = choices[0]
        message = getattr(choice, "message", None)
        calls = tuple(
            read_tool_call(
                getattr(getattr(call, "function", None), "name", None) or "",
                getattr(getattr(call, "function", None), "arguments", None),
                getattr(call, "id", None),
            )
            for call in (getattr(message, "tool_calls", None) or ())
        )
        return Completion(
            text=getattr(message, "content", None) or "",
            tool_calls=calls,
            finish_reason=getattr(choice, "finish_reason", None) or "stop",
            usage=_read_usage(getattr(response, "usage", None)),
        )

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[StreamPart]:
        request = self._request(messages, tools, max_tokens, temperature, stream=True)
        try:
            chunks = self._create(request)
        except (openai.OpenAIError, ValueError) as err:
            raise self._translate(err) from err
        if not isinstance(chunks, openai.Stream):
            raise BrainResponseError(
                f"The model server at {self.base_url} did not stream its answer — "
                "is this an OpenAI-compatible server? Check the address."
            )

        text: list[str] = []
        calls: dict[int, _ToolCallParts] = {}
        finish_reason: str | None = None
        usage: Usage | None = None
        seen_chunk = False
        try:
            for chunk in chunks:
                seen_chunk = True
                usage = _read_usage(getattr(chunk, "usage", None)) or usage
                # The usage chunk has no choices; garbage may have none either.
                for choice in (getattr(chunk, "choices", None) or [])[:1]:
                    finish_reason = getattr(choice, "finish_reason", None) or finish_reason
                    delta = getattr(choice, "delta", None)
                    content = getattr(delta, "content", None)
                    if content:
                        text.append(content)
                        yield TextDelta(content)
                    for position, call_delta in enumerate(getattr(delta, "tool_calls", None) or ()):
                        index = getattr(call_delta, "index", None)
                        key = position if index is None else index
                        calls.setdefault(key, _ToolCallParts()).add(call_delta)
        except (openai.OpenAIError, ValueError) as err:
            raise self._translate(err, mid_stream=True) from err
        finally:
            chunks.close()

        if not seen_chunk:
            raise BrainResponseError(
                f"The model server at {self.base_url} sent an empty stream — "
                "is this an OpenAI-compatible server? Check the address."
            )
        if finish_reason is None:
            raise BrainUnavailable(
                f"The model server at {self.base_url} stopped in the middle of the answer. "
                "Try again; if it keeps happening, check the server's log."
            )
        yield Completion(
            text="".join(text),
            tool_calls=tuple(parts.finish() for _, parts in sorted(calls.items())),
            finish_reason=finish_reason,
            usage=usage,
        )

    # --- errors -----------------------------------------------------------

    def _translate(self, err: Exception, *, mid_stream: bool = False) -> BrainError:
        """The `pet.errors` exception for an SDK (or decoding) failure."""
        where = f"The model server at {self.base_url}"
        if isinstance(err, openai.APITimeoutError):  # before APIConnectionError: it is a subclass
            return BrainTimeout(
                f"{where} did not answer within {self.read_timeout:g} s — the model may be loading "
                "or too big; raise read_timeout or pick a smaller model"
            )
        if isinstance(err, openai.APIConnectionError):
            if mid_stream:
                return BrainUnavailable(
                    f"{where} dropped the connection in the middle of the answer. "
                    "Try again; if it keeps happening, check the server's log."
                )
            return BrainUnavailable(no_server_message(self.base_url))
        if isinstance(err, openai.APIStatusError):
            return self._translate_status(err)
        if isinstance(err, openai.APIError):  # an error event inside the stream
            return BrainResponseError(f"{where} reported an error: {_excerpt(err.message)}")
        if isinstance(err, ValueError):  # a body or chunk that is not JSON
            return BrainResponseError(
                f"{where} answered with something that is not JSON — is this an OpenAI-compatible "
                "server? Check the address."
            )
        return BrainResponseError(f"{where} could not be used: {_excerpt(str(err))}")

    def _translate_status(self, err: openai.APIStatusError) -> BrainError:
        status = err.status_code
        body = _response_text(err)
        where = f"The model server at {self.base_url}"
        if status == 404:
            if "model" in body.lower() or "model" in err.message.lower():
                return ModelNotFound(
                    f"The server has no model '{self.model}' — run `ollama pull {self.model}` or set --model"
                )
            return BrainResponseError(
                f"{where} has no chat endpoint (404) — check the address; "
                "OpenAI-compatible servers usually end in /v1"
            )
        if status in (401, 403):
            return BrainResponseError(
                f"{where} refused the api key ({status}) — set the key the server expects "
                "(local Ollama and llama.cpp servers need none)"
            )
        return BrainResponseError(f"{where} answered {status}: {_excerpt(body) or '(empty body)'}")


def _transient(err: Exception) -> bool:
    if isinstance(err, openai.APIStatusError):
        return err.status_code in (408, 409, 429) or err.status_code >= 500
    return isinstance(err, openai.APIConnectionError)


MAX_RETRY_WAIT = 8.0


def _retry_delay(err: Exception, attempt: int) -> float:
    """The server's Retry-After when it gives one (capped), else 0.5 s doubling."""
    response = getattr(err, "response", None)
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except (TypeError, ValueError):
            continue
        if 0 <= value <= MAX_RETRY_WAIT:
            return value
    return min(MAX_RETRY_WAIT, 0.5 * 2**attempt)


def _response_text(err: openai.APIStatusError) -> str:
    try:
        return err.response.text
    except Exception:  # a streamed body that can no longer be read
        return err.message


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 1] + "…"
