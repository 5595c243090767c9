"""POST /api/chat under load: requests per second and latency with the
scripted instant model, so what is measured is the pet (HTTP, agent loop,
SQLite, trace), not a model.

    python tests/bench/api.py [--clients 1 8 32] [--requests 300] [--stream]

The pet runs in a child process (as `python run.py` would), the clients in this
one: each its own conversation and keep-alive connection.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TOPICS = ["coffee", "cat", "rust", "hiking", "咖啡", "猫咪", "编程", "爬山", "birthday", "music"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def serve(trace: bool) -> None:
    """The child: a pet with an instant scripted brain; prints its URL."""
    os.environ["PET_GREETING"] = "off"
    from pet.api.server import start_in_thread
    from pet.app import build
    from pet.brain.scripted import ScriptedModel
    from pet.config import load_settings
    from pet.logs import setup_logging

    settings = load_settings({"scheduler": "off", "log_level": "WARNING"})
    setup_logging(settings.home, "WARNING", console=False)
    app = build(settings, brain=ScriptedModel(["Sure thing!"], repeat_last=True))
    for i in range(1000):  # recall works over a realistic memory
        app.memories.remember(app.pet.id, f"fact {i}: likes {TOPICS[i % len(TOPICS)]} number {i * 7}")
    if not trace:
        for runtime in app.pets():
            runtime.agent.tracer = None
    running = start_in_thread(app, port=0)
    print(running.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    running.stop()
    app.close()


def load(url: str, clients: int, total: int, stream: bool) -> tuple[float, list[float], int]:
    import httpx

    per_client = max(1, total // clients)
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    ready = threading.Barrier(clients + 1)

    def client(n: int) -> None:
        with httpx.Client(base_url=url, trust_env=False, timeout=120) as http:
            conversation = http.post("/api/conversations", json={}).json()["conversation_id"]
            http.post("/api/chat", json={"message": "warm up", "conversation_id": conversation})
            ready.wait()
            mine = []
            for i in range(per_client):
                body = {
                    "message": f"I was thinking about {TOPICS[(n + i) % len(TOPICS)]} today",
                    "conversation_id": conversation,
                    "stream": stream,
                }
                started = time.perf_counter()
                response = http.post("/api/chat", json=body)
                if response.status_code != 200 or (not stream and not response.json()["reply"]):
                    failures[0] += 1
                mine.append(time.perf_counter() - started)
            with lock:
                latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    ready.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, latencies, failures[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--requests", type=int, default=320, help="requests per level, shared by the clients")
    parser.add_argument("--stream", action="store_true", help="ask for server-sent events")
    parser.add_argument("--no-trace", dest="trace", action="store_false", help="agents keep no traces")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.trace)
        return

    home = tempfile.mkdtemp(prefix="pet-bench-")
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve"] + ([] if args.trace else ["--no-trace"]),
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PET_HOME": home, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"},
    )
    try:
        assert child.stdout is not None
        url = child.stdout.readline().strip()
        if not url.startswith("http"):
            raise SystemExit("the pet did not start; run with --serve to see why")
        print(
            f"POST /api/chat{' (stream)' if args.stream else ''}, scripted instant model, "
            f"1,000 memories, traces {'on' if args.trace else 'off'}"
        )
        results = []
        for clients in args.clients:
            elapsed, latencies, failures = load(url, clients, args.requests, args.stream)
            row = {
                "clients": clients,
                "requests": len(latencies),
                "rps": len(latencies) / elapsed,
                "p50_ms": statistics.median(latencies) * 1000,
                "p95_ms": percentile(latencies, 0.95) * 1000,
                "failures": failures,
            }
            results.append(row)
            print(
                f"{clients:3d} clients: {row['rps']:7.1f} requests/s   p50 {row['p50_ms']:7.1f} ms   "
                f"p95 {row['p95_ms']:7.1f} ms   ({row['requests']} requests, {failures} failed)"
            )
        print(json.dumps(results))
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(30)


if __name__ == "__main__":
    main()
