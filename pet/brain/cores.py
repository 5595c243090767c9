"""How many cores the rest of the machine leaves to the embedded model.

llama.cpp's threads wait for each other at every step, so a thread that
loses its core stalls the others: on two busy cores two threads generated
6-33x slower than one. On two idle cores they read a prompt and generate
1.6-1.8x faster (README, "The embedded ladder"). So the number is chosen
again before each call, and during a long reply, from what the other
processes used in the last seconds, measured in /proc/stat less the pet's
own CPU time (its own model threads are not "others").
"""

from __future__ import annotations

import logging
import math
import os
import resource
import threading
import time
from collections import deque
from typing import Callable

log = logging.getLogger(__name__)

#: seconds between two samples of the machine's CPU time
SAMPLE_SECONDS = 1.0
#: samples kept: the measure spans up to this many periods
SPAN = 3
#: a window shorter than this measures too few clock ticks to trust
MIN_WINDOW_SECONDS = 0.5
#: another process may use this share of a core before a thread gives way to it
SLACK = 0.25

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def machine_busy_seconds(path: str = "/proc/stat") -> float | None:
    """CPU-seconds all processes have used on all cores since boot (not idle,
    not waiting for disk); None where /proc/stat is not there (not Linux)."""
    try:
        with open(path, encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 5 or fields[0] != "cpu":
        return None
    try:
        # user nice system idle iowait irq softirq steal ...
        values = [int(v) for v in fields[1:9]]
    except ValueError:
        return None
    busy = sum(values) - values[3] - (values[4] if len(values) > 4 else 0)
    return busy / _TICKS


def own_seconds() -> float:
    """CPU-seconds this process (every thread of it) has used."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def threads_for(others: float, cores: int, cap: int) -> int:
    """Threads for llama.cpp when other processes keep `others` cores busy:
    one per core they leave free (a core they use less than SLACK of
    counts as free), at least one, at most `cap`."""
    return max(1, min(cap, math.floor(cores - others + SLACK)))


class CoreMeter:
    """Samples the machine's and the pet's CPU time once a second (a daemon
    thread that only reads a file); `others()` is how many cores the other
    processes used over the last few seconds."""

    def __init__(
        self,
        *,
        period: float = SAMPLE_SECONDS,
        span: int = SPAN,
        busy: Callable[[], float | None] = machine_busy_seconds,
        own: Callable[[], float] = own_seconds,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.period = period
        self._busy = busy
        self._own = own
        self._clock = clock
        self._samples: deque[tuple[float, float, float]] = deque(maxlen=span)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> tuple[float, float, float] | None:
        """(time, machine busy seconds, own seconds) now; None when unreadable."""
        busy = self._busy()
        if busy is None:
            return None
        return self._clock(), busy, self._own()

    def record(self) -> bool:
        """Take a sample into the window; False when the machine has none to give."""
        now = self.sample()
        if now is None:
            return False
        with self._lock:
            self._samples.append(now)
        return True

    def start(self) -> bool:
        """Begin sampling in the background; False (and no thread) where the
        machine's CPU time cannot be read."""
        if self._thread is not None:
            return True
        if not self.record():
            return False
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="pet-core-meter", daemon=True)
        self._thread.start()
        return True

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.record()

    def stop(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=self.period * 2)

    def others(self) -> float | None:
        """Cores the other processes kept busy from the oldest sample kept
        until now; None when that is too short a time to tell."""
        now = self.sample()
        with self._lock:
            oldest = self._samples[0] if self._samples else None
        if now is None or oldest is None:
            return None
        seconds = now[0] - oldest[0]
        if seconds < MIN_WINDOW_SECONDS:
            return None
        used = (now[1] - oldest[1]) - (now[2] - oldest[2])
        return max(0.0, used / seconds)
