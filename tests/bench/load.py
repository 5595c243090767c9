"""Load: N conversations × M messages at once with the scripted model.

    python tests/bench/load.py [--conversations 20] [--messages 20] [--via api|agent|both] [--rounds 3]

`api`: each message is a POST /api/chat to the real server (uvicorn on
127.0.0.1) in the same process; `agent`: `app.agent.run` straight from the
threads. Every round runs on a fresh home and is checked as in
tests/test_load.py (nothing lost, nothing out of order, no cross-talk) before
its figures are printed: throughput (turns/s) and per-message latency.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS.parent))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from test_load import check_load, load_app, run_load, via_agent, via_api  # noqa: E402


def one_round(via: str, conversations: int, messages: int) -> tuple[float, float, float, float]:
    os.environ["PET_HOME"] = tempfile.mkdtemp(prefix="pet-load-")
    os.environ["PET_GREETING"] = "off"
    app = load_app()
    server = None
    try:
        ids = [app.conversations.create(app.pet.id) for _ in range(conversations)]
        if via == "api":
            from pet.api.server import start_in_thread

            server = start_in_thread(app, port=0)
            send = via_api(server.url)
        else:
            send = via_agent(app)
        load = run_load(send, ids, messages)
        check_load(app, ids, load, app.brain.model)
        return load.throughput, load.latency(0.5), load.latency(0.95), load.latency(1.0)
    finally:
        if server is not None:
            server.stop()
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--via", choices=("api", "agent", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for via in ("api", "agent") if args.via == "both" else (args.via,):
        rounds = [one_round(via, args.conversations, args.messages) for _ in range(args.rounds)]
        turns = args.conversations * args.messages
        throughput, p50, p95, worst = (statistics.median(r[i] for r in rounds) for i in range(4))
        print(f"{args.conversations} conversations × {args.messages} messages at once via {via} "
              f"({turns} turns, median of {args.rounds} rounds, all checked: nothing lost or out of order)")
        print(f"  throughput {throughput:.0f} turns/s; latency per message p50 {p50 * 1000:.0f} ms, "
              f"p95 {p95 * 1000:.0f} ms, max {worst * 1000:.0f} ms")
        print("  rounds: " + "; ".join(f"{r[0]:.0f} turns/s, p95 {r[2] * 1000:.0f} ms" for r in rounds))


if __name__ == "__main__":
    main()
