"""Start-up time: from `python run.py` to the chat page answering.

    python tests/bench/startup.py [--runs 3] [--brain embedded]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def once(brain: str) -> float:
    port = free_port()
    home = tempfile.mkdtemp(prefix="pet-bench-")
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "run.py", "--home", home, "--port", str(port), "--brain", brain],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            if process.poll() is not None:
                raise SystemExit(f"run.py exited with {process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as response:
                    if response.status == 200 and b"<html" in response.read(2000).lower():
                        return time.perf_counter() - started
            except OSError:
                time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--brain", default="embedded")
    args = parser.parse_args()
    times = [once(args.brain) for _ in range(args.runs)]
    print(f"start-up to a serving chat page (--brain {args.brain}): "
          f"median {statistics.median(times):.2f} s, runs {', '.join(f'{t:.2f}' for t in times)}")


if __name__ == "__main__":
    main()
