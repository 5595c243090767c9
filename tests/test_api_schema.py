"""Schemathesis against the served OpenAPI document: inputs that fit the
schema and inputs that break it. No request may end in a 500; valid ones get
answers that match the document."""

from __future__ import annotations

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings

pytestmark = pytest.mark.slow

#: examples per operation and mode: enough to hit every kind of bad field, small enough for ~30 s
EXAMPLES = 12


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("pet-home")
    app = build(
        load_settings({"home": str(home), "greeting": False, "scheduler": "paused"}),
        brain=ScriptedModel(["Sure thing!"], repeat_last=True),
    )
    # something to find: a memory, a reminder and a traced turn
    app.memories.remember(app.pet.id, "likes green tea")
    running = start_in_thread(app, port=0)
    with httpx.Client(base_url=running.url, trust_env=False) as client:
        client.post("/api/chat", json={"message": "hello"}).raise_for_status()
        client.post("/api/reminders", json={"text": "stretch", "when": "in 2 hours"}).raise_for_status()
        document = client.get("/openapi.json").json()
    yield running.url, schemathesis.openapi.from_dict(document)
    running.stop()
    app.close()


def operations(schema) -> list:
    return [result.ok() for result in schema.get_all_operations()]


def has_inputs(operation) -> bool:
    return bool(list(operation.iter_parameters())) or bool(list(operation.body))


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
def test_no_input_makes_the_api_fail(served, mode):
    url, schema = served
    tried: dict[str, set[int]] = {}
    ops = operations(schema)
    assert {op.label for op in ops} >= {
        "POST /api/chat",
        "GET /api/tools",
        "GET /api/debug/{conversation_id}",
        "GET /api/memories",
        "POST /api/memories",
        "DELETE /api/memories/{memory_id}",
        "GET /api/reminders",
        "POST /api/reminders",
        "DELETE /api/reminders/{reminder_id}",
        "GET /metrics",
        "GET /healthz",
    }

    for operation in ops:
        statuses = tried.setdefault(operation.label, set())
        if mode is GenerationMode.NEGATIVE and not has_inputs(operation):
            continue  # nothing to get wrong

        @settings(
            max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def check(case) -> None:
            response = case.call(base_url=url, timeout=30)
            statuses.add(response.status_code)  # noqa: B023 - check() runs at once, inside this iteration
            assert response.status_code < 500, (case.as_curl_command(), response.text[:500])
            if mode is GenerationMode.POSITIVE and response.status_code < 300:
                case.validate_response(response)  # the body matches the document

        check()
    if mode is GenerationMode.NEGATIVE:
        # broken inputs were refused with a 4xx, which says what was wrong
        for label in ("POST /api/chat", "POST /api/memories", "POST /api/reminders"):
            assert 422 in tried[label], (label, tried[label])
