"""The prompt's warm-up at each start of the pet, as `python run.py` does it
(`Agent.warm` on the current conversation): a fresh home, then restarts in
the same home, each in a fresh process. The first start reads the stable
part of the prompt; a restart puts back the reading kept in <home>/cache/.

    python tests/bench/warm_restart.py [--starts 3] [--model small]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ONE_START = """
import dataclasses, sys, time
from pathlib import Path
from pet.app import build
from pet.config import load_settings
settings = dataclasses.replace(load_settings({"brain": "embedded", "embedded_model": sys.argv[2]}),
                               home=Path(sys.argv[1]), database_url="", workspace="")
app = build(settings, scheduler="off")
runtime, conversation = app.turn_target()
started = time.perf_counter()
tokens = runtime.agent.warm(conversation)
print(f"{tokens} {time.perf_counter() - started:.2f}")
app.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="starts in one home, the first in a fresh one")
    parser.add_argument("--model", default="small", help="the embedded rung")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pet-warm-") as home:
        for start in range(1, args.starts + 1):
            done = subprocess.run([sys.executable, "-c", ONE_START, home, args.model], cwd=ROOT,
                                  capture_output=True, text=True, check=True)
            tokens, seconds = done.stdout.split()[-2:]
            kept = sum(f.stat().st_size for f in (Path(home) / "cache").glob("*.bin")) / 1e6
            print(f"start {start}: read {tokens} prompt tokens in {seconds} s (kept reading: {kept:.0f} MB)",
                  flush=True)


if __name__ == "__main__":
    main()
