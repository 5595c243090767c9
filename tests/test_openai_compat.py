"""The server brain against a real HTTP server speaking the OpenAI protocol."""

from __future__ import annotations

import socket
import time

import pytest
from fakeserver import (
    BadChunk,
    DieMidStream,
    FakeOpenAIServer,
    Garbage,
    Hang,
    ModelMissing,
    Status,
    Text,
    ToolCalls,
)

from pet.brain.base import ChatModel
from pet.brain.openai_compat import OpenAIChatModel
from pet.brain.probe import server_answers, server_models
from pet.errors import BrainError, BrainResponseError, BrainTimeout, BrainUnavailable, ModelNotFound
from pet.events import Completion, Message, TextDelta, ToolCall, ToolSpec, Usage

WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather in a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
HELLO = [Message("system", "You are a cat."), Message("user", "Hi!")]


@pytest.fixture
def server():
    with FakeOpenAIServer() as fake:
        yield fake


_made: list[OpenAIChatModel] = []


@pytest.fixture(autouse=True)
def close_models():
    """A model keeps its HTTP connection to the server open: closed with the test."""
    yield
    while _made:
        _made.pop().close()


def make_model(base_url: str, **options) -> OpenAIChatModel:
    # Retries cost back-off time; only the retry tests ask for them.
    options.setdefault("retries", 0)
    model = OpenAIChatModel(base_url, "fake-model", **options)
    _made.append(model)
    return model


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def drain(parts) -> tuple[list[str], BaseException | None]:
    """The text deltas of a stream and the exception that ended it, if any."""
    deltas: list[str] = []
    try:
        for part in parts:
            if isinstance(part, TextDelta):
                deltas.append(part.text)
    except BrainError as err:
        return deltas, err
    return deltas, None


# --- answers ------------------------------------------------------------------


def test_is_a_chat_model_with_a_label_and_no_network_until_used(server):
    model = make_model(server.base_url)
    assert isinstance(model, ChatModel)
    assert model.label == "server: fake-model"
    assert server.hits == 0


def test_complete_returns_text_and_usage(server):
    server.enqueue(Text("Meow, hello!"))
    completion = make_model(server.base_url).complete(HELLO)
    assert completion == Completion("Meow, hello!", finish_reason="stop", usage=Usage(7, 5))
    assert server.requests[0]["model"] == "fake-model"
    assert "stream" not in server.requests[0]


def test_stream_yields_deltas_in_order_then_one_completion(server):
    server.enqueue(Text("Purr purr, I am here.", pieces=("Purr", " purr,", " I am", " here.")))
    parts = list(make_model(server.base_url).stream(HELLO))
    assert parts[:-1] == [TextDelta("Purr"), TextDelta(" purr,"), TextDelta(" I am"), TextDelta(" here.")]
    final = parts[-1]
    assert isinstance(final, Completion)
    assert final.text == "Purr purr, I am here."
    assert final.usage == Usage(7, 5)
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["stream_options"] == {"include_usage": True}


def test_streamed_tool_calls_with_fragmented_arguments_are_assembled(server):
    server.enqueue(
        ToolCalls(
            ("get_weather", '{"city": "Paris", "unit": "celsius"}', "call_a"),
            ("get_weather", '{"city": "東京"}', "call_b"),
            arg_pieces=4,
        )
    )
    final = list(make_model(server.base_url).stream(HELLO, [WEATHER]))[-1]
    assert final.tool_calls == (
        ToolCall("get_weather", {"city": "Paris", "unit": "celsius"}, "call_a"),
        ToolCall("get_weather", {"city": "東京"}, "call_b"),
    )
    assert final.finish_reason == "tool_calls"
    assert final.text == ""


def test_complete_reads_native_tool_calls(server):
    server.enqueue(ToolCalls(("get_weather", '{"city": "Oslo"}', "call_x")))
    completion = make_model(server.base_url).complete(HELLO, [WEATHER])
    assert completion.tool_calls == (ToolCall("get_weather", {"city": "Oslo"}, "call_x"),)
    assert completion.finish_reason == "tool_calls"


def test_arguments_that_are_not_an_object_become_a_tool_call_error(server):
    server.enqueue(ToolCalls(("get_weather", '["Oslo"]', "call_x")))
    (call,) = make_model(server.base_url).complete(HELLO, [WEATHER]).tool_calls
    assert call.name == "get_weather" and call.id == "call_x"
    assert call.error is not None and call.error.startswith("could not read the arguments")


def test_unreadable_arguments_become_a_tool_call_error(server):
    pytest.importorskip("pet.brain.parse")
    server.enqueue(ToolCalls(("get_weather", "city is Oslo, I think", "call_x")))
    (call,) = list(make_model(server.base_url).stream(HELLO, [WEATHER]))[-1].tool_calls
    assert call.arguments == {}
    assert call.error is not None and call.error.startswith("could not read the arguments")


# --- what goes over the wire ---------------------------------------------------


