"""kill -9 during a burst of chat messages, full size (tests/test_faults.py runs a small one).

    python tests/bench/faults.py [--messages 1000] [--workers 8] [--kill-at 0.5] [--rounds 1]

Starts `python run.py --brain server` on a temp home against a fake
OpenAI-compatible server on 127.0.0.1, sets three reminders, sends the burst
through POST /api/chat from `--workers` threads (one conversation each) and
kills the process with SIGKILL when `--kill-at` of the messages have been
answered. Then checks the database as the kill left it, restarts on the same
home and checks again: every answered message stored with its reply,
`PRAGMA integrity_check`, the reminders' rows and jobs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS.parent))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from fakeserver import FakeOpenAIServer  # noqa: E402
from test_faults import (  # noqa: E402
    PetProcess,
    burst_and_kill,
    call,
    check_jobs,
    check_replied_are_stored,
    echo,
    integrity,
    reply_for,
    set_reminders,
)


def one_round(messages: int, workers: int, kill_at: float) -> None:
    home = Path(tempfile.mkdtemp(prefix="pet-faults-")) / "home"
    kill_after = max(1, int(messages * kill_at))
    with FakeOpenAIServer(default=echo) as brain:
        pet = PetProcess(home, brain.base_url)
        first_start = pet.start()
        try:
            reminders = set_reminders(pet)
            burst = burst_and_kill(pet, messages, workers, kill_after)
        finally:
            if pet.process is not None and pet.process.poll() is None:
                pet.process.kill()
        assert not burst.errors, burst.errors[:3]
        replied = len(burst.replied)
        after_kill = integrity(home)
        check_jobs(home, reminders)
        counts = check_replied_are_stored(home, burst)

        again = PetProcess(home, brain.base_url)
        restart = again.start()
        try:
            listed = call(again.url + "/api/reminders")
            assert [r["id"] for r in listed] == [r["id"] for r in reminders]
            check_jobs(home, reminders)
            conversation = burst.messages[0].conversation_id
            answer = call(again.url + "/api/chat", {"message": "after: burst-9999", "conversation_id": conversation})
            assert answer["reply"] == reply_for("burst-9999")
        finally:
            again.stop()
        after_restart = integrity(home)
        check_replied_are_stored(home, burst)

    print(f"burst of {messages} messages from {workers} workers, SIGKILL after {kill_after} replies "
          f"({burst.seconds:.1f} s, {kill_after / burst.seconds:.0f} turns/s before the kill)")
    print(f"  answered before the kill: {replied}; stored user messages: {counts['stored messages']}; "
          f"stored replies: {counts['stored replies']}; "
          f"messages kept without a reply (in flight at the kill): {counts['unanswered messages kept']}")
    print(f"  every answered message stored with its reply: yes ({replied}/{replied})")
    print(f"  integrity_check after the kill: {after_kill}; after the restart: {after_restart}")
    print(f"  reminders and jobs intact after the kill and after the restart: yes ({len(reminders)} reminders "
          f"+ the morning brief)")
    print(f"  start {first_start:.1f} s, restart after the kill {restart:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--kill-at", type=float, default=0.5, help="share of the messages answered before the kill")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    for _ in range(args.rounds):
        one_round(args.messages, args.workers, args.kill_at)


if __name__ == "__main__":
    main()
