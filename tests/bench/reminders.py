"""How late a reminder reaches the inbox with a real running scheduler, and
whether any fires twice.

    python tests/bench/reminders.py [--count 20] [--first 2] [--last 10] [--restart-at 6]

Builds a pet in a temporary home with the scheduler on and the real clock,
sets `count` reminders due between `first` and `last` seconds from now
(through ReminderStore, so the app's listener adds the jobs), then watches
the inbox. At `restart-at` seconds the app is closed and built again on the
same home, as a restart would: the jobs come back from the database and
nothing may fire twice. Latency is the inbox row's creation time minus the
due time. Also counts how often each reminder's job ran.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

UTC = dt.timezone.utc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--first", type=float, default=2.0, help="seconds until the first is due")
    parser.add_argument("--last", type=float, default=10.0, help="seconds until the last is due")
    parser.add_argument("--restart-at", type=float, default=6.0,
                        help="seconds in at which the app is closed and built again (0: no restart)")
    args = parser.parse_args(argv)

    home = tempfile.mkdtemp(prefix="pet-bench-reminders-")
    os.environ.update({"PET_HOME": home, "PET_GREETING": "off", "PET_LOG_LEVEL": "WARNING"})
    from pet.app import build
    from pet.brain.scripted import ScriptedModel
    from pet.config import load_settings
    from pet.scheduler import core

    runs: collections.Counter[int] = collections.Counter()
    original = core.PetScheduler.fire

    def counted(self, reminder_id, due_at, now=None):
        runs[reminder_id] += 1
        return original(self, reminder_id, due_at, now)

    core.PetScheduler.fire = counted  # count every job run, whichever app runs it

    def start():
        return build(load_settings({"scheduler": "on"}), brain=ScriptedModel([]))

    started = time.perf_counter()
    app = start()
    print(f"build with a running scheduler: {time.perf_counter() - started:.3f} s")
    begin = dt.datetime.now(UTC)
    step = (args.last - args.first) / max(1, args.count - 1)
    dues = {}
    for i in range(args.count):
        due = begin + dt.timedelta(seconds=args.first + i * step)
        dues[app.reminders.add(app.pet.id, f"bench reminder {i + 1}", due).id] = due
    pet = app.pet.id

    restarted = False
    deadline = time.monotonic() + args.last + 15
    seen: list = []
    while time.monotonic() < deadline:
        if args.restart_at and not restarted and dt.datetime.now(UTC) >= begin + dt.timedelta(seconds=args.restart_at):
            closing = time.perf_counter()
            app.close()
            app = start()
            restarted = True
            print(f"restart (close + build) at {args.restart_at:g} s: {time.perf_counter() - closing:.3f} s")
        seen = [m for m in app.inbox.recent(pet, 1000) if m.reminder_id in dues]
        if len(seen) >= len(dues):
            break
        time.sleep(0.02)
    time.sleep(0.5)  # time for a double firing to show
    seen = [m for m in app.inbox.recent(pet, 1000) if m.reminder_id in dues]
    pending = app.reminders.pending(pet)
    jobs = [job.id for job in app.scheduler.jobs() if job.id.startswith("reminder-")]
    app.close()

    per_reminder = collections.Counter(m.reminder_id for m in seen)
    latencies = sorted((m.created_at - dues[m.reminder_id]).total_seconds() * 1000 for m in seen)
    print(f"reminders: {len(dues)}, due {args.first:g}-{args.last:g} s ahead, restart: "
          f"{f'at {args.restart_at:g} s' if args.restart_at else 'none'}")
    print(f"delivered: {len(per_reminder)} of {len(dues)}; inbox rows: {len(seen)}; "
          f"reminders with more than one row: {sum(1 for n in per_reminder.values() if n > 1)}")
    print(f"job runs: {sum(runs.values())} (reminders whose job ran more than once: "
          f"{sum(1 for n in runs.values() if n > 1)}); still pending: {len(pending)}; jobs left: {len(jobs)}")
    if latencies:
        print(f"due -> inbox latency (ms): median {statistics.median(latencies):.1f}, "
              f"worst {latencies[-1]:.1f}, best {latencies[0]:.1f}")
        print(f"late-marked: {sum(m.late for m in seen)}")
    ok = len(per_reminder) == len(dues) == len(seen) and not pending and not jobs
    print("OK" if ok else "PROBLEM")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