def test_messages_and_tools_are_sent_in_the_wire_format(server):
    server.enqueue(Text("It is sunny."))
    call = ToolCall("get_weather", {"city": "Paris"}, "call_1")
    history = [
        Message("system", "You are a cat."),
        Message("user", "Weather in Paris?"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "sunny, 21 °C", tool_call_id="call_1", name="get_weather"),
    ]
    make_model(server.base_url).complete(history, [WEATHER], max_tokens=50, temperature=0.2)

    sent = server.requests[0]
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant", "tool"]
    function = {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert sent["messages"][2]["tool_calls"] == [{"id": "call_1", "type": "function", "function": function}]
    assert sent["messages"][3] == {"role": "tool", "content": "sunny, 21 °C", "tool_call_id": "call_1"}
    function = {"name": "get_weather", "description": WEATHER.description, "parameters": WEATHER.parameters}
    assert sent["tools"] == [{"type": "function", "function": function}]
    assert sent["max_tokens"] == 50 and sent["temperature"] == 0.2


def test_no_tools_key_when_there_are_no_tools(server):
    server.enqueue(Text("Hi."))
    make_model(server.base_url).complete(HELLO)
    assert "tools" not in server.requests[0]


# --- failures -----------------------------------------------------------------


def test_server_errors_are_retried_until_success(server):
    server.enqueue(Status(500), Status(503), Text("Back again."))
    completion = make_model(server.base_url, retries=2).complete(HELLO)
    assert completion.text == "Back again."
    assert server.hits == 3


def test_a_server_error_that_persists_is_raised_after_every_attempt(server):
    server.default = Status(500, "the GPU caught fire")
    with pytest.raises(BrainResponseError, match="500") as caught:
        make_model(server.base_url, retries=2).complete(HELLO)
    assert "the GPU caught fire" in str(caught.value)
    assert server.hits == 3


def test_a_hanging_server_times_out(server):
    server.enqueue(Hang(seconds=10))
    model = make_model(server.base_url, read_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(BrainTimeout, match="did not answer within 0.5 s"):
        model.complete(HELLO)
    assert time.monotonic() - started < 3


def test_a_timeout_is_not_retried_so_a_hung_server_costs_one_read_timeout(server):
    server.default = Hang(seconds=10)
    model = make_model(server.base_url, read_timeout=0.5, retries=2)
    with pytest.raises(BrainTimeout):
        model.complete(HELLO)
    assert server.hits == 1


def test_a_refused_connection_is_retried():
    url = closed_port_url()
    model = make_model(url, retries=1)
    started = time.monotonic()
    with pytest.raises(BrainUnavailable):
        model.complete(HELLO)
    assert time.monotonic() - started >= 0.5  # one back-off wait happened


@pytest.mark.parametrize("method", ["complete", "stream"])
def test_no_server_is_unavailable_and_says_where_and_what_to_do(method):
    url = closed_port_url()
    model = make_model(url)
    with pytest.raises(BrainUnavailable) as caught:
        if method == "complete":
            model.complete(HELLO)
        else:
            list(model.stream(HELLO))
    assert url in str(caught.value)
    assert "ollama serve" in str(caught.value)


def test_a_stream_that_dies_keeps_its_deltas_then_raises(server):
    server.enqueue(DieMidStream(pieces=("Once ", "upon ")))
    deltas, error = drain(make_model(server.base_url).stream(HELLO))
    assert deltas == ["Once ", "upon "]
    assert isinstance(error, BrainUnavailable)
    assert "middle of the answer" in str(error)


def test_a_stream_with_a_broken_chunk_keeps_its_deltas_then_raises(server):
    server.enqueue(BadChunk(pieces=("Once ", "upon ")))
    deltas, error = drain(make_model(server.base_url).stream(HELLO))
    assert deltas == ["Once ", "upon "]
    assert isinstance(error, BrainResponseError)


def test_a_stream_abandoned_by_its_reader_leaves_the_model_usable(server):
    server.enqueue(Text("one two three four"), Text("again"))
    model = make_model(server.base_url)
    parts = model.stream(HELLO)
    assert next(parts) == TextDelta("one")
    parts.close()
    assert model.complete(HELLO).text == "again"


@pytest.mark.parametrize("method", ["complete", "stream"])
def test_garbage_is_a_response_error(server, method):
    server.enqueue(Garbage())
    model = make_model(server.base_url)
    with pytest.raises(BrainResponseError):
        if method == "complete":
            model.complete(HELLO)
        else:
            list(model.stream(HELLO))


def test_json_that_is_not_json_is_a_response_error(server):
    server.enqueue(Garbage(b"{not json", "application/json"))
    with pytest.raises(BrainResponseError, match="not JSON"):
        make_model(server.base_url).complete(HELLO)


@pytest.mark.parametrize("method", ["complete", "stream"])
def test_a_missing_model_says_how_to_get_it(server, method):
    server.enqueue(ModelMissing("fake-model"))
    model = make_model(server.base_url)
    with pytest.raises(ModelNotFound, match="ollama pull fake-model"):
        if method == "complete":
            model.complete(HELLO)
        else:
            list(model.stream(HELLO))


def test_a_404_without_a_model_points_at_the_address(server):
    server.enqueue(Status(404, "page not found"))
    with pytest.raises(BrainResponseError, match="/v1") as caught:
        make_model(server.base_url).complete(HELLO)
    assert not isinstance(caught.value, ModelNotFound)


def test_a_refused_api_key_says_so(server):
    server.enqueue(Status(401, "invalid api key"))
    with pytest.raises(BrainResponseError, match="api key"):
        make_model(server.base_url).complete(HELLO)


# --- probe --------------------------------------------------------------------


def test_probe_sees_a_live_server_and_its_models(server):
    server.models = ["qwen2.5:3b", "fake-model"]
    assert server_answers(server.base_url) is True
    assert server_models(server.base_url) == ["qwen2.5:3b", "fake-model"]
    assert server.hits == 0  # probing never asks the model anything


def test_probe_says_no_when_nothing_answers():
    assert server_answers(closed_port_url(), timeout=0.5) is False


def test_probe_says_no_to_a_server_without_a_model_list(server):
    assert server_answers(f"http://127.0.0.1:{server.port}/nowhere", timeout=0.5) is False
