"""Prometheus metrics of one running home, read off each finished turn's trace
(a listener of the TraceStore).

Each server gets its own registry (not prometheus-client's global one), so two
apps in one process, as in tests, count apart.
"""

from __future__ import annotations

import logging
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

log = logging.getLogger(__name__)

CONTENT_TYPE = CONTENT_TYPE_LATEST
#: seconds; a tiny model answers in tens of milliseconds, a 3B one on a CPU in tens of seconds
#: distinct tool names counted by name; more (made up by a model) count as "other"
MAX_TOOL_LABELS = 64
MODEL_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160)


class PetMetrics:
    """Turns, model latency, tool calls by name and outcome, and errors."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.turns = Counter(
            "pet_turns",
            "Turns answered, by path (model or reflex) and outcome (ok or partial)",
            ["path", "outcome"],
            registry=r,
        )
        self.turn_seconds = Histogram(
            "pet_turn_seconds",
            "Time from the person's message to the stored reply",
            buckets=MODEL_BUCKETS,
            registry=r,
        )
        self.model_seconds = Histogram(
            "pet_model_call_seconds",
            "Time of one model call, by purpose",
            ["purpose"],
            buckets=MODEL_BUCKETS,
            registry=r,
        )
        self.first_token = Histogram(
            "pet_model_first_token_seconds",
            "Time to a model call's first streamed text",
            buckets=MODEL_BUCKETS,
            registry=r,
        )
        self.tokens = Counter(
            "pet_model_tokens",
            "Tokens sent to and written by the model (some estimated)",
            ["kind"],
            registry=r,
        )
        self.tool_calls = Counter(
            "pet_tool_calls", "Tool calls, by tool and outcome (ok or error)", ["tool", "outcome"], registry=r
        )
        self.errors = Counter(
            "pet_errors",
            "Errors: a failed model call, a turn cut short, an API failure",
            ["kind"],
            registry=r,
        )
        self._tool_names: set[str] = set()
        for kind in ("model", "turn", "api"):
            self.errors.labels(kind)  # shown as 0 before the first one

    def record_turn(self, trace: dict[str, Any]) -> None:
        """Count one finished turn from its trace dict (see pet.agent.trace)."""
        partial = bool(trace.get("partial"))
        self.turns.labels("reflex" if trace.get("reflex") else "model", "partial" if partial else "ok").inc()
        if partial:
            self.errors.labels("turn").inc()
        if isinstance(trace.get("seconds"), (int, float)):
            self.turn_seconds.observe(trace["seconds"])
        for step in trace.get("steps") or ():
            if step.get("kind") == "model":
                self.model_seconds.labels(step.get("purpose") or "reply").observe(step.get("seconds") or 0.0)
                if step.get("first_token_seconds") is not None:
                    self.first_token.observe(step["first_token_seconds"])
                self.tokens.labels("prompt").inc(step.get("prompt_tokens") or 0)
                self.tokens.labels("completion").inc(step.get("completion_tokens") or 0)
                if step.get("error"):
                    self.errors.labels("model").inc()
            elif step.get("kind") == "tool":
                self.tool_calls.labels(self._tool_label(step.get("name")), "ok" if step.get("ok") else "error").inc()

    def _tool_label(self, name: object) -> str:
        """The model names tools, made-up names too: a bounded set of labels,
        so /metrics cannot grow without end."""
        name = name if isinstance(name, str) and name else "?"
        if name not in self._tool_names and len(self._tool_names) >= MAX_TOOL_LABELS:
            return "other"
        self._tool_names.add(name)
        return name

    def listen(self, trace: dict[str, Any]) -> None:
        """A TraceStore listener: counting never breaks the turn it counts."""
        try:
            self.record_turn(trace)
        except Exception:
            log.exception("could not count turn %s in the metrics", trace.get("id"))

    def api_error(self) -> None:
        self.errors.labels("api").inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
