"""Per-turn framework overhead: an instant scripted model, 1,000 stored memories.

    python tests/bench/turn_overhead.py [--turns 300] [--no-trace]

Everything but the model is real: SQLite file, recall, prompt, persistence.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--no-trace", dest="trace", action="store_false",
                        help="agents keep no turn traces (to measure what a trace costs)")
    args = parser.parse_args()

    os.environ["PET_HOME"] = tempfile.mkdtemp(prefix="pet-bench-")
    from pet.app import build
    from pet.brain.scripted import ScriptedModel, call
    from pet.config import load_settings
    from pet.events import Completion

    model = ScriptedModel(["Sure thing!"], repeat_last=True)
    app = build(load_settings(), brain=model)
    if not args.trace:
        for runtime in app.pets():
            runtime.agent.tracer = None
    topics = ["coffee", "cat", "rust", "hiking", "咖啡", "猫咪", "编程", "爬山", "birthday", "music"]
    for i in range(args.memories):
        app.memories.remember(app.pet.id, f"fact {i}: likes {topics[i % len(topics)]} number {i * 7}")
    conversation = app.current_conversation()

    def timed(text: str) -> float:
        started = time.perf_counter()
        for _ in app.agent.run(conversation, text):
            pass
        return time.perf_counter() - started

    for _ in range(10):  # warm up
        timed("hello")
    # Chat that no reflex answers: the model path, with recall over all memories.
    plain = [timed(f"I was thinking about {topics[i % len(topics)]} today") for i in range(args.turns)]

    # A turn with one tool call (two model calls, one remember).
    tool_times = []
    for i in range(args.turns // 3):
        model.enqueue(Completion("", (call("remember", content=f"bench fact {i}"),)), "Saved!")
        tool_times.append(timed(f"remember bench fact {i}"))

    print(f"memories stored: {app.memories.count(app.pet.id)}, turns: {len(plain)} + {len(tool_times)}, "
          f"traces {'on' if args.trace else 'off'}")
    for name, values in (("text turn", plain), ("turn with a remember call", tool_times)):
        print(
            f"{name:28s} p50 {statistics.median(values) * 1000:6.2f} ms   "
            f"p95 {percentile(values, 0.95) * 1000:6.2f} ms"
        )
    app.close()


if __name__ == "__main__":
    main()
